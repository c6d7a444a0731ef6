//! Scheduling decisions as device settings: the order in which a free execution unit picks
//! queued work (`scheduler.order`), when it begins a host write (`scheduler.write_start`),
//! and the checks of the GC-scheduling limits kept in `[ftl]` (`gc_max_per_channel`,
//! `gc_max_per_group`). What each models, its default and what the reference simulators do:
//! docs/gc-scheduling.md.
//!
//! Does not do: carry the decisions out (the engine's `dispatch` and `gc_sched`).

use super::device::FtlConfig;
use crate::nand::Geometry;
use serde::{Deserialize, Serialize};

/// `[scheduler]`: how an execution unit orders its queued work.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// The order in which a free unit picks queued work.
    #[serde(default)]
    pub order: QueueOrder,
    /// When a unit begins a host write whose data transfer needs the channel.
    #[serde(default)]
    pub write_start: WriteStart,
}

/// `scheduler.order`: which queued work a free unit begins first.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueOrder {
    /// GC granted ahead of user I/O (blocking or urgent), then user reads, user writes, GC
    /// granted in the background: a GC once started keeps its unit (SSDsim's `gc()` before
    /// it serves a channel's reads; MQSim with non-preemptible GC).
    #[default]
    GcFirst,
    /// User reads, then GC granted ahead of user I/O, user writes, background GC: a read
    /// queued on a collecting unit goes between two of the victim's page moves.
    ReadsFirst,
}

/// `scheduler.write_start`: when a unit begins a host write.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteStart {
    /// As soon as the unit is free: if the channel is busy the write holds its unit while
    /// its data transfer waits for the channel, and reads arriving meanwhile wait behind
    /// its transfer and program.
    #[default]
    UnitFree,
    /// Only when the channel is free: a free unit whose next write would wait for the
    /// channel begins other queued work instead (or stays free), and looks again when the
    /// channel is released with no transfer waiting (SSDsim's `services_2_write`, MQSim's
    /// TSU, which issue a write only on an idle channel). Ignored on the Venice mesh.
    ChannelFree,
}

/// `ftl.blocking_gc_holds`: what a plane collecting a victim under a blocking grant
/// (exclusive or urgent) holds besides its own unit.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcHold {
    /// Only its unit: other units of the channel use the bus between the victim's transfers
    /// (a controller that schedules the channel per transfer).
    #[default]
    Unit,
    /// Its whole channel, from the victim's first move until its erase is issued: other
    /// units' transfers wait for the channel meanwhile, charged to GC (the ttFlash
    /// artifact's blocking GC, which keeps the channel busy for all of a victim's
    /// copybacks). Ignored on the Venice mesh and by schemes that move pages by
    /// intra-plane copyback (ttFlash's plane-blocking GC leaves the channel free).
    Channel,
}

impl QueueOrder {
    pub fn name(self) -> &'static str {
        match self {
            QueueOrder::GcFirst => "gc-first",
            QueueOrder::ReadsFirst => "reads-first",
        }
    }
}

impl SchedulerConfig {
    /// Check the scheduling settings (here and in `[ftl]`) against the geometry; the message
    /// names the field.
    pub fn validate(&self, ftl: &FtlConfig, geo: &Geometry) -> Result<(), String> {
        let per_channel = geo.planes_per_channel();
        if ftl.gc_max_per_channel > per_channel {
            return Err(format!(
                "ftl.gc_max_per_channel {} exceeds the {per_channel} planes of a channel (0 = no limit)",
                ftl.gc_max_per_channel
            ));
        }
        if ftl.gc_max_per_group > geo.channels {
            return Err(format!(
                "ftl.gc_max_per_group {} exceeds the {} planes of a RAIN plane group (one per channel; 0 = no limit)",
                ftl.gc_max_per_group, geo.channels
            ));
        }
        Ok(())
    }

    /// Whether any setting differs from the default (the engine then keeps its state for them).
    pub fn is_default(&self) -> bool {
        *self == SchedulerConfig::default()
    }
}
