//! Enacted power cuts (`SimOptions::power_cut_at`, the engine's `power_cut`): the run goes on
//! from what survives, every later read checked against the recovered data; no acknowledged
//! write is lost under any covered scheme, with and without power-loss protection; every
//! request completes once; a cut on an idle device costs the next request exactly the
//! recovery scan; runs are deterministic; the content-aware schemes come back with their
//! content tables (pages mapped to a content stay so, SplitGC's deferred writes are
//! re-derived); what a cut does not cover is refused. (Engine tests in `sim/engine/tests.rs`
//! look inside: the recovered versions, a shared page's recovery, wrong recoveries.)
mod common;
use common::*;
use flashtail::config::Precondition;
use flashtail::gc::build_scheme;
use flashtail::host::Op;
use flashtail::units::{Nanos, PlaneId};
use flashtail::{DeviceConfig, HostRequest, RunReport, SimError, SimOptions, Simulation, VecSource};

fn cut(dev: &DeviceConfig, scheme: &str, reqs: Vec<HostRequest>, at: &[u64]) -> Result<RunReport, SimError> {
    let s = build_scheme(scheme, None, 3).expect("scheme");
    let opts = SimOptions { seed: 3, oracle: true, check_every: 1000, power_cut_at: at.to_vec(), ..Default::default() };
    Simulation::new(dev.clone(), s, opts)?.run(&mut VecSource::new(reqs))
}

const CUTS: [u64; 5] = [1500, 4000, 6001, 8500, 11_000];

/// Every covered scheme family, with and without power-loss protection: five cuts while GC
/// runs and writes queue, no acknowledged write lost, every later read (thousands) checked
/// against the recovered data, every request completed once.
#[test]
fn covered_schemes_survive_power_cuts_and_read_the_recovered_data() {
    for protected in [None, Some(false)] {
        let (dev, reqs) = power_loss_load(400_000, protected);
        let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as u64;
        let schemes = ["base", "preemptive", "nogc", "ttflash-pbl", "wla-gc", "lazy-rtgc", "rlgc", "rlgc-aggressive", "idle-ma", "idle-es"];
        for scheme in schemes {
            if protected == Some(false) && scheme == "nogc" {
                continue; // refused without protection (see the refusals test)
            }
            let r = cut(&dev, scheme, reqs.clone(), &CUTS).unwrap_or_else(|e| panic!("{scheme}, protection {protected:?}: {e}"));
            let what = format!("{scheme}, protection {protected:?}");
            assert_eq!(r.integrity.violations, 0, "{what}");
            assert_eq!(extra(&r, "power_cuts"), 5, "{what}");
            // Every request completed exactly once, re-sent ones included.
            assert_eq!((r.integrity.requests_submitted, r.integrity.requests_completed), (12_000, 12_000), "{what}");
            assert_eq!(r.reads.count + r.writes.count, 12_000, "{what}");
            assert_eq!(r.reads.count, reads, "{what}");
            // The device is behind (writes queue), so each cut abandons requests in flight.
            let reissued = extra(&r, "power_cut_reissued_requests");
            assert!(reissued >= 5, "{what}: {reissued} requests sent again");
            // tiny: 64 blocks of 32 pages per plane (one plane per unit), 90 % full: the
            // slowest plane scans about 1,900 pages at 50 µs (about 95 ms per cut), never more
            // than all its 2,048 (102.4 ms).
            let rec = extra(&r, "power_cut_recovery_ns");
            assert!(rec > 5 * 85_000_000 && rec <= 5 * 102_400_000, "{what}: {rec} ns of recovery");
            assert!(r.integrity.reads_checked > reads, "{what}");
            let unacked = extra(&r, "power_cut_unacked_pages");
            if protected == Some(false) {
                assert!(unacked > 0, "{what}: without protection a write being programmed is torn");
            } else {
                assert_eq!(unacked, 0, "{what}: with protection every accepted write survives");
            }
            assert!(extra(&r, "power_cut_padded_pages") > 0, "{what}: open blocks were sealed");
            assert!(r.flash.erases > 300, "{what}: GC ran across the cuts ({} erases)", r.flash.erases);
        }
    }
}

/// The content-aware schemes' load for cuts: `tiny` 90 % full, half of the fill duplicates
/// (known to SplitGC's earlier scrub cycles), and 15,000 requests writing 60 % duplicate
/// content: GC defers (SplitGC), deduplicates (CAGC) and keeps pages (DAGC) from the start.
fn content_load() -> (DeviceConfig, Vec<HostRequest>) {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    (dev, dup_workload(15_000, 60, 7))
}

