//! The GC-scheduling settings (docs/gc-scheduling.md), each against exact timings on the
//! `tiny` device (2 channels × 2 planes; 4 KiB transfer 40.96 µs, tR 50 µs, tPROG 500 µs,
//! tBERS 3 ms) or a counter of a GC-bound run: GC limits per channel and per RAIN group,
//! GC yielding to user I/O above the hard threshold, the queue order, the write start.
mod common;
use common::*;
use flashtail::config::overrides::apply_device;
use flashtail::config::{GcHold, QueueOrder, WriteStart};
use flashtail::{DeviceConfig, HostRequest, Nanos, Op};

const XFER: u64 = 40_960;
const TR: u64 = 50_000;
const TPROG: u64 = 500_000;
const TBERS: u64 = 3_000_000;
const MS: u64 = 1_000_000;
/// Write 1825 to plane 0 takes its 58th block: 6 free < the soft threshold of 7 (tiny).
const TRIGGER: u64 = 1825;

/// Writes to plane 0 (LPN % 4 == 0) one per ms, the k-th to `lpn(k)`, until the write that
/// starts GC (`TRIGGER`), whose arrival is returned.
fn plane0_writes(lpn: impl Fn(u64) -> u64) -> (Vec<HostRequest>, u64) {
    let reqs = (0..TRIGGER).map(|k| HostRequest::new(Nanos(k * MS), lpn(k) * 4096, 4096, Op::Write)).collect();
    (reqs, (TRIGGER - 1) * MS)
}

/// The GC-bound load of the power-loss tests with `sets` applied: GC from the start, writes
/// queued behind it, on every plane.
fn gc_bound(sets: &[&str], rain: bool) -> (DeviceConfig, Vec<HostRequest>) {
    let (dev, reqs) = if rain { rain_load(None) } else { power_loss_load(400_000, None) };
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    (apply_device(&dev, &sets).unwrap(), reqs)
}

/// With at most one GC per channel, two planes of a channel never collect at once (and
/// planes were made to wait for it); with the limit at the channel's two planes, they do.
#[test]
fn one_gc_per_channel_keeps_the_channels_planes_from_collecting_together() {
    let (dev, reqs) = gc_bound(&["ftl.gc_max_per_channel=1"], false);
    let one = run(&dev, "base", reqs.clone(), 3);
    assert_eq!(extra(&one, "max_gc_planes_per_channel"), 1);
    assert!(extra(&one, "gc_victims_deferred_limit") > 0, "no plane ever waited for the limit");
    assert_eq!(extra(&one, "gc_victims_deferred_yield"), 0);
    assert!(one.flash.erases > 100, "GC-bound: {} erases", one.flash.erases);
    assert_eq!(one.integrity.violations, 0);

    let (dev2, _) = gc_bound(&["ftl.gc_max_per_channel=2"], false);
    let two = run(&dev2, "base", reqs, 3);
    assert_eq!(extra(&two, "max_gc_planes_per_channel"), 2);
    assert_eq!(extra(&two, "gc_victims_deferred_limit"), 0, "two planes per channel: the limit never binds");
}

/// The RAIN group limit: with one collecting plane per group, the group's planes (one per
/// channel) never collect together; without it (the channel limit alone set, so the counter
/// is kept) they do.
#[test]
fn one_gc_per_rain_group_keeps_the_groups_planes_from_collecting_together() {
    let (dev, reqs) = gc_bound(&["ftl.gc_max_per_group=1"], true);
    let r = run(&dev, "ttflash-gtr", reqs.clone(), 3);
    assert_eq!(extra(&r, "max_gc_planes_per_group_collecting"), 1);
    assert!(extra(&r, "gc_victims_deferred_limit") > 0);
    assert_eq!(r.integrity.violations, 0);
    let (free, _) = gc_bound(&["ftl.gc_max_per_channel=2"], true);
    let r = run(&free, "ttflash-gtr", reqs, 3);
    assert!(extra(&r, "max_gc_planes_per_group_collecting") >= 2);
}

