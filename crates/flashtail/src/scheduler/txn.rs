//! Flash transactions and their phase sequences.
//!
//! Phase durations depend only on the device timing and a page's level, so they are
//! computed once per run ([`PhaseCosts`]) rather than per phase: the engine asks for a
//! phase several times per flash operation, which makes this one of its hottest paths.

use crate::nand::geometry::level_in_block;
use crate::nand::{Geometry, Timing};
use crate::units::{Nanos, PlaneId};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TxnKind {
    /// Host page read: tR, then data out over the channel.
    Read,
    /// Host page write: data in over the channel, then tPROG.
    Write,
    /// GC move through the controller: tR, out, ECC, in, tPROG (channel used twice).
    GcCopy,
    /// GC move by intra-plane copyback: a command on the channel, then tR + tPROG in-plane.
    GcCopyback,
    /// Block erase: a command on the channel, then tBERS.
    Erase,
    /// A page read for its fingerprint (content-aware schemes, the SplitGC paper): SplitGC's read
    /// scrub, or CAGC's GC read of a page it then need not write. tR, then out to the
    /// controller.
    Fingerprint,
    /// A page written for a logical page from another physical copy of its content
    /// (SplitGC's deferred write, or the rescue of a last copy before an erase): the phases
    /// of [`TxnKind::GcCopy`].
    Rewrite,
}

/// Kinds of transaction (the size of the phase tables).
const KINDS: usize = 7;

/// One step of a transaction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Flash array busy (the unit is held, the channel free).
    Array(Nanos),
    /// Channel transfer (unit and channel both held).
    Xfer(Nanos),
    /// Controller work while the unit waits (ECC): unit held, channel free.
    Ctrl(Nanos),
}

pub const NO_REQ: u32 = u32::MAX;

/// A phase as the engine's event loop consumes it: flags and a duration instead of an enum.
/// The engine runs array and controller phases alike and treats transfers apart; a `match`
/// on [`Phase`] compiled to an indirect jump whose target is close to random from one event
/// to the next (which unit's phase ends next is), and its mispredictions were a large share
/// of the per-event cost. With flags the engine tests two bits instead.
///
/// Packed in one `u64` (the flags in the top two bits, the duration below them) so that a
/// step stays in a register: as a 16-byte struct it went through the stack between the
/// table look-up and the tests on its flags, and perf put the phase start's cost on those
/// reloads.
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct Step(u64);

/// [`Step`]'s flag bits and duration mask.
const STEP_DONE: u64 = 1 << 63;
const STEP_XFER: u64 = 1 << 62;
const STEP_DUR: u64 = STEP_XFER - 1;

impl Step {
    /// No phase left.
    pub const DONE: Step = Step(STEP_DONE);

    /// A phase of `dur` (a channel transfer when `xfer`).
    #[inline]
    pub fn new(dur: Nanos, xfer: bool) -> Step {
        assert!(dur.0 <= STEP_DUR, "phase duration {} ns out of range", dur.0);
        Step(dur.0 | if xfer { STEP_XFER } else { 0 })
    }

    pub fn of(phase: Option<Phase>) -> Step {
        match phase {
            None => Step::DONE,
            Some(Phase::Xfer(d)) => Step::new(d, true),
            Some(Phase::Array(d)) | Some(Phase::Ctrl(d)) => Step::new(d, false),
        }
    }

    /// How long the phase holds the unit (0 when `done`).
    #[inline]
    pub fn dur(self) -> Nanos {
        Nanos(self.0 & STEP_DUR)
    }

    /// A channel transfer ([`Phase::Xfer`]).
    #[inline]
    pub fn xfer(self) -> bool {
        self.0 & STEP_XFER != 0
    }

    /// No phase left: the transaction is complete.
    #[inline]
    pub fn done(self) -> bool {
        self.0 & STEP_DONE != 0
    }

    /// The same kind of phase lasting `dur`.
    #[inline]
    fn with_dur(self, dur: Nanos) -> Step {
        assert!(dur.0 <= STEP_DUR, "phase duration {} ns out of range", dur.0);
        Step((self.0 & !STEP_DUR) | dur.0)
    }
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Step").field("dur", &self.dur()).field("xfer", &self.xfer()).field("done", &self.done()).finish()
    }
}

