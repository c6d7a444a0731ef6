//! The ttFlash artifact's figures (ucare-uchicago/tinyTailFlash 40f3386, the SSDsim fork
//! behind Tiny-Tail Flash, FAST'17) as data, and how flashtail runs beside them.
//!
//! The figures are `tests/data/ttflash_artifact/artifact-40f3386.json` of this crate,
//! compiled in: for each trace the artifact ran (`dtrs`, `tpcc30`), its replay settings and,
//! per configuration (`nogc`, `def`, `pbl`, `gtr`, `rgc`), the read and write percentiles,
//! GC victims, pages moved and erases, with the flashtail scheme and aging
//! (`precondition.ratio`, unsettled) that stand beside it. The file's `how` field says how
//! the figures were obtained. Used by `reproduce ttflash` and `tests/ttflash_validation.rs`.
//!
//! Does not: run the artifact, or judge a gap beyond the validation targets ([`target`]);
//! the validation test holds the gaps known today.

use crate::config::{overrides, presets, DeviceConfig};
use crate::job::Workload;
use crate::trace::{Format, TraceOptions};
use std::path::PathBuf;
use crate::stats::RunReport;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The artifact's figures, as recorded.
pub const DATA: &str = include_str!("../../../tests/data/ttflash_artifact/artifact-40f3386.json");

/// The copy of MQSim's TPC-C recording the artifact's `tpcc30` figures were measured on.
pub const TPCC_COPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ttflash_artifact/tpcc-small.mqsim.zst");

/// The artifact's configurations, in the order of the paper's steps.
pub const CONFIGS: [&str; 5] = ["nogc", "def", "pbl", "gtr", "rgc"];

/// The whole file.
#[derive(Clone, Debug, Deserialize)]
pub struct Artifact {
    /// `owner/repo@commit`.
    pub artifact: String,
    /// How the figures were obtained, in words.
    pub how: String,
    pub traces: BTreeMap<String, ArtifactTrace>,
}

/// One trace the artifact ran.
#[derive(Clone, Debug, Deserialize)]
pub struct ArtifactTrace {
    /// What the trace is, in words.
    pub trace: String,
    pub replay: Replay,
    /// The artifact's own `aged ratio` for def, pbl, gtr and rgc.
    pub artifact_aged_ratio: f64,
    pub configs: BTreeMap<String, ArtifactConfig>,
}

/// How the requests were replayed (flashtail's `ReplayOptions`).
#[derive(Clone, Debug, Deserialize)]
pub struct Replay {
    pub loops: u32,
    /// Speed-up factor (0.1: ten times slower).
    pub time_scale: f64,
}

/// One configuration's figures (latencies in µs) and the flashtail run beside it.
#[derive(Clone, Debug, Deserialize)]
pub struct ArtifactConfig {
    pub flashtail_scheme: String,
    /// flashtail's `precondition.ratio` giving the artifact's free pages per plane.
    pub flashtail_ratio: f64,
    pub reads: u64,
    pub writes: u64,
    pub read_p50_us: f64,
    pub read_p99_us: f64,
    pub read_p99_9_us: f64,
    pub read_p99_99_us: f64,
    pub read_max_us: f64,
    pub read_mean_us: f64,
    pub write_p50_us: f64,
    pub write_p99_us: f64,
    pub gc_victims: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
    /// `None` without GC.
    pub valid_pages_moved_per_gc: Option<f64>,
    /// Device settings the flashtail run beside it adds (`KEY=VALUE`: the artifact's DRAM
    /// write buffer for its RAID-less and non-ttFlash configurations).
    #[serde(default)]
    pub flashtail_sets: Vec<String>,
}

impl Artifact {
    /// The compiled-in figures.
    pub fn load() -> Result<Artifact, String> {
        serde_json::from_str(DATA).map_err(|e| format!("artifact-40f3386.json: line {}, column {}: {e}", e.line(), e.column()))
    }

    /// One trace's figures, by name (`dtrs`, `tpcc30`).
    pub fn trace(&self, name: &str) -> Result<&ArtifactTrace, String> {
        self.traces.get(name).ok_or_else(|| format!("artifact-40f3386.json: no trace '{name}' (has: {})", self.traces.keys().cloned().collect::<Vec<_>>().join(", ")))
    }
}

impl ArtifactTrace {
    /// One configuration's figures, by name.
    pub fn config(&self, name: &str) -> Result<&ArtifactConfig, String> {
        self.configs.get(name).ok_or_else(|| format!("artifact-40f3386.json: no configuration '{name}'"))
    }

    /// flashtail's replay options for this trace (the same requests the artifact ran).
    pub fn replay_options(&self) -> crate::trace::ReplayOptions {
        crate::trace::ReplayOptions { loops: self.replay.loops, time_scale: self.replay.time_scale, ..Default::default() }
    }
}

/// The requests the artifact ran for trace `name`, replayed as it did: `dtrs` is the
/// bundled slice; `tpcc30` reads MQSim's TPC-C recording from `path` (default:
/// [`TPCC_COPY`]).
pub fn workload(name: &str, t: &ArtifactTrace, path: Option<PathBuf>) -> Result<Workload, String> {
    let replay = t.replay_options();
    match name {
        "dtrs" => Ok(Workload::Trace { path: None, read: TraceOptions::default(), replay }),
        "tpcc30" => {
            let path = path.unwrap_or_else(|| PathBuf::from(TPCC_COPY));
            Ok(Workload::Trace { path: Some(path), read: TraceOptions { format: Some(Format::Mqsim), ..Default::default() }, replay })
        }
        _ => Err(format!("no workload for the artifact's trace '{name}'")),
    }
}

