//! The engine's pending-event queue: a min-heap ordered by (time, sequence number).
//!
//! The queue is popped once per simulated event (tens of millions per run) and stays small
//! (about one event per busy execution unit), so the cost is in comparisons and moves. The
//! order key is one `u128` (time in the high half, sequence in the low half) compared in one
//! go. Sequence numbers are unique, so the order is total and pops are identical to any
//! other correct priority queue on the same keys (tested against `std`'s `BinaryHeap`).
//!
//! Most pops are followed at once by a push (a unit's phase ends and its next phase starts),
//! so `pop` only *reads* the top and the removal is deferred: a push that comes next
//! overwrites the top and sifts it down once, instead of a removal (sift to the bottom and
//! back up) plus an insertion (sift up). (Tried and measured slower: a 4-ary heap; a winner
//! tree over the units' one-event slots, which needs log2(units) levels per update; a radix
//! heap, whose keys move through a dozen buckets on their way down: 44 against 28 ns per pop
//! and push in the micro-benchmark, +14 % instructions on the reference benchmark.)
//!
//! Does not do: removal or re-prioritisation of queued events (the engine recognises
//! stale ones when they pop).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bits of the low key half that carry the payload (the rest carries the sequence number).
pub const PAYLOAD_BITS: u32 = 24;
/// Largest sequence number a key can hold (2^40 − 1: a trillion events).
pub const MAX_SEQ: u64 = (1 << (64 - PAYLOAD_BITS)) - 1;

/// A min-queue of 24-bit payloads keyed by `(time, seq)`; `seq` must be unique per push.
///
/// Each entry is one `u128`: time in the high half, then the sequence number, then the
/// payload. Sequence numbers are unique, so the payload bits never decide the order. One
/// 16-byte value per entry is written and read whole: a struct with a separate small payload
/// field was written with narrow stores and read back wide during the heap's sift, which
/// defeats store-to-load forwarding (it was the engine's hottest instruction).
#[derive(Clone, Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<u128>>,
    /// The top entry was returned by `pop` but is still in `heap` (see the module doc).
    popped: bool,
}

impl EventQueue {
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.popped)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Carry out a deferred removal.
    #[inline]
    fn settle(&mut self) {
        if self.popped {
            self.popped = false;
            self.heap.pop();
        }
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<u64> {
        self.settle();
        self.heap.peek().map(|Reverse(k)| (k >> 64) as u64)
    }

    #[inline]
    pub fn push(&mut self, t: u64, seq: u64, payload: u32) {
        assert!(seq <= MAX_SEQ, "event sequence number {seq} exceeds the queue's {MAX_SEQ}");
        debug_assert!(payload < (1 << PAYLOAD_BITS), "payload {payload} exceeds {PAYLOAD_BITS} bits");
        let low = (seq << PAYLOAD_BITS) | u64::from(payload);
        let key = Reverse((u128::from(t) << 64) | u128::from(low));
        if self.popped {
            self.popped = false;
            // Replace the consumed top; `PeekMut` sifts the new entry down when dropped.
            match self.heap.peek_mut() {
                Some(mut top) => *top = key,
                None => unreachable!("a deferred removal implies a top entry"),
            }
        } else {
            self.heap.push(key);
        }
    }

    /// Remove and return the earliest event as `(time, seq, payload)`.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, u64, u32)> {
        self.settle();
        let &Reverse(k) = self.heap.peek()?;
        self.popped = true;
        let low = k as u64;
        Some(((k >> 64) as u64, low >> PAYLOAD_BITS, (low & ((1 << PAYLOAD_BITS) - 1)) as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn pops_in_time_then_sequence_order() {
        let mut q = EventQueue::default();
        q.push(5, 1, 10);
        q.push(3, 2, 11);
        q.push(5, 3, 12);
        q.push(3, 4, 13);
        q.push(0, 5, (1 << PAYLOAD_BITS) - 1);
        assert_eq!(q.peek_time(), Some(0));
        let order: Vec<(u64, u64, u32)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(0, 5, (1 << PAYLOAD_BITS) - 1), (3, 2, 11), (3, 4, 13), (5, 1, 10), (5, 3, 12)]);
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
    }

    /// Interleaved pushes, pops and peeks (a pop's removal is deferred to the next call, a
    /// push right after a pop replaces the top) match the standard library's heap exactly.
    #[test]
    fn matches_binary_heap_on_random_interleavings() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::default();
        let mut reference = BinaryHeap::new();
        let (mut seq, mut now) = (0u64, 0u64);
        for _ in 0..40_000 {
            if rng.gen_bool(0.1) {
                assert_eq!(q.peek_time(), reference.peek().map(|&Reverse((t, _))| t));
            } else if rng.gen_bool(0.52) || reference.is_empty() {
                seq += 1;
                let t = now + rng.gen_range(0..50);
                q.push(t, seq, (seq % (1 << PAYLOAD_BITS)) as u32);
                reference.push(Reverse((t, seq)));
            } else {
                let Reverse((t, s)) = reference.pop().unwrap();
                assert_eq!(q.pop(), Some((t, s, (s % (1 << PAYLOAD_BITS)) as u32)));
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
    }
}
