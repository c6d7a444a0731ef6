//! Power-loss audits: what the host was promised, checked against what a recovery would find
//! if power failed at a given instant (a simulator requirement: data integrity across power
//! loss).
//!
//! The model of a power loss (the engine's `power_loss` module collects what survives):
//! - flash keeps every page whose program *finished*, with its spare area (the logical page
//!   it was written for, `Ftl::p2l`, and the oracle's version of its data); a block whose
//!   erase was issued is gone;
//! - with power-loss protection (`ftl.power_loss_protection`, on by default, as in datacenter
//!   SSDs) capacitors let the controller finish the host writes it was programming; without
//!   it those programs are torn, and the FTL must keep the page each of them supersedes (its
//!   block is not erased until the program finishes);
//! - the rest of controller DRAM is lost, mapping table included: recovery rebuilds the
//!   mapping by scanning the spare areas and keeping each logical page's newest version;
//! - capacitor-backed memory survives: ttFlash's stripe buffer (FAST'17 §4.4) holds its dirty
//!   pages and the flushed pages whose programs have not finished; the content-aware schemes'
//!   tables (SplitGC §3.3: flushed by supercapacitor) keep each logical page mapped
//!   to a content instead of a page (SplitGC's deferred pages, CAGC's shared ones), which
//!   recovery reads from any listed copy of that content whose program finished and whose
//!   block's erase was not issued (these schemes are audited with protection only: the
//!   supercapacitor is the protection).
//!
//! The promise: a write request the host saw complete is durable. So after recovery each
//! logical page must hold the version of its newest acknowledged write or a newer one (a
//! write still in flight may survive or not), and never a version that was never written.
//! An audit checks that for every logical page; a page below its acknowledged version is an
//! integrity violation, reported like a stale read. Audits change nothing in the run.
//!
//! A power *cut* (`SimOptions::power_cut_at`, the engine's `power_cut` module) makes the same
//! check at its instant and then enacts the loss: the engine drops everything volatile,
//! rebuilds the FTL from what survives (the same computation the audit uses), is unavailable
//! for the recovery's spare-area scan, and goes on from the recovered state, the host sending
//! again every request that had not completed; `Durability::restart` makes the recovered
//! versions the new promise. Under the content-aware schemes the recovery keeps their
//! flushed tables, so a page mapped to a content stays mapped to it (`ftl::recovery`).
//!
//! Does not model: the time or flash footprint of flushing the content-aware schemes' tables,
//! and the DRAM write buffer without ttFlash's flush (refused: its writes get their versions
//! only when flushed, after the host saw them complete).

use crate::config::DeviceConfig;
use crate::gc::Scheme;

/// A scheme on a device that power-loss audits and power cuts do not cover (module doc),
/// asked by the engine when it builds a run, by `compare` to leave such schemes out of its
/// default set, and by the fuzzer to decide where to cut power: one decision.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A content-aware scheme without power-loss protection: its tables need the
    /// supercapacitor.
    ContentUnprotected,
    /// NoGC without power-loss protection: its instant erases skip the wait for programs
    /// superseding a block's pages.
    InstantReclaimUnprotected,
    /// The DRAM write buffer without ttFlash's flush: its writes complete before they get a
    /// version.
    DramBuffer,
}

/// Why power loss cannot be audited or enacted under `scheme` on `dev`, if it cannot.
pub fn refusal(scheme: &Scheme, dev: &DeviceConfig) -> Option<Refusal> {
    let protected = dev.ftl.power_loss_protected();
    if scheme.content.is_some() && !protected {
        Some(Refusal::ContentUnprotected)
    } else if scheme.gc.reclaims_instantly() && !protected {
        Some(Refusal::InstantReclaimUnprotected)
    } else if dev.buffer.enabled && !scheme.gc_tolerant_flush {
        Some(Refusal::DramBuffer)
    } else {
        None
    }
}

impl Refusal {
    /// The error for scheme `name`; `what` is "power-loss audits" or "power cuts", `verb`
    /// "audit" or "cut power on".
    pub fn message(self, name: &str, what: &str, verb: &str) -> String {
        match self {
            Refusal::ContentUnprotected => format!(
                "scheme '{name}': the content-aware schemes' tables are flushed by supercapacitor at a power loss (SplitGC paper), \
                 which a device without power-loss protection does not have: {verb} it with ftl.power_loss_protection on"
            ),
            Refusal::InstantReclaimUnprotected => format!(
                "scheme '{name}' reclaims blocks instantly, ignoring the pages a power loss without protection needs \
                 kept: {verb} it with ftl.power_loss_protection on"
            ),
            Refusal::DramBuffer => format!(
                "{what} do not cover the DRAM write buffer (buffer.enabled) without ttFlash's flush: \
                 its writes complete before they get a version"
            ),
        }
    }
}

/// The host's view: the newest acknowledged version of each logical page.
#[derive(Clone, Debug)]
pub struct Durability {
    /// Newest version of each logical page whose write request completed.
    acked: Vec<u32>,
    /// Versions given to each in-flight write request's pages, by request slot; moved to
    /// `acked` when the request completes.
    pending: Vec<Vec<(u32, u32)>>,
    /// Audits run.
    pub audits: u64,
    /// Summed over the audits: logical pages whose newest (unacknowledged) write would not
    /// have survived. Allowed; reported to show the audits met writes in flight.
    pub unacked_lost: u64,
    /// Summed over the audits: logical pages recovered from a copy of their content instead
    /// of their own page (content-aware schemes). Reported to show the audits met them.
    pub shared_recovered: u64,
}

