//! How a unit's running transaction moves from phase to phase, and how channels pass from
//! one unit to the next between transfers.
//!
//! Every phase ends at a point in simulated time, but not every end needs an event. When a
//! unit takes its channel it lays out at once the transfers that follow back to back (a GC
//! copy's transfer out and transfer in) and the array or controller phase after them (a
//! write's or a GC copy's tPROG, an erase's tBERS); only that last phase's end is queued as
//! an event. The transfer ends in between are kept as the unit's *chain*: for each, the event
//! key (time, sequence number) it would have had. A transfer end matters to anyone else only
//! if a unit is waiting for the channel then (it takes over the bus). So when a unit queues
//! for a channel whose holder has a chained transfer end still ahead, that end becomes a real
//! event with exactly its key, the holder's queued event goes stale, and the transaction
//! carries on event by event from there. A channel whose holder's last transfer has ended
//! without an event is free to work done at a later key (`Channel::free_after`). A unit that
//! takes a channel others already wait for does not chain: its transfer's end hands it over.
//!
//! This nearly halves the events of a GC-heavy run (a GC copy takes 2 instead of 4, a write 1
//! instead of 2: 22.4M → 12.3M on the reference benchmark) and changes no decision: every wait, handoff and phase time is the same as
//! with one event per phase end (`SimOptions::chain_transfers = false`, compared in
//! tests/chained_transfers.rs). The one difference is the order among events at the very
//! same nanosecond: a chained phase's end takes a sequence number from when the chain was
//! laid out, not from when the transfer before it ended.
//!
//! Does not do: suspend (suspend.rs), what a finished transaction changes (`complete`),
//! transfers over the Venice mesh instead of the channel buses (mesh_path.rs).

use super::{Simulation, EV_UNIT};
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::txn::{Chain, Step};
use crate::sim::requests::W_CHANNEL;
use crate::units::Nanos;

/// The event key of time `t` and sequence number `seq`: events run in key order.
#[inline]
pub(super) fn key(t: Nanos, seq: u64) -> u128 {
    (u128::from(t.0) << 64) | u128::from(seq)
}

impl Simulation {
    #[inline]
    pub(super) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Queue unit `u`'s event for the end of its current phase at `end`.
    #[inline]
    pub(super) fn schedule_unit(&mut self, u: u32, end: Nanos) {
        let seq = self.next_seq();
        self.push_event(end, seq, EV_UNIT, u);
        self.units[u as usize].await_event(end, seq);
    }

    /// When the phase unit `u` is in now ends, as other code sees it (`Nanos::MAX` while it
    /// waits for its channel): the next chained transfer end if one is still ahead.
    pub(super) fn unit_phase_end(&self, u: u32) -> Nanos {
        let unit = &self.units[u as usize];
        match self.next_chained(u) {
            Some(i) => Nanos((unit.chain[i].0 >> 64) as u64),
            None => unit.phase_end,
        }
    }

    /// Index of unit `u`'s first chained transfer end after the work being done now.
    #[inline]
    pub(super) fn next_chained(&self, u: u32) -> Option<usize> {
        let unit = &self.units[u as usize];
        unit.chain[..usize::from(unit.chain_len)].iter().position(|&(k, _)| k > self.cur_key)
    }

    /// Start the running transaction's phase `i` on unit `u` (or complete it). `i` is the
    /// transaction's stored phase index and `step` its [`Step`], passed in because the
    /// caller has just stored the one and holds the transaction's record for the other (a
    /// read-back missed store-to-load forwarding, and looking the record up again costs
    /// instructions on every phase).
    pub(super) fn start_phase_at(&mut self, u: u32, t: u32, mut i: u8, mut step: Step) {
        loop {
            if step.done() {
                self.complete(u);
                return;
            }
            if step.xfer() {
                if self.mesh.is_some() {
                    std::hint::cold_path();
                    self.mesh_transfer(u, t, i);
                    return;
                }
                let ch = self.units[u as usize].channel.idx();
                if self.channels[ch].free_at(self.cur_key) && !self.held_from(ch, u) {
                    self.claim(u, t, i, ch);
                } else {
                    self.wait_for_channel(u, t, ch);
                }
                return;
            }
            if step.dur().0 == 0 {
                i += 1;
                let txn = &mut self.txns[t as usize];
                txn.phase = i;
                step = txn.step_at(i, &self.costs);
                continue;
            }
            self.schedule_unit(u, self.now + step.dur());
            return;
        }
    }

