//! The streaming trace reader: lines → triage → format parser → volume selection/merge →
//! reorder window → time normalisation → `HostRequest`.
//!
//! Memory is bounded by the reorder window and the number of distinct volumes, never by the
//! trace length. The first request released arrives at t = 0; the original trace start is
//! kept for the summary. What it does not do: replay controls (time scale, loops, wrap;
//! see `replay.rs`).

use super::classify::{classify, LineKind};
use super::decompress::Compression;
use super::error::{FieldError, OnError, TraceError};
use super::format::Format;
use super::lines::LineReader;
use super::record::{LineParser, Parsed, RawRecord};
use super::reorder::Reorder;
use super::VolumeSelect;
use crate::host::{Extent, HostRequest, RequestSource, SourceError};
use crate::units::Fingerprint;
use crate::units::Nanos;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How many skipped line numbers the summary lists (the counts are always complete).
const SAMPLE_LINES: usize = 10;
/// Unparseable lines after binary junk, before the first record and within this many
/// lines are a preamble.
pub const PREAMBLE_LINES: u64 = 64;
/// Distinct unselected volume ids remembered for the "volume X has no requests" message.
const OTHER_IDS: usize = 16;
/// More requests than this on one timestamp mark the trace's clock as coarse.
pub const COARSE_SAME_TIMESTAMP: u64 = 1000;
/// Decompressed bytes read past a malformed line of a compressed trace looking for the
/// corruption that may explain it (gzip and zstd check their data only at the end).
pub const CORRUPTION_LOOKAHEAD: u64 = 256 << 20;
/// Whole-second timestamps with at least this many requests per distinct time on average
/// (and at least `COARSE_SAME_TIMESTAMP` requests in all) also mark it coarse.
pub const COARSE_MEAN_PER_TIME: u64 = 10;

/// Counters a trace read reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadCounters {
    pub lines: u64,
    pub requests: u64,
    /// Lines skipped whatever the policy (blank, header-like, non-text), by reason.
    pub junk: BTreeMap<&'static str, u64>,
    /// Bad records skipped under `OnError::Skip`, by field.
    pub bad: BTreeMap<&'static str, u64>,
    /// Well-formed lines that are not requests (other blkparse events, ...), by reason.
    pub not_request: BTreeMap<&'static str, u64>,
    /// Records recovered from the text after binary bytes.
    pub salvaged: u64,
    pub zero_size: u64,
    pub other_volume: u64,
    /// Requests still out of order after the window, moved up to the previous arrival.
    pub clamped: u64,
    /// First skipped lines: (line number, reason).
    pub sample: Vec<(u64, String)>,
    /// Most requests released with one same timestamp (after clamping).
    pub max_same_timestamp: u64,
    /// Distinct timestamps released.
    pub distinct_timestamps: u64,
    /// Every released timestamp is a whole second on the trace clock.
    pub whole_seconds: bool,
}

pub struct TraceReader {
    name: String,
    format: Format,
    compression: Compression,
    lines: LineReader,
    parser: Box<dyn LineParser>,
    /// The format's fast path for plain lines, if it has one (`LineParser::plain`).
    plain: Option<super::formats::ascii::PlainFive>,
    on_error: OnError,
    volume: VolumeSelect,
    stride: Option<u64>,
    vol_index: HashMap<u64, u64>,
    /// The last selected volume and its index (a look-up in `vol_index` per record cost
    /// more than parsing a field).
    last_volume: Option<(u64, u64)>,
    reorder: Reorder<Held>,
    window: usize,
    base: Option<u64>,
    /// The last released timestamp (0 before the first).
    last: u64,
    eof: bool,
    /// Records parsed so far (before volume filter and reorder).
    parsed: u64,
    failed: Option<SourceError>,
    /// Volumes seen but not selected (the first `OTHER_IDS`), for the empty-input message.
    other_ids: BTreeSet<u64>,
    /// Requests released so far on the current timestamp.
    same_run: u64,
    unit_note: Option<String>,
    pub counters: ReadCounters,
}

/// A record as the reorder window holds it: its time is the window's key, its volume is
/// placed in the merged space already (a smaller item is less to move in and out). Whole
/// words only: with a one-byte operation and an `Option` beside them, the window's output
/// was copied in odd-sized pieces that stalled the reader's loop on store-to-load forwarding.
#[derive(Clone, Copy)]
struct Held {
    offset: u64,
    size: u64,
    /// The content fingerprint when `flags` has `HELD_FP` (else 0).
    fingerprint: u64,
    /// `HELD_WRITE`, `HELD_FP`.
    flags: u64,
}

