//! The device configuration and its validation.

use crate::nand::{Geometry, Timing};
use serde::{Deserialize, Serialize};

/// Everything that describes one simulated SSD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Where the numbers come from (paper, datasheet, artifact).
    #[serde(default)]
    pub source: String,
    pub geometry: Geometry,
    pub timing: Timing,
    pub ftl: FtlConfig,
    #[serde(default)]
    pub buffer: BufferConfig,
    #[serde(default)]
    pub precondition: Precondition,
    /// The Venice mesh's parameters (schemes on the shared bus ignore them).
    #[serde(default)]
    pub interconnect: crate::interconnect::InterconnectConfig,
    /// How a free execution unit picks its next queued transaction, and when it begins a
    /// host write (`config::scheduling`, docs/gc-scheduling.md).
    #[serde(default)]
    pub scheduler: super::scheduling::SchedulerConfig,
    /// ttFlash's GC-tolerant read and rotation rules (the RAIN schemes only).
    #[serde(default)]
    pub ttflash: super::ttflash::TtflashConfig,
}

/// Which resource runs one flash array operation at a time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitOfExecution {
    /// Every plane runs its own operations (planes of a die overlap fully, as with ideal
    /// multi-plane/asynchronous-plane operation).
    Plane,
    /// The planes of a die share it: one array operation per die at a time.
    Die,
}

/// How a host write picks its plane.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Allocation {
    /// Channel-first striping by logical page number (MQSim CWDP; ttFlash's static mapping).
    Static,
    /// The plane whose execution unit has the fewest queued operations (ties: lowest id).
    Dynamic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// (physical − logical) / physical.
    pub over_provisioning: f64,
    /// GC starts on a plane when its free blocks fall below this share of its blocks.
    pub gc_soft_threshold: f64,
    /// Below this share GC is urgent (not preemptible; goes before user I/O).
    pub gc_hard_threshold: f64,
    #[serde(default = "default_alloc")]
    pub allocation: Allocation,
    #[serde(default = "default_unit")]
    pub unit: UnitOfExecution,
    /// Free blocks per plane that host writes may not take (kept for GC's own frontier).
    #[serde(default = "default_reserve")]
    pub gc_reserved_blocks: u32,
    /// Exact soft threshold in blocks (GC when free < this); overrides the share when set
    /// (RL-GC's T_GC = 10 blocks is "free ≤ 10", i.e. 11 here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_soft_threshold_blocks: Option<u32>,
    /// Exact hard threshold in blocks; overrides the share when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_hard_threshold_blocks: Option<u32>,
    /// Most host page writes one plane's queue holds with their flash page already
    /// allocated (a unit of several planes holds that many per plane); further writes wait
    /// in controller memory, unallocated, until the queue drains. Unset: one block's worth
    /// (`pages_per_block`). 0: no limit (every write takes its page on arrival).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queued_writes: Option<u32>,
    /// Power-loss protection: capacitors let the controller finish programming the writes
    /// in its DRAM when power fails, as datacenter SSDs do (the default). Off: a page
    /// superseded by a write still being programmed is the newest copy on flash, and the
    /// FTL keeps its block from being erased until that program finishes
    /// (`sim::power_loss` audits either way). Unset: on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_loss_protection: Option<bool>,
    /// How many victims the threshold schemes (`base`, `preemptive`) collect when a plane's
    /// free pool falls below the soft threshold.
    #[serde(default)]
    pub gc_victims_per_trigger: VictimsPerTrigger,
    /// Where the RAIN schemes' parity pages come from; the host's logical capacity follows
    /// from the device alone, so every scheme on it sees the same addresses.
    #[serde(default)]
    pub rain_parity: RainParity,
    /// What a host read of a logical page that holds no data costs.
    #[serde(default)]
    pub unwritten_reads: UnwrittenReads,
    /// Most planes of one channel with a victim being collected at once (0: no limit). A
    /// plane granted GC while the limit is reached waits, and starts its victim when another
    /// plane of the channel has erased its own (docs/gc-scheduling.md).
    #[serde(default)]
    pub gc_max_per_channel: u32,
    /// Most planes of one RAIN plane group with a victim being collected at once (0: no
    /// limit); only schemes that keep RAIN parity have groups.
    #[serde(default)]
    pub gc_max_per_group: u32,
    /// At or above the hard threshold, a plane does not start a new victim while any unit
    /// of its channel has user I/O queued or in service; it starts when that drains. Below
    /// the hard threshold GC starts regardless.
    #[serde(default)]
    pub gc_yields_to_user_io: bool,
    /// What a blocking GC holds while it collects a victim: its unit (default) or its whole
    /// channel, until the victim's erase is issued (docs/gc-scheduling.md).
    #[serde(default)]
    pub blocking_gc_holds: crate::config::GcHold,
    /// Every scheme's GC moves valid pages by intra-plane copyback (command + tR + tPROG, no
    /// data on the channel), not only the ttFlash family's; a blocking GC that holds its
    /// channel (`blocking_gc_holds = "channel"`) still holds it: the ttFlash artifact's
    /// `def` (docs/gc-scheduling.md).
    #[serde(default)]
    pub gc_copyback: bool,
    /// Whether a die-wide execution unit (`unit = "die"`) runs queued operations of the same
    /// kind on its planes as one multi-plane command (docs/devices.md).
    #[serde(default)]
    pub multi_plane: MultiPlane,
}

