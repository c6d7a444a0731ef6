//! In-flight host requests: a slab of slots reused as requests complete, so memory is
//! bounded by the number of requests in flight, not by trace length.

use crate::host::Op;
use crate::units::{Nanos, PlaneId};

/// Wait causes tracked per request, in report order.
pub const WAIT_CAUSES: [&str; 6] = ["user_op", "gc_copy", "gc_erase", "channel", "free_space", "buffer"];
pub const W_CHANNEL: usize = 3;
pub const W_FREE: usize = 4;
pub const W_BUFFER: usize = 5;

#[derive(Clone, Debug)]
pub struct Req {
    pub arrival: Nanos,
    pub op: Op,
    /// Sub-requests (pages) not yet done.
    pub pending: u32,
    pub wait: [u64; 6],
    pub last_plane: PlaneId,
    /// Pages the request spans (reported for the slowest requests, `stats::tail`; fits
    /// in the struct's padding).
    pub pages: u32,
}

#[derive(Default)]
pub struct ReqSlab {
    slots: Vec<Req>,
    free: Vec<u32>,
    pub live: u64,
}

impl ReqSlab {
    pub fn insert(&mut self, r: Req) -> u32 {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = r;
            i
        } else {
            self.slots.push(r);
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn get(&mut self, i: u32) -> &mut Req {
        &mut self.slots[i as usize]
    }
    pub fn remove(&mut self, i: u32) {
        self.live -= 1;
        self.free.push(i);
    }
}
