//! Cancelling a run from outside (Ctrl-C in Python, a sweep stopped early): a shared flag,
//! and a request source that ends the run with an error once the flag is set. The engine
//! itself is not touched: the flag is looked at once per request the source hands out, so a
//! cancelled run stops at its next arrival (preconditioning is not interrupted).

use crate::host::{HostRequest, RequestSource, SourceError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag shared by every run of a job.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }
    /// Ask every run holding this flag to stop at its next request.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The message a cancelled run ends with.
pub const CANCELLED: &str = "interrupted: the run was cancelled";

/// A request source that fails with [`CANCELLED`] once its flag is set.
pub struct CancelSource {
    inner: Box<dyn RequestSource + Send>,
    flag: Cancel,
}

impl CancelSource {
    pub fn new(inner: Box<dyn RequestSource + Send>, flag: Cancel) -> CancelSource {
        CancelSource { inner, flag }
    }
}

impl RequestSource for CancelSource {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        if self.flag.is_cancelled() {
            return Err(SourceError { location: "interrupted".into(), message: "the run was cancelled".into() });
        }
        self.inner.next_request()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn summary(&self) -> Vec<(String, String)> {
        self.inner.summary()
    }
    fn empty_reason(&self) -> Option<String> {
        self.inner.empty_reason()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Op, VecSource};

    #[test]
    fn a_cancelled_source_stops_at_its_next_request() {
        let reqs: Vec<HostRequest> = (0..3).map(|i| HostRequest::new(crate::Nanos(i * 1000), i * 4096, 4096, Op::Read)).collect();
        let flag = Cancel::new();
        let mut s = CancelSource::new(Box::new(VecSource::new(reqs)), flag.clone());
        assert!(s.next_request().unwrap().is_some());
        flag.cancel();
        let e = s.next_request().unwrap_err();
        assert_eq!(e.to_string(), CANCELLED);
    }
}
