//! `ftl.blocking_gc_holds = "channel"`: a plane collecting a victim under a blocking grant
//! (exclusive or urgent) holds its whole channel from the victim's first move until its
//! erase is issued, as the ttFlash artifact's blocking GC keeps its channel busy for all of
//! a victim's copybacks (docs/gc-scheduling.md). Other units of the channel queue for it
//! as they do behind a transfer (a read senses its page, then waits with its data); the
//! holder's own transfers take it whenever no transfer is under way. The erase takes the
//! channel for its command and hands it over to the waiting units after, so the erase
//! overlaps their I/O. The part of a wait during which the channel was held is charged to
//! GC (`gc_copy`), the rest to the channel.
//!
//! The ttFlash family (`ttflash-pbl` and the rest, which move pages by intra-plane
//! copyback) never holds the channel: their plane-blocking GC is defined by leaving it free
//! (the artifact's `pbl`, `gtr`, `rgc` step their GC page by page with the bus free between
//! steps). A scheme given copyback moves by `ftl.gc_copyback` holds it as any other
//! (the artifact's `def`: copybacks with the channel busy).
//!
//! Does not do: background (semi-preemptive) grants, content-aware GC steps, the Venice
//! mesh; a write put off for a busy channel (`scheduler.write_start = "channel-free"`) is
//! put off for a held one too, and that time stays channel wait.

use super::Simulation;
use crate::config::{DeviceConfig, GcHold};
use crate::gc::GcMode;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::unit::Cause;
use crate::sim::requests::W_CHANNEL;
use crate::units::{Nanos, PlaneId};
use std::collections::BTreeMap;

/// `ChannelHolds::owner` of a channel no GC holds.
const NO_HOLDER: u32 = u32::MAX;

/// Which unit holds each channel for its GC (present only with `"channel"`).
pub(super) struct ChannelHolds {
    /// Per channel: the holding unit, or `NO_HOLDER`.
    owner: Vec<u32>,
    /// Per channel: when the current hold began.
    since: Vec<Nanos>,
    /// Per channel: the time of the holds that have ended.
    held_ns: Vec<u64>,
    /// Per unit: its channel's held time (`held_to`) when it began waiting for the channel.
    mark: Vec<u64>,
    /// Holds begun, and the total time channels were held (ended holds).
    holds: u64,
    /// The scheme's GC leaves the channel free by design (module doc): no holds.
    plane_blocking: bool,
}

impl ChannelHolds {
    /// The state for a device, or `None` with the default `"unit"`; `plane_blocking`: the
    /// scheme's GC is plane-blocking by design (the ttFlash family) and never holds.
    pub(super) fn new(dev: &DeviceConfig, channels: usize, units: usize, plane_blocking: bool) -> Option<Box<ChannelHolds>> {
        (dev.ftl.blocking_gc_holds == GcHold::Channel).then(|| {
            Box::new(ChannelHolds {
                plane_blocking,
                owner: vec![NO_HOLDER; channels],
                since: vec![Nanos::ZERO; channels],
                held_ns: vec![0; channels],
                mark: vec![0; units],
                holds: 0,
            })
        })
    }

    /// Channel `ch`'s held time up to `now`, the current hold included.
    fn held_to(&self, ch: usize, now: Nanos) -> u64 {
        let open = if self.owner[ch] == NO_HOLDER { 0 } else { (now - self.since[ch]).0 };
        self.held_ns[ch] + open
    }

    /// A power cut: every hold ends at `now`.
    pub(super) fn power_cut(&mut self, now: Nanos) {
        for ch in 0..self.owner.len() {
            self.held_ns[ch] = self.held_to(ch, now);
            self.owner[ch] = NO_HOLDER;
        }
    }
}

impl Simulation {
    /// Whether channel `ch` is held for the GC of a unit other than `u` (cheap when off).
    #[inline(always)]
    pub(super) fn held_from(&self, ch: usize, u: u32) -> bool {
        self.gc_holds.as_deref().is_some_and(|h| h.owner[ch] != NO_HOLDER && h.owner[ch] != u)
    }

