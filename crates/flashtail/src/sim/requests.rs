//! In-flight host requests: a slab of slots reused as requests complete, so memory is
//! bounded by the number of requests in flight, not by trace length.

use crate::host::Op;
use crate::units::{Nanos, PlaneId};

/// Number of wait causes.
pub const WAIT_N: usize = 8;
/// Wait causes tracked per request, in report order: first what a unit can be busy with
/// (`scheduler::unit::Cause`, same order), then the engine's own. `power_cut` is the time
/// from a request's arrival until the device took it after a power cut (its first attempt
/// abandoned, and the recovery): a wait of the whole request, before any of its pages.
pub const WAIT_CAUSES: [&str; WAIT_N] = ["user_op", "gc_copy", "gc_erase", "background", "channel", "free_space", "buffer", "power_cut"];
pub const W_CHANNEL: usize = 4;
pub const W_FREE: usize = 5;
pub const W_BUFFER: usize = 6;
pub const W_CUT: usize = 7;
/// The causes a request's own record keeps (`Req::wait`): all but `power_cut`, which only
/// runs with power cuts and is kept beside them (the engine's `power_cut`), so the record
/// every request carries stays as small as before.
pub const REQ_WAITS: usize = W_CUT;
const _: () = assert!(crate::scheduler::unit::CAUSES == 4 && W_CHANNEL == crate::scheduler::unit::CAUSES);

#[derive(Clone, Debug)]
pub struct Req {
    pub arrival: Nanos,
    pub op: Op,
    /// Sub-requests (pages) not yet done.
    pub pending: u32,
    /// Waits by cause, the first `REQ_WAITS` of `WAIT_CAUSES`.
    pub wait: [u64; REQ_WAITS],
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
    /// The slots of the requests in flight, ascending (a power cut abandons them).
    pub fn live_slots(&self) -> Vec<u32> {
        let mut free = vec![false; self.slots.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        (0..self.slots.len() as u32).filter(|&i| !free[i as usize]).collect()
    }
}
