//! Unit tests of the engine that need its private state: a workload that runs too far ahead
//! of the device must stop the run with an error naming the request, not a panic; a
//! GC-tolerant read is never rebuilt from a stripe whose parity is behind its data.

use super::Simulation;
use crate::config::{presets, Precondition};
use crate::gc::policy::{GcMode, Grant};
use crate::gc::schemes::build_scheme;
use crate::scheduler::txn::NO_REQ;
use crate::host::{HostRequest, Op, RequestSource, SourceError};
use crate::sim::{SimError, SimOptions};
use crate::units::Nanos;

/// `n` 4 KiB writes to distinct pages, all arriving at t = 0.
struct Burst {
    n: u64,
    served: u64,
}

impl RequestSource for Burst {
    fn next_request(&mut self) -> Result<Option<HostRequest>, SourceError> {
        if self.served == self.n {
            return Ok(None);
        }
        self.served += 1;
        Ok(Some(HostRequest::new(Nanos(0), self.served * 4096, 4096, Op::Write)))
    }
}

fn burst(n: u64, max_in_flight: u64) -> Result<crate::stats::RunReport, SimError> {
    let dev = presets::load("tiny").expect("preset tiny");
    let scheme = build_scheme("base", None, 1).expect("scheme base");
    let mut sim = Simulation::new(dev, scheme, SimOptions { seed: 1, oracle: true, ..Default::default() })?;
    sim.max_in_flight = max_in_flight;
    sim.run(&mut Burst { n, served: 0 })
}

#[test]
fn too_many_requests_in_flight_is_an_error_naming_the_request() {
    // 40 simultaneous writes: none completes before the last arrives.
    match burst(40, 16) {
        Err(SimError::Overloaded(msg)) => {
            assert!(msg.starts_with("request 17 (arriving at t=0 ns) found 16 requests still in flight"), "{msg}");
            assert!(msg.contains("--time-scale"), "{msg}");
        }
        other => panic!("expected an overload error, got {:?}", other.map(|r| r.integrity.requests_completed)),
    }
    // The same burst under the limit runs to the end.
    let r = burst(40, 40).expect("40 in flight are allowed");
    assert_eq!(r.integrity.requests_completed, 40);
    assert_eq!(r.integrity.violations, 0);
}

#[test]
fn the_limit_is_what_an_event_id_can_hold() {
    // A request's slot travels as an event id: slots run 0..live, so every one must fit.
    assert_eq!(super::MAX_IN_FLIGHT, (1 << super::EV_ID_BITS) - 1);
    const { assert!(super::MAX_IN_FLIGHT >= 4_000_000, "the limit should stay far above real queue depths") };
}

/// Runs three 4 KiB writes on `tiny`, the last arriving at `last_ns`.
fn late_write(last_ns: u64) -> Result<crate::stats::RunReport, SimError> {
    let dev = presets::load("tiny").expect("preset tiny");
    let scheme = build_scheme("base", None, 1).expect("scheme base");
    let sim = Simulation::new(dev, scheme, SimOptions { seed: 1, oracle: true, ..Default::default() })?;
    let reqs = [0, 1_000, last_ns].into_iter().enumerate().map(|(i, t)| HostRequest::new(Nanos(t), i as u64 * 4096, 4096, Op::Write));
    sim.run(&mut crate::host::VecSource::new(reqs.collect()))
}

#[test]
fn an_arrival_after_the_time_horizon_is_a_workload_error() {
    // `--time-scale 1e-9` on a 127 s trace saturates arrivals at u64::MAX: event times wrapped
    // and the run ended "stalled: free blocks exhausted". Now the request is named.
    for t in [super::MAX_ARRIVAL_NS + 1, u64::MAX] {
        match late_write(t) {
            Err(SimError::Source(e)) => {
                assert_eq!(e.location, "request 3");
                assert!(e.message.starts_with(&format!("arrives at t={t} ns, after the latest time flashtail simulates (2^62 ns, about 146 years)")), "{e}");
                assert!(e.message.contains("--time-scale") && e.message.contains("--loops"), "{e}");
            }
            other => panic!("expected a workload error, got {:?}", other.map(|r| r.integrity.requests_completed)),
        }
    }
    // At the horizon itself the run completes, and the last write's latency is an ordinary one.
    let r = late_write(super::MAX_ARRIVAL_NS).expect("an arrival at 2^62 ns is allowed");
    assert_eq!(r.integrity.requests_completed, 3);
    assert!(r.writes.max_ns < 10_000_000, "{}", r.writes.max_ns);
}