const SPLIT_FULL: &str = "splitgc:fill_dups=0.5+period_ms=50";
const CONTENT_CUTS: [u64; 6] = [1000, 3500, 6000, 8500, 11_000, 13_500];

/// The content-aware schemes keep their content tables across a cut (flushed by
/// supercapacitor, the SplitGC paper): six cuts meet logical pages mapped to a content (SplitGC's
/// deferred pages, CAGC's deduplicated ones), and every one comes back mapped to it, read
/// through a copy after the cut (checked by content), with no acknowledged write lost and
/// every request completed once. SplitGC's waiting queue, lost at each cut, is re-derived
/// from the sharers, and by the end every deferred page has its own copy again.
#[test]
fn content_schemes_survive_power_cuts_through_their_content_tables() {
    let (dev, reqs) = content_load();
    let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as u64;
    for s in [SPLIT_FULL, "cagc:fill_dups=0.5", "dagc:fill_dups=0.5"] {
        let r = cut(&dev, s, reqs.clone(), &CONTENT_CUTS).unwrap_or_else(|e| panic!("{s}: {e}"));
        let x = |k: &str| r.flash.extra.get(k).copied().unwrap_or(0);
        assert_eq!(r.integrity.violations, 0, "{s}");
        assert_eq!(extra(&r, "power_cuts"), 6, "{s}");
        assert_eq!((r.integrity.requests_submitted, r.integrity.requests_completed), (15_000, 15_000), "{s}");
        assert_eq!((r.reads.count, r.writes.count), (reads, 15_000 - reads), "{s}");
        assert!(r.integrity.reads_checked > reads, "{s}");
        assert_eq!(extra(&r, "power_cut_unacked_pages"), 0, "{s}: the supercapacitor finishes every accepted write");
        // Every listed copy is a finished program, and a block's copies leave the tables
        // when its erase is issued: recovery finds none to drop.
        assert_eq!(extra(&r, "power_cut_copies_dropped"), 0, "{s}");
        let shared = extra(&r, "power_cut_shared_pages");
        match s {
            SPLIT_FULL => {
                assert!(shared > 0, "{s}: the cuts met deferred pages");
                // The sharers are exactly the pages waiting for their deferred write.
                assert_eq!(x("power_cut_deferred_requeued"), shared, "{s}");
                assert!(x("power_cut_deferred_dropped") > 0, "{s}: deferred writes were pending at a cut");
                assert!(x("power_cut_scrub_passes_aborted") > 0, "{s}");
                assert!(x("power_cut_shared_reads") > 0, "{s}: deferred pages were read through a copy after a cut");
                assert_eq!((x("deferred_queue_at_end"), x("shared_logical_pages_at_end")), (0, 0), "{s}: every deferred page got its copy back");
                // Each queue entry, deferred by GC or re-derived at a cut, ended written,
                // superseded (the host, or a rescue, gave the page its own copy first), or
                // given up at a cut (and was then re-derived if the page still shared).
                assert_eq!(
                    x("deferred_pages") + x("power_cut_deferred_requeued"),
                    x("deferred_pages_written") + x("deferred_writes_superseded") + x("power_cut_deferred_dropped"),
                    "{s}: {:?}",
                    r.flash.extra
                );
            }
            "cagc:fill_dups=0.5" => {
                assert!(shared > 1000, "{s}: the cuts met deduplicated pages ({shared})");
                assert!(x("power_cut_shared_reads") > 0, "{s}: deduplicated pages were read through a copy after a cut");
            }
            _ => {
                assert!(x("power_cut_dagc_kept_pages") > 0, "{s}: kept pages survived the cuts");
                assert!(x("dagc_revalidated_writes") > 0, "{s}");
            }
        }
    }
}

