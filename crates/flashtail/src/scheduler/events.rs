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

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// One queued event: only `key` takes part in the order.
#[derive(Clone, Copy, Debug)]
struct Entry<P> {
    key: u128,
    payload: P,
}

impl<P> PartialEq for Entry<P> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<P> Eq for Entry<P> {}
impl<P> PartialOrd for Entry<P> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<P> Ord for Entry<P> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// A min-queue of payloads `P` keyed by `(time, seq)`; `seq` must be unique per push.
#[derive(Clone, Debug)]
pub struct EventQueue<P> {
    heap: BinaryHeap<Reverse<Entry<P>>>,
}

impl<P> Default for EventQueue<P> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new() }
    }
}

impl<P: Copy> EventQueue<P> {
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(e)| (e.key >> 64) as u64)
    }

    #[inline]
    pub fn push(&mut self, t: u64, seq: u64, payload: P) {
        let key = (u128::from(t) << 64) | u128::from(seq);
        self.heap.push(Reverse(Entry { key, payload }));
    }

    /// Remove and return the earliest event as `(time, payload)`.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, P)> {
        self.heap.pop().map(|Reverse(e)| ((e.key >> 64) as u64, e.payload))
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
        q.push(5, 1, 'a');
        q.push(3, 2, 'b');
        q.push(5, 3, 'c');
        q.push(3, 4, 'd');
        q.push(0, 5, 'e');
        assert_eq!(q.peek_time(), Some(0));
        let order: Vec<(u64, char)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(0, 'e'), (3, 'b'), (3, 'd'), (5, 'a'), (5, 'c')]);
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
                q.push(t, seq, seq as u32);
                reference.push(Reverse((t, seq)));
            } else {
                let Reverse((t, s)) = reference.pop().unwrap();
                assert_eq!(q.pop(), Some((t, s as u32)));
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
    }
}