#[test]
fn a_read_is_not_rebuilt_from_a_stripe_whose_parity_is_behind() {
    // RAIN over 3 channels: stripe 0 is data pages 0 and 1 plus one parity page.
    let mut dev = presets::load("tiny").expect("preset tiny");
    dev.geometry.channels = 3;
    dev.precondition = Precondition::None;
    let scheme = build_scheme("ttflash-gtr", None, 1).expect("scheme ttflash-gtr");
    let mut sim = Simulation::new(dev, scheme, SimOptions { seed: 1, oracle: true, ..Default::default() }).expect("device");
    let rain = sim.rain.clone().expect("ttflash-gtr keeps RAIN parity");
    let (lpn, other, pid) = (0, 1, rain.parity_id(0));
    assert_eq!(rain.other_members(lpn).collect::<Vec<_>>(), vec![other, pid]);
    // Page 0's plane GCs a whole victim (16 moves and an erase, ~12 ms), far longer than
    // reading the two other members and the XOR.
    let plane = rain.plane_of(lpn);
    sim.gc[plane.idx()].grant = Some(Grant::until_done(GcMode::Exclusive));
    // The reads are made for request slot 0; no event runs, so it needs no request behind it.
    assert!(sim.try_rebuild(0, lpn, plane), "a current stripe rebuilds");
    // Page 1 is written and mapped; its parity write has not been mapped yet (what a parity
    // write waiting for free space on the parity plane leaves): the parity on flash does not
    // cover page 1's new data, so the XOR would not be page 0.
    sim.submit_write(NO_REQ, other, false, sim.now, true);
    assert_eq!((sim.stripe_epoch[0], sim.parity_epoch[0]), (1, 0));
    assert!(!sim.try_rebuild(0, lpn, plane), "rebuilt from a stale parity");
    assert_eq!((sim.c.rebuilt_reads, sim.c.rebuilds_parity_behind), (1, 1));
    // Once the parity write is mapped the stripe rebuilds again, and the oracle agrees.
    sim.submit_write(NO_REQ, pid, false, sim.now, true);
    assert_eq!(sim.parity_epoch[0], 1);
    assert!(sim.try_rebuild(0, lpn, plane));
    assert_eq!((sim.c.rebuilt_reads, sim.c.rebuilds_parity_behind), (2, 1));
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
    // Parity epoch and page version per rebuild, and what the parity page covers in the
    // second (the first stripe had no data, and no parity page, yet).
    assert_eq!(sim.oracle.checked, 5, "parity epoch and page version, per rebuild, and the parity's coverage");
}

/// Without power-loss protection, an FTL that erased a block while a write superseding one
/// of its pages was still being programmed would lose the page's acknowledged version if
/// power failed then (the new version is torn, the old one erased). The power-loss audit
/// sees it; the erase guard (`superseded_in_flight`) is what prevents it.
#[test]
fn an_unguarded_erase_loses_acknowledged_writes_at_a_power_loss() {
    let run = |guard: bool| {
        let mut dev = presets::load("tiny").expect("preset tiny");
        dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
        dev.ftl.power_loss_protection = Some(false);
        let pages = dev.host_bytes() / 4096;
        let scheme = build_scheme("base", None, 3).expect("scheme base");
        let opts = SimOptions { seed: 3, oracle: true, power_loss_every: 37, ..Default::default() };
        let mut sim = Simulation::new(dev, scheme, opts).expect("device");
        assert!(sim.guard_superseded, "the guard is on without protection");
        sim.guard_superseded = guard;
        // Random 1-4 page requests, 70 % writes, 400 µs apart on average (xorshift).
        let mut x = 11u64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut t = 0;
        let reqs = (0..12_000)
            .map(|_| {
                t += next(800_001);
                let np = 1 + next(4);
                let op = if next(100) < 70 { Op::Write } else { Op::Read };
                HostRequest::new(Nanos(t), next(pages - np) * 4096, np * 4096, op)
            })
            .collect();
        sim.run(&mut crate::host::VecSource::new(reqs))
    };
    match run(false) {
        Err(SimError::Integrity { count, first }) => {
            assert!(count > 10, "{count} losses");
            assert!(first.iter().all(|m| m.contains("power loss") && m.contains("the host was told version")), "{first:?}");
        }
        other => panic!("expected losses without the guard, got {:?}", other.map(|r| r.integrity.violations)),
    }
    let r = run(true).expect("with the guard nothing is lost");
    assert_eq!(r.integrity.violations, 0);
    assert!(r.flash.extra["power_loss_unacked_pages"] > 0);
}

