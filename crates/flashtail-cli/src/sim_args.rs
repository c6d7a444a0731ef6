//! Arguments shared by `run`, `compare` and `bench`: the device (preset or file, plus
//! key=value overrides) and the workload (a trace with replay controls, or a generator).

use crate::trace_args::TraceInput;
use flashtail::job::{self, DeviceSource, Opener, RunSettings, Workload};
use flashtail::ftl::footprint::Footprint;
use flashtail::DeviceConfig;
use std::sync::Arc;

/// The default device: sized so the bundled DTRS slice garbage-collects from its first writes.
pub const DEFAULT_DEVICE: &str = "dtrs-demo";

#[derive(clap::Args, Clone, Debug)]
pub struct DeviceArgs {
    /// Device preset (see `flashtail presets`) or a TOML file.
    #[arg(long, default_value = DEFAULT_DEVICE)]
    pub device: String,
    /// Override one device setting, e.g. `--set ftl.over_provisioning=0.2` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

impl DeviceArgs {
    pub fn load(&self) -> anyhow::Result<DeviceConfig> {
        job::load_device(&DeviceSource::Named(self.device.clone()), &self.set).map_err(anyhow::Error::msg)
    }
}

/// How each scheme runs: victim policy, seed, oracle, and what the written files keep.
#[derive(clap::Args, Clone, Debug)]
pub struct RunOptions {
    /// Victim policy: greedy, cost-benefit, fifo, random, d-choices[:D], wla, or the
    /// content-aware schemes' own splitgc, dagc (greedy under other schemes) (default: each
    /// scheme's own; `flashtail schemes` describes them).
    #[arg(long)]
    pub victim: Option<String>,
    /// Transfer path for every scheme: bus (shared channel buses), venice (mesh of routers),
    /// gc-bypass (Venice + GC controller and preemption) (default: each scheme's own).
    #[arg(long, value_parser = flashtail::interconnect::Interconnect::NAMES)]
    pub interconnect: Option<String>,
    /// Seed for preconditioning and randomised policies (same seed, same results).
    #[arg(long, default_value_t = 1, value_parser = parse_u64)]
    pub seed: u64,
    /// Turn the integrity oracle off (faster, less memory; not recommended).
    #[arg(long)]
    pub no_oracle: bool,
    /// Audit a power loss just after every N-th request arrives: check that a recovery from
    /// flash (finished programs, blocks not being erased) and capacitor-backed memory would
    /// find every write the host saw complete. Any loss fails the run like a stale read.
    /// Each audit reads every page's spare area (about 1 ms per GiB of flash). Needs the
    /// oracle; splitgc, cagc, dagc only with power-loss protection (their tables are flushed
    /// by supercapacitor); not for buffer.enabled without ttFlash's flush.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub power_loss_every: Option<u64>,
    /// Cut power just before the request after each N-th arrives (N[,N...]), and go on from
    /// what survives: the volatile state is lost, the FTL is rebuilt from flash (as the
    /// --power-loss-every audit would find it, an acknowledged write lost failing the run),
    /// the device is unavailable for the recovery's spare-area scan (tR per finished page,
    /// units in parallel), and the host sends every request that had not completed again
    /// (latency from its first arrival). Every later read is checked against the recovered
    /// data. Reported as power_cuts, power_cut_recovery_ns, power_cut_reissued_requests,
    /// power_cut_unacked_pages, power_cut_padded_pages (and power_cut_parity_rewrites under
    /// RAIN, whose stale stripes get a new parity; power_cut_buffered_pages for ttflash,
    /// whose stripe buffer survives; power_cut_shared_pages for splitgc, cagc, dagc, whose
    /// content tables survive). Needs the oracle; covers every scheme, nogc, splitgc, cagc,
    /// dagc only with power-loss protection; not buffer.enabled without ttFlash's flush.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..))]
    pub power_cut_at: Vec<u64>,
    /// Fail a die just before the request after the AT-th arrives (repeatable; CH, CHIP, DIE
    /// count from 0 within the channel and chip). Its operations under way and queued fail
    /// (reads are served again, writes placed on a healthy plane), its blocks are retired,
    /// GC never collects it, and its writes go to the same plane on the next die of the
    /// channel. Under RAIN (ttflash-gtr, ttflash-rgc, ttflash) every read of its pages is
    /// rebuilt from the stripe's other members and parity, and its data is re-protected in
    /// the background (--reprotect-parallel); without RAIN its pages are lost: reads of them
    /// fail (counted in failed_reads) and the run goes on. Reported as die_failures,
    /// die_failure_lost_pages, die_failure_rebuilt_reads, die_failure_reprotected_pages,
    /// failed_reads, ... (docs/failures.md). Not with power cuts or audits, nor splitgc,
    /// cagc, dagc.
    #[arg(long = "fail-die", value_name = "AT:CH/CHIP/DIE", value_parser = flashtail::sim::Failure::parse_die)]
    pub fail_die: Vec<flashtail::sim::Failure>,
    /// Fail one plane of a die, as --fail-die fails a whole die (repeatable).
    #[arg(long = "fail-plane", value_name = "AT:CH/CHIP/DIE/PLANE", value_parser = flashtail::sim::Failure::parse_plane)]
    pub fail_plane: Vec<flashtail::sim::Failure>,
    /// Under RAIN, after a die or plane failure: re-protection jobs in flight at once (each
    /// rebuilds one page of the failed die and writes it to a healthy plane); the limit on
    /// what re-protection takes from the host. 0: no re-protection (every read of the failed
    /// die's data stays a rebuild).
    #[arg(long, value_name = "N", default_value_t = flashtail::sim::failure::DEFAULT_REPROTECT_PARALLEL, value_parser = parse_u32)]
    pub reprotect_parallel: u32,
    /// Latency recording: `exact` keeps every sample (8 bytes a request, every percentile
    /// exact); `tail` keeps memory bounded for very long runs (exact from p99 up, body
    /// percentiles within 0.1 %).
    #[arg(long, default_value = "exact", value_parser = ["exact", "tail"])]
    pub latency: String,
    /// Leave wall time, memory and speed out of written files (zeroed), so identical inputs
    /// and seed give byte-identical outputs.
    #[arg(long)]
    pub no_cost: bool,
    /// Refuse a run whose device and scheme are estimated to need more memory than this
    /// (suffixes K, M, G, T; 0: no limit). Default: 80 % of the memory the machine has available.
    #[arg(long, value_parser = crate::trace_args::parse_bytes)]
    pub max_memory: Option<u64>,
    /// Read the workload into memory once when it takes at most this much there (16 bytes
    /// a request, 24 for requests off the 512-byte grid, 8 more per content fingerprint;
    /// suffixes K, M, G), and replay it from
    /// memory for the checks, the footprint and every scheme; 0 reads it from its source
    /// each time.
    #[arg(long, value_name = "BYTES", default_value = "256M", value_parser = crate::trace_args::parse_bytes)]
    pub input_memory: u64,
    /// Replay closed loop: at most QD requests outstanding in each of QUEUES NVMe submission
    /// queues (default 1 queue), requests assigned to queues round-robin in trace order, each
    /// issued when a slot of its queue frees (docs/host.md). Latency counts from issue to
    /// completion. Default: open loop (every request enters the device at its arrival).
    #[arg(long, value_name = "QD[xQUEUES]")]
    pub closed_loop: Option<String>,
    /// With --closed-loop: `trace` issues a request no earlier than its trace arrival (the
    /// trace's timing is a lower bound); `ignore` issues it as soon as its slot frees;
    /// `arrival` issues as `trace` does and counts latency from the trace arrival (the wait
    /// for a slot included, as SSDsim measures).
    #[arg(long, default_value = "trace", value_parser = flashtail::host::IssueTiming::NAMES, requires = "closed_loop")]
    pub timing: String,
}

impl RunOptions {
    /// The library's run settings these options describe.
    pub fn settings(&self) -> anyhow::Result<RunSettings> {
        let closed_loop = match &self.closed_loop {
            Some(s) => {
                let timing = flashtail::host::IssueTiming::parse(&self.timing).map_err(anyhow::Error::msg)?;
                Some(flashtail::host::ClosedLoop::parse(s, timing).map_err(anyhow::Error::msg)?)
            }
            None => None,
        };
        Ok(RunSettings {
            victim: self.victim.clone(),
            interconnect: self.interconnect.clone(),
            seed: self.seed,
            oracle: !self.no_oracle,
            power_loss_every: self.power_loss_every.unwrap_or(0),
            power_cut_at: self.power_cut_at.clone(),
            failures: flashtail::sim::FailurePlan {
                failures: self.fail_die.iter().chain(&self.fail_plane).cloned().collect(),
                reprotect_parallel: self.reprotect_parallel,
            },
            latency: self.latency.parse().unwrap_or_default(),
            max_memory: self.max_memory,
            closed_loop,
        })
    }

