//! Trace statistics (`flashtail trace stats`): mix, sizes, timing, idleness, footprint,
//! overwrites and duplicate content, computed in one streaming pass.
//!
//! Memory grows with the footprint (12 bytes per distinct 64 KiB chunk, in a compact
//! open-addressing map) up to [`MAX_TRACKED_CHUNKS`] chunks (128 GiB of distinct pages,
//! about 50 MB), then stays put: later new chunks are not counted and the footprint is
//! reported as a lower bound. It grows with the number of distinct sizes too, never with the
//! request count.
//! Inter-arrival percentiles come from a log-bucketed histogram (32 buckets per power of
//! two: within 3 %); size percentiles are exact. What it does not do: per-volume breakdowns.

use crate::host::{Op, RequestSource, SourceError};
use serde::Serialize;
use std::collections::HashMap;

/// Page granularity of footprint, overwrite and dedup figures.
pub const STATS_PAGE: u64 = 4096;
/// Pages of one request counted toward footprint and overwrites (4 GiB); real requests are
/// far smaller, this only bounds the work a corrupt size can cause.
pub const MAX_PAGES_PER_REQUEST: u64 = 1 << 20;
/// Distinct 64 KiB chunks the footprint map tracks (2^21: 128 GiB). 2,000 requests of 4 GiB
/// each at a new offset (8 TiB) took more than 1.2 GB and climbing.
pub const MAX_TRACKED_CHUNKS: usize = 1 << 21;

/// A set of `u64` with linear probing and a multiplicative hash: ~8-16 bytes per key.
pub struct U64Set {
    slots: Vec<u64>,
    len: usize,
    has_zero: bool,
}

impl Default for U64Set {
    fn default() -> Self {
        U64Set {
            slots: vec![0; 1024],
            len: 0,
            has_zero: false,
        }
    }
}

