//! Statistics: exact latency recording, process cost, the slowest requests' wait causes
//! (`tail`), and the run report types.
pub mod latency;
pub mod process;
pub mod report;
pub mod tail;
pub mod throughput;
pub use latency::{LatencyMode, LatencyRecorder, PERCENTILES};
pub use report::*;
pub use throughput::Throughput;
pub use tail::{TailBand, TailClass, TailKeeper, TailReport, TailRequest};