    pub fn spec(&self, device: &DeviceConfig, scheme: &str) -> anyhow::Result<flashtail::runner::RunSpec> {
        Ok(self.settings()?.spec(device, scheme))
    }
}

#[derive(clap::Args, Clone, Debug)]
pub struct InputArgs {
    #[command(flatten)]
    pub trace: TraceInput,
    /// Use a generated workload instead of a trace (a preset of `flashtail gen --list`).
    #[arg(long, conflicts_with = "trace")]
    pub gen: Option<String>,
    /// Number of requests to generate, at least 1 (default: the preset's). The run grows with
    /// it: its time, and with `--latency exact` 8 bytes of memory per request.
    #[arg(long, requires = "gen", value_parser = parse_count)]
    pub gen_count: Option<u64>,
    /// Seed of the generated workload (default: the preset's).
    #[arg(long, requires = "gen", value_parser = parse_u64)]
    pub gen_seed: Option<u64>,
}

/// A request count of at least 1 (`--count`, `--gen-count`): 0 would make an empty workload.
pub fn parse_count(s: &str) -> Result<u64, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n >= 1 && n <= u64::MAX as i128 => Ok(n as u64),
        Ok(n) if n < 1 => Err(format!("must be at least 1 request, got {n} (0 would make an empty workload)")),
        _ => Err(format!("'{s}' is not a request count (a whole number from 1 to {})", u64::MAX)),
    }
}

