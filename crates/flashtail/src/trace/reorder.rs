//! A bounded reorder window for traces whose lines are not in arrival order (SYSTOR'17 logs
//! at completion; merged multi-disk files interleave). Holds at most `window` requests and
//! always releases the earliest; memory is bounded by the window, not the trace.
//! What it does not do: fix disorder larger than the window (the reader clamps and counts it).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

struct Entry<T> {
    ts: i128,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.ts, self.seq) == (o.ts, o.seq)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Entry<T> {
    // Ties keep file order (seq), so equal timestamps are released first-in, first-out.
    fn cmp(&self, o: &Self) -> Ordering {
        (self.ts, self.seq).cmp(&(o.ts, o.seq))
    }
}

pub struct Reorder<T> {
    heap: BinaryHeap<Reverse<Entry<T>>>,
    window: usize,
    seq: u64,
}

impl<T> Reorder<T> {
    pub fn new(window: usize) -> Reorder<T> {
        Reorder {
            heap: BinaryHeap::with_capacity(window.min(1 << 16) + 1),
            window,
            seq: 0,
        }
    }

    /// Adds an item; returns the earliest item once more than `window` are held.
    pub fn push(&mut self, ts: i128, item: T) -> Option<(i128, T)> {
        self.heap.push(Reverse(Entry {
            ts,
            seq: self.seq,
            item,
        }));
        self.seq += 1;
        if self.heap.len() > self.window {
            self.pop()
        } else {
            None
        }
    }

    /// The earliest held item (used to drain at the end).
    pub fn pop(&mut self) -> Option<(i128, T)> {
        self.heap.pop().map(|Reverse(e)| (e.ts, e.item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_within_the_window_only() {
        let mut r = Reorder::new(2);
        let mut out = Vec::new();
        for (ts, id) in [(5, 'a'), (3, 'b'), (4, 'c'), (1, 'd'), (9, 'e')] {
            out.extend(r.push(ts, id));
        }
        while let Some(x) = r.pop() {
            out.push(x);
        }
        // 'd' (ts 1) arrives after 'b' was released: too late for a window of 2.
        assert_eq!(out, vec![(3, 'b'), (1, 'd'), (4, 'c'), (5, 'a'), (9, 'e')]);
    }
}
