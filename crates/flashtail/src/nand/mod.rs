//! NAND flash: geometry (how pages, blocks, planes, dies, chips and channels are numbered)
//! and timing (how long each array operation and transfer takes).
//!
//! Models: per-level page read/program times, erase, copyback, transfer rate plus command
//! overhead, program/erase suspend costs. Does not model: errors, retention, read disturb.

pub mod geometry;
pub mod timing;
pub use geometry::{Geometry, PageAddr};
pub use timing::Timing;