    /// Unit `u` takes its channel `ch` for transfer phase `i` of transaction `t`: lay out
    /// the chain (module doc, [`Chain`]) and queue the event that ends it. The chained
    /// transfers are counted (`bus_transfers`) here, the one the event ends when it comes.
    ///
    /// Each table (transaction, channel, unit) is indexed once and its entry updated through
    /// that borrow: every index is a bounds check, and this runs for most transfers.
    fn claim(&mut self, u: u32, t: u32, i: u8, ch: usize) {
        // Units waiting to begin a write on this channel (write_start.rs) need its release too.
        let may_chain = self.opts.chain_transfers && !self.writes_wait_for(ch);
        let txn = &mut self.txns[t as usize];
        let gc = usize::from(txn.is_gc());
        let c = &mut self.channels[ch];
        // With units already queued for the channel, the transfer's end hands it over: an event.
        let plan = if may_chain && c.waiters.is_empty() {
            txn.chain_at(i, &self.costs)
        } else {
            Chain::single(i, txn.step_at(i, &self.costs).dur())
        };
        txn.phase = plan.end_phase;
        // Sequence numbers in layout order: the points', then the queued event's.
        let first = self.seq + 1;
        self.seq += u64::from(plan.n) + 1;
        let seq = self.seq;
        let unit = &mut self.units[u as usize];
        let mut last = u128::MAX;
        for (k, &(off, phase)) in plan.points[..usize::from(plan.n)].iter().enumerate() {
            last = key(self.now + off, first + k as u64);
            unit.chain[k] = (last, phase);
        }
        unit.chain_len = plan.n;
        c.busy = true;
        c.holder = u;
        // Lazily freed: the channel is free from the last point's key on (a lazy chain has points).
        debug_assert!(!plan.lazy_free || plan.n > 0);
        c.free_after = if plan.lazy_free { last } else { u128::MAX };
        let end = self.now + plan.end;
        unit.await_event(end, seq);
        self.c.chan_ns[gc] += plan.chained_xfer.0;
        self.push_event(end, seq, EV_UNIT, u);
        self.c.bus_transfers += u64::from(plan.n);
    }

    /// Channel `ch` is busy: unit `u` (transaction `t`, in a transfer phase) queues for it.
    fn wait_for_channel(&mut self, u: u32, t: u32, ch: usize) {
        // The bus's first-try metric: this transfer did not find its channel free.
        self.c.bus_waits += 1;
        let txn = &self.txns[t as usize];
        let class = if txn.background { self.background_channel_class(u, t) } else { txn.channel_class() };
        let seq = self.next_seq();
        self.channels[ch].waiters.push((class, seq, u));
        self.txns[t as usize].chan_wait_start = self.now;
        self.gc_hold_mark(u, ch);
        self.units[u as usize].phase_end = Nanos::MAX;
        // The holder may be passing transfer ends without events: the next one must hand
        // the channel over, so it becomes an event.
        let h = self.channels[ch].holder;
        self.unchain(h, ch);
    }

