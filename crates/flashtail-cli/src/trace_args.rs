//! Command-line options for reading and replaying a block trace, shared by `trace stats`,
//! `trace show` and (flattened by the lead) `run` / `compare`.
//!
//! Values are validated by clap value parsers, so `options()` cannot fail. What this file
//! does not do: read any trace (the library does).

use flashtail::trace::{self, Format, OnError, ReplayOptions, TraceOptions, VolumeSelect};
use flashtail::RequestSource;
use std::path::PathBuf;

/// How to parse a trace file.
#[derive(clap::Args, Clone, Debug)]
pub struct TraceParseArgs {
    /// Trace format (detected from the first lines when omitted): msr, fiu, umass, ssdsim,
    /// mqsim, flashsim, blkparse, tencent, systor, linnos (LinnOS/Heimdall/FlashNet input:
    /// ms and bytes), flashnet (FlashNet replayer CSV), alibaba, cloudphysics (libCacheSim CSV).
    #[arg(long, value_parser = parse_format)]
    pub format: Option<Format>,
    /// On a malformed record: stop (default) or skip and count it.
    #[arg(long, default_value = "stop", value_parser = parse_on_error)]
    pub on_error: OnError,
    /// Volumes (disk/device/LUN ids) to use: "all" (default), or a comma list like "0,2";
    /// blkparse/FIU devices as MAJOR:MINOR.
    #[arg(long, default_value = "all", value_parser = parse_volume)]
    pub volume: VolumeSelect,
    /// Give volume i its own region at i x STRIDE bytes (suffixes K, M, G, T); default: merge
    /// volumes as-is.
    #[arg(long, value_parser = parse_stride)]
    pub volume_stride: Option<u64>,
    /// Unit of the time column of ssdsim, mqsim, flashsim and linnos traces (the others have a
    /// fixed unit): ns, us, ms, s, or nanoseconds per unit (e.g. 0.01 for the DTRS slice whose
    /// raw values are 100 x ns). Default: the format's own unit.
    #[arg(long, value_parser = parse_time_unit)]
    pub time_unit: Option<f64>,
    /// Requests held to repair local timestamp disorder (0 disables).
    #[arg(long, default_value_t = 4096, value_parser = crate::sim_args::parse_usize)]
    pub reorder_window: usize,
    /// blkparse event taken as the request: Q (queued, default), G (got request), I
    /// (inserted), D (issued) or C (completed).
    #[arg(long, default_value = "Q", value_parser = parse_blk_event)]
    pub blk_event: String,
    /// Most bytes a compressed trace may decode to per compressed byte (real traces compress
    /// 3 to 30 times; gigabytes of zeros, millions of times); 0: no limit.
    #[arg(long, default_value_t = flashtail::trace::decompress::DEFAULT_MAX_RATIO, value_parser = crate::sim_args::parse_u64)]
    pub max_decompress_ratio: u64,
    /// Refuse to go on when the plausibility checks warn (sizes, span or rate that suggest
    /// a wrong unit or format) instead of only printing the warnings.
    #[arg(long)]
    pub strict: bool,
}

impl TraceParseArgs {
    pub fn trace_options(&self) -> TraceOptions {
        TraceOptions {
            format: self.format,
            on_error: self.on_error,
            reorder_window: self.reorder_window,
            volume: self.volume.clone(),
            volume_stride: self.volume_stride,
            time_unit_ns: self.time_unit,
            blk_event: self.blk_event.clone(),
            max_decompress_ratio: (self.max_decompress_ratio > 0).then_some(self.max_decompress_ratio),
        }
    }
}

/// A trace as workload input, with replay controls.
#[derive(clap::Args, Clone, Debug)]
pub struct TraceInput {
    /// Block trace to replay (gz/bz2/zst read transparently). Default: the bundled DTRS slice.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub parse: TraceParseArgs,
    /// Replay speed factor: 2.0 replays twice as fast.
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale, allow_hyphen_values = true)]
    pub time_scale: f64,
    /// Window of trace time in seconds, START:END (either side may be empty).
    #[arg(long, value_parser = parse_window, allow_hyphen_values = true)]
    pub window: Option<(Option<f64>, Option<f64>)>,
    /// Replay the (windowed) slice N times, each loop after the previous one. The run grows
    /// with N: its time, and with `--latency exact` 8 bytes of memory per request.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub loops: u32,
    /// Address shift per loop in bytes (suffixes K, M, G, T); default: the slice's extent.
    #[arg(long, value_parser = parse_bytes)]
    pub loop_offset: Option<u64>,
    /// Do not fold offsets beyond the logical capacity back into it: drop the requests that
    /// reach beyond it instead (counted as replay_beyond_capacity in the notes).
    #[arg(long)]
    pub no_wrap: bool,
    /// Do not align offsets and sizes to the page size.
    #[arg(long)]
    pub no_align: bool,
}

