//! Multi-plane commands (`ftl.multi_plane = "same-page"`): when a die-wide execution unit
//! begins an operation, it takes queued operations of the same kind for its other planes and
//! runs them with it as one command, as MQSim's transaction scheduler does
//! (`TSU_Base::issue_command_to_chip`): at most one operation per plane, all at the same page
//! index within their blocks (erases: any block).
//!
//! The command runs as its first operation (the *leader*) with the others as its
//! *companions* (`Unit::companions`): its transfers and controller work count once per
//! operation, one after another on the channel, each with its command overhead; its array
//! phase (tR, tPROG, tBERS) once for all (`Txn::planes`). Every operation completes when the
//! command does, each for its own request; each is charged its own queueing time and the
//! command's channel wait.
//!
//! Which operations join:
//! - a host read: any queued host read of another plane at the leader's page index whose
//!   mapping has not changed since it was queued (others begin on their own, where their
//!   mapping is resolved again);
//! - a host write: the next queued write of another plane (a block's pages are programmed
//!   in order), when its page is at the leader's page index;
//! - a GC move: a move of another plane of the unit whose GC may run now (foreground, or
//!   background with no host operation queued), when its destination page is at the
//!   leader's destination page index (one multi-plane program). MQSim issues a move's read
//!   and program as separate transactions, each multi-plane on its own, and queues all of a
//!   victim's reads at once, so that any two at one index pair. flashtail moves a page as
//!   one transaction: the joining plane moves its victim's page at the leader's source index
//!   if that page is still to be moved (out of order; one multi-plane read), else its next
//!   page, whose read then runs after the leader's (`Txn::extra_array`). (Joining on the
//!   source index alone, with the programs one after another, was tried: it pulls the
//!   planes' GC frontiers apart, halves the multi-plane programs and lengthens the tails.)
//!   Copybacks need both indices equal.
//! - an erase: the next operation of another plane's GC when it is its erase.
//!
//! With `"mqsim"` reads follow the page-index rule and programs join at any page index: MQSim
//! checks the index, but against every queued program of the other plane, and programs the
//! one it finds ahead of that plane's earlier pages (out of order, which NAND forbids); with
//! deep write queues almost every program finds a partner. flashtail keeps each block's
//! program order and pairs the plane's next program, as often as MQSim pairs. With
//! `"any-page"` no index is checked (a what-if bound: some newer parts read each plane
//! independently). Without the index rule the command's array time is the leader's page's
//! (the same on single-level cells; on multi-level ones its level sets it). A write still
//! joins only as its plane's next write.
//!
//! Does not do: multi-plane commands under the Venice mesh, content-aware schemes, die
//! failures or program/erase suspension (the device refuses the last combination); mixed
//! host and GC operations in one command (MQSim combines a GC read with host reads, and a GC
//! program with host programs); multi-plane reads into a GC-tolerant read's estimate.

use super::Simulation;
use crate::config::MultiPlane;
use crate::ftl::{Stream, NONE};
use crate::gc::GcMode;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::unit::MAX_COMPANIONS;
use crate::scheduler::TxnKind;
use crate::sim::requests::W_CHANNEL;
use crate::units::{PlaneId, Ppn};

/// Multi-plane commands issued (two or more operations), by kind.
#[derive(Clone, Debug, Default)]
pub(super) struct MultiPlaneCounts {
    /// Commands whose reads ran as one (host reads; GC moves with sources at one index).
    pub reads: u64,
    /// Commands whose programs ran as one (host writes, GC moves).
    pub programs: u64,
    pub erases: u64,
    /// Operations that joined another's command.
    pub companions: u64,
    /// `ftl.multi_plane`: which page indices may join.
    pub rule: MultiPlane,
    /// The source page the GC move being issued takes instead of its victim's next valid
    /// page (set and cleared around one `next_gc_txn`, read by `gc_step`).
    pub prefer_source: Option<Ppn>,
}

/// How a plane's next GC operation joins a multi-plane command (`gc_joins`).
struct GcJoin {
    /// The victim's page at the leader's source page index, moved out of order so that the
    /// reads are one multi-plane read; `None`: the next page in order, read on its own.
    source: Option<Ppn>,
}

