//! What RAIN parity covers, for the oracle, and the parity across an enacted power cut
//! (`power_cut`; ttFlash's RAIN, FAST'17 §4.2).
//!
//! Coverage: each parity page written is given the signature of the data its stripe holds
//! on flash at that instant (`sim::oracle::stripe_signature`), and every rebuilt read checks
//! it against the stripe's data pages then (`check_stripe_parity`): the XOR is the page only
//! if the two agree. Without cuts the epochs already guarantee it; across a cut it is what
//! proves the repair below.
//!
//! The "write hole". A stripe's parity page is the XOR of the data its stripe had mapped when
//! the parity was written (`write_path`); after a cut, a stripe whose newest data or newest parity
//! did not survive (a program torn, or a parity write still waiting for its plane) has a
//! parity on flash that is not the XOR of its surviving data, and a GC-tolerant read rebuilt
//! from it would return garbage.
//!
//! What recovery does here:
//! 1. before the rebuild, a stripe is *stale* unless its parity covered every data write it
//!    had mapped (`parity_epoch == stripe_epoch`) and the version each of its data pages and
//!    its parity had on flash survived (`stale_stripes`; a page dirty in ttFlash's stripe
//!    buffer survives there, and what the parity covers is its flash version);
//! 2. after the rebuild, a clean stripe's epoch is its surviving parity's; a stale one's
//!    parity is marked behind (`parity_epoch < stripe_epoch`, the state of a parity write
//!    waiting for free space), so no read is rebuilt from it (`read_path::try_rebuild`);
//! 3. once the device is back, a new parity page is written for each stale stripe, as an
//!    internal write (no host request waits for it), through the write path like any parity
//!    write; when it is mapped the stripe's reads can be rebuilt again.
//!
//! The new parity is the XOR of the stripe's data on flash, so its data pages are read first
//! (internal reads, timed like any read and counted in `power_cut_parity_reads`), as ttFlash's
//! flush reads a partial stripe's clean members (`flush`). As there, the parity write does
//! not wait for the reads (the engine moves versions, not data); until it is mapped, the
//! stripe's parity is behind.

use super::Simulation;
use crate::ftl::NONE;
use crate::scheduler::txn::NO_REQ;
use crate::sim::oracle::stripe_signature;

impl Simulation {
    /// Start tracking what parity pages cover (after preconditioning and settling): each
    /// mapped parity page covers its stripe's data as preconditioned.
    pub(super) fn parity_setup(&mut self) {
        let Some(stripes) = self.rain.as_ref().filter(|_| self.oracle.enabled).map(|r| r.stripes) else { return };
        self.oracle.track_parity();
        for s in 0..stripes {
            let pid = self.rain.as_ref().expect("RAIN").parity_id(s);
            let pp = self.ftl.l2p[pid as usize];
            if pp != NONE {
                self.parity_covers(s, pp);
            }
        }
    }

    /// The version physical page `p` holds (0: `NONE`, no page).
    fn flash_version(&self, p: u32) -> u32 {
        if p == NONE { 0 } else { self.oracle.page(p) }
    }

    /// Signature of the data stripe `s` holds on flash now (its data pages' versions).
    fn stripe_data_signature(&self, s: u32) -> u32 {
        let r = self.rain.as_ref().expect("RAIN");
        stripe_signature(r.data_members(s).map(|m| (m, self.flash_version(self.ftl.l2p[m as usize]))))
    }

    /// Parity page `ppn` of stripe `s` is written now: it covers the stripe's data as it is.
    pub(super) fn parity_covers(&mut self, s: u32, ppn: u32) {
        if self.oracle.enabled {
            let sig = self.stripe_data_signature(s);
            self.oracle.parity_written(ppn, sig);
        }
    }

    /// A read of `lpn` is rebuilt from stripe `s`: its parity page must cover the data the
    /// stripe holds on flash now.
    pub(super) fn check_stripe_parity(&mut self, s: u32, lpn: u32) {
        if !self.oracle.enabled {
            return;
        }
        let pid = self.rain.as_ref().expect("RAIN").parity_id(s);
        let pp = self.ftl.l2p[pid as usize];
        let sig = self.stripe_data_signature(s);
        if pp == NONE {
            // A stripe never written holds zeros, parity included: nothing to cover.
            if sig != 0 {
                self.oracle.violation(format_args!("t={}ns rebuilt read of id {lpn}: stripe {s} holds data but no parity page", self.now.0));
            }
        } else {
            self.oracle.check_parity(pp, sig, pid, self.now.0);
        }
    }

    /// Stripes whose surviving parity may not be the XOR of their surviving data (module
    /// doc, step 1). `page`: each id's newest surviving page on flash (data, then parity);
    /// asked before recovery, while the mapping still names the pages last written. Flash
    /// versions, not the newest: a page dirty in ttFlash's stripe buffer survives there, and
    /// what matters to the parity is the version its stripe holds on flash.
    pub(super) fn stale_stripes(&self, page: &[u32]) -> Vec<u32> {
        let Some(r) = &self.rain else { return Vec::new() };
        let lost = |id: u32| self.flash_version(page[id as usize]) != self.flash_version(self.ftl.l2p[id as usize]);
        (0..r.stripes)
            .filter(|&s| self.parity_epoch[s as usize] != self.stripe_epoch[s as usize] || lost(r.parity_id(s)) || r.data_members(s).any(lost))
            .collect()
    }

    /// After the rebuild (module doc, step 2): each stripe's epochs from its surviving parity
    /// (`version`, every id's recovered version); a stale stripe's parity is behind, and its
    /// next parity carries an epoch no parity of the stripe carried before. No data page
    /// waits for its plane any more (waiting writes were volatile).
    pub(super) fn restart_stripes(&mut self, version: &[u32], stale: &[u32]) {
        let Some(r) = &self.rain else { return };
        let mut is_stale = vec![false; r.stripes as usize];
        for &s in stale {
            is_stale[s as usize] = true;
        }
        for s in 0..r.stripes as usize {
            let survived = version[r.parity_id(s as u32) as usize];
            if is_stale[s] {
                self.stripe_epoch[s] = self.stripe_epoch[s].max(survived) + 1;
            } else {
                debug_assert_eq!(self.stripe_epoch[s], survived, "a clean stripe's parity survived at its epoch");
                self.stripe_epoch[s] = survived;
            }
            self.parity_epoch[s] = survived;
        }
        self.stripe_waiting.fill(0);
    }

    /// Once the device is back (module doc, step 3): a new parity page for each stale stripe,
    /// after reads of its data pages on flash. Returns the reads.
    pub(super) fn rewrite_parity(&mut self, stale: &[u32]) -> u64 {
        let Some(r) = self.rain.clone() else { return 0 };
        let mut reads = 0;
        for &s in stale {
            for m in r.data_members(s) {
                let mp = self.ftl.l2p[m as usize];
                if mp == NONE {
                    continue; // never written: zeros
                }
                reads += 1;
                self.internal_read(m, mp, NONE);
            }
            self.submit_stripe_parity(NO_REQ, s, false);
        }
        reads
    }
}