/// What a unit lays out when it takes its channel for a transfer phase (see the engine's
/// `phases` module): the transfers that follow back to back and the array or controller
/// phase after them run without events in between, and only the end of that last phase is
/// queued. Offsets are from the moment the channel is taken.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Chain {
    /// Transfer ends passed without an event: (offset, phase index of the transfer).
    pub points: [(Nanos, u8); CHAIN_MAX],
    pub n: u8,
    /// The queued event: its offset and the phase it ends.
    pub end: Nanos,
    pub end_phase: u8,
    /// The last point frees the channel (else the queued event, a transfer's end, does).
    pub lazy_free: bool,
    /// Channel time of the chained transfers (the points).
    pub chained_xfer: Nanos,
}

/// Most transfers a chain passes without events: a GC copy's two.
pub const CHAIN_MAX: usize = 2;

impl Chain {
    /// No chaining: the transfer of phase `i`, `dur` long, ends with an event.
    pub fn single(i: u8, dur: Nanos) -> Chain {
        Chain { end: dur, end_phase: i, ..Chain::default() }
    }
}

/// Channel queue classes, served lowest first ([`Txn::channel_class`]).
pub const CLASS_READ: u8 = 0;
pub const CLASS_WRITE: u8 = 1;
pub const CLASS_GC: u8 = 2;
pub const CLASS_BACKGROUND: u8 = 3;

#[derive(Clone, Debug)]
pub struct Txn {
    pub kind: TxnKind,
    pub plane: PlaneId,
    /// Logical page (host ops, GC moves), or `NONE`.
    pub lpn: u32,
    /// Read: the page read (`NONE` = never written); Write: the destination; GC: the
    /// source; Erase: the block id.
    pub ppn: u32,
    /// GC destination page.
    pub dst: u32,
    /// Version carried (oracle).
    pub version: u32,
    /// Host request slot, or `NO_REQ` (GC, buffered flush).
    pub req: u32,
    /// Index of the current phase.
    pub phase: u8,
    /// The unit's cumulative busy time per cause when this transaction was queued.
    pub snap: [u64; crate::scheduler::unit::CAUSES],
    /// When its current transfer started waiting for the channel.
    pub chan_wait_start: Nanos,
    /// A buffered write: completion frees a buffer slot instead of finishing a request.
    pub buffered: bool,
    /// A RAIN parity page write.
    pub parity: bool,
    /// For a member read of a parity rebuild: the rebuild it belongs to (else `u32::MAX`).
    pub parent: u32,
    /// A controller-internal read (rebuild member, flush read-back): its data feeds an XOR,
    /// not the host, so the oracle checks the XOR's inputs as a whole instead.
    pub internal: bool,
    /// Idle-time work nothing waits for: SplitGC's read scrub and its deferred writes. It
    /// queues for the channel behind every other transfer ([`Txn::channel_class`]).
    pub background: bool,
    /// Operations in the multi-plane command this transaction leads (0 or 1: a
    /// single-plane command). Its transfers and controller work count once per operation;
    /// its array phase once for all (`ftl.multi_plane`, the engine's `multi_plane` module).
    pub planes: u8,
    /// Array time, ns, the command adds to its first phase: the reads of a GC-move command
    /// whose source pages are at different page indices run one after another (only the
    /// programs are multi-plane).
    pub extra_array: u32,
}

/// Every phase duration a transaction can have, precomputed from [`Timing`] (see module doc).
#[derive(Clone, Debug)]
pub struct PhaseCosts {
    /// tR and tPROG per level (levels are 0..bits_per_cell ≤ 4).
    read: [Nanos; 4],
    program: [Nanos; 4],
    xfer_page: Nanos,
    ecc: Nanos,
    command: Nanos,
    copyback_command: Nanos,
    erase: Nanos,
    /// Controller time to fingerprint a page a GC reads (CAGC: SHA-1 + index update, held
    /// in the GC's path); 0 for every other scheme.
    gc_fingerprint: Nanos,
    pages_per_block: u32,
    bits_per_cell: u32,
    pages_per_level: u32,
    /// With one bit per cell no phase depends on the page: every kind's whole phase list is
    /// fixed, so a lookup replaces the per-call match (whose jump is poorly predicted).
    /// Indexed by `TxnKind as usize`, then phase (index 5 and beyond: done).
    fixed: Option<[[Option<Phase>; 6]; KINDS]>,
    /// The same table as [`Step`]s, flat: index `kind * 8 + min(phase, 7)` (phases 5..8 are
    /// done), so a lookup is one shift, one add and no bounds check.
    fixed_steps: Option<[Step; KINDS * 8]>,
    /// [`Chain`]s from each transfer phase, indexed like `fixed_steps`.
    fixed_chains: Option<[Chain; KINDS * 8]>,
}

