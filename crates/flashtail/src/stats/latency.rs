//! Latency recording with exact percentiles.
//!
//! Two modes ([`LatencyMode`]):
//! - `Exact` (default): every latency is kept (8 bytes a request) and sorted once at the end,
//!   so every percentile is exact (nearest-rank: the value at rank ⌈q·n⌉). A 10M-request run
//!   keeps 80 MB of samples.
//! - `Tail`: bounded memory for very long runs. The first 2^18 samples are kept as in
//!   `Exact` (a shorter run is reported exactly); then a log-linear histogram of every sample
//!   (1024 buckets per power of two: a reported body percentile is at most 2^-10 ≈ 0.1 %
//!   below the true value) plus the largest ~1.5 % of samples kept exactly, so p99 and
//!   everything above it, the maximum, the minimum and the mean stay exact — unless the
//!   stream's upper quantiles later fall well below where they stood at the switch (samples
//!   below the kept top's floor are only in the histogram). Memory: ≤ 2 MiB per class before
//!   the switch, then ≤ 450 KB of histogram per class plus 0.12 bytes a request. The summary
//!   says from which quantile on its values are exact (`exact_from_quantile`).
//!
//! Both modes answer the same rank queries (`Sorted`), so summaries, CDF points and the
//! reads + writes row ([`finish_three`], computed by rank from the two classes without a
//! merged copy) come from one code path.

use super::report::{Cdf, LatencySummary};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// How latencies are kept (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LatencyMode {
    #[default]
    Exact,
    Tail,
}

impl std::str::FromStr for LatencyMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "exact" => Ok(LatencyMode::Exact),
            "tail" => Ok(LatencyMode::Tail),
            other => Err(format!("latency mode must be 'exact' or 'tail', got '{other}'")),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct LatencyRecorder {
    samples: Vec<u64>,
    /// `Tail` mode state (then `samples` stays empty).
    tail: Option<Box<TailStore>>,
    sum: u128,
}

pub const PERCENTILES: [(&str, f64); 6] =
    [("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p99.9", 0.999), ("p99.99", 0.9999), ("p99.999", 0.99999)];

impl LatencyRecorder {
    pub fn new(mode: LatencyMode) -> LatencyRecorder {
        match mode {
            LatencyMode::Exact => LatencyRecorder::default(),
            LatencyMode::Tail => LatencyRecorder::tail(TAIL_EXACT_UNTIL),
        }
    }

    /// `Tail` mode that keeps the first `exact_until` samples before switching (tests use
    /// small values to exercise the switch).
    pub fn tail(exact_until: usize) -> LatencyRecorder {
        LatencyRecorder { tail: Some(Box::new(TailStore::new(exact_until))), ..Default::default() }
    }