/// A whole number from 0 to `max` (`--seed`, `--reorder-window`, ...): clap's own integer
/// parser answered `-1`, `1e3` or `x` with only "invalid digit found in string".
fn whole(s: &str, max: u128) -> Result<u128, String> {
    match s.trim().parse::<u128>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from 0 to {max}")),
    }
}

/// [`whole`] for a `u64` option.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    whole(s, u64::MAX.into()).map(|n| n as u64)
}

/// [`whole`] for a `u32` option.
pub fn parse_u32(s: &str) -> Result<u32, String> {
    whole(s, u32::MAX.into()).map(|n| n as u32)
}

/// [`whole`] for a `usize` option.
pub fn parse_usize(s: &str) -> Result<usize, String> {
    whole(s, usize::MAX as u128).map(|n| n as usize)
}

/// A comma-separated scheme list (`--schemes` of `compare` and `bench`) has no empty name
/// (`job::check_no_empty_scheme`).
pub fn check_no_empty_scheme(schemes: &[String]) -> anyhow::Result<()> {
    job::check_no_empty_scheme(schemes).map_err(anyhow::Error::msg)
}

impl InputArgs {
    /// Trace-only options with `--gen` are an error, not silently ignored.
    pub fn check_gen_options(&self) -> anyhow::Result<()> {
        let Some(name) = &self.gen else { return Ok(()) };
        let ignored = self.trace.trace_only_options();
        if !ignored.is_empty() {
            anyhow::bail!(
                "{} appl{} to a trace, not to a generated workload (--gen {name}): leave {} out, or set the generator's own \
                 (--gen-count, --gen-seed; `flashtail gen` for more)",
                ignored.join(", "),
                if ignored.len() == 1 { "ies" } else { "y" },
                if ignored.len() == 1 { "it" } else { "them" }
            );
        }
        Ok(())
    }

