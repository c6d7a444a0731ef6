//! `scheduler.write_start = "channel-free"`: a free unit does not begin a host write whose
//! data transfer would wait for the channel; the write stays queued, the unit serves other
//! queued work or stays free, and every unit that put a write off this way is dispatched
//! again, in the order they did, when the channel is released with no transfer waiting for
//! it (docs/gc-scheduling.md). The channel's holder stops chaining its transfers while a
//! unit waits so (as for a transfer waiting for the channel: phases.rs), so its release is
//! an event.
//!
//! The time a put-off write spends with its unit free is charged to its request as channel
//! wait (`W_CHANNEL`), as it was when the write held its unit waiting for the channel.
//!
//! Does not do: the default `unit-free` start (a write begins on a free unit and its
//! transfer queues for the channel: phases.rs), transfers over the Venice mesh.

use super::Simulation;
use crate::scheduler::TxnKind;
use crate::sim::requests::W_CHANNEL;

/// Units that put a write off, per channel (present only with `channel-free`).
pub(super) struct WriteStart {
    waiting: Vec<Vec<u32>>,
    /// Per unit: in its channel's list.
    listed: Vec<bool>,
    /// Entries in all lists (0: a released channel skips looking).
    pub(super) count: u32,
    /// Times a unit put a write off.
    deferred: u64,
}

impl WriteStart {
    pub(super) fn new(channels: usize, units: usize) -> WriteStart {
        WriteStart { waiting: vec![Vec::new(); channels], listed: vec![false; units], count: 0, deferred: 0 }
    }
}

impl Simulation {
    /// Whether unit `u` must put off the write at the head of its queue: its channel is
    /// busy (on the buses; never on the mesh). If so, the unit is listed on the channel.
    #[inline]
    pub(super) fn write_put_off(&mut self, u: u32) -> bool {
        if self.mesh.is_some() {
            std::hint::cold_path();
            return false;
        }
        if self.write_start.is_none() {
            return false;
        }
        let ch = self.units[u as usize].channel.idx();
        if self.channels[ch].free_at(self.cur_key) && !self.held_from(ch, u) {
            return false;
        }
        let ws = self.write_start.as_deref_mut().expect("present");
        ws.deferred += 1;
        if !ws.listed[u as usize] {
            ws.listed[u as usize] = true;
            ws.waiting[ch].push(u);
            ws.count += 1;
        }
        // The holder's next transfer end must be an event that releases the channel.
        let h = self.channels[ch].holder;
        self.unchain(h, ch);
        true
    }

    /// Whether units wait for channel `ch` to begin a write (the holder then does not chain).
    #[inline]
    pub(super) fn writes_wait_for(&self, ch: usize) -> bool {
        self.write_start.as_deref().is_some_and(|ws| ws.count > 0 && !ws.waiting[ch].is_empty())
    }

    /// Channel `ch` was released with no transfer waiting: dispatch the units that put a
    /// write off for it, in order (the first takes the channel; the others put theirs off
    /// again if they still find it busy).
    #[cold]
    #[inline(never)]
    pub(super) fn channel_released(&mut self, ch: usize) {
        let Some(ws) = self.write_start.as_deref_mut() else { return };
        let units = std::mem::take(&mut ws.waiting[ch]);
        ws.count -= units.len() as u32;
        for &u in &units {
            ws.listed[u as usize] = false;
        }
        for u in units {
            self.dispatch(u);
        }
    }

    /// A put-off write begins: charge its request the time its unit was free (since it was
    /// queued, less the unit's busy time, which `add_wait_from_snap` charges) as channel wait.
    pub(super) fn charge_put_off(&mut self, u: u32, t: u32) {
        let txn = &self.txns[t as usize];
        // Begun in the nanosecond it was queued (most writes): nothing to charge.
        if txn.kind != TxnKind::Write || txn.req == crate::scheduler::txn::NO_REQ || txn.chan_wait_start == self.now {
            return;
        }
        let cum = self.units[u as usize].cum(self.now);
        let busy: u64 = cum.iter().zip(txn.snap).map(|(now, then)| now - then).sum();
        let queued = (self.now - txn.chan_wait_start).0;
        let req = txn.req;
        self.reqs.get(req).wait[W_CHANNEL] += queued.saturating_sub(busy);
    }

    /// The counter for the report (`flash.extra`), with `channel-free`.
    pub(super) fn write_start_report(&self, extra: &mut std::collections::BTreeMap<String, u64>) {
        if let Some(ws) = self.write_start.as_deref() {
            extra.insert("writes_put_off".into(), ws.deferred);
        }
    }
}