/// Multi-plane commands on a die (`ftl.multi_plane`): when a die-wide unit begins an
/// operation, it takes queued operations of the same kind for its other planes and runs them
/// as one command (one array phase for all, their transfers one after another on the channel).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MultiPlane {
    /// One operation per die at a time.
    #[default]
    Off,
    /// ONFI multi-plane commands with the rule MQSim checks (`TSU_Base::issue_command_to_chip`):
    /// at most one operation per plane, all of one kind, all at the same page index within
    /// their blocks (any block); erases at any block. A write joins only as its plane's next.
    SamePage,
    /// As MQSim pairs in effect: reads at one page index, programs at any. MQSim checks the
    /// index against every queued program of the other plane and programs the one it finds
    /// out of order; flashtail keeps each block's program order and pairs the plane's next
    /// program instead.
    Mqsim,
    /// As `same-page` without the page-index rule: a what-if bound (ONFI parts need one
    /// index; some newer parts read each plane independently).
    AnyPage,
}

impl MultiPlane {
    pub fn is_off(&self) -> bool {
        *self == MultiPlane::Off
    }
}

/// What one GC trigger collects (`ftl.gc_victims_per_trigger`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VictimsPerTrigger {
    /// Victim after victim until the plane is back at the soft threshold: the pool is
    /// refilled before user work resumes for good (the ttFlash artifact's SSDsim).
    #[default]
    Refill,
    /// One victim each time a write frontier takes a block from a pool below the soft
    /// threshold (victims owed are collected one after another); the pool then stays where
    /// it is, and below the hard threshold the plane collects until it is back at it.
    /// MQSim's GC (`GC_and_WL_Unit_Page_Level::Check_gc_required`).
    One,
}

/// Where RAIN parity lives (`ftl.rain_parity`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RainParity {
    /// The host gets the whole logical space, (1 − over_provisioning) of the flash, under
    /// every scheme; a RAIN scheme's parity (one page per N − 1 data pages) comes out of
    /// the spare area, leaving its GC less room (a device where it does not fit refuses
    /// RAIN schemes). As a drive's exported capacity is fixed by the product.
    #[default]
    Spare,
    /// The device reserves 1/N of its logical space for parity (N channels) whichever
    /// scheme runs: every scheme exports (N − 1)/N of it, and a scheme without RAIN keeps
    /// the reserve as extra spare space (the ttFlash artifact's capacity).
    Reserved,
}

/// The cost of reading a never-written logical page (`ftl.unwritten_reads`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnwrittenReads {
    /// Answered from the mapping table (no physical page: zeros) after one controller
    /// memory access (`timing.dram_hit_ns`), as a real controller does.
    #[default]
    Mapping,
    /// Timed as a flash read on the page's static plane (as if it held data).
    Flash,
}

impl FtlConfig {
    /// `power_loss_protection`, on unless set off.
    pub fn power_loss_protected(&self) -> bool {
        self.power_loss_protection.unwrap_or(true)
    }
}

fn default_alloc() -> Allocation {
    Allocation::Static
}
fn default_unit() -> UnitOfExecution {
    UnitOfExecution::Plane
}
fn default_reserve() -> u32 {
    2
}

/// Optional DRAM write buffer: a write completes once buffered; buffered pages are flushed
/// to flash at once in arrival order; a full buffer makes writes wait.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferConfig {
    pub enabled: bool,
    /// Capacity in pages.
    #[serde(default)]
    pub capacity_pages: u32,
}