/// RAIN (ttflash-gtr, ttflash-rgc on three channels) and the Venice mesh (venice,
/// gc-bypass), with and without power-loss protection: five cuts, no acknowledged write lost,
/// every request completed once. Under RAIN the cuts leave stripes whose parity no longer
/// covers their data (a torn program, a parity write still waiting for its plane): recovery
/// writes their parity again, and the GC-tolerant reads rebuilt after the cuts (each checked
/// against what its stripe's parity covers) are all right. On the mesh every path held at a
/// cut is released (the end-of-run check finds none held).
#[test]
fn rain_and_mesh_schemes_survive_power_cuts() {
    for protected in [None, Some(false)] {
        let (dev, reqs) = power_loss_load(400_000, protected);
        let (three, rain_reqs) = rain_load(protected);
        // ttflash's stripe buffer, small enough to flush all the time (64 MiB would hold the
        // whole workload).
        let mut buffered = three.clone();
        buffered.buffer.enabled = true;
        buffered.buffer.capacity_pages = 256;
        for (d, scheme, reqs) in [
            (&three, "ttflash-gtr", &rain_reqs),
            (&three, "ttflash-rgc", &rain_reqs),
            (&buffered, "ttflash", &rain_reqs),
            (&dev, "venice", &reqs),
            (&dev, "gc-bypass", &reqs),
        ] {
            let what = format!("{scheme}, protection {protected:?}");
            let r = cut(d, scheme, reqs.clone(), &CUTS).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.integrity.violations, 0, "{what}");
            assert_eq!(extra(&r, "power_cuts"), 5, "{what}");
            assert_eq!((r.integrity.requests_submitted, r.integrity.requests_completed), (12_000, 12_000), "{what}");
            assert_eq!(r.reads.count + r.writes.count, 12_000, "{what}");
            assert!(extra(&r, "power_cut_reissued_requests") >= 5, "{what}");
            assert!(r.integrity.reads_checked > r.reads.count, "{what}");
            assert!(r.flash.erases > 300, "{what}: GC ran across the cuts ({} erases)", r.flash.erases);
            if scheme == "ttflash" {
                // The stripe buffer is durable (capacitor-backed): every write it accepted
                // survives, protection or not, and the cuts found dirty pages in it.
                assert_eq!(extra(&r, "power_cut_unacked_pages"), 0, "{what}");
                assert!(extra(&r, "power_cut_buffered_pages") > 100, "{what}");
                assert!(extra(&r, "flush_stripes") > 1000, "{what}");
            } else if protected == Some(false) {
                assert!(extra(&r, "power_cut_unacked_pages") > 0, "{what}");
            }
            if d.geometry.channels == 3 {
                let rewrites = extra(&r, "power_cut_parity_rewrites");
                assert!(rewrites > 0, "{what}: the cuts left stale stripes");
                // Each new parity reads its stripe's data pages on flash: two on three channels
                // (one for the last stripe, none for pages never written).
                let reads = extra(&r, "power_cut_parity_reads");
                assert!(reads > rewrites && reads <= 2 * rewrites, "{what}: {reads} reads for {rewrites} parity pages");
                let rebuilt = extra(&r, "gtr_rebuilt_reads");
                assert!(rebuilt > 100, "{what}: {rebuilt} reads rebuilt from parity");
            } else {
                assert!(!r.flash.extra.contains_key("power_cut_parity_rewrites"), "{what}");
                assert!(extra(&r, "mesh_transfers") > 10_000, "{what}");
            }
        }
    }
}

/// Many cuts, with the device behind: the load four times as fast (requests queue, and every
/// cut abandons hundreds in flight), a cut every 250 requests (59), the maps and content
/// tables checked every 50 requests. Cuts land during deferrals, rescues, deduplicating GC
/// reads, scrub passes and erases; none loses data or leaves the tables inconsistent.
#[test]
fn content_schemes_survive_a_cut_every_250_requests_while_behind() {
    let (dev, reqs) = content_load();
    let fast: Vec<HostRequest> = reqs
        .into_iter()
        .map(|mut r| {
            r.arrival.0 /= 4;
            r
        })
        .collect();
    let at: Vec<u64> = (1..60).map(|i| i * 250 + i % 7).collect();
    for s in [SPLIT_FULL, "cagc:fill_dups=0.5", "dagc:fill_dups=0.5"] {
        let scheme = build_scheme(s, None, 3).expect("scheme");
        let opts = SimOptions { seed: 3, oracle: true, check_every: 50, power_cut_at: at.clone(), ..Default::default() };
        let r = Simulation::new(dev.clone(), scheme, opts).and_then(|sim| sim.run(&mut VecSource::new(fast.clone()))).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!((r.integrity.violations, extra(&r, "power_cuts")), (0, 59), "{s}");
        assert_eq!(r.integrity.requests_completed, 15_000, "{s}");
        assert!(extra(&r, "power_cut_reissued_requests") > 100_000, "{s}: the cuts met requests in flight");
        if s != "dagc:fill_dups=0.5" {
            assert!(extra(&r, "power_cut_shared_pages") > 20_000, "{s}: {:?}", r.flash.extra);
        }
    }
}