impl U64Set {
    #[inline]
    fn slot(&self, k: u64) -> usize {
        // Fibonacci hashing; the table size is a power of two.
        let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// Inserts `k`; returns true when it was not present.
    pub fn insert(&mut self, k: u64) -> bool {
        if k == 0 {
            let fresh = !self.has_zero;
            self.has_zero = true;
            return fresh;
        }
        if (self.len + 1) * 10 > self.slots.len() * 7 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(k);
        loop {
            let s = self.slots[i];
            if s == k {
                return false;
            }
            if s == 0 {
                self.slots[i] = k;
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bigger = vec![0; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        self.len = 0;
        for k in old.into_iter().filter(|k| *k != 0) {
            self.insert(k);
        }
    }

    pub fn len(&self) -> usize {
        self.len + usize::from(self.has_zero)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Pages touched and written, grouped in chunks of 16 pages (64 KiB) per hash slot: one
/// request usually covers consecutive pages, so it costs one or two slot lookups instead of
/// one per page. Slot bits: low 16 = touched, high 16 = written.
pub struct PageMap {
    keys: Vec<u64>,
    bits: Vec<u32>,
    used: usize,
    /// Distinct pages touched (read or written).
    pub touched: u64,
    /// A chunk was left untracked ([`MAX_TRACKED_CHUNKS`] reached): `touched` is a lower bound.
    pub capped: bool,
}

impl Default for PageMap {
    fn default() -> Self {
        PageMap {
            keys: vec![0; 1024],
            bits: vec![0; 1024],
            used: 0,
            touched: 0,
            capped: false,
        }
    }
}

impl PageMap {
    /// The slot of `chunk`, inserted if new; `None` for a new chunk past the cap.
    fn slot_of(&mut self, chunk: u64) -> Option<usize> {
        // Stored keys are chunk + 1 so that 0 marks an empty slot.
        let k = chunk + 1;
        if (self.used + 1) * 10 > self.keys.len() * 7 && self.used < MAX_TRACKED_CHUNKS {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let shift = 64 - self.keys.len().trailing_zeros();
        let mut i = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize;
        loop {
            let s = self.keys[i];
            if s == k {
                return Some(i);
            }
            if s == 0 {
                if self.used >= MAX_TRACKED_CHUNKS {
                    return None;
                }
                self.keys[i] = k;
                self.used += 1;
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let n = self.keys.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![0; n]);
        let bits = std::mem::replace(&mut self.bits, vec![0; n]);
        self.used = 0;
        for (k, b) in keys.into_iter().zip(bits).filter(|(k, _)| *k != 0) {
            if let Some(i) = self.slot_of(k - 1) {
                self.bits[i] = b;
            }
        }
    }

    /// Marks pages `p0..p1`; returns how many of them had been written before (when `write`).
    pub fn mark(&mut self, p0: u64, p1: u64, write: bool) -> u64 {
        let mut overwrites = 0;
        let mut c = p0 >> 4;
        while p0 < p1 && c <= (p1 - 1) >> 4 {
            let base = c << 4;
            let lo = p0.max(base) - base;
            let hi = p1.min(base + 16) - base;
            let m: u32 = ((1u32 << hi) - 1) & !((1u32 << lo) - 1);
            let Some(i) = self.slot_of(c) else {
                self.capped = true;
                c += 1;
                continue;
            };
            let b = self.bits[i];
            self.touched += u64::from((m & !b & 0xFFFF).count_ones());
            if write {
                overwrites += u64::from((m & (b >> 16)).count_ones());
                self.bits[i] = b | m | (m << 16);
            } else {
                self.bits[i] = b | m;
            }
            c += 1;
        }
        overwrites
    }
}

/// Log-bucketed histogram of nanosecond gaps.
struct LogHist {
    counts: Vec<u64>,
}

impl LogHist {
    fn new() -> LogHist {
        LogHist {
            counts: vec![0; 64 + 58 * 32],
        }
    }
    fn index(v: u64) -> usize {
        if v < 64 {
            return v as usize;
        }
        let e = 63 - v.leading_zeros() as usize;
        64 + (e - 6) * 32 + ((v >> (e - 5)) & 31) as usize
    }
    /// Midpoint of bucket `i`.
    fn value(i: usize) -> u64 {
        if i < 64 {
            return i as u64;
        }
        let e = (i - 64) / 32 + 6;
        let sub = ((i - 64) % 32) as u64;
        let lo = (32 + sub) << (e - 5);
        lo + (1u64 << (e - 5)) / 2
    }
    fn add(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
    }
    fn percentile(&self, p: f64) -> u64 {
        let n: u64 = self.counts.iter().sum();
        if n == 0 {
            return 0;
        }
        let rank = ((p * n as f64).ceil() as u64).clamp(1, n);
        let mut cum = 0;
        for (i, c) in self.counts.iter().enumerate() {
            cum += c;
            if cum >= rank {
                return Self::value(i);
            }
        }
        0
    }
}

/// Exact nearest-rank percentile over a value → count map.
fn exact_percentile(sorted: &[(u64, u64)], n: u64, p: f64) -> u64 {
    let rank = ((p * n as f64).ceil() as u64).clamp(1, n.max(1));
    let mut cum = 0;
    for (v, c) in sorted {
        cum += c;
        if cum >= rank {
            return *v;
        }
    }
    0
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub size_mean_bytes: f64,
    pub size_p50_bytes: u64,
    pub size_p90_bytes: u64,
    pub size_p99_bytes: u64,
    pub size_max_bytes: u64,
    /// Most common sizes: (bytes, share of requests), most common first.
    pub common_sizes: Vec<(u64, f64)>,
    pub span_ns: u64,
    pub arrival_rate_per_s: f64,
    pub interarrival_mean_ns: f64,
    pub interarrival_p50_ns: u64,
    pub interarrival_p90_ns: u64,
    pub interarrival_p99_ns: u64,
    /// Share of the span spent in gaps longer than 1 ms, 10 ms, 100 ms.
    pub idle_share_gt_1ms: f64,
    pub idle_share_gt_10ms: f64,
    pub idle_share_gt_100ms: f64,
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    /// The footprint map reached [`MAX_TRACKED_CHUNKS`]: the footprint is a lower bound.
    pub footprint_capped: bool,
    /// Requests larger than [`MAX_PAGES_PER_REQUEST`] pages (4 GiB), of which only the
    /// first 4 GiB count toward footprint and overwrites.
    pub requests_over_4gib: u64,
    pub pages_written: u64,
    pub overwrite_ratio: f64,
    /// Written 4 KiB blocks with a known fingerprint, and the share seen before.
    pub fingerprinted_blocks_written: u64,
    pub duplicate_content_rate: Option<f64>,
}

/// Reads `src` to the end and computes its statistics.
pub fn collect(src: &mut dyn RequestSource) -> Result<TraceStats, SourceError> {
    let mut s = TraceStats {
        requests: 0,
        reads: 0,
        writes: 0,
        read_bytes: 0,
        write_bytes: 0,
        size_mean_bytes: 0.0,
        size_p50_bytes: 0,
        size_p90_bytes: 0,
        size_p99_bytes: 0,
        size_max_bytes: 0,
        common_sizes: Vec::new(),
        span_ns: 0,
        arrival_rate_per_s: 0.0,
        interarrival_mean_ns: 0.0,
        interarrival_p50_ns: 0,
        interarrival_p90_ns: 0,
        interarrival_p99_ns: 0,
        idle_share_gt_1ms: 0.0,
        idle_share_gt_10ms: 0.0,
        idle_share_gt_100ms: 0.0,
        footprint_pages: 0,
        footprint_bytes: 0,
        footprint_capped: false,
        requests_over_4gib: 0,
        pages_written: 0,
        overwrite_ratio: 0.0,
        fingerprinted_blocks_written: 0,
        duplicate_content_rate: None,
    };
    let mut sizes: HashMap<u64, u64> = HashMap::new();
    let mut gaps = LogHist::new();
    let mut idle = [0u128; 3];
    let mut first: Option<u64> = None;
    let mut prev = 0u64;
    let mut gap_sum = 0u128;
    let mut pages = PageMap::default();
    let mut overwrites = 0u64;
    let mut fps = U64Set::default();
    let mut dups = 0u64;
    let mut size_sum = 0u128;
    while let Some(r) = src.next_request()? {
        s.requests += 1;
        size_sum += u128::from(r.size);
        *sizes.entry(r.size).or_insert(0) += 1;
        let t = r.arrival.0;
        if first.is_some() {
            let g = t.saturating_sub(prev);
            gaps.add(g);
            gap_sum += u128::from(g);
            for (k, th) in [1_000_000u64, 10_000_000, 100_000_000].iter().enumerate() {
                if g > *th {
                    idle[k] += u128::from(g);
                }
            }
        } else {
            first = Some(t);
        }
        prev = prev.max(t);
        let p0 = r.offset / STATS_PAGE;
        // A corrupt multi-terabyte size must not stall the pass: count at most 4 GiB of it.
        let end = r.offset.saturating_add(r.size).div_ceil(STATS_PAGE);
        let p1 = end.min(p0 + MAX_PAGES_PER_REQUEST);
        s.requests_over_4gib += u64::from(end > p1);
        match r.op {
            Op::Read => {
                s.reads += 1;
                s.read_bytes = s.read_bytes.saturating_add(r.size);
                pages.mark(p0, p1, false);
            }
            Op::Write => {
                s.writes += 1;
                s.write_bytes = s.write_bytes.saturating_add(r.size);
                s.pages_written += p1 - p0;
                overwrites += pages.mark(p0, p1, true);
                for fp in r.fingerprints.iter().filter(|f| **f != 0) {
                    s.fingerprinted_blocks_written += 1;
                    if !fps.insert(*fp) {
                        dups += 1;
                    }
                }
            }
        }
    }
    let n = s.requests;
    if n == 0 {
        return Ok(s);
    }
    let mut sorted: Vec<(u64, u64)> = sizes.into_iter().collect();
    sorted.sort_unstable();
    s.size_mean_bytes = size_sum as f64 / n as f64;
    s.size_p50_bytes = exact_percentile(&sorted, n, 0.50);
    s.size_p90_bytes = exact_percentile(&sorted, n, 0.90);
    s.size_p99_bytes = exact_percentile(&sorted, n, 0.99);
    s.size_max_bytes = sorted.last().map_or(0, |x| x.0);
    let mut by_count = sorted.clone();
    by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    s.common_sizes = by_count
        .iter()
        .take(5)
        .map(|(v, c)| (*v, *c as f64 / n as f64))
        .collect();
    s.span_ns = prev - first.unwrap_or(0);
    if s.span_ns > 0 {
        s.arrival_rate_per_s = n as f64 / (s.span_ns as f64 / 1e9);
        let span = s.span_ns as f64;
        s.idle_share_gt_1ms = idle[0] as f64 / span;
        s.idle_share_gt_10ms = idle[1] as f64 / span;
        s.idle_share_gt_100ms = idle[2] as f64 / span;
    }
    if n > 1 {
        s.interarrival_mean_ns = gap_sum as f64 / (n - 1) as f64;
        s.interarrival_p50_ns = gaps.percentile(0.50);
        s.interarrival_p90_ns = gaps.percentile(0.90);
        s.interarrival_p99_ns = gaps.percentile(0.99);
    }
    s.footprint_pages = pages.touched;
    s.footprint_bytes = s.footprint_pages * STATS_PAGE;
    s.footprint_capped = pages.capped;
    if s.pages_written > 0 {
        s.overwrite_ratio = overwrites as f64 / s.pages_written as f64;
    }
    if s.fingerprinted_blocks_written > 0 {
        s.duplicate_content_rate = Some(dups as f64 / s.fingerprinted_blocks_written as f64);
    }
    Ok(s)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn dur(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

impl TraceStats {
    /// A human-readable report.
    pub fn to_text(&self) -> String {
        let n = self.requests.max(1) as f64;
        let mut o = String::new();
        let mut line = |k: &str, v: String| o.push_str(&format!("{k:<22} {v}\n"));
        line("requests", self.requests.to_string());
        line(
            "reads",
            format!(
                "{} ({}), {}",
                self.reads,
                pct(self.reads as f64 / n),
                bytes(self.read_bytes)
            ),
        );
        line(
            "writes",
            format!(
                "{} ({}), {}",
                self.writes,
                pct(self.writes as f64 / n),
                bytes(self.write_bytes)
            ),
        );
        line(
            "size p50/p90/p99/max",
            format!(
                "{} / {} / {} / {} (mean {})",
                bytes(self.size_p50_bytes),
                bytes(self.size_p90_bytes),
                bytes(self.size_p99_bytes),
                bytes(self.size_max_bytes),
                bytes(self.size_mean_bytes.round() as u64)
            ),
        );
        let common: Vec<String> = self
            .common_sizes
            .iter()
            .map(|(b, s)| format!("{} {}", bytes(*b), pct(*s)))
            .collect();
        line("common sizes", common.join(", "));
        line("span", dur(self.span_ns as f64));
        line(
            "arrival rate",
            format!("{:.1} req/s", self.arrival_rate_per_s),
        );
        line(
            "inter-arrival",
            format!(
                "p50 {} p90 {} p99 {} mean {}",
                dur(self.interarrival_p50_ns as f64),
                dur(self.interarrival_p90_ns as f64),
                dur(self.interarrival_p99_ns as f64),
                dur(self.interarrival_mean_ns)
            ),
        );
        line(
            "idle share",
            format!(
                ">1ms {}  >10ms {}  >100ms {}",
                pct(self.idle_share_gt_1ms),
                pct(self.idle_share_gt_10ms),
                pct(self.idle_share_gt_100ms)
            ),
        );
        line(
            "footprint",
            format!(
                "{}{} pages ({}){}",
                if self.footprint_capped { "at least " } else { "" },
                self.footprint_pages,
                bytes(self.footprint_bytes),
                if self.footprint_capped { " (distinct pages tracked up to 128 GiB; the rest not counted)" } else { "" }
            ),
        );
        if self.requests_over_4gib > 0 {
            line(
                "over 4 GiB",
                format!("{} requests larger than 4 GiB: only their first 4 GiB count in footprint and overwrites", self.requests_over_4gib),
            );
        }
        line(
            "overwrite ratio",
            format!(
                "{} of {} written pages",
                pct(self.overwrite_ratio),
                self.pages_written
            ),
        );
        line(
            "duplicate content",
            match self.duplicate_content_rate {
                Some(r) => format!(
                    "{} of {} written blocks",
                    pct(r),
                    self.fingerprinted_blocks_written
                ),
                None => "n/a (no fingerprints)".to_string(),
            },
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{HostRequest, VecSource};
    use crate::units::Nanos;

    #[test]
    fn u64set_counts_distinct() {
        let mut s = U64Set::default();
        for k in 0..10_000u64 {
            assert!(s.insert(k * 7));
        }
        assert!(!s.insert(0) && !s.insert(70));
        assert_eq!(s.len(), 10_000);
    }

    #[test]
    fn pagemap_counts_pages_across_chunks() {
        let mut m = PageMap::default();
        assert_eq!(m.mark(10, 40, true), 0); // pages 10..40 span three chunks
        assert_eq!(m.touched, 30);
        assert_eq!(m.mark(0, 12, false), 0);
        assert_eq!(m.touched, 40);
        assert_eq!(m.mark(5, 20, true), 10); // 10..20 were written before
        assert_eq!(m.mark(1 << 40, (1 << 40) + 1, true), 0);
        for c in 0..5_000u64 {
            m.mark(c * 1000, c * 1000 + 3, false);
        }
        assert_eq!(m.touched, 41 + 4_999 * 3); // c = 0 overlaps pages 0..3
    }

    /// 2,000 requests writing 4 GiB each at a new offset took more than 1.2 GB: the map now
    /// stops at MAX_TRACKED_CHUNKS (the footprint a lower bound, said so), and requests over
    /// the 4 GiB per-request cap are counted.
    #[test]
    fn footprint_memory_is_bounded_and_the_caps_reported() {
        let big = (4u64 << 30) + 4096;
        let reqs: Vec<HostRequest> = (0..200u64).map(|i| HostRequest::new(Nanos(i), i * (8 << 30), big, Op::Write)).collect();
        let mut m = PageMap::default();
        for r in &reqs {
            let p0 = r.offset / STATS_PAGE;
            m.mark(p0, p0 + MAX_PAGES_PER_REQUEST, true);
        }
        assert!(m.capped && m.keys.len() <= 2 * MAX_TRACKED_CHUNKS, "{}", m.keys.len());
        assert_eq!(m.touched, MAX_TRACKED_CHUNKS as u64 * 16);
        let s = collect(&mut VecSource::new(reqs)).unwrap();
        assert!(s.footprint_capped);
        assert_eq!((s.requests_over_4gib, s.footprint_pages), (200, MAX_TRACKED_CHUNKS as u64 * 16));
        let text = s.to_text();
        assert!(text.contains("at least 33554432 pages") && text.contains("200 requests larger than 4 GiB"), "{text}");
    }

    #[test]
    fn histogram_is_within_3_percent() {
        for v in [1u64, 63, 64, 1000, 123_456, 9_876_543_210] {
            let got = LogHist::value(LogHist::index(v)) as f64;
            assert!(
                (got - v as f64).abs() / v as f64 <= 1.0 / 32.0,
                "{v} -> {got}"
            );
        }
    }

    #[test]
    fn exact_figures_on_a_tiny_trace() {
        let w = |t: u64, off: u64, fp: Vec<u64>| {
            let mut r = HostRequest::new(Nanos(t), off, 4096, Op::Write);
            r.fingerprints = fp.into();
            r
        };
        let reqs = vec![
            w(0, 0, vec![5]),
            w(1_000_000, 4096, vec![5]),
            HostRequest::new(Nanos(3_000_000), 0, 8192, Op::Read),
            w(203_000_000, 0, vec![6]),
        ];
        let s = collect(&mut VecSource::new(reqs)).unwrap();
        assert_eq!((s.requests, s.reads, s.writes), (4, 1, 3));
        assert_eq!((s.read_bytes, s.write_bytes), (8192, 12288));
        assert_eq!((s.size_p50_bytes, s.size_max_bytes), (4096, 8192));
        assert_eq!(s.span_ns, 203_000_000);
        assert_eq!((s.footprint_pages, s.pages_written), (2, 3));
        assert!((s.overwrite_ratio - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.duplicate_content_rate, Some(1.0 / 3.0));
        // Gaps 1 ms, 2 ms, 200 ms: > 1 ms covers 202 ms, > 100 ms covers 200 ms.
        assert!((s.idle_share_gt_1ms - 202.0 / 203.0).abs() < 1e-12);
        assert!((s.idle_share_gt_100ms - 200.0 / 203.0).abs() < 1e-12);
    }
}
