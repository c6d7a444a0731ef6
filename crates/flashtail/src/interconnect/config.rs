//! Which interconnect a scheme runs on, and the Venice mesh's parameters.
//!
//! The shared channel bus (`bus.rs`) needs no parameters beyond the device's channel count.
//! The mesh (`mesh/`, Venice ISCA'23 and GC bypass 2026) takes its shape from the
//! geometry (one router per chip: a column per channel, a row per chip of a channel) and
//! the rest from here. Venice does not publish its link rate or per-hop latency: the link
//! moves data at the channel's rate (`timing`), and the hop latency is a parameter.

use serde::{Deserialize, Serialize};

/// The transfer path of a scheme (Venice paper).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Interconnect {
    /// One shared bus per channel, one transfer at a time (the baseline).
    Bus,
    /// Venice: a mesh of routers with path reservation and fully adaptive routing; fair,
    /// GC transfers enter through the host controllers' ports like any other.
    Venice,
    /// GC bypass on Venice: a GC controller with its own ports; GC write-back is low
    /// priority and its paths may be taken over by host I/O, GC reads and erases.
    GcBypass,
}

impl Interconnect {
    pub const NAMES: [&'static str; 3] = ["bus", "venice", "gc-bypass"];

    pub fn parse(s: &str) -> Result<Interconnect, String> {
        match s {
            "bus" => Ok(Interconnect::Bus),
            "venice" => Ok(Interconnect::Venice),
            "gc-bypass" => Ok(Interconnect::GcBypass),
            _ => Err(format!("unknown interconnect '{s}' (known: {})", Interconnect::NAMES.join(", "))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Interconnect::Bus => "bus",
            Interconnect::Venice => "venice",
            Interconnect::GcBypass => "gc-bypass",
        }
    }
}

/// `[interconnect]` in a device file: the mesh's parameters (ignored on the bus).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterconnectConfig {
    /// Latency of one router hop in ns, paid by the scout's walk, by its return along the
    /// reserved path, and once more by the data's pipeline fill. Venice's routers run at
    /// 1 GHz; 3 ns is a two-to-three-cycle router pipeline.
    #[serde(default = "default_hop_ns")]
    pub hop_ns: u64,
    /// Host I/O entry points (controller ports) on the mesh's top edge; 0 = one per
    /// channel, as many as the bus design has channel controllers.
    #[serde(default)]
    pub io_ports: u32,
    /// GC bypass: the GC controller's own entry points, on the bottom edge; 0 = one per
    /// channel.
    #[serde(default)]
    pub gc_ports: u32,
    /// Times a scout may arrive at one router before it unwinds to its source (Venice: 3).
    #[serde(default = "default_max_visits")]
    pub max_visits: u32,
    /// GC bypass: a GC write-back that finds no path (or loses it to a high-priority scout)
    /// waits in the GC controller's cache and its plane serves reads meanwhile (parking,
    /// `sim/engine/mesh_path.rs`). `false`: the write-back waits holding its plane, as a GC
    /// copy does on plain Venice; priorities, preemption and the GC ports stay. The paper
    /// says the postponed data waits in the cache; it does not say the plane is freed.
    #[serde(default = "default_true")]
    pub gc_bypass_parking: bool,
    /// GC bypass: pages the GC controller's cache holds for parked write-backs; a write-back
    /// that would park with the cache full waits holding its plane instead. 0 = no bound
    /// beyond the model's own: a unit parks at most one write-back, so at most one page per
    /// execution unit (128 pages, 512 KiB, on the `venice` preset). The paper gives no size.
    #[serde(default)]
    pub gc_cache_pages: u32,
}

fn default_hop_ns() -> u64 {
    3
}

fn default_max_visits() -> u32 {
    3
}

fn default_true() -> bool {
    true
}

impl Default for InterconnectConfig {
    fn default() -> Self {
        InterconnectConfig {
            hop_ns: default_hop_ns(),
            io_ports: 0,
            gc_ports: 0,
            max_visits: default_max_visits(),
            gc_bypass_parking: true,
            gc_cache_pages: 0,
        }
    }
}

impl InterconnectConfig {
    /// Check the fields; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_visits == 0 {
            return Err("interconnect.max_visits must be at least 1 (a scout visits its entry router)".into());
        }
        if self.hop_ns > 1_000_000 {
            return Err(format!("interconnect.hop_ns {} is not a router hop (more than 1 ms)", self.hop_ns));
        }
        if self.io_ports > 4096 || self.gc_ports > 4096 {
            return Err(format!("interconnect.io_ports ({}) / gc_ports ({}) must be at most 4096", self.io_ports, self.gc_ports));
        }
        Ok(())
    }

    /// Ports of one kind for a mesh `cols` wide (0 = one per column).
    pub fn ports(n: u32, cols: u32) -> u32 {
        if n == 0 {
            cols
        } else {
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for n in Interconnect::NAMES {
            assert_eq!(Interconnect::parse(n).unwrap().name(), n);
        }
        let e = Interconnect::parse("ring").unwrap_err();
        assert!(e.contains("'ring'") && e.contains("venice"), "{e}");
    }

    #[test]
    fn validation_names_the_field() {
        let c = InterconnectConfig { max_visits: 0, ..Default::default() };
        assert!(c.validate().unwrap_err().contains("interconnect.max_visits"));
        let c = InterconnectConfig { hop_ns: 5_000_000, ..Default::default() };
        assert!(c.validate().unwrap_err().contains("interconnect.hop_ns"));
        assert!(InterconnectConfig::default().validate().is_ok());
        assert_eq!(InterconnectConfig::ports(0, 8), 8);
        assert_eq!(InterconnectConfig::ports(3, 8), 3);
    }
}