/// Same inputs, same report with cuts under SplitGC (the re-derived queue is in logical page
/// order, not the sharers' hash order), and the cuts change the run.
#[test]
fn power_cuts_under_splitgc_are_deterministic() {
    let (dev, reqs) = content_load();
    let a = cut(&dev, SPLIT_FULL, reqs.clone(), &[2000, 9000]).expect("run a");
    let b = cut(&dev, SPLIT_FULL, reqs.clone(), &[9000, 2000]).expect("run b");
    assert_eq!(a.flash, b.flash);
    assert_eq!((&a.reads, &a.writes, a.sim_time_ns), (&b.reads, &b.writes, b.sim_time_ns));
    assert_eq!(a.integrity, b.integrity);
    assert!(extra(&a, "power_cut_shared_pages") > 0);
    let plain = cut(&dev, SPLIT_FULL, reqs, &[]).expect("no cut");
    assert!(!plain.flash.extra.contains_key("power_cut_shared_pages"));
    assert!(a.writes.max_ns > plain.writes.max_ns);
}

/// Same inputs, same report (with cuts, and cuts changing the run).
#[test]
fn power_cuts_are_deterministic_and_change_the_run() {
    let (dev, reqs) = power_loss_load(400_000, Some(false));
    let a = cut(&dev, "rlgc", reqs.clone(), &[3000, 9000]).expect("run a");
    let b = cut(&dev, "rlgc", reqs.clone(), &[9000, 3000]).expect("run b (the list is sorted)");
    assert_eq!(a.flash, b.flash);
    assert_eq!(a.reads, b.reads);
    assert_eq!(a.writes, b.writes);
    assert_eq!(a.sim_time_ns, b.sim_time_ns);
    assert_eq!(a.integrity, b.integrity);
    assert_eq!(a.scheme_details, b.scheme_details);
    let plain = cut(&dev, "rlgc", reqs, &[]).expect("no cut");
    assert!(!plain.flash.extra.contains_key("power_cuts"));
    assert!(a.writes.max_ns > plain.writes.max_ns, "the outage shows in the tail: {} vs {} ns", a.writes.max_ns, plain.writes.max_ns);
    // ttflash: the stripe buffer's pages rejoin their stripes at a cut in page order, not in
    // its hash map's (seeded per map) order; and the parity repair, and gc-bypass's mesh.
    let (three, reqs) = rain_load(Some(false));
    let mut buffered = three.clone();
    buffered.buffer.enabled = true;
    buffered.buffer.capacity_pages = 256;
    for (d, scheme) in [(&buffered, "ttflash"), (&three, "gc-bypass")] {
        let a = cut(d, scheme, reqs.clone(), &CUTS).expect("run a");
        let b = cut(d, scheme, reqs.clone(), &CUTS).expect("run b");
        assert_eq!((&a.flash, &a.reads, &a.writes, a.sim_time_ns, &a.integrity), (&b.flash, &b.reads, &b.writes, b.sim_time_ns, &b.integrity), "{scheme}");
    }
}

/// A cut on an idle device delays the next request by exactly the recovery time, which is
/// the slowest unit's spare-area scan: its planes' programmed pages times tR.
#[test]
fn a_cut_on_an_idle_device_delays_the_next_request_by_the_recovery_scan() {
    let mut dev = tiny();
    dev.precondition = Precondition::Steady { fill: 0.5, free_blocks_margin: 1 };
    let scheme = || build_scheme("base", None, 3).expect("scheme");
    // Ten one-page reads 1 ms apart, then after 50 ms of idle time an eleventh: the device is
    // idle when power is cut just before it, and reads leave flash as it was.
    let mut reqs: Vec<HostRequest> = (0..10).map(|i| HostRequest::new(Nanos(i * 1_000_000), i * 40_960, 4096, Op::Read)).collect();
    reqs.push(HostRequest::new(Nanos(60_000_000), 123 * 4096, 4096, Op::Read));
    let opts = |at: Vec<u64>| SimOptions { seed: 3, oracle: true, power_cut_at: at, ..Default::default() };
    let sim = Simulation::new(dev.clone(), scheme(), opts(vec![10])).expect("device");
    // The analytic recovery time: programmed pages per plane (one plane per unit on tiny) x tR.
    let ftl = sim.ftl();
    let geo = &ftl.geo;
    let per_plane: Vec<u64> = (0..geo.planes())
        .map(|p| {
            let first = geo.first_block(PlaneId(p)).0;
            (first..first + geo.blocks_per_plane).map(|b| u64::from(ftl.blocks.programmed[b as usize])).sum()
        })
        .collect();
    let expect = per_plane.iter().max().copied().unwrap() * dev.timing.read_ns[0];
    assert!(expect > 50_000_000, "{expect} ns");
    let with = sim.run(&mut VecSource::new(reqs.clone())).expect("run with a cut");
    let without = Simulation::new(dev, scheme(), opts(vec![])).expect("device").run(&mut VecSource::new(reqs)).expect("run");
    assert_eq!(extra(&with, "power_cut_recovery_ns"), expect);
    assert_eq!(extra(&with, "power_cut_reissued_requests"), 0);
    assert_eq!(extra(&with, "power_cut_padded_pages"), 0, "nothing was being written");
    // The last read (arriving at 60 ms) waits for the recovery, and only it.
    // Without the cut every read of the idle device takes the same time.
    assert_eq!(without.reads.min_ns, without.reads.max_ns);
    let slow = &with.tail.reads.slowest[0];
    assert_eq!((slow.arrival_ns, slow.latency_ns), (60_000_000, without.reads.max_ns + expect));
    // Why it was slow: it waited for the recovery (the `power_cut` wait), then took as long as
    // any read.
    assert_eq!(slow.wait_ns_by_cause["power_cut"], expect);
    assert_eq!(with.tail.reads.band("p99.99").expect("band").dominant().map(|d| d.0), Some("power_cut"));
    assert_eq!(with.reads.max_ns, without.reads.max_ns + expect);
    assert_eq!(with.reads.min_ns, without.reads.min_ns);
    assert_eq!(with.sim_time_ns, without.sim_time_ns + expect);
    assert_eq!(with.integrity.violations, 0);
}

