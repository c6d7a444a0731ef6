//! Venice and GC bypass in the simulator: transfers that a shared channel bus
//! serialises run side by side on the mesh, at the analytic cost of their path setup; GC
//! bypass moves GC transfers off the host ports and lets host I/O take GC write-back paths;
//! and through all of it every read returns the newest data.
mod common;
use common::*;
use flashtail::config::Precondition;
use flashtail::interconnect::Interconnect;
use flashtail::{DeviceConfig, HostRequest, Nanos, Op, RunReport};

/// `tiny` (2 channels x 2 chips, one plane each; transfer of a page 40,960 ns, tPROG
/// 500 µs), empty. On the mesh: 2 x 2 routers, chip (channel c, chip k) at row k, column c;
/// the two host ports above columns 0 and 1.
fn empty_tiny() -> DeviceConfig {
    let mut dev = tiny();
    dev.precondition = Precondition::None;
    dev.interconnect.hop_ns = 3;
    dev
}

fn with(dev: &DeviceConfig, scheme: &str, net: Option<Interconnect>, reqs: Vec<HostRequest>, seed: u64) -> RunReport {
    let mut s = flashtail::gc::build_scheme(scheme, None, seed).unwrap();
    if let Some(n) = net {
        s.interconnect = n;
    }
    run_scheme(dev, s, reqs, seed)
}


/// Static striping puts logical pages 0 and 2 on channel 0, chips 0 and 1.
fn two_writes_on_one_channel() -> Vec<HostRequest> {
    vec![HostRequest::new(Nanos(0), 0, 4096, Op::Write), HostRequest::new(Nanos(0), 2 * 4096, 4096, Op::Write)]
}

#[test]
fn the_bus_serialises_two_chips_of_a_channel_and_the_mesh_does_not() {
    let (x, prog) = (40_960, 500_000);
    let bus = run(&empty_tiny(), "base", two_writes_on_one_channel(), 1);
    assert_eq!((bus.writes.min_ns, bus.writes.max_ns), (x + prog, 2 * x + prog), "the second write waits a transfer for the bus");
    let v = run(&empty_tiny(), "venice", two_writes_on_one_channel(), 1);
    // Chip 0 is right below port 0: no hop, setup = (0 moves + port + 2 x (0 hops + 1)) x 3 ns.
    // Chip 1's nearest port is taken: from port 1 the scout goes down and left, 2 moves and
    // a 2-hop path: (2 + 1 + 2 x 3) x 3 ns.
    assert_eq!((v.writes.min_ns, v.writes.max_ns), (x + prog + 9, x + prog + 27));
    assert_eq!(extra(&v, "mesh_transfers"), 2);
    assert_eq!(extra(&v, "mesh_first_try_paths"), 2);
    assert_eq!(extra(&v, "mesh_path_hops"), 2);
    assert_eq!(extra(&v, "mesh_path_wait_ns"), 0);
    assert_eq!(v.waits.wait_ns_by_cause["channel"], 0);
    assert_eq!(bus.waits.wait_ns_by_cause["channel"], x);
}

#[test]
fn one_chip_takes_one_transfer_at_a_time_on_the_mesh_too() {
    // Two planes of one chip (dies_per_chip 1, planes 2): their transfers share the chip's pins.
    let mut dev = empty_tiny();
    dev.geometry.planes_per_die = 2;
    dev.geometry.blocks_per_plane = 32;
    // Logical pages 0 and 4: channel 0, chip 0, planes 0 and 1 (channel-first striping).
    let reqs = vec![HostRequest::new(Nanos(0), 0, 4096, Op::Write), HostRequest::new(Nanos(0), 4 * 4096, 4096, Op::Write)];
    let v = run(&dev, "venice", reqs, 1);
    let (x, prog) = (40_960, 500_000);
    assert_eq!(v.writes.min_ns, x + prog + 9);
    assert_eq!(v.writes.max_ns, 2 * (x + 9) + prog, "the second plane's transfer waits for the chip's link");
    assert_eq!(extra(&v, "mesh_failed_chip_busy"), 1);
    assert_eq!(extra(&v, "mesh_path_wait_ns"), x + 9);
}