/// Overwriting 8 pages of plane 0: write `TRIGGER` starts GC when it finishes, on a fully
/// invalid victim (one erase). A read of plane 1 (same channel) in service then, and a read
/// of plane 0 arriving 1 ms after the write, which waits for the erase:
/// - default: the erase starts when the write ends;
/// - yielding (above the hard threshold): it starts when the read of plane 1 has completed;
/// - yielding below the hard threshold (hard = soft): GC does not yield.
#[test]
fn gc_above_the_hard_threshold_yields_to_a_read_on_its_channel() {
    let (mut reqs, last) = plane0_writes(|k| (k % 8) * 4);
    let read1 = last + 500_000; // plane 1 (LPN 2): tR until +550 µs, data out until +590.96 µs
    reqs.push(HostRequest::new(Nanos(read1), 2 * 4096, 4096, Op::Read));
    reqs.push(HostRequest::new(Nanos(last + MS), 4 * 4096, 4096, Op::Read));
    let write_end = last + XFER + TPROG;
    let read1_end = read1 + TR + XFER;
    let read2_latency = |erase_start: u64| erase_start + TBERS + TR + XFER - (last + MS);

    let default = run(&tiny(), "base", reqs.clone(), 1);
    assert_eq!(default.flash.erases, 1);
    assert_eq!(default.reads.max_ns, read2_latency(write_end));

    let yields = apply_device(&tiny(), &["ftl.gc_yields_to_user_io=true".into()]).unwrap();
    let r = run(&yields, "base", reqs.clone(), 1);
    assert_eq!(r.flash.erases, 1);
    assert_eq!(r.reads.max_ns, read2_latency(read1_end), "the erase starts once the channel's read completed");
    assert_eq!(read1_end - write_end, 50_000);
    assert_eq!(extra(&r, "gc_victims_deferred_yield"), 1);

    let urgent = apply_device(&tiny(), &["ftl.gc_yields_to_user_io=true".into(), "ftl.gc_hard_threshold_blocks=7".into()]).unwrap();
    let r = run(&urgent, "base", reqs, 1);
    assert_eq!(r.reads.max_ns, read2_latency(write_end), "below the hard threshold GC does not yield");
    assert_eq!(extra(&r, "gc_victims_deferred_yield"), 0);
}

/// The load of the next two tests: each block of plane 0 gets one cold page and 31 hot ones,
/// and `TRIGGER`'s GC collects blocks 0 and 1 (one valid page each); a read of `read_lpn`
/// arrives 100 µs into the first move. Returns the load, GC's start and the read's arrival.
fn two_victims_and_a_read(read_lpn: u64) -> (Vec<HostRequest>, u64, u64) {
    let lpn = |k: u64| if k.is_multiple_of(32) { 4 * (8 + k / 32) } else { 4 * ((k - k / 32 - 1) % 8) };
    let (mut reqs, last) = plane0_writes(lpn);
    let gc_start = last + XFER + TPROG;
    let arrival = gc_start + 100_000;
    reqs.push(HostRequest::new(Nanos(arrival), read_lpn * 4096, 4096, Op::Read));
    (reqs, gc_start, arrival)
}

/// Each block of plane 0 gets one cold page (kept valid) and 31 hot ones (8 LPNs, rewritten
/// in the next block): `TRIGGER`'s GC collects blocks 0 and 1, one valid page each, one move
/// (tR + out + in + tPROG) and one erase apiece. A read of plane 0 arriving 100 µs into
/// the first move waits for all four operations with `gc-first` (today's order), for the
/// one move under way with `reads-first`.
#[test]
fn reads_first_serves_a_read_between_a_victims_operations() {
    // The cold page of block 5, which no GC moves.
    let (reqs, gc_start, arrival) = two_victims_and_a_read(4 * (8 + 5));
    let mv = TR + 2 * XFER + TPROG;

    let gc_first = run(&tiny(), "base", reqs.clone(), 1);
    assert_eq!((gc_first.flash.erases, gc_first.flash.gc_pages_migrated), (2, 2));
    assert_eq!(gc_first.reads.max_ns, gc_start + 2 * (mv + TBERS) - arrival + TR + XFER);

    let mut dev = tiny();
    dev.scheduler.order = QueueOrder::ReadsFirst;
    let reads_first = run(&dev, "base", reqs, 1);
    assert_eq!((reads_first.flash.erases, reads_first.flash.gc_pages_migrated), (2, 2));
    assert_eq!(reads_first.reads.max_ns, gc_start + mv - arrival + TR + XFER);
}