/// The content-aware schemes' tables are flushed by supercapacitor (SplitGC paper): a logical page
/// mapped to a content (here as if SplitGC had deferred its page and its block were gone)
/// is recovered from a surviving listed copy of that content, and only from a copy that
/// holds the content of its newest write.
#[test]
fn a_shared_page_survives_a_power_loss_through_a_copy_of_its_content() {
    use crate::ftl::content::VIRT;
    use crate::units::Lpn;
    let mut dev = presets::load("tiny").expect("preset tiny");
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    let scheme = build_scheme("splitgc", None, 3).expect("scheme splitgc");
    let opts = SimOptions { seed: 3, oracle: true, power_loss_every: 1, ..Default::default() };
    let mut sim = Simulation::new(dev, scheme, opts).expect("device");
    let mut written = (0..sim.ftl.logical_pages).filter_map(|l| sim.ftl.lookup(Lpn(l)).map(|p| (l, p)));
    let ((a, pa), (b, pb)) = (written.next().expect("a written page"), written.next().expect("another"));
    let ct = sim.ftl.content.as_mut().expect("content tables");
    let (c, other) = (ct.id_of(0xfeed).expect("id"), ct.id_of(0xbeef).expect("id"));
    ct.set_page(pa.0, c);
    ct.set_page(pb.0, c);
    ct.learn(pa.0);
    ct.share(b, c);
    sim.oracle.write_content(a, pa.0, c);
    sim.oracle.write_content(b, pb.0, c);
    sim.ftl.l2p[b as usize] = VIRT | c;
    // b's own page is gone: its spare area names no logical page any more.
    sim.ftl.p2l[pb.0 as usize] = crate::ftl::NONE;
    sim.audit_power_loss();
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
    assert_eq!(sim.durable.as_ref().expect("audits on").shared_recovered, 1);
    // a is rewritten with other content in place (a test's shortcut): the copy no longer
    // holds b's data, and b is lost.
    sim.oracle.write_content(a, pa.0, other);
    sim.audit_power_loss();
    assert_eq!(sim.oracle.violations, 1);
    assert!(sim.oracle.first_violations[0].contains(&format!("LPN {b}: recovery finds version 0")), "{:?}", sim.oracle.first_violations);
}

/// A device for the power-cut tests: `tiny`, empty, without power-loss protection (a program
/// under way at a cut is torn), with a cut after each request count of `at` (the tests that
/// drive the engine by hand enact theirs themselves).
fn cut_device(at: Vec<u64>) -> Simulation {
    let mut dev = presets::load("tiny").expect("preset tiny");
    dev.precondition = Precondition::None;
    dev.ftl.power_loss_protection = Some(false);
    let scheme = build_scheme("base", None, 1).expect("scheme base");
    let opts = SimOptions { seed: 1, oracle: true, power_cut_at: at, ..Default::default() };
    Simulation::new(dev, scheme, opts).expect("device")
}

/// Every event due until `t`, as the run loop handles them.
fn events_until(sim: &mut Simulation, t: u64) {
    while sim.heap.peek_time().is_some_and(|x| x <= t) {
        sim.step_event();
    }
}

/// Request `r` arrives at its arrival time, as the run loop lets it.
fn arrive(sim: &mut Simulation, r: HostRequest) {
    let at = r.arrival;
    sim.arrive_at(&r, at);
}

fn page_req(t: u64, lpn: u64, op: Op) -> HostRequest {
    HostRequest::new(Nanos(t), lpn * 4096, 4096, op)
}

