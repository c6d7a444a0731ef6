//! Synthetic workload generation: configurable address, size, read/write, arrival and content
//! statistics, streamed as host requests; named presets from the papers; a trace writer.
//!
//! Models the statistics a GC study needs (idle structure, write share, locality, duplicate
//! content). Does not model closed-loop hosts (arrivals never wait for completions) or file
//! system semantics.

pub mod address;
pub mod arrival;
pub mod config;
pub mod content;
pub mod generator;
pub mod presets;
pub mod rng;
pub mod size;
pub mod writer;
pub mod zipf;

pub use arrival::{mean_interval_ns, onoff_for_mean_interval, OnOffParams};
pub use config::{
    AddressPattern, Arrival, ConfigError, ContentConfig, GapDist, GenConfig, SizeDist, WeightedSize, BLOCK_4K,
};
pub use generator::Generator;
pub use presets::{preset, preset_description, preset_names};
pub use writer::{write_trace, TraceFormat, WriteError};
pub use zipf::{zipf_pmf, Zipf};
