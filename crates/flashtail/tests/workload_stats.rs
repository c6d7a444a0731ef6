//! Statistical checks of the generator against the configured or analytic values.
//!
//! Tolerances are derived from the sample size: for a share p over n draws the standard
//! deviation is sqrt(p (1 - p) / n); for a mean, sd / sqrt(n). Unless stated otherwise a test
//! allows 5 standard deviations (false-failure odds below 1e-6; and with a fixed seed the
//! outcome is deterministic anyway). Every test runs in well under a second.

use flashtail::workload::address::scatter;
use flashtail::workload::{
    preset, zipf_pmf, AddressPattern, Arrival, GapDist, GenConfig, Generator, SizeDist, BLOCK_4K,
};
use flashtail::{HostRequest, Op, RequestSource};
use std::collections::HashMap;

const GIB: u64 = 1 << 30;

fn collect(cfg: GenConfig) -> (Generator, Vec<HostRequest>) {
    let mut g = Generator::new(cfg).expect("valid config");
    let mut v = Vec::new();
    while let Some(r) = g.next_request().expect("generator never fails") {
        v.push(r);
    }
    (g, v)
}

fn mean_interval_ns(v: &[HostRequest]) -> f64 {
    (v[v.len() - 1].arrival.0 - v[0].arrival.0) as f64 / (v.len() - 1) as f64
}

#[test]
fn bench_ref_read_ratio_size_and_interval() {
    let n = 200_000u64;
    let (_, v) = collect(preset("bench-ref").expect("preset").with_span(64 * GIB).with_count(n));
    assert_eq!(v.len() as u64, n);
    // Read share 0.3: sd = sqrt(0.21 / 200k) = 0.00102; 5 sd = 0.0051.
    let reads = v.iter().filter(|r| r.op == Op::Read).count() as f64 / n as f64;
    assert!((reads - 0.3).abs() < 0.0051, "read share {reads}");
    // Sizes uniform over {4,8,12,16} KiB: mean 10240 B, sd 4096 * sqrt(1.25) = 4579 B;
    // sd of the mean 10.2 B; 5 sd = 51 B.
    let mean_size = v.iter().map(|r| r.size).sum::<u64>() as f64 / n as f64;
    assert!((mean_size - 10240.0).abs() < 51.0, "mean size {mean_size}");
    for s in [4096u64, 8192, 12288, 16384] {
        let share = v.iter().filter(|r| r.size == s).count() as f64 / n as f64;
        // p = 0.25: sd 0.00097; 5 sd = 0.0049.
        assert!((share - 0.25).abs() < 0.0049, "size {s} share {share}");
    }
    // Poisson at 1000 IOPS: mean gap 1 ms, sd of the mean 1 ms / sqrt(n) = 2.24 us; 5 sd = 11.2 us.
    let mi = mean_interval_ns(&v);
    assert!((mi - 1e6).abs() < 11_200.0, "mean interval {mi} ns");
}

#[test]
fn table1_mean_intervals_are_exact_in_expectation() {
    let rows = [
        ("rlgc-home1", 85_565.0),
        ("rlgc-home2", 320_548.0),
        ("rlgc-home3", 1_882_329.0),
        ("rlgc-home4", 693_651.0),
        ("rlgc-webmail", 303_762.0),
        ("rlgc-webmail+online", 127_184.0),
        ("rlgc-RBESQL", 11_664.0),
        ("rlgc-MSNSFS", 739.0),
        ("rlgc-oltp", 84.0),
    ];
    for (name, us) in rows {
        let g = Generator::new(preset(name).expect("preset").with_span(GIB)).expect("valid");
        let m = g.expected_interval_ns();
        assert!((m - us * 1e3).abs() < 1e-6 * us * 1e3, "{name}: {m} ns");
    }
    let sizes = [("rlgc-home1", 8.08), ("rlgc-RBESQL", 57.85), ("rlgc-oltp", 4.46)];
    for (name, kb) in sizes {
        let g = Generator::new(preset(name).expect("preset").with_span(GIB)).expect("valid");
        assert!((g.expected_size_bytes() - kb * 1024.0).abs() < 1e-6 * kb * 1024.0, "{name}");
    }
}