/// A write the host saw complete survives a cut: recovery maps its page, the oracle's newest
/// version is its version, and a read after the cut returns it, checked.
#[test]
fn an_acknowledged_write_is_read_back_after_a_power_cut() {
    let mut sim = cut_device(vec![1_000_000]);
    arrive(&mut sim, page_req(0, 5, Op::Write));
    events_until(&mut sim, 10_000_000);
    assert_eq!(sim.c.requests_completed, 1, "the write completed (acknowledged)");
    sim.power_cut(Nanos(10_000_000)).expect("recovery");
    let p = sim.ftl.lookup(crate::units::Lpn(5)).expect("LPN 5 recovered");
    assert_eq!((sim.oracle.newest(&sim.ftl.l2p, 5), sim.oracle.page(p.0)), (1, 1));
    let pc = sim.cuts.as_ref().expect("cuts on");
    assert_eq!((pc.cuts, pc.unacked_lost, pc.reissued), (1, 0, 0));
    // The device is back after the scan of the one programmed page (tR = 50 µs).
    assert_eq!(sim.down_until, 10_000_000 + 50_000);
    let checked = sim.oracle.checked;
    sim.arrive_at(&page_req(10_000_000, 5, Op::Read), Nanos(sim.down_until));
    events_until(&mut sim, 20_000_000);
    assert_eq!(sim.c.requests_completed, 2);
    assert_eq!(sim.oracle.checked, checked + 1, "the read was checked against the recovered version");
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
}

/// A write still being programmed at a cut without power-loss protection is torn: the older
/// version is recovered and becomes the newest, so a read the host sends again before the
/// write returns the older version, and that is no violation (the host was never told the
/// write was durable). The write itself is sent again and gets a new version.
#[test]
fn an_unacknowledged_write_is_lost_and_a_read_returns_the_older_version() {
    let mut sim = cut_device(vec![1_000_000]);
    arrive(&mut sim, page_req(0, 5, Op::Write));
    events_until(&mut sim, 10_000_000);
    // A read of the page, then a second write of it, both in flight at the cut (the write
    // is on the channel: its program has not even started).
    arrive(&mut sim, page_req(10_000_000, 5, Op::Read));
    arrive(&mut sim, page_req(10_000_001, 5, Op::Write));
    assert_eq!(sim.oracle.newest(&sim.ftl.l2p, 5), 2, "the second write was given version 2");
    events_until(&mut sim, 10_000_002);
    assert_eq!(sim.reqs.live, 2);
    let checked = sim.oracle.checked;
    sim.power_cut(Nanos(10_000_002)).expect("recovery");
    let pc = sim.cuts.as_ref().expect("cuts on");
    assert_eq!((pc.unacked_lost, pc.reissued), (1, 2));
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
    // The read was sent again first: it began at once on the idle unit and read version 1,
    // the newest then; the write came after it and took version 2 again.
    assert_eq!(sim.oracle.checked, checked + 1);
    let u = sim.unit_of_plane[sim.static_plane(5).idx()] as usize;
    let read = &sim.txns[sim.units[u].running as usize];
    assert_eq!((read.kind, read.lpn), (crate::scheduler::TxnKind::Read, 5));
    assert_eq!(sim.oracle.page(read.ppn), 1);
    assert_eq!(sim.oracle.newest(&sim.ftl.l2p, 5), 2);
    events_until(&mut sim, 30_000_000);
    assert_eq!((sim.c.requests_submitted, sim.c.requests_completed), (3, 3), "each request completed once");
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
    sim.ftl.check_invariants().expect("consistent");
    sim.check_conservation().expect("conserved");
}

/// The oracle is not vacuous after a cut: a recovery that drops a surviving page (here LPN
/// 5's, whose write was acknowledged) is caught by the first read of it.
#[test]
fn a_wrong_recovery_is_caught_by_the_next_read() {
    let run = |sabotage: bool| {
        let mut sim = cut_device(vec![1]);
        sim.cuts.as_mut().expect("cuts on").drop_survivor = sabotage.then_some(5);
        let reqs = vec![page_req(0, 5, Op::Write), page_req(10_000_000, 5, Op::Read)];
        sim.run(&mut crate::host::VecSource::new(reqs))
    };
    let r = run(false).expect("a right recovery");
    assert_eq!((r.integrity.violations, r.flash.extra["power_cuts"]), (0, 1));
    match run(true) {
        Err(SimError::Integrity { count, first }) => {
            assert_eq!(count, 1);
            assert!(first[0].contains("flash read of LPN 5 returned version 0, newest is 1"), "{first:?}");
        }
        other => panic!("expected the read to catch the dropped page, got {:?}", other.map(|r| r.integrity.violations)),
    }
}