const HELD_WRITE: u64 = 1;
const HELD_FP: u64 = 2;

impl Held {
    #[inline]
    fn of(r: &RawRecord) -> Held {
        let write = if r.op == crate::host::Op::Write { HELD_WRITE } else { 0 };
        let fp = if r.fingerprint.is_some() { HELD_FP } else { 0 };
        Held { offset: r.offset, size: r.size, fingerprint: r.fingerprint.unwrap_or(0), flags: write | fp }
    }

    #[inline]
    fn op(&self) -> crate::host::Op {
        if self.flags & HELD_WRITE != 0 {
            crate::host::Op::Write
        } else {
            crate::host::Op::Read
        }
    }

    #[inline]
    fn fingerprint(&self) -> Option<crate::units::Fingerprint> {
        (self.flags & HELD_FP != 0).then_some(self.fingerprint)
    }
}

pub struct ReaderConfig {
    /// Detection's warning about the unit of the size/offset columns, if any.
    pub unit_note: Option<String>,
    pub name: String,
    pub format: Format,
    pub compression: Compression,
    pub parser: Box<dyn LineParser>,
    pub on_error: OnError,
    pub volume: VolumeSelect,
    pub stride: Option<u64>,
    pub window: usize,
}

impl TraceReader {
    pub fn new(cfg: ReaderConfig, lines: LineReader) -> TraceReader {
        TraceReader {
            name: cfg.name,
            format: cfg.format,
            compression: cfg.compression,
            lines,
            plain: cfg.parser.plain(),
            parser: cfg.parser,
            on_error: cfg.on_error,
            volume: cfg.volume,
            stride: cfg.stride,
            vol_index: HashMap::new(),
            last_volume: None,
            reorder: Reorder::new(cfg.window),
            window: cfg.window,
            base: None,
            last: 0,
            eof: false,
            parsed: 0,
            failed: None,
            other_ids: BTreeSet::new(),
            same_run: 0,
            unit_note: cfg.unit_note,
            counters: ReadCounters {
                whole_seconds: true,
                ..ReadCounters::default()
            },
        }
    }