/// The victims of `reads_first_serves_a_read_between_a_victims_operations`; a read of
/// plane 1 (same channel as plane 0) arriving 100 µs into the first move, during its
/// transfer in. With the blocking GC holding its unit (default) the read senses and takes
/// the channel when that transfer is done; with it holding the channel, the read waits
/// until the first victim's erase is issued (after the move's program), charged to GC.
/// `ttflash-pbl` (copyback) never holds the channel.
#[test]
fn blocking_gc_holding_the_channel_delays_a_read_of_another_plane_until_the_erase() {
    let (reqs, gc_start, arrival) = two_victims_and_a_read(2);
    let mv = TR + 2 * XFER + TPROG;

    let unit = run(&tiny(), "base", reqs.clone(), 1);
    assert_eq!((unit.flash.erases, unit.flash.gc_pages_migrated), (2, 2));
    assert_eq!(unit.reads.max_ns, TR + XFER, "the move's transfer in ends before the read has sensed");
    assert_eq!(unit.waits.reads_waited_on_gc, 0);
    assert!(!unit.flash.extra.contains_key("gc_channel_holds"));

    let dev = apply_device(&tiny(), &["ftl.blocking_gc_holds=channel".into()]).unwrap();
    let reqs_pbl = reqs.clone();
    let r = run(&dev, "base", reqs, 1);
    assert_eq!((r.flash.erases, r.flash.gc_pages_migrated), (2, 2));
    let erase_issued = gc_start + mv;
    assert_eq!(r.reads.max_ns, erase_issued + XFER - arrival, "the read's data out waits for the whole victim's copy");
    assert_eq!(r.waits.reads_waited_on_gc, 1);
    assert_eq!(r.waits.wait_ns_by_cause["gc_copy"], erase_issued - (arrival + TR));
    assert_eq!(extra(&r, "gc_channel_holds"), 2, "one hold per victim with a valid page");
    assert_eq!(extra(&r, "gc_channel_held_ns"), 2 * mv);
    assert_eq!(r.integrity.violations, 0);

    // ttFlash's plane-blocking GC (intra-plane copyback) leaves the channel free.
    let pbl = run(&dev, "ttflash-pbl", reqs_pbl, 1);
    assert!(pbl.flash.erases >= 2);
    assert_eq!(extra(&pbl, "gc_channel_holds"), 0);
    assert_eq!(pbl.reads.max_ns, TR + XFER);

    let e = apply_device(&tiny(), &["ftl.blocking_gc_holds=chip".into()]).unwrap_err();
    assert!(e.contains("ftl.blocking_gc_holds") && e.contains("unit") && e.contains("channel"), "{e}");
}

/// `ftl.gc_copyback`: base's blocking GC moves its pages by copyback (tR + tPROG, no
/// transfers; tiny's copyback command takes no channel time) and, holding the channel, keeps
/// the read of plane 1 waiting until the first victim's erase is issued, as the ttFlash
/// artifact's `def` does.
#[test]
fn copyback_moves_shorten_a_victim_and_still_hold_the_channel() {
    let (reqs, gc_start, arrival) = two_victims_and_a_read(2);
    let mv = TR + TPROG;
    let dev = apply_device(&tiny(), &["ftl.blocking_gc_holds=channel".into(), "ftl.gc_copyback=true".into()]).unwrap();
    let r = run(&dev, "base", reqs, 1);
    assert_eq!((r.flash.erases, r.flash.gc_pages_migrated, r.flash.copybacks), (2, 2, 2));
    assert_eq!(r.reads.max_ns, gc_start + mv + XFER - arrival, "the read's data out waits for the copyback");
    assert_eq!(r.waits.reads_waited_on_gc, 1);
    assert_eq!(extra(&r, "gc_channel_holds"), 2);
    assert_eq!(extra(&r, "gc_channel_held_ns"), 2 * mv);
    assert_eq!(r.integrity.violations, 0);
    let t = flashtail::config::presets::load("ttflash").unwrap();
    assert!(t.ftl.gc_copyback, "the ttflash preset moves by copyback, as the artifact");
}

/// A write to plane 1 takes channel 0 at t = 0; a write to plane 0 comes at 10 µs (its
/// transfer would wait until 40.96 µs) and a read of plane 0 at 20 µs.
/// - `unit-free`: the second write holds plane 0 while it waits, then programs; the read
///   waits for both.
/// - `channel-free`: plane 0 stays free, the read senses at once and takes the channel at
///   70 µs; the write begins when the read is done. The write's 10 µs with its unit free is
///   channel wait.
#[test]
fn channel_free_write_start_lets_a_read_go_before_a_write_waiting_for_the_channel() {
    let reqs = vec![
        HostRequest::new(Nanos(0), 2 * 4096, 4096, Op::Write),
        HostRequest::new(Nanos(10_000), 0, 4096, Op::Write),
        HostRequest::new(Nanos(20_000), 4 * 4096, 4096, Op::Read),
    ];
    let unit_free = run(&tiny(), "base", reqs.clone(), 1);
    let write2_end = 2 * XFER + TPROG;
    assert_eq!(unit_free.writes.max_ns, write2_end - 10_000);
    assert_eq!(unit_free.reads.max_ns, write2_end + TR + XFER - 20_000);
    assert_eq!(unit_free.waits.wait_ns_by_cause["channel"], XFER - 10_000);

    let mut dev = tiny();
    dev.scheduler.write_start = WriteStart::ChannelFree;
    let r = run(&dev, "base", reqs, 1);
    assert_eq!(r.reads.max_ns, TR + XFER, "the read is not delayed by the write");
    let read_end = 20_000 + TR + XFER;
    assert_eq!(r.writes.max_ns, read_end + XFER + TPROG - 10_000);
    assert_eq!(r.waits.wait_ns_by_cause["channel"], 10_000);
    assert_eq!(extra(&r, "writes_put_off"), 1);
    assert_eq!(r.integrity.violations, 0);
}

