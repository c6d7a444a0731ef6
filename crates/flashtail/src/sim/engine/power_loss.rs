//! What survives a power loss at the current instant, for the audit of `sim::power_loss` and
//! the enacted power cut:
//! the spare areas of the pages whose programs finished, in blocks whose erase was not issued;
//! with power-loss protection (`ftl.power_loss_protection`, the default) also the host
//! writes whose programs are under way, which the capacitors let the controller finish; and
//! ttFlash's capacitor-backed stripe buffer (its dirty pages, and the flushed pages it keeps
//! until their programs finish); and the content-aware schemes' tables, which the SplitGC paper has
//! flushed by supercapacitor: a logical page mapped to a content instead of a page (SplitGC's
//! deferred pages, CAGC's shared ones) is recovered from any listed copy of it that survives.
//!
//! The same computation (`Simulation::survivors`) is what an enacted power cut rebuilds the
//! FTL from (`power_cut`).
//!
//! Does not do: the promise (acknowledged versions, `sim::power_loss::Durability`), or any
//! change to the run: an audit only reads the engine's state.

use super::Simulation;
use crate::scheduler::txn::NO_REQ;
use crate::sim::power_loss::{Durability, Loss};
use crate::ftl::content::VIRT;
use crate::ftl::mapping::NONE;
use crate::units::{BlockId, Ppn};

/// Losses described per audit (all are counted).
const DESCRIBED: usize = 3;

impl Simulation {
    /// Turn audits and power cuts on (from `Simulation::new`, once the device is built and
    /// settled): the versions on the device count as acknowledged. Refuses what the model
    /// does not cover.
    pub(super) fn power_loss_setup(&mut self) -> Result<(), String> {
        let cuts = !self.opts.power_cut_at.is_empty();
        if self.opts.power_loss_every == 0 && !cuts {
            return Ok(());
        }
        // Audits first: their refusals read as before when both are asked for.
        let (what, verb) = if self.opts.power_loss_every > 0 { ("power-loss audits", "audit") } else { ("power cuts", "cut power on") };
        if !self.oracle.enabled {
            return Err(format!("{what} check versions, which only the integrity oracle keeps: turn the oracle on"));
        }
        if let Some(r) = crate::sim::power_loss::refusal(&self.scheme, &self.dev) {
            return Err(r.message(&self.scheme_name, what, verb));
        }
        debug_assert!(self.content.is_none() || !self.guard_superseded, "content tracked with protection only");
        if cuts {
            self.power_cut_setup()?;
        }
        let newest = (0..self.ftl.logical_pages).map(|l| self.oracle.newest(&self.ftl.l2p, l)).collect();
        self.durable = Some(Box::new(Durability::new(newest)));
        Ok(())
    }

    /// Write request `slot` gave logical page `lpn` version `v` (a no-op without audits).
    #[inline]
    pub(super) fn note_version(&mut self, slot: u32, lpn: u32, v: u32) {
        if let Some(d) = &mut self.durable {
            if slot != NO_REQ {
                d.note(slot, lpn, v);
            }
        }
    }

    /// If power failed now: the version of each logical page a recovery would find, checked
    /// against the acknowledged ones. Losses are integrity violations.
    #[cold]
    #[inline(never)]
    pub(super) fn audit_power_loss(&mut self) {
        let Some(mut d) = self.durable.take() else { return };
        let found = self.survivors(false);
        let logical = self.ftl.logical_pages as usize;
        d.shared_recovered += found.shared;
        let losses = d.audit(&found.version[..logical], |l| self.oracle.newest(&self.ftl.l2p, l));
        self.report_losses(&losses);
        self.durable = Some(d);
    }

    /// Losses a recovery would cause (or did: a power cut) are integrity violations; the
    /// first few are described.
    pub(super) fn report_losses(&mut self, losses: &[Loss]) {
        let now = self.now.0;
        for (i, loss) in losses.iter().enumerate() {
            if i < DESCRIBED {
                self.oracle.violation(format_args!("t={now}ns power loss: {loss}"));
            } else {
                self.oracle.violations += 1;
            }
        }
    }

