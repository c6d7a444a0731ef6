//! A shared channel bus: one transfer at a time, waiters served by priority class then
//! arrival. Does not model: multi-channel striping of one transfer, bus arbitration cost.

#[derive(Clone, Debug)]
pub struct Channel {
    pub busy: bool,
    /// Units waiting for the bus: (priority class, arrival sequence, unit).
    pub waiters: Vec<(u8, u64, u32)>,
    /// The unit whose transfers hold the bus (meaningful while `busy`).
    pub holder: u32,
    /// Event key (time << 64 | sequence) after which the bus is free although `busy` is
    /// still set: the holder's last transfer ended without an event of its own (see the
    /// engine's `phases` module). `u128::MAX`: only an event releases it.
    pub free_after: u128,
}

impl Default for Channel {
    fn default() -> Channel {
        Channel { busy: false, waiters: Vec::new(), holder: u32::MAX, free_after: u128::MAX }
    }
}

impl Channel {
    /// Free for work done at event key `key`.
    #[inline]
    pub fn free_at(&self, key: u128) -> bool {
        !self.busy || key > self.free_after
    }

    /// Take the next waiter: lowest class, then earliest.
    pub fn pop_waiter(&mut self) -> Option<u32> {
        let (i, _) = self.waiters.iter().enumerate().min_by_key(|(_, &(c, s, _))| (c, s))?;
        Some(self.waiters.swap_remove(i).2)
    }
}
