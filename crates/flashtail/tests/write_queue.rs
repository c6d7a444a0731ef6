//! The per-plane write queue (`ftl.max_queued_writes`): under a load the device cannot keep
//! up with, writes beyond one block's worth per plane wait unallocated, so allocated but
//! unprogrammed blocks cannot pile up and starve GC of victims.
//!
//! Without the limit every write took its page on arrival: under blocking GC the queued
//! writes filled block after block that could not be programmed (GC goes first) and so
//! could not be collected, while the GC'd blocks it could collect were the ones GC itself
//! had just filled with valid pages. Victims went from ~70 % to ~90 % valid, the write
//! amplification more than doubled, and the device got slower the more it was overloaded.
mod common;
use common::*;
use flashtail::config::Precondition;
use flashtail::{DeviceConfig, RunReport};

/// Tiny, 90 % full, random 1-4 page writes (70 %) arriving `gap_ns` apart on average.
fn load(gap_ns: u64, max_queued: Option<u32>) -> (DeviceConfig, Vec<flashtail::HostRequest>) {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    dev.ftl.max_queued_writes = max_queued;
    let span = dev.host_bytes();
    (dev, random_workload(20_000, span, 70, 4, gap_ns, 7))
}

fn gc_copies_per_victim(r: &RunReport) -> f64 {
    r.flash.gc_pages_migrated as f64 / r.flash.gc_runs as f64
}

fn wait_share(r: &RunReport, cause: &str) -> f64 {
    let total: u64 = r.waits.wait_ns_by_cause.values().sum();
    r.waits.wait_ns_by_cause[cause] as f64 / total as f64
}

#[test]
fn an_overloaded_device_keeps_its_gc_efficiency_with_the_write_queue_limit() {
    // 3 ms apart the device keeps up; 250 µs apart it is far behind.
    let (dev, reqs) = load(3_000_000, None);
    let light = run(&dev, "base", reqs, 3);
    let (dev, reqs) = load(250_000, None);
    let capped = run(&dev, "base", reqs, 3);
    let (dev, reqs) = load(250_000, Some(0));
    let unlimited = run(&dev, "base", reqs, 3);
    eprintln!(
        "copies/victim: light {:.1} capped {:.1} unlimited {:.1}; WAF {:.2} {:.2} {:.2}; held {} stalled {}/{}; sim s {:.1} {:.1}",
        gc_copies_per_victim(&light),
        gc_copies_per_victim(&capped),
        gc_copies_per_victim(&unlimited),
        light.flash.waf,
        capped.flash.waf,
        unlimited.flash.waf,
        capped.flash.extra["held_writes"],
        capped.flash.extra["stalled_writes"],
        unlimited.flash.extra["stalled_writes"],
        capped.sim_time_ns as f64 / 1e9,
        unlimited.sim_time_ns as f64 / 1e9,
    );
    for r in [&light, &capped, &unlimited] {
        assert_eq!(r.integrity.violations, 0);
        assert_eq!(r.integrity.requests_completed, 20_000);
    }
    // The limit is what held the writes back: the light load never reaches it, and without
    // it nothing is held.
    assert_eq!(light.flash.extra["held_writes"], 0);
    assert!(capped.flash.extra["held_writes"] > 1_000);
    assert_eq!(unlimited.flash.extra["held_writes"], 0);
    // GC picks victims as good under overload as under a light load...
    assert!(gc_copies_per_victim(&capped) < gc_copies_per_victim(&light) * 1.1);
    assert!(capped.flash.waf < light.flash.waf * 1.1);
    // ...and without the limit it does not: the allocated, unprogrammed blocks hide the
    // invalid pages, and the same work takes the device longer.
    assert!(gc_copies_per_victim(&unlimited) > gc_copies_per_victim(&capped) * 1.15);
    assert!(unlimited.flash.waf > capped.flash.waf * 1.3);
    assert!(unlimited.sim_time_ns > capped.sim_time_ns);
}

