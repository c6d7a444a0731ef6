//! What an enacted power cut (the engine's `power_cut`) does to a content-aware scheme's
//! work in the engine, item by item: what survives and what is lost, and how the run goes
//! on from it.
//!
//! Survives, restored by `Ftl::recover` (`ftl::recovery`): the content tables, which the
//! supercapacitor flushes at a power loss (the SplitGC paper, "Crash consistency": "metadata is
//! flushed by supercapacitor on power loss"; SplitGC §3.3): the fingerprint (secondary)
//! table, the sharers and virtual map entries, the duplicate bits, DAGC's checksum cache
//! (kept pages). The scrub's progress table (which group the next pass fingerprints) is
//! metadata of the same kind and survives too.
//!
//! Lost with controller memory (volatile), and what replaces it:
//! - transactions under way (scrub reads, CAGC's fingerprint reads, deferred writes,
//!   rescues of last copies, DAGC's kept-page moves): the engine drops them all; the pages
//!   their programs were writing are given up (`power_cut`, step 3). A victim being
//!   collected is an ordinary sealed block again, so the pages written for it no longer
//!   count (`victim_written`).
//! - SplitGC's waiting queue of deferred writes is a DRAM queue. It is re-derived from the
//!   flushed secondary table, which SplitGC updates atomically before a page enters the
//!   queue (SplitGC paper) precisely so that it can be: SplitGC maps a logical page to a content
//!   only when GC defers the page, and the mapping ends when the deferred write (or a rescue,
//!   or the host) gives the page a copy of its own. So the sharers are exactly the pages
//!   still waiting; each is queued again, in logical page order, on the plane of the copy
//!   its write will read. Queue entries of pages the host had overwritten meanwhile are not
//!   (they would be skipped as superseded). Every deferred page thus stays readable (through
//!   its content, until its write) and gets its own copy back in idle time, as without a cut.
//!   CAGC's sharers are deduplicated pages that stay shared (no queue); DAGC has none.
//! - The running scrub pass (its per-plane cursors, the Bloom filter probe of a read under
//!   way) is abandoned; its group is fingerprinted again by the next pass (`Scrub::abort`).
//!   The pass timer is gone with the event queue: the next pass starts a period after the
//!   device is back, as the first one starts a period after the first request.
//! - The Bloom filter is a DRAM screen in front of the fingerprint table, derived from it, not
//!   metadata: it is rebuilt from the table as at the start of each cycle of passes. It only
//!   loses the fingerprints of pages found unique (which match no other page), so the
//!   screening goes on as before.
//! - Background work held back for a channel's GC, and the content of the write being
//!   submitted: no GC runs and nothing is submitted after a cut.
//!
//! Does not model: the time to flush and reload the tables or to rebuild the filter (done by
//! the controller during the recovery scan, whose time is counted).

use super::Ctr;
use crate::sim::engine::Simulation;
use crate::units::{Nanos, PlaneId};

impl Simulation {
    /// Drop the scheme's volatile work (module doc; from the cut's `drop_volatile`, with every
    /// transaction being dropped).
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_power_cut(&mut self) {
        let w = self.cw();
        let queued: u64 = w.deferred.iter().map(|d| d.len() as u64).sum();
        let dropped = queued + u64::from(std::mem::take(&mut w.deferred_in_flight));
        w.deferred.iter_mut().for_each(|d| d.clear());
        w.add_some(Ctr::PowerCutDeferredDropped, dropped);
        w.held_back.fill(false);
        w.held_back_on.fill(0);
        w.scrub_probe.fill(None);
        w.victim_written.fill(0);
        w.write_content = 0;
        let aborted = w.scrub.as_mut().is_some_and(|s| s.abort());
        w.add_some(Ctr::PowerCutScrubPassesAborted, u64::from(aborted));
    }

    /// The device is back from a cut (`now` is the end of the recovery) and the content
    /// tables are restored: re-derive SplitGC's waiting queue, rebuild its Bloom filter, plan
    /// the next scrub pass, and count DAGC's kept pages (module doc).
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_recovered(&mut self) {
        if self.cw().scrub.is_some() {
            self.requeue_deferred();
            self.bloom_from_table();
            let (now, w) = (self.now, self.cw());
            if w.started && !w.draining {
                let at = now + Nanos(w.params.period_ms * 1_000_000);
                self.schedule_token(at, super::SCRUB_TOKEN);
            }
        }
        let kept = self.ftl.content.as_ref().and_then(|ct| ct.cache.as_ref()).map_or(0, |c| c.len() as u64);
        self.cw().add_some(Ctr::PowerCutDagcKeptPages, kept);
    }

    /// SplitGC: queue a deferred write for every logical page mapped to a content (module
    /// doc), on the plane of the copy it will read, and wake those planes' units.
    fn requeue_deferred(&mut self) {
        let ct = self.ftl.content.as_ref().expect("content");
        let mut waiting: Vec<(u32, u32)> = ct.sharers.iter().flat_map(|(&c, s)| s.iter().map(move |&l| (l, c))).collect();
        // The sharers are a hash map: logical page order makes the run deterministic.
        waiting.sort_unstable();
        let n = waiting.len() as u64;
        let mut planes: Vec<PlaneId> = Vec::new();
        for (lpn, c) in waiting {
            let copy = self.serving_copy(crate::ftl::content::VIRT | c);
            let q = self.ftl.blocks.plane_of(crate::units::Ppn(copy));
            self.cw().deferred[q.idx()].push_back((lpn, c));
            planes.push(q);
        }
        let w = self.cw();
        if n > 0 {
            w.add(Ctr::PowerCutDeferredRequeued, n);
            w.max(Ctr::DeferredQueueMax, n);
        }
        planes.sort_unstable();
        planes.dedup();
        for q in planes {
            self.wake(q);
        }
    }
}
