//! A request stream read once into memory and replayed from there, so the passes a run makes
//! over its input (plausibility checks, the footprint for preconditioning, every scheme's
//! run) parse a trace file or draw a generator once instead of once each.
//!
//! A request takes 24 bytes here (arrival, offset, size with the operation in its top bit)
//! plus 8 per content fingerprint; a recording stops and is dropped once it would pass its
//! budget, and the input is then read from its source each time, as without one. A source
//! that fails is not recorded either: its runs read it again and report the failure. The
//! replay yields exactly the requests, description and summary notes of the source.

use super::{Extent, HostRequest, Op, RequestSource, SourceError, EXTENT_BATCH};
use crate::units::{Fingerprint, Nanos};
use std::sync::Arc;

const WRITE: u64 = 1 << 63;

/// How many requests ahead a replay prefetches its recording (about 1.5 KiB).
const PREFETCH_AHEAD: usize = 64;

/// A whole request stream in memory.
#[derive(Debug)]
pub struct Recording {
    /// Per request: arrival ns, byte offset, size | `WRITE`.
    reqs: Vec<[u64; 3]>,
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
            reqs: Vec::new(),
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

    /// Adds one request; `false` when it cannot be kept (a size with the top bit set cannot
    /// be told from the write flag; more than 2^32 fingerprints).
    #[inline]
    fn push(&mut self, q: &Extent, fps: &[Fingerprint]) -> bool {
        if !fps.is_empty() && self.fp_start.is_empty() {
            self.fp_start = vec![0; self.reqs.len() + 1];
        }
        if !self.fp_start.is_empty() {
            self.fingerprints.extend_from_slice(fps);
            let Ok(end) = u32::try_from(self.fingerprints.len()) else { return false };
            self.fp_start.push(end);
        }
        if q.size & WRITE != 0 {
            return false;
        }
        self.reqs.push([q.arrival.0, q.offset, q.size | if q.op == Op::Write { WRITE } else { 0 }]);
        true
    }

    /// Requests held.
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// Memory the recording takes, in bytes.
    pub fn bytes(&self) -> u64 {
        (self.reqs.len() * 24 + self.fp_start.len() * 4 + self.fingerprints.len() * 8) as u64
    }
}

/// A recorded request's extent (the inverse of `Recording::push`).
#[inline]
fn extent(arrival: u64, offset: u64, size_op: u64) -> Extent {
    let op = if size_op & WRITE != 0 { Op::Write } else { Op::Read };
    Extent { arrival: Nanos(arrival), offset, size: size_op & !WRITE, op }
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
}

impl RequestSource for Replayed {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        let mut q = HostRequest::new(Nanos::ZERO, 0, 0, Op::Read);
        Ok(self.next_request_into(&mut q)?.then_some(q))
    }
    #[inline]
    fn next_request_into(&mut self, out: &mut HostRequest) -> Result<bool, SourceError> {
        let i = self.next;
        let Some(&[arrival, offset, size_op]) = self.rec.reqs.get(i) else { return Ok(false) };
        self.next += 1;
        // The hardware prefetcher stops at each 4 KiB page: fetch a few lines ahead.
        if let Some(ahead) = self.rec.reqs.get(i + PREFETCH_AHEAD) {
            crate::ftl::mapping::prefetch(ahead);
        }
        let e = extent(arrival, offset, size_op);
        (out.arrival, out.offset, out.size, out.op) = (e.arrival, e.offset, e.size, e.op);
        out.fingerprints.clear();
        if !self.rec.fp_start.is_empty() {
            let (a, b) = (self.rec.fp_start[i] as usize, self.rec.fp_start[i + 1] as usize);
            out.fingerprints.extend_from_slice(&self.rec.fingerprints[a..b]);
        }
        Ok(true)
    }
    fn for_each_extent(&mut self, limit: u64, f: &mut dyn FnMut(&[Extent])) -> Result<u64, SourceError> {
        let rest = &self.rec.reqs[self.next..];
        let take = rest.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
        let mut batch = [Extent { arrival: Nanos(0), offset: 0, size: 0, op: Op::Read }; EXTENT_BATCH];
        for chunk in rest[..take].chunks(EXTENT_BATCH) {
            for (e, &[arrival, offset, size_op]) in batch.iter_mut().zip(chunk) {
                *e = extent(arrival, offset, size_op);
            }
            f(&batch[..chunk.len()]);
        }
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
    /// recording takes 24 bytes a request.
    #[test]
    fn a_recording_without_content_drops_only_the_fingerprints() {
        let want: Vec<HostRequest> = stream().into_iter().map(|mut q| {
            q.fingerprints.clear();
            q
        }).collect();
        let rec = Arc::new(Recording::read(&mut VecSource::new(stream()), 1 << 20, false).unwrap());
        assert_eq!(rec.bytes(), 40 * 24);
        let mut r = Replayed::new(rec);
        let got: Vec<HostRequest> = std::iter::from_fn(|| r.next_request().unwrap()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_stream_over_its_budget_is_not_recorded() {
        // 40 requests × 24 bytes plus fingerprint indexes: over 900 bytes.
        assert!(Recording::read(&mut VecSource::new(stream()), 900, true).is_none());
        assert!(Recording::read(&mut VecSource::new(stream()), 2000, true).is_some());
    }
}
