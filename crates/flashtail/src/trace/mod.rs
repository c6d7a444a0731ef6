//! Real block-trace ingestion: streaming parsers for the public trace formats (MSR, FIU,
//! UMass/SPC, SSDsim/DiskSim, MQSim, flashsim, blkparse, Tencent CBS, SYSTOR'17, the
//! LinnOS/Heimdall/FlashNet layouts, Alibaba Cloud block, libCacheSim's CloudPhysics CSV),
//! pre-run plausibility checks (`plausibility.rs`), transparent
//! gzip/bzip2/zstd, format auto-detection, error policy, reorder window, volume selection,
//! replay controls, the bundled DTRS slice and trace statistics.
//!
//! Entry points: [`open`] / [`open_reader`] give a [`RequestSource`] whose first request
//! arrives at t = 0; [`replay()`] wraps any source with time scale, window, loops, LBA wrap and
//! alignment. What this module does not do: simulate anything, or synthesise workloads
//! (see `workload`).

pub mod classify;
pub mod decompress;
pub mod detect;
pub mod embedded;
pub mod error;
pub mod fields;
pub mod format;
pub mod formats;
pub mod lines;
pub mod plausibility;
pub mod reader;
pub mod record;
pub mod reorder;
pub mod replay;
pub mod stats;

pub use error::{OnError, TraceError};
pub use format::Format;
pub use reader::{ReadCounters, TraceReader};
pub use replay::{Replay, ReplayOptions};

use crate::host::RequestSource;
use std::io::Read;
use std::path::Path;

/// Which volumes (disks, devices, LUNs) of a multi-volume trace to use.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum VolumeSelect {
    /// Every volume. Without a stride they share one address space as-is (the summary says so).
    #[default]
    All,
    /// Only these volume ids; with a stride, the i-th listed volume is placed at i × stride.
    Only(Vec<u64>),
}

/// How to read a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceOptions {
    /// Force a format; `None` detects it from the first lines.
    pub format: Option<Format>,
    pub on_error: OnError,
    /// Requests held to repair local disorder (0 disables; the rest is clamped and counted).
    pub reorder_window: usize,
    pub volume: VolumeSelect,
    /// Give volume i (order of first appearance, or of the `Only` list) the region starting
    /// at i × stride bytes. `None`: merge as-is.
    pub volume_stride: Option<u64>,
    /// Nanoseconds per unit of the time column, overriding the format's default (useful for
    /// the ASCII formats whose published files use different units).
    pub time_unit_ns: Option<f64>,
    /// blkparse event taken as the request: one of `formats::blkparse::EVENTS` (`Q` queued,
    /// `D` issued, `C` completed, ...), any case; another value is an option error.
    pub blk_event: String,
    /// Most bytes a compressed trace may decode to per compressed byte (real traces
    /// compress 3 to 30 times; a long run of zeros, thousands of times). Checked once
    /// [`decompress::RATIO_GRACE_BYTES`] have been decoded; `None`: no limit.
    pub max_decompress_ratio: Option<u64>,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            format: None,
            on_error: OnError::Stop,
            reorder_window: 4096,
            volume: VolumeSelect::All,
            volume_stride: None,
            time_unit_ns: None,
            blk_event: String::from("Q"),
            max_decompress_ratio: Some(decompress::DEFAULT_MAX_RATIO),
        }
    }
}

/// Opens a trace file (compressed or not) as a streaming request source.
pub fn open(path: &Path, opts: &TraceOptions) -> Result<Box<dyn RequestSource + Send>, TraceError> {
    Ok(Box::new(open_trace(path, opts)?))
}

/// Like [`open`], but returns the concrete reader (for its counters).
pub fn open_trace(path: &Path, opts: &TraceOptions) -> Result<TraceReader, TraceError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| TraceError::Io {
        file: name.clone(),
        error: e,
    })?;
    reader_from(&name, Box::new(f), opts)
}

/// Reads a trace from any byte stream; `name` is used in messages and for detection hints.
pub fn open_reader(
    name: &str,
    bytes: Box<dyn Read + Send>,
    opts: &TraceOptions,
) -> Result<Box<dyn RequestSource + Send>, TraceError> {
    Ok(Box::new(reader_from(name, bytes, opts)?))
}