/// How the device is put into a used state before the trace (set directly, no timing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "lowercase", deny_unknown_fields)]
pub enum Precondition {
    /// Empty device.
    None,
    /// A drive in service: `fill` of the logical pages hold data (chosen at random), the
    /// used blocks carry invalid pages with a linearly spread valid ratio (as greedy GC leaves
    /// them), and each plane keeps `free_blocks_margin` blocks above the GC soft threshold.
    Steady {
        fill: f64,
        #[serde(default = "default_margin")]
        free_blocks_margin: u32,
    },
    /// A drive in service running this workload (the default for traces): first the
    /// pages the replay touches (`footprint`), then other logical pages chosen at random
    /// until `occupancy` of the host's logical space holds data; the used blocks' valid
    /// counts spread as greedy GC leaves them under uniform overwrites (`spread`), and the
    /// free pool where the GC holds it: `free_blocks_margin` blocks above the soft
    /// threshold (0: the first block a frontier takes starts GC, as on a drive in service).
    Workload {
        occupancy: f64,
        #[serde(default)]
        footprint: FootprintFill,
        #[serde(default)]
        spread: Spread,
        /// Free blocks above (negative: below) the soft threshold at the start.
        #[serde(default)]
        free_blocks_margin: i32,
    },
    /// The ttFlash artifact's SSDsim aging with ratio r: r/2 of each plane's pages invalid
    /// (the first ⌈r × pages_per_block⌉ pages of block after block), r/2 valid data,
    /// 1 − r free. With `settle` (the default), a plane that ends up below the GC soft
    /// threshold is then collected at no time cost (greedy victims) until it is back at the
    /// threshold, as the drive's own GC would have done while it was being filled; without
    /// it, every such plane starts the run collecting at t = 0, a burst no workload caused.
    Aged {
        ratio: f64,
        #[serde(default = "default_settle")]
        settle: bool,
    },
}

/// Which of the replay's logical pages hold data before it starts (`Workload` model).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FootprintFill {
    /// Every page the replay reads or writes (MQSim's preconditioning): the run neither
    /// reads a never-written page nor grows the data by writing one.
    #[default]
    Touched,
    /// Only the pages the replay reads before it writes them (SSDsim's `pre_process_page`).
    Reads,
    /// None: the occupancy is a random share of the logical space.
    None,
}

impl FootprintFill {
    pub fn name(self) -> &'static str {
        match self {
            FootprintFill::Touched => "touched",
            FootprintFill::Reads => "reads",
            FootprintFill::None => "none",
        }
    }
}

/// How the valid pages spread over the used blocks before the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Spread {
    /// Greedy GC's steady state under uniform random overwrites: a block's valid share
    /// decays exponentially with its age since it was written, and blocks are written at
    /// a steady rate, so block k of n holds e^(−λ(k+½)/n) of its pages, from nearly full
    /// down to the victims' share u, with the mean valid share m = (1 − u)/ln(1/u)
    /// (Desnoyers, SYSTOR'12; Van Houdt, SIGMETRICS'13).
    #[default]
    Greedy,
    /// Valid shares spread linearly from low to full with the same mean (the `steady` model).
    Linear,
}

fn default_settle() -> bool {
    true
}

fn default_margin() -> u32 {
    1
}

impl Precondition {
    /// Every model with the keys it takes besides `model` (the TOML schema): a key of
    /// another model is an error, not ignored (`config::overrides::apply_device`).
    pub const MODELS: &'static [(&'static str, &'static [&'static str])] =
        &[
            ("none", &[]),
            ("workload", &["occupancy", "footprint", "spread", "free_blocks_margin"]),
            ("steady", &["fill", "free_blocks_margin"]),
            ("aged", &["ratio", "settle"]),
        ];

    /// The model's name, as the `model` key spells it.
    pub fn model(&self) -> &'static str {
        match self {
            Precondition::None => "none",
            Precondition::Workload { .. } => "workload",
            Precondition::Steady { .. } => "steady",
            Precondition::Aged { .. } => "aged",
        }
    }
}

impl Default for Precondition {
    fn default() -> Self {
        Precondition::Steady { fill: 0.8, free_blocks_margin: 1 }
    }
}

/// `v` rounded up to 3 decimals, so a suggested minimum is never just below the real one.
fn round_up3(v: f64) -> f64 {
    (v * 1000.0).ceil() / 1000.0
}

