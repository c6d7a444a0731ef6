//! Die and plane failures (`SimOptions::failures`, the engine's `die_failure` and
//! `reprotect`; docs/failures.md): an analytic small case; under RAIN nothing is lost and
//! every read of the failed die's data is rebuilt (counted independently of the engine);
//! without RAIN the pages lost are the valid pages the die held and the failed reads are the
//! reads of them (both counted independently); re-protection rewrites the die's data;
//! determinism; what is refused. (The oracle catching a wrong re-protection is an engine
//! test, `sim/engine/tests.rs`: it needs a deliberately broken engine.)
mod common;
use common::*;
use flashtail::ftl::rain::Rain;
use flashtail::ftl::NONE;
use flashtail::gc::build_scheme;
use flashtail::host::Op;
use flashtail::sim::{Failure, FailurePlan};
use flashtail::units::{Lpn, Nanos, PlaneId};
use flashtail::{DeviceConfig, HostRequest, RunReport, SimError, SimOptions, Simulation, VecSource};
use std::collections::HashSet;

fn plan(failures: &[&str], reprotect_parallel: u32) -> FailurePlan {
    FailurePlan { failures: failures.iter().map(|s| Failure::parse_die(s).unwrap()).collect(), reprotect_parallel }
}

/// Run `scheme` with the failures; also returns which logical pages were mapped before the
/// run (read from the preconditioned device).
fn fail(dev: &DeviceConfig, scheme: &str, reqs: Vec<HostRequest>, failures: FailurePlan) -> Result<(RunReport, Vec<bool>), SimError> {
    let s = build_scheme(scheme, None, 3).expect("scheme");
    let opts = SimOptions { seed: 3, oracle: true, check_every: 1000, failures, ..Default::default() };
    let sim = Simulation::new(dev.clone(), s, opts)?;
    let ftl = sim.ftl();
    let mapped = (0..ftl.logical_pages).map(|l| ftl.l2p[l as usize] != NONE).collect();
    Ok((sim.run(&mut VecSource::new(reqs))?, mapped))
}

/// The failure tests' load: `tiny` with 4 chips per channel (`channels`: 2, or 3 for RAIN),
/// 70 % full, 12,000 random 1-4 page requests (70 % writes) 400 µs apart on average over the
/// data capacity: GC from the start. (A die is a quarter of its channel: the channel's other
/// three planes take its data. On plain `tiny`, one plane in two per channel, they had no room.)
fn load(channels: u32) -> (DeviceConfig, Vec<HostRequest>) {
    let mut dev = tiny();
    dev.geometry.channels = channels;
    dev.geometry.chips_per_channel = 4;
    dev.precondition = flashtail::config::Precondition::Steady { fill: 0.7, free_blocks_margin: 1 };
    let data = if channels >= 3 { Rain::data_capacity(dev.logical_pages(), channels) } else { dev.logical_pages() };
    let span = u64::from(data) * u64::from(dev.geometry.page_size);
    (dev, random_workload(12_000, span, 70, 4, 400_000, 11))
}

/// Requests `at..` arrive `gap` later: the device is idle when a failure after request `at`
/// happens (no write in flight, no GC under way).
fn idle_before(mut reqs: Vec<HostRequest>, at: usize, gap: u64) -> Vec<HostRequest> {
    for r in &mut reqs[at..] {
        r.arrival = Nanos(r.arrival.0 + gap);
    }
    reqs
}

/// As `idle_before`, and the requests after the failure 25 times further apart (10 ms on
/// average): a write is mapped before the next request arrives (none waits unallocated
/// behind a full queue or for free space), so a read after it reads it: what `expected`
/// counts on.
fn idle_and_slow_after(reqs: Vec<HostRequest>, at: usize, gap: u64) -> Vec<HostRequest> {
    let mut reqs = idle_before(reqs, at, gap);
    let t0 = reqs[at].arrival.0;
    for r in &mut reqs[at..] {
        r.arrival = Nanos(t0 + (r.arrival.0 - t0) * 25);
    }
    reqs
}

/// Page indices of a request.
fn pages(r: &HostRequest) -> std::ops::Range<u32> {
    (r.offset / 4096) as u32..((r.offset + r.size) / 4096) as u32
}

