//! Garbage collection: the two plug-in points every scheme uses.
//!
//! - [`VictimPolicy`] (`victim.rs`): which block of a plane to reclaim (WLA-GC's
//!   word-line-aware rule in `wla/`).
//! - [`GcPolicy`] (`policy.rs`): when GC runs on which plane, how much of it, and with
//!   what priority (blocking, background/preemptible, urgent, or instant for NoGC).
//!
//! The engine turns a grant into flash work: one valid-page move or the erase at a time.
//! Schemes are assembled by name in `schemes.rs`.

pub mod content;
pub mod partial;
pub mod policy;
pub mod rotating;
pub mod schemes;
pub mod threshold;
pub mod victim;
pub mod wla;

pub use policy::{GcCmd, GcCtx, GcMode, GcPolicy, Grant, PlaneGc};
pub use schemes::{build_scheme, scheme_names, Scheme};
pub use victim::{build_victim, VictimPolicy};
