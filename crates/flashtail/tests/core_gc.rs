//! GC behaviour: integrity through GC, conservation, determinism, and GC really biting.
mod common;
use common::*;
use flashtail::config::Precondition;

fn gc_heavy() -> (flashtail::DeviceConfig, Vec<flashtail::HostRequest>) {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    let span = dev.host_bytes();
    // 70% writes, 1-4 pages, ~1 ms apart: several times the device written over.
    (dev, random_workload(20_000, span, 70, 4, 1_000_000, 7))
}

#[test]
fn integrity_and_conservation_through_heavy_gc() {
    let (dev, reqs) = gc_heavy();
    for scheme in ["nogc", "base", "preemptive"] {
        let r = run(&dev, scheme, reqs.clone(), 3);
        assert_eq!(r.integrity.violations, 0, "{scheme}");
        assert!(r.integrity.reads_checked > 10_000, "{scheme}: {}", r.integrity.reads_checked);
        assert_eq!(r.integrity.requests_completed, 20_000, "{scheme}");
        assert_eq!(r.reads.count + r.writes.count, 20_000);
        assert!(r.flash.erases > 100, "{scheme}: only {} erases", r.flash.erases);
        // Conservation: programmed = host + GC; every migrated page was programmed.
        assert!(r.flash.gc_pages_migrated <= r.flash.gc_pages_programmed);
        let waf = (r.flash.host_pages_programmed + r.flash.gc_pages_programmed) as f64 / r.flash.host_pages_programmed as f64;
        assert_eq!(r.flash.waf, waf);
    }
}

#[test]
fn gc_bites_base_tail_far_above_nogc_and_preemptive_between() {
    let (dev, reqs) = gc_heavy();
    let nogc = run(&dev, "nogc", reqs.clone(), 3);
    let base = run(&dev, "base", reqs.clone(), 3);
    let pre = run(&dev, "preemptive", reqs, 3);
    eprintln!(
        "read p99.99: nogc {} base {} preemptive {}",
        nogc.reads.p99_99_ns, base.reads.p99_99_ns, pre.reads.p99_99_ns
    );
    assert!(base.reads.p99_99_ns > 3 * nogc.reads.p99_99_ns);
    assert!(pre.reads.p99_99_ns < base.reads.p99_99_ns);
    assert!(pre.reads.p99_99_ns >= nogc.reads.p99_99_ns);
    assert_eq!(nogc.waits.requests_waited_on_gc, 0);
    assert!(base.waits.requests_waited_on_gc > 0);
}

#[test]
fn same_seed_same_bytes() {
    let (dev, reqs) = gc_heavy();
    let strip = |mut r: flashtail::RunReport| {
        r.cost = Default::default();
        serde_json::to_string(&r).unwrap()
    };
    let a = strip(run(&dev, "preemptive", reqs.clone(), 5));
    let b = strip(run(&dev, "preemptive", reqs, 5));
    assert_eq!(a, b);
}

#[test]
fn suspend_under_heavy_gc_keeps_integrity_and_cuts_the_read_tail() {
    let (mut dev, reqs) = gc_heavy();
    let plain = run(&dev, "preemptive", reqs.clone(), 3);
    dev.timing.suspend = flashtail::nand::timing::Suspend { enabled: true, suspend_ns: 20_000, resume_ns: 30_000 };
    for scheme in ["base", "preemptive", "ttflash-pbl"] {
        let r = run(&dev, scheme, reqs.clone(), 3);
        assert_eq!(r.integrity.violations, 0, "{scheme}");
        assert!(r.flash.suspends > 100, "{scheme}: {} suspends", r.flash.suspends);
        assert_eq!(r.integrity.requests_completed, 20_000);
    }
    let s = run(&dev, "preemptive", reqs, 3);
    eprintln!("preemptive read p99: plain {} suspend {}", plain.reads.p99_ns, s.reads.p99_ns);
    assert!(s.reads.p99_ns < plain.reads.p99_ns);
}