/// The channel-free start on a GC-bound run keeps every count consistent (oracle, invariant
/// checks every 500 requests) and puts writes off.
#[test]
fn channel_free_write_start_runs_a_gc_bound_load_cleanly() {
    let (dev, reqs) = gc_bound(&["scheduler.write_start=channel-free", "ftl.gc_max_per_channel=1", "ftl.gc_yields_to_user_io=true"], false);
    let r = run(&dev, "base", reqs, 5);
    assert!(extra(&r, "writes_put_off") > 0);
    assert_eq!(r.integrity.violations, 0);
    assert_eq!(extra(&r, "max_gc_planes_per_channel"), 1);
}

/// Every setting is a `--set` key; a bad value names the field and its choices, a limit
/// above the geometry names the field and the bound.
#[test]
fn settings_are_overridable_and_validated_with_named_errors() {
    let d = apply_device(&tiny(), &["scheduler.order=reads-first".into(), "scheduler.write_start=channel-free".into()]).unwrap();
    assert_eq!((d.scheduler.order, d.scheduler.write_start), (QueueOrder::ReadsFirst, WriteStart::ChannelFree));
    let e = apply_device(&tiny(), &["scheduler.order=fifo".into()]).unwrap_err();
    assert!(e.contains("scheduler.order=fifo") && e.contains("gc-first") && e.contains("reads-first"), "{e}");
    let e = apply_device(&tiny(), &["scheduler.write_start=now".into()]).unwrap_err();
    assert!(e.contains("unit-free") && e.contains("channel-free"), "{e}");
    let mut d = tiny();
    d.ftl.gc_max_per_channel = 3;
    assert_eq!(d.validate().unwrap_err(), "ftl.gc_max_per_channel 3 exceeds the 2 planes of a channel (0 = no limit)");
    let mut d = tiny();
    d.ftl.gc_max_per_group = 3;
    assert_eq!(d.validate().unwrap_err(), "ftl.gc_max_per_group 3 exceeds the 2 planes of a RAIN plane group (one per channel; 0 = no limit)");
    let e = apply_device(&tiny(), &["ftl.gc_yields_to_user_io=2".into()]).unwrap_err();
    assert!(e.contains("ftl.gc_yields_to_user_io"), "{e}");
}

/// The presets carry their references' choices.
#[test]
fn presets_take_their_references_choices() {
    let t = flashtail::config::presets::load("ttflash").unwrap();
    assert_eq!((t.ftl.gc_max_per_channel, t.ftl.gc_yields_to_user_io), (1, true));
    assert_eq!(t.ftl.blocking_gc_holds, GcHold::Channel);
    assert_eq!((t.scheduler.order, t.scheduler.write_start), (QueueOrder::GcFirst, WriteStart::ChannelFree));
    let m = flashtail::config::presets::load("mqsim-ref").unwrap();
    assert_eq!((m.ftl.gc_max_per_channel, m.ftl.gc_yields_to_user_io), (0, false));
    assert_eq!((m.scheduler.order, m.scheduler.write_start), (QueueOrder::GcFirst, WriteStart::ChannelFree));
    let d = tiny();
    assert_eq!((d.ftl.gc_max_per_channel, d.ftl.gc_max_per_group, d.ftl.gc_yields_to_user_io), (0, 0, false));
    assert_eq!((m.ftl.blocking_gc_holds, d.ftl.blocking_gc_holds), (GcHold::Unit, GcHold::Unit));
    assert_eq!((d.scheduler.order, d.scheduler.write_start), (QueueOrder::GcFirst, WriteStart::UnitFree));
}
