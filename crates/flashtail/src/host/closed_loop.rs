//! The closed-loop host interface: NVMe-style submission queues with a bounded number of
//! outstanding requests, as MQSim's host interface (`IO_Flow_Base::Submit_io_request`) keeps
//! them, so a run measures bandwidth and latency under saturation (docs/host.md).
//!
//! Models: `queues` submission queues of `queue_depth` slots each. Requests keep the trace's
//! order and are assigned to queues round-robin (request *i* to queue *i* mod `queues`: no
//! trace format flashtail reads carries a queue or stream id that maps to an NVMe queue). A
//! request is issued when its queue has a free slot and every earlier request was issued
//! (in order: a request waiting for a full queue holds back the ones after it). Its issue
//! time is, with `timing = trace`, the later of its trace arrival and the moment its slot
//! freed (the trace's timing is a lower bound), or with `timing = ignore`, the moment its slot
//! freed (the first request issues at its trace arrival), or with `timing = arrival` as with
//! `trace`. Latency counts from issue to completion (with `arrival`: from the trace arrival,
//! the host's wait for a slot included, SSDsim's measure): MQSim's *device response time* (completion − `Enqueue_time`, the time the
//! request entered the submission queue), not its *end-to-end delay*, which adds the time a
//! request waited in the host for a slot; flashtail reports that wait separately
//! (`throughput.host_wait_ns`).
//!
//! Does not model: the doorbell, command fetch or completion-queue traffic over PCIe
//! (MQSim's `PCIe_Link`), queue arbitration inside the device (requests enter the device at
//! their issue time, one at a time), or per-queue priorities.

use crate::units::Nanos;
use serde::{Deserialize, Serialize};

/// How the trace's timestamps bound a closed-loop issue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IssueTiming {
    /// Issue at the later of the trace arrival and the slot's freeing.
    Trace,
    /// Issue as soon as a slot frees; the timestamps only order the requests.
    Ignore,
    /// As `Trace`, but latency counts from the trace arrival: the wait for a slot is part
    /// of it (end-to-end delay, as SSDsim, and so the ttFlash artifact, measures behind its
    /// 32-request host queue, `queue_length`).
    Arrival,
}

