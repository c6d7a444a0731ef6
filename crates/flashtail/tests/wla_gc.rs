//! WLA-GC (de Campos et al.) in the simulator: the word-line-aware victim picks blocks whose valid
//! pages sit on fast levels, and the GC moves it causes really take less array time.
mod common;
use common::*;
use flashtail::config::Precondition;
use flashtail::{DeviceConfig, HostRequest, Nanos, Op};

/// One plane of 64 QLC blocks of one 16-page word-line (4 levels x 4 pages), so that a
/// sequential fill puts logical page `16b + i` on block `b`, page `i`, level `i / 4`; times
/// of the `qlc` preset (read 50/100/125/150 µs, program 1/1.5/1.75/2 ms).
fn device() -> DeviceConfig {
    let mut dev = tiny();
    let q = flashtail::config::presets::load("qlc").unwrap();
    let g = &mut dev.geometry;
    (g.channels, g.chips_per_channel, g.blocks_per_plane, g.pages_per_block) = (1, 1, 64, 16);
    (g.bits_per_cell, g.pages_per_level) = (4, 4);
    dev.timing.read_ns = q.timing.read_ns;
    dev.timing.program_ns = q.timing.program_ns;
    dev.ftl.over_provisioning = 0.25;
    dev.precondition = Precondition::None;
    dev
}

/// Fill the 768 logical pages in order (48 blocks), then overwrite half of each of the first
/// 32: the bottom half (levels 0-1) of even blocks, the top half (levels 2-3) of odd ones.
/// Each of those then holds 8 valid pages, on slow levels in even blocks and fast ones in
/// odd; GC needs fewer victims than there are odd blocks.
fn workload() -> Vec<HostRequest> {
    let mut t = 0;
    let mut page = |lpn: u64| {
        t += 3_000_000;
        HostRequest::new(Nanos(t), lpn * 4096, 4096, Op::Write)
    };
    let mut reqs: Vec<HostRequest> = (0..768).map(&mut page).collect();
    for b in 0..32u64 {
        let half = if b % 2 == 0 { 0..8 } else { 8..16 };
        reqs.extend(half.map(|i| page(16 * b + i)));
    }
    // Read everything back: the oracle checks every page after the GC moves.
    reqs.extend((0..768u64).map(|l| HostRequest::new(Nanos(t + 3_000_000 + l * 1_000_000), l * 4096, 4096, Op::Read)));
    reqs
}

#[test]
fn wla_victims_hold_fast_pages_and_their_moves_read_faster() {
    let dev = device();
    let base = run(&dev, "base", workload(), 1);
    let wla = run(&dev, "wla-gc", workload(), 1);
    for r in [&base, &wla] {
        assert_eq!(r.integrity.violations, 0, "{}", r.scheme);
        assert_eq!(r.integrity.requests_completed, 768 + 256 + 768);
        assert!(r.flash.erases >= 4, "{}: {} erases", r.scheme, r.flash.erases);
        // Every victim held 8 valid pages (the fully valid blocks are never candidates).
        assert_eq!(r.flash.gc_pages_migrated, 8 * r.flash.erases, "{}", r.scheme);
    }
    assert_eq!(base.flash.erases, wla.flash.erases);
    let read_per_victim = |r: &flashtail::RunReport| r.flash.extra["gc_read_ns"] / r.flash.erases;
    let (b, w) = (read_per_victim(&base), read_per_victim(&wla));
    eprintln!("GC tR per victim: base {b} ns, wla-gc {w} ns ({} victims)", base.flash.erases);
    // WLA-GC takes only odd blocks: 4 pages at 50 µs and 4 at 100 µs.
    assert_eq!(w, 600_000);
    // Greedy takes the lowest block among equals: even and odd alike (1,100 µs and 600 µs).
    assert!(b >= 800_000, "base {b}");
    // The destinations' program times do not depend on the victim: the same in total.
    assert_eq!(base.flash.extra["gc_program_ns"], wla.flash.extra["gc_program_ns"]);
}

/// With one bit per cell every page costs the same, so WLA-GC is greedy up to ties: the
/// same victims, the same bytes.
#[test]
fn on_single_level_cells_wla_is_greedy() {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    let reqs = random_workload(6_000, dev.host_bytes(), 70, 4, 1_000_000, 11);
    let strip = |mut r: flashtail::RunReport| {
        r.cost = Default::default();
        r.scheme = String::new();
        r.scheme_details = serde_json::Value::Null;
        r.config = serde_json::Value::Null;
        serde_json::to_string(&r).unwrap()
    };
    let base = run(&dev, "base", reqs.clone(), 2);
    assert!(base.flash.erases > 50);
    assert_eq!(strip(base), strip(run(&dev, "wla-gc", reqs, 2)));
}
