//! The engine's pending-event queue: a min-heap ordered by (time, sequence number).
//!
//! The queue is popped once per simulated event (tens of millions per run) and stays small
//! (about one event per execution unit), so the cost is in comparisons: the order key is one
//! `u128` (time in the high half, sequence in the low half) compared in one go, instead of a
//! field-by-field derived `Ord`. Sequence numbers are unique, so the order is total and pops
//! are identical to any other correct priority queue on the same keys. (A 4-ary heap was
//! tried and measured slower: see docs/performance.md.)
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
}

impl EventQueue {
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(k)| (k >> 64) as u64)
    }

    #[inline]
    pub fn push(&mut self, t: u64, seq: u64, payload: u32) {
        assert!(seq <= MAX_SEQ, "event sequence number {seq} exceeds the queue's {MAX_SEQ}");
        debug_assert!(payload < (1 << PAYLOAD_BITS), "payload {payload} exceeds {PAYLOAD_BITS} bits");
        let low = (seq << PAYLOAD_BITS) | u64::from(payload);
        self.heap.push(Reverse((u128::from(t) << 64) | u128::from(low)));
    }

    /// Remove and return the earliest event as `(time, payload)`.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        self.heap.pop().map(|Reverse(k)| ((k >> 64) as u64, (k as u64 & ((1 << PAYLOAD_BITS) - 1)) as u32))
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
        let order: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(0, (1 << PAYLOAD_BITS) - 1), (3, 11), (3, 13), (5, 10), (5, 12)]);
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
    }

    /// Interleaved pushes and pops match the standard library's heap exactly.
    #[test]
    fn matches_binary_heap_on_random_interleavings() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::default();
        let mut reference = BinaryHeap::new();
        let (mut seq, mut now) = (0u64, 0u64);
        for _ in 0..20_000 {
            if rng.gen_bool(0.52) || reference.is_empty() {
                seq += 1;
                let t = now + rng.gen_range(0..50);
                q.push(t, seq, (seq % (1 << PAYLOAD_BITS)) as u32);
                reference.push(Reverse((t, seq)));
            } else {
                let Reverse((t, s)) = reference.pop().unwrap();
                assert_eq!(q.pop(), Some((t, (s % (1 << PAYLOAD_BITS)) as u32)));
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
    }
}
