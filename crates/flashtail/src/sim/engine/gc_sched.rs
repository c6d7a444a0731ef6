//! When a plane granted GC may start a *new* victim: the device's GC-scheduling limits
//! (`ftl.gc_max_per_channel`, `ftl.gc_max_per_group`) and GC yielding to user I/O above the
//! hard threshold (`ftl.gc_yields_to_user_io`); docs/gc-scheduling.md.
//!
//! A plane "collects" from the moment its victim is chosen until the victim's erase is
//! issued: the erase, in the plane alone, may overlap the next victim's moves on another
//! plane (as the artifact clears its channel's GC chip when it issues the erase).
//! A plane refused a victim keeps its grant and serves user I/O meanwhile; it is queued,
//! once, in the order of refusal, and offered the chance again in that order when another
//! plane issues its victim's erase (a slot frees) or a user operation completes (its
//! channel may have drained). A plane whose unit is busy when offered takes the slot when its unit frees,
//! unless another plane took it first. The limits apply below the hard threshold too (the
//! ttFlash artifact runs one GC per channel always); yielding applies only at or above it.
//!
//! Does not do: which victim (the victim policy), whether a plane is granted GC (the GC
//! policy), a victim already started (its moves and erase run under the grant's mode).

use super::Simulation;
use crate::scheduler::unit::IDLE;
use crate::scheduler::TxnKind;
use crate::units::PlaneId;
use crate::gc::PlaneGc;
use std::collections::{BTreeMap, VecDeque};

/// Engine timer token (the engine bit, `FREE_CHANGE_TOKEN`, set): offer the waiting planes
/// a slot, just after the operation that freed it.
pub(super) const GC_WAKE_TOKEN: u64 = super::FREE_CHANGE_TOKEN | 1 << 60;

/// Whether a plane counts against the limits: a victim chosen, its erase not yet issued.
#[inline]
fn collecting(g: &PlaneGc) -> bool {
    g.victim.is_some() && !g.erasing
}

/// The limits and the planes waiting under them (present only when a setting is on).
pub(super) struct GcSched {
    max_per_channel: u32,
    max_per_group: u32,
    yields: bool,
    /// Planes refused a new victim, in the order of refusal (each at most once).
    waiting: VecDeque<u32>,
    queued: Vec<bool>,
    /// Planes queued to wait (once per wait, however often they are looked at): held by a
    /// limit, and yielding to user I/O.
    refused_limit: u64,
    refused_yield: u64,
    /// Most planes of one channel, and of one RAIN group, seen collecting at once (a new
    /// victim included).
    max_collecting_per_channel: u64,
    max_collecting_per_group: u64,
}

impl GcSched {
    /// The state for a device, or `None` when every GC-scheduling setting is off.
    pub(super) fn new(dev: &crate::config::DeviceConfig) -> Option<Box<GcSched>> {
        let f = &dev.ftl;
        if f.gc_max_per_channel == 0 && f.gc_max_per_group == 0 && !f.gc_yields_to_user_io {
            return None;
        }
        Some(Box::new(GcSched {
            max_per_channel: f.gc_max_per_channel,
            max_per_group: f.gc_max_per_group,
            yields: f.gc_yields_to_user_io,
            waiting: VecDeque::new(),
            queued: vec![false; dev.geometry.planes() as usize],
            refused_limit: 0,
            refused_yield: 0,
            max_collecting_per_channel: 0,
            max_collecting_per_group: 0,
        }))
    }
}

impl Simulation {
    /// Whether `plane`, granted GC and without a victim, may choose one now; if not, it is
    /// queued to be offered the chance again (module doc).
    pub(super) fn may_start_victim(&mut self, plane: PlaneId) -> bool {
        if self.gc_sched.is_none() {
            return true;
        }
        match self.start_blocked(plane) {
            Some(by_limit) => {
                let s = self.gc_sched.as_deref_mut().expect("checked above");
                if !s.queued[plane.idx()] {
                    if by_limit {
                        s.refused_limit += 1;
                    } else {
                        s.refused_yield += 1;
                    }
                    s.queued[plane.idx()] = true;
                    s.waiting.push_back(plane.0);
                }
                false
            }
            None => {
                let collecting = self.collecting_in_channel(plane) + 1;
                let in_group = self.collecting_in_group(plane).map_or(0, |n| n + 1);
                let s = self.gc_sched.as_deref_mut().expect("checked above");
                s.max_collecting_per_channel = s.max_collecting_per_channel.max(collecting);
                s.max_collecting_per_group = s.max_collecting_per_group.max(in_group);
                true
            }
        }
    }

