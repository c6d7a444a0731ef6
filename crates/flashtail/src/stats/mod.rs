//! Statistics: latency recording and the run report.
pub mod report;
pub use report::*;
