//! Shared helpers of the `gc_partial_*` tests and the RL-GC experiment: small devices
//! derived from the RL-GC presets, an on/off workload generator whose rows follow the RL-GC
//! paper's Table 1 (write ratio, mean interval, request size), and a GC-policy wrapper that
//! counts the valid-page moves made under each grant.
//!
//! The generator is deliberately simple (bursts of requests with short exponential gaps,
//! separated by long exponential idle gaps; 80% of accesses to a hot 20% of the footprint);
//! it is not the project's workload generator.
#![allow(dead_code)]

use flashtail::config::{presets, Precondition};
use flashtail::gc::{build_scheme, GcCmd, GcCtx, GcPolicy};
use flashtail::{
    BlockId, DeviceConfig, HostRequest, Nanos, Op, PlaneId, RunReport, SimOptions, Simulation,
    VecSource,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The RL-GC 128 Gb device shrunk for tests: 2 planes × `blocks` blocks × `ppb` pages of
/// 8 KiB with the paper's timings; host writes keep one block for GC (so "one free block
/// left" is reachable, as in the paper).
pub fn small_128gb(blocks: u32, ppb: u32) -> DeviceConfig {
    let mut d = presets::load("rlgc-128gb").expect("bundled preset");
    d.geometry.blocks_per_plane = blocks;
    d.geometry.pages_per_block = ppb;
    d.ftl.gc_reserved_blocks = 1;
    d.precondition = Precondition::None;
    d
}

/// One on/off workload.
#[derive(Clone, Debug)]
pub struct OnOff {
    pub requests: usize,
    pub write_pct: f64,
    /// Mean request size, bytes (sizes are multiples of 4 KiB, geometric).
    pub mean_size: f64,
    /// Mean of the short (in-burst) gaps, ns.
    pub short_ns: f64,
    /// Probability that a gap is a long idle one.
    pub p_long: f64,
    /// Mean of the long gaps, ns.
    pub long_ns: f64,
    /// Share of the logical space touched.
    pub footprint: f64,
    /// Share of accesses that go to the hottest 20% of the footprint.
    pub hot_share: f64,
    /// 0: i.i.d. on/off gaps (bursts). N > 0: alternating phases of N requests, sparse
    /// (gaps uniform in ±50 % around `long_ns`) then dense (around `short_ns`), so the gap
    /// just seen predicts the next one, as RL-GC's state assumes.
    pub phase_len: usize,
    pub seed: u64,
}

impl OnOff {
    /// A row of RL-GC Table 1, with bursts of mean 20 requests 1 ms apart and the long gaps
    /// sized so the mean interval matches the table. `oltp` has no idle time: the table's
    /// 84 µs would overload a 2-plane device, so its requests come every 800 µs on average
    /// (about the device's write service time with GC), all gaps short.
    pub fn table1(row: &str, requests: usize, seed: u64) -> OnOff {
        let (w, mean_us, kb) = match row {
            "home1" => (0.99, 85_565.0, 8.08),
            "home2" => (0.91, 320_548.0, 9.4),
            "webmail" => (0.74, 303_762.0, 8.0),
            "oltp" => (0.99, 800.0, 4.46),
            other => panic!("no Table 1 row '{other}'"),
        };
        let (short, p_long) = if row == "oltp" {
            (mean_us * 1e3, 0.0)
        } else {
            (1e6, 0.05)
        };
        let long = if p_long > 0.0 {
            (mean_us * 1e3 - (1.0 - p_long) * short) / p_long
        } else {
            0.0
        };
        OnOff {
            requests,
            write_pct: w * 100.0,
            mean_size: kb * 1024.0,
            short_ns: short,
            p_long,
            long_ns: long,
            footprint: 0.6,
            hot_share: 0.8,
            phase_len: 0,
            seed,
        }
    }

    /// The same row as alternating sparse/dense phases of `len` requests, dense gaps around
    /// `short_ns`, sparse ones sized so the mean interval still matches the table.
    pub fn phased(mut self, len: usize, short_ns: f64) -> OnOff {
        if self.p_long > 0.0 {
            let mean = (1.0 - self.p_long) * self.short_ns + self.p_long * self.long_ns;
            self.short_ns = short_ns;
            self.long_ns = 2.0 * mean - short_ns;
        }
        self.phase_len = len;
        self
    }

    pub fn generate(&self, dev: &DeviceConfig) -> Vec<HostRequest> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let chunks = ((dev.host_bytes() as f64 * self.footprint) / 4096.0) as u64;
        let hot = (chunks / 5).max(1);
        let mean_chunks = (self.mean_size / 4096.0).max(1.0);
        let mut t = 0f64;
        let mut out = Vec::with_capacity(self.requests);
        for _ in 0..self.requests {
            if let Some(phase) = out.len().checked_div(self.phase_len) {
                let sparse = phase.is_multiple_of(2) && self.p_long > 0.0;
                let mean = if sparse { self.long_ns } else { self.short_ns };
                t += mean * rng.gen_range(0.5..1.5);
            } else {
                let mean = if rng.gen::<f64>() < self.p_long {
                    self.long_ns
                } else {
                    self.short_ns
                };
                t += -mean * (1.0 - rng.gen::<f64>()).ln();
            }
            // Geometric size in 4 KiB chunks with the requested mean.
            let mut n = 1u64;
            while rng.gen::<f64>() > 1.0 / mean_chunks && n < 64 {
                n += 1;
            }
            let start = if rng.gen::<f64>() < self.hot_share {
                rng.gen_range(0..hot)
            } else {
                rng.gen_range(0..chunks)
            };
            let start = start.min(chunks.saturating_sub(n));
            let op = if rng.gen::<f64>() * 100.0 < self.write_pct {
                Op::Write
            } else {
                Op::Read
            };
            out.push(HostRequest::new(
                Nanos(t as u64),
                start * 4096,
                n * 4096,
                op,
            ));
        }
        out
    }
}