impl PhaseCosts {
    pub fn new(geo: &Geometry, t: &Timing) -> PhaseCosts {
        PhaseCosts::with_gc_fingerprint(geo, t, Nanos::ZERO)
    }

    /// As `new`, with `fp` of controller time per page a GC reads (CAGC).
    pub fn with_gc_fingerprint(geo: &Geometry, t: &Timing, fp: Nanos) -> PhaseCosts {
        let mut c = PhaseCosts {
            read: std::array::from_fn(|l| t.read(l)),
            program: std::array::from_fn(|l| t.program(l)),
            xfer_page: t.transfer(geo.page_size as u64),
            ecc: Nanos(t.ecc_ns),
            command: t.command(),
            copyback_command: t.copyback_command(),
            erase: t.erase(),
            gc_fingerprint: fp,
            pages_per_block: geo.pages_per_block,
            bits_per_cell: geo.bits_per_cell,
            pages_per_level: geo.pages_per_level,
            fixed: None,
            fixed_steps: None,
            fixed_chains: None,
        };
        if geo.bits_per_cell <= 1 {
            let kinds = TxnKind::ALL;
            let mut fixed = [[None; 6]; KINDS];
            for k in kinds {
                let t = Txn::probe(k);
                for (i, slot) in fixed[k as usize].iter_mut().enumerate() {
                    *slot = t.phase_by_kind(i as u8, &c);
                }
            }
            c.fixed = Some(fixed);
            let mut steps = [Step::of(None); KINDS * 8];
            for (k, phases) in fixed.iter().enumerate() {
                for (i, p) in phases.iter().enumerate() {
                    steps[k * 8 + i] = Step::of(*p);
                }
            }
            c.fixed_steps = Some(steps);
            let mut chains = [Chain::default(); KINDS * 8];
            for k in kinds {
                let t = Txn::probe(k);
                for i in 0..8u8 {
                    if t.step_at(i, &c).xfer() {
                        chains[k as usize * 8 + usize::from(i)] = t.chain_by_steps(i, &c);
                    }
                }
            }
            c.fixed_chains = Some(chains);
        }
        c
    }

    /// tR of physical page `p` (by its level).
    #[inline]
    pub fn read_of(&self, p: u32) -> Nanos {
        self.read[self.level(p)]
    }

    /// tPROG of physical page `p` (by its level).
    #[inline]
    pub fn program_of(&self, p: u32) -> Nanos {
        self.program[self.level(p)]
    }

    /// Level of a physical page (`u32::MAX`, a never-written page, reads as level 0); the
    /// same rule as `Geometry::level_of`, without the divisions for single-level cells.
    #[inline]
    fn level(&self, p: u32) -> usize {
        if self.bits_per_cell <= 1 || p == u32::MAX {
            0
        } else {
            // `Geometry::validate` keeps bits_per_cell in 1..=4; the clamp only guards the table.
            level_in_block(p % self.pages_per_block, self.bits_per_cell, self.pages_per_level).min(3)
        }
    }
}

impl TxnKind {
    pub const ALL: [TxnKind; KINDS] =
        [TxnKind::Read, TxnKind::Write, TxnKind::GcCopy, TxnKind::GcCopyback, TxnKind::Erase, TxnKind::Fingerprint, TxnKind::Rewrite];
}

impl Txn {
    /// The `i`-th phase of this transaction, or `None` when it is done.
    pub fn phase_at(&self, i: u8, geo: &Geometry, t: &Timing) -> Option<Phase> {
        self.phase(i, &PhaseCosts::new(geo, t))
    }

    /// The `i`-th phase of this transaction from precomputed costs, or `None` when it is done.
    #[inline]
    pub fn phase(&self, i: u8, c: &PhaseCosts) -> Option<Phase> {
        match &c.fixed {
            Some(table) => table[self.kind as usize][usize::from(i).min(5)],
            None => self.phase_by_kind(i, c),
        }
    }

    /// The current phase (index `self.phase`) as a [`Step`].
    #[inline]
    pub fn step(&self, c: &PhaseCosts) -> Step {
        self.step_at(self.phase, c)
    }

    /// The `i`-th phase as a [`Step`].
    #[inline]
    pub fn step_at(&self, i: u8, c: &PhaseCosts) -> Step {
        let s = match &c.fixed_steps {
            Some(table) => table[(self.kind as usize) * 8 + usize::from(i).min(7)],
            None => Step::of(self.phase_by_kind(i, c)),
        };
        if self.planes > 1 {
            self.multi_plane_step(i, s)
        } else {
            s
        }
    }