impl IssueTiming {
    pub const NAMES: [&'static str; 3] = ["trace", "ignore", "arrival"];

    pub fn parse(s: &str) -> Result<IssueTiming, String> {
        match s {
            "trace" => Ok(IssueTiming::Trace),
            "ignore" => Ok(IssueTiming::Ignore),
            "arrival" => Ok(IssueTiming::Arrival),
            _ => Err(format!("unknown issue timing '{s}' (known: trace, ignore, arrival)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IssueTiming::Trace => "trace",
            IssueTiming::Ignore => "ignore",
            IssueTiming::Arrival => "arrival",
        }
    }
}

/// Most queues, and most slots per queue (NVMe allows 65,535 of each; the engine tracks at
/// most about 4 million requests in flight, so the product is bounded as well).
pub const MAX_QUEUES: u32 = 65_535;
pub const MAX_QUEUE_DEPTH: u32 = 65_535;
const MAX_OUTSTANDING: u64 = 1 << 21;

/// A closed-loop host interface: `queues` × `queue_depth` outstanding requests at most.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedLoop {
    pub queue_depth: u32,
    pub queues: u32,
    pub timing: IssueTiming,
}

impl ClosedLoop {
    /// `QD` or `QDxQUEUES` (e.g. `32`, `32x8`), with the given timing. The message names the
    /// setting (`--closed-loop`).
    pub fn parse(s: &str, timing: IssueTiming) -> Result<ClosedLoop, String> {
        let bad = || format!("--closed-loop '{s}': expected QD or QDxQUEUES, e.g. 32 or 32x8 (whole numbers from 1)");
        let (qd, q) = match s.trim().split_once(['x', 'X']) {
            Some((a, b)) => (a, b),
            None => (s.trim(), "1"),
        };
        let qd: u32 = qd.trim().parse().map_err(|_| bad())?;
        let queues: u32 = q.trim().parse().map_err(|_| bad())?;
        let c = ClosedLoop { queue_depth: qd, queues, timing };
        c.validate()?;
        Ok(c)
    }

    /// Check the numbers; the message names the setting.
    pub fn validate(&self) -> Result<(), String> {
        if self.queue_depth == 0 || self.queues == 0 {
            return Err(format!(
                "closed loop: queue depth ({}) and queues ({}) must both be at least 1",
                self.queue_depth, self.queues
            ));
        }
        if self.queue_depth > MAX_QUEUE_DEPTH || self.queues > MAX_QUEUES {
            return Err(format!("closed loop: at most {MAX_QUEUE_DEPTH} slots per queue and {MAX_QUEUES} queues (NVMe's limits)"));
        }
        if u64::from(self.queue_depth) * u64::from(self.queues) > MAX_OUTSTANDING {
            return Err(format!(
                "closed loop: {} × {} outstanding requests is more than the {MAX_OUTSTANDING} flashtail tracks",
                self.queue_depth, self.queues
            ));
        }
        Ok(())
    }

    /// Outstanding requests at most.
    pub fn slots(&self) -> u64 {
        u64::from(self.queue_depth) * u64::from(self.queues)
    }

    /// One line for reports: `closed loop, QD 32 × 8 queues, trace timing`.
    pub fn describe(&self) -> String {
        format!(
            "closed loop, QD {} × {} queue{}, {} timing",
            self.queue_depth,
            self.queues,
            if self.queues == 1 { "" } else { "s" },
            self.timing.name()
        )
    }
}

/// The queues' state during a run: which queue the next request goes to, how many requests
/// each has outstanding, and the queue of each request in flight (by the engine's request
/// slot).
#[derive(Clone, Debug)]
pub struct Queues {
    cfg: ClosedLoop,
    outstanding: Vec<u32>,
    next: u32,
    /// Queue of each request slot in flight (grown on demand).
    of_slot: Vec<u32>,
    /// `timing = ignore`: the first request's trace arrival, the earliest issue time.
    origin: Option<Nanos>,
    /// Summed time requests waited in the host for a slot: issue − trace arrival, `trace`
    /// and `arrival` timing only (with `ignore` the timestamps mean nothing).
    pub host_wait_ns: u64,
}

impl Queues {
    pub fn new(cfg: ClosedLoop) -> Queues {
        Queues { cfg, outstanding: vec![0; cfg.queues as usize], next: 0, of_slot: Vec::new(), origin: None, host_wait_ns: 0 }
    }

    pub fn config(&self) -> ClosedLoop {
        self.cfg
    }

    /// Whether the next request's queue has a free slot.
    #[inline]
    pub fn has_slot(&self) -> bool {
        self.outstanding[self.next as usize] < self.cfg.queue_depth
    }

    /// The issue time of the next request, whose trace arrival is `arrival`, when its slot is
    /// free at `now` (call only when `has_slot`, at the moment its slot freed or the previous
    /// request issued).
    pub fn issue_time(&mut self, arrival: Nanos, now: Nanos) -> Nanos {
        match self.cfg.timing {
            IssueTiming::Trace | IssueTiming::Arrival => {
                let at = arrival.max(now);
                self.host_wait_ns += (at - arrival).0;
                at
            }
            IssueTiming::Ignore => now.max(*self.origin.get_or_insert(arrival)),
        }
    }

    /// Whether latency counts from the trace arrival (`arrival` timing) rather than the issue.
    #[inline]
    pub fn latency_from_arrival(&self) -> bool {
        self.cfg.timing == IssueTiming::Arrival
    }

    /// The next request was issued into request slot `slot`.
    pub fn issued(&mut self, slot: u32) {
        let q = self.next;
        self.outstanding[q as usize] += 1;
        let i = slot as usize;
        if self.of_slot.len() <= i {
            self.of_slot.resize(i + 1, u32::MAX);
        }
        self.of_slot[i] = q;
        self.next = if q + 1 == self.cfg.queues { 0 } else { q + 1 };
    }

    /// The request in slot `slot` completed: its queue slot frees.
    pub fn completed(&mut self, slot: u32) {
        let q = std::mem::replace(&mut self.of_slot[slot as usize], u32::MAX);
        debug_assert!(q != u32::MAX, "request slot {slot} completed without being issued");
        self.outstanding[q as usize] -= 1;
    }

    /// Requests outstanding over all queues.
    pub fn outstanding(&self) -> u64 {
        self.outstanding.iter().map(|&n| u64::from(n)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_depth_and_queues_and_names_the_setting_on_errors() {
        let c = ClosedLoop::parse("32x8", IssueTiming::Trace).unwrap();
        assert_eq!((c.queue_depth, c.queues, c.slots()), (32, 8, 256));
        assert_eq!(ClosedLoop::parse("4", IssueTiming::Ignore).unwrap().queues, 1);
        for bad in ["0", "4x0", "x", "4x", "-1", "70000"] {
            let e = ClosedLoop::parse(bad, IssueTiming::Trace).unwrap_err();
            assert!(e.contains("closed loop") || e.contains("--closed-loop"), "{bad}: {e}");
        }
        assert!(IssueTiming::parse("wall").unwrap_err().contains("'wall'"));
        assert_eq!(c.describe(), "closed loop, QD 32 × 8 queues, trace timing");
    }

    #[test]
    fn queues_fill_round_robin_and_free_by_slot() {
        let mut q = Queues::new(ClosedLoop { queue_depth: 1, queues: 2, timing: IssueTiming::Trace });
        assert!(q.has_slot());
        q.issued(5); // queue 0
        assert!(q.has_slot()); // queue 1 is next
        q.issued(2); // queue 1
        assert!(!q.has_slot()); // queue 0 again, full
        q.completed(2); // queue 1 frees: still not queue 0's turn
        assert!(!q.has_slot());
        q.completed(5);
        assert!(q.has_slot());
        assert_eq!(q.outstanding(), 0);
    }

    #[test]
    fn issue_time_is_bounded_by_the_trace_or_not() {
        let mut t = Queues::new(ClosedLoop { queue_depth: 1, queues: 1, timing: IssueTiming::Trace });
        assert_eq!(t.issue_time(Nanos(100), Nanos(40)), Nanos(100));
        assert_eq!(t.issue_time(Nanos(100), Nanos(250)), Nanos(250));
        assert_eq!(t.host_wait_ns, 150);
        let mut i = Queues::new(ClosedLoop { queue_depth: 1, queues: 1, timing: IssueTiming::Ignore });
        assert_eq!(i.issue_time(Nanos(100), Nanos(0)), Nanos(100));
        assert_eq!(i.issue_time(Nanos(900), Nanos(130)), Nanos(130));
        assert_eq!(i.host_wait_ns, 0);
    }
}