/// A cut checks what survives as an audit does: without power-loss protection and without
/// the erase guard, GC erases the block holding a page's acknowledged version while the
/// write superseding it waits behind the GC; a cut then loses the acknowledged version, an
/// integrity violation. With the guard the erase waits, and the cut loses nothing.
#[test]
fn a_cut_during_an_unguarded_erase_loses_an_acknowledged_write() {
    let run = |guard: bool| {
        let mut sim = cut_device(vec![1_000_000]);
        sim.guard_superseded = guard;
        let plane = sim.static_plane(5);
        let planes = sim.ftl.geo.planes() as u64;
        // Fill one block of LPN 5's plane: LPN 5 and 31 others striped to the same plane.
        let ppb = sim.ftl.geo.pages_per_block as u64;
        for k in 0..ppb {
            arrive(&mut sim, page_req(k * 2_000_000, 5 + k * planes, Op::Write));
            events_until(&mut sim, (k + 1) * 2_000_000 - 1);
        }
        let t = ppb * 2_000_000;
        assert_eq!(sim.c.requests_completed, ppb, "LPN 5's version 1 acknowledged");
        let old = sim.ftl.lookup(crate::units::Lpn(5)).expect("mapped");
        // A read keeps the unit busy while LPN 5 is written again: the write queues, and GC,
        // granted meanwhile, runs before it (blocking GC), taking the sealed block as victim.
        arrive(&mut sim, page_req(t, 9 + planes, Op::Read));
        arrive(&mut sim, page_req(t, 5, Op::Write));
        sim.gc[plane.idx()].grant = Some(Grant::until_done(GcMode::Exclusive));
        while !(sim.gc[plane.idx()].erasing || sim.gc[plane.idx()].erase_waits.is_some()) {
            sim.step_event();
        }
        assert_eq!(sim.gc[plane.idx()].victim, Some(sim.ftl.geo.block_of(old)));
        assert_eq!(sim.oracle.newest(&sim.ftl.l2p, 5), 2, "the second write is accepted, not programmed");
        let at = sim.now;
        sim.power_cut(at).expect("recovery");
        sim
    };
    let sim = run(false);
    assert_eq!(sim.oracle.violations, 1, "{:?}", sim.oracle.first_violations);
    assert!(sim.oracle.first_violations[0].contains("power loss: LPN 5: recovery finds version 0, but the host was told version 1 is durable"), "{:?}", sim.oracle.first_violations);
    let sim = run(true);
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
    assert_eq!((sim.oracle.newest(&sim.ftl.l2p, 5), sim.cuts.as_ref().map(|pc| pc.unacked_lost)), (2, Some(1)), "version 2 lost, then sent again");
}

/// The parity repair is what keeps rebuilt reads right after a cut: ttflash-gtr on three
/// channels, five cuts while writes queue (parity writes among them). With the repair, no
/// read rebuilt from parity is wrong; a recovery that trusts every stripe's parity as it
/// survived is caught by the oracle's check of what a parity page covers.
#[test]
fn a_recovery_that_trusts_stale_parity_is_caught_by_a_rebuilt_read() {
    let run = |sabotage: bool| {
        let mut dev = presets::load("tiny").expect("preset tiny");
        dev.geometry.channels = 3;
        dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
        let pages = crate::ftl::rain::Rain::data_capacity(dev.logical_pages(), 3) as u64;
        let scheme = build_scheme("ttflash-gtr", None, 3).expect("scheme");
        let opts = SimOptions { seed: 3, oracle: true, power_cut_at: vec![1500, 4000, 6001, 8500, 11_000], ..Default::default() };
        let mut sim = Simulation::new(dev, scheme, opts).expect("device");
        sim.cuts.as_mut().expect("cuts on").skip_parity_repair = sabotage;
        sim.run(&mut crate::host::VecSource::new(random_requests(12_000, pages)))
    };
    let r = run(false).expect("a right recovery");
    assert_eq!(r.integrity.violations, 0);
    assert!(r.flash.extra["power_cut_parity_rewrites"] > 1000, "{:?}", r.flash.extra);
    match run(true) {
        Err(SimError::Integrity { count, first }) => {
            assert!(count > 0);
            assert!(first[0].contains("rebuilt read: parity page") && first[0].contains("covers other data than its stripe holds on flash"), "{first:?}");
        }
        other => panic!("expected a rebuilt read to catch the stale parity, got {:?}", other.map(|r| r.integrity.violations)),
    }
}