impl TraceInput {
    /// The replay and parse options given on the command line that a generated workload
    /// would ignore (they were silently ignored with `--gen`).
    pub fn trace_only_options(&self) -> Vec<&'static str> {
        let p = &self.parse;
        let defaults = TraceParseArgs {
            format: None,
            on_error: OnError::Stop,
            volume: VolumeSelect::All,
            volume_stride: None,
            time_unit: None,
            reorder_window: 4096,
            blk_event: String::from("Q"),
            max_decompress_ratio: flashtail::trace::decompress::DEFAULT_MAX_RATIO,
            strict: false,
        };
        let given = [
            ("--time-scale", self.time_scale != 1.0),
            ("--window", self.window.is_some()),
            ("--loops", self.loops != 1),
            ("--loop-offset", self.loop_offset.is_some()),
            ("--no-wrap", self.no_wrap),
            ("--no-align", self.no_align),
            ("--format", p.format.is_some()),
            ("--on-error", p.on_error != defaults.on_error),
            ("--volume", p.volume != defaults.volume),
            ("--volume-stride", p.volume_stride.is_some()),
            ("--time-unit", p.time_unit.is_some()),
            ("--reorder-window", p.reorder_window != defaults.reorder_window),
            ("--blk-event", p.blk_event != defaults.blk_event),
            ("--max-decompress-ratio", p.max_decompress_ratio != defaults.max_decompress_ratio),
        ];
        given.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect()
    }

    pub fn options(&self) -> (TraceOptions, ReplayOptions) {
        let (start_s, end_s) = self.window.unwrap_or((None, None));
        let replay = ReplayOptions {
            time_scale: self.time_scale,
            start_s,
            end_s,
            loops: self.loops,
            loop_offset: self.loop_offset,
            wrap: !self.no_wrap,
            align: !self.no_align,
        };
        (self.parse.trace_options(), replay)
    }

    /// Opens the trace (or the bundled DTRS slice) with every control applied.
    pub fn open(
        &self,
        logical_capacity_bytes: u64,
        page_size: u64,
    ) -> anyhow::Result<Box<dyn RequestSource + Send>> {
        let (t, r) = self.options();
        let src = match &self.trace {
            Some(p) => trace::open(p, &t)?,
            None => trace::embedded::dtrs(&t),
        };
        Ok(trace::replay(src, &r, logical_capacity_bytes, page_size))
    }
}

/// Runs the plausibility checks (`flashtail::trace::plausibility`) on a freshly opened
/// source and prints each finding as a warning on stderr; with `strict`, any finding is an
/// error. `dev` enables the saturation check. A source that fails while scanned is left to
/// the run, which reports the failure itself.
pub fn check_plausibility(
    src: &mut dyn RequestSource,
    what: &str,
    time_unit_given: bool,
    dev: Option<&flashtail::DeviceConfig>,
    strict: bool,
) -> anyhow::Result<()> {
    use flashtail::trace::plausibility::{check, scan, Context, DeviceLimits, SCAN_REQUESTS};
    let Ok(s) = scan(src, SCAN_REQUESTS) else { return Ok(()) };
    let limits = dev.map(DeviceLimits::of);
    let findings = check(&s, &Context { time_unit_given }, limits.as_ref());
    for f in &findings {
        eprintln!("warning: {what}: {}", f.message);
    }
    if strict && !findings.is_empty() {
        let checks: Vec<&str> = findings.iter().map(|f| f.check).collect();
        anyhow::bail!(
            "{what}: refused under --strict: {} plausibility warning{} ({}; above)",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            checks.join(", ")
        );
    }
    Ok(())
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse().map_err(|e: String| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("{e}{}", flashtail::suggest::did_you_mean(s, names))
    })
}

fn parse_blk_event(s: &str) -> Result<String, String> {
    trace::formats::blkparse::check_event(s)
}

