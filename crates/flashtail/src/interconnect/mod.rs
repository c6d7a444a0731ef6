//! The transfer path between the controller and the flash chips.
//!
//! Today: one shared bus per channel that moves one transfer at a time; waiting units are
//! served user reads first, then user writes, then GC, FIFO within a class.
//! Not yet: the Venice mesh interconnect (its own module when it lands).

pub mod bus;
pub use bus::Channel;
