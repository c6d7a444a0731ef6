//! Reclamation at no time cost: NoGC's instant GC during a run, and the settling of an aged
//! device before the run.
//!
//! Settling: the SSDsim aging model (`precondition.model = "aged"`) can leave a plane below
//! the GC soft threshold (ratio r leaves 1 − r of it free). A drive never sits there in
//! service: its GC ran while it was being filled. Started that way, every such plane would
//! collect victim after victim at t = 0, whatever the workload, and that burst would be the
//! run's tail (on `dtrs-demo`, about nine victims per plane before the first request could
//! be served). So, unless `precondition.settle = false`, each plane below the threshold is
//! collected here with greedy victims (the same for every scheme, so all schemes start from
//! the same state) until it is back at the threshold.
//!
//! Does not do: any timing, wear, or the scheme's own victim choice (settling is history
//! before the run, not the scheme's work).

use crate::config::{DeviceConfig, Precondition};
use crate::ftl::precondition::PreconditionSummary;
use crate::ftl::{BlockState, Ftl, Stream};
use crate::gc::victim::{Greedy, VictimPolicy};
use crate::sim::oracle::Oracle;
use crate::units::{Nanos, PlaneId};

/// What one zero-time reclamation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Reclaimed {
    pub victims: u64,
    pub pages_moved: u64,
}

/// Collect victims of `plane` chosen by `victim`, moving their valid pages within the plane
/// and erasing them, until the plane has `until` free blocks or no victim is left. The oracle
/// follows every move. Errs when the plane has no free page left for a move.
pub(super) fn reclaim_now(
    ftl: &mut Ftl,
    oracle: &mut Oracle,
    victim: &mut dyn VictimPolicy,
    plane: PlaneId,
    until: u32,
    now: Nanos,
) -> Result<Reclaimed, String> {
    let mut done = Reclaimed::default();
    while ftl.free_blocks(plane) < until {
        let Some(v) = victim.select(ftl, plane, 1, now) else { break };
        ftl.blocks.state[v.idx()] = BlockState::Victim;
        done.victims += 1;
        let mut cursor = 0;
        while let Some(src) = ftl.next_valid_in_block(v, cursor) {
            cursor = ftl.geo.page_in_block(src) + 1;
            let Some((dst, _)) = ftl.allocate(plane, Stream::Gc, 0) else {
                return Err(format!("plane {plane} has no free page left for (instant) GC at t={} ns", now.0));
            };
            let _ = ftl.blocks.mark_programmed(&ftl.geo, dst, now.0);
            oracle.copy(src.0, dst.0, oracle.page(src.0));
            oracle.copy_content(src.0, dst.0);
            let moved = ftl.remap_if_current(src, dst);
            debug_assert!(moved, "a valid page of a victim is its logical page's current copy");
            done.pages_moved += 1;
        }
        ftl.blocks.erase(&ftl.geo, v);
        let first = ftl.geo.ppn(v, 0).0;
        oracle.erase(first, ftl.geo.pages_per_block);
    }
    Ok(done)
}

/// Bring every plane of an aged device up to the GC soft threshold with greedy victims
/// (module doc), and make the preconditioning summary describe the state the run starts
/// from. Part of building the starting state (`start`), before any scheme is plugged in.
pub(super) fn settle(dev: &DeviceConfig, ftl: &mut Ftl, oracle: &mut Oracle, precond: &mut PreconditionSummary) -> Result<(), String> {
    if !matches!(dev.precondition, Precondition::Aged { settle: true, .. }) {
        return Ok(());
    }
    let soft = dev.soft_threshold_blocks();
    let mut greedy = Greedy;
    for p in 0..ftl.geo.planes() {
        let r = reclaim_now(ftl, oracle, &mut greedy, PlaneId(p), soft, Nanos::ZERO)?;
        precond.settle_victims += r.victims;
        precond.settle_pages_moved += r.pages_moved;
    }
    if precond.settle_victims > 0 {
        let b = &ftl.blocks;
        let free: u64 = (0..ftl.geo.planes()).map(|p| u64::from(b.free_blocks(PlaneId(p)))).sum();
        precond.free_blocks = free;
        precond.used_blocks = u64::from(ftl.geo.total_blocks()) - free;
        precond.invalid_pages = (0..b.state.len()).filter(|&i| b.state[i] != BlockState::Free).map(|i| u64::from(b.programmed[i] - b.valid[i])).sum();
    }
    Ok(())
}