    /// What keeps `plane` from starting a victim now: `Some(true)` a limit, `Some(false)`
    /// yielding to user I/O on its channel, `None` nothing.
    fn start_blocked(&self, plane: PlaneId) -> Option<bool> {
        let s = self.gc_sched.as_deref()?;
        if self.limit_reached(s, plane) {
            return Some(true);
        }
        (s.yields && self.ftl.free_blocks(plane) >= self.hard && self.channel_has_user_io(plane)).then_some(false)
    }

    /// Whether a limit keeps `plane` from starting a victim: its channel, or its RAIN group
    /// (schemes with parity only), already has the most planes collecting allowed.
    fn limit_reached(&self, s: &GcSched, plane: PlaneId) -> bool {
        if s.max_per_channel > 0 && self.collecting_in_channel(plane) >= u64::from(s.max_per_channel) {
            return true;
        }
        s.max_per_group > 0 && self.collecting_in_group(plane).is_some_and(|n| n >= u64::from(s.max_per_group))
    }

    /// Planes of `plane`'s RAIN group with a victim being collected (`None` without RAIN).
    fn collecting_in_group(&self, plane: PlaneId) -> Option<u64> {
        let r = self.rain.as_ref()?;
        Some(r.group_planes(r.group_of_plane(plane)).filter(|q| collecting(&self.gc[q.idx()])).count() as u64)
    }

    /// Planes of `plane`'s channel with a victim being collected.
    fn collecting_in_channel(&self, plane: PlaneId) -> u64 {
        let per = self.ftl.geo.planes_per_channel();
        let first = plane.0 / per * per;
        (first..first + per).filter(|&p| collecting(&self.gc[p as usize])).count() as u64
    }

    /// Whether any unit of `plane`'s channel has a user read or write queued or running
    /// (the artifact's channel sub-request lists hold a page operation until it completes).
    fn channel_has_user_io(&self, plane: PlaneId) -> bool {
        let per = self.ftl.geo.planes_per_channel();
        let first = plane.0 / per * per;
        let (u0, u1) = (self.unit_of_plane[first as usize], self.unit_of_plane[(first + per - 1) as usize]);
        self.units[u0 as usize..=u1 as usize].iter().any(|u| {
            !u.reads.is_empty() || !u.writes.is_empty() || (u.running != IDLE && matches!(self.txns[u.running as usize].kind, TxnKind::Read | TxnKind::Write))
        })
    }

    /// Offer the waiting planes, in order, the chance to start their victims (a victim
    /// ended, or a user operation completed). A plane without a grant or already collecting
    /// leaves the queue; one that may start now leaves it and its unit is dispatched.
    pub(super) fn wake_gc_waiters(&mut self) {
        let Some(s) = self.gc_sched.as_deref_mut() else { return };
        if s.waiting.is_empty() {
            return;
        }
        let waiting: Vec<u32> = s.waiting.drain(..).collect();
        for &p in &waiting {
            self.gc_sched.as_deref_mut().expect("present").queued[p as usize] = false;
        }
        for p in waiting {
            let plane = PlaneId(p);
            let g = &self.gc[plane.idx()];
            if g.grant.is_none() || g.victim.is_some() {
                continue;
            }
            if self.start_blocked(plane).is_some() {
                let s = self.gc_sched.as_deref_mut().expect("present");
                if !s.queued[plane.idx()] {
                    s.queued[plane.idx()] = true;
                    s.waiting.push_back(p);
                }
                continue;
            }
            let u = self.unit_of_plane[plane.idx()];
            self.dispatch(u);
        }
    }

    /// A plane issued its victim's erase: with planes waiting, offer them the freed slot once
    /// the current operation is done (a timer at the same instant).
    pub(super) fn victim_erase_issued(&mut self) {
        if self.gc_waiters() {
            self.schedule_token(self.now, GC_WAKE_TOKEN);
        }
    }

    /// Whether planes wait to start a victim (tested on every completion; cheap when off).
    #[inline(always)]
    pub(super) fn gc_waiters(&self) -> bool {
        self.gc_sched.as_deref().is_some_and(|s| !s.waiting.is_empty())
    }

    /// The counters for the report (`flash.extra`), when a setting is on.
    pub(super) fn gc_sched_report(&self, extra: &mut BTreeMap<String, u64>) {
        if let Some(s) = self.gc_sched.as_deref() {
            extra.insert("gc_victims_deferred_limit".into(), s.refused_limit);
            extra.insert("gc_victims_deferred_yield".into(), s.refused_yield);
            extra.insert("max_gc_planes_per_channel".into(), s.max_collecting_per_channel);
            if self.rain.is_some() {
                extra.insert("max_gc_planes_per_group_collecting".into(), s.max_collecting_per_group);
            }
        }
    }
}
