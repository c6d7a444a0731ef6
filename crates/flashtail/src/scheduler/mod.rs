//! The controller's scheduler: flash transactions, their phases, and the per-unit queues.
//!
//! Models: a transaction is a sequence of phases (array operation, channel transfer,
//! controller work); an execution unit (plane or die) runs one transaction at a time and
//! picks the next by priority: urgent/exclusive GC, user reads, user writes, background GC; a
//! die-wide unit may run operations of several planes as one multi-plane command (the
//! transaction's `planes`, the unit's `companions`; formed in the engine's `multi_plane`).
//! Does not model: out-of-order completion inside a unit.

pub mod events;
pub mod txn;
pub mod unit;
pub use txn::{Phase, PhaseCosts, Step, Txn, TxnKind};
pub use unit::{Cause, Unit};
