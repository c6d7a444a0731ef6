//! Shared helpers for the core tests: a tiny deterministic random workload (independent of
//! the trace parsers and the generator, so core tests do not depend on them).
#![allow(dead_code)]

use flashtail::config::{presets, Precondition};
use flashtail::gc::build_scheme;

use flashtail::{DeviceConfig, HostRequest, Nanos, Op, RunReport, SimOptions, Simulation, VecSource};

/// xorshift64*: enough randomness for test workloads, no dependencies.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` random page-aligned requests over `span` bytes, `write_pct`% writes, 1-`max_pages`
/// pages each, one every `gap_ns` on average (uniform 0..2×gap).
pub fn random_workload(n: usize, span: u64, write_pct: u64, max_pages: u64, gap_ns: u64, seed: u64) -> Vec<HostRequest> {
    let mut r = Rng(seed.max(1));
    let pages = span / 4096;
    let mut t = 0u64;
    (0..n)
        .map(|_| {
            t += r.below(2 * gap_ns + 1);
            let np = 1 + r.below(max_pages);
            let p = r.below(pages - np);
            let op = if r.below(100) < write_pct { Op::Write } else { Op::Read };
            HostRequest::new(Nanos(t), p * 4096, np * 4096, op)
        })
        .collect()
}

pub fn run(dev: &DeviceConfig, scheme: &str, reqs: Vec<HostRequest>, seed: u64) -> RunReport {
    run_scheme(dev, build_scheme(scheme, None, seed).unwrap(), reqs, seed)
}

pub fn run_scheme(dev: &DeviceConfig, s: flashtail::gc::Scheme, reqs: Vec<HostRequest>, seed: u64) -> RunReport {
    let scheme = s.name.clone();
    let sim = Simulation::new(dev.clone(), s, SimOptions { seed, oracle: true, check_every: 500, progress: None, ..Default::default() }).unwrap();
    sim.run(&mut VecSource::new(reqs)).unwrap_or_else(|e| panic!("{scheme}: {e}"))
}

pub fn tiny() -> DeviceConfig {
    presets::load("tiny").unwrap()
}

/// A RAIN test device: `channels` x 1 plane, 16 blocks x 4 pages, GC below 5 free blocks
/// (hard threshold 10 %), a 50 ms erase so a GC is easy to land reads in, a 10 us XOR, no
/// preconditioning.
pub fn rain_dev(channels: u32) -> DeviceConfig {
    let mut d = tiny();
    d.geometry.channels = channels;
    d.geometry.chips_per_channel = 1;
    d.geometry.blocks_per_plane = 16;
    d.geometry.pages_per_block = 4;
    d.ftl.over_provisioning = 0.5;
    d.ftl.gc_soft_threshold = 0.30;
    d.ftl.gc_hard_threshold = 0.10;
    d.timing.erase_ns = 50_000_000;
    d.timing.xor_ns = 10_000;
    d.precondition = Precondition::None;
    d
}

/// A report's `flash.extra[k]` (the scheme's own counters); panics naming the scheme when
/// the report has no such key.
pub fn extra(r: &RunReport, k: &str) -> u64 {
    *r.flash.extra.get(k).unwrap_or_else(|| panic!("{}: no flash.extra[{k}]", r.scheme))
}

/// The power-loss tests' load (audits and cuts): tiny, 90 % full, random 1-4 page requests
/// (70 % writes) `gap_ns` apart on average: GC from the start, with writes queued behind it.
pub fn power_loss_load(gap_ns: u64, protected: Option<bool>) -> (DeviceConfig, Vec<HostRequest>) {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    dev.ftl.power_loss_protection = protected;
    let span = dev.host_bytes();
    (dev, random_workload(12_000, span, 70, 4, gap_ns, 11))
}

/// The power-loss tests' load for RAIN: tiny on three channels (RAIN needs three), 90 %
/// full, the same kind of requests over the data capacity left once a page in three holds
/// parity.
pub fn rain_load(protected: Option<bool>) -> (DeviceConfig, Vec<HostRequest>) {
    let (mut dev, _) = power_loss_load(400_000, protected);
    dev.geometry.channels = 3;
    let data = flashtail::ftl::rain::Rain::data_capacity(dev.logical_pages(), 3);
    let span = u64::from(data) * u64::from(dev.geometry.page_size);
    (dev, random_workload(12_000, span, 70, 4, 400_000, 11))
}

/// The content-aware schemes' tests' load (`splitgc.rs`, `power_cut.rs`): writes over half
/// the tiny device's logical space (4-8 KiB, 80 %), with `dup_pct` % of
/// written pages taking one of 64 popular contents and the rest unique, one request per
/// 2 ms on average: GC runs throughout, and scrub passes (every 50 ms) see the data.
pub fn dup_workload(n: usize, dup_pct: u64, seed: u64) -> Vec<HostRequest> {
    let mut r = Rng(seed);
    let span_pages = 2048u64;
    let mut t = 0u64;
    let mut unique = 1_000_000u64;
    (0..n)
        .map(|_| {
            t += r.below(4_000_001);
            let np = 1 + r.below(2);
            let p = r.below(span_pages - np);
            if r.below(100) < 80 {
                let mut q = HostRequest::new(Nanos(t), p * 4096, np * 4096, Op::Write);
                for _ in 0..np {
                    let fp = if r.below(100) < dup_pct {
                        1 + r.below(64)
                    } else {
                        unique += 1;
                        unique
                    };
                    q.fingerprints.push(fp);
                }
                q
            } else {
                HostRequest::new(Nanos(t), p * 4096, np * 4096, Op::Read)
            }
        })
        .collect()
}
