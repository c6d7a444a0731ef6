//! The `[ttflash]` section of a device file: how ttFlash's GC-tolerant read and rotating GC
//! decide (FAST'17 §4.2-4.3), with the ttFlash artifact's (SSDsim fork) choices as defaults.
//! Only the RAIN schemes read it (`ttflash-gtr` the read settings, `ttflash-rgc` and
//! `ttflash` all of them); every other scheme ignores it.
//!
//! Does not hold: the stripe layout (`ftl/rain.rs`), the stripe buffer's size
//! (`buffer.capacity_pages`), the XOR time (`timing.xor_ns`).

use serde::{Deserialize, Serialize};

/// When rotating GC stops rotating (`ttflash.rotation`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RotationRule {
    /// The artifact's dynamic rule (`gc_for_channel` in its pagemap.c): rotation holds while
    /// at most `rotation_chips_below_hard` of the chips (here planes) are below the hard
    /// threshold; past that it holds only while the GC time per freed page, summed over the
    /// chips' last GCs (Σ GC duration / Σ pages freed), is at least the chips' write
    /// intervals summed (Σ time between each chip's last two page writes). Otherwise every
    /// plane that needs GC collects at once.
    #[default]
    Artifact,
    /// A plane below the hard threshold collects at once, whatever its group does; the others
    /// rotate (an earlier flashtail reading of "dynamic").
    HardThreshold,
    /// Rotation is never dropped (the artifact's `rgc` configuration: `dynamic rotating gc = 0`).
    Static,
}

/// What the GC-tolerant read does when more than one plane of a stripe collects
/// (`ttflash.gtr_several_gc`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeveralGc {
    /// The artifact's rule (`create_sub_request` in its flash.c, `gc_max`): the page on the
    /// plane with the longest remaining GC is rebuilt; members on the other collecting planes
    /// are read behind their GC. A page on any other collecting plane is read normally.
    #[default]
    Longest,
    /// No rebuild when another plane of the stripe collects (one parity, one missing page).
    Refuse,
}

/// How the GC-tolerant read weighs the member reads a rebuild adds against the GC time it
/// avoids (`ttflash.gtr_cost`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GtrCost {
    /// The member reads run in parallel on their planes: the cost is the slowest one's
    /// estimated end (its plane's queue, remaining GC, read and transfer).
    #[default]
    Queued,
    /// The artifact's `convert_to_seq` (its ssd.c): every member read the request does not
    /// make itself costs one read and one page transfer, summed as if in series and whatever
    /// the queues (a one-page read adds 7: six data pages and the parity); a member on
    /// another collecting plane adds its remaining GC once (the longest of them).
    Artifact,
}

/// ttFlash's decision rules (`[ttflash]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TtflashConfig {
    /// When rotating GC stops rotating.
    pub rotation: RotationRule,
    /// `artifact` rule: the share of chips below the hard threshold past which rotation is
    /// weighed against the write rate (the artifact's 0.3, "instead of 50 %").
    pub rotation_chips_below_hard: f64,
    /// The GC-tolerant read on a stripe with several collecting planes.
    pub gtr_several_gc: SeveralGc,
    /// Re-decide the GC-tolerant read for a read already queued on a plane when a GC
    /// operation is about to start ahead of it (not only when the read is submitted).
    pub gtr_at_gc_start: bool,
    /// A rebuild reads a member the same request already reads once (the request's own
    /// read serves both), and two reads of the same page share one rebuild of its stripe.
    pub gtr_share_reads: bool,
    /// How a rebuild's member reads are costed against the GC time left.
    pub gtr_cost: GtrCost,
}

impl Default for TtflashConfig {
    fn default() -> TtflashConfig {
        TtflashConfig { rotation: RotationRule::Artifact, rotation_chips_below_hard: 0.30, gtr_several_gc: SeveralGc::Longest, gtr_at_gc_start: true, gtr_share_reads: true, gtr_cost: GtrCost::Queued }
    }
}

impl TtflashConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.rotation_chips_below_hard) {
            return Err(format!("ttflash.rotation_chips_below_hard must be in [0, 1], got {}", self.rotation_chips_below_hard));
        }
        Ok(())
    }
}