    /// Turn unit `h`'s next chained transfer end (if one is ahead) into a real event with
    /// the key it would have had, and drop the rest of its chain (module doc).
    pub(super) fn unchain(&mut self, h: u32, ch: usize) {
        // No unit has taken the channel yet (it can be unavailable while free: held for GC).
        if h == u32::MAX {
            return;
        }
        let Some(i) = self.next_chained(h) else { return };
        let unit = &self.units[h as usize];
        let (k, phase) = unit.chain[i];
        let t = unit.running;
        let txn = &self.txns[t as usize];
        // The transfers from this one on were counted as done when chained; they will be
        // counted again when they really end.
        let undo: u64 = unit.chain[i..usize::from(unit.chain_len)].iter().map(|&(_, p)| txn.step_at(p, &self.costs).dur().0).sum();
        self.c.chan_ns[usize::from(txn.is_gc())] -= undo;
        // Counted when chained; the first becomes an event (counted at its end), the rest
        // will be claimed again.
        self.c.bus_transfers -= u64::from(unit.chain_len) - i as u64;
        let (end, seq) = (Nanos((k >> 64) as u64), k as u64);
        self.push_event(end, seq, EV_UNIT, h);
        let unit = &mut self.units[h as usize];
        unit.await_event(end, seq);
        unit.chain_len = 0;
        self.txns[t as usize].phase = phase;
        self.channels[ch].free_after = u128::MAX;
    }

    /// Unit `u`'s event with sequence number `seq` came: unless a later one replaced it (a
    /// suspended or unchained phase leaves its earlier event stale), its current phase is
    /// over.
    pub(super) fn phase_done(&mut self, u: u32, seq: u64) {
        let unit = &mut self.units[u as usize];
        if unit.ev_seq != seq {
            return;
        }
        if unit.suspending {
            self.park(u);
            return;
        }
        unit.chain_len = 0;
        let (t, ch) = (unit.running, unit.channel.idx());
        let txn = &mut self.txns[t as usize];
        let step = txn.step(&self.costs);
        let next = txn.phase + 1;
        txn.phase = next;
        // The next phase's step, while the record is at hand: what follows (a channel
        // handed to another unit) does not change this transaction.
        let next_step = txn.step_at(next, &self.costs);
        if step.xfer() {
            let gc = txn.is_gc();
            if self.mesh.is_some() {
                std::hint::cold_path();
                self.mesh_transfer_done(u, gc, step.dur());
            } else {
                // A transfer ended: release the channel, or hand it to the first waiter.
                self.c.chan_ns[usize::from(gc)] += step.dur().0;
                self.c.bus_transfers += 1;
                let c = &mut self.channels[ch];
                c.busy = false;
                c.free_after = u128::MAX;
                if !c.waiters.is_empty() {
                    self.hand_over(ch);
                } else if self.writes_wait_for(ch) {
                    self.channel_released(ch);
                }
            }
        }
        self.start_phase_at(u, t, next, next_step);
    }

    /// Give free channel `ch` to its first waiter (lowest class, then earliest; while it is
    /// held for GC, only to its holder: gc_hold.rs).
    pub(super) fn hand_over(&mut self, ch: usize) {
        let Some(w) = self.next_channel_user(ch) else { return };
        let wt = self.units[w as usize].running;
        let wtxn = &self.txns[wt as usize];
        assert!(wtxn.step(&self.costs).xfer(), "a channel waiter is in a transfer phase");
        let phase = wtxn.phase;
        let waited = self.channel_waited(wt);
        if self.units[w as usize].companions_len > 0 {
            self.companions_channel_waited(w, waited);
        }
        self.gc_hold_charge(w, wt, ch, waited);
        self.claim(w, wt, phase, ch);
    }

    /// Transaction `t`'s transfer got its channel (or mesh path) after waiting since
    /// `chan_wait_start`: charge the wait to its host request, if any, and return it.
    #[inline]
    pub(super) fn channel_waited(&mut self, t: u32) -> u64 {
        let txn = &self.txns[t as usize];
        let waited = (self.now - txn.chan_wait_start).0;
        if txn.req != NO_REQ {
            self.reqs.get(txn.req).wait[W_CHANNEL] += waited;
        }
        waited
    }
}