/// A SplitGC device with power cuts on (tiny, 90 % full) where logical page `b` is mapped
/// to content `c`, whose one listed copy is logical page `a`'s page: as if GC had deferred
/// `b`'s page and its block were gone (its spare area names no logical page any more).
/// Returns the device, `a`, `b` and `c`.
fn shared_cut_device() -> (Simulation, u32, u32, u32) {
    use crate::units::Lpn;
    let mut dev = presets::load("tiny").expect("preset tiny");
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    let scheme = build_scheme("splitgc", None, 3).expect("scheme splitgc");
    let opts = SimOptions { seed: 3, oracle: true, power_cut_at: vec![1_000_000], ..Default::default() };
    let mut sim = Simulation::new(dev, scheme, opts).expect("device");
    let mut written = (0..sim.ftl.logical_pages).filter_map(|l| sim.ftl.lookup(Lpn(l)).map(|p| (l, p)));
    let ((a, pa), (b, pb)) = (written.next().expect("a written page"), written.next().expect("another"));
    let ct = sim.ftl.content.as_mut().expect("content tables");
    let c = ct.id_of(0xfeed).expect("id");
    ct.set_page(pa.0, c);
    ct.set_page(pb.0, c);
    ct.learn(pa.0);
    sim.oracle.write_content(a, pa.0, c);
    sim.oracle.write_content(b, pb.0, c);
    sim.ftl.share(Lpn(b), c);
    sim.ftl.p2l[pb.0 as usize] = crate::ftl::NONE;
    sim.ftl.check_invariants().expect("a consistent start");
    (sim, a, b, c)
}

/// The content tables survive a cut (the SplitGC paper: flushed by supercapacitor): a logical page
/// mapped to a content is recovered mapped to it (not left unmapped, although no page of its
/// own survives), its deferred write is queued again, and a read of it right after the cut
/// goes through the copy, checked by content.
#[test]
fn a_shared_page_is_recovered_mapped_to_its_content_and_read_through_a_copy() {
    use crate::ftl::content::VIRT;
    let (mut sim, _, b, c) = shared_cut_device();
    sim.power_cut(Nanos(10_000_000)).expect("recovery");
    assert_eq!(sim.ftl.l2p[b as usize], VIRT | c);
    assert_eq!(sim.ftl.content.as_ref().expect("content").sharers[&c].as_slice(), &[b]);
    sim.ftl.check_invariants().expect("maps and content tables agree");
    let pc = sim.cuts.as_ref().expect("cuts on");
    assert_eq!((pc.shared_pages, pc.copies_dropped, pc.unacked_lost), (1, 0, 0));
    let mut extra = std::collections::BTreeMap::new();
    sim.content_report(&mut extra);
    assert_eq!(extra.get("power_cut_deferred_requeued"), Some(&1), "{extra:?}");
    assert_eq!(extra.get("deferred_queue_at_end"), Some(&1));
    let checked = sim.oracle.checked;
    let back = Nanos(sim.down_until);
    sim.arrive_at(&page_req(back.0, u64::from(b), Op::Read), back);
    events_until(&mut sim, back.0 + 50_000_000);
    assert_eq!(sim.oracle.violations, 0, "{:?}", sim.oracle.first_violations);
    assert!(sim.oracle.checked > checked, "the read (and the deferred write's copy) were checked");
    let mut extra = std::collections::BTreeMap::new();
    sim.content_report(&mut extra);
    assert_eq!((extra.get("power_cut_shared_reads"), extra.get("deferred_pages_written")), (Some(&1), Some(&1)), "{extra:?}");
    assert_ne!(sim.ftl.l2p[b as usize], VIRT | c, "the deferred write gave b its own copy back");
    sim.ftl.check_invariants().expect("consistent");
}

