//! Program/erase suspend for reads (as NAND parts offer it, and as MQSim models it): a read
//! arriving at a unit whose array is busy programming or erasing may suspend that operation,
//! run (with any reads queued behind it), and let the operation resume for its remaining
//! time plus a resume penalty. Suspending takes `timing.suspend.suspend_ns`; an operation
//! with less time than that left is not suspended; a suspended operation is not suspended
//! again while parked (queued reads simply run first). Off unless `timing.suspend.enabled`.

use super::Simulation;
use crate::scheduler::unit::{IDLE, PARKED_WRITE_BACK};
use crate::scheduler::{Cause, Phase, TxnKind};
use crate::units::Nanos;

impl Simulation {
    /// A read was queued on unit `u`: suspend its program or erase if that pays.
    pub(super) fn maybe_suspend(&mut self, u: u32) {
        let unit = &self.units[u as usize];
        if unit.running == IDLE || unit.parked.is_some() || unit.suspending || unit.phase_end == Nanos::MAX {
            return;
        }
        if self.next_chained(u).is_some() {
            // Still in a chained transfer (see `phases`): not a program or erase yet.
            return;
        }
        let txn = &self.txns[unit.running as usize];
        let long_op = match (txn.kind, txn.phase(txn.phase, &self.costs)) {
            (TxnKind::Write, Some(Phase::Array(_))) | (TxnKind::Erase, Some(Phase::Array(_))) => true,
            (TxnKind::GcCopy, Some(Phase::Array(_))) => txn.phase == 4,
            // Copyback's array phase is read + program in one: suspend only its program part.
            (TxnKind::GcCopyback, Some(Phase::Array(_))) => false,
            _ => false,
        };
        let s = &self.dev.timing.suspend;
        let left = unit.phase_end.saturating_sub(self.now);
        if !long_op || left.0 <= s.suspend_ns {
            return;
        }
        let u_ = &mut self.units[u as usize];
        u_.suspending = true;
        // Remember what is left; the suspend latency itself runs now.
        u_.parked = Some((u_.running, left));
        let end = self.now + Nanos(s.suspend_ns);
        self.c.suspends += 1;
        self.schedule_unit(u, end);
    }

    /// The suspend latency is over: park the operation and let the reads in.
    pub(super) fn park(&mut self, u: u32) {
        let unit = &mut self.units[u as usize];
        unit.suspending = false;
        unit.vacate(self.now);
        unit.phase_end = Nanos::ZERO;
        self.dispatch(u);
    }

    /// No read waits any more: resume the parked operation for its remaining time.
    pub(super) fn resume(&mut self, u: u32) {
        let resume = Nanos(self.dev.timing.suspend.resume_ns);
        let unit = &mut self.units[u as usize];
        let Some((t, left)) = unit.parked else { return };
        if left == PARKED_WRITE_BACK {
            // Not a suspension: a GC write-back waiting for a path (mesh_path.rs).
            self.mesh_resume_write_back(u, t);
            return;
        }
        let cause = Cause::of_txn(&self.txns[t as usize]);
        let unit = &mut self.units[u as usize];
        unit.parked = None;
        unit.occupy(t, cause, self.now);
        let end = self.now + left + resume;
        self.schedule_unit(u, end);
    }
}