/// Bursts of `burst` writes `in_gap_ns` apart, then an idle gap of `idle_ns`: the idle time
/// is there for the taking by a scheme that knows when to use it.
pub fn bursts(
    n: usize,
    burst: usize,
    in_gap_ns: u64,
    idle_ns: u64,
    dev: &DeviceConfig,
    footprint: f64,
    seed: u64,
) -> Vec<HostRequest> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pages = (dev.host_bytes() as f64 * footprint) as u64 / 8192;
    let mut t = 0u64;
    (0..n)
        .map(|i| {
            t += if i % burst == 0 { idle_ns } else { in_gap_ns };
            HostRequest::new(Nanos(t), rng.gen_range(0..pages) * 8192, 8192, Op::Write)
        })
        .collect()
}

/// An environment variable parsed as `T`, or `default` when unset or unparsable (the
/// ignored experiment drivers are configured this way).
pub fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

pub fn opts(seed: u64) -> SimOptions {
    SimOptions {
        seed,
        oracle: true,
        check_every: 2000,
        progress: None,
        ..Default::default()
    }
}

pub fn run(dev: &DeviceConfig, scheme: &str, reqs: Vec<HostRequest>, seed: u64) -> RunReport {
    let s = build_scheme(scheme, None, seed).unwrap_or_else(|e| panic!("{e}"));
    let sim =
        Simulation::new(dev.clone(), s, opts(seed)).unwrap_or_else(|e| panic!("{scheme}: {e}"));
    sim.run(&mut VecSource::new(reqs))
        .unwrap_or_else(|e| panic!("{scheme}: {e}"))
}

/// Run with every grant's moves counted (see [`Counting`]); the counts are in
/// `scheme_details["counting"]`.
pub fn run_counted(
    dev: &DeviceConfig,
    scheme: &str,
    reqs: Vec<HostRequest>,
    seed: u64,
) -> RunReport {
    let mut s = build_scheme(scheme, None, seed).unwrap_or_else(|e| panic!("{e}"));
    let inner = std::mem::replace(&mut s.gc, Box::new(Noop));
    s.gc = Box::new(Counting::new(
        inner,
        dev.geometry.planes() as usize,
        dev.geometry.pages_per_block,
    ));
    let sim =
        Simulation::new(dev.clone(), s, opts(seed)).unwrap_or_else(|e| panic!("{scheme}: {e}"));
    sim.run(&mut VecSource::new(reqs))
        .unwrap_or_else(|e| panic!("{scheme}: {e}"))
}

struct Noop;
impl GcPolicy for Noop {}

/// Wraps a policy; watches each plane's GC frontier to count the pages GC allocates
/// between one grant and the next, and checks them against the grant's step budget.
pub struct Counting {
    inner: Box<dyn GcPolicy>,
    ppb: u32,
    /// Per plane: last seen (frontier block, pages allocated in it).
    seen: Vec<Option<(Option<BlockId>, u32)>>,
    /// Per plane: (steps granted, moves since, min_invalid) of the open window.
    window: Vec<Option<(u32, u32, u32)>>,
    pub moves: u64,
    pub windows: u64,
    pub max_moves: u32,
    /// Largest move count of a window whose grant required victims > 1 invalid page.
    pub max_moves_early: u32,
    pub violations: Vec<String>,
    /// Windows by moves made (index = moves, capped at 64).
    pub hist: Vec<u64>,
}