/// Wrong content recoveries are caught: one that drops the surviving copy of a shared
/// content from the fingerprint table fails `Content::check` (the run stops with the
/// recovery's invariant error), and one that leaves the shared page unmapped fails the first
/// read of it (the oracle).
#[test]
fn a_wrong_content_recovery_is_caught() {
    let (mut sim, _, b, c) = shared_cut_device();
    sim.cuts.as_mut().expect("cuts on").drop_copies_of = Some(b);
    match sim.power_cut(Nanos(10_000_000)) {
        Err(SimError::Invariant(msg)) => assert!(msg.contains(&format!("content {c} is shared by 1 logical pages but has no copy")), "{msg}"),
        other => panic!("expected Content::check to catch the dropped copy, got {other:?}"),
    }
    let (mut sim, _, b, _) = shared_cut_device();
    sim.cuts.as_mut().expect("cuts on").drop_survivor = Some(b);
    sim.power_cut(Nanos(10_000_000)).expect("a consistent, wrong recovery");
    let back = Nanos(sim.down_until);
    sim.arrive_at(&page_req(back.0, u64::from(b), Op::Read), back);
    events_until(&mut sim, back.0 + 50_000_000);
    assert_eq!(sim.oracle.violations, 1);
    assert!(sim.oracle.first_violations[0].contains(&format!("flash read of LPN {b} returned version 0, newest is 1")), "{:?}", sim.oracle.first_violations);
}

/// Re-protection after a die failure (`reprotect`) is checked by the oracle: ttflash-rgc on
/// three channels of four chips, a die fails after request 3,000, the device then idles for
/// 2 s (re-protection runs) and every data page is read. With a right re-protection no read
/// is wrong and no page is left unprotected; one that maps its first page without writing
/// the rebuilt data there is caught by a read.
#[test]
fn a_reprotection_that_skips_a_page_is_caught_by_the_oracle() {
    let run = |sabotage: bool| {
        let mut dev = presets::load("tiny").expect("preset tiny");
        dev.geometry.channels = 3;
        dev.geometry.chips_per_channel = 4;
        dev.precondition = Precondition::Steady { fill: 0.7, free_blocks_margin: 1 };
        let pages = crate::ftl::rain::Rain::data_capacity(dev.logical_pages(), 3) as u64;
        let scheme = build_scheme("ttflash-rgc", None, 3).expect("scheme");
        let failures = crate::sim::FailurePlan { failures: vec![crate::sim::Failure::parse_die("3000:1/2/0").unwrap()], reprotect_parallel: 4 };
        let opts = SimOptions { seed: 3, oracle: true, failures, ..Default::default() };
        let mut sim = Simulation::new(dev, scheme, opts).expect("device");
        sim.failures.as_mut().expect("failures on").sabotage_skip = sabotage.then_some(0);
        let mut reqs = random_requests(3001, pages);
        let mut t = reqs.last().expect("requests").arrival.0 + 2_000_000_000;
        for p in (0..pages - 4).step_by(4) {
            t += 200_000;
            reqs.push(HostRequest::new(Nanos(t), p * 4096, 4 * 4096, Op::Read));
        }
        sim.run(&mut crate::host::VecSource::new(reqs))
    };
    let r = run(false).expect("a right re-protection");
    assert_eq!(r.integrity.violations, 0);
    assert_eq!(r.flash.extra["die_failure_unprotected_pages"], 0);
    assert!(r.flash.extra["die_failure_reprotected_pages"] > 500, "{:?}", r.flash.extra);
    match run(true) {
        Err(SimError::Integrity { count, first }) => {
            assert_eq!(count, 1, "{first:?}");
            assert!(first[0].contains("flash read") || first[0].contains("GC read"), "{first:?}");
        }
        other => panic!("the skipped page was not caught: {:?}", other.map(|r| r.integrity)),
    }
}

/// `n` random 1-4 page requests over `pages` pages, 70 % writes, 400 µs apart on average
/// (xorshift64*, seed 11).
fn random_requests(n: usize, pages: u64) -> Vec<HostRequest> {
    let mut x = 11u64;
    let mut rnd = |n: u64| {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    };
    let mut t = 0;
    (0..n)
        .map(|_| {
            t += rnd(800_001);
            let np = 1 + rnd(4);
            let p = rnd(pages - np);
            let op = if rnd(100) < 70 { Op::Write } else { Op::Read };
            HostRequest::new(Nanos(t), p * 4096, np * 4096, op)
        })
        .collect()
}