#[test]
fn table1_home1_sample_statistics() {
    let n = 200_000u64;
    let (g, v) = collect(preset("rlgc-home1").expect("preset").with_span(16 * GIB).with_count(n));
    // Write share 0.99: sd 0.000222; 5 sd = 0.0011.
    let writes = v.iter().filter(|r| r.op == Op::Write).count() as f64 / n as f64;
    assert!((writes - 0.99).abs() < 0.0011, "write share {writes}");
    // Truncated geometric, mean 8273.92 B; its sd is below 8 KiB, so sd of the mean < 18.4 B.
    let mean_size = v.iter().map(|r| r.size).sum::<u64>() as f64 / n as f64;
    assert!((mean_size - 8.08 * 1024.0).abs() < 5.0 * 18.4, "mean size {mean_size}");
    // Mean interval: ratio of cycle time to cycle requests over ~12,500 cycles (16 requests
    // each). With lognormal(sigma 1.5) idle gaps of mean I = 16 M (CV^2 = e^2.25 - 1 = 8.49)
    // and geometric bursts (Var N = 240), the delta method gives a relative sd of
    // sqrt((256 * 8.49 + 240) / 256 / 12,500) = 2.7%; allow 4 sd = 11%.
    let mi = mean_interval_ns(&v);
    assert!((mi / 85_565_000.0 - 1.0).abs() < 0.11, "mean interval {mi} ns");
    // Burst structure: 15 of 16 gaps are inner gaps (mean 1 ms), so the median gap is short.
    let mut gaps: Vec<u64> = v.windows(2).map(|w| w[1].arrival.0 - w[0].arrival.0).collect();
    gaps.sort_unstable();
    let median = gaps[gaps.len() / 2];
    assert!(median < 2_000_000, "median gap {median} ns should be a burst gap");
    // Idle share target I / (I + B) = 1354.04 / 1369.04 = 0.98904; realised within 2%.
    let share = g.idle_ns() / v[v.len() - 1].arrival.0 as f64;
    assert!((share - 1354.04 / 1369.04).abs() < 0.02, "idle share {share}");
}

fn onoff(burst_iops: f64, s: f64, idle_ms: f64, d: GapDist, n: u64) -> GenConfig {
    GenConfig {
        count: Some(n),
        arrival: Arrival::Onoff { burst_iops, target_idle_share: s, mean_idle_ms: idle_ms, idle_dist: d },
        ..GenConfig::default().with_span(GIB)
    }
}

#[test]
fn onoff_idle_share_matches_target() {
    // s = 0.5, I = 50 ms, bursts at 1000 IOPS: B = 50 ms, 51 requests per cycle, ~7,800
    // cycles in 400k requests. Delta method: sd of the realised share = 0.004; 2% = 5 sd.
    for d in [GapDist::Exponential, GapDist::Lognormal { sigma: 1.0 }] {
        let (g, v) = collect(onoff(1000.0, 0.5, 50.0, d.clone(), 400_000));
        let share = g.idle_ns() / v[v.len() - 1].arrival.0 as f64;
        assert!((share - 0.5).abs() < 0.02, "{d:?}: idle share {share}");
        // Mean interval (I + B) / E[N] = 100 ms / 51.
        let mi = mean_interval_ns(&v);
        assert!((mi / (100e6 / 51.0) - 1.0).abs() < 0.03, "{d:?}: mean interval {mi}");
    }
}

#[test]
fn onoff_idle_share_is_visible_in_the_trace_itself() {
    // Measured from arrival times alone, as a simulator sees them: gaps > 2 ms count as idle.
    // Bursts at 10k IOPS (0.1 ms gaps; P(gap > 2 ms) = e^-20, negligible), idle gaps exp mean
    // 50 ms (share of idle time in gaps < 2 ms: 1 - e^-0.04 * 1.04 = 0.08%). s = 0.9 gives
    // ~7,200 cycles in 400k requests and an sd of 0.0015; 2% is > 10 sd.
    let (_, v) = collect(onoff(10_000.0, 0.9, 50.0, GapDist::Exponential, 400_000));
    let total = (v[v.len() - 1].arrival.0 - v[0].arrival.0) as f64;
    let idle: u64 = v.windows(2).map(|w| w[1].arrival.0 - w[0].arrival.0).filter(|&g| g > 2_000_000).sum();
    let share = idle as f64 / total;
    assert!((share - 0.9).abs() < 0.02, "idle share from trace {share}");
}