/// The `ttflash` preset aged with `ratio` and not settled (every plane starts where the
/// aging leaves it, as the artifact's do), with the configuration's `extra` settings.
pub fn device(ratio: f64, extra: &[String]) -> Result<DeviceConfig, String> {
    let mut sets = vec![format!("precondition.ratio={ratio}"), "precondition.settle=false".to_string()];
    sets.extend(extra.iter().cloned());
    overrides::apply_device(&presets::load("ttflash")?, &sets)
}

/// The artifact's host (SSDsim's `queue_length`, ssd.c): at most 32 requests outstanding,
/// the rest wait in the host, and latency counts from the trace arrival.
pub const HOST: crate::host::ClosedLoop = crate::host::ClosedLoop { queue_depth: 32, queues: 1, timing: crate::host::IssueTiming::Arrival };

/// One metric of a configuration: name, flashtail's value, the artifact's.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub name: &'static str,
    pub ours: f64,
    pub theirs: f64,
}

impl Metric {
    /// flashtail / artifact (NaN when the artifact's is 0).
    pub fn ratio(&self) -> f64 {
        if self.theirs == 0.0 {
            f64::NAN
        } else {
            self.ours / self.theirs
        }
    }
}

/// flashtail's run beside the artifact's figures for one configuration (latencies in µs).
pub fn metrics(r: &RunReport, a: &ArtifactConfig) -> Vec<Metric> {
    let us = |ns: u64| ns as f64 / 1e3;
    let per_gc = if r.flash.gc_runs == 0 { 0.0 } else { r.flash.gc_pages_migrated as f64 / r.flash.gc_runs as f64 };
    let m = |name, ours, theirs| Metric { name, ours, theirs };
    vec![
        m("read p50", us(r.reads.p50_ns), a.read_p50_us),
        m("read p99", us(r.reads.p99_ns), a.read_p99_us),
        m("read p99.9", us(r.reads.p99_9_ns), a.read_p99_9_us),
        m("read p99.99", us(r.reads.p99_99_ns), a.read_p99_99_us),
        m("read max", us(r.reads.max_ns), a.read_max_us),
        m("write p50", us(r.writes.p50_ns), a.write_p50_us),
        m("write p99", us(r.writes.p99_ns), a.write_p99_us),
        m("GC victims", r.flash.gc_runs as f64, a.gc_victims as f64),
        m("moved per victim", per_gc, a.valid_pages_moved_per_gc.unwrap_or(0.0)),
        m("erases", r.flash.erases as f64, a.erases as f64),
    ]
}

/// The validation target for one metric of a configuration, as a relative tolerance:
/// NoGC read p50 / p99 / p99.9 within 5 %, read tails within 25 %, GC victims and valid
/// pages moved per victim within 10 %; `None`: reported, not checked.
pub fn target(config: &str, metric: &str) -> Option<f64> {
    match metric {
        "read p50" | "read p99" | "read p99.9" if config == "nogc" => Some(0.05),
        "read p99" | "read p99.9" | "read p99.99" => Some(0.25),
        "GC victims" | "moved per victim" if config != "nogc" => Some(0.10),
        _ => None,
    }
}

/// The configurations from fastest to slowest by `(config, value)`.
pub fn order(values: &[(&str, f64)]) -> Vec<String> {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.1.total_cmp(&b.1));
    v.into_iter().map(|(c, _)| c.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_parse_with_every_configuration() {
        let a = Artifact::load().unwrap();
        assert!(a.artifact.contains("40f3386"), "{}", a.artifact);
        for t in ["dtrs", "tpcc30"] {
            let tr = a.trace(t).unwrap();
            for c in CONFIGS {
                let cfg = tr.config(c).unwrap();
                assert!(cfg.read_p99_us > cfg.read_p50_us && cfg.reads > 0, "{t} {c}");
                assert!((0.6..0.75).contains(&cfg.flashtail_ratio), "{t} {c}");
            }
            assert_eq!(tr.config("nogc").unwrap().gc_victims, 0);
        }
        assert_eq!(a.trace("dtrs").unwrap().config("def").unwrap().flashtail_scheme, "base");
        assert_eq!(a.trace("tpcc30").unwrap().replay.loops, 30);
        assert!(a.trace("fin1").unwrap_err().contains("dtrs, tpcc30"));
    }

    #[test]
    fn targets_and_order() {
        assert_eq!(target("nogc", "read p50"), Some(0.05));
        assert_eq!(target("def", "read p50"), None);
        assert_eq!(target("rgc", "read p99.99"), Some(0.25));
        assert_eq!(target("nogc", "GC victims"), None);
        assert_eq!(order(&[("a", 3.0), ("b", 1.0), ("c", 2.0)]), ["b", "c", "a"]);
        let m = Metric { name: "x", ours: 3.0, theirs: 2.0 };
        assert_eq!(m.ratio(), 1.5);
        assert!(Metric { name: "x", ours: 3.0, theirs: 0.0 }.ratio().is_nan());
    }
}