/// The concrete reader behind [`open_reader`].
pub fn reader_from(
    name: &str,
    bytes: Box<dyn Read + Send>,
    opts: &TraceOptions,
) -> Result<TraceReader, TraceError> {
    if let Some(u) = opts.time_unit_ns {
        if !(u.is_finite() && u > 0.0) {
            return Err(TraceError::Option(format!(
                "time unit must be > 0 ns, got {u}"
            )));
        }
    }
    if opts.volume_stride == Some(0) {
        return Err(TraceError::Option("volume stride must be > 0".into()));
    }
    let blk_event = formats::blkparse::check_event(&opts.blk_event).map_err(TraceError::Option)?;
    let io = |e| TraceError::Io {
        file: name.to_string(),
        error: e,
    };
    let (compression, r) = decompress::wrap(bytes, opts.max_decompress_ratio).map_err(io)?;
    let mut lines = lines::LineReader::new(r);
    let head = lines
        .peek_lines(detect::DETECT_LINES)
        .map_err(|e| reader::read_error(name, compression, lines.lines_read(), e))?;
    let format = match opts.format {
        Some(f) => f,
        None => {
            detect::detect(name, &head, &blk_event).ok_or_else(|| {
                // A line that nearly fits a format says what is wrong with it: one bad
                // field in a one-line trace left detection with nothing to go on.
                let near = match detect::near_miss(name, &head, &blk_event) {
                    Some((line, f, e)) => {
                        format!("; line {line} has the fields of the {f} format, but field {}: {}", e.field, e.message)
                    }
                    None => String::new(),
                };
                TraceError::Format {
                    file: name.to_string(),
                    message: format!(
                        "cannot detect the trace format from the first {} line{}{near}; use --format ({})",
                        head.len(),
                        if head.len() == 1 { "" } else { "s" },
                        Format::help()
                    ),
                }
            })?
        }
    };
    // The other formats have a fixed, documented unit and their parsers ignore it: say so
    // rather than replay the trace at a speed the user did not ask for.
    if opts.time_unit_ns.is_some() && !format.takes_time_unit() {
        return Err(TraceError::Option(format!(
            "--time-unit applies to ssdsim, mqsim, flashsim and linnos traces only; {name} is in the {format} \
             format, whose time column is always in units of {} ns (use --time-scale to replay it \
             faster or slower)",
            format.default_time_unit_ns()
        )));
    }
    let unit_note = match opts.format {
        None => detect::unit_note(format, &head, &blk_event),
        Some(f) => forced_unit_note(f, &head, &blk_event),
    };
    let cfg = reader::ReaderConfig {
        unit_note,
        name: name.to_string(),
        format,
        compression,
        parser: format.parser(opts.time_unit_ns, &blk_event),
        on_error: opts.on_error,
        volume: opts.volume.clone(),
        stride: opts.volume_stride,
        window: opts.reorder_window,
    };
    Ok(TraceReader::new(cfg, lines))
}

/// A warning when a sector layout was forced (`--format ssdsim|mqsim|flashsim`) on lines
/// whose values look like bytes: the reader multiplies them by 512 (or 4096) as the format
/// says, so a 4 KiB request would become 2 MiB; the byte layout is `linnos`.
fn forced_unit_note(f: Format, head: &[Vec<u8>], blk_event: &str) -> Option<String> {
    if !matches!(f, Format::Ssdsim | Format::Mqsim | Format::Flashsim) {
        return None;
    }
    let u = detect::byte_units(head, blk_event);
    u.is_bytes().then(|| {
        format!(
            "--format {f} reads sizes in {} and offsets in 512 B sectors, but every size in the first {} lines is a multiple of 512 bytes \
             and every offset too: they look like bytes (the LinnOS/Heimdall/FlashNet layout: --format linnos)",
            if f == Format::Flashsim { "4 KiB pages" } else { "512 B sectors" },
            u.lines
        )
    })
}

/// Wraps a source with replay controls; see [`ReplayOptions`].
pub fn replay(
    src: Box<dyn RequestSource + Send>,
    opts: &ReplayOptions,
    logical_capacity_bytes: u64,
    page_size: u64,
) -> Box<dyn RequestSource + Send> {
    Box::new(Replay::new(
        src,
        opts.clone(),
        logical_capacity_bytes,
        page_size,
    ))
}
