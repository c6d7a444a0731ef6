//! Flash transactions and their phase sequences.

use crate::nand::{Geometry, Timing};
use crate::units::{Nanos, PlaneId, Ppn};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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
}

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
    /// When it entered its unit's queue.
    pub enq: Nanos,
    /// The unit's cumulative busy time per cause when this transaction was queued.
    pub snap: [u64; 3],
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
}

impl Txn {
    /// The `i`-th phase of this transaction, or `None` when it is done.
    pub fn phase_at(&self, i: u8, geo: &Geometry, t: &Timing) -> Option<Phase> {
        let page = geo.page_size as u64;
        let lvl = |p: u32| if p == u32::MAX { 0 } else { geo.level_of(Ppn(p)) };
        let p = match (self.kind, i) {
            (TxnKind::Read, 0) => Phase::Array(t.read(lvl(self.ppn))),
            (TxnKind::Read, 1) => Phase::Xfer(t.transfer(page)),
            (TxnKind::Write, 0) => Phase::Xfer(t.transfer(page)),
            (TxnKind::Write, 1) => Phase::Array(t.program(lvl(self.ppn))),
            (TxnKind::GcCopy, 0) => Phase::Array(t.read(lvl(self.ppn))),
            (TxnKind::GcCopy, 1) => Phase::Xfer(t.transfer(page)),
            (TxnKind::GcCopy, 2) => Phase::Ctrl(Nanos(t.ecc_ns)),
            (TxnKind::GcCopy, 3) => Phase::Xfer(t.transfer(page)),
            (TxnKind::GcCopy, 4) => Phase::Array(t.program(lvl(self.dst))),
            (TxnKind::GcCopyback, 0) => Phase::Xfer(t.copyback_command()),
            (TxnKind::GcCopyback, 1) => Phase::Array(t.read(lvl(self.ppn)) + t.program(lvl(self.dst))),
            (TxnKind::Erase, 0) => Phase::Xfer(t.command()),
            (TxnKind::Erase, 1) => Phase::Array(t.erase()),
            _ => return None,
        };
        Some(p)
    }

    pub fn is_gc(&self) -> bool {
        matches!(self.kind, TxnKind::GcCopy | TxnKind::GcCopyback | TxnKind::Erase)
    }
}
