//! flashtail: a fast, deterministic, trace-driven SSD simulator for studying
//! garbage-collection tail latency, with published GC schemes side by side.
//!
//! Layering (MQSim's, in small files): `host` (requests) → `trace`/`workload` (sources) →
//! `sim` (event engine) → `scheduler` (per-unit transaction queues) → `ftl` (mapping,
//! block manager, allocation, preconditioning) → `gc` (victim selection, GC scheduling) →
//! `nand` (geometry, timing) and `interconnect` (channel buses) → `stats` and `report`.

pub mod host;
pub mod report;
pub mod stats;
pub mod trace;
pub mod units;
pub mod workload;

pub use host::{HostRequest, Op, RequestSource, SourceError, VecSource};
pub use units::{BlockId, ChannelId, Fingerprint, Lpn, Nanos, PlaneId, Ppn};
