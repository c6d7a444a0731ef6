//! A request stream read once into memory and replayed from there, so the passes a run makes
//! over its input (plausibility checks, the footprint for preconditioning, every scheme's
//! run) parse a trace file or draw a generator once instead of once each.
//!
//! A request takes 16 bytes here (its arrival; its offset and size in 512-byte sectors with
//! the operation), or 24 once one request does not fit that (an offset or size not a whole
//! number of sectors, an offset past 512 TiB or a size of 4 GiB or more: the recording is
//! then widened to arrival, byte offset and size with the operation in its top bit), plus 8
//! bytes per content fingerprint. A replayed trace is page-aligned by default, so its
//! requests fit 16 bytes: that is a third less memory to fault in and to stream through at
//! each pass than 24. A recording stops and is dropped once it would pass its budget, and
//! the input is then read from its source each time, as without one. A source that fails is
//! not recorded either: its runs read it again and report the failure. The replay yields
//! exactly the requests, description and summary notes of the source.

use super::{Extent, HostRequest, Op, RequestSource, SourceError, EXTENT_BATCH};
use crate::units::{Fingerprint, Nanos};
use std::sync::Arc;

const WRITE: u64 = 1 << 63;

/// How many requests ahead a replay prefetches its recording (1 to 1.5 KiB).
const PREFETCH_AHEAD: usize = 64;

/// A recorded request: how it is stored and read back.
trait Packed: Copy {
    fn extent(&self) -> Extent;
}

/// The 16-byte form: arrival, then sectors of offset (bits 24 and up), sectors of size
/// (bits 1 to 23) and the write flag (bit 0).
type Compact = [u64; 2];
const SIZE_BITS: u32 = 23;
const OFFSET_BITS: u32 = 64 - 1 - SIZE_BITS;

/// `q` in the 16-byte form, if it fits it.
#[inline]
fn compact(q: &Extent) -> Option<Compact> {
    let (off, size) = (q.offset >> 9, q.size >> 9);
    let fits = (q.offset | q.size) & 511 == 0 && off >> OFFSET_BITS == 0 && size >> SIZE_BITS == 0;
    fits.then(|| [q.arrival.0, off << (SIZE_BITS + 1) | size << 1 | u64::from(q.op == Op::Write)])
}

impl Packed for Compact {
    #[inline]
    fn extent(&self) -> Extent {
        let [arrival, w] = *self;
        let op = if w & 1 != 0 { Op::Write } else { Op::Read };
        Extent { arrival: Nanos(arrival), offset: (w >> (SIZE_BITS + 1)) << 9, size: ((w >> 1) & ((1 << SIZE_BITS) - 1)) << 9, op }
    }
}

/// The 24-byte form: arrival, byte offset, size | `WRITE`.
type Wide = [u64; 3];

/// `q` in the 24-byte form, if it fits it (a size with the top bit set cannot be told from
/// the write flag).
#[inline]
fn wide(q: &Extent) -> Option<Wide> {
    (q.size & WRITE == 0).then(|| [q.arrival.0, q.offset, q.size | if q.op == Op::Write { WRITE } else { 0 }])
}

impl Packed for Wide {
    #[inline]
    fn extent(&self) -> Extent {
        let [arrival, offset, size_op] = *self;
        let op = if size_op & WRITE != 0 { Op::Write } else { Op::Read };
        Extent { arrival: Nanos(arrival), offset, size: size_op & !WRITE, op }
    }
}

/// The requests, in the 16-byte form while every one fits it.
#[derive(Debug)]
enum Reqs {
    Compact(Vec<Compact>),
    Wide(Vec<Wide>),
}

impl Reqs {
    fn len(&self) -> usize {
        match self {
            Reqs::Compact(v) => v.len(),
            Reqs::Wide(v) => v.len(),
        }
    }

