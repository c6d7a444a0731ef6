//! Multi-plane commands (`ftl.multi_plane`), with exact latencies on the tiny device given
//! two planes per die and dies as execution units: operations of one kind on the two planes
//! of a die at one page index run as one command (one array phase, the transfers one after
//! another); others, and every operation with the setting off, run one at a time. `"mqsim"`
//! pairs programs at any index, `"any-page"` reads too.
mod common;
use common::*;
use flashtail::config::{MultiPlane, Precondition, UnitOfExecution};
use flashtail::{DeviceConfig, HostRequest, Nanos, Op};

const XFER: u64 = 40_960; // 4 KiB at 10 ns/B, no command overhead (tiny preset)
const TR: u64 = 50_000;
const TPROG: u64 = 500_000;
const TBERS: u64 = 3_000_000;
const PAGE: u64 = 4096;

/// tiny with two planes per die, a die as the execution unit, and `mp`. Logical page L lies
/// on plane (L / 4) % 2 of die (L % 4) (channel-first striping): LPNs 0, 8, 16… on plane 0
/// and 4, 12, 20… on plane 1, both of die 0 on channel 0.
fn device(mp: MultiPlane) -> DeviceConfig {
    let mut dev = tiny();
    dev.geometry.planes_per_die = 2;
    dev.ftl.unit = UnitOfExecution::Die;
    dev.ftl.multi_plane = mp;
    dev
}

fn write(t: u64, lpn: u64) -> HostRequest {
    HostRequest::new(Nanos(t), lpn * PAGE, PAGE, Op::Write)
}

fn read(t: u64, lpn: u64) -> HostRequest {
    HostRequest::new(Nanos(t), lpn * PAGE, PAGE, Op::Read)
}

/// A read of never-written LPN 16 (plane 0, timed on flash by the tiny preset) holds die 0
/// for tR + transfer from `t`, so that what arrives just after queues behind it.
fn blocker(t: u64) -> HostRequest {
    read(t, 16)
}

#[test]
fn two_writes_at_one_page_index_program_once() {
    // Both writes take page 0 of their plane's first block, and queue behind the blocker.
    let reqs = vec![blocker(0), write(1, 0), write(2, 4)];
    let start = TR + XFER;
    let on = run(&device(MultiPlane::SamePage), "base", reqs.clone(), 1);
    assert_eq!(on.integrity.violations, 0);
    // One command: both transfers, then one tPROG; both writes end with it.
    let end = start + 2 * XFER + TPROG;
    assert_eq!((on.writes.min_ns, on.writes.max_ns), (end - 2, end - 1));
    assert_eq!(extra(&on, "multi_plane_programs"), 1);
    assert_eq!(extra(&on, "multi_plane_companions"), 1);
    // The second write waited for the blocker as the first did, and for the channel only
    // inside its own command (its transfer is service).
    assert_eq!(on.waits.wait_ns_by_cause["user_op"], 2 * start - 3);
    assert_eq!(on.waits.wait_ns_by_cause["channel"], 0);
    let off = run(&device(MultiPlane::Off), "base", reqs, 1);
    assert_eq!((off.writes.min_ns, off.writes.max_ns), (start + XFER + TPROG - 1, start + 2 * (XFER + TPROG) - 2));
    assert!(!off.flash.extra.contains_key("multi_plane_programs"));
}

#[test]
fn two_reads_at_one_page_index_sense_once() {
    // Write LPNs 0 and 4 (page 0 of planes 0 and 1), then read them behind a blocker.
    let t = 10_000_000;
    let reqs = vec![write(0, 0), write(2_000_000, 4), blocker(t), read(t + 1, 0), read(t + 2, 4)];
    let on = run(&device(MultiPlane::SamePage), "base", reqs.clone(), 1);
    assert_eq!(on.integrity.violations, 0);
    let start = TR + XFER;
    // One tR, then both transfers.
    let end = start + TR + 2 * XFER;
    // Three reads: the blocker (tR + transfer) and the pair.
    assert_eq!(on.reads.count, 3);
    assert_eq!(on.reads.min_ns, start);
    assert_eq!(on.reads.max_ns, end - 1);
    assert_eq!(extra(&on, "multi_plane_reads"), 1);
    let off = run(&device(MultiPlane::Off), "base", reqs, 1);
    assert_eq!(off.reads.max_ns, start + 2 * (TR + XFER) - 2);
}

#[test]
fn reads_at_different_page_indices_run_one_at_a_time() {
    // LPN 0 is page 0 of plane 0; LPN 12 page 1 of plane 1 (LPN 4 took its page 0).
    let t = 10_000_000;
    let reqs = vec![write(0, 0), write(1_000_000, 4), write(2_000_000, 12), blocker(t), read(t + 1, 0), read(t + 2, 12)];
    let on = run(&device(MultiPlane::SamePage), "base", reqs.clone(), 1);
    let off = run(&device(MultiPlane::Off), "base", reqs.clone(), 1);
    assert_eq!(extra(&on, "multi_plane_reads"), 0);
    assert_eq!(on.reads.max_ns, 3 * (TR + XFER) - 2);
    assert_eq!(serde_json::to_value(&on.reads).unwrap(), serde_json::to_value(&off.reads).unwrap());
    // MQSim's pairing keeps the index rule for reads.
    let mq = run(&device(MultiPlane::Mqsim), "base", reqs.clone(), 1);
    assert_eq!(extra(&mq, "multi_plane_reads"), 0);
    // Without it ("any-page") they sense as one.
    let any = run(&device(MultiPlane::AnyPage), "base", reqs, 1);
    assert_eq!(extra(&any, "multi_plane_reads"), 1);
    assert_eq!(any.reads.max_ns, 2 * (TR + XFER) + XFER - 1);
}

