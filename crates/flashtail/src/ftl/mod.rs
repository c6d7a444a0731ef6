//! Flash translation layer: page-level mapping, the block manager (valid counts, free
//! pools, write frontiers) and preconditioning.
//!
//! Models: L2P/P2L maps, per-block valid/allocated/programmed counts and erase counts,
//! per-plane free-block pools, separate host and GC write frontiers, over-provisioning, and
//! the rebuild after an enacted power cut (`recovery`).
//! Does not model: mapping-table caching (DFTL), wear levelling, bad blocks.

pub mod blocks;
pub mod content;
pub mod footprint;
pub mod l2p;
pub mod mapping;
pub mod precondition;
pub mod rain;
pub mod recovery;
pub mod tables;

pub use blocks::{BlockState, Stream};
pub use mapping::{Ftl, NONE};
