//! Why the slow requests were slow: the K slowest requests of each op class, kept with
//! their wait causes, and the tail bands (≥ p99, ≥ p99.9, ≥ p99.99) summarised from them.
//!
//! What it models: for each completed request the engine knows its latency and its wait
//! time by cause (`sim::requests::WAIT_CAUSES`), summed over the request's pages. A
//! [`TailKeeper`] keeps the [`TAIL_KEEP`] slowest of one class (a bounded buffer pruned by
//! selection, which behaves as a min-heap of `TAIL_KEEP` but is cheaper); the hot path
//! only compares a latency with the keeper's admission bar (`admits`), so a request that
//! is not among the slowest so far costs one comparison.
//!
//! What it does not model: which of a multi-page request's pages was the critical one.
//! Waits are accounted per page and summed over the request's pages (pages run in
//! parallel on different planes), so a request's summed waits can exceed its latency. The
//! shares of latency are therefore defined per request as follows (exact for one-page
//! requests, whose latency is their waits plus their own service):
//! - `W` = the request's waits summed over causes; if `W` ≤ latency each cause is charged
//!   its wait, else `power_cut` (a wait of the whole request before its pages started) is
//!   charged its wait and each other cause `wait × (latency − power_cut) / (W − power_cut)`
//!   (the pages' waits overlapped, and only their proportions are known);
//! - `service` = latency − the charged waits (≥ 0): time no wait cause accounts for (the
//!   request's own array and transfer time, and for multi-page requests also pages that
//!   were served while others waited).
//!
//! A band's share of a cause is the sum of its requests' charges over the sum of their
//! latencies, so a band's shares (causes + service) add up to 1. `waits_exceed_latency`
//! counts the requests whose waits were scaled down.
//!
//! Ties: of two requests with equal latency the one that completed first (hence arrived
//! first) ranks as slower and is kept; offers come in completion order with increasing
//! sequence numbers, so a newcomer whose latency equals the least kept one never displaces
//! it and the admission test `latency > least kept` is exact.

use super::report::LatencySummary;
use crate::sim::requests::{WAIT_CAUSES, WAIT_N, W_CUT};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Requests kept per op class (reads, writes): 80 bytes each; the keeper's buffer holds
/// up to twice as many, plus 16 bytes of scratch each (786 KB per class at most).
pub const TAIL_KEEP: usize = 4096;

/// Slowest requests listed one by one in the report, per class.
pub const TAIL_LIST: usize = 10;

/// One kept request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TailEntry {
    pub latency: u64,
    pub arrival: u64,
    /// Completion order (the engine's count of completed requests): breaks latency ties.
    pub seq: u64,
    /// Wait by cause (ns, summed over the request's pages), in `WAIT_CAUSES` order.
    pub wait: [u64; WAIT_N],
    /// The plane the request's last-queued page went to.
    pub plane: u32,
    pub pages: u32,
}

impl TailEntry {
    /// The rank as one integer, ordered as `Ord` (latency, then earlier completion).
    #[inline]
    fn rank(&self) -> u128 {
        (self.latency as u128) << 64 | (u64::MAX - self.seq) as u128
    }
}

impl Ord for TailEntry {
    /// Greater = slower: longer latency, then earlier completion.
    fn cmp(&self, o: &TailEntry) -> Ordering {
        self.rank().cmp(&o.rank())
    }
}

impl PartialOrd for TailEntry {
    fn partial_cmp(&self, o: &TailEntry) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The `cap` slowest requests offered so far (see the module doc).
///
/// Not a binary heap: admitted requests are appended to a buffer of `2 × cap`, and when it
/// is full a selection keeps its `cap` slowest and raises the admission bar to just above
/// the least of them. That costs a few instructions per admitted request instead of a
/// heap's sift of 80-byte entries (the reference benchmark, 300k requests, admits 42.7k).
/// The kept set is the same as a heap's: ranks are a total order (`seq` is unique), and a
/// request under the bar ranks below `cap` requests already seen.
#[derive(Clone, Debug)]
pub struct TailKeeper {
    buf: Vec<TailEntry>,
    /// Scratch for `select`, kept to reuse its allocation.
    keys: Vec<u128>,
    cap: usize,
    /// Least latency that may still enter: 0 until the first selection, then the least
    /// kept latency + 1.
    bar: u64,
}

impl Default for TailKeeper {
    fn default() -> TailKeeper {
        TailKeeper::new(TAIL_KEEP)
    }
}

impl TailKeeper {
    pub fn new(cap: usize) -> TailKeeper {
        TailKeeper { buf: Vec::new(), keys: Vec::new(), cap: cap.max(1), bar: 0 }
    }

