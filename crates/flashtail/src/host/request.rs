//! Host requests and request sources (traces, generators, in-memory vectors).

use crate::units::{Fingerprint, Nanos};
use serde::{Deserialize, Serialize};

/// Read or write.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

/// The content fingerprints of one request's 4 KiB blocks. Up to four (16 KiB) are stored
/// inline: the generator makes one list per write request, and a heap allocation and free
/// for each were about 1 % of a benchmark run's instructions.
pub type Fingerprints = smallvec::SmallVec<[Fingerprint; 4]>;

/// One host I/O request as it enters the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRequest {
    /// Arrival time at the device.
    pub arrival: Nanos,
    /// Byte offset in the (merged) logical space of the trace.
    pub offset: u64,
    /// Size in bytes (> 0).
    pub size: u64,
    pub op: Op,
    /// Content fingerprint of each 4 KiB block the request covers, in order, when the trace
    /// carries content (FIU) or the generator makes it; empty otherwise.
    pub fingerprints: Fingerprints,
}

impl HostRequest {
    pub fn new(arrival: Nanos, offset: u64, size: u64, op: Op) -> HostRequest {
        HostRequest { arrival, offset, size, op, fingerprints: Fingerprints::new() }
    }
}

/// Extents [`RequestSource::for_each_extent`] hands over at a time.
pub const EXTENT_BATCH: usize = 256;

/// Where and when a request goes, without its content: what the passes over the input
/// that only place requests need (the footprint, the plausibility checks).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    pub arrival: Nanos,
    pub offset: u64,
    pub size: u64,
    pub op: Op,
}

impl Extent {
    pub fn of(r: &HostRequest) -> Extent {
        Extent { arrival: r.arrival, offset: r.offset, size: r.size, op: r.op }
    }
}

/// An error a request source reports: where it is and what is wrong.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("{location}: {message}")]
pub struct SourceError {
    /// `file:line` or `file:line: field NAME`, as precise as the source can be.
    pub location: String,
    pub message: String,
}

/// A stream of host requests, in (roughly) arrival order. Sources must stream: memory must
/// not grow with the number of requests.
pub trait RequestSource {
    /// The next request, `Ok(None)` at the end, or an error that stops the run.
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError>;
    /// The next request written into `out` (its fingerprint buffer reused), or `false` at
    /// the end: exactly what [`RequestSource::next_request`] would give, by default through
    /// it. The engine reads its requests this way, into slots it keeps, instead of moving
    /// each request through its lookahead: a request just written, moved in wider pieces
    /// than it was written in, stalled on store-to-load forwarding.
    fn next_request_into(&mut self, out: &mut HostRequest) -> Result<bool, SourceError> {
        match self.next_request()? {
            Some(r) => {
                *out = r;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    /// Hands the next requests, up to `limit` of them, to `f` without their content, a
    /// batch at a time (in order), and returns how many it handed (fewer than `limit`: the
    /// source ended). Exactly the requests [`RequestSource::next_request`] would give, by
    /// default through it; a source held in memory reads them straight from there.
    fn for_each_extent(&mut self, limit: u64, f: &mut dyn FnMut(&[Extent])) -> Result<u64, SourceError> {
        let mut batch = Vec::with_capacity(EXTENT_BATCH);
        let mut n = 0;
        while n < limit {
            let r = match self.next_request() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => {
                    f(&batch);
                    return Err(e);
                }
            };
            batch.push(Extent::of(&r));
            n += 1;
            if batch.len() == EXTENT_BATCH {
                f(&batch);
                batch.clear();
            }
        }
        if !batch.is_empty() {
            f(&batch);
        }
        Ok(n)
    }
    /// Hands the next requests to `f` (each as its extent and its content fingerprints), in
    /// order, until `f` returns `false` (that request is taken) or the source ends: exactly
    /// the requests [`RequestSource::next_request`] would give, by default through it. A source of several stages (a trace reader under its
    /// replay controls) passes each request on through them instead of returning it up
    /// through each stage. The extent is lent, and a stage may change it before passing it
    /// on (a copy of one just written, handed over by value, was read back in wider pieces
    /// than it was written and stalled on store-to-load forwarding).
    fn for_each_request(&mut self, f: &mut dyn FnMut(&mut Extent, &[Fingerprint]) -> bool) -> Result<(), SourceError> {
        while let Some(r) = self.next_request()? {
            if !f(&mut Extent::of(&r), &r.fingerprints) {
                break;
            }
        }
        Ok(())
    }
    /// A short human description (file name and format, or generator parameters).
    fn describe(&self) -> String {
        String::from("requests")
    }
    /// Facts the run summary should print (lines skipped, requests wrapped, ...), as
    /// key/value pairs, after the source is exhausted.
    fn summary(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// When the source yielded no request at all: why, in one short line ("volume 9 has no
    /// requests; volumes present: 0, 1"). `None` when it has no better words than "no
    /// requests".
    fn empty_reason(&self) -> Option<String> {
        None
    }
}

/// The requests of `src` as [`RequestSource::for_each_request`] hands them over, stopped
/// after `stop` of them, then the rest through `next_request`: for tests that the two ways
/// agree.
#[cfg(test)]
pub(crate) fn bulk_then_one_by_one(src: &mut dyn RequestSource, stop: usize) -> Vec<(Extent, Vec<Fingerprint>)> {
    let mut got = Vec::new();
    src.for_each_request(&mut |e, fps| {
        got.push((*e, fps.to_vec()));
        got.len() < stop
    })
    .unwrap();
    while let Some(q) = src.next_request().unwrap() {
        got.push((Extent::of(&q), q.fingerprints.to_vec()));
    }
    got
}

/// An in-memory source, for tests and small experiments.
pub struct VecSource {
    reqs: std::vec::IntoIter<HostRequest>,
}

impl VecSource {
    pub fn new(reqs: Vec<HostRequest>) -> VecSource {
        VecSource { reqs: reqs.into_iter() }
    }
}

impl RequestSource for VecSource {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        Ok(self.reqs.next())
    }
    fn describe(&self) -> String {
        String::from("in-memory requests")
    }
}

impl<T: RequestSource + ?Sized> RequestSource for Box<T> {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        (**self).next_request()
    }
    fn next_request_into(&mut self, out: &mut HostRequest) -> Result<bool, SourceError> {
        (**self).next_request_into(out)
    }
    fn for_each_extent(&mut self, limit: u64, f: &mut dyn FnMut(&[Extent])) -> Result<u64, SourceError> {
        (**self).for_each_extent(limit, f)
    }
    fn for_each_request(&mut self, f: &mut dyn FnMut(&mut Extent, &[Fingerprint]) -> bool) -> Result<(), SourceError> {
        (**self).for_each_request(f)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn summary(&self) -> Vec<(String, String)> {
        (**self).summary()
    }
    fn empty_reason(&self) -> Option<String> {
        (**self).empty_reason()
    }
}