/// The warnings a trace's notes call for, one line each, for run, compare and `trace stats`:
/// arrival times too coarse to tell requests apart (the reader's `coarse_timestamps` note),
/// `--volume` ids with no requests in the trace (`volumes_without_requests`), and requests
/// `--no-wrap` dropped (`replay_beyond_capacity`: the run covers only the rest of the trace).
pub fn trace_warnings<'a>(notes: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let mut file = "the trace";
    let mut coarse = None;
    let mut missing = None;
    let (mut dropped, mut replayed, mut capacity) = (0u64, 0u64, None);
    for (k, v) in notes {
        match k {
            "trace" => file = v,
            "coarse_timestamps" => coarse = Some(v),
            "volumes_without_requests" => missing = Some(v),
            "replay_beyond_capacity" => dropped = v.parse().unwrap_or(0),
            "replay_requests" => replayed = v.parse().unwrap_or(0),
            "logical_capacity_bytes" => capacity = Some(v),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(w) = coarse {
        out.push(format!(
            "warning: {file}: coarse arrival times: {w}; such requests arrive together, so \
             queueing dominates their latency (no replay option spreads them; --time-scale only \
             stretches the gaps between distinct times)"
        ));
    }
    if let Some(m) = missing {
        let (noun, verb) = if m.contains(',') { ("volumes", "have") } else { ("volume", "has") };
        out.push(format!(
            "warning: {file}: {noun} {m} of --volume {verb} no requests in this trace (a typo?); only the other listed volumes were replayed"
        ));
    }
    if dropped > 0 {
        let of = dropped + replayed;
        let cap = capacity.map_or(String::new(), |c| format!(" ({c} bytes)"));
        out.push(format!(
            "warning: {file}: --no-wrap dropped {dropped} of {of} requests ({:.1} %) that reach beyond the logical capacity{cap}; the results cover the other {replayed} only",
            100.0 * dropped as f64 / of as f64
        ));
    }
    out
}

fn parse_on_error(s: &str) -> Result<OnError, String> {
    s.parse()
}

fn parse_volume(s: &str) -> Result<VolumeSelect, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(VolumeSelect::All);
    }
    let mut ids = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let id = match part.split_once(':') {
            Some((ma, mi)) => {
                let ma: u64 = ma
                    .parse()
                    .map_err(|_| format!("bad device major in '{part}'"))?;
                let mi: u64 = mi
                    .parse()
                    .map_err(|_| format!("bad device minor in '{part}'"))?;
                (ma << 20) | mi
            }
            None => part
                .parse()
                .map_err(|_| format!("'{part}' is not a volume id"))?,
        };
        // With --volume-stride the list's order places the volumes: a repeat is a typo.
        if ids.contains(&id) {
            return Err(format!("volume '{part}' is listed twice"));
        }
        ids.push(id);
    }
    Ok(VolumeSelect::Only(ids))
}

/// `--volume-stride`: bytes as [`parse_bytes`], more than 0 (0 would put every volume at 0).
fn parse_stride(s: &str) -> Result<u64, String> {
    match parse_bytes(s)? {
        0 => Err("the stride must be more than 0 bytes (leave --volume-stride out to merge volumes as-is)".to_string()),
        v => Ok(v),
    }
}

/// Bytes with an optional binary suffix (K, M, G, T).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("unknown size suffix in '{s}' (use K, M, G, T)")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let v: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a byte count"))?;
    v.checked_mul(mul)
        .ok_or_else(|| format!("'{s}' is too large"))
}

fn parse_time_unit(s: &str) -> Result<f64, String> {
    let v = match s {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => s
            .parse::<f64>()
            .map_err(|_| format!("'{s}' is not a time unit (ns, us, ms, s or ns per unit)"))?,
    };
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("time unit must be > 0, got '{s}'"))
    }
}

fn parse_scale(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("time scale must be a number > 0, got '{s}'")),
    }
}

/// Latest `--window` bound: the engine takes no arrival after 2^62 ns.
const MAX_WINDOW_S: f64 = 4_611_686_018.0;

fn parse_window(s: &str) -> Result<(Option<f64>, Option<f64>), String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| format!("window '{s}' must be START:END seconds"))?;
    let side = |x: &str| -> Result<Option<f64>, String> {
        if x.trim().is_empty() {
            return Ok(None);
        }
        match x.trim().parse::<f64>() {
            Ok(v) if (0.0..=MAX_WINDOW_S).contains(&v) => Ok(Some(v)),
            _ => Err(format!("'{x}' is not a time in seconds from 0 to {MAX_WINDOW_S} (2^62 ns, the latest time flashtail simulates)")),
        }
    };
    let (start, end) = (side(a)?, side(b)?);
    if let (Some(x), Some(y)) = (start, end) {
        if y <= x {
            return Err(format!("window end {y} must be after start {x}"));
        }
    }
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_parsers() {
        assert_eq!(parse_bytes("4K"), Ok(4096));
        assert_eq!(parse_bytes("16g"), Ok(16 << 30));
        assert!(parse_bytes("1X").is_err());
        assert_eq!(parse_window("10:20"), Ok((Some(10.0), Some(20.0))));
        assert_eq!(parse_window(":5"), Ok((None, Some(5.0))));
        assert!(parse_window("5:1").is_err());
        assert_eq!(parse_window("4611686018:"), Ok((Some(4_611_686_018.0), None)));
        assert_eq!(
            parse_window("1e300:"),
            Err("'1e300' is not a time in seconds from 0 to 4611686018 (2^62 ns, the latest time flashtail simulates)".to_string())
        );
        assert_eq!(parse_stride("1T"), Ok(1 << 40));
        assert!(parse_stride("0").is_err_and(|e| e.starts_with("the stride must be more than 0 bytes")));
        assert_eq!(
            parse_volume("8:16,3"),
            Ok(VolumeSelect::Only(vec![(8 << 20) | 16, 3]))
        );
        assert_eq!(parse_volume("0,0"), Err("volume '0' is listed twice".to_string()));
        assert_eq!(parse_volume("8:16,8:16"), Err("volume '8:16' is listed twice".to_string()));
        assert_eq!(parse_time_unit("ms"), Ok(1e6));
        assert!(parse_time_unit("-1").is_err());
        assert_eq!(parse_blk_event("c"), Ok("C".to_string()));
        assert!(parse_blk_event("X").is_err_and(|e| e.contains("Q, G, I, D, C")));
    }
}