impl Simulation {
    /// Unit `u` begins transaction `t`: take the queued operations that join it in one
    /// multi-plane command (module doc).
    pub(super) fn gather_multi_plane(&mut self, u: u32, t: u32) {
        if self.multi_plane.is_none() || self.units[u as usize].num_planes < 2 || self.failures.is_some() || self.content.is_some() || self.mesh.is_some() {
            return;
        }
        let (kind, plane) = (self.txns[t as usize].kind, self.txns[t as usize].plane);
        let mut taken = [0u32; MAX_COMPANIONS];
        let mut n = 0usize;
        let mut extra_array = 0u64;
        let mut shared_reads = 0u32;
        let ppb = self.ftl.geo.pages_per_block;
        let rule = self.multi_plane.as_ref().map_or(MultiPlane::Off, |m| m.rule);
        // The page index a joining read or program must have (`None`: any).
        let any_read = rule == MultiPlane::AnyPage;
        let any_program = rule != MultiPlane::SamePage;
        let read_at = |p: u32| (!any_read).then_some(p % ppb);
        let program_at = |p: u32| (!any_program).then_some(p % ppb);
        let (first, planes) = (self.units[u as usize].first_plane, self.units[u as usize].num_planes);
        let others = (first..first + planes).map(PlaneId).filter(|&q| q != plane);
        match kind {
            TxnKind::Read => {
                let ppn = self.txns[t as usize].ppn;
                if ppn == NONE {
                    return;
                }
                for q in others {
                    if n == MAX_COMPANIONS {
                        break;
                    }
                    if let Some(c) = self.take_read(u, q, read_at(ppn)) {
                        taken[n] = c;
                        n += 1;
                    }
                }
            }
            TxnKind::Write => {
                let index = program_at(self.txns[t as usize].ppn);
                for q in others {
                    if n == MAX_COMPANIONS {
                        break;
                    }
                    let unit = &self.units[u as usize];
                    let Some(pos) = unit.writes.iter().position(|&w| self.txns[w as usize].plane == q) else { continue };
                    let w = unit.writes[pos];
                    if index.is_none_or(|i| self.txns[w as usize].ppn % ppb == i) {
                        self.units[u as usize].writes.remove(pos);
                        taken[n] = w;
                        n += 1;
                    }
                }
            }
            TxnKind::GcCopy | TxnKind::GcCopyback | TxnKind::Erase => {
                let (src, dst) = (self.txns[t as usize].ppn % ppb, program_at(self.txns[t as usize].dst));
                for q in others {
                    if n == MAX_COMPANIONS {
                        break;
                    }
                    let Some(join) = self.gc_joins(u, q, kind, src, dst) else { continue };
                    if let (Some(p), Some(m)) = (join.source, self.multi_plane.as_mut()) {
                        m.prefer_source = Some(p);
                    }
                    let c = self.next_gc_txn(q);
                    if let Some(m) = self.multi_plane.as_mut() {
                        m.prefer_source = None;
                    }
                    let Some(c) = c else { continue };
                    debug_assert_eq!(self.txns[c as usize].kind, kind, "the GC operation peeked is the one issued");
                    let x = &self.txns[c as usize];
                    if join.source.is_none() && kind != TxnKind::Erase && !any_read {
                        extra_array += self.costs.read_of(x.ppn).0;
                    } else {
                        shared_reads += 1;
                    }
                    taken[n] = c;
                    n += 1;
                }
            }
            TxnKind::Fingerprint | TxnKind::Rewrite => {}
        }
        if n == 0 {
            return;
        }
        for &c in &taken[..n] {
            if self.txns[c as usize].req != NO_REQ {
                self.units[u as usize].add_busy_since(self.now, &self.txns[c as usize].snap, &mut self.reqs.get(self.txns[c as usize].req).wait);
            }
        }
        let x = &mut self.txns[t as usize];
        x.planes = (n + 1) as u8;
        // A tR is at most 1 s (`timing` bounds), so three fit in u32.
        x.extra_array = extra_array as u32;
        let unit = &mut self.units[u as usize];
        unit.companions[..n].copy_from_slice(&taken[..n]);
        unit.companions_len = n as u8;
        let m = self.multi_plane.as_mut().expect("checked above");
        m.companions += n as u64;
        match kind {
            TxnKind::Read => m.reads += 1,
            TxnKind::Write => m.programs += 1,
            TxnKind::Erase => m.erases += 1,
            _ => {
                m.programs += 1;
                m.reads += u64::from(shared_reads > 0);
            }
        }
    }