    /// Bytes a request takes in the current form.
    fn bytes_each(&self) -> usize {
        match self {
            Reqs::Compact(_) => std::mem::size_of::<Compact>(),
            Reqs::Wide(_) => std::mem::size_of::<Wide>(),
        }
    }

    fn shrink_to_fit(&mut self) {
        match self {
            Reqs::Compact(v) => v.shrink_to_fit(),
            Reqs::Wide(v) => v.shrink_to_fit(),
        }
    }
}

/// A whole request stream in memory.
#[derive(Debug)]
pub struct Recording {
    reqs: Reqs,
    /// With content: where each request's fingerprints start in `fingerprints` (one more
    /// entry than requests); empty when no request carries any.
    fp_start: Vec<u32>,
    fingerprints: Vec<Fingerprint>,
    describe: String,
    summary: Vec<(String, String)>,
    empty_reason: Option<String>,
}

impl Recording {
    /// Read `src` to its end, or `None` when it fails or would take more than
    /// `budget_bytes`. Without `content` the requests' fingerprints are not kept (the
    /// replay yields none): for runs whose schemes never look at content, which saves 12
    /// bytes a written page.
    pub fn read(src: &mut dyn RequestSource, budget_bytes: u64, content: bool) -> Option<Recording> {
        let mut r = Recording {
            reqs: Reqs::Compact(Vec::new()),
            fp_start: Vec::new(),
            fingerprints: Vec::new(),
            describe: src.describe(),
            summary: Vec::new(),
            empty_reason: None,
        };
        // Whether the stream still fits (in the budget, and as the recording keeps it).
        let mut fits = true;
        let read = src.for_each_request(&mut |e, fps| {
            fits = r.push(e, if content { fps } else { &[] }) && r.bytes() <= budget_bytes;
            fits
        });
        if read.is_err() || !fits {
            return None;
        }
        r.summary = src.summary();
        r.empty_reason = src.empty_reason();
        r.reqs.shrink_to_fit();
        Some(r)
    }

    /// Adds one request; `false` when it cannot be kept (a size with the top bit set;
    /// more than 2^32 fingerprints).
    #[inline]
    fn push(&mut self, q: &Extent, fps: &[Fingerprint]) -> bool {
        if !fps.is_empty() && self.fp_start.is_empty() {
            self.fp_start = vec![0; self.len() + 1];
        }
        if !self.fp_start.is_empty() {
            self.fingerprints.extend_from_slice(fps);
            let Ok(end) = u32::try_from(self.fingerprints.len()) else { return false };
            self.fp_start.push(end);
        }
        if let Reqs::Compact(v) = &mut self.reqs {
            if let Some(c) = compact(q) {
                v.push(c);
                return true;
            }
            self.reqs = Reqs::Wide(widened(v));
        }
        let (Reqs::Wide(v), Some(w)) = (&mut self.reqs, wide(q)) else { return false };
        v.push(w);
        true
    }

    /// Requests held.
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Memory the recording takes, in bytes.
    pub fn bytes(&self) -> u64 {
        (self.len() * self.reqs.bytes_each() + self.fp_start.len() * 4 + self.fingerprints.len() * 8) as u64
    }
}

/// A request did not fit 16 bytes: the requests so far in the 24-byte form, which every
/// request takes from then on.
#[cold]
fn widened(v: &[Compact]) -> Vec<Wide> {
    v.iter().map(|c| wide(&c.extent()).expect("a compact request fits the wide form")).collect()
}

/// One replay of a [`Recording`].
pub struct Replayed {
    rec: Arc<Recording>,
    next: usize,
}

impl Replayed {
    pub fn new(rec: Arc<Recording>) -> Replayed {
        Replayed { rec, next: 0 }
    }

    /// Request `i` as an extent, prefetching the recording a few lines ahead (the hardware
    /// prefetcher stops at each 4 KiB page).
    #[inline]
    fn extent_at<P: Packed>(reqs: &[P], i: usize) -> Option<Extent> {
        let q = reqs.get(i)?;
        if let Some(ahead) = reqs.get(i + PREFETCH_AHEAD) {
            crate::ftl::mapping::prefetch(ahead);
        }
        Some(q.extent())
    }

