//! A sweep specification: the cross product of devices, `--set` overrides (each a list or
//! a range of values), workloads and seeds, with the schemes every point runs and the run
//! and confidence-interval settings. Read from TOML (`flashtail sweep SPEC.toml`) or JSON
//! (the Python package's dict); unknown keys are errors naming the key and, for TOML, the
//! line. Relative paths (device files, traces) are taken from the spec file's folder.

use crate::host::{ClosedLoop, IssueTiming};
use crate::job::{RunSettings, Workload};
use crate::stats::LatencyMode;
use crate::trace::{ReplayOptions, TraceOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The whole spec, as written.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Schemes every point runs (on one preconditioned device state and request stream).
    pub schemes: Vec<String>,
    /// Device presets or TOML files (default: `dtrs-demo`).
    #[serde(default = "default_devices")]
    pub devices: Vec<String>,
    /// Seeds (default: `[1]`): a list, or `{ start, stop, step }` (inclusive).
    #[serde(default = "default_seeds")]
    pub seeds: Values,
    /// Workloads (default: the bundled DTRS slice).
    #[serde(default = "default_workloads")]
    pub workloads: Vec<WorkloadSpec>,
    /// `--set` overrides: each key's values (list or range) multiply the points. Keys run in
    /// alphabetical order, the last one fastest.
    #[serde(default)]
    pub set: BTreeMap<String, Values>,
    #[serde(default)]
    pub run: RunSpecToml,
    #[serde(default)]
    pub ci: CiSettings,
}

fn default_devices() -> Vec<String> {
    vec!["dtrs-demo".to_string()]
}
fn default_seeds() -> Values {
    Values::List(vec![Value::Int(1)])
}
fn default_workloads() -> Vec<WorkloadSpec> {
    vec![WorkloadSpec::default()]
}

/// One value of a list or range: a whole number, a real number, a string or a boolean.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl Value {
    /// The text `--set KEY=VALUE` would take (floats in their shortest round-trip form).
    pub fn text(&self) -> String {
        match self {
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Str(s) => s.clone(),
        }
    }
}

/// A list of values, or an inclusive arithmetic range.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Values {
    List(Vec<Value>),
    Range {
        start: f64,
        stop: f64,
        #[serde(default = "one")]
        step: f64,
    },
    One(Value),
}

fn one() -> f64 {
    1.0
}

/// At most this many values in one range (a step of the wrong scale is a typo).
pub const MAX_RANGE: usize = 10_000;

impl Values {
    /// The values in order. A range runs from `start` to `stop` inclusive (within a
    /// millionth of a step), each value `start + i × step` so no rounding accumulates;
    /// whole-number ranges give whole numbers. `what` names the key in errors.
    pub fn expand(&self, what: &str) -> Result<Vec<Value>, String> {
        match self {
            Values::One(v) => Ok(vec![v.clone()]),
            Values::List(v) if v.is_empty() => Err(format!("{what}: the list of values is empty")),
            Values::List(v) => Ok(v.clone()),
            Values::Range { start, stop, step } => {
                if !(step.is_finite() && *step > 0.0 && start.is_finite() && stop.is_finite()) {
                    return Err(format!("{what}: a range needs finite start and stop and a step > 0 (got start={start}, stop={stop}, step={step})"));
                }
                if stop < start {
                    return Err(format!("{what}: range stop {stop} is below its start {start}"));
                }
                let n = ((stop - start) / step + 1e-6).floor() as usize + 1;
                if n > MAX_RANGE {
                    return Err(format!("{what}: the range has {n} values, more than {MAX_RANGE}"));
                }
                let whole = [start, stop, step].iter().all(|v| v.fract() == 0.0 && v.abs() < 9.0e15);
                Ok((0..n)
                    .map(|i| {
                        let v = start + i as f64 * step;
                        if whole {
                            Value::Int(v as i64)
                        } else {
                            // Twelve significant digits: 0.1 + 2 × 0.1 is 0.3, not 0.30000000000000004.
                            Value::Float(format!("{v:.12e}").parse().unwrap_or(v))
                        }
                    })
                    .collect())
            }
        }
    }
}

/// A workload of the sweep: `trace = "PATH"` (or `"bundled"`, the default) with reading
/// and replay options, or `gen = "PRESET"` with `count` and `seed`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub trace: Option<String>,
    pub gen: Option<String>,
    pub count: Option<u64>,
    /// The generator's seed. Without it, each point's seed seeds the generator too, so
    /// seeds vary the requests as well as the preconditioning (see docs/sweeps.md).
    pub seed: Option<u64>,
    pub format: Option<String>,
    /// Nanoseconds per unit of the time column (`--time-unit`).
    pub time_unit: Option<f64>,
    pub time_scale: Option<f64>,
    /// Seconds of trace time, `[start, end]` (`--window START:END`).
    pub window: Option<[f64; 2]>,
    pub loops: Option<u32>,
    /// A short name for the table's `workload` column (default: the trace's path, `bundled`,
    /// or `gen:PRESET`).
    pub name: Option<String>,
}

