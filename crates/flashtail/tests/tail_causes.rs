//! Why the tail was slow (`RunReport::tail`): under heavy GC, `base`'s slowest reads
//! waited on GC and `nogc`'s did not; band counts agree with the exact percentiles; the
//! section is deterministic.
mod common;
use common::*;
use flashtail::config::Precondition;
use flashtail::stats::{LatencySummary, TailClass};

/// The heavy-GC setup of `core_gc.rs`: a tiny device 90 % full, 70 % writes of 1-4 pages.
fn gc_heavy() -> (flashtail::DeviceConfig, Vec<flashtail::HostRequest>) {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    let span = dev.host_bytes();
    (dev, random_workload(20_000, span, 70, 4, 1_000_000, 7))
}

fn gc_share(c: &TailClass, band: &str) -> f64 {
    let s = &c.band(band).unwrap().share_of_latency;
    s["gc_copy"] + s["gc_erase"] + s["free_space"]
}

/// Every band's count is the summary's `samples_at_or_above` (from the sorted samples), the
/// kept requests at or above the percentile are exactly that many (all kept: < 4096), and
/// the shares add up to 1.
fn check_bands(scheme: &str, c: &TailClass, s: &LatencySummary) {
    let names: Vec<&str> = c.bands.iter().map(|b| b.band.as_str()).collect();
    assert_eq!(names, ["p99", "p99.9", "p99.99"], "{scheme}");
    for (b, (q, from)) in c.bands.iter().zip([(0.99, s.p99_ns), (0.999, s.p99_9_ns), (0.9999, s.p99_99_ns)]) {
        assert_eq!(b.from_latency_ns, from, "{scheme} {}", b.band);
        assert_eq!(b.requests, s.samples_at_or_above[&b.band], "{scheme} {}", b.band);
        assert_eq!((b.covered, b.covered_from_latency_ns), (b.requests, None), "{scheme} {}", b.band);
        // Nearest rank: at least n − ⌈q·n⌉ + 1 samples lie at or above the percentile.
        let n = s.count as f64;
        assert!(b.requests > (n - (q * n).ceil()) as u64, "{scheme} {}: {} requests", b.band, b.requests);
        assert!(b.mean_latency_ns >= from as f64);
        let total: f64 = b.share_of_latency.values().sum();
        assert!((total - 1.0).abs() < 1e-9, "{scheme} {}: shares add up to {total}", b.band);
    }
    assert!(c.bands[0].requests >= c.bands[1].requests && c.bands[1].requests >= c.bands[2].requests);
    assert_eq!(c.slowest.len(), 10);
    assert_eq!(c.slowest[0].latency_ns, s.max_ns, "{scheme}");
    assert!(c.slowest.windows(2).all(|w| w[0].latency_ns >= w[1].latency_ns));
}

#[test]
fn base_tail_reads_wait_on_gc_and_nogc_tail_reads_do_not() {
    let (dev, reqs) = gc_heavy();
    let base = run(&dev, "base", reqs.clone(), 3);
    let nogc = run(&dev, "nogc", reqs, 3);
    for r in [&base, &nogc] {
        check_bands(&r.scheme, &r.tail.reads, &r.reads);
        check_bands(&r.scheme, &r.tail.writes, &r.writes);
        assert_eq!(r.tail.kept_per_class, 4096);
    }
    let (b, n) = (base.tail.reads.band("p99.9").unwrap(), nogc.tail.reads.band("p99.9").unwrap());
    eprintln!("base reads ≥ p99.9: {:?}\nnogc reads ≥ p99.9: {:?}", b, n);
    // base: GC is what the slowest reads waited for, by far.
    let (cause, share) = b.dominant().unwrap();
    assert!(cause == "gc_copy" || cause == "gc_erase", "base dominated by {cause}");
    assert!(gc_share(&base.tail.reads, "p99.9") > 0.8, "{}", gc_share(&base.tail.reads, "p99.9"));
    assert!(share > 0.5);
    // nogc reclaims at no time cost: no GC wait anywhere in its tail.
    for band in ["p99", "p99.9", "p99.99"] {
        assert_eq!(gc_share(&nogc.tail.reads, band), 0.0, "nogc reads {band}");
        assert_eq!(gc_share(&nogc.tail.writes, band), 0.0, "nogc writes {band}");
    }
    assert!(nogc.tail.reads.slowest.iter().all(|r| r.wait_ns_by_cause["gc_copy"] + r.wait_ns_by_cause["gc_erase"] == 0));
    assert!(n.mean_latency_ns * 3.0 < b.mean_latency_ns, "nogc {} base {}", n.mean_latency_ns, b.mean_latency_ns);
}

#[test]
fn tail_section_is_deterministic() {
    let (dev, reqs) = gc_heavy();
    let a = run(&dev, "preemptive", reqs.clone(), 5).tail;
    let b = run(&dev, "preemptive", reqs, 5).tail;
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert!(!a.reads.bands.is_empty() && !a.writes.slowest.is_empty());
}
