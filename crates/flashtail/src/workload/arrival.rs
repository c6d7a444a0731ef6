//! Arrival processes: Poisson, on/off bursts with a target idle share, and fixed-mean intervals.
//!
//! Timing model of on/off: a cycle is one idle gap followed by a burst of N requests whose
//! N - 1 inner gaps are exponential at `burst_iops`. N = 1 + Geometric with mean
//! `burst_iops * B`, where B = I (1 - s) / s is the mean burst duration that makes the
//! long-run share of time in idle gaps, I / (I + B), equal the target s (I = mean idle gap).
//! Both I and E\[N\] are exact in expectation, so the mean inter-arrival time is exactly
//! (I + B) / E\[N\]. The first request arrives at time 0 and starts a burst.
//! Does not model host think time dependent on completions (open-loop arrivals only).

use super::config::{Arrival, GapDist};
use super::rng::{exponential, geometric, lognormal};
use rand_chacha::ChaCha8Rng;

fn draw_gap(r: &mut ChaCha8Rng, mean: f64, d: &GapDist) -> f64 {
    match d {
        GapDist::Constant => mean,
        GapDist::Exponential => exponential(r, mean),
        GapDist::Lognormal { sigma } => lognormal(r, mean, *sigma),
    }
}

/// On/off parameters derived from a target mean inter-arrival time.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffParams {
    pub burst_iops: f64,
    pub target_idle_share: f64,
    pub mean_idle_ms: f64,
}

/// On/off parameters whose mean inter-arrival time is exactly `mean_interval_us`, with bursts of
/// `mean_burst_len` (> 1) requests on average at `burst_iops`. Requires the burst gap
/// 1 / burst_iops to be shorter than the mean interval.
pub fn onoff_for_mean_interval(mean_interval_us: f64, burst_iops: f64, mean_burst_len: f64) -> OnOffParams {
    let inner_us = 1e6 / burst_iops;
    let n = mean_burst_len;
    // Cycle: mean n requests, n - 1 inner gaps and one idle gap of mean I.
    // Mean interval = (I + (n-1) inner) / n  =>  I = n M - (n - 1) inner.
    let busy_us = (n - 1.0) * inner_us;
    let idle_us = n * mean_interval_us - busy_us;
    OnOffParams { burst_iops, target_idle_share: idle_us / (idle_us + busy_us), mean_idle_ms: idle_us / 1e3 }
}

/// Analytic mean inter-arrival time of a process, in nanoseconds.
pub fn mean_interval_ns(a: &Arrival) -> f64 {
    match a {
        Arrival::Poisson { iops } => 1e9 / iops,
        Arrival::FixedInterval { mean_us, .. } => mean_us * 1e3,
        Arrival::Onoff { burst_iops, target_idle_share: s, mean_idle_ms, .. } => {
            let inner = 1e9 / burst_iops;
            if *s == 0.0 {
                return inner;
            }
            let idle = mean_idle_ms * 1e6;
            let busy = idle * (1.0 - s) / s;
            (idle + busy) / (1.0 + busy / inner)
        }
    }
}

/// Stateful arrival clock.
#[derive(Clone, Debug)]
pub struct ArrivalClock {
    process: Arrival,
    /// Current time in ns (f64 keeps sub-ns gaps from being lost to rounding).
    now: f64,
    started: bool,
    /// Requests still to come in the current burst after the last one emitted.
    burst_left: u64,
    /// Mean number of extra requests per burst (E[N] - 1).
    burst_extra_mean: f64,
    idle_total_ns: f64,
    idle_gaps: u64,
}

impl ArrivalClock {
    pub fn new(process: &Arrival) -> ArrivalClock {
        let burst_extra_mean = match process {
            Arrival::Onoff { burst_iops, target_idle_share: s, mean_idle_ms, .. } if *s > 0.0 => {
                let busy_s = mean_idle_ms * 1e-3 * (1.0 - s) / s;
                busy_s * burst_iops
            }
            _ => 0.0,
        };
        ArrivalClock {
            process: process.clone(),
            now: 0.0,
            started: false,
            burst_left: 0,
            burst_extra_mean,
            idle_total_ns: 0.0,
            idle_gaps: 0,
        }
    }

    /// Arrival time (ns, not rounded) of the next request.
    pub fn next(&mut self, r: &mut ChaCha8Rng) -> f64 {
        if !self.started {
            self.started = true;
            if let Arrival::Onoff { .. } = self.process {
                self.burst_left = geometric(r, self.burst_extra_mean);
            }
            return self.now;
        }
        let gap = match &self.process {
            Arrival::Poisson { iops } => exponential(r, 1e9 / iops),
            Arrival::FixedInterval { mean_us, dist } => draw_gap(r, mean_us * 1e3, dist),
            Arrival::Onoff { burst_iops, target_idle_share, mean_idle_ms, idle_dist } => {
                if *target_idle_share == 0.0 || self.burst_left > 0 {
                    self.burst_left = self.burst_left.saturating_sub(1);
                    exponential(r, 1e9 / burst_iops)
                } else {
                    let g = draw_gap(r, mean_idle_ms * 1e6, idle_dist);
                    self.idle_total_ns += g;
                    self.idle_gaps += 1;
                    self.burst_left = geometric(r, self.burst_extra_mean);
                    g
                }
            }
        };
        self.now += gap;
        self.now
    }

    /// Total time spent in on/off idle gaps so far, in ns (0 for other processes).
    pub fn idle_total_ns(&self) -> f64 {
        self.idle_total_ns
    }

    /// Number of on/off idle gaps so far.
    pub fn idle_gaps(&self) -> u64 {
        self.idle_gaps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_onoff_hits_mean_interval_exactly() {
        let p = onoff_for_mean_interval(85_565.0, 1000.0, 16.0);
        let a = Arrival::Onoff {
            burst_iops: p.burst_iops,
            target_idle_share: p.target_idle_share,
            mean_idle_ms: p.mean_idle_ms,
            idle_dist: GapDist::Exponential,
        };
        let m = mean_interval_ns(&a);
        assert!((m - 85_565_000.0).abs() < 1e-3, "{m}");
        // I = 16 * 85.565 ms - 15 ms = 1354.04 ms.
        assert!((p.mean_idle_ms - 1354.04).abs() < 1e-9);
    }
}