    /// The first queued host read of plane `q` on unit `u` at page index `index` whose
    /// mapping still holds (so it needs none of `begin`'s re-resolution), taken off the
    /// queue and checked by the oracle.
    fn take_read(&mut self, u: u32, q: PlaneId, index: Option<u32>) -> Option<u32> {
        let ppb = self.ftl.geo.pages_per_block;
        let unit = &self.units[u as usize];
        let pos = unit.reads.iter().position(|&r| {
            let x = &self.txns[r as usize];
            x.plane == q
                && x.ppn != NONE
                && index.is_none_or(|i| x.ppn % ppb == i)
                && !x.internal
                && x.parent == NONE
                && self.ftl.l2p[x.lpn as usize] == x.ppn
                && self.ftl.blocks.is_programmed(&self.ftl.geo, Ppn(x.ppn))
                && self.buffered_version(x.lpn).is_none()
        })?;
        let r = self.units[u as usize].reads.remove(pos).expect("position found");
        let (lpn, ppn) = (self.txns[r as usize].lpn, self.txns[r as usize].ppn);
        let got = self.oracle.page(ppn);
        self.oracle.check(&self.ftl.l2p, lpn, got, "flash read", self.now.0);
        Some(r)
    }

    /// Whether plane `q`'s next GC operation joins a `kind` command whose leader reads page
    /// index `src` and programs `dst`, and how. Mirrors `gc_step`'s choice without making it
    /// (a victim is chosen if the grant has none).
    fn gc_joins(&mut self, u: u32, q: PlaneId, kind: TxnKind, src: u32, dst: Option<u32>) -> Option<GcJoin> {
        let g = &self.gc[q.idx()];
        let grant = g.grant?;
        if g.in_flight || g.erase_waits.is_some() {
            return None;
        }
        let may_run = match grant.mode {
            GcMode::Background => {
                let unit = &self.units[u as usize];
                unit.reads.is_empty() && unit.writes.is_empty()
            }
            _ => true,
        };
        if !may_run {
            return None;
        }
        let victim = match g.victim {
            Some(v) => v,
            None => {
                let v = self.scheme.victim.select(&self.ftl, q, grant.min_invalid_pages, self.now)?;
                self.start_victim(q, v);
                v
            }
        };
        let g = &self.gc[q.idx()];
        match self.ftl.next_valid_in_block(victim, g.cursor) {
            Some(_) if grant.steps > 0 => {
                // The victim's page at the leader's index, if it is still to be moved.
                let at = self.ftl.geo.ppn(victim, src);
                let source = (src >= g.cursor && self.ftl.is_valid(at)).then_some(at);
                let to = self.ftl.blocks.next_page_index(q, Stream::Gc, 0)?;
                let same_dst = dst.is_none_or(|d| to == d);
                let fits = match kind {
                    TxnKind::GcCopy => same_dst,
                    TxnKind::GcCopyback => same_dst && (source.is_some() || dst.is_none()),
                    _ => false,
                };
                fits.then_some(GcJoin { source })
            }
            None if grant.allow_erase && kind == TxnKind::Erase && self.ftl.blocks.superseded_in_flight[victim.idx()] == 0 => {
                Some(GcJoin { source: None })
            }
            _ => None,
        }
    }

    /// Unit `u`'s command got the channel after `waited` ns: its companions' requests
    /// waited as long.
    #[cold]
    pub(super) fn companions_channel_waited(&mut self, u: u32, waited: u64) {
        let unit = &self.units[u as usize];
        for &c in &unit.companions[..usize::from(unit.companions_len)] {
            let req = self.txns[c as usize].req;
            if req != NO_REQ {
                self.reqs.get(req).wait[W_CHANNEL] += waited;
            }
        }
    }

    /// The companions of unit `u`'s finished command, taken off the unit (a transaction
    /// begun while they are finished may form a command of its own).
    #[inline]
    pub(super) fn take_companions(&mut self, u: u32) -> ([u32; MAX_COMPANIONS], usize) {
        let unit = &mut self.units[u as usize];
        let n = usize::from(unit.companions_len);
        unit.companions_len = 0;
        (unit.companions, n)
    }

    /// The multi-plane counters for the report (`flash.extra`).
    pub(super) fn multi_plane_report(&self, extra: &mut std::collections::BTreeMap<String, u64>) {
        if let Some(m) = &self.multi_plane {
            extra.insert("multi_plane_reads".into(), m.reads);
            extra.insert("multi_plane_programs".into(), m.programs);
            extra.insert("multi_plane_erases".into(), m.erases);
            extra.insert("multi_plane_companions".into(), m.companions);
        }
    }
}
