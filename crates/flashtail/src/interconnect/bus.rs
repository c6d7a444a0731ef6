//! A shared channel bus.

use crate::units::Nanos;

#[derive(Clone, Debug, Default)]
pub struct Channel {
    pub busy: bool,
    /// Units waiting for the bus: (priority class, arrival sequence, unit).
    pub waiters: Vec<(u8, u64, u32)>,
    /// When the current transfer started (for the GC/user channel-time counters).
    pub busy_since: Nanos,
}

impl Channel {
    /// Take the next waiter: lowest class, then earliest.
    pub fn pop_waiter(&mut self) -> Option<u32> {
        let (i, _) = self.waiters.iter().enumerate().min_by_key(|(_, &(c, s, _))| (c, s))?;
        Some(self.waiters.swap_remove(i).2)
    }
}
