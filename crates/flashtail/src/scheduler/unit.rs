//! An execution unit (a plane, or a die whose planes share it): its queues, its current
//! transaction (with the other operations of its multi-plane command, if any), and how long
//! it has been busy for each cause (for wait attribution).

use crate::scheduler::txn::Txn;
use crate::scheduler::TxnKind;
use crate::units::{ChannelId, Nanos};
use std::collections::VecDeque;

/// What occupies a unit, for attributing the waits of the transactions queued behind it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cause {
    UserOp = 0,
    GcCopy = 1,
    GcErase = 2,
    /// Idle-time work of a content-aware scheme: SplitGC's read scrub and deferred writes.
    Background = 3,
}

/// Number of [`Cause`]s: the unit-side entries at the head of `WAIT_CAUSES`.
pub const CAUSES: usize = 4;

impl Cause {
    /// What a running transaction of `kind` occupies its unit with, unless it is flagged
    /// background ([`Cause::of_txn`]).
    #[inline]
    pub fn of(kind: TxnKind) -> Cause {
        match kind {
            TxnKind::Read | TxnKind::Write => Cause::UserOp,
            TxnKind::GcCopy | TxnKind::GcCopyback | TxnKind::Fingerprint | TxnKind::Rewrite => Cause::GcCopy,
            TxnKind::Erase => Cause::GcErase,
        }
    }

    /// What running transaction `t` occupies its unit with: SplitGC's scrub reads and
    /// deferred writes are flagged background; CAGC's fingerprinting GC reads are GC.
    #[inline]
    pub fn of_txn(t: &Txn) -> Cause {
        if t.background {
            Cause::Background
        } else {
            Cause::of(t.kind)
        }
    }
}

pub const IDLE: u32 = u32::MAX;

/// `Unit::parked` time of a GC write-back waiting for a path (GC bypass), not a suspension.
pub const PARKED_WRITE_BACK: Nanos = Nanos::MAX;

#[derive(Clone, Debug)]
pub struct Unit {
    pub reads: VecDeque<u32>,
    pub writes: VecDeque<u32>,
    /// Most writes `writes` may hold: further host writes wait unallocated
    /// (`ftl.max_queued_writes` per plane of the unit; `usize::MAX`: no limit).
    pub write_cap: usize,
    /// Running transaction id, or `IDLE`.
    pub running: u32,
    /// End of the phase its pending event ends (`Nanos::MAX` while waiting for the channel).
    pub phase_end: Nanos,
    /// Sequence number of the unit's pending event (others for this unit are stale).
    pub ev_seq: u64,
    /// Transfer ends the running transaction passes without events of their own, in order:
    /// (event key they would have had, index of the transfer phase). See the engine's
    /// `phases` module.
    pub chain: [(u128, u8); crate::scheduler::txn::CHAIN_MAX],
    pub chain_len: u8,
    pub first_plane: u32,
    pub num_planes: u32,
    pub channel: ChannelId,
    /// Busy time per cause, closed intervals only.
    pub acc: [u64; CAUSES],
    pub occ_cause: Cause,
    pub occ_since: Nanos,
    /// A program or erase suspended for reads: (transaction, array time still to run); or,
    /// with GC bypass, a GC copy whose write-back waits in the GC controller's cache for a
    /// path (time `PARKED_WRITE_BACK`). Only reads run on the unit meanwhile.
    pub parked: Option<(u32, Nanos)>,
    /// The unit is in the suspend latency of its running transaction.
    pub suspending: bool,
    /// The other operations of the multi-plane command the running transaction leads
    /// (`ftl.multi_plane`): they end with it.
    pub companions: [u32; MAX_COMPANIONS],
    pub companions_len: u8,
}

/// Most operations a multi-plane command carries besides its leader (ONFI: four planes).
pub const MAX_COMPANIONS: usize = 3;

impl Unit {
    pub fn new(first_plane: u32, num_planes: u32, channel: ChannelId) -> Unit {
        Unit {
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            write_cap: usize::MAX,
            running: IDLE,
            phase_end: Nanos::ZERO,
            ev_seq: u64::MAX,
            chain: [(0, 0); 2],
            chain_len: 0,
            first_plane,
            num_planes,
            channel,
            acc: [0; CAUSES],
            occ_cause: Cause::UserOp,
            occ_since: Nanos::ZERO,
            parked: None,
            suspending: false,
            companions: [IDLE; MAX_COMPANIONS],
            companions_len: 0,
        }
    }

    /// Transaction `t` starts (or resumes) occupying the unit at `now`, for `cause`.
    #[inline]
    pub fn occupy(&mut self, t: u32, cause: Cause, now: Nanos) {
        self.running = t;
        self.occ_cause = cause;
        self.occ_since = now;
    }

    /// The running transaction stops occupying the unit at `now` (finished, suspended or
    /// parked): its busy time is closed into `acc`.
    #[inline]
    pub fn vacate(&mut self, now: Nanos) {
        self.acc[self.occ_cause as usize] += now.0 - self.occ_since.0;
        self.running = IDLE;
    }

    /// The unit's current phase ends at `end` with the event numbered `seq` (any earlier
    /// event of the unit is stale from now on).
    #[inline]
    pub fn await_event(&mut self, end: Nanos, seq: u64) {
        self.phase_end = end;
        self.ev_seq = seq;
    }

    /// Cumulative busy time per cause up to `now`.
    /// [`Unit::cum`] written into `out` in place: the accumulated times, then the running
    /// occupation added to its cause's entry (no array built on the stack and copied over,
    /// whose wide reads of narrow stores stalled on store-to-load forwarding).
    #[inline]
    pub fn cum_into(&self, now: Nanos, out: &mut [u64; CAUSES]) {
        *out = self.acc;
        if self.running != IDLE {
            out[self.occ_cause as usize] += now.0 - self.occ_since.0;
        }
    }

    /// Add to `wait` (per cause) this unit's busy time since `snap` (its [`Unit::cum`] then),
    /// entry by entry.
    #[inline]
    pub fn add_busy_since(&self, now: Nanos, snap: &[u64; CAUSES], wait: &mut [u64]) {
        // Per entry, the accumulated time may be below `snap` while the occupation that
        // `snap` counted is still running: the sum with that occupation is not, so the
        // parts wrap and the total is exact.
        for ((w, &a), &then) in wait.iter_mut().zip(&self.acc).zip(snap) {
            *w = w.wrapping_add(a.wrapping_sub(then));
        }
        if self.running != IDLE {
            let w = &mut wait[self.occ_cause as usize];
            *w = w.wrapping_add(now.0 - self.occ_since.0);
        }
    }

    #[inline]
    pub fn cum(&self, now: Nanos) -> [u64; CAUSES] {
        let mut c = self.acc;
        if self.running != IDLE {
            c[self.occ_cause as usize] += now.0 - self.occ_since.0;
        }
        c
    }

    /// Power was cut at `now` (the engine's `power_cut`): the running transaction, the queues,
    /// a suspended or parked operation and the pending event are gone; the busy time so far
    /// is kept (closed at the cut).
    pub fn power_cut(&mut self, now: Nanos) {
        if self.running != IDLE {
            self.vacate(now);
        }
        self.reads.clear();
        self.writes.clear();
        self.phase_end = Nanos::ZERO;
        self.ev_seq = u64::MAX;
        self.chain_len = 0;
        self.parked = None;
        self.suspending = false;
        self.companions_len = 0;
    }

    #[inline]
    pub fn queued(&self) -> usize {
        self.reads.len() + self.writes.len() + (self.running != IDLE) as usize
    }
}