    /// A volume id as `--volume` takes it.
    fn show_volume(&self, v: u64) -> String {
        match self.format {
            // The ids these formats build from MAJOR,MINOR.
            Format::Blkparse | Format::Fiu => format!("{}:{}", v >> 20, v & 0xF_FFFF),
            _ => v.to_string(),
        }
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The trace's own timestamp of the first request, in ns on the trace clock.
    pub fn original_start_ns(&self) -> Option<i128> {
        self.base.map(i128::from)
    }

    fn note(&mut self, reason: String) {
        if self.counters.sample.len() < SAMPLE_LINES {
            self.counters.sample.push((self.lines.line_no, reason));
        }
    }

    fn junk(&mut self, reason: &'static str) {
        *self.counters.junk.entry(reason).or_insert(0) += 1;
        self.note(reason.to_string());
    }

    fn error(&self, e: FieldError) -> TraceError {
        TraceError::Parse {
            file: self.name.clone(),
            line: self.lines.line_no,
            field: e.field,
            message: e.message,
        }
    }

    /// The error for a malformed record that stops the read. In a compressed trace, corrupt
    /// data decodes to garbage lines before the decoder's checksum (at the end of the stream)
    /// catches it, so a bad line there is first checked against the rest of the stream: the
    /// corruption, not the line, is then the error to report.
    fn stop_error(&mut self, e: FieldError) -> TraceError {
        if self.compression == Compression::None {
            return self.error(e);
        }
        // A stream that merely ends early (truncated) decodes correctly up to its end, so
        // the line stays the error then.
        match self.lines.drain(CORRUPTION_LOOKAHEAD) {
            Err(io) if io.kind() != std::io::ErrorKind::UnexpectedEof => TraceError::Format {
                file: self.name.clone(),
                message: format!(
                    "compressed ({}) data is corrupt: {io}; line {} does not parse (field {}: {}), most likely damage from it",
                    self.compression.name(),
                    self.lines.line_no,
                    e.field,
                    e.message
                ),
            },
            _ => self.error(e),
        }
    }

    /// Maps a record's volume into the merged space; `None` when the volume is not selected.
    #[inline]
    fn place(&mut self, mut r: RawRecord) -> Result<Option<RawRecord>, FieldError> {
        let index = match self.last_volume {
            // The volume of the record before (usually the trace's only one): already placed.
            Some((v, i)) if v == r.volume => i,
            _ => match self.place_volume(r.volume) {
                Some(i) => i,
                None => return Ok(None),
            },
        };
        if let Some(stride) = self.stride {
            r.offset = index
                .checked_mul(stride)
                .and_then(|b| b.checked_add(r.offset))
                .ok_or_else(|| FieldError::new("offset", "offset + volume stride overflows"))?;
        }
        Ok(Some(r))
    }

    /// The index of a volume in the merged space, noting it; `None` when it is not selected.
    /// (Out of line: most records are of the volume before.)
    #[inline(never)]
    fn place_volume(&mut self, volume: u64) -> Option<u64> {
        let index = match &self.volume {
            VolumeSelect::Only(list) => match list.iter().position(|v| *v == volume) {
                Some(i) => i as u64,
                None => {
                    self.counters.other_volume += 1;
                    if self.other_ids.len() < OTHER_IDS {
                        self.other_ids.insert(volume);
                    }
                    return None;
                }
            },
            VolumeSelect::All => {
                let next = self.vol_index.len() as u64;
                *self.vol_index.entry(volume).or_insert(next)
            }
        };
        if let VolumeSelect::Only(_) = self.volume {
            self.vol_index.entry(volume).or_insert(index);
        }
        self.last_volume = Some((volume, index));
        Some(index)
    }

    /// Reads lines until one yields a record (or the stream ends). Inlined into the loops
    /// that call it, so its set-up is made once per loop, not once per record.
    #[inline(always)]
    fn read_record(&mut self) -> Result<Option<RawRecord>, TraceError> {
        loop {
            let more = self.lines.next_line().map_err(|e| {
                read_error(&self.name, self.compression, self.lines.lines_read(), e)
            })?;
            if !more {
                return Ok(None);
            }
            self.counters.lines += 1;
            if self.lines.overlong {
                self.junk("overlong line");
                continue;
            }
            let (buf, start, end) = self.lines.lend();
            let line = &buf[start..end];
            // A plain line the format reads in its fast path is text (digits, blanks) and a
            // record within the trace clock: straight to the record checks.
            let out = match self.plain.and_then(|p| p.parse(&buf, start, end)) {
                Some(rec) => {
                    self.parsed += 1;
                    self.accept(rec)
                }
                None => self.triage(line),
            };
            self.lines.give_back(buf);
            match out? {
                Some(r) => return Ok(Some(r)),
                None => continue,
            }
        }
    }

    /// A line that is not plain (or of a format without a fast path): classified, parsed,
    /// and what is wrong with it reported.
    #[inline(never)]
    fn triage(&mut self, line: &[u8]) -> Result<Option<RawRecord>, TraceError> {
        let (text, salvage) = match classify(line) {
            LineKind::Blank => {
                *self.counters.junk.entry("blank").or_insert(0) += 1;
                return Ok(None);
            }
            // Headers and comments come before the data. After the first record a line that
            // looks like a header is far more likely a damaged record (a mangled timestamp),
            // so it goes to the parser like any line: an error under `--on-error stop`, a
            // counted bad record under `skip` (blkparse's own summary section parses as a
            // non-request). Only an explicit `#` comment is still skipped there.
            LineKind::HeaderLike if self.parsed == 0 => {
                self.junk("header-like");
                return Ok(None);
            }
            LineKind::HeaderLike if is_comment(line) => {
                self.junk("comment");
                return Ok(None);
            }
            LineKind::HeaderLike => (line, false),
            LineKind::NonText { tail } => (tail, true),
            LineKind::Text => (line, false),
        };
        let parsed = self.parser.parse(text).and_then(check_time);
        let rec = match parsed {
            Ok(Parsed::Record(r)) => {
                self.parsed += 1;
                if salvage {
                    self.counters.salvaged += 1;
                    self.note("non-text prefix skipped, record salvaged".to_string());
                }
                r
            }
            Ok(Parsed::NotRequest(why)) => {
                if salvage {
                    self.junk("non-text");
                } else {
                    *self.counters.not_request.entry(why).or_insert(0) += 1;
                }
                return Ok(None);
            }
            Err(e) => {
                if salvage {
                    self.junk("non-text");
                    return Ok(None);
                }
                // Text between binary junk and the first record near the top of a file is
                // part of a container header (the FIU sample's tar "pax" lines), not a bad
                // record. Without binary junk first, a bad line 1 is an error as usual (so
                // a wrong --format is reported at line 1).
                let after_binary = self.counters.junk.contains_key("non-text");
                if self.parsed == 0 && after_binary && self.lines.line_no <= PREAMBLE_LINES {
                    self.junk("preamble");
                    return Ok(None);
                }
                match self.on_error {
                    OnError::Stop => return Err(self.stop_error(e)),
                    OnError::Skip => {
                        *self.counters.bad.entry(e.field).or_insert(0) += 1;
                        self.note(format!("field {}: {}", e.field, e.message));
                        return Ok(None);
                    }
                }
            }
        };
        self.accept(rec)
    }

    /// A parsed record: skipped and counted when empty, else placed in the merged volumes.
    #[inline(always)]
    fn accept(&mut self, rec: RawRecord) -> Result<Option<RawRecord>, TraceError> {
        if rec.size == 0 {
            self.counters.zero_size += 1;
            return Ok(None);
        }
        match self.place(rec) {
            Ok(r) => Ok(r),
            Err(e) => match self.on_error {
                OnError::Stop => Err(self.error(e)),
                OnError::Skip => {
                    *self.counters.bad.entry(e.field).or_insert(0) += 1;
                    Ok(None)
                }
            },
        }
    }

    /// A record the reorder window released: clamped to the arrival before it if earlier,
    /// counted, and timed from the first one.
    #[inline]
    fn release(&mut self, ts: u64, r: &Held) -> Extent {
        let base = *self.base.get_or_insert(ts);
        let ts = if ts < self.last {
            self.counters.clamped += 1;
            self.last
        } else {
            ts
        };
        if ts == self.last && self.counters.requests > 0 {
            self.same_run += 1;
        } else {
            self.same_run = 1;
            self.counters.distinct_timestamps += 1;
            if self.counters.whole_seconds && ts % 1_000_000_000 != 0 {
                self.counters.whole_seconds = false;
            }
        }
        self.counters.max_same_timestamp = self.counters.max_same_timestamp.max(self.same_run);
        self.last = ts;
        self.counters.requests += 1;
        Extent { arrival: Nanos(ts - base), offset: r.offset, size: r.size, op: r.op() }
    }
}

/// A read error, saying how far the reading got. A compressed stream that ends early is
/// almost always a truncated file (an interrupted download or copy), and the decoders'
/// own words ("incomplete deflate stream", "incomplete frame") do not say so.
pub fn read_error(
    name: &str,
    compression: Compression,
    lines_read: u64,
    e: std::io::Error,
) -> TraceError {
    let bomb = e.get_ref().is_some_and(|i| i.is::<super::decompress::RatioExceeded>());
    let what = match (compression, e.kind()) {
        _ if bomb => e.to_string(),
        (Compression::None, _) => {
            return TraceError::Io {
                file: name.to_string(),
                error: e,
            }
        }
        (c, std::io::ErrorKind::UnexpectedEof) => format!(
            "compressed ({}) stream ends early (truncated file?)",
            c.name()
        ),
        (c, _) => format!("compressed ({}) data is corrupt: {e}", c.name()),
    };
    let at = if lines_read == 0 {
        "before the first complete line".to_string()
    } else {
        format!("after line {lines_read}")
    };
    TraceError::Format {
        file: name.to_string(),
        message: format!("{at}: {what}"),
    }
}

/// Why a trace's arrival times are too coarse to tell its requests apart, if they are:
/// many requests on one timestamp (1-second traces such as Tencent CBS put tens of thousands
/// on each), so the simulator submits them as one burst.
pub fn coarse_timestamps(c: &ReadCounters) -> Option<String> {
    let whole = c.whole_seconds
        && c.requests >= COARSE_SAME_TIMESTAMP
        && c.requests >= COARSE_MEAN_PER_TIME * c.distinct_timestamps;
    if c.max_same_timestamp <= COARSE_SAME_TIMESTAMP && !whole {
        return None;
    }
    let mut s = format!(
        "up to {} requests share one timestamp ({} requests on {} distinct times",
        c.max_same_timestamp, c.requests, c.distinct_timestamps
    );
    if c.whole_seconds {
        s.push_str(", all whole seconds");
    }
    s.push(')');
    Some(s)
}

/// Latest timestamp a trace may state: 2^64 - 1 ns (584 years) on its own clock. Beyond it
/// the arrival saturated silently to the same instant in some formats.
pub const MAX_TRACE_TIME_NS: i128 = u64::MAX as i128;

/// A record whose timestamp does not fit the trace clock is a bad field like any other.
fn check_time(p: Parsed) -> Result<Parsed, FieldError> {
    match &p {
        Parsed::Record(r) if r.ts_ns > MAX_TRACE_TIME_NS || r.ts_ns < 0 => Err(FieldError::new(
            "time",
            format!("{} ns is beyond 2^64 ns (584 years), the latest time a trace clock may state (a wrong --time-unit or a corrupt field?)", r.ts_ns),
        )),
        _ => Ok(p),
    }
}

/// A `#` comment line (after optional leading blanks).
fn is_comment(line: &[u8]) -> bool {
    line.iter().find(|b| **b != b' ' && **b != b'\t') == Some(&b'#')
}

impl TraceReader {
    /// The next record the reorder window releases, with its time.
    #[inline(always)]
    fn next_held(&mut self) -> Result<Option<(u64, Held)>, SourceError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        while !self.eof {
            match self.read_record() {
                Ok(Some(r)) => {
                    // Every record's time is within the trace clock (0..=2^64-1 ns) here:
                    // the plain path reads it as a u64, `check_time` checks the others.
                    let ts = u64::try_from(r.ts_ns).unwrap_or(u64::MAX);
                    let held = Held::of(&r);
                    if let Some(out) = self.reorder.push(ts, held) {
                        return Ok(Some(out));
                    }
                }
                Ok(None) => self.eof = true,
                Err(e) => {
                    let se = e.to_source_error();
                    self.failed = Some(se.clone());
                    return Err(se);
                }
            }
        }
        Ok(self.reorder.pop())
    }
}