    /// Whether a request of this latency may be among the slowest (the hot-path test;
    /// then `offer`).
    #[inline(always)]
    pub fn admits(&self, latency: u64) -> bool {
        latency >= self.bar
    }

    /// Keep `e` if it may be among the `cap` slowest so far. Offers must come with
    /// increasing `seq` (completion order).
    pub fn offer(&mut self, e: TailEntry) {
        if e.latency < self.bar {
            return;
        }
        if self.buf.len() == 2 * self.cap {
            self.select();
            if e.latency < self.bar {
                return;
            }
        }
        if self.buf.capacity() == 0 {
            self.buf.reserve_exact(2 * self.cap);
        }
        self.buf.push(e);
    }

    /// Keep only the `cap` slowest in the buffer and raise the bar to match. Selects on
    /// 16-byte rank keys, then compacts the buffer in one pass: selecting the 80-byte
    /// entries themselves moved them around several times (cachegrind: 2× the
    /// instructions).
    fn select(&mut self) {
        let n = self.buf.len();
        if n <= self.cap {
            return;
        }
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        keys.extend(self.buf.iter().map(TailEntry::rank));
        // Ascending: from index n − cap on are the `cap` largest (ranks are unique).
        let (_, &mut least, _) = keys.select_nth_unstable(n - self.cap);
        self.buf.retain(|e| e.rank() >= least);
        debug_assert_eq!(self.buf.len(), self.cap);
        // A later request of equal latency ranks below the least kept (larger `seq`).
        self.bar = ((least >> 64) as u64).saturating_add(1);
        self.keys = keys;
    }

    /// Requests held (up to `2 × cap` between selections).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The `cap` slowest requests, in no particular (but deterministic) order.
    pub fn into_kept(mut self) -> Vec<TailEntry> {
        self.select();
        self.buf
    }

    /// The `cap` slowest requests, slowest first.
    pub fn into_sorted(self) -> Vec<TailEntry> {
        let mut v = self.into_kept();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    }
}

/// Tail explanation of a run (`RunReport::tail`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TailReport {
    /// Slowest requests kept per class ([`TAIL_KEEP`]): bands with more requests are
    /// summarised over these (see `TailBand::covered_from_latency_ns`).
    pub kept_per_class: u64,
    pub reads: TailClass,
    pub writes: TailClass,
}

/// The tail of one op class.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TailClass {
    /// `p99` (only when its band fits in the kept requests), `p99.9`, `p99.99`; none for
    /// a class without requests.
    pub bands: Vec<TailBand>,
    /// The slowest requests, slowest first (at most [`TAIL_LIST`]).
    pub slowest: Vec<TailRequest>,
}

/// The requests at or above one percentile of latency, and what their latency went to.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TailBand {
    /// The percentile: `p99`, `p99.9` or `p99.99`.
    pub band: String,
    /// Its latency (the run's exact percentile): the band is every request at or above it.
    pub from_latency_ns: u64,
    /// Requests in the band (the summary's `samples_at_or_above` of this percentile).
    pub requests: u64,
    /// Requests the figures below are over: `requests`, or the kept ones when fewer.
    pub covered: u64,
    /// Set when `covered` < `requests`: the figures are over the requests at or above this
    /// latency only (the slowest `kept_per_class`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_from_latency_ns: Option<u64>,
    pub mean_latency_ns: f64,
    /// Mean pages per request.
    pub mean_pages: f64,
    /// Mean wait per request by cause (ns, summed over each request's pages, as in
    /// `waits.wait_ns_by_cause`).
    pub mean_wait_ns_by_cause: BTreeMap<String, f64>,
    /// Share of the band's latency charged to each wait cause and to `service` (module
    /// doc of `stats::tail`); adds up to 1.
    pub share_of_latency: BTreeMap<String, f64>,
    /// Requests whose summed waits exceeded their latency (scaled down in the shares).
    pub waits_exceed_latency: u64,
}