impl Counting {
    pub fn new(inner: Box<dyn GcPolicy>, planes: usize, ppb: u32) -> Counting {
        Counting {
            inner,
            ppb,
            seen: vec![None; planes],
            window: vec![None; planes],
            moves: 0,
            windows: 0,
            max_moves: 0,
            max_moves_early: 0,
            violations: Vec::new(),
            hist: vec![0; 65],
        }
    }

    fn sync(&mut self, ctx: &GcCtx) {
        for p in 0..self.seen.len() {
            let f = ctx.ftl.blocks.planes[p].gc_frontier;
            let alloc = |b: Option<BlockId>| b.map_or(0, |b| ctx.ftl.blocks.allocated[b.idx()]);
            let delta = match self.seen[p] {
                None => 0,
                Some((Some(b), n)) if Some(b) == f => alloc(f) - n,
                Some((Some(_), n)) => (self.ppb - n) + alloc(f),
                Some((None, _)) => alloc(f),
            };
            self.seen[p] = Some((f, alloc(f)));
            self.moves += delta as u64;
            if let Some(w) = &mut self.window[p] {
                w.1 += delta;
            }
        }
    }

    fn close(&mut self, p: usize) {
        if let Some((steps, moves, min_inv)) = self.window[p].take() {
            self.windows += 1;
            self.hist[moves.min(64) as usize] += 1;
            if steps != u32::MAX {
                self.max_moves = self.max_moves.max(moves);
                if min_inv > 1 {
                    self.max_moves_early = self.max_moves_early.max(moves);
                }
                if moves > steps {
                    self.violations.push(format!(
                        "plane {p}: {moves} moves under a {steps}-step grant"
                    ));
                }
            }
        }
    }

    fn around(&mut self, ctx: &mut GcCtx, f: impl FnOnce(&mut dyn GcPolicy, &mut GcCtx)) {
        self.sync(ctx);
        let before = ctx.cmds.len();
        f(self.inner.as_mut(), ctx);
        let new: Vec<GcCmd> = ctx.cmds[before..].to_vec();
        for c in new {
            if let GcCmd::Grant(p, g) = c {
                self.close(p.idx());
                self.window[p.idx()] = Some((g.steps, 0, g.min_invalid_pages));
            }
        }
    }
}

impl GcPolicy for Counting {
    fn on_free_change(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        self.around(ctx, |i, c| i.on_free_change(c, plane));
    }
    fn on_arrival(&mut self, ctx: &mut GcCtx, req: &HostRequest) {
        self.around(ctx, |i, c| i.on_arrival(c, req));
    }
    fn on_complete(&mut self, ctx: &mut GcCtx, op: Op, latency: Nanos, plane: PlaneId) {
        self.around(ctx, |i, c| i.on_complete(c, op, latency, plane));
    }
    fn on_victim_done(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        self.around(ctx, |i, c| i.on_victim_done(c, plane));
    }
    fn on_timer(&mut self, ctx: &mut GcCtx, token: u64) {
        self.around(ctx, |i, c| i.on_timer(c, token));
    }
    fn details(&self) -> serde_json::Value {
        serde_json::json!({
            "inner": self.inner.details(),
            "counting": {
                "moves": self.moves, "windows": self.windows, "max_moves": self.max_moves,
                "max_moves_early": self.max_moves_early, "violations": &self.violations, "hist": &self.hist,
            }
        })
    }
}

/// p99.99 write latency of `a` over `b`.
pub fn ratio(a: &RunReport, b: &RunReport) -> f64 {
    a.writes.p99_99_ns as f64 / b.writes.p99_99_ns as f64
}

/// Alternating phases of 8 KiB writes: `a_len` requests with gaps uniform in ±50% around
/// `a_gap_ns`, then `b_len` around `b_gap_ns`, and so on. With a sparse phase (long
/// gaps) and a dense one, the interval just seen predicts the next one — the structure
/// RL-GC's state (previous and current interval) can exploit.
#[allow(clippy::too_many_arguments)]
pub fn phased(
    n: usize,
    a_len: usize,
    a_gap_ns: u64,
    b_len: usize,
    b_gap_ns: u64,
    dev: &DeviceConfig,
    footprint: f64,
    seed: u64,
) -> Vec<HostRequest> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pages = (dev.host_bytes() as f64 * footprint) as u64 / 8192;
    let hot = (pages / 5).max(1);
    let mut t = 0f64;
    (0..n)
        .map(|i| {
            let mean = if i % (a_len + b_len) < a_len {
                a_gap_ns
            } else {
                b_gap_ns
            } as f64;
            t += mean * rng.gen_range(0.5..1.5);
            let page = if rng.gen::<f64>() < 0.8 {
                rng.gen_range(0..hot)
            } else {
                rng.gen_range(0..pages)
            };
            HostRequest::new(Nanos(t as u64), page * 8192, 8192, Op::Write)
        })
        .collect()
}