/// The fingerprints of a record's blocks: one MD5 per line covers the first 4 KiB block;
/// further blocks are unknown (0).
fn content(fp: crate::units::Fingerprint, size: u64, into: &mut Vec<crate::units::Fingerprint>) {
    let blocks = size.div_ceil(4096).clamp(1, 1 << 16) as usize;
    into.clear();
    into.resize(blocks, 0);
    into[0] = fp;
}

impl RequestSource for TraceReader {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        let Some((ts, held)) = self.next_held()? else { return Ok(None) };
        let e = self.release(ts, &held);
        let mut req = HostRequest::new(e.arrival, e.offset, e.size, e.op);
        if let Some(fp) = held.fingerprint() {
            let mut v = Vec::new();
            content(fp, held.size, &mut v);
            req.fingerprints = v.into();
        }
        Ok(Some(req))
    }

    fn for_each_request(&mut self, f: &mut dyn FnMut(&mut Extent, &[Fingerprint]) -> bool) -> Result<(), SourceError> {
        let mut fps = Vec::new();
        while let Some((ts, held)) = self.next_held()? {
            let mut e = self.release(ts, &held);
            let fps: &[Fingerprint] = match held.fingerprint() {
                None => &[],
                Some(fp) => {
                    content(fp, held.size, &mut fps);
                    &fps
                }
            };
            if !f(&mut e, fps) {
                break;
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("{} ({} trace)", self.name, self.format)
    }

    fn empty_reason(&self) -> Option<String> {
        let c = &self.counters;
        if c.requests > 0 {
            return None;
        }
        let show = |v: u64| self.show_volume(v);
        if c.lines == 0 {
            return Some("the trace is empty (0 lines)".to_string());
        }
        if let VolumeSelect::Only(list) = &self.volume {
            if c.other_volume > 0 {
                let want: Vec<String> = list.iter().map(|v| show(*v)).collect();
                let mut seen: Vec<String> = self.other_ids.iter().map(|v| show(*v)).collect();
                if self.other_ids.len() == OTHER_IDS {
                    seen.push("...".to_string());
                }
                let (noun, verb) = if list.len() == 1 { ("volume", "has") } else { ("volumes", "have") };
                return Some(format!(
                    "{noun} {} {verb} no requests; volumes present: {}",
                    want.join(", "),
                    seen.join(", ")
                ));
            }
        }
        if c.zero_size > 0 && self.parsed == c.zero_size {
            return Some(format!("no requests: all {} records have size 0", c.zero_size));
        }
        Some(format!(
            "no requests: every line was skipped ({} line{}; the counts below say why)",
            c.lines,
            if c.lines == 1 { "" } else { "s" }
        ))
    }

    fn summary(&self) -> Vec<(String, String)> {
        let c = &self.counters;
        let mut v = vec![
            ("trace".to_string(), self.name.clone()),
            ("format".to_string(), self.format.to_string()),
            (
                "compression".to_string(),
                self.compression.name().to_string(),
            ),
            ("lines".to_string(), c.lines.to_string()),
            ("requests".to_string(), c.requests.to_string()),
            (
                "original_start_ns".to_string(),
                self.base.map_or("-".to_string(), |b| b.to_string()),
            ),
            ("reorder_window".to_string(), self.window.to_string()),
            ("clamped_out_of_order".to_string(), c.clamped.to_string()),
            ("zero_size_skipped".to_string(), c.zero_size.to_string()),
            ("salvaged_after_binary".to_string(), c.salvaged.to_string()),
        ];
        for (k, n) in &c.junk {
            v.push((format!("skipped_{}", k.replace(' ', "_")), n.to_string()));
        }
        for (k, n) in &c.bad {
            v.push((format!("skipped_bad_{k}"), n.to_string()));
        }
        for (k, n) in &c.not_request {
            v.push((
                format!("not_request_{}", k.replace(' ', "_")),
                n.to_string(),
            ));
        }
        let volumes = match (&self.volume, self.stride) {
            (VolumeSelect::All, None) => "all, merged as-is (address spaces overlap)".to_string(),
            (VolumeSelect::All, Some(s)) => format!("all, volume i at offset i x {s}"),
            (VolumeSelect::Only(l), None) => format!("only {l:?}, merged as-is"),
            (VolumeSelect::Only(l), Some(s)) => format!("only {l:?}, volume i at offset i x {s}"),
        };
        v.push(("volumes".to_string(), volumes));
        v.push(("volumes_seen".to_string(), self.vol_index.len().to_string()));
        v.push((
            "other_volume_skipped".to_string(),
            c.other_volume.to_string(),
        ));
        // A listed volume that never appeared is most likely a typo: the run replays the
        // others only, so the CLI warns (with none at all, `empty_reason` says so instead).
        if let VolumeSelect::Only(list) = &self.volume {
            let missing: Vec<String> = list.iter().filter(|v| !self.vol_index.contains_key(v)).map(|v| self.show_volume(*v)).collect();
            if !missing.is_empty() && c.requests > 0 {
                v.push(("volumes_without_requests".to_string(), missing.join(", ")));
            }
        }
        if !c.sample.is_empty() {
            let s: Vec<String> = c.sample.iter().map(|(l, r)| format!("line {l} ({r})")).collect();
            v.push(("skipped_lines".to_string(), s.join("; ")));
        }
        if let Some(n) = &self.unit_note {
            v.push(("format_unit_warning".to_string(), n.clone()));
        }
        // Only when it applies, so the notes of ordinary traces do not change.
        if let Some(why) = coarse_timestamps(c) {
            v.push(("coarse_timestamps".to_string(), why));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{reader_from, TraceOptions};
    use std::io::Write;

    /// Drains a trace; the first error, if any.
    fn first_error(name: &str, bytes: Vec<u8>) -> Option<String> {
        let mut r = match reader_from(name, Box::new(std::io::Cursor::new(bytes)), &TraceOptions::default()) {
            Ok(r) => r,
            Err(e) => return Some(e.to_string()),
        };
        loop {
            match r.next_request() {
                Ok(Some(_)) => {}
                Ok(None) => return None,
                Err(e) => return Some(e.to_string()),
            }
        }
    }

    /// Handed over in bulk (`for_each_request`) or one by one, a trace gives the same
    /// requests, fingerprints and notes: content (FIU), lines out of order, bad and blank
    /// lines skipped, a stop part way with the rest read one by one.
    #[test]
    fn bulk_and_one_by_one_reads_agree() {
        let mut text = String::new();
        for i in 0..300u64 {
            let t = 1_000_000 + i * 1000 - (i % 7) * 2500;
            let op = if i % 3 == 0 { 'W' } else { 'R' };
            text.push_str(&format!("{t} 2 p {} {} {op} 6 0 {:032x}\n", i * 8, 8 + (i % 5) * 8, i * 977));
            if i % 50 == 0 {
                text.push_str("\nnot a line\n");
            }
        }
        // A window of 2 sorts some of the disorder and clamps the rest.
        let opts = TraceOptions { on_error: OnError::Skip, reorder_window: 2, ..TraceOptions::default() };
        let open = || reader_from("t.fiu", Box::new(std::io::Cursor::new(text.clone().into_bytes())), &opts).unwrap();
        let mut one = open();
        let mut want = Vec::new();
        while let Some(q) = one.next_request().unwrap() {
            want.push((Extent::of(&q), q.fingerprints.to_vec()));
        }
        assert_eq!(want.len(), 300);
        assert!(want.iter().all(|(_, f)| !f.is_empty()), "{:?}", one.counters);
        let c = &one.counters;
        assert_eq!((c.bad["line"], c.junk["blank"], c.clamped > 0), (6, 6, true), "{c:?}");
        for stop in [usize::MAX, 1, 123] {
            let mut r = open();
            let got = crate::host::request::bulk_then_one_by_one(&mut r, stop);
            assert_eq!(got, want, "stop {stop}");
            assert_eq!(r.summary(), one.summary(), "stop {stop}");
        }
    }

    /// A timestamp of 2^64 ns or more stopped no format but msr: the arrival saturated to
    /// u64::MAX. Now it is the line's error in every format, naming line and field.
    #[test]
    fn timestamps_past_2_64_ns_are_an_error_naming_the_line() {
        for (name, text) in [
            ("t.ascii", "0 0 0 8 1\n18446744073709551616 0 8 8 1\n"),
            ("t.mqsim", "0 0 0 8 1\n18446744073709551616 0 8 8 1\n"),
            ("t.fiu", "1 2 p 8 8 R 6 0 88b93b628d84082186026d9da044f173\n18446744073709551616 2 p 8 8 R 6 0 88b93b628d84082186026d9da044f173\n"),
            ("t.blk", "8,16 5 2 0.000001850 18615 Q R 1444645666 + 256 [java]\n8,16 5 2 18446744073.709551616 18615 Q R 1444645666 + 256 [java]\n"),
            ("t.csv", "128166385295514663,hm,0,Write,9056014336,2048,2833\n184467440737095517,hm,0,Write,9056014336,2048,2833\n"),
        ] {
            let e = first_error(name, text.as_bytes().to_vec()).unwrap_or_else(|| panic!("{name}: no error"));
            assert!(e.starts_with(&format!("{name}:2: field ")) && e.contains("2^64"), "{name}: {e}");
        }
        // 2^64 - 1 itself is accepted.
        assert_eq!(first_error("t.ascii", b"0 0 0 8 1\n18446744073709551615 0 8 8 1\n".to_vec()), None);
    }

    /// A corrupt gzip stream decodes to garbage before its checksum (at the end) catches it:
    /// the stop on the garbage line reports the corruption (it said only "corrupt.csv.gz:27:
    /// field line: expected 7 fields ..., found 8"). A line that is bad in a sound stream is
    /// still that line's error.
    #[test]
    fn a_bad_line_in_a_corrupt_compressed_stream_reports_the_corruption() {
        // Lines 1-2, then enough good lines that the checksum is read well after line 2 (the
        // reader buffers 256 KiB of decoded text).
        let mut text = String::from(
            "128166385295514663,hm,0,Write,9056014336,4096,2833\n\
             128166385295514664,hm,0,Wri981rite,1023466656,4096,9872560,959\n",
        );
        for i in 0..10_000u64 {
            text.push_str(&format!("{},hm,0,Read,9056014336,4096,2833\n", 128166385295514665 + i));
        }
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        let sound = e.finish().unwrap();
        assert_eq!(
            first_error("t.csv.gz", sound.clone()).unwrap(),
            "t.csv.gz:2: field line: expected 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found 8"
        );
        // The gzip trailer is CRC-32 then length: a wrong CRC is what corruption looks like.
        let mut corrupt = sound;
        let crc = corrupt.len() - 8;
        corrupt[crc] ^= 0xff;
        assert_eq!(
            first_error("t.csv.gz", corrupt).unwrap(),
            "t.csv.gz: compressed (gzip) data is corrupt: corrupt gzip stream does not have a matching checksum; \
             line 2 does not parse (field line: expected 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found 8), \
             most likely damage from it"
        );
    }
}