/// What one audit found wrong (at most a few are described; `Oracle` counts them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loss {
    /// Recovery would give an older version than the host was told is durable.
    Acknowledged { lpn: u32, recovered: u32, acked: u32 },
    /// Recovery would give a version newer than any write of the page.
    Invented { lpn: u32, recovered: u32, newest: u32 },
}

impl Durability {
    /// Start from the device as built: every version on it (`newest`, preconditioned data)
    /// counts as acknowledged.
    pub fn new(newest: Vec<u32>) -> Durability {
        Durability { acked: newest, pending: Vec::new(), audits: 0, unacked_lost: 0, shared_recovered: 0 }
    }

    /// Request `slot`'s write of `lpn` was given version `v`.
    pub fn note(&mut self, slot: u32, lpn: u32, v: u32) {
        let i = slot as usize;
        if self.pending.len() <= i {
            self.pending.resize_with(i + 1, Vec::new);
        }
        self.pending[i].push((lpn, v));
    }

    /// Write request `slot` completed: the host now counts on its versions.
    pub fn acknowledge(&mut self, slot: u32) {
        let Some(p) = self.pending.get_mut(slot as usize) else { return };
        for (lpn, v) in p.drain(..) {
            let a = &mut self.acked[lpn as usize];
            *a = (*a).max(v);
        }
    }

    /// Compare `recovered` (the version recovery finds per logical page, 0 = none) with the
    /// promise; `newest(lpn)` is the newest version ever given. Returns the losses; counts
    /// the audit and the unacknowledged pages lost.
    pub fn audit(&mut self, recovered: &[u32], newest: impl Fn(u32) -> u32) -> Vec<Loss> {
        let (losses, unacked) = self.check(recovered, newest);
        self.audits += 1;
        self.unacked_lost += unacked;
        losses
    }

    /// The comparison of [`Durability::audit`], counting nothing: the losses, and how many
    /// logical pages lose their newest (unacknowledged) version. An enacted power cut
    /// checks its recovery with it (`sim::engine::power_cut`).
    pub fn check(&self, recovered: &[u32], newest: impl Fn(u32) -> u32) -> (Vec<Loss>, u64) {
        assert_eq!(recovered.len(), self.acked.len(), "a recovered version per logical page");
        let mut losses = Vec::new();
        let mut unacked = 0;
        for (lpn, (&r, &a)) in recovered.iter().zip(&self.acked).enumerate() {
            let lpn = lpn as u32;
            let n = newest(lpn);
            if r < a {
                losses.push(Loss::Acknowledged { lpn, recovered: r, acked: a });
            } else if r > n {
                losses.push(Loss::Invented { lpn, recovered: r, newest: n });
            }
            if r < n {
                unacked += 1;
            }
        }
        (losses, unacked)
    }

    /// Power was cut and the device recovered `recovered`: that is what the host can count
    /// on from now (every write in flight was abandoned, and the host sends it again).
    pub fn restart(&mut self, recovered: &[u32]) {
        assert_eq!(recovered.len(), self.acked.len(), "a recovered version per logical page");
        self.acked.copy_from_slice(recovered);
        self.pending.clear();
    }
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Loss::Acknowledged { lpn, recovered, acked } => write!(
                f,
                "LPN {lpn}: recovery finds version {recovered}, but the host was told version {acked} is durable"
            ),
            Loss::Invented { lpn, recovered, newest } => {
                write!(f, "LPN {lpn}: recovery finds version {recovered}, newer than any write ({newest})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version counts once its request completes, not when it is given; a newer
    /// unacknowledged version may be lost, an acknowledged one may not.
    #[test]
    fn acknowledged_versions_must_survive_and_unacknowledged_ones_may_not() {
        let mut d = Durability::new(vec![1, 1, 0]);
        d.note(0, 0, 2);
        d.note(0, 2, 1);
        let newest = |l: u32| [2, 1, 1][l as usize];
        // Request 0 in flight: recovering the old versions is fine (two pages lost, allowed).
        assert!(d.audit(&[1, 1, 0], newest).is_empty());
        assert_eq!(d.unacked_lost, 2);
        d.acknowledge(0);
        assert_eq!(
            d.audit(&[1, 1, 1], newest),
            vec![Loss::Acknowledged { lpn: 0, recovered: 1, acked: 2 }]
        );
        assert!(d.audit(&[2, 1, 1], newest).is_empty());
        assert_eq!(d.audit(&[2, 3, 1], newest), vec![Loss::Invented { lpn: 1, recovered: 3, newest: 1 }]);
        assert_eq!(d.audits, 4);
        // Acknowledging twice, or a slot never noted, changes nothing.
        d.acknowledge(0);
        d.acknowledge(7);
        assert!(d.audit(&[2, 1, 1], newest).is_empty());
    }

    /// Two in-flight writes of one page completing out of order leave the newer version.
    #[test]
    fn out_of_order_completions_keep_the_newest_acknowledged_version() {
        let mut d = Durability::new(vec![1]);
        d.note(3, 0, 2);
        d.note(5, 0, 3);
        d.acknowledge(5);
        d.acknowledge(3);
        assert_eq!(d.audit(&[2], |_| 3), vec![Loss::Acknowledged { lpn: 0, recovered: 2, acked: 3 }]);
    }
}