#[test]
fn a_held_write_is_charged_to_what_its_plane_did_meanwhile() {
    let (dev, reqs) = load(250_000, None);
    let capped = run(&dev, "base", reqs, 3);
    let (dev, reqs) = load(250_000, Some(0));
    let unlimited = run(&dev, "base", reqs, 3);
    // Held behind a full queue, a write waits for the plane's GC and earlier writes: that is
    // where its wait goes, not to free space (the plane never ran out of it).
    assert_eq!(capped.flash.extra["stalled_writes"], 0);
    assert!(wait_share(&capped, "free_space") < 0.01, "{:?}", capped.waits.wait_ns_by_cause);
    assert!(wait_share(&capped, "gc_copy") + wait_share(&capped, "gc_erase") > 0.5, "{:?}", capped.waits.wait_ns_by_cause);
    // Without the limit the planes do run out of free pages, and the stalls show as such.
    assert!(unlimited.flash.extra["stalled_writes"] > 1_000);
    assert!(wait_share(&unlimited, "free_space") > 0.2, "{:?}", unlimited.waits.wait_ns_by_cause);
}

/// RAIN on 3 channels (2 data pages + parity a stripe): a stripe's parity is written when
/// its waiting data pages are accepted. A held data page used to have its parity written
/// twice, once with its request (covering nothing new) and again when the page was
/// accepted: under this load 0.90 parity pages per data page against 0.70 under a light one.
/// Now the parity of pages accepted together is written once.
#[test]
fn a_held_data_page_does_not_write_its_stripe_parity_twice() {
    let mut d = tiny();
    d.geometry.channels = 3;
    let span = flashtail::runner::host_capacity_bytes(&d, "ttflash-gtr").unwrap();
    let light = run(&d, "ttflash-gtr", random_workload(20_000, span, 70, 4, 3_000_000, 42), 1);
    let heavy = run(&d, "ttflash-gtr", random_workload(20_000, span, 70, 4, 600_000, 42), 1);
    let ratio = |r: &RunReport| r.flash.parity_pages_programmed as f64 / r.flash.host_pages_programmed as f64;
    eprintln!(
        "parity per data page: light {:.3} heavy {:.3} (held {})",
        ratio(&light),
        ratio(&heavy),
        heavy.flash.extra["held_writes"]
    );
    assert!(heavy.flash.extra["held_writes"] > 1_000);
    for r in [&light, &heavy] {
        assert_eq!(r.integrity.violations, 0);
    }
    assert!(ratio(&heavy) <= ratio(&light), "parity per data page: light {} heavy {}", ratio(&light), ratio(&heavy));
    // Every parity page covers at least one new data page.
    assert!(heavy.flash.parity_pages_programmed <= heavy.flash.host_pages_programmed);
}

/// ttFlash's GC-tolerant flush with a small buffer under overload: a flushed page whose flash
/// write is held can be rewritten before it is mapped. That rewrite is a new dirty page of its
/// stripe; it used to find the page still in the buffer map but its stripe gone, and panic
/// ("stripe entry").
#[test]
fn a_page_rewritten_while_its_flushed_write_is_held_is_buffered_again() {
    let mut d = tiny();
    d.geometry.channels = 3;
    d.buffer.enabled = true;
    d.buffer.capacity_pages = 256;
    let span = flashtail::runner::host_capacity_bytes(&d, "ttflash").unwrap();
    let r = run(&d, "ttflash", random_workload(20_000, span, 70, 4, 300_000, 42), 1);
    assert!(r.flash.extra["held_writes"] > 1_000, "{:?}", r.flash.extra);
    assert_eq!(r.integrity.violations, 0);
    assert_eq!(r.integrity.requests_completed, 20_000);
    assert!(r.flash.parity_pages_programmed > 0);
}