    /// The library's workload these options describe.
    pub fn workload(&self) -> Workload {
        match &self.gen {
            Some(g) => Workload::Gen { preset: g.clone(), count: self.gen_count, seed: self.gen_seed },
            None => {
                let (read, replay) = self.trace.options();
                Workload::Trace { path: self.trace.trace.clone(), read, replay }
            }
        }
    }

    /// A function that opens a fresh copy of the workload for a device (one per scheme run),
    /// addressing `cap` bytes (`job::Workload::opener`).
    pub fn opener(&self, dev: &DeviceConfig, cap: u64) -> anyhow::Result<Opener> {
        self.check_gen_options()?;
        self.workload().opener(dev, cap).map_err(anyhow::Error::msg)
    }

    /// The plausibility checks on a trace (not a generated workload), before any run: a
    /// fresh copy from `open`, as the runs will see it (replay controls applied).
    pub fn plausibility(&self, open: &Opener, dev: &DeviceConfig) -> anyhow::Result<()> {
        if self.gen.is_some() {
            return Ok(());
        }
        let Ok(mut src) = open() else { return Ok(()) };
        // The bundled slice has its own fixed unit.
        let unit_given = self.trace.parse.time_unit.is_some() || self.trace.trace.is_none();
        crate::trace_args::check_plausibility(&mut *src, &self.describe(), unit_given, Some(dev), self.trace.parse.strict)
    }

    /// The plausibility checks (as [`InputArgs::plausibility`]) and the replay's footprint
    /// (`runner::scan_footprint`) in one pass over the input.
    pub fn plausibility_and_footprint(&self, open: &Opener, dev: &DeviceConfig) -> anyhow::Result<Option<Arc<Footprint>>> {
        let mut verdict = Ok(());
        let footprint = flashtail::runner::scan_footprint_with(dev, open, |src| {
            if self.gen.is_none() {
                let unit_given = self.trace.parse.time_unit.is_some() || self.trace.trace.is_none();
                verdict = crate::trace_args::check_plausibility(src, &self.describe(), unit_given, Some(dev), self.trace.parse.strict);
            }
            verdict.is_ok()
        });
        verdict.map(|()| footprint)
    }

    pub fn describe(&self) -> String {
        self.workload().describe()
    }
}

/// Warnings on the write buffer settings under each scheme (`flashtail::config::buffer`),
/// each printed once.
pub fn buffer_warnings(dev: &DeviceConfig, schemes: &[String], cap: u64) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let host_pages = cap / (dev.geometry.page_size as u64).max(1);
    for s in schemes {
        let stripe = flashtail::gc::build_scheme(s, None, 0).is_ok_and(|x| x.gc_tolerant_flush);
        for w in flashtail::config::buffer::buffer_warnings(dev, stripe, host_pages) {
            let w = format!("warning: device '{}': {w}", dev.name);
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The number of requests `open` yields, read in full (the progress bars' total), or
/// `None` when the workload fails or `stop` is raised first (the runs are over).
pub fn count_requests(open: &Opener, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
    let mut src = open().ok()?;
    let mut n = 0u64;
    loop {
        if n & 4095 == 0 && stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        match src.next_request() {
            Ok(Some(_)) => n += 1,
            Ok(None) => return Some(n),
            Err(_) => return None,
        }
    }
}
