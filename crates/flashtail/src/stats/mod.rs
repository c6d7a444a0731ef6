//! Statistics: exact latency recording, process cost, and the run report types.
pub mod latency;
pub mod process;
pub mod report;
pub use latency::{LatencyMode, LatencyRecorder};
pub use report::*;
