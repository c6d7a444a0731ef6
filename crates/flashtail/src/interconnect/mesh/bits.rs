//! A fixed-size set of small integers, one bit each: the mesh's link states (free, held by
//! a low-priority owner) and a scout walk's scratch (blocked routers, tentative links).
//!
//! Does not grow: its size is fixed when it is made, and ids are checked only by the
//! slice's own bounds.

/// A fixed-size set of small integers (routers or mesh links), one bit each.
#[derive(Clone, Debug)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub(super) fn zeros(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// Every one of `0..n` in the set (bits past `n` stay clear).
    pub(super) fn ones(n: usize) -> Bits {
        let mut b = Bits::zeros(n);
        for i in 0..n {
            b.set(i as u32);
        }
        b
    }

    #[inline]
    pub(super) fn has(&self, i: u32) -> bool {
        self.0[(i >> 6) as usize] >> (i & 63) & 1 != 0
    }

    #[inline]
    pub(super) fn set(&mut self, i: u32) {
        self.0[(i >> 6) as usize] |= 1 << (i & 63);
    }

    #[inline]
    pub(super) fn unset(&mut self, i: u32) {
        self.0[(i >> 6) as usize] &= !(1 << (i & 63));
    }

    pub(super) fn clear(&mut self) {
        self.0.fill(0);
    }
}