/// What a failure after request `at` of the plane set `dead` does, computed from the
/// workload alone: (valid pages the planes held at the failure, page reads after it of data
/// still there). `home` gives a logical page's plane (fixed under static allocation and
/// RAIN, GC moving pages within their plane); the failed planes' data stays there until the
/// host writes it again (no re-protection).
fn expected(reqs: &[HostRequest], at: usize, mapped: &[bool], home: impl Fn(u32) -> PlaneId, dead: &[PlaneId]) -> (u64, u64) {
    let mut held: HashSet<u32> = (0..mapped.len() as u32).filter(|&l| mapped[l as usize]).collect();
    for r in reqs[..at].iter().filter(|r| r.op == Op::Write) {
        held.extend(pages(r));
    }
    held.retain(|&l| dead.contains(&home(l)));
    let valid = held.len() as u64;
    let mut reads = 0;
    for r in &reqs[at..] {
        for l in pages(r) {
            match r.op {
                Op::Write => {
                    held.remove(&l);
                }
                Op::Read => reads += u64::from(held.contains(&l)),
            }
        }
    }
    (valid, reads)
}

/// tiny (2 channels x 2 chips, one plane per die, static striping: page 1 on channel 1,
/// chip 0 = plane 2), empty, no RAIN. Four pages written, die 1/0/0 fails after request 4:
/// page 1 is lost (its read fails at once: latency 0), page 0 reads as before (tR + transfer
/// = 50 + 40.96 µs); page 1 written again goes to the channel's other plane (transfer +
/// tPROG = 540.96 µs, as every write) and reads back.
#[test]
fn analytic_small_case() {
    let dev = tiny();
    let ms = 1_000_000;
    let page = 4096;
    let reqs = vec![
        HostRequest::new(Nanos(0), 0, 4 * page, Op::Write),
        HostRequest::new(Nanos(10 * ms), 0, page, Op::Read),
        HostRequest::new(Nanos(20 * ms), page, page, Op::Read),
        HostRequest::new(Nanos(30 * ms), 2 * page, page, Op::Read),
        HostRequest::new(Nanos(40 * ms), page, page, Op::Read),
        HostRequest::new(Nanos(50 * ms), 0, page, Op::Read),
        HostRequest::new(Nanos(60 * ms), page, page, Op::Write),
        HostRequest::new(Nanos(70 * ms), page, page, Op::Read),
    ];
    let (r, _) = fail(&dev, "base", reqs, plan(&["4:1/0/0"], 4)).unwrap();
    assert_eq!(dev.geometry.static_plane(Lpn(1)), PlaneId(2));
    assert_eq!(extra(&r, "die_failures"), 1);
    assert_eq!(extra(&r, "die_failure_planes"), 1);
    assert_eq!(extra(&r, "die_failure_retired_blocks"), 64);
    assert_eq!(extra(&r, "die_failure_lost_pages"), 1, "page 1 was on the die");
    assert_eq!(extra(&r, "failed_reads"), 1, "the read after request 4 (page 1 again later was rewritten first)");
    assert_eq!(extra(&r, "die_failure_rebuilt_reads"), 0, "no RAIN");
    let read = 50_000 + 40_960;
    assert_eq!(r.reads.count, 6);
    assert_eq!(r.reads.min_ns, 0, "the failed read completes at once");
    assert_eq!(r.reads.max_ns, read);
    assert_eq!(r.writes.count, 2);
    assert_eq!(r.writes.max_ns, 2 * 40_960 + 500_000, "four pages on four planes: two transfers in turn per channel, then tPROG");
    assert_eq!(r.writes.min_ns, 40_960 + 500_000, "the rewrite of page 1, on its substitute");
    assert_eq!(r.integrity.violations, 0);
    assert_eq!(r.config["failures"]["enacted"][0]["planes"], serde_json::json!([2]));
    assert_eq!(r.config["failures"]["failed_reads_first"][0]["lpn"], 1);
    assert_eq!(r.config["failures"]["failed_reads_first"][0]["time_ns"], 40 * ms);
}

/// Without RAIN: a die fails mid-run on a 70 %-full device with GC running. The pages lost
/// are exactly the valid pages it held, the failed reads exactly the reads of them before
/// the host wrote them again (both computed from the workload, not the engine); the run
/// goes on to the end, every other read checked by the oracle.
#[test]
fn without_rain_the_pages_lost_are_the_valid_pages_the_die_held() {
    let (dev, reqs) = load(2);
    let at = 5000;
    let reqs = idle_and_slow_after(reqs, at, 1_000_000_000);
    let (r, mapped) = fail(&dev, "base", reqs.clone(), plan(&["5000:0/1/0"], 4)).unwrap();
    let dead = Failure::parse_die("5000:0/1/0").unwrap().planes(&dev.geometry).unwrap();
    let (valid, reads) = expected(&reqs, at, &mapped, |l| dev.geometry.static_plane(Lpn(l)), &dead);
    assert!(valid > 500, "the die held {valid} valid pages");
    assert!(reads > 100, "{reads} reads of lost pages");
    assert_eq!(extra(&r, "die_failure_lost_pages"), valid);
    assert_eq!(extra(&r, "failed_reads"), reads);
    assert_eq!(extra(&r, "die_failure_reprotected_pages"), 0);
    assert_eq!((r.integrity.requests_submitted, r.integrity.requests_completed), (12_000, 12_000));
    assert_eq!(r.integrity.violations, 0);
    assert!(r.flash.erases > 100, "GC ran on the healthy planes ({} erases)", r.flash.erases);
}

