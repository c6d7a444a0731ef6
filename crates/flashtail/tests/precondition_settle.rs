//! Settling an aged device before the run (`precondition.settle`, sim/engine/settle.rs): a
//! plane the aging model leaves below the GC soft threshold is collected at no time cost, so
//! the run does not open with a GC burst that no request caused.
mod common;
use common::*;
use flashtail::config::{presets, Precondition};
use flashtail::{DeviceConfig, HostRequest, Nanos, Op, RunReport};

/// Three 4 KiB reads, 1 ms apart, and no write: nothing the host does calls for GC.
fn three_reads() -> Vec<HostRequest> {
    (0..3u64).map(|k| HostRequest::new(Nanos(k * 1_000_000), (1000 + k) * 4096, 4096, Op::Read)).collect()
}

fn precond(r: &RunReport, key: &str) -> u64 {
    r.config["precondition"][key].as_u64().unwrap_or(0)
}

/// The ttFlash artifact's device at 512 blocks per plane, aged to ratio 0.71: 29 % free
/// against its 30 % soft threshold.
fn aged_demo() -> DeviceConfig {
    let mut d = presets::load("dtrs-demo").unwrap();
    d.geometry.blocks_per_plane = 512;
    d.precondition = Precondition::Aged { ratio: 0.71, settle: true };
    d
}

fn unsettled(dev: &DeviceConfig) -> DeviceConfig {
    let mut d = dev.clone();
    d.precondition = Precondition::Aged { ratio: 0.71, settle: false };
    d
}

#[test]
fn an_aged_device_below_the_threshold_starts_settled_instead_of_collecting() {
    let dev = aged_demo();
    let settled = run(&dev, "base", three_reads(), 1);
    let (victims, moved) = (precond(&settled, "settle_victims"), precond(&settled, "settle_pages_moved"));
    // About nine victims per plane (64 planes), collected before the run.
    assert!(victims > 8 * 64 && moved > 0, "settled {victims} victims, {moved} pages");
    assert_eq!((settled.flash.erases, settled.flash.gc_runs, settled.flash.gc_pages_migrated), (0, 0, 0));
    // Every plane starts at the threshold: the summary counts the free blocks after settling.
    let soft = dev.soft_threshold_blocks() as u64;
    let planes = dev.geometry.planes() as u64;
    assert!(precond(&settled, "free_blocks") >= soft * planes, "free {} < {soft} x {planes}", precond(&settled, "free_blocks"));
    // Reads are served at array + channel speed (tR 40 us, a 4 KiB transfer ~100 us).
    assert!(settled.reads.max_ns < 1_000_000, "settled read max {} ns", settled.reads.max_ns);

    // Unsettled, base's greedy GC does the very same work at t = 0, on the clock, and the
    // three reads queue behind it.
    let burst = run(&unsettled(&dev), "base", three_reads(), 1);
    assert_eq!(precond(&burst, "settle_victims"), 0);
    assert_eq!(burst.flash.erases, victims);
    assert_eq!(burst.flash.gc_pages_migrated, moved);
    assert!(burst.reads.max_ns > 100_000_000, "burst read max {} ns", burst.reads.max_ns);
}

#[test]
fn every_scheme_starts_from_the_same_settled_state_and_reads_stay_correct() {
    let dev = aged_demo();
    // Reads and writes all over the logical space, so many reads land on pages settling moved.
    let span = dev.host_bytes() / 8 * 7;
    let reqs = random_workload(20_000, span, 30, 4, 20_000, 7);
    let base = run(&dev, "base", reqs.clone(), 1);
    let lazy = run(&dev, "lazy-rtgc", reqs.clone(), 1);
    let nogc = run(&dev, "nogc", reqs, 1);
    // Settling uses greedy victims whatever the scheme's own policy: the same start for all.
    assert_eq!(base.config["precondition"], lazy.config["precondition"]);
    assert_eq!(base.config["precondition"], nogc.config["precondition"]);
    for r in [&base, &lazy, &nogc] {
        assert_eq!(r.integrity.violations, 0, "{}", r.scheme);
        assert!(r.integrity.reads_checked > 10_000, "{}: {} reads checked", r.scheme, r.integrity.reads_checked);
    }
}