    /// Phase `i` (single-plane step `s`) of the multi-plane command this transaction leads:
    /// transfers and controller work once per operation, one after another; the array
    /// phase once, plus `extra_array` on a GC move's read.
    #[cold]
    #[inline(never)]
    fn multi_plane_step(&self, i: u8, s: Step) -> Step {
        let k = u64::from(self.planes);
        let ctrl = matches!(self.kind, TxnKind::GcCopy | TxnKind::Rewrite | TxnKind::Fingerprint) && i == 2;
        let dur = if s.done() {
            s.dur()
        } else if s.xfer() || ctrl {
            Nanos(s.dur().0 * k)
        } else if i == 0 {
            s.dur() + Nanos(u64::from(self.extra_array))
        } else {
            s.dur()
        };
        s.with_dur(dur)
    }

    /// The [`Chain`] a unit lays out when it takes the channel for transfer phase `i`.
    #[inline]
    pub fn chain_at(&self, i: u8, c: &PhaseCosts) -> Chain {
        match &c.fixed_chains {
            Some(table) if self.planes <= 1 => table[(self.kind as usize) * 8 + usize::from(i).min(7)],
            _ => self.chain_by_steps(i, c),
        }
    }

    /// The chain rule itself: from transfer phase `i`, pass transfer ends while the next
    /// phase (past zero-length array/controller phases) is another transfer, and stop at the
    /// first array/controller phase (its end is the event). A transfer that completes the
    /// transaction ends with an event (completion starts other work), as does one that
    /// would overflow the chain.
    fn chain_by_steps(&self, i: u8, c: &PhaseCosts) -> Chain {
        let mut ch = Chain::default();
        let mut at = Nanos::ZERO;
        let mut j = i;
        loop {
            let s = self.step_at(j, c);
            debug_assert!(s.xfer(), "a chain starts at a transfer");
            at += s.dur();
            let mut k = j + 1;
            let mut next = self.step_at(k, c);
            while !next.done() && !next.xfer() && next.dur().0 == 0 {
                k += 1;
                next = self.step_at(k, c);
            }
            if next.done() || usize::from(ch.n) == CHAIN_MAX {
                ch.end = at;
                ch.end_phase = j;
                return ch;
            }
            ch.points[usize::from(ch.n)] = (at, j);
            ch.n += 1;
            ch.chained_xfer += s.dur();
            if next.xfer() {
                j = k;
                continue;
            }
            ch.end = at + next.dur();
            ch.end_phase = k;
            ch.lazy_free = true;
            return ch;
        }
    }

    /// A transaction of `kind` with no pages and every flag off (for tabulating
    /// page-independent phases; benchmarks fill in the pages).
    pub fn probe(kind: TxnKind) -> Txn {
        Txn {
            kind,
            plane: PlaneId(0),
            lpn: u32::MAX,
            ppn: u32::MAX,
            dst: u32::MAX,
            version: 0,
            req: u32::MAX,
            phase: 0,
            snap: [0; crate::scheduler::unit::CAUSES],
            chan_wait_start: Nanos::ZERO,
            buffered: false,
            parity: false,
            parent: u32::MAX,
            internal: false,
            background: false,
            planes: 0,
            extra_array: 0,
        }
    }

    /// The phase rules themselves (see [`TxnKind`]).
    fn phase_by_kind(&self, i: u8, c: &PhaseCosts) -> Option<Phase> {
        let p = match (self.kind, i) {
            (TxnKind::Read, 0) => Phase::Array(c.read[c.level(self.ppn)]),
            (TxnKind::Read, 1) => Phase::Xfer(c.xfer_page),
            (TxnKind::Write, 0) => Phase::Xfer(c.xfer_page),
            (TxnKind::Write, 1) => Phase::Array(c.program[c.level(self.ppn)]),
            (TxnKind::GcCopy | TxnKind::Rewrite, 0) => Phase::Array(c.read[c.level(self.ppn)]),
            (TxnKind::GcCopy | TxnKind::Rewrite, 1) => Phase::Xfer(c.xfer_page),
            (TxnKind::GcCopy, 2) => Phase::Ctrl(c.ecc + c.gc_fingerprint),
            (TxnKind::Rewrite, 2) => Phase::Ctrl(c.ecc),
            (TxnKind::GcCopy | TxnKind::Rewrite, 3) => Phase::Xfer(c.xfer_page),
            (TxnKind::GcCopy | TxnKind::Rewrite, 4) => Phase::Array(c.program[c.level(self.dst)]),
            (TxnKind::Fingerprint, 0) => Phase::Array(c.read[c.level(self.ppn)]),
            (TxnKind::Fingerprint, 1) => Phase::Xfer(c.xfer_page),
            // A GC's fingerprint is in its path (CAGC: ECC, then SHA-1 and the index); a
            // scrub's controller work is pipelined with its next read (SplitGC, where
            // `gc_fingerprint` is 0 and this phase is empty).
            (TxnKind::Fingerprint, 2) if c.gc_fingerprint.0 > 0 => Phase::Ctrl(c.ecc + c.gc_fingerprint),
            (TxnKind::GcCopyback, 0) => Phase::Xfer(c.copyback_command),
            (TxnKind::GcCopyback, 1) => Phase::Array(c.read[c.level(self.ppn)] + c.program[c.level(self.dst)]),
            (TxnKind::Erase, 0) => Phase::Xfer(c.command),
            (TxnKind::Erase, 1) => Phase::Array(c.erase),
            _ => return None,
        };
        Some(p)
    }

