//! The transfer path between the controller and the flash chips.
//!
//! Two designs, chosen per scheme (`Interconnect`):
//! - `bus.rs`: one shared bus per channel that moves one transfer at a time; waiting units
//!   are served user reads first, then user writes, then GC, FIFO within a class.
//! - `mesh/`: Venice's mesh of routers, one beside each chip, with circuit-switched path
//!   reservation by scout packets and fully adaptive routing; with GC bypass, a GC
//!   controller's own ports and preemption of low-priority GC write-back paths.
//!
//! `config.rs` holds the choice and the mesh's parameters. The engine's side (when a
//! transfer takes, waits for and releases its path) is in `sim/engine/mesh_path.rs`.

pub mod bus;
pub mod config;
pub mod mesh;
pub use bus::Channel;
pub use config::{Interconnect, InterconnectConfig};