    /// `plane` issues a move of its victim under a grant of `mode`: a blocking grant makes
    /// its unit hold the channel, unless another unit holds it already (not with the
    /// plane-blocking schemes or on the mesh: module doc).
    pub(super) fn gc_hold_begin(&mut self, plane: PlaneId, mode: GcMode) {
        if mode == GcMode::Background || self.mesh.is_some() {
            return;
        }
        let u = self.unit_of_plane[plane.idx()];
        let ch = self.units[u as usize].channel.idx();
        let now = self.now;
        let Some(h) = self.gc_holds.as_deref_mut() else { return };
        if h.owner[ch] == NO_HOLDER && !h.plane_blocking {
            h.owner[ch] = u;
            h.since[ch] = now;
            h.holds += 1;
        }
    }

    /// `plane`'s unit stops holding its channel (if it did). With `hand_over`, a free
    /// channel goes to its first waiter now; without (the victim's erase is issued), the
    /// erase's command takes it first and hands it over when done.
    pub(super) fn gc_hold_end(&mut self, plane: PlaneId, hand_over: bool) {
        let u = self.unit_of_plane[plane.idx()];
        let ch = self.units[u as usize].channel.idx();
        let now = self.now;
        let Some(h) = self.gc_holds.as_deref_mut() else { return };
        if h.owner[ch] != u {
            return;
        }
        h.held_ns[ch] = h.held_to(ch, now);
        h.owner[ch] = NO_HOLDER;
        let c = &self.channels[ch];
        if hand_over && c.free_at(self.cur_key) && !c.waiters.is_empty() {
            self.hand_over(ch);
        }
    }

    /// The unit to give free channel `ch` next: while it is held, only its holder (if it
    /// waits); otherwise the first waiter (lowest class, then earliest).
    pub(super) fn next_channel_user(&mut self, ch: usize) -> Option<u32> {
        let owner = self.gc_holds.as_deref().map_or(NO_HOLDER, |h| h.owner[ch]);
        let c = &mut self.channels[ch];
        if owner == NO_HOLDER {
            return c.pop_waiter();
        }
        let i = c.waiters.iter().position(|&(_, _, w)| w == owner)?;
        Some(c.waiters.swap_remove(i).2)
    }

    /// Unit `u` begins waiting for channel `ch`: note the channel's held time so far.
    #[inline]
    pub(super) fn gc_hold_mark(&mut self, u: u32, ch: usize) {
        let now = self.now;
        if let Some(h) = self.gc_holds.as_deref_mut() {
            h.mark[u as usize] = h.held_to(ch, now);
        }
    }

    /// Unit `u`'s transaction `t` got channel `ch` after `waited` ns charged as channel
    /// wait: the part of it the channel was held by GC is GC wait instead.
    #[inline]
    pub(super) fn gc_hold_charge(&mut self, u: u32, t: u32, ch: usize, waited: u64) {
        let Some(h) = self.gc_holds.as_deref() else { return };
        let held = (h.held_to(ch, self.now) - h.mark[u as usize]).min(waited);
        let req = self.txns[t as usize].req;
        if held > 0 && req != NO_REQ {
            let w = &mut self.reqs.get(req).wait;
            w[W_CHANNEL] -= held;
            w[Cause::GcCopy as usize] += held;
        }
    }

    /// The counters for the report (`flash.extra`), with `"channel"`.
    pub(super) fn gc_hold_report(&self, extra: &mut BTreeMap<String, u64>) {
        if let Some(h) = self.gc_holds.as_deref() {
            extra.insert("gc_channel_holds".into(), h.holds);
            let held: u64 = (0..h.owner.len()).map(|ch| h.held_to(ch, self.now)).sum();
            extra.insert("gc_channel_held_ns".into(), held);
        }
    }
}
