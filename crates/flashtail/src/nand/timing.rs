//! Flash timing: array operations per page level, transfers, copyback, suspend.
//!
//! Transfer time of `n` bytes = command overhead + ceil(n × ps_per_byte / 1000) ns; rates are
//! kept in integer picoseconds per byte so runs stay bit-for-bit deterministic.

use crate::units::Nanos;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Page read time (tR) per level, ns; one entry applies to every level.
    pub read_ns: Vec<u64>,
    /// Page program time (tPROG) per level, ns; one entry applies to every level.
    pub program_ns: Vec<u64>,
    /// Block erase time (tBERS), ns.
    pub erase_ns: u64,
    /// Channel transfer cost, picoseconds per byte (25 ns/B = 25000).
    pub channel_ps_per_byte: u64,
    /// Command/address overhead of every channel transfer (and of a bare command), ns.
    #[serde(default)]
    pub command_ns: u64,
    /// Channel time of a copyback command sequence, ns (ttFlash artifact: 14 cycles).
    #[serde(default)]
    pub copyback_command_ns: u64,
    /// Controller time to check ECC of a page migrated through the controller, ns.
    #[serde(default)]
    pub ecc_ns: u64,
    /// Controller time to XOR a stripe for a parity rebuild, ns.
    #[serde(default)]
    pub xor_ns: u64,
    /// Latency of a read served from controller DRAM (write buffer or in-flight write data).
    #[serde(default)]
    pub dram_hit_ns: u64,
    /// Program/erase suspend for reads.
    #[serde(default)]
    pub suspend: Suspend,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suspend {
    pub enabled: bool,
    /// Time to suspend an ongoing program or erase, ns.
    #[serde(default)]
    pub suspend_ns: u64,
    /// Extra time to resume it afterwards, ns.
    #[serde(default)]
    pub resume_ns: u64,
}

impl Timing {
    pub fn validate(&self, bits_per_cell: u32) -> Result<(), String> {
        for (name, v) in [("read_ns", &self.read_ns), ("program_ns", &self.program_ns)] {
            if v.is_empty() {
                return Err(format!("timing.{name} needs at least one value"));
            }
            if v.len() != 1 && v.len() != bits_per_cell as usize {
                return Err(format!(
                    "timing.{name} has {} values; give 1 or one per level ({bits_per_cell})",
                    v.len()
                ));
            }
            if v.contains(&0) {
                return Err(format!("timing.{name} values must be > 0"));
            }
        }
        if self.erase_ns == 0 {
            return Err("timing.erase_ns must be > 0".into());
        }
        Ok(())
    }
    #[inline]
    pub fn read(&self, level: usize) -> Nanos {
        Nanos(*self.read_ns.get(level).unwrap_or(&self.read_ns[0]))
    }
    #[inline]
    pub fn program(&self, level: usize) -> Nanos {
        Nanos(*self.program_ns.get(level).unwrap_or(&self.program_ns[0]))
    }
    #[inline]
    pub fn erase(&self) -> Nanos {
        Nanos(self.erase_ns)
    }
    /// Channel occupancy of moving `bytes` of data plus the command.
    #[inline]
    pub fn transfer(&self, bytes: u64) -> Nanos {
        Nanos(self.command_ns + (bytes * self.channel_ps_per_byte).div_ceil(1000))
    }
    /// Channel occupancy of a bare command (erase, copyback start).
    #[inline]
    pub fn command(&self) -> Nanos {
        Nanos(self.command_ns)
    }
    #[inline]
    pub fn copyback_command(&self) -> Nanos {
        Nanos(self.copyback_command_ns.max(self.command_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn transfer_rounds_up_and_adds_command() {
        let t = Timing {
            read_ns: vec![40_000],
            program_ns: vec![800_000],
            erase_ns: 2_000_000,
            channel_ps_per_byte: 25_000,
            command_ns: 175,
            copyback_command_ns: 0,
            ecc_ns: 0,
            xor_ns: 0,
            dram_hit_ns: 0,
            suspend: Suspend::default(),
        };
        assert_eq!(t.transfer(4096), Nanos(102_400 + 175));
        assert_eq!(t.read(3), Nanos(40_000));
        assert_eq!(t.copyback_command(), Nanos(175));
    }
}