    #[inline]
    pub fn record(&mut self, ns: u64) {
        match &mut self.tail {
            None => self.samples.push(ns),
            Some(t) => t.record(ns),
        }
        self.sum += ns as u128;
    }
    pub fn len(&self) -> usize {
        match &self.tail {
            None => self.samples.len(),
            Some(t) => t.count as usize,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Merge another recorder's samples (reads + writes = all); `Exact` mode only.
    pub fn merged(a: &LatencyRecorder, b: &LatencyRecorder) -> LatencyRecorder {
        assert!(a.tail.is_none() && b.tail.is_none(), "merged() keeps every sample: exact mode only");
        let mut samples = Vec::with_capacity(a.len() + b.len());
        samples.extend_from_slice(&a.samples);
        samples.extend_from_slice(&b.samples);
        LatencyRecorder { samples, tail: None, sum: a.sum + b.sum }
    }

    /// Sort and summarise; also returns the CDF points.
    pub fn finish(mut self) -> (LatencySummary, Cdf) {
        match self.tail.take() {
            None => {
                self.samples.sort_unstable();
                summarise(&self.samples.as_slice(), self.sum)
            }
            Some(t) => summarise(&t.finish(), self.sum),
        }
    }
}

/// Summaries of `a`, `b` and of both together (e.g. reads, writes, all), identical to
/// finishing each and `LatencyRecorder::merged(a, b)`, without the merged copy. Both
/// recorders must be in the same mode. In `Tail` mode pass `all`, a third recorder that saw
/// every sample: the union of two tails is exact only above both classes' kept tops (when
/// one class owns the whole tail, the union's p99 would fall in the other's histogram).
pub fn finish_three(
    mut a: LatencyRecorder,
    mut b: LatencyRecorder,
    all: Option<LatencyRecorder>,
) -> [(LatencySummary, Cdf); 3] {
    if let Some(all) = all {
        return [a.finish(), b.finish(), all.finish()];
    }
    match (a.tail.take(), b.tail.take()) {
        (None, None) => {
            a.samples.sort_unstable();
            b.samples.sort_unstable();
            let (sa, sb) = (a.samples.as_slice(), b.samples.as_slice());
            let both = summarise(&Union(&sa, &sb), a.sum + b.sum);
            [summarise(&sa, a.sum), summarise(&sb, b.sum), both]
        }
        (Some(ta), Some(tb)) => {
            let (sa, sb) = (ta.finish(), tb.finish());
            let both = summarise(&Union(&sa, &sb), a.sum + b.sum);
            [summarise(&sa, a.sum), summarise(&sb, b.sum), both]
        }
        _ => panic!("finish_three: both recorders must use the same latency mode"),
    }
}

/// Histogram buckets per power of two (and the exact range below 2 × this).
const SUB: u64 = 1024;
const SUB_BITS: u32 = 10;
/// Share of the samples kept exactly at the top in `Tail` mode (p99 needs 1 %: the rest is
/// slack for streams whose tail arrives late), and the least kept.
const TOP_SHARE: f64 = 0.015;
const TOP_MIN: usize = 64;
/// Share kept at the switch: slack for a stream whose upper quantiles drift down later.
const SWITCH_SHARE: f64 = 0.03;

/// Histogram bucket of a value: exact below 2 × SUB, then SUB buckets per power of two.
#[inline]
fn bucket(v: u64) -> usize {
    if v < 2 * SUB {
        v as usize
    } else {
        let e = 63 - v.leading_zeros(); // 2^e <= v < 2^(e+1), e > SUB_BITS
        (2 * SUB) as usize + (e - SUB_BITS - 1) as usize * SUB as usize + ((v >> (e - SUB_BITS)) & (SUB - 1)) as usize
    }
}

/// Smallest value of a bucket (what a body percentile reports: at most 2^-10 below the truth).
fn bucket_low(b: usize) -> u64 {
    let b = b as u64;
    if b < 2 * SUB {
        b
    } else {
        let j = b - 2 * SUB;
        let e = SUB_BITS + 1 + (j / SUB) as u32;
        (SUB + j % SUB) << (e - SUB_BITS)
    }
}

/// `Tail` mode while recording. The first `exact_until` samples are simply kept (so a run
/// shorter than that is reported exactly, and the kept top is chosen from a large sample
/// rather than from the first few requests, whose GC bursts would otherwise fix a high
/// floor); then the store switches to histogram + kept top.
#[derive(Clone, Debug)]
struct TailStore {
    exact_until: usize,
    /// Samples before the switch (emptied by it).
    pending: Vec<u64>,
    counts: Vec<u64>,
    count: u64,
    min: u64,
    /// After the switch: the largest samples seen, exactly; every other sample is <= `floor`.
    top: BinaryHeap<Reverse<u64>>,
    floor: Option<u64>,
    switched: bool,
}

/// Samples `Tail` mode keeps exactly before switching to the histogram (2 MiB per recorder;
/// the engine has three in `Tail` mode: reads, writes, all).
pub const TAIL_EXACT_UNTIL: usize = 1 << 18;

impl Default for TailStore {
    fn default() -> TailStore {
        TailStore::new(TAIL_EXACT_UNTIL)
    }
}

impl TailStore {
    fn new(exact_until: usize) -> TailStore {
        TailStore {
            exact_until: exact_until.max(1),
            pending: Vec::new(),
            counts: Vec::new(),
            count: 0,
            min: 0,
            top: BinaryHeap::new(),
            floor: None,
            switched: false,
        }
    }

    fn cap(&self) -> usize {
        TOP_MIN.max((self.count as f64 * TOP_SHARE).ceil() as usize)
    }

    fn count_in_histogram(&mut self, v: u64) {
        let b = bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
    }

    #[inline]
    fn record(&mut self, v: u64) {
        self.min = if self.count == 0 { v } else { self.min.min(v) };
        self.count += 1;
        if !self.switched {
            self.pending.push(v);
            if self.pending.len() >= self.exact_until {
                self.switch();
            }
            return;
        }
        self.count_in_histogram(v);
        if self.top.len() < self.cap() {
            // Only a value no smaller than every excluded one may join (else the kept set
            // would no longer be the top of the stream).
            if self.floor.is_none_or(|f| v >= f) {
                self.top.push(Reverse(v));
            }
        } else if let Some(&Reverse(m)) = self.top.peek() {
            if v > m {
                self.top.pop();
                self.top.push(Reverse(v));
                self.floor = Some(self.floor.map_or(m, |f| f.max(m)));
            } else {
                self.floor = Some(self.floor.map_or(v, |f| f.max(v)));
            }
        }
    }

    /// From kept samples to histogram + the exact top of what was seen.
    fn switch(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_unstable();
        for &v in &pending {
            self.count_in_histogram(v);
        }
        let keep = self.cap().max((self.count as f64 * SWITCH_SHARE).ceil() as usize).min(pending.len());
        let cut = pending.len() - keep;
        self.floor = cut.checked_sub(1).map(|i| pending[i]);
        self.top = pending[cut..].iter().map(|&v| Reverse(v)).collect();
        self.switched = true;
    }

    fn finish(self) -> TailSorted {
        if !self.switched {
            // Every sample is still here: all of it is the exact top.
            let mut top = self.pending;
            top.sort_unstable();
            return TailSorted { cum: Vec::new(), top, n: self.count as usize, min: self.min, floor: None };
        }
        let mut cum = self.counts;
        let mut acc = 0;
        for c in cum.iter_mut() {
            acc += *c;
            *c = acc;
        }
        let mut top: Vec<u64> = self.top.into_iter().map(|Reverse(v)| v).collect();
        top.sort_unstable();
        TailSorted { cum, top, n: self.count as usize, min: self.min, floor: self.floor }
    }
}

/// `Tail` mode, read by rank: exact for the top ranks, histogram below.
struct TailSorted {
    /// Inclusive prefix sums of the bucket counts.
    cum: Vec<u64>,
    top: Vec<u64>,
    n: usize,
    min: u64,
    floor: Option<u64>,
}

impl TailSorted {
    /// Ranks from here on are exact.
    fn exact_rank(&self) -> usize {
        self.n - self.top.len()
    }
    /// Samples in buckets before `v`'s (all < v), and through `v`'s bucket (some may be > v).
    fn hist_around(&self, v: u64) -> (usize, usize) {
        let b = bucket(v);
        let get = |i: usize| self.cum.get(i).or(self.cum.last()).copied().unwrap_or(0) as usize;
        (if b == 0 { 0 } else { get(b - 1) }, get(b))
    }
}

/// A sorted multiset read by rank.
trait Sorted {
    fn len(&self) -> usize;
    /// The value at 0-based rank `k` (< len).
    fn at(&self, k: usize) -> u64;
    /// How many values are < `v`.
    fn below(&self, v: u64) -> usize;
    /// How many values are <= `v`.
    fn at_most(&self, v: u64) -> usize;
    /// Every value not kept exactly is <= this (`None`: every value is kept).
    fn floor(&self) -> Option<u64>;
    /// Ranks from here on are exact (0: all of them).
    fn exact_from(&self) -> usize {
        match self.floor() {
            None => 0,
            Some(f) => self.at_most(f),
        }
    }
}

impl Sorted for &[u64] {
    fn len(&self) -> usize {
        <[u64]>::len(self)
    }
    fn at(&self, k: usize) -> u64 {
        self[k]
    }
    fn below(&self, v: u64) -> usize {
        self.partition_point(|&x| x < v)
    }
    fn at_most(&self, v: u64) -> usize {
        self.partition_point(|&x| x <= v)
    }
    fn floor(&self) -> Option<u64> {
        None
    }
}

impl Sorted for TailSorted {
    fn len(&self) -> usize {
        self.n
    }
    fn at(&self, k: usize) -> u64 {
        let e = self.exact_rank();
        if k >= e {
            self.top[k - e]
        } else if k == 0 {
            self.min
        } else {
            let b = self.cum.partition_point(|&c| c as usize <= k);
            bucket_low(b).max(self.min)
        }
    }
    fn below(&self, v: u64) -> usize {
        if self.floor.is_none_or(|f| v > f) {
            self.exact_rank() + self.top.partition_point(|&x| x < v)
        } else {
            self.hist_around(v).0.min(self.exact_rank())
        }
    }
    fn at_most(&self, v: u64) -> usize {
        if self.floor.is_none_or(|f| v >= f) {
            self.exact_rank() + self.top.partition_point(|&x| x <= v)
        } else {
            self.hist_around(v).1.min(self.exact_rank())
        }
    }
    fn floor(&self) -> Option<u64> {
        self.floor
    }
    fn exact_from(&self) -> usize {
        // Rank 0 (the minimum) is exact too, but a percentile is not.
        if self.floor.is_none() {
            0
        } else {
            self.exact_rank()
        }
    }
}

/// Two sorted multisets viewed as their sorted union.
struct Union<'a, A, B>(&'a A, &'a B);

impl<A: Sorted, B: Sorted> Sorted for Union<'_, A, B> {
    fn len(&self) -> usize {
        self.0.len() + self.1.len()
    }
    /// The smallest value with more than `k` values at or below it (it is in one of the two).
    fn at(&self, k: usize) -> u64 {
        let le = |v: u64| self.0.at_most(v) + self.1.at_most(v);
        fn first(s: &impl Sorted, k: usize, le: &impl Fn(u64) -> usize) -> Option<u64> {
            let (mut lo, mut hi) = (0, s.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if le(s.at(mid)) <= k {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            (lo < s.len()).then(|| s.at(lo))
        }
        match (first(self.0, k, &le), first(self.1, k, &le)) {
            (Some(x), Some(y)) => x.min(y),
            (x, y) => x.or(y).expect("rank within the union"),
        }
    }
    fn below(&self, v: u64) -> usize {
        self.0.below(v) + self.1.below(v)
    }
    fn at_most(&self, v: u64) -> usize {
        self.0.at_most(v) + self.1.at_most(v)
    }
    fn floor(&self) -> Option<u64> {
        match (self.0.floor(), self.1.floor()) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

impl<S: Sorted> Sorted for &S {
    fn len(&self) -> usize {
        (*self).len()
    }
    fn at(&self, k: usize) -> u64 {
        (*self).at(k)
    }
    fn below(&self, v: u64) -> usize {
        (*self).below(v)
    }
    fn at_most(&self, v: u64) -> usize {
        (*self).at_most(v)
    }
    fn floor(&self) -> Option<u64> {
        (*self).floor()
    }
    fn exact_from(&self) -> usize {
        (*self).exact_from()
    }
}

fn summarise(s: &impl Sorted, sum: u128) -> (LatencySummary, Cdf) {
    let n = s.len();
    if n == 0 {
        return (LatencySummary { exact: true, ..Default::default() }, Cdf::default());
    }
    let rank = |q: f64| -> usize { ((q * n as f64).ceil() as usize).clamp(1, n) - 1 };
    let exact_from = s.exact_from();
    let at = |q: f64| s.at(rank(q));
    let mut above = BTreeMap::new();
    for (name, q) in PERCENTILES {
        let v = at(q);
        // Samples at or above the percentile value.
        let first = s.below(v);
        above.insert(name.to_string(), (n - first) as u64);
    }
    let summary = LatencySummary {
        count: n as u64,
        mean_ns: sum as f64 / n as f64,
        min_ns: s.at(0),
        p50_ns: at(0.50),
        p90_ns: at(0.90),
        p99_ns: at(0.99),
        p99_9_ns: at(0.999),
        p99_99_ns: at(0.9999),
        p99_999_ns: at(0.99999),
        max_ns: s.at(n - 1),
        samples_at_or_above: above,
        exact: exact_from == 0,
        relative_error: if exact_from == 0 { 0.0 } else { 1.0 / SUB as f64 },
        exact_from_quantile: (exact_from > 0).then(|| exact_from as f64 / n as f64),
    };
    (summary, cdf_points(s))
}

/// CDF points: 200 evenly spaced quantiles plus a log-spaced tail (1 − F = 10^-k/20) down to
/// the single slowest sample, so a log-scale tail plot has real points.
fn cdf_points(s: &impl Sorted) -> Cdf {
    let n = s.len();
    let mut idx: Vec<usize> = (1..=200).map(|k| ((k as f64 / 200.0) * n as f64).ceil() as usize - 1).collect();
    let mut k = 1;
    loop {
        let tail = 10f64.powf(-(k as f64) / 20.0);
        let r = ((1.0 - tail) * n as f64).ceil() as usize;
        if r >= n || tail * (n as f64) < 1.0 {
            break;
        }
        idx.push(r.saturating_sub(1));
        k += 1;
    }
    idx.push(n - 1);
    idx.sort_unstable();
    idx.dedup();
    Cdf { points: idx.into_iter().map(|i| (s.at(i), (i + 1) as f64 / n as f64)).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn nearest_rank_percentiles_are_exact() {
        let mut r = LatencyRecorder::default();
        for v in 1..=10_000u64 {
            r.record(v);
        }
        let (s, cdf) = r.finish();
        assert_eq!(s.p50_ns, 5000);
        assert_eq!(s.p99_ns, 9900);
        assert_eq!(s.p99_99_ns, 9999);
        assert_eq!(s.max_ns, 10_000);
        assert_eq!(s.samples_at_or_above["p99.99"], 2);
        assert_eq!(s.mean_ns, 5000.5);
        assert_eq!(cdf.points.last(), Some(&(10_000, 1.0)));
        assert!(cdf.points.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
    }
    /// The union row equals finishing a merged copy, on ties and very unequal sizes too.
    #[test]
    fn union_row_matches_merged_copy() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (na, nb, range) in [(1000, 3000, 50u64), (1, 20_000, 1_000_000), (0, 10, 5), (7, 0, 3), (5000, 5000, 1 << 40)] {
            let (mut a, mut b) = (LatencyRecorder::default(), LatencyRecorder::default());
            (0..na).for_each(|_| a.record(rng.gen_range(0..range)));
            (0..nb).for_each(|_| b.record(rng.gen_range(0..range)));
            let want = [a.clone().finish(), b.clone().finish(), LatencyRecorder::merged(&a, &b).finish()];
            let got = finish_three(a, b, None);
            for (w, g) in want.iter().zip(&got) {
                assert_eq!(format!("{w:?}"), format!("{g:?}"));
            }
        }
    }

    #[test]
    fn buckets_are_monotone_and_within_a_thousandth() {
        let mut prev = (0, 0);
        for v in (0..5000u64).chain((1..64).flat_map(|e| [(1u64 << e) - 1, 1 << e, (1 << e) + 12_345]).chain([u64::MAX])) {
            let (b, low) = (bucket(v), bucket_low(bucket(v)));
            assert!(low <= v && (v - low) as f64 <= low as f64 / 1024.0, "v {v} bucket {b} low {low}");
            assert_eq!(bucket(low), b);
            if v >= prev.0 {
                assert!(b >= prev.1);
            }
            prev = (v, b);
        }
    }

    fn record_all(mode: LatencyMode, xs: &[u64]) -> LatencyRecorder {
        record_into(LatencyRecorder::new(mode), xs)
    }

    fn record_into(mut r: LatencyRecorder, xs: &[u64]) -> LatencyRecorder {
        xs.iter().for_each(|&x| r.record(x));
        r
    }

    /// Tail mode switching to the histogram after 10 000 samples.
    fn tail_all(xs: &[u64]) -> LatencyRecorder {
        record_into(LatencyRecorder::tail(10_000), xs)
    }

    /// Tail mode: p99 and above, min, max, mean and the evidence counts equal exact mode's;
    /// p50 and p90 at most 2^-10 below; the summary says where exactness starts.
    #[test]
    fn tail_mode_is_exact_from_p99_up() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        // Heavy-tailed: mostly ~100 µs, 2 % up to 0.5 s.
        let xs: Vec<u64> = (0..300_000)
            .map(|_| if rng.gen_bool(0.02) { rng.gen_range(1_000_000..500_000_000) } else { rng.gen_range(50_000..200_000) })
            .collect();
        let (e, ecdf) = record_all(LatencyMode::Exact, &xs).finish();
        let (t, tcdf) = tail_all(&xs).finish();
        assert!(e.exact && !t.exact && e.exact_from_quantile.is_none());
        let q = t.exact_from_quantile.unwrap();
        assert!(q <= 0.99, "exact from {q}");
        assert_eq!(
            (t.p99_ns, t.p99_9_ns, t.p99_99_ns, t.p99_999_ns, t.max_ns, t.min_ns, t.mean_ns, t.count),
            (e.p99_ns, e.p99_9_ns, e.p99_99_ns, e.p99_999_ns, e.max_ns, e.min_ns, e.mean_ns, e.count)
        );
        for k in ["p99", "p99.9", "p99.99", "p99.999"] {
            assert_eq!(t.samples_at_or_above[k], e.samples_at_or_above[k], "{k}");
        }
        for (tv, ev) in [(t.p50_ns, e.p50_ns), (t.p90_ns, e.p90_ns)] {
            assert!(tv <= ev && (ev - tv) as f64 <= ev as f64 / 1024.0, "{tv} vs {ev}");
        }
        assert_eq!(tcdf.points.len(), ecdf.points.len());
        assert!(tcdf.points.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
        // Bounded: histogram buckets only up to the largest value, 1.5 % of samples on top.
        let r = tail_all(&xs);
        let t = r.tail.as_ref().unwrap();
        assert!(t.switched && t.pending.is_empty());
        assert!(t.counts.len() <= bucket(500_000_000) + 1 && t.top.len() <= 4_500);
        // A run shorter than the switch point is reported exactly.
        let (short, _) = record_all(LatencyMode::Tail, &xs[..50_000]).finish();
        let (short_exact, _) = record_all(LatencyMode::Exact, &xs[..50_000]).finish();
        assert_eq!(format!("{short:?}"), format!("{short_exact:?}"));
    }

    /// The largest samples first (the worst order for the kept top set): what was kept at the
    /// switch stays exact, and the summary owns up to where exactness starts.
    #[test]
    fn tail_mode_reports_where_exactness_starts() {
        let xs: Vec<u64> = (1..=100_000u64).rev().map(|v| v * 1000).collect();
        let (e, _) = record_all(LatencyMode::Exact, &xs).finish();
        let (t, _) = tail_all(&xs).finish();
        // 3 % of the first 10 000 (the largest 300 overall) were kept at the switch.
        assert_eq!(t.exact_from_quantile, Some(0.997));
        assert_eq!((t.p99_9_ns, t.p99_99_ns, t.p99_999_ns, t.max_ns), (e.p99_9_ns, e.p99_99_ns, e.p99_999_ns, e.max_ns));
        assert!(t.p99_ns <= e.p99_ns && (e.p99_ns - t.p99_ns) as f64 <= e.p99_ns as f64 / 1024.0);
    }

    /// The reads + writes row in tail mode. From the two classes' kept tops (the union) it is
    /// exact only where both are: here the writes own the whole tail, so the union row is
    /// exact from p99.9 up and says so; with a third recorder that saw every sample (what
    /// the engine keeps in tail mode) it is exact from p99 up.
    #[test]
    fn tail_mode_all_row() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let reads: Vec<u64> = (0..200_000).map(|_| rng.gen_range(80_000..2_000_000)).collect();
        let writes: Vec<u64> = (0..50_000).map(|_| rng.gen_range(700_000..90_000_000)).collect();
        let both: Vec<u64> = reads.iter().chain(&writes).copied().collect();
        let [_, _, (e, _)] =
            finish_three(record_all(LatencyMode::Exact, &reads), record_all(LatencyMode::Exact, &writes), None);
        let [_, _, (u, _)] = finish_three(tail_all(&reads), tail_all(&writes), None);
        let q = u.exact_from_quantile.unwrap();
        assert!(q > 0.99 && q < 0.999, "union exact from {q}");
        assert_eq!((u.p99_9_ns, u.p99_99_ns, u.max_ns, u.mean_ns), (e.p99_9_ns, e.p99_99_ns, e.max_ns, e.mean_ns));
        assert!(u.p99_ns <= e.p99_ns && (e.p99_ns - u.p99_ns) as f64 <= e.p99_ns as f64 / 1024.0);
        let [_, _, (t, _)] = finish_three(tail_all(&reads), tail_all(&writes), Some(tail_all(&both)));
        assert!(t.exact_from_quantile.unwrap() <= 0.99);
        assert_eq!((t.p99_ns, t.p99_9_ns, t.p99_99_ns, t.max_ns), (e.p99_ns, e.p99_9_ns, e.p99_99_ns, e.max_ns));
    }

    #[test]
    fn empty_is_zero() {
        let (s, c) = LatencyRecorder::default().finish();
        assert_eq!(s.count, 0);
        assert!(c.points.is_empty());
    }
}