    /// GC or other background work (for channel accounting and priorities).
    pub fn is_gc(&self) -> bool {
        !matches!(self.kind, TxnKind::Read | TxnKind::Write)
    }

    /// Priority class for a busy channel's queue (lowest first, then arrival): host reads,
    /// host writes, GC, then background work. The read scrub is "a background, low-priority
    /// task" (SplitGC §3.2) and deferred writes are done "during
    /// idle time" (§3.3): in the class of GC, a plane's GC copies queued behind other planes'
    /// scrub transfers, and plane-blocking GC took several times as long. A background
    /// transaction may wait in a lower class than this one: the engine lends it the class of
    /// work queued behind it on its unit (priority inheritance, `sim::engine::content_path`).
    #[inline]
    pub fn channel_class(&self) -> u8 {
        match self.kind {
            TxnKind::Read => CLASS_READ,
            TxnKind::Write => CLASS_WRITE,
            _ if self.background => CLASS_BACKGROUND,
            _ => CLASS_GC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    fn txn(kind: TxnKind, ppn: u32, dst: u32) -> Txn {
        Txn { ppn, dst, ..Txn::probe(kind) }
    }

    /// The engine's flag steps say the same as the phase list, for single-level cells (the
    /// precomputed flat table) and multi-level ones (computed per page), past the last phase.
    #[test]
    fn steps_match_phases() {
        let dev = presets::load("bench-ref").unwrap();
        let mut mlc = dev.clone();
        mlc.geometry.bits_per_cell = 2;
        mlc.timing.read_ns = vec![75_000, 90_000];
        mlc.timing.program_ns = vec![750_000, 1_500_000];
        let kinds = TxnKind::ALL;
        for d in [&dev, &mlc] {
            let c = PhaseCosts::new(&d.geometry, &d.timing);
            for k in kinds {
                for (ppn, dst) in [(0, 1), (5, 2), (u32::MAX, 7)] {
                    let t = txn(k, ppn, dst);
                    for i in 0..12u8 {
                        assert_eq!(t.step_at(i, &c), Step::of(t.phase(i, &c)), "{k:?} phase {i}");
                    }
                }
            }
        }
        // Exact values on bench-ref: a GC copy is tR, transfer (4 KiB at 3 ns/B + command), ECC,
        // transfer, tPROG, then done.
        let c = PhaseCosts::new(&dev.geometry, &dev.timing);
        let t = txn(TxnKind::GcCopy, 3, 4);
        let steps: Vec<(u64, bool, bool)> = (0..6).map(|i| t.step_at(i, &c)).map(|s| (s.dur().0, s.xfer(), s.done())).collect();
        let x = dev.timing.transfer(4096).0;
        assert_eq!(x, 12_388); // 4096 B x 3 ns + the 100 ns command
        assert_eq!(
            steps,
            vec![(75_000, false, false), (x, true, false), (dev.timing.ecc_ns, false, false), (x, true, false), (750_000, false, false), (0, false, true)]
        );
        // A level-1 MLC page reads and programs slower.
        let c = PhaseCosts::new(&mlc.geometry, &mlc.timing);
        assert_eq!(txn(TxnKind::Read, 1, 0).step_at(0, &c).dur(), Nanos(90_000));
        assert_eq!(txn(TxnKind::Write, 3, 0).step_at(1, &c).dur(), Nanos(1_500_000));
    }
}
