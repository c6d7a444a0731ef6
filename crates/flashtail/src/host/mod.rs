//! Host interface: what a host request is, and the trait every request source implements.
//!
//! Models: requests as (arrival, byte offset, size, read/write, content fingerprints).
//! Does not model: NVMe/SATA queue depths or host-side scheduling; a request enters the
//! device at its arrival time. A stream read into memory once and replayed from there:
//! `recorded.rs`.

pub mod recorded;
pub mod request;
pub use request::{Fingerprints, HostRequest, Op, RequestSource, SourceError, VecSource};
