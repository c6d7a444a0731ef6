//! The workload of a job: a trace file (or the bundled DTRS slice) with its reading and
//! replay options, or a generator preset with an optional count and seed. Opens a fresh,
//! identical copy of it for each scheme's run, addressing a given host capacity.

use crate::host::{Op, RequestSource};
use crate::trace::{self, ReplayOptions, TraceOptions};
use crate::DeviceConfig;
use std::path::PathBuf;

/// A workload, as `--trace`/`--gen` and their options describe it.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A trace file, or the bundled DTRS slice when `path` is `None`.
    Trace { path: Option<PathBuf>, read: TraceOptions, replay: ReplayOptions },
    /// A generator preset (`flashtail gen --list`), with the request count and seed
    /// overriding the preset's own.
    Gen { preset: String, count: Option<u64>, seed: Option<u64> },
}

impl Default for Workload {
    /// The bundled DTRS slice, replayed as recorded.
    fn default() -> Workload {
        Workload::Trace { path: None, read: TraceOptions::default(), replay: ReplayOptions::default() }
    }
}

/// How many requests [`Workload::fingerprinted`] reads looking for the first write: a
/// trace whose first this many requests are all reads is taken as carrying no content.
pub const SNIFF_REQUESTS: u64 = 100_000;

/// Opens a fresh copy of a workload (one per scheme run).
pub type Opener = Box<dyn Fn() -> Result<Box<dyn RequestSource + Send>, String> + Sync + Send>;

/// How much memory a workload may take when read once and replayed from memory
/// (`host::recorded`) by default: 256 MiB, about 10 M requests without content.
pub const INPUT_MEMORY_DEFAULT: u64 = 256 << 20;

/// `open`, read once into memory when the whole stream fits in `budget_bytes` (then every
/// copy it opens replays that recording instead of parsing the file or drawing the
/// generator again); `open` itself otherwise, or when the stream fails (its runs report it).
/// The recording keeps the requests' content fingerprints only when one of `schemes` is
/// content-aware ([`needs_content`]): no other scheme reads them.
pub fn record_input(open: Opener, budget_bytes: u64, schemes: &[String]) -> Opener {
    if budget_bytes == 0 {
        return open;
    }
    let Ok(mut src) = open() else { return open };
    let content = schemes.iter().any(|s| needs_content(s));
    let Some(rec) = crate::host::recorded::Recording::read(&mut *src, budget_bytes, content) else { return open };
    let rec = std::sync::Arc::new(rec);
    Box::new(move || Ok(Box::new(crate::host::recorded::Replayed::new(rec.clone())) as Box<dyn RequestSource + Send>))
}

/// Whether scheme `name` reads the content fingerprints of host writes (SplitGC, CAGC,
/// DAGC and their variants).
pub fn needs_content(name: &str) -> bool {
    crate::gc::content::handles(name)
}

impl Workload {
    /// A function that opens a fresh copy of the workload for a device, addressing `cap`
    /// bytes (offsets beyond wrap into it; generators spread over it). The workload is
    /// opened once here, so a missing file or a bad option fails before any run starts.
    pub fn opener(&self, dev: &DeviceConfig, cap: u64) -> Result<Opener, String> {
        let page = dev.geometry.page_size as u64;
        match self {
            Workload::Gen { preset, count, seed } => {
                let mut cfg = crate::workload::preset(preset).ok_or_else(|| {
                    let names = crate::workload::preset_names();
                    let hint = crate::suggest::did_you_mean(preset, names.iter().copied());
                    format!("unknown workload preset '{preset}'{hint} (known: {})", names.join(", "))
                })?;
                cfg = cfg.with_span_within(cap);
                if let Some(n) = count {
                    cfg = cfg.with_count(*n);
                }
                if let Some(s) = seed {
                    cfg = cfg.with_seed(*s);
                }
                crate::workload::Generator::new(cfg.clone()).map_err(|e| e.to_string())?;
                Ok(Box::new(move || {
                    crate::workload::Generator::new(cfg.clone())
                        .map(|g| Box::new(g) as Box<dyn RequestSource + Send>)
                        .map_err(|e| e.to_string())
                }))
            }
            Workload::Trace { path, read, replay } => {
                let (path, read, replay) = (path.clone(), read.clone(), replay.clone());
                let open = move || -> Result<Box<dyn RequestSource + Send>, String> {
                    let src = match &path {
                        Some(p) => trace::open(p, &read).map_err(|e| super::error_chain(&e))?,
                        None => trace::embedded::dtrs(&read),
                    };
                    Ok(trace::replay(src, &replay, cap, page))
                };
                open()?;
                Ok(Box::new(open))
            }
        }
    }

    /// Whether the workload's writes carry content the content-aware schemes can act on:
    /// for a generator, fingerprints with duplicates (`content.dup_rate` > 0: the
    /// `splitgc-*` presets); for a trace, fingerprints on its first write (FIU traces carry
    /// one per write; other formats none), looked for in the first [`SNIFF_REQUESTS`]
    /// requests of a freshly opened copy. A malformed record met on the way is the
    /// workload's error, reported before any scheme runs.
    pub fn fingerprinted(&self, open: &Opener) -> Result<bool, String> {
        if let Workload::Gen { preset, .. } = self {
            return Ok(crate::workload::preset(preset).is_some_and(|c| c.content.fingerprints && c.content.dup_rate > 0.0));
        }
        let mut src = open().map_err(|e| format!("workload: {e}"))?;
        for _ in 0..SNIFF_REQUESTS {
            match src.next_request() {
                Ok(Some(r)) if r.op == Op::Write => return Ok(r.fingerprints.iter().any(|&f| f != 0)),
                Ok(Some(_)) => {}
                Ok(None) => return Ok(false),
                Err(e) => return Err(format!("workload: {e}")),
            }
        }
        Ok(false)
    }

    /// What the reports and the terminal call the workload.
    pub fn describe(&self) -> String {
        match self {
            Workload::Gen { preset, .. } => format!("generated workload '{preset}'"),
            Workload::Trace { path: Some(p), .. } => p.display().to_string(),
            Workload::Trace { path: None, .. } => "bundled DTRS slice (Microsoft production, 127,043 requests, ~300 s)".to_string(),
        }
    }
}