#[test]
fn duplicate_rate_and_popularity() {
    // splitgc-home1: 45.3% duplicates. ~2 blocks per write, ~400k blocks: sd 0.0008; the
    // brief's 1% is > 10 sd.
    let (g, v) = collect(preset("splitgc-home1").expect("preset").with_span(16 * GIB).with_count(200_000));
    let mut seen: HashMap<u64, u64> = HashMap::new();
    let (mut blocks, mut dups) = (0u64, 0u64);
    let mut first = None;
    for r in v.iter().filter(|r| r.op == Op::Write) {
        assert_eq!(r.fingerprints.len() as u64, r.size.div_ceil(BLOCK_4K));
        for &f in &r.fingerprints {
            assert_ne!(f, 0, "fingerprint 0 means unknown");
            first.get_or_insert(f);
            blocks += 1;
            let c = seen.entry(f).or_insert(0);
            if *c > 0 {
                dups += 1;
            }
            *c += 1;
        }
    }
    let rate = dups as f64 / blocks as f64;
    assert!((rate - 0.453).abs() < 0.01, "dup rate {rate}");
    assert_eq!(g.content_counts(), (blocks, dups, seen.len() as u64));
    // Oldest content is the most popular (Zipf rank 1).
    let top = seen.iter().max_by_key(|(_, &c)| c).map(|(&f, _)| f);
    assert_eq!(top, first);
    // Reads carry no fingerprints.
    assert!(v.iter().filter(|r| r.op == Op::Read).all(|r| r.fingerprints.is_empty()));
}

#[test]
fn zipf_head_probability_matches_analytic() {
    let pages = 1000u64;
    let n = 200_000u64;
    let cfg = GenConfig {
        count: Some(n),
        address: AddressPattern::Zipf { theta: 0.99, extent_bytes: None },
        size: SizeDist::Fixed { bytes: 4096 },
        ..GenConfig::default().with_span(pages * 4096)
    };
    let (_, v) = collect(cfg);
    for rank in 1..=3u64 {
        let off = scatter(rank - 1, pages) * 4096;
        let f = v.iter().filter(|r| r.offset == off).count() as f64 / n as f64;
        let p = zipf_pmf(pages, 0.99, rank);
        let tol = 5.0 * (p * (1.0 - p) / n as f64).sqrt();
        assert!((f - p).abs() < tol, "rank {rank}: {f} vs {p} (tol {tol})");
    }
}

#[test]
fn zipf_over_extents_head_probability() {
    // 1024 pages in 64 extents of 16 pages; rank 1 extent holds P(1) of accesses spread
    // uniformly over its 16 pages.
    let n = 200_000u64;
    let cfg = GenConfig {
        count: Some(n),
        address: AddressPattern::Zipf { theta: 0.8, extent_bytes: Some(16 * 4096) },
        size: SizeDist::Fixed { bytes: 4096 },
        ..GenConfig::default().with_span(1024 * 4096)
    };
    let (_, v) = collect(cfg);
    let ext = scatter(0, 64);
    let f = v.iter().filter(|r| r.offset / (16 * 4096) == ext).count() as f64 / n as f64;
    let p = zipf_pmf(64, 0.8, 1);
    assert!((f - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(), "{f} vs {p}");
}

#[test]
fn hot_cold_split() {
    let n = 200_000u64;
    let cfg = GenConfig {
        count: Some(n),
        address: AddressPattern::Hotcold { hot_fraction_of_space: 0.2, hot_fraction_of_accesses: 0.8 },
        size: SizeDist::Fixed { bytes: 4096 },
        ..GenConfig::default().with_span(GIB)
    };
    let (g, v) = collect(cfg);
    let hot_pages = g.hot_pages().expect("hot/cold");
    // 262,144 pages * 0.2 = 52,428.8, rounded to the nearest page.
    assert_eq!(hot_pages, 52_429);
    // p = 0.8: sd 0.00089; 5 sd = 0.0045.
    let hot = v.iter().filter(|r| r.offset < hot_pages * 4096).count() as f64 / n as f64;
    assert!((hot - 0.8).abs() < 0.0045, "hot share {hot}");
}