#[test]
fn a_write_joins_only_as_its_planes_next_write() {
    // After the blocker, the leader (plane 0) programs page 1; plane 1's queued writes take
    // pages 0 and 1. Its page-1 write has the leader's index, but its page 0 must be
    // programmed first: no command forms, and the three writes run one at a time.
    let t = 1_000_000;
    let reqs = vec![write(0, 8), blocker(t), write(t + 1, 0), write(t + 2, 4), write(t + 3, 12)];
    let on = run(&device(MultiPlane::SamePage), "base", reqs.clone(), 1);
    assert_eq!(on.integrity.violations, 0);
    assert_eq!(extra(&on, "multi_plane_programs"), 0);
    assert_eq!(on.writes.max_ns, (TR + XFER) + 3 * (XFER + TPROG) - 3);
    // MQSim's pairing ("mqsim"): plane 1 holds a write at the leader's index, so its next
    // write (page 0, keeping the block's order) joins: one command of two transfers and one
    // tPROG, then the last write alone.
    let mq = run(&device(MultiPlane::Mqsim), "base", reqs, 1);
    assert_eq!(mq.integrity.violations, 0);
    assert_eq!(extra(&mq, "multi_plane_programs"), 1);
    assert_eq!(mq.writes.max_ns, (TR + XFER) + (2 * XFER + TPROG) + (XFER + TPROG) - 3);
}

/// Overwrite 8 LPNs on each plane of die 0, one write per plane every 2 ms (arriving
/// together): the 1825th write of each plane takes its 58th block (free 6 < soft threshold
/// 7), so both planes start GC at once, each on a victim that holds no valid page: GC is
/// one erase per plane.
#[test]
fn erases_of_both_planes_run_as_one() {
    let n = 1825u64;
    let mut reqs = Vec::new();
    for k in 0..n {
        reqs.push(write(k * 2_000_000, (k % 8) * 8));
        reqs.push(write(k * 2_000_000, (k % 8) * 8 + 4));
    }
    let on = run(&device(MultiPlane::SamePage), "base", reqs.clone(), 1);
    assert_eq!(on.integrity.violations, 0);
    assert_eq!((on.flash.erases, on.flash.gc_pages_migrated), (2, 0));
    assert_eq!(extra(&on, "multi_plane_erases"), 1);
    // The last pair: plane 0's write runs at once; then both erases (GC goes before the
    // queued write), as one tBERS; then plane 1's write.
    assert_eq!(on.writes.max_ns, (XFER + TPROG) + TBERS + (XFER + TPROG));
    let off = run(&device(MultiPlane::Off), "base", reqs, 1);
    assert_eq!(off.flash.erases, 2);
    assert_eq!(off.writes.max_ns, (XFER + TPROG) + 2 * TBERS + (XFER + TPROG));
}

/// Under heavy random GC on a full device, moves and reads of a die's two planes form
/// commands, the oracle finds every read right, and the run is deterministic; with planes
/// as units the setting changes nothing.
#[test]
fn gc_moves_join_under_load_and_keep_integrity() {
    let mut dev = device(MultiPlane::SamePage);
    dev.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    let reqs = random_workload(20_000, dev.host_bytes(), 70, 4, 700_000, 7);
    let on = run(&dev, "base", reqs.clone(), 3);
    assert_eq!(on.integrity.violations, 0);
    assert_eq!(on.integrity.requests_completed, 20_000);
    assert!(on.flash.erases > 100, "{} erases", on.flash.erases);
    assert!(extra(&on, "multi_plane_programs") > 100, "{:?}", on.flash.extra);
    assert!(extra(&on, "multi_plane_reads") > 100, "{:?}", on.flash.extra);
    let again = run(&dev, "base", reqs.clone(), 3);
    let bytes = |mut r: flashtail::RunReport| {
        r.cost = Default::default();
        serde_json::to_string(&r).unwrap()
    };
    let on_bytes = bytes(on.clone());
    assert_eq!(on_bytes, bytes(again));
    dev.ftl.multi_plane = MultiPlane::Off;
    // Planes as units: the setting is inert.
    let mut planes = dev.clone();
    planes.ftl.unit = UnitOfExecution::Plane;
    let a = run(&planes, "base", reqs.clone(), 3);
    planes.ftl.multi_plane = MultiPlane::SamePage;
    let b = run(&planes, "base", reqs, 3);
    let numbers = |r: &flashtail::RunReport| serde_json::to_string(&(&r.reads, &r.writes, &r.flash, &r.waits)).unwrap();
    assert_eq!(numbers(&a), numbers(&b));
}

#[test]
fn suspension_and_multi_plane_commands_are_refused_together() {
    let mut dev = device(MultiPlane::SamePage);
    dev.timing.suspend = flashtail::nand::timing::Suspend { enabled: true, suspend_ns: 20_000, resume_ns: 30_000 };
    let e = dev.validate().unwrap_err();
    assert!(e.contains("ftl.multi_plane") && e.contains("timing.suspend"), "{e}");
}
