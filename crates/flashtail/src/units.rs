//! Unit types: simulated time, logical and physical page numbers, block and plane ids.
//!
//! Mixing a logical page number with a physical one, or nanoseconds with a page count, is a
//! bug that the type system should catch; these thin newtypes do that at no run-time cost.
//! What this module does not do: any geometry arithmetic (see `nand::geometry`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Simulated time or a duration, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Nanos(pub u64);

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);
    pub const MAX: Nanos = Nanos(u64::MAX);
    pub const fn from_us(us: u64) -> Nanos {
        Nanos(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    pub fn saturating_sub(self, o: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(o.0))
    }
    pub fn scale(self, k: u64) -> Nanos {
        Nanos(self.0 * k)
    }
}

impl Add for Nanos {
    type Output = Nanos;
    #[inline]
    fn add(self, o: Nanos) -> Nanos {
        Nanos(self.0 + o.0)
    }
}
impl AddAssign for Nanos {
    #[inline]
    fn add_assign(&mut self, o: Nanos) {
        self.0 += o.0;
    }
}
impl Sub for Nanos {
    type Output = Nanos;
    #[inline]
    fn sub(self, o: Nanos) -> Nanos {
        debug_assert!(self.0 >= o.0, "negative duration {} - {}", self.0, o.0);
        Nanos(self.0 - o.0)
    }
}
impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ns", self.0)
    }
}

macro_rules! index_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", stringify!($name), self.0)
            }
        }
    };
}

index_type!(
    /// Logical page number: host byte offset / page size.
    Lpn
);
index_type!(
    /// Physical page number: global index over every page of the device
    /// (`block * pages_per_block + page_in_block`).
    Ppn
);
index_type!(
    /// Global block index (`plane * blocks_per_plane + block_in_plane`).
    BlockId
);
index_type!(
    /// Global plane index (channel-major: channel, chip, die, plane).
    PlaneId
);
index_type!(
    /// Channel (bus) index.
    ChannelId
);

/// A content fingerprint of one 4 KiB block (a truncated hash; 0 means "unknown").
pub type Fingerprint = u64;