/// A GC-heavy random workload on `tiny` (80% writes, pages spread over the whole space).
fn gc_heavy(n: usize, seed: u64) -> Vec<HostRequest> {
    random_workload(n, tiny().host_bytes(), 80, 4, 120_000, seed)
}

#[test]
fn gc_bypass_moves_gc_off_the_host_ports_and_host_io_takes_over_write_backs() {
    let dev = tiny();
    let reqs = gc_heavy(30_000, 7);
    let v = run(&dev, "venice", reqs.clone(), 7);
    let b = run(&dev, "gc-bypass", reqs, 7);
    for r in [&v, &b] {
        assert_eq!(r.integrity.violations, 0);
        assert!(r.flash.gc_pages_migrated > 1000, "{}: GC ran ({} moves)", r.scheme, r.flash.gc_pages_migrated);
    }
    assert_eq!(extra(&v, "mesh_preemptions"), 0, "Venice is fair: nothing preempts");
    assert!(extra(&b, "mesh_preemptions") > 0, "host I/O took over GC write-back paths");
    assert!(extra(&b, "mesh_preempted_transfer_ns") > 0);
    // With their own ports, GC transfers no longer queue host transfers for a port.
    let host_wait = |r: &RunReport| r.waits.wait_ns_by_cause["channel"];
    assert!(host_wait(&b) < host_wait(&v), "host path waits: gc-bypass {} vs venice {}", host_wait(&b), host_wait(&v));
    // A write-back that waits for its path waits in the GC controller's cache, and its plane
    // serves reads meanwhile, even under blocking GC: reads wait less on GC.
    assert!(extra(&b, "mesh_parked_write_backs") > 0);
    let gc_wait = |r: &RunReport| r.waits.wait_ns_by_cause["gc_copy"];
    eprintln!(
        "venice vs gc-bypass: host path wait {} / {} ms, GC-copy wait {} / {} ms, read p99.9 {} / {} us, preemptions {}, parked write-backs {}",
        host_wait(&v) / 1_000_000, host_wait(&b) / 1_000_000, gc_wait(&v) / 1_000_000, gc_wait(&b) / 1_000_000,
        v.reads.p99_9_ns / 1000, b.reads.p99_9_ns / 1000, extra(&b, "mesh_preemptions"), extra(&b, "mesh_parked_write_backs")
    );
    assert!(gc_wait(&b) < gc_wait(&v));
    assert!(b.reads.p99_9_ns < v.reads.p99_9_ns);
}

#[test]
fn the_mesh_keeps_every_read_correct_with_suspend_dies_rain_and_preemption() {
    // RAIN (ttflash) needs three channels or more: a 4 x 2 mesh of two-plane chips.
    let mut dev = tiny();
    dev.geometry.channels = 4;
    dev.geometry.planes_per_die = 2;
    dev.geometry.blocks_per_plane = 32;
    let reqs = random_workload(8_000, dev.host_bytes() * 3 / 4, 80, 4, 60_000, 3);
    let mut die = dev.clone();
    die.ftl.unit = flashtail::config::UnitOfExecution::Die;
    let mut sus = dev.clone();
    sus.timing.suspend.enabled = true;
    for net in [Interconnect::Venice, Interconnect::GcBypass] {
        for d in [&dev, &die, &sus] {
            for scheme in ["base", "preemptive", "ttflash"] {
                let r = with(d, scheme, Some(net), reqs.clone(), 3);
                assert_eq!(r.integrity.violations, 0, "{scheme} on {}", net.name());
                assert!(r.integrity.reads_checked > 1000);
                assert_eq!(r.integrity.requests_completed, 8_000);
            }
        }
    }
}

#[test]
fn mesh_runs_are_deterministic() {
    let reqs = gc_heavy(5_000, 11);
    let a = run(&tiny(), "gc-bypass", reqs.clone(), 11);
    let b = run(&tiny(), "gc-bypass", reqs, 11);
    assert_eq!(a.all, b.all);
    assert_eq!(a.flash, b.flash);
    assert_eq!(a.waits, b.waits);
}