impl DeviceConfig {
    /// Check every field; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        self.geometry.validate()?;
        self.timing.validate(self.geometry.bits_per_cell)?;
        self.ttflash.validate()?;
        let f = &self.ftl;
        if !(0.01..0.9).contains(&f.over_provisioning) {
            return Err(format!("ftl.over_provisioning must be in [0.01, 0.9), got {}", f.over_provisioning));
        }
        if !(0.0..0.95).contains(&f.gc_soft_threshold) || !(0.0..=f.gc_soft_threshold).contains(&f.gc_hard_threshold) {
            return Err(format!(
                "ftl thresholds must satisfy 0 <= gc_hard_threshold ({}) <= gc_soft_threshold ({}) < 0.95",
                f.gc_hard_threshold, f.gc_soft_threshold
            ));
        }
        // Name the field that sets the threshold: the block count overrides the share.
        let soft_field = self.soft_threshold_setting("");
        // In u64: a block count near u32::MAX must not wrap past the check.
        if u64::from(self.soft_threshold_blocks()) + 2 >= u64::from(self.geometry.blocks_per_plane) {
            return Err(format!("{soft_field} leaves no blocks for data in a {}-block plane", self.geometry.blocks_per_plane));
        }
        // The shares are checked above; a block count (or one of each) must keep the order too.
        let (soft, hard) = (self.soft_threshold_blocks(), self.hard_threshold_blocks());
        if hard > soft.max(1) {
            let hard_field = match f.gc_hard_threshold_blocks {
                Some(b) => format!("ftl.gc_hard_threshold_blocks {b}"),
                None => format!("ftl.gc_hard_threshold {} ({hard} blocks)", f.gc_hard_threshold),
            };
            let soft_field = self.soft_threshold_setting(&format!(" ({soft} blocks)"));
            return Err(format!("{hard_field} is above {soft_field}: GC would turn urgent before it starts"));
        }
        // The logical data must fit beside the GC reserve and the two write frontiers, or a
        // full drive could deadlock waiting for free blocks. (It may well sit below the GC
        // thresholds: then GC simply never stops, as on a full drive.)
        let blocks = self.geometry.blocks_per_plane as f64;
        let data = (1.0 - f.over_provisioning) * blocks;
        if data > blocks - (f.gc_reserved_blocks as f64 + 2.0) {
            // Either field can be the one to change: name the reserve first when lowering it
            // alone would do (a reserve of 100 on a 64-block plane is the typo, not the
            // over-provisioning), and say what each would have to be.
            let max_reserve = (blocks - 2.0 - data).floor();
            let min_op = (f.gc_reserved_blocks as f64 + 2.0) / blocks;
            let fit = format!(
                "{data:.0} blocks of data per plane, {} reserved for GC and 2 write frontiers do not fit in {blocks} blocks",
                f.gc_reserved_blocks
            );
            let raise_op = if min_op < 0.9 { format!("raise ftl.over_provisioning to at least {}", round_up3(min_op)) } else { String::new() };
            return Err(if max_reserve >= 1.0 {
                let or = if raise_op.is_empty() { String::new() } else { format!(", or {raise_op}") };
                format!(
                    "ftl.gc_reserved_blocks {} is too large for ftl.over_provisioning {}: {fit} (lower ftl.gc_reserved_blocks to at most {max_reserve}{or})",
                    f.gc_reserved_blocks, f.over_provisioning
                )
            } else {
                let hint = if raise_op.is_empty() { String::new() } else { format!(" ({raise_op})") };
                format!("ftl.over_provisioning {} is too small: {fit}{hint}", f.over_provisioning)
            });
        }
        if f.gc_reserved_blocks == 0 {
            return Err("ftl.gc_reserved_blocks must be at least 1: GC needs a free block of its own to copy into, or a full plane deadlocks".into());
        }
        self.interconnect.validate()?;
        self.scheduler.validate(&self.ftl, &self.geometry)?;
        if !f.multi_plane.is_off() && self.timing.suspend.enabled {
            return Err("ftl.multi_plane combines operations into one command, which timing.suspend cannot suspend: set one of them off".into());
        }
        if self.buffer.enabled && self.buffer.capacity_pages == 0 {
            return Err("buffer.capacity_pages must be > 0 when buffer.enabled".into());
        }
        match &self.precondition {
            Precondition::None => {}
            Precondition::Workload { occupancy, .. } => {
                if !(0.0..=1.0).contains(occupancy) {
                    return Err(format!("precondition.occupancy must be in [0, 1], got {occupancy}"));
                }
            }
            Precondition::Steady { fill, .. } => {
                if !(0.0..=1.0).contains(fill) {
                    return Err(format!("precondition.fill must be in [0, 1], got {fill}"));
                }
            }
            Precondition::Aged { ratio, .. } => {
                if !(0.0..0.98).contains(ratio) {
                    return Err(format!("precondition.ratio must be in [0, 0.98), got {ratio}"));
                }
            }
        }
        Ok(())
    }

    /// Logical pages of the device: (1 − over_provisioning) of its flash.
    pub fn logical_pages(&self) -> u32 {
        ((self.geometry.total_pages_u64() as f64) * (1.0 - self.ftl.over_provisioning)).floor() as u32
    }
    /// Logical pages the host addresses, under every scheme: the logical pages, less the
    /// parity reserve of `ftl.rain_parity = "reserved"` (with at least 3 channels).
    pub fn host_pages(&self) -> u32 {
        let l = self.logical_pages();
        match self.ftl.rain_parity {
            RainParity::Reserved if self.geometry.channels >= 3 => crate::ftl::rain::Rain::data_capacity(l, self.geometry.channels),
            _ => l,
        }
    }
    /// Whether a RAIN scheme fits: its data pages (the host's) plus one parity page per
    /// stripe of N − 1 must fit beside the GC reserve and the two write frontiers of every
    /// plane, as the data alone must (`validate`). The message names the settings to change.
    pub fn rain_fits(&self) -> Result<(), String> {
        let geo = &self.geometry;
        let rain = crate::ftl::rain::Rain::new(geo, self.host_pages())?;
        let slots = rain.data_pages as u64 + rain.stripes as u64;
        let usable_blocks = geo.blocks_per_plane.saturating_sub(self.ftl.gc_reserved_blocks + 2) as u64;
        let room = usable_blocks * geo.pages_per_block as u64 * geo.planes() as u64;
        if slots <= room {
            return Ok(());
        }
        // Spare parity needs OP >= 1 − room/total × (N−1)/N.
        let total = geo.total_pages_u64() as f64;
        let n = geo.channels as f64;
        let min_op = 1.0 - room as f64 / total * (n - 1.0) / n;
        Err(format!(
            "RAIN parity does not fit: {} data pages and {} parity pages (one per {} data pages) need {slots} pages, \
             but the planes hold {room} beside the GC reserve and the write frontiers (ftl.rain_parity = \"{}\"; \
             set ftl.rain_parity = \"reserved\" to take the parity from the host's logical space, or raise \
             ftl.over_provisioning to at least {})",
            rain.data_pages,
            rain.stripes,
            rain.width - 1,
            match self.ftl.rain_parity {
                RainParity::Spare => "spare",
                RainParity::Reserved => "reserved",
            },
            round_up3(min_op)
        ))
    }
    /// [`DeviceConfig::host_pages`] in bytes: the capacity traces are folded into.
    pub fn host_bytes(&self) -> u64 {
        self.host_pages() as u64 * self.geometry.page_size as u64
    }
    /// The setting that gives the soft threshold, for messages: the block count when set (it
    /// overrides the share), else the share followed by `share_suffix` (e.g. its blocks).
    pub fn soft_threshold_setting(&self, share_suffix: &str) -> String {
        match self.ftl.gc_soft_threshold_blocks {
            Some(b) => format!("ftl.gc_soft_threshold_blocks {b}"),
            None => format!("ftl.gc_soft_threshold {}{share_suffix}", self.ftl.gc_soft_threshold),
        }
    }
    /// GC starts on a plane when free blocks < this.
    pub fn soft_threshold_blocks(&self) -> u32 {
        if let Some(b) = self.ftl.gc_soft_threshold_blocks {
            return b;
        }
        (self.ftl.gc_soft_threshold * self.geometry.blocks_per_plane as f64).ceil() as u32
    }
    /// Most page writes queued per plane with their page allocated (`u32::MAX`: no limit).
    pub fn queued_writes_per_plane(&self) -> u32 {
        match self.ftl.max_queued_writes {
            None => self.geometry.pages_per_block,
            Some(0) => u32::MAX,
            Some(n) => n,
        }
    }
    /// GC is urgent on a plane when free blocks < this.
    pub fn hard_threshold_blocks(&self) -> u32 {
        if let Some(b) = self.ftl.gc_hard_threshold_blocks {
            return b.max(1);
        }
        ((self.ftl.gc_hard_threshold * self.geometry.blocks_per_plane as f64).ceil() as u32).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::Precondition;

    /// `Precondition::MODELS` is written by hand for the override rules: it must list
    /// exactly the keys each model serialises (so a new field cannot be left out of it).
    #[test]
    fn the_model_key_lists_match_the_schema() {
        let samples = [
            Precondition::None,
            Precondition::Workload { occupancy: 0.5, footprint: Default::default(), spread: Default::default(), free_blocks_margin: 0 },
            Precondition::Steady { fill: 0.5, free_blocks_margin: 1 },
            Precondition::Aged { ratio: 0.5, settle: true },
        ];
        assert_eq!(samples.len(), Precondition::MODELS.len());
        for p in samples {
            let v = toml::Value::try_from(&p).unwrap();
            let mut keys: Vec<&str> = v.as_table().unwrap().keys().map(String::as_str).filter(|&k| k != "model").collect();
            keys.sort_unstable();
            let (_, listed) = Precondition::MODELS.iter().find(|(m, _)| *m == p.model()).unwrap();
            let mut listed = listed.to_vec();
            listed.sort_unstable();
            assert_eq!(keys, listed, "model {}", p.model());
        }
    }

    /// Threshold block counts: one near u32::MAX is rejected (it wrapped past the check),
    /// the block-count field is the one named, and a hard threshold above the soft one is
    /// an error whichever form each is given in.
    #[test]
    fn threshold_block_counts_are_checked_and_named() {
        let tiny = crate::config::presets::load("tiny").unwrap();
        let mut d = tiny.clone();
        d.ftl.gc_soft_threshold_blocks = Some(u32::MAX);
        assert_eq!(d.validate().unwrap_err(), "ftl.gc_soft_threshold_blocks 4294967295 leaves no blocks for data in a 64-block plane");
        let mut d = tiny.clone();
        d.ftl.gc_hard_threshold_blocks = Some(60);
        assert_eq!(d.validate().unwrap_err(), "ftl.gc_hard_threshold_blocks 60 is above ftl.gc_soft_threshold 0.1 (7 blocks): GC would turn urgent before it starts");
        d.ftl.gc_hard_threshold_blocks = Some(7);
        assert_eq!(d.validate(), Ok(()));
        let mut d = tiny.clone();
        d.ftl.gc_soft_threshold_blocks = Some(3);
        assert_eq!(d.validate().unwrap_err(), "ftl.gc_hard_threshold 0.05 (4 blocks) is above ftl.gc_soft_threshold_blocks 3: GC would turn urgent before it starts");
        d.ftl.gc_hard_threshold_blocks = Some(2);
        assert_eq!(d.validate(), Ok(()));
    }

    /// A reserve too large for the plane is the field named first, with the largest that
    /// fits; an over-provisioning too small for the default reserve is named alone.
    #[test]
    fn reserve_and_over_provisioning_messages_name_the_field_to_change() {
        let mut d = crate::config::presets::load("tiny").unwrap();
        d.ftl.gc_reserved_blocks = 100;
        assert_eq!(
            d.validate().unwrap_err(),
            "ftl.gc_reserved_blocks 100 is too large for ftl.over_provisioning 0.2: 51 blocks of data per plane, 100 reserved for GC and 2 write frontiers do not fit in 64 blocks (lower ftl.gc_reserved_blocks to at most 10)"
        );
        d.ftl.gc_reserved_blocks = 10;
        assert!(d.validate().is_ok());
        d.ftl.gc_reserved_blocks = 11;
        assert!(d.validate().unwrap_err().contains("at most 10, or raise ftl.over_provisioning to at least 0.204"));
        d.ftl.over_provisioning = 0.204;
        assert!(d.validate().is_ok(), "the suggested minimum fits");
        d.ftl.gc_reserved_blocks = 2;
        d.ftl.over_provisioning = 0.02;
        assert_eq!(
            d.validate().unwrap_err(),
            "ftl.over_provisioning 0.02 is too small: 63 blocks of data per plane, 2 reserved for GC and 2 write frontiers do not fit in 64 blocks (raise ftl.over_provisioning to at least 0.063)"
        );
        d.ftl.over_provisioning = 0.063;
        assert!(d.validate().is_ok());
    }
}