    /// Up to `limit` requests from `from` on, to `f` in batches: how many.
    fn extents<P: Packed>(reqs: &[P], from: usize, limit: u64, f: &mut dyn FnMut(&[Extent])) -> usize {
        let rest = &reqs[from..];
        let take = rest.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
        let mut batch = [Extent { arrival: Nanos(0), offset: 0, size: 0, op: Op::Read }; EXTENT_BATCH];
        for chunk in rest[..take].chunks(EXTENT_BATCH) {
            for (e, q) in batch.iter_mut().zip(chunk) {
                *e = q.extent();
            }
            f(&batch[..chunk.len()]);
        }
        take
    }
}

impl RequestSource for Replayed {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        let mut q = HostRequest::new(Nanos::ZERO, 0, 0, Op::Read);
        Ok(self.next_request_into(&mut q)?.then_some(q))
    }
    #[inline]
    fn next_request_into(&mut self, out: &mut HostRequest) -> Result<bool, SourceError> {
        let i = self.next;
        let e = match &self.rec.reqs {
            Reqs::Compact(v) => Self::extent_at(v, i),
            Reqs::Wide(v) => Self::extent_at(v, i),
        };
        let Some(e) = e else { return Ok(false) };
        self.next += 1;
        (out.arrival, out.offset, out.size, out.op) = (e.arrival, e.offset, e.size, e.op);
        out.fingerprints.clear();
        if !self.rec.fp_start.is_empty() {
            let (a, b) = (self.rec.fp_start[i] as usize, self.rec.fp_start[i + 1] as usize);
            out.fingerprints.extend_from_slice(&self.rec.fingerprints[a..b]);
        }
        Ok(true)
    }
    fn for_each_extent(&mut self, limit: u64, f: &mut dyn FnMut(&[Extent])) -> Result<u64, SourceError> {
        let take = match &self.rec.reqs {
            Reqs::Compact(v) => Self::extents(v, self.next, limit, f),
            Reqs::Wide(v) => Self::extents(v, self.next, limit, f),
        };
        self.next += take;
        Ok(take as u64)
    }
    fn describe(&self) -> String {
        self.rec.describe.clone()
    }
    fn summary(&self) -> Vec<(String, String)> {
        self.rec.summary.clone()
    }
    fn empty_reason(&self) -> Option<String> {
        self.rec.empty_reason.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Fingerprints, VecSource};

    fn stream() -> Vec<HostRequest> {
        let mut v: Vec<HostRequest> = (0..40u64)
            .map(|i| HostRequest::new(Nanos(i * 1000), i * 4096, 4096 << (i % 3), if i % 3 == 0 { Op::Write } else { Op::Read }))
            .collect();
        v[7].fingerprints = Fingerprints::from_slice(&[9, 10]);
        v[30].fingerprints = Fingerprints::from_slice(&[11]);
        v
    }

    #[test]
    fn a_replay_yields_exactly_the_recorded_requests() {
        let want = stream();
        let rec = Arc::new(Recording::read(&mut VecSource::new(want.clone()), 1 << 20, true).unwrap());
        assert_eq!(rec.len(), 40);
        for _ in 0..2 {
            let mut r = Replayed::new(rec.clone());
            let got: Vec<HostRequest> = std::iter::from_fn(|| r.next_request().unwrap()).collect();
            assert_eq!(got, want);
        }
    }

    /// Extents come straight from memory, as many as asked, and the replay goes on after
    /// them with the next request.
    #[test]
    fn extents_are_the_requests_without_content() {
        let want = stream();
        let rec = Arc::new(Recording::read(&mut VecSource::new(want.clone()), 1 << 20, true).unwrap());
        let mut r = Replayed::new(rec);
        let mut got = Vec::new();
        assert_eq!(r.for_each_extent(25, &mut |e| got.extend_from_slice(e)).unwrap(), 25);
        assert_eq!(r.next_request().unwrap().as_ref(), Some(&want[25]));
        assert_eq!(r.for_each_extent(u64::MAX, &mut |e| got.extend_from_slice(e)).unwrap(), 14);
        assert_eq!(r.for_each_extent(5, &mut |e| got.extend_from_slice(e)).unwrap(), 0);
        let mut expect: Vec<Extent> = want.iter().map(Extent::of).collect();
        expect.remove(25);
        assert_eq!(got, expect);
    }

    /// Without content the replay is the same requests with no fingerprints, and the
    /// recording takes 16 bytes a request.
    #[test]
    fn a_recording_without_content_drops_only_the_fingerprints() {
        let want: Vec<HostRequest> = stream().into_iter().map(|mut q| {
            q.fingerprints.clear();
            q
        }).collect();
        let rec = Arc::new(Recording::read(&mut VecSource::new(stream()), 1 << 20, false).unwrap());
        assert_eq!(rec.bytes(), 40 * 16);
        let mut r = Replayed::new(rec);
        let got: Vec<HostRequest> = std::iter::from_fn(|| r.next_request().unwrap()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_stream_over_its_budget_is_not_recorded() {
        // 40 requests × 16 bytes, 41 fingerprint indexes × 4 and 3 fingerprints × 8: 828 bytes.
        assert!(Recording::read(&mut VecSource::new(stream()), 827, true).is_none());
        assert!(Recording::read(&mut VecSource::new(stream()), 828, true).is_some());
    }

    /// A request that does not fit 16 bytes (an offset or size off the 512-byte grid, an
    /// offset past 512 TiB, a size of 4 GiB or more) widens the recording to 24 bytes a
    /// request, wherever it comes, and the replay is still exactly the stream; the largest
    /// values that fit stay compact. A size with the top bit set is not recorded.
    #[test]
    fn requests_that_do_not_fit_16_bytes_widen_the_recording() {
        let max_off = ((1u64 << OFFSET_BITS) - 1) << 9;
        let max_size = ((1u64 << SIZE_BITS) - 1) << 9;
        let mut edge = stream();
        edge[3] = HostRequest::new(Nanos(u64::MAX), max_off, max_size, Op::Write);
        let rec = Arc::new(Recording::read(&mut VecSource::new(edge.clone()), 1 << 20, false).unwrap());
        assert_eq!(rec.bytes(), 40 * 16);
        let mut r = Replayed::new(rec);
        let got: Vec<HostRequest> = std::iter::from_fn(|| r.next_request().unwrap()).collect();
        assert_eq!(got.iter().map(Extent::of).collect::<Vec<_>>(), edge.iter().map(Extent::of).collect::<Vec<_>>());
        for (at, odd) in [(0, (4096 + 1, 4096)), (17, (4096, 4096 + 100)), (39, (max_off + 512, 512)), (20, (0, max_size + 512))] {
            let mut want = stream();
            want[at].offset = odd.0;
            want[at].size = odd.1;
            let rec = Arc::new(Recording::read(&mut VecSource::new(want.clone()), 1 << 20, true).unwrap());
            assert_eq!(rec.bytes(), 40 * 24 + 41 * 4 + 3 * 8, "widened at {at}");
            let mut r = Replayed::new(rec.clone());
            let got: Vec<HostRequest> = std::iter::from_fn(|| r.next_request().unwrap()).collect();
            assert_eq!(got, want, "widened at {at}");
            let mut extents = Vec::new();
            Replayed::new(rec).for_each_extent(u64::MAX, &mut |e| extents.extend_from_slice(e)).unwrap();
            assert_eq!(extents, want.iter().map(Extent::of).collect::<Vec<_>>());
        }
        let mut huge = stream();
        huge[5].size = WRITE;
        assert!(Recording::read(&mut VecSource::new(huge), 1 << 20, false).is_none());
    }
}