/// The partial-GC schemes on a nearly full plane with a one-write queue: a plane that can
/// take no more host writes is kept collecting by its guard (an intensive task, then a
/// timer to look again). When the guard found GC work already granted on the plane (a
/// task a write had triggered, still waiting behind queued operations) it did nothing and
/// set no timer; that task ended with no hook firing, no write could complete on the
/// blocked plane to trigger the next one, and its stalled writes waited for ever
/// ("simulation stalled: 304 requests never completed" under lazy-rtgc).
#[test]
fn a_blocked_plane_under_partial_gc_keeps_collecting_until_its_writes_fit() {
    let mut d = tiny();
    d.geometry.channels = 3;
    d.precondition = Precondition::Steady { fill: 0.99, free_blocks_margin: 1 };
    d.ftl.over_provisioning = 0.07;
    d.ftl.gc_soft_threshold = 0.3;
    d.ftl.gc_hard_threshold = 0.2;
    d.ftl.max_queued_writes = Some(1);
    // No RAIN here: the whole logical space is the host's.
    d.ftl.rain_parity = flashtail::config::RainParity::Spare;
    let span = d.host_bytes();
    for s in ["lazy-rtgc", "rlgc", "rlgc-aggressive", "idle-ma", "idle-es"] {
        let r = run(&d, s, random_workload(10_000, span, 99, 2, 84_000, 7), 1);
        assert_eq!(r.integrity.violations, 0, "{s}");
        assert_eq!(r.integrity.requests_completed, 10_000, "{s}");
        assert!(r.flash.extra["stalled_writes"] > 0, "{s}: the planes never ran out of free pages");
    }
}

/// Dynamic allocation puts a write on whichever plane has room, so one plane can fill with
/// valid data while the pages it holds are invalidated by writes placed on other planes.
/// GC looks at a plane when its free space changes; such a plane, which found no victim
/// when it last looked, was never looked at again, and once every plane was full the writes
/// stalled for good (NoGC on an empty tiny: "simulation stalled: 6905 requests never
/// completed", with three planes holding hundreds of invalid pages and GC idle on them).
/// Now a write that finds no plane with room has every plane below the soft threshold
/// look again.
#[test]
fn dynamic_allocation_reclaims_planes_whose_pages_other_planes_invalidated() {
    let mut d = tiny();
    d.ftl.allocation = flashtail::config::Allocation::Dynamic;
    let span = d.host_bytes();
    for s in ["nogc", "base"] {
        let r = run(&d, s, random_workload(20_000, span, 70, 4, 500_000, 42), 1);
        assert_eq!(r.integrity.violations, 0, "{s}");
        assert_eq!(r.integrity.requests_completed, 20_000, "{s}");
        assert!(r.flash.erases > 100, "{s}: {}", r.flash.erases);
    }
}

/// Under dynamic allocation a held write is bound to no plane: it used to wait in the
/// queue of the plane chosen at its arrival, and when that plane then filled with valid
/// data (its queue had taken the pages) the write waited for ever while other planes had
/// room (planes of a die sharing one unit, one queued write per plane). Now all waiting
/// writes share one queue and each goes where there is room when it is retried.
#[test]
fn a_held_write_under_dynamic_allocation_goes_to_any_plane_with_room() {
    let mut d = tiny();
    d.geometry.channels = 3;
    d.geometry.planes_per_die = 2;
    d.ftl.unit = flashtail::config::UnitOfExecution::Die;
    d.ftl.allocation = flashtail::config::Allocation::Dynamic;
    d.ftl.max_queued_writes = Some(1);
    d.precondition = Precondition::Aged { ratio: 0.9, settle: true };
    let span = d.host_bytes();
    for s in ["base", "ttflash-pbl", "cagc", "gc-bypass"] {
        let r = run(&d, s, random_workload(20_000, span, 70, 4, 100_000, 42), 1);
        assert_eq!(r.integrity.violations, 0, "{s}");
        assert_eq!(r.integrity.requests_completed, 20_000, "{s}");
        assert!(r.flash.extra["held_writes"] > 1_000, "{s}: {:?}", r.flash.extra);
    }
}