impl WorkloadSpec {
    /// How to read the trace: `format` and `time_unit`, the rest the command line's defaults.
    pub fn trace_options(&self) -> Result<TraceOptions, String> {
        let what = format!("workload '{}'", self.label());
        let mut read = TraceOptions::default();
        if let Some(f) = &self.format {
            read.format = Some(f.parse().map_err(|e| format!("{what}: format: {e}"))?);
        }
        if let Some(u) = self.time_unit {
            if !(u.is_finite() && u > 0.0) {
                return Err(format!("{what}: time_unit must be > 0 ns per unit, got {u}"));
            }
            read.time_unit_ns = Some(u);
        }
        Ok(read)
    }

    /// The table's name for it.
    pub fn label(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        match (&self.gen, &self.trace) {
            (Some(g), _) => format!("gen:{g}"),
            (None, Some(t)) => t.clone(),
            (None, None) => "bundled".to_string(),
        }
    }

    /// The job's workload; `base` is the spec file's folder. A generator without its own
    /// `seed` takes `point_seed` (a sweep point's seed), or the preset's when that is `None`.
    pub fn workload(&self, base: &Path, point_seed: Option<u64>) -> Result<Workload, String> {
        let what = format!("workload '{}'", self.label());
        if let Some(g) = &self.gen {
            if self.trace.is_some() || self.format.is_some() || self.time_unit.is_some() || self.time_scale.is_some() || self.window.is_some() || self.loops.is_some() {
                return Err(format!("{what}: gen takes only count and seed (trace options are for trace = ...)"));
            }
            return Ok(Workload::Gen { preset: g.clone(), count: self.count, seed: self.seed.or(point_seed) });
        }
        if self.count.is_some() || self.seed.is_some() {
            return Err(format!("{what}: count and seed are for gen = ... workloads"));
        }
        let read = self.trace_options()?;
        let mut replay = ReplayOptions::default();
        if let Some(s) = self.time_scale {
            if !(s.is_finite() && s > 0.0) {
                return Err(format!("{what}: time_scale must be a number > 0, got {s}"));
            }
            replay.time_scale = s;
        }
        if let Some([a, b]) = self.window {
            if !(a >= 0.0 && b > a) {
                return Err(format!("{what}: window [{a}, {b}] must have 0 <= start < end (seconds)"));
            }
            replay.start_s = Some(a);
            replay.end_s = Some(b);
        }
        if let Some(l) = self.loops {
            if l == 0 {
                return Err(format!("{what}: loops must be at least 1"));
            }
            replay.loops = l;
        }
        let path = match self.trace.as_deref() {
            None | Some("bundled") => None,
            Some(p) => Some(resolve(base, p)),
        };
        Ok(Workload::Trace { path, read, replay })
    }
}

