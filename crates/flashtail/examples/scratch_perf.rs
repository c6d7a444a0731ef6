use flashtail::config::presets;
use flashtail::gc::build_scheme;
use flashtail::{HostRequest, Nanos, Op, RequestSource, SimOptions, Simulation, SourceError};

struct Gen { n: usize, i: usize, s: u64, t: u64, pages: u64 }
impl Gen { fn r(&mut self) -> u64 { self.s ^= self.s << 13; self.s ^= self.s >> 7; self.s ^= self.s << 17; self.s } }
impl RequestSource for Gen {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        if self.i == self.n { return Ok(None); }
        self.i += 1;
        let u = (self.r() >> 11) as f64 / (1u64 << 53) as f64;
        self.t += (-(1.0 - u).ln() * 1e6) as u64;
        let np = 1 + self.r() % 4;
        let p = self.r() % (self.pages - 4);
        let op = if self.r() % 100 < 70 { Op::Write } else { Op::Read };
        Ok(Some(HostRequest::new(Nanos(self.t), p * 4096, np * 4096, op)))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scheme = args.get(1).map(|s| s.as_str()).unwrap_or("base");
    let oracle = args.get(2).map(|s| s == "oracle").unwrap_or(true);
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let dev = presets::load("bench-ref").unwrap();
    let pages = dev.logical_pages() as u64;
    let t = std::time::Instant::now();
    let sim = Simulation::new(dev, build_scheme(scheme, None, 1).unwrap(), SimOptions { seed: 1, oracle, check_every: 0, progress: None }).unwrap();
    let r = sim.run(&mut Gen { n, i: 0, s: 88172645463325252, t: 0, pages }).unwrap();
    let el = t.elapsed().as_secs_f64();
    println!("{scheme} oracle={oracle}: {:.3}s total ({:.3}s precond), {:.0} req/s, events {}, rss {} MB, waf {:.2}, erases {}, read p99.99 {} us, write p99.99 {} us",
        el, r.cost.precondition_seconds, n as f64 / el, r.cost.events, r.cost.peak_rss_bytes >> 20, r.flash.waf, r.flash.erases, r.reads.p99_99_ns / 1000, r.writes.p99_99_ns / 1000);
}
