//! flashtail: a fast, deterministic, trace-driven SSD simulator for studying
//! garbage-collection tail latency, with published GC schemes side by side.
//!
//! Layering (MQSim's, in small files): `host` (requests) → `trace`/`workload` (sources) →
//! `sim` (event engine) → `scheduler` (per-unit transaction queues) → `ftl` (mapping,
//! block manager, preconditioning) → `gc` (victim selection, GC scheduling) → `nand`
//! (geometry, timing) and `interconnect` (channel buses) → `stats` and `report`.

pub mod config;
pub mod ftl;
#[doc(hidden)]
pub mod fuzzing;
pub mod gc;
pub mod job;
pub mod host;
pub mod interconnect;
pub mod nand;
pub mod report;
pub mod reproduce;
pub mod runner;
pub mod scheduler;
pub mod sim;
pub mod stats;
pub mod suggest;
pub mod sweep;
pub mod trace;
pub mod units;
pub mod workload;

pub use config::DeviceConfig;
pub use host::{HostRequest, Op, RequestSource, SourceError, VecSource};
pub use sim::{SimError, SimOptions, Simulation};
pub use stats::RunReport;
pub use units::{BlockId, ChannelId, Fingerprint, Lpn, Nanos, PlaneId, Ppn};