/// Under RAIN (ttflash-rgc and ttflash-gtr on `load(3)`) with re-protection off:
/// nothing is lost, no read fails, and every read of the failed die's data is rebuilt from
/// its stripe: as many as the workload reads pages the die held (computed from the
/// workload), each checked by the oracle (version and parity coverage).
#[test]
fn under_rain_every_read_of_the_failed_die_is_rebuilt_and_nothing_is_lost() {
    let (dev, reqs) = load(3);
    let at = 4000;
    let reqs = idle_and_slow_after(reqs, at, 1_000_000_000);
    for scheme in ["ttflash-rgc", "ttflash-gtr"] {
        let (r, mapped) = fail(&dev, scheme, reqs.clone(), plan(&["4000:1/0/0"], 0)).unwrap();
        let rain = Rain::new(&dev.geometry, Rain::data_capacity(dev.logical_pages(), 3)).unwrap();
        let dead = Failure::parse_die("4000:1/0/0").unwrap().planes(&dev.geometry).unwrap();
        let (valid, reads) = expected(&reqs, at, &mapped[..rain.data_pages as usize], |l| rain.plane_of(l), &dead);
        assert!(valid > 500 && reads > 100, "{scheme}: {valid} pages, {reads} reads");
        assert_eq!(extra(&r, "die_failure_lost_pages"), 0, "{scheme}");
        assert_eq!(extra(&r, "failed_reads"), 0, "{scheme}");
        assert_eq!(extra(&r, "die_failure_rebuilt_reads"), reads, "{scheme}");
        assert_eq!(extra(&r, "die_failure_reprotected_pages"), 0, "{scheme}: re-protection off");
        assert!(extra(&r, "die_failure_unprotected_pages") > 0, "{scheme}");
        // Each rebuild reads the stripe's two other members (fewer when one is in DRAM or
        // never written).
        let member = extra(&r, "die_failure_member_reads");
        assert!(member <= 2 * reads && member >= reads, "{scheme}: {member} member reads");
        assert_eq!(r.integrity.violations, 0, "{scheme}");
        assert_eq!(r.integrity.requests_completed, 12_000, "{scheme}");
    }
}

/// Re-protection (the default, 4 jobs in flight) rewrites the failed die's data in the
/// background: at the end no page is left on it, fewer reads need a rebuild than without,
/// nothing is lost, and every read is checked.
#[test]
fn reprotection_rewrites_the_failed_dies_data() {
    let (dev, reqs) = load(3);
    let reqs = idle_before(reqs, 4000, 1_000_000_000);
    let (off, _) = fail(&dev, "ttflash-rgc", reqs.clone(), plan(&["4000:1/0/0"], 0)).unwrap();
    let (on, _) = fail(&dev, "ttflash-rgc", reqs, plan(&["4000:1/0/0"], 4)).unwrap();
    let left = extra(&off, "die_failure_unprotected_pages");
    assert_eq!(extra(&on, "die_failure_unprotected_pages"), 0);
    let done = extra(&on, "die_failure_reprotected_pages");
    // What the die held, less what the host wrote again before its job came.
    assert!(done > left && done > 300, "{done} pages re-protected, {left} left without");
    let (rb_on, rb_off) = (extra(&on, "die_failure_rebuilt_reads"), extra(&off, "die_failure_rebuilt_reads"));
    assert!(rb_on < rb_off, "{rb_on} reads rebuilt with re-protection, {rb_off} without");
    assert_eq!(extra(&on, "die_failure_lost_pages"), 0);
    assert_eq!(extra(&on, "failed_reads"), 0);
    assert_eq!(on.integrity.violations, 0);
    // The re-protected data pages are not counted as host writes.
    assert_eq!(on.flash.host_pages_programmed, off.flash.host_pages_programmed);
}

