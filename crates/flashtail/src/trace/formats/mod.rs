//! One parser per supported trace format (one small file each).
//!
//! Each parser is a pure function of one line; see `record.rs` for the contract.

pub mod alibaba;
pub mod ascii;
pub mod blkparse;
pub mod cloudphysics;
pub mod fiu;
pub mod flashnet;
pub mod flashsim;
pub mod linnos;
pub mod msr;
mod plain;
pub mod systor;
pub mod tencent;
pub mod umass;
