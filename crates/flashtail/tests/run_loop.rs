//! The engine's run loop at the edges of its request stream. It reads two requests ahead
//! of the one arriving (to prefetch their map entries in two stages), so short streams and
//! a source that fails at any position must still behave as a reader of one request at a
//! time would: every request served once, a source error returned as an error, no panic.
mod common;
use common::*;
use flashtail::gc::schemes::build_scheme;
use flashtail::{HostRequest, Nanos, Op, RequestSource, SimError, SimOptions, Simulation, SourceError};

/// `n` alternating 4 KiB writes and reads, then either the end or an error.
struct Stream {
    served: usize,
    n: usize,
    fail: bool,
}

impl RequestSource for Stream {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        if self.served == self.n {
            return if self.fail {
                Err(SourceError { location: format!("stream:{}", self.n + 1), message: "broken record".into() })
            } else {
                Ok(None)
            };
        }
        let i = self.served as u64;
        self.served += 1;
        let op = if i.is_multiple_of(2) { Op::Write } else { Op::Read };
        Ok(Some(HostRequest::new(Nanos(1_000 + i * 700_000), (i / 2) * 4096, 4096, op)))
    }
}

fn simulate(n: usize, fail: bool) -> Result<flashtail::RunReport, SimError> {
    let sim = Simulation::new(tiny(), build_scheme("base", None, 1).unwrap(), SimOptions { seed: 1, oracle: true, ..Default::default() })?;
    sim.run(&mut Stream { served: 0, n, fail })
}

#[test]
fn short_streams_serve_every_request() {
    assert!(matches!(simulate(0, false), Err(SimError::Empty(_))));
    for n in 1..=4 {
        let r = simulate(n, false).unwrap_or_else(|e| panic!("{n} requests: {e}"));
        assert_eq!(r.integrity.requests_completed, n as u64, "{n} requests");
        assert_eq!(r.writes.count + r.reads.count, n as u64);
        assert_eq!(r.integrity.violations, 0);
        // A lone read of the page just written: served from flash or controller memory, never lost.
        assert_eq!(r.reads.count, n as u64 / 2);
    }
}

#[test]
fn a_source_error_at_any_position_stops_the_run_with_it() {
    for n in 0..=4 {
        match simulate(n, true) {
            Err(e) => assert!(e.to_string().contains(&format!("stream:{}: broken record", n + 1)), "{n}: {e}"),
            Ok(_) => panic!("a failing source after {n} requests must fail the run"),
        }
    }
}
