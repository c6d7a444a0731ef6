//! Unit tests of the engine's limits that need its private state: a workload that runs too
//! far ahead of the device must stop the run with an error naming the request, not a panic.

use super::Simulation;
use crate::config::presets;
use crate::gc::schemes::build_scheme;
use crate::host::{HostRequest, Op, RequestSource, SourceError};
use crate::sim::{SimError, SimOptions};
use crate::units::Nanos;

/// `n` 4 KiB writes to distinct pages, all arriving at t = 0.
struct Burst {
    n: u64,
    served: u64,
}

impl RequestSource for Burst {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        if self.served == self.n {
            return Ok(None);
        }
        self.served += 1;
        Ok(Some(HostRequest::new(Nanos(0), self.served * 4096, 4096, Op::Write)))
    }
}

fn burst(n: u64, max_in_flight: u64) -> Result<crate::stats::RunReport, SimError> {
    let dev = presets::load("tiny").expect("preset tiny");
    let scheme = build_scheme("base", None, 1).expect("scheme base");
    let mut sim = Simulation::new(dev, scheme, SimOptions { seed: 1, oracle: true, ..Default::default() })?;
    sim.max_in_flight = max_in_flight;
    sim.run(&mut Burst { n, served: 0 })
}

#[test]
fn too_many_requests_in_flight_is_an_error_naming_the_request() {
    // 40 simultaneous writes: none completes before the last arrives.
    match burst(40, 16) {
        Err(SimError::Overloaded(msg)) => {
            assert!(msg.starts_with("request 17 (arriving at t=0 ns) found 16 requests still in flight"), "{msg}");
            assert!(msg.contains("--time-scale"), "{msg}");
        }
        other => panic!("expected an overload error, got {:?}", other.map(|r| r.integrity.requests_completed)),
    }
    // The same burst under the limit runs to the end.
    let r = burst(40, 40).expect("40 in flight are allowed");
    assert_eq!(r.integrity.requests_completed, 40);
    assert_eq!(r.integrity.violations, 0);
}

#[test]
fn the_limit_is_what_an_event_id_can_hold() {
    // A request's slot travels as an event id: slots run 0..live, so every one must fit.
    assert_eq!(super::MAX_IN_FLIGHT, (1 << super::EV_ID_BITS) - 1);
    const { assert!(super::MAX_IN_FLIGHT >= 4_000_000, "the limit should stay far above real queue depths") };
}

/// Runs three 4 KiB writes on `tiny`, the last arriving at `last_ns`.
fn late_write(last_ns: u64) -> Result<crate::stats::RunReport, SimError> {
    let dev = presets::load("tiny").expect("preset tiny");
    let scheme = build_scheme("base", None, 1).expect("scheme base");
    let sim = Simulation::new(dev, scheme, SimOptions { seed: 1, oracle: true, ..Default::default() })?;
    let reqs = [0, 1_000, last_ns].into_iter().enumerate().map(|(i, t)| HostRequest::new(Nanos(t), i as u64 * 4096, 4096, Op::Write));
    sim.run(&mut crate::host::VecSource::new(reqs.collect()))
}

#[test]
fn an_arrival_after_the_time_horizon_is_a_workload_error() {
    // `--time-scale 1e-9` on a 127 s trace saturates arrivals at u64::MAX: event times wrapped
    // and the run ended "stalled: free blocks exhausted". Now the request is named.
    for t in [super::MAX_ARRIVAL_NS + 1, u64::MAX] {
        match late_write(t) {
            Err(SimError::Source(e)) => {
                assert_eq!(e.location, "request 3");
                assert!(e.message.starts_with(&format!("arrives at t={t} ns, after the latest time flashtail simulates (2^62 ns, about 146 years)")), "{e}");
                assert!(e.message.contains("--time-scale") && e.message.contains("--loops"), "{e}");
            }
            other => panic!("expected a workload error, got {:?}", other.map(|r| r.integrity.requests_completed)),
        }
    }
    // At the horizon itself the run completes, and the last write's latency is an ordinary one.
    let r = late_write(super::MAX_ARRIVAL_NS).expect("an arrival at 2^62 ns is allowed");
    assert_eq!(r.integrity.requests_completed, 3);
    assert!(r.writes.max_ns < 10_000_000, "{}", r.writes.max_ns);
}