/// One slow request.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TailRequest {
    pub arrival_ns: u64,
    pub latency_ns: u64,
    pub pages: u32,
    /// The plane its last-queued page went to.
    pub last_plane: u32,
    /// Wait by cause (ns, summed over its pages).
    pub wait_ns_by_cause: BTreeMap<String, u64>,
    /// Latency no wait cause accounts for (as in the shares: ≥ 0).
    pub service_ns: u64,
}

impl TailBand {
    /// The largest share (a wait cause or `service`) and its value; ties go to the first
    /// name in alphabetical order.
    pub fn dominant(&self) -> Option<(&str, f64)> {
        let mut best: Option<(&str, f64)> = None;
        for (k, &v) in &self.share_of_latency {
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((k.as_str(), v));
            }
        }
        best
    }

    /// Shares in report order (wait causes as in `WAIT_CAUSES`, then `service`).
    pub fn shares_in_order(&self) -> Vec<(&str, f64)> {
        WAIT_CAUSES
            .iter()
            .copied()
            .chain(std::iter::once("service"))
            .filter_map(|k| self.share_of_latency.get(k).map(|&v| (k, v)))
            .collect()
    }
}

/// A request's latency charged to its wait causes and service (module doc): `(charges by
/// cause, service)`.
fn charge(e: &TailEntry) -> ([f64; WAIT_N], f64) {
    let lat = e.latency as f64;
    let total: u64 = e.wait.iter().sum();
    // A power cut's wait is the whole request's, before any page started: charged as it is;
    // the pages' waits share what is left when they overlapped.
    let cut = e.wait[W_CUT].min(e.latency);
    let pages_wait = total - e.wait[W_CUT];
    let scale = if total > e.latency && pages_wait > 0 { (e.latency - cut) as f64 / pages_wait as f64 } else { 1.0 };
    let mut c = [0.0; WAIT_N];
    for (c, &w) in c.iter_mut().zip(&e.wait) {
        *c = w as f64 * scale;
    }
    c[W_CUT] = cut as f64;
    let service = (lat - c.iter().sum::<f64>()).max(0.0);
    (c, service)
}

impl TailClass {
    /// Summarise a class from its kept requests (`into_kept`, any order) and the run's
    /// exact latency summary of the class.
    pub fn build(kept: &[TailEntry], s: &LatencySummary, cap: usize) -> TailClass {
        let mut bands = Vec::new();
        if s.count > 0 {
            for (name, from) in [("p99", s.p99_ns), ("p99.9", s.p99_9_ns), ("p99.99", s.p99_99_ns)] {
                let members: Vec<&TailEntry> = kept.iter().filter(|e| e.latency >= from).collect();
                let requests = s.samples_at_or_above.get(name).copied().unwrap_or(members.len() as u64);
                if name == "p99" && requests > cap as u64 {
                    continue;
                }
                bands.push(band(name, from, requests, &members));
            }
        }
        // The slowest few, slowest first: a selection, then a sort of those few only.
        let mut top: Vec<&TailEntry> = kept.iter().collect();
        if top.len() > TAIL_LIST {
            top.select_nth_unstable_by(TAIL_LIST - 1, |a, b| b.cmp(a));
            top.truncate(TAIL_LIST);
        }
        top.sort_unstable_by(|a, b| b.cmp(a));
        let slowest = top
            .into_iter()
            .map(|e| TailRequest {
                arrival_ns: e.arrival,
                latency_ns: e.latency,
                pages: e.pages,
                last_plane: e.plane,
                wait_ns_by_cause: WAIT_CAUSES.iter().zip(e.wait).map(|(k, v)| (k.to_string(), v)).collect(),
                service_ns: charge(e).1.round() as u64,
            })
            .collect();
        TailClass { bands, slowest }
    }

    /// The band of this percentile name, if reported.
    pub fn band(&self, name: &str) -> Option<&TailBand> {
        self.bands.iter().find(|b| b.band == name)
    }
}

