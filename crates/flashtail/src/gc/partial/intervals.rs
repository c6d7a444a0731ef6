//! Inter-request intervals, seen at arrival and handed back at completion.
//!
//! The GC decision runs after a request is served (`on_complete`), but the paper's state
//! is about its arrival: the interval since the previous request and the one before that.
//! The engine reports completions by latency, not by request, so the record is keyed by
//! arrival time (completion time − latency). Requests that arrive with a zero interval do
//! not invoke the agent (Algorithm 1, lines 3-5) and get no record; a request that shares
//! its arrival instant with such a follower hands its record to whichever completes first.

use std::collections::BTreeMap;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// Interval before the previous request, ns.
    pub prev: u64,
    /// Interval before this request, ns (> 0).
    pub cur: u64,
}

#[derive(Default)]
pub struct Intervals {
    last_arrival: Option<u64>,
    prev: u64,
    pending: BTreeMap<u64, Gap>,
    /// Requests that arrived together with the previous one.
    pub zero_gap_requests: u64,
}

impl Intervals {
    /// Record an arrival; returns its interval (None for the first request).
    pub fn arrive(&mut self, at: u64) -> Option<u64> {
        let iv = self.last_arrival.map(|a| at.saturating_sub(a));
        self.last_arrival = Some(at);
        if let Some(iv) = iv {
            if iv > 0 {
                self.pending.insert(
                    at,
                    Gap {
                        prev: self.prev,
                        cur: iv,
                    },
                );
            } else {
                self.zero_gap_requests += 1;
            }
            self.prev = iv;
        }
        iv
    }

    /// Power was cut: the records of the requests in flight are gone (the host sends them
    /// again), and the next arrival starts the intervals afresh.
    pub fn power_cut(&mut self) {
        *self = Intervals { zero_gap_requests: self.zero_gap_requests, ..Intervals::default() };
    }

    /// The record of a request that completed at `now` after `latency`.
    pub fn complete(&mut self, now: u64, latency: u64) -> Option<Gap> {
        self.pending.remove(&now.saturating_sub(latency))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_follow_requests_and_zero_gaps_get_none() {
        let mut iv = Intervals::default();
        assert_eq!(iv.arrive(1000), None);
        assert_eq!(iv.arrive(1500), Some(500));
        assert_eq!(iv.arrive(1500), Some(0));
        assert_eq!(iv.arrive(4000), Some(2500));
        assert_eq!(
            iv.complete(1700, 700),
            None,
            "the first request has no interval"
        );
        assert_eq!(iv.complete(1600, 100), Some(Gap { prev: 0, cur: 500 }));
        assert_eq!(
            iv.complete(1650, 150),
            None,
            "the zero-gap follower invokes nothing"
        );
        // prev of the 4th is the zero interval of the 3rd.
        assert_eq!(iv.complete(4100, 100), Some(Gap { prev: 0, cur: 2500 }));
        assert_eq!(iv.zero_gap_requests, 1);
    }
}
