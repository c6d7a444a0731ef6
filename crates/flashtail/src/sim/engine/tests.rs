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