/// A plane of a die fails alone (`--fail-plane`), and two dies fail one after the other in
/// different stripes' channels... under RAIN a second failure in the same plane group
/// leaves stripes with two members gone: those pages are lost, and counted.
#[test]
fn a_second_failure_in_a_stripe_loses_its_pages() {
    let (dev, reqs) = load(3);
    let reqs = idle_before(reqs, 4000, 1_000_000_000);
    // 3 channels x 4 planes: planes 0-3 (channel 0), 4-7, 8-11; plane group = plane mod 4.
    // Dies 1/0/0 (plane 4) and 2/0/0 (plane 8) share group 0: with re-protection off,
    // stripes of group 0 lose two members.
    let (r, _) = fail(&dev, "ttflash-rgc", reqs.clone(), plan(&["4000:1/0/0", "6000:2/0/0"], 0)).unwrap();
    assert!(extra(&r, "die_failure_lost_pages") > 0);
    assert!(extra(&r, "failed_reads") > 0);
    assert_eq!(extra(&r, "die_failures"), 2);
    assert_eq!(r.integrity.violations, 0);
    // One plane, with re-protection: nothing lost.
    let one = FailurePlan { failures: vec![Failure::parse_plane("4000:1/1/0/0").unwrap()], reprotect_parallel: 4 };
    let (r, _) = fail(&dev, "ttflash-rgc", reqs, one).unwrap();
    assert_eq!((extra(&r, "die_failure_planes"), extra(&r, "die_failure_lost_pages")), (1, 0));
    assert_eq!(r.integrity.violations, 0);
}

/// Same inputs and seed, same report, byte for byte.
#[test]
fn die_failures_are_deterministic() {
    let (dev, reqs) = load(3);
    let once = || {
        let (mut r, _) = fail(&dev, "ttflash-rgc", reqs.clone(), plan(&["3000:2/1/0"], 4)).unwrap();
        r.cost.strip_machine();
        serde_json::to_string(&r).unwrap()
    };
    let a = once();
    assert!(a.contains("\"die_failure_reprotected_pages\""));
    assert_eq!(a, once());
}

/// What a failure is not combined with, an address out of range, a failure the workload
/// ends before: errors naming the field, not panics.
#[test]
fn refusals_name_the_field() {
    let (dev, reqs) = load(2);
    let err = |failures: FailurePlan, opts: SimOptions| {
        let s = build_scheme("base", None, 3).unwrap();
        match Simulation::new(dev.clone(), s, SimOptions { failures, ..opts }) {
            Err(e) => e.to_string(),
            Ok(sim) => sim.run(&mut VecSource::new(reqs.clone())).map(|_| ()).unwrap_err().to_string(),
        }
    };
    let e = err(plan(&["10:2/0/0"], 4), SimOptions::default());
    assert!(e.contains("channel 2 is out of range") && e.contains("0 to 1"), "{e}");
    let e = err(plan(&["10:0/0/0", "20:0/0/0"], 4), SimOptions::default());
    assert!(e.contains("asked to fail twice"), "{e}");
    let e = err(plan(&["10:0/0/0"], 4), SimOptions { power_cut_at: vec![5], ..Default::default() });
    assert!(e.contains("not combined with power cuts"), "{e}");
    let e = err(plan(&["20000:0/0/0"], 4), SimOptions::default());
    assert!(e.contains("die 0/0/0 was to fail after request 20000") && e.contains("12000"), "{e}");
    let all = plan(&["10:0/0/0", "10:0/1/0", "10:0/2/0", "10:0/3/0", "10:1/0/0", "10:1/1/0", "10:1/2/0", "10:1/3/0"], 4);
    assert!(err(all, SimOptions::default()).contains("every plane"));
}

/// ttflash (RAIN with the capacitor-backed stripe buffer, here 256 pages): a page of the
/// failed die may have newer data dirty in the buffer while flash holds the older version;
/// re-protection moves the flash version, reads are served from the buffer, and nothing is
/// lost or read wrong. (Re-protection once checked the flash version against the newest
/// and failed the run.)
#[test]
fn ttflash_stripe_buffer_and_reprotection() {
    let (mut dev, reqs) = load(3);
    dev.buffer.enabled = true;
    dev.buffer.capacity_pages = 256;
    let (r, _) = fail(&dev, "ttflash", reqs, plan(&["3000:1/2/0"], 4)).unwrap();
    assert_eq!(r.integrity.violations, 0);
    assert_eq!((extra(&r, "die_failure_lost_pages"), extra(&r, "failed_reads")), (0, 0));
    assert!(extra(&r, "die_failure_reprotected_pages") > 300, "{:?}", r.flash.extra);
    assert!(extra(&r, "flush_stripes") > 1000, "the buffer flushed to flash");
}