    /// What a recovery finds if power fails now (the model of `sim::power_loss`): the one
    /// computation of what survives, shared by the audit and the enacted power cut
    /// (`power_cut`). `pages`: also say where each logical page's newest surviving version
    /// is (a power cut rebuilds the mapping from it; an audit needs only versions).
    pub(super) fn survivors(&self, pages: bool) -> Survivors {
        let logical = self.ftl.logical_pages;
        // Every id the FTL maps: the logical pages, then RAIN's parity ids.
        let ids = self.ftl.l2p.len() as u32;
        let mut version = vec![0u32; ids as usize];
        let mut page = if pages { vec![NONE; ids as usize] } else { Vec::new() };
        let geo = &self.ftl.geo;
        let mut erasing = vec![false; self.ftl.geo.total_blocks() as usize];
        for b in self.gc.iter().filter(|g| g.erasing).filter_map(|g| g.victim) {
            erasing[b.idx()] = true;
        }
        // With power-loss protection (or ttFlash's stripe buffer, which keeps a flushed page
        // until its program finishes) the host writes still being programmed survive too.
        // A GC copy's page does not count before its program finishes (its version is
        // given then: until then the page holds version 0, which never wins), and its
        // source is still mapped.
        let capacitor = self.flush.is_some() || self.dev.ftl.power_loss_protected();
        let blocks = &self.ftl.blocks;
        let mut end = vec![0u32; geo.total_blocks() as usize];
        for b in 0..geo.total_blocks() {
            if erasing[b as usize] {
                continue;
            }
            let e = if capacitor { blocks.allocated[b as usize] } else { blocks.programmed[b as usize] };
            end[b as usize] = e;
            let first = geo.ppn(BlockId(b), 0).0;
            for p in first..first + e {
                let lpn = self.ftl.p2l[p as usize];
                if lpn < ids {
                    // Ties (a GC copy and its source) keep the first page found: same data.
                    let v = self.oracle.page(p);
                    if v > version[lpn as usize] {
                        version[lpn as usize] = v;
                        if pages {
                            page[lpn as usize] = p;
                        }
                    }
                }
            }
        }
        let mut shared = 0;
        // SplitGC §3.3 and the SplitGC paper: the secondary table and the virtual map entries are
        // flushed by supercapacitor, so a page mapped to content `c` comes back with its
        // newest write if a listed copy of `c` survives (its program finished, its block's
        // erase not issued) and holds that write's content.
        if let Some(ct) = &self.ftl.content {
            for lpn in 0..logical {
                let e = self.ftl.l2p[lpn as usize];
                if e < VIRT || e == NONE {
                    continue;
                }
                let survives = ct.copies(e & !VIRT).iter().any(|&p| {
                    !erasing[geo.block_of(Ppn(p)).idx()] && blocks.is_programmed(geo, Ppn(p)) && self.oracle.holds_newest_content(lpn, p)
                });
                if survives {
                    shared += 1;
                    let r = &mut version[lpn as usize];
                    *r = (*r).max(self.oracle.newest(&self.ftl.l2p, lpn));
                }
            }
        }
        if let Some(fb) = &self.flush {
            for (&lpn, &v) in &fb.dirty {
                let r = &mut version[lpn as usize];
                *r = (*r).max(v);
            }
        }
        Survivors { version, page, end, erasing, shared }
    }
}

/// What survives a power loss at an instant (`Simulation::survivors`).
pub(super) struct Survivors {
    /// Newest surviving version of each id the FTL maps (0: none): the logical pages, then
    /// RAIN's parity ids (a parity page's version is its stripe's epoch).
    pub version: Vec<u32>,
    /// The physical page holding each id's own newest surviving version (`NONE`: none on
    /// flash); empty unless asked for. A page whose newest version survives elsewhere
    /// (ttFlash's stripe buffer) names its newest version on flash here; a logical page
    /// mapped to a content (content-aware schemes) is recovered through the content instead
    /// (`Ftl::recover` keeps its entry), whatever its own page here.
    pub page: Vec<u32>,
    /// Per block: its pages whose programs finished or finish on capacitor power (0 for a
    /// block whose erase was issued): what a spare-area scan reads.
    pub end: Vec<u32>,
    /// Per block: its erase was issued (its data is gone).
    pub erasing: Vec<bool>,
    /// Logical pages recovered from a copy of their content (content-aware schemes).
    pub shared: u64,
}
