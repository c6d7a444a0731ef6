//! Host interface: what a host request is, the trait every request source implements, and
//! how requests enter the device.
//!
//! Models: requests as (arrival, byte offset, size, read/write, content fingerprints). By
//! default the replay is open loop: a request enters the device at its arrival time, however
//! many are outstanding. `closed_loop.rs` bounds the requests outstanding with NVMe-style
//! submission queues (queue depth × queues), issuing each when a slot frees. A stream read
//! into memory once and replayed from there: `recorded.rs`.
//! Does not model: PCIe transfers, command fetch, host-side scheduling beyond the queues.

pub mod closed_loop;
pub mod recorded;
pub mod request;
pub use closed_loop::{ClosedLoop, IssueTiming};
pub use request::{Extent, Fingerprints, HostRequest, Op, RequestSource, SourceError, VecSource, EXTENT_BATCH};
