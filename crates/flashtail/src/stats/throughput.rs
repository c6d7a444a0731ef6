//! A run's throughput: bytes and requests completed per second of simulated time over the
//! run's span, from the first request's issue (its arrival, open loop) to the last request's
//! completion. MB are 10^6 bytes, as MQSim's `Bandwidth` (bytes per second) divided by 10^6.
//!
//! Under open loop the span is set mostly by the trace's arrival times, so the figures
//! measure the offered load; under the closed-loop host interface (`host::closed_loop`)
//! they measure what the device sustains at that queue depth.

use serde::{Deserialize, Serialize};

/// Throughput over the run's span (`report.throughput` in `summary.json`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Throughput {
    /// How requests entered the device: `open loop`, or the closed loop's queues and timing.
    pub host_interface: String,
    /// First issue to last completion, ns.
    pub span_ns: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// 10^6 bytes per second of the span.
    pub read_mb_per_s: f64,
    pub write_mb_per_s: f64,
    pub all_mb_per_s: f64,
    /// Requests completed per second of the span.
    pub read_iops: f64,
    pub write_iops: f64,
    pub all_iops: f64,
    /// Closed loop with `trace` timing: the summed time requests waited in the host for a
    /// queue slot after their trace arrival (not part of their latency). 0 otherwise.
    pub host_wait_ns: u64,
}

impl Throughput {
    /// The figures for `bytes` = [read, write] and `count` = [reads, writes] over `span_ns`.
    pub fn new(host_interface: String, span_ns: u64, bytes: [u64; 2], count: [u64; 2], host_wait_ns: u64) -> Throughput {
        let per_s = |x: u64| if span_ns == 0 { 0.0 } else { x as f64 * 1e9 / span_ns as f64 };
        let mb = |x: u64| per_s(x) / 1e6;
        Throughput {
            host_interface,
            span_ns,
            read_bytes: bytes[0],
            write_bytes: bytes[1],
            read_mb_per_s: mb(bytes[0]),
            write_mb_per_s: mb(bytes[1]),
            all_mb_per_s: mb(bytes[0] + bytes[1]),
            read_iops: per_s(count[0]),
            write_iops: per_s(count[1]),
            all_iops: per_s(count[0] + count[1]),
            host_wait_ns,
        }
    }

    /// MB/s and IOPS of one request class (`read`, `write`, `all`), as `summary.csv` has them.
    pub fn of(&self, op: &str) -> (f64, f64) {
        match op {
            "read" => (self.read_mb_per_s, self.read_iops),
            "write" => (self.write_mb_per_s, self.write_iops),
            _ => (self.all_mb_per_s, self.all_iops),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_per_second_of_the_span() {
        // 1 ms span, 4 MB read in 1000 requests, 1 MB written in 250.
        let t = Throughput::new("open loop".into(), 1_000_000, [4_000_000, 1_000_000], [1000, 250], 0);
        assert_eq!((t.read_mb_per_s, t.write_mb_per_s, t.all_mb_per_s), (4000.0, 1000.0, 5000.0));
        assert_eq!((t.read_iops, t.write_iops, t.all_iops), (1e6, 250_000.0, 1_250_000.0));
        assert_eq!(t.of("write"), (1000.0, 250_000.0));
        assert_eq!(Throughput::new(String::new(), 0, [1, 1], [1, 1], 0).all_mb_per_s, 0.0);
    }
}