fn band(name: &str, from: u64, requests: u64, members: &[&TailEntry]) -> TailBand {
    let n = members.len();
    let mut lat_sum = 0f64;
    let mut pages = 0f64;
    let mut wait_sum = [0f64; WAIT_N];
    let mut charged = [0f64; WAIT_N];
    let mut service = 0f64;
    let mut exceed = 0;
    for e in members {
        lat_sum += e.latency as f64;
        pages += e.pages as f64;
        for (s, &w) in wait_sum.iter_mut().zip(&e.wait) {
            *s += w as f64;
        }
        let (c, sv) = charge(e);
        for (a, x) in charged.iter_mut().zip(c) {
            *a += x;
        }
        service += sv;
        exceed += u64::from(e.wait.iter().sum::<u64>() > e.latency);
    }
    let per = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
    let share = |x: f64| if lat_sum > 0.0 { x / lat_sum } else { 0.0 };
    let mut share_of_latency: BTreeMap<String, f64> = WAIT_CAUSES.iter().zip(charged).map(|(k, v)| (k.to_string(), share(v))).collect();
    // A band of zero-latency requests has no latency to share: call it all service.
    share_of_latency.insert("service".into(), if lat_sum > 0.0 { share(service) } else { 1.0 });
    TailBand {
        band: name.to_string(),
        from_latency_ns: from,
        requests,
        covered: n as u64,
        covered_from_latency_ns: ((n as u64) < requests).then(|| members.iter().map(|e| e.latency).min().unwrap_or(from)),
        mean_latency_ns: per(lat_sum),
        mean_pages: per(pages),
        mean_wait_ns_by_cause: WAIT_CAUSES.iter().zip(wait_sum).map(|(k, v)| (k.to_string(), per(v))).collect(),
        share_of_latency,
        waits_exceed_latency: exceed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(latency: u64, seq: u64) -> TailEntry {
        TailEntry { latency, arrival: seq * 10, seq, wait: [0; WAIT_N], plane: 0, pages: 1 }
    }

    /// Offer through the hot-path test, as the engine does.
    fn offer_all(k: &mut TailKeeper, lats: &[u64]) {
        for (i, &l) in lats.iter().enumerate() {
            if k.admits(l) {
                k.offer(entry(l, i as u64 + 1));
            }
        }
    }

    #[test]
    fn keeps_exactly_the_k_largest() {
        // A scrambled sequence of 0..1000 (each value once): the 16 kept are 984..999.
        let lats: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 1000).collect();
        let mut k = TailKeeper::new(16);
        offer_all(&mut k, &lats);
        // Between selections the buffer may hold up to twice the capacity.
        assert!(k.len() >= 16 && k.len() <= 32, "{}", k.len());
        let kept: Vec<u64> = k.into_sorted().iter().map(|e| e.latency).collect();
        assert_eq!(kept, (984..1000).rev().collect::<Vec<u64>>());
        // Fewer offers than the capacity: all kept, slowest first.
        let mut k = TailKeeper::new(16);
        offer_all(&mut k, &[5, 0, 9]);
        assert_eq!(k.into_sorted().iter().map(|e| e.latency).collect::<Vec<_>>(), vec![9, 5, 0]);
    }

    #[test]
    fn ties_keep_the_earliest_completions() {
        // Ten requests of latency 7 and two of 8: with room for 5, both 8s and the first
        // three 7s (sequence numbers 1, 2, 3) stay, whatever comes after.
        let lats = [7, 7, 7, 8, 7, 7, 7, 7, 8, 7, 7, 7];
        let mut k = TailKeeper::new(5);
        offer_all(&mut k, &lats);
        let kept: Vec<(u64, u64)> = k.clone().into_sorted().iter().map(|e| (e.latency, e.seq)).collect();
        assert_eq!(kept, vec![(8, 4), (8, 9), (7, 1), (7, 2), (7, 3)]);
        // The admission bar is exact: offering every request (no `admits` filter) keeps
        // the same set.
        let mut all = TailKeeper::new(5);
        for (i, &l) in lats.iter().enumerate() {
            all.offer(entry(l, i as u64 + 1));
        }
        assert_eq!(all.into_sorted(), k.into_sorted());
    }

    fn summary(count: u64, p99: u64, p999: u64, p9999: u64, above: [u64; 3]) -> LatencySummary {
        let mut s = LatencySummary { count, p99_ns: p99, p99_9_ns: p999, p99_99_ns: p9999, ..Default::default() };
        for (k, v) in ["p99", "p99.9", "p99.99"].into_iter().zip(above) {
            s.samples_at_or_above.insert(k.into(), v);
        }
        s
    }

    #[test]
    fn shares_charge_waits_and_scale_overlapping_ones() {
        // A: 100 ns, 60 gc_copy + 10 buffer → service 30. B: 100 ns, two
        // pages whose waits sum to 200 (150 gc_erase + 50 user_op) → scaled to 75 + 25,
        // service 0.
        let a = TailEntry { latency: 100, arrival: 0, seq: 1, wait: [0, 60, 0, 0, 0, 0, 10, 0], plane: 3, pages: 1 };
        let b = TailEntry { latency: 100, arrival: 5, seq: 2, wait: [50, 0, 150, 0, 0, 0, 0, 0], plane: 4, pages: 2 };
        let c = TailClass::build(&[a, b], &summary(1000, 100, 100, 100, [2, 2, 2]), 16);
        assert_eq!(c.bands.len(), 3);
        let band = c.band("p99.9").unwrap();
        assert_eq!((band.requests, band.covered, band.covered_from_latency_ns), (2, 2, None));
        assert_eq!(band.waits_exceed_latency, 1);
        assert_eq!(band.mean_pages, 1.5);
        assert_eq!(band.mean_wait_ns_by_cause["gc_erase"], 75.0);
        let sh = &band.share_of_latency;
        assert_eq!((sh["gc_copy"], sh["gc_erase"], sh["user_op"], sh["buffer"], sh["service"]), (0.3, 0.375, 0.125, 0.05, 0.15));
        // Every cause is reported, and service.
        assert_eq!((sh.len(), band.mean_wait_ns_by_cause.len()), (WAIT_N + 1, WAIT_N));
        assert!((sh.values().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(band.dominant(), Some(("gc_erase", 0.375)));
        assert_eq!(c.slowest[0].service_ns, 30);
        assert_eq!(c.slowest[1].service_ns, 0);
        assert_eq!(c.slowest[1].wait_ns_by_cause["gc_erase"], 150);
    }

    /// A power cut's wait is the whole request's, before its pages: charged as it is, and the
    /// pages' overlapping waits share the rest of the latency.
    #[test]
    fn a_power_cut_wait_is_charged_whole_and_page_waits_share_the_rest() {
        // 1,000 ns: 600 waiting for the recovery, then two pages whose waits sum to 800
        // (gc_copy 600 + channel 200) in the 400 ns left: scaled to 300 + 100, service 0.
        let e = TailEntry { latency: 1000, arrival: 0, seq: 1, wait: [0, 600, 0, 0, 200, 0, 0, 600], plane: 0, pages: 2 };
        let c = TailClass::build(&[e], &summary(1000, 1000, 1000, 1000, [1, 1, 1]), 16);
        let sh = &c.band("p99.99").unwrap().share_of_latency;
        assert_eq!((sh["power_cut"], sh["gc_copy"], sh["channel"], sh["service"]), (0.6, 0.3, 0.1, 0.0));
        assert_eq!(c.band("p99.99").unwrap().dominant(), Some(("power_cut", 0.6)));
        // Waits within the latency are charged as they are.
        let e = TailEntry { latency: 1000, arrival: 0, seq: 1, wait: [100, 0, 0, 0, 0, 0, 0, 700], plane: 0, pages: 1 };
        let c = TailClass::build(&[e], &summary(1000, 1000, 1000, 1000, [1, 1, 1]), 16);
        let sh = &c.band("p99.99").unwrap().share_of_latency;
        assert_eq!((sh["power_cut"], sh["user_op"], sh["service"]), (0.7, 0.1, 0.2));
    }

    #[test]
    fn bands_larger_than_the_kept_set_say_so() {
        let kept: Vec<TailEntry> = (0..4u64).map(|i| entry(100 - i, i + 1)).collect();
        // p99 band of 50 requests does not fit in 4: left out. p99.9 band of 6 > 4 kept:
        // covered over the 4, from the 4th-slowest latency. p99.99 band of 2: exact.
        let c = TailClass::build(&kept, &summary(1000, 50, 90, 99, [50, 6, 2]), 4);
        let names: Vec<&str> = c.bands.iter().map(|b| b.band.as_str()).collect();
        assert_eq!(names, ["p99.9", "p99.99"]);
        let b = c.band("p99.9").unwrap();
        assert_eq!((b.requests, b.covered, b.covered_from_latency_ns), (6, 4, Some(97)));
        let b = c.band("p99.99").unwrap();
        assert_eq!((b.requests, b.covered, b.covered_from_latency_ns, b.mean_latency_ns), (2, 2, None, 99.5));
        assert_eq!(b.share_of_latency["service"], 1.0);
        // No requests: no bands, nothing listed.
        assert_eq!(TailClass::build(&[], &LatencySummary::default(), 4), TailClass::default());
    }
}