#[test]
fn the_bus_schemes_ignore_the_mesh_parameters() {
    let reqs = gc_heavy(3_000, 5);
    let a = run(&tiny(), "base", reqs.clone(), 5);
    let mut dev = tiny();
    dev.interconnect.hop_ns = 1000;
    dev.interconnect.io_ports = 1;
    let b = run(&dev, "base", reqs, 5);
    assert_eq!(a.all, b.all);
    assert!(!a.flash.extra.contains_key("mesh_transfers"));
}

#[test]
fn the_bus_counts_transfers_that_found_their_channel_free() {
    // Two writes on one channel at once: the first finds the bus free, the second waits.
    let bus = run(&empty_tiny(), "base", two_writes_on_one_channel(), 1);
    assert_eq!(extra(&bus, "bus_transfers"), 2);
    assert_eq!(extra(&bus, "bus_first_try_transfers"), 1);
    // On two channels both are free at once.
    let apart = vec![HostRequest::new(Nanos(0), 0, 4096, Op::Write), HostRequest::new(Nanos(0), 4096, 4096, Op::Write)];
    let bus = run(&empty_tiny(), "base", apart, 1);
    assert_eq!((extra(&bus, "bus_transfers"), extra(&bus, "bus_first_try_transfers")), (2, 2));
    // Every transfer is counted once, chained or not: the engine without transfer chaining
    // (one event per transfer end) counts the same. Each programmed GC page went out and
    // back in, and erase commands take the bus too.
    let reqs = gc_heavy(4_000, 9);
    let chained = run(&tiny(), "base", reqs.clone(), 9);
    let s = flashtail::gc::build_scheme("base", None, 9).unwrap();
    let opts = flashtail::SimOptions { seed: 9, chain_transfers: false, ..Default::default() };
    let unchained = flashtail::Simulation::new(tiny(), s, opts).unwrap().run(&mut flashtail::VecSource::new(reqs)).unwrap();
    assert_eq!(extra(&chained, "bus_transfers"), extra(&unchained, "bus_transfers"));
    assert_eq!(chained.all, unchained.all);
    let f = &chained.flash;
    let least = f.host_pages_programmed + f.host_pages_read + 2 * f.gc_pages_programmed + f.erases;
    assert!(extra(&chained, "bus_transfers") >= least, "{} vs {least}", extra(&chained, "bus_transfers"));
    assert!(extra(&chained, "bus_first_try_transfers") < extra(&chained, "bus_transfers"));
    assert!(!chained.flash.extra.contains_key("mesh_transfers"));
}

#[test]
fn gc_bypass_parking_is_a_switch_and_the_cache_bounds_it() {
    let reqs = gc_heavy(20_000, 7);
    let parked = with(&tiny(), "base", Some(Interconnect::GcBypass), reqs.clone(), 7);
    let mut off = tiny();
    off.interconnect.gc_bypass_parking = false;
    let held = with(&off, "base", Some(Interconnect::GcBypass), reqs.clone(), 7);
    let mut small = tiny();
    small.interconnect.gc_cache_pages = 1;
    let one = with(&small, "base", Some(Interconnect::GcBypass), reqs, 7);
    for r in [&parked, &held, &one] {
        assert_eq!(r.integrity.violations, 0);
    }
    assert!(extra(&parked, "mesh_parked_write_backs") > 0);
    assert_eq!(extra(&parked, "mesh_cache_full_write_backs"), 0, "no bound by default: one page per unit");
    // Off: no write-back parks, preemption still happens (the priorities stay).
    assert_eq!(extra(&held, "mesh_parked_write_backs"), 0);
    assert!(extra(&held, "mesh_preemptions") > 0);
    // A one-page cache: some write-backs found it full and held their plane.
    assert!(extra(&one, "mesh_cache_full_write_backs") > 0);
    assert_eq!(extra(&one, "mesh_max_parked_write_backs"), 1);
    assert!(extra(&parked, "mesh_max_parked_write_backs") > 1);
    assert!(extra(&parked, "mesh_max_parked_write_backs") <= 4, "one page per unit at most");
    // Parking is what lets reads past blocking GC: without it reads wait longer on GC copies.
    let gc_wait = |r: &RunReport| r.waits.wait_ns_by_cause["gc_copy"];
    assert!(gc_wait(&parked) < gc_wait(&held), "gc_copy wait parked {} vs held {}", gc_wait(&parked), gc_wait(&held));
}
