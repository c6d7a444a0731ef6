//! Flash timing: array operations per page level, transfers, copyback, suspend.
//!
//! Transfer time of `n` bytes = command overhead + ceil(n × ps_per_byte / 1000) ns; rates are
//! kept in integer picoseconds per byte so runs stay bit-for-bit deterministic.

use crate::units::Nanos;
use serde::{Deserialize, Serialize};

/// The longest time any one `timing` field may give, ns (1 s; flash erases take ms).
pub const MAX_OP_NS: u64 = 1_000_000_000;
/// The slowest channel `timing.channel_ps_per_byte` may give (1 µs a byte: 1 MB/s).
pub const MAX_PS_PER_BYTE: u64 = 1_000_000;

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
        // Bounds far above any flash part, so sums of simulated time stay far from u64 (a read
        // of 10^15 ns made latencies wrap to u64::MAX or reported a stall).
        let longest = |v: &[u64]| v.iter().max().copied().unwrap_or(0);
        for (name, v) in [
            ("read_ns", longest(&self.read_ns)),
            ("program_ns", longest(&self.program_ns)),
            ("erase_ns", self.erase_ns),
            ("command_ns", self.command_ns),
            ("copyback_command_ns", self.copyback_command_ns),
            ("ecc_ns", self.ecc_ns),
            ("xor_ns", self.xor_ns),
            ("dram_hit_ns", self.dram_hit_ns),
            ("suspend.suspend_ns", self.suspend.suspend_ns),
            ("suspend.resume_ns", self.suspend.resume_ns),
        ] {
            if v > MAX_OP_NS {
                return Err(format!("timing.{name} must be at most {MAX_OP_NS} (1 s), got {v}"));
            }
        }
        if self.channel_ps_per_byte > MAX_PS_PER_BYTE {
            return Err(format!(
                "timing.channel_ps_per_byte must be at most {MAX_PS_PER_BYTE} (1 MB/s), got {}",
                self.channel_ps_per_byte
            ));
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

    /// A time beyond 1 s (or a channel slower than 1 MB/s) is an error naming the field: a
    /// read of 10^15 ns made latencies wrap to u64::MAX, or stopped the run as "stalled".
    #[test]
    fn times_beyond_one_second_are_errors() {
        let t = crate::config::presets::load("tiny").unwrap().timing;
        let mut bad = t.clone();
        bad.read_ns = vec![MAX_OP_NS];
        assert_eq!(bad.validate(1), Ok(()));
        bad.read_ns = vec![1_000_000_000_000_000];
        assert_eq!(bad.validate(1).unwrap_err(), "timing.read_ns must be at most 1000000000 (1 s), got 1000000000000000");
        let mut bad = t.clone();
        bad.program_ns = vec![5, MAX_OP_NS + 1];
        assert_eq!(bad.validate(2).unwrap_err(), "timing.program_ns must be at most 1000000000 (1 s), got 1000000001");
        let mut bad = t.clone();
        bad.suspend.resume_ns = u64::MAX / 2;
        assert_eq!(bad.validate(1).unwrap_err(), "timing.suspend.resume_ns must be at most 1000000000 (1 s), got 9223372036854775807");
        let mut bad = t.clone();
        bad.channel_ps_per_byte = MAX_PS_PER_BYTE + 1;
        assert_eq!(bad.validate(1).unwrap_err(), "timing.channel_ps_per_byte must be at most 1000000 (1 MB/s), got 1000001");
    }
}