/// What a cut does not cover is refused naming the scheme and why; so is a list the workload
/// ends before.
#[test]
fn what_a_cut_does_not_cover_is_refused_with_a_reason() {
    let (dev, reqs) = power_loss_load(1_000_000, None);
    // Every scheme is covered on a protected device without the DRAM buffer
    // (`sim::power_loss::refusal`, the one decision); the content-aware ones only with
    // power-loss protection, as for audits (their tables are flushed by supercapacitor,
    // the SplitGC paper).
    for (name, _) in flashtail::gc::scheme_names() {
        assert_eq!(flashtail::sim::power_loss::refusal(&build_scheme(name, None, 3).expect("scheme"), &dev), None, "{name}");
    }
    let (unprotected, _) = power_loss_load(1_000_000, Some(false));
    for scheme in ["splitgc", "cagc", "dagc"] {
        match cut(&unprotected, scheme, reqs.clone(), &[10]) {
            Err(SimError::Device(msg)) => assert!(msg.contains("supercapacitor") && msg.contains("cut power on it with ftl.power_loss_protection on"), "{scheme}: {msg}"),
            other => panic!("{scheme}: expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
        }
    }
    match cut(&unprotected, "nogc", reqs.clone(), &[10]) {
        Err(SimError::Device(msg)) => assert!(msg.contains("reclaims blocks instantly") && msg.contains("cut power on it with ftl.power_loss_protection on"), "{msg}"),
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
    }
    let mut buffered = dev.clone();
    buffered.buffer.enabled = true;
    buffered.buffer.capacity_pages = 64;
    match cut(&buffered, "base", reqs.clone(), &[10]) {
        Err(SimError::Device(msg)) => assert!(msg.starts_with("power cuts do not cover the DRAM write buffer"), "{msg}"),
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
    }
    let s = build_scheme("base", None, 3).expect("scheme");
    match Simulation::new(dev.clone(), s, SimOptions { oracle: false, power_cut_at: vec![10], ..Default::default() }) {
        Err(SimError::Device(msg)) => assert!(msg.starts_with("power cuts check versions") && msg.contains("oracle"), "{msg}"),
        Err(e) => panic!("expected a refusal naming the oracle, got {e}"),
        Ok(_) => panic!("expected a refusal naming the oracle"),
    }
    match cut(&dev, "base", reqs.clone(), &[10, 20, 10]) {
        Err(SimError::Device(msg)) => assert_eq!(msg, "--power-cut-at lists request 10 twice"),
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.integrity.violations)),
    }
    // A cut after the last request has no next request to come before.
    match cut(&dev, "base", reqs[..100].to_vec(), &[50, 100]) {
        Err(SimError::Source(e)) => {
            assert_eq!(e.location, "request 100 (the last)");
            assert!(e.message.starts_with("--power-cut-at 100: the workload ended after 100 requests"), "{e}");
        }
        other => panic!("expected a workload error, got {:?}", other.map(|r| r.integrity.violations)),
    }
    assert!(cut(&dev, "base", reqs[..100].to_vec(), &[50, 99]).is_ok());
}