/// A path as written, or relative to the spec's folder.
pub fn resolve(base: &Path, p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The run settings of every point (`[run]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RunSpecToml {
    pub victim: Option<String>,
    pub interconnect: Option<String>,
    pub oracle: bool,
    /// `exact` or `tail`.
    pub latency: String,
    /// The closed-loop host interface, `QD` or `QDxQUEUES` (docs/host.md); absent: open loop.
    /// Left out of the point's key when absent, so open-loop points keep their ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_loop: Option<String>,
    /// With `closed_loop`: `trace` (the default) or `ignore`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<String>,
}

impl Default for RunSpecToml {
    fn default() -> RunSpecToml {
        RunSpecToml { victim: None, interconnect: None, oracle: true, latency: "exact".into(), closed_loop: None, timing: None }
    }
}

impl RunSpecToml {
    /// The job's settings for a point with `seed`.
    pub fn settings(&self, seed: u64) -> Result<RunSettings, String> {
        let latency: LatencyMode = self.latency.parse().map_err(|e| format!("run.latency: {e}"))?;
        let closed_loop = match (&self.closed_loop, &self.timing) {
            (Some(q), t) => {
                let timing = IssueTiming::parse(t.as_deref().unwrap_or("trace")).map_err(|e| format!("run.timing: {e}"))?;
                Some(ClosedLoop::parse(q, timing).map_err(|e| format!("run.closed_loop: {e}"))?)
            }
            (None, Some(_)) => return Err("run.timing applies to a closed loop: set run.closed_loop too, or leave run.timing out".into()),
            (None, None) => None,
        };
        Ok(RunSettings { victim: self.victim.clone(), interconnect: self.interconnect.clone(), seed, oracle: self.oracle, latency, closed_loop, ..RunSettings::default() })
    }
}

/// How the across-seed table estimates its interval (`[ci]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CiSettings {
    /// Confidence level, in (0, 1).
    pub level: f64,
    /// Bootstrap resamples of the seeds.
    pub resamples: u32,
    /// Seed of the bootstrap's random numbers.
    pub seed: u64,
}

impl Default for CiSettings {
    fn default() -> CiSettings {
        CiSettings { level: 0.95, resamples: 2000, seed: 1 }
    }
}

/// A parsed spec and the folder its relative paths start from.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub spec: SweepSpec,
    pub base: PathBuf,
}

impl Sweep {
    /// Reads a TOML spec file.
    pub fn from_file(path: &Path) -> Result<Sweep, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Sweep::from_toml(&path.display().to_string(), &text, &base)
    }

    /// Parses TOML text; `origin` names it in errors.
    pub fn from_toml(origin: &str, text: &str, base: &Path) -> Result<Sweep, String> {
        let spec: SweepSpec = toml::from_str(text).map_err(|e| format!("{origin}: {}", e.to_string().trim_end()))?;
        Sweep::checked(origin, spec, base)
    }

    /// Parses JSON text (the Python package's dict, and what Ray tasks receive).
    pub fn from_json(origin: &str, text: &str, base: &Path) -> Result<Sweep, String> {
        let spec: SweepSpec = serde_json::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
        Sweep::checked(origin, spec, base)
    }

    /// The spec as JSON, with which [`Sweep::from_json`] rebuilds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.spec).unwrap_or_default()
    }

    fn checked(origin: &str, spec: SweepSpec, base: &Path) -> Result<Sweep, String> {
        let bad = |m: String| format!("{origin}: {m}");
        if spec.schemes.is_empty() {
            return Err(bad("schemes: name at least one scheme".into()));
        }
        crate::runner::check_schemes(&spec.schemes).map_err(|e| bad(format!("schemes: {e}")))?;
        if spec.devices.is_empty() {
            return Err(bad("devices: the list is empty".into()));
        }
        if spec.workloads.is_empty() {
            return Err(bad("workloads: the list is empty".into()));
        }
        for s in spec.seeds.expand("seeds").map_err(bad)? {
            if !matches!(s, Value::Int(i) if i >= 0) {
                return Err(bad(format!("seeds: '{}' is not a whole number from 0", s.text())));
            }
        }
        for (k, v) in &spec.set {
            v.expand(&format!("set.\"{k}\"")).map_err(bad)?;
        }
        if !(spec.ci.level > 0.0 && spec.ci.level < 1.0) {
            return Err(bad(format!("ci.level must be between 0 and 1, got {}", spec.ci.level)));
        }
        if spec.ci.resamples == 0 {
            return Err(bad("ci.resamples must be at least 1".into()));
        }
        spec.run.settings(0).map_err(bad)?;
        Ok(Sweep { spec, base: base.to_path_buf() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_expand_inclusively_without_drift() {
        let r = Values::Range { start: 0.1, stop: 0.3, step: 0.1 };
        assert_eq!(r.expand("k").unwrap(), vec![Value::Float(0.1), Value::Float(0.2), Value::Float(0.3)]);
        let r = Values::Range { start: 1.0, stop: 7.0, step: 3.0 };
        assert_eq!(r.expand("k").unwrap(), vec![Value::Int(1), Value::Int(4), Value::Int(7)]);
        assert!(Values::Range { start: 1.0, stop: 0.0, step: 1.0 }.expand("k").unwrap_err().contains("below its start"));
        assert!(Values::Range { start: 0.0, stop: 1.0, step: 1e-9 }.expand("k").unwrap_err().contains("more than"));
    }

    #[test]
    fn unknown_keys_name_the_key_and_line() {
        let e = Sweep::from_toml("s.toml", "schemes = [\"base\"]\nsedes = [1]\n", Path::new(".")).unwrap_err();
        assert!(e.starts_with("s.toml: TOML parse error at line 2"), "{e}");
        assert!(e.contains("sedes"), "{e}");
        let e = Sweep::from_toml("s.toml", "schemes = [\"bas\"]\n", Path::new(".")).unwrap_err();
        assert!(e.starts_with("s.toml: schemes: unknown scheme 'bas'"), "{e}");
    }

    #[test]
    fn run_closed_loop_parses_and_timing_needs_it() {
        let run = |closed: Option<&str>, timing: Option<&str>| {
            RunSpecToml { closed_loop: closed.map(String::from), timing: timing.map(String::from), ..Default::default() }.settings(1)
        };
        let c = run(Some("16x4"), None).unwrap().closed_loop.unwrap();
        assert_eq!((c.queue_depth, c.queues, c.timing), (16, 4, IssueTiming::Trace));
        assert_eq!(run(Some("8"), Some("ignore")).unwrap().closed_loop.unwrap().timing, IssueTiming::Ignore);
        assert!(run(None, None).unwrap().closed_loop.is_none());
        assert!(run(None, Some("trace")).unwrap_err().contains("run.timing"));
        assert!(run(Some("0"), None).unwrap_err().starts_with("run.closed_loop"));
        assert!(run(Some("8"), Some("wall")).unwrap_err().starts_with("run.timing"));
        // Open-loop points keep their ids: the new keys are left out when absent.
        let json = serde_json::to_string(&RunSpecToml::default()).unwrap();
        assert!(!json.contains("closed_loop") && !json.contains("timing"), "{json}");
    }
}
