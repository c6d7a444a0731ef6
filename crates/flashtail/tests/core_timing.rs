//! Analytic timing: exact latencies on an idle or simply loaded device.
mod common;
use common::*;
use flashtail::{HostRequest, Nanos, Op, SimOptions, Simulation};

const XFER: u64 = 40_960; // 4 KiB at 10 ns/B, no command overhead (tiny preset)
const TR: u64 = 50_000;
const TPROG: u64 = 500_000;

#[test]
fn idle_read_takes_tr_plus_transfer() {
    let dev = tiny();
    let r = run(&dev, "base", vec![HostRequest::new(Nanos(1000), 0, 4096, Op::Read)], 1);
    assert_eq!(r.reads.count, 1);
    assert_eq!(r.reads.max_ns, TR + XFER);
}

#[test]
fn back_to_back_writes_to_one_plane_serialise() {
    let dev = tiny();
    // LPNs 0, 4, 8, ... all stripe to plane 0 (4 planes, channel-first).
    let n = 5u64;
    let reqs = (0..n).map(|i| HostRequest::new(Nanos(0), i * 4 * 4096, 4096, Op::Write)).collect();
    let r = run(&dev, "base", reqs, 1);
    assert_eq!(r.writes.count, n);
    assert_eq!(r.writes.max_ns, n * (XFER + TPROG));
    assert_eq!(r.writes.min_ns, XFER + TPROG);
    assert_eq!(r.flash.host_pages_programmed, n);
}

#[test]
fn two_planes_on_one_channel_share_the_bus() {
    let dev = tiny();
    // LPN 0 -> channel 0 chip 0; LPN 2 -> channel 0 chip 1 (channel-first striping over 2 channels).
    let reqs = vec![HostRequest::new(Nanos(0), 0, 4096, Op::Read), HostRequest::new(Nanos(0), 2 * 4096, 4096, Op::Read)];
    let r = run(&dev, "base", reqs, 1);
    // Both sense in parallel; the second transfer waits for the first.
    assert_eq!(r.reads.min_ns, TR + XFER);
    assert_eq!(r.reads.max_ns, TR + 2 * XFER);
    assert_eq!(r.waits.wait_ns_by_cause["channel"], XFER);
}

#[test]
fn multi_page_request_completes_with_its_last_page() {
    let dev = tiny();
    // 4 pages over 4 planes (2 per channel): two transfers per channel.
    let r = run(&dev, "base", vec![HostRequest::new(Nanos(0), 0, 4 * 4096, Op::Read)], 1);
    assert_eq!(r.reads.max_ns, TR + 2 * XFER);
}

#[test]
fn read_of_data_still_being_written_is_served_from_controller_memory() {
    let dev = tiny();
    let reqs = vec![HostRequest::new(Nanos(0), 0, 4096, Op::Write), HostRequest::new(Nanos(10), 0, 4096, Op::Read)];
    let r = run(&dev, "base", reqs, 1);
    assert_eq!(r.reads.max_ns, 0);
    assert_eq!(r.flash.buffer_hits, 1);
    assert_eq!(r.integrity.violations, 0);
    assert_eq!(r.integrity.reads_checked, 1);
}

#[test]
fn read_queued_behind_a_gc_erase_waits_for_the_erase() {
    let dev = tiny();
    // Overwrite 8 LPNs of plane 0 (LPN % 4 == 0), one write per ms (each takes XFER + TPROG).
    // The 1825th write takes the 58th block: free blocks 6 < soft threshold 7, so `base`
    // collects right after that write: the victim is fully invalid, so GC = one erase.
    let n = 1825u64;
    let mut reqs: Vec<HostRequest> = (0..n).map(|k| HostRequest::new(Nanos(k * 1_000_000), (k % 8) * 4 * 4096, 4096, Op::Write)).collect();
    let last = (n - 1) * 1_000_000;
    // A read of plane 0 arrives 1 ms after the last write: the erase started when that write
    // finished (last + XFER + TPROG) and lasts tBERS.
    reqs.push(HostRequest::new(Nanos(last + 1_000_000), 4 * 4096, 4096, Op::Read));
    let r = run(&dev, "base", reqs, 1);
    let erase_end = last + XFER + TPROG + 3_000_000;
    assert_eq!(r.flash.erases, 1);
    assert_eq!(r.flash.gc_pages_migrated, 0);
    assert_eq!(r.reads.max_ns, erase_end - (last + 1_000_000) + TR + XFER);
    assert_eq!(r.waits.wait_ns_by_cause["gc_erase"], erase_end - (last + 1_000_000));
    assert_eq!(r.waits.reads_waited_on_gc, 1);
    // The same read under nogc does not wait at all.
    let mut reqs2: Vec<HostRequest> = (0..n).map(|k| HostRequest::new(Nanos(k * 1_000_000), (k % 8) * 4 * 4096, 4096, Op::Write)).collect();
    reqs2.push(HostRequest::new(Nanos(last + 1_000_000), 4 * 4096, 4096, Op::Read));
    let ideal = run(&dev, "nogc", reqs2, 1);
    assert_eq!(ideal.reads.max_ns, TR + XFER);
}

#[test]
fn dram_write_buffer_completes_writes_early_and_full_buffer_waits() {
    let mut dev = tiny();
    dev.buffer.enabled = true;
    dev.buffer.capacity_pages = 2;
    // Three one-page writes to plane 0 at t = 0: two fit in the buffer and complete at once;
    // the third waits until the first buffered page is programmed (XFER + TPROG).
    let reqs = (0..3u64).map(|i| HostRequest::new(Nanos(0), i * 4 * 4096, 4096, Op::Write)).collect();
    let r = run(&dev, "base", reqs, 1);
    assert_eq!(r.writes.min_ns, 0);
    assert_eq!(r.writes.p50_ns, 0);
    assert_eq!(r.writes.max_ns, XFER + TPROG);
    assert_eq!(r.waits.wait_ns_by_cause["buffer"], XFER + TPROG);
    assert_eq!(r.flash.host_pages_programmed, 3);
}

#[test]
fn read_suspends_a_program_which_resumes_after() {
    let mut dev = tiny();
    let reqs = || vec![HostRequest::new(Nanos(0), 0, 4096, Op::Write), HostRequest::new(Nanos(100_000), 4 * 4096, 4096, Op::Read)];
    // Without suspend the read waits for the program: it ends at XFER + TPROG.
    let plain = run(&dev, "base", reqs(), 1);
    assert_eq!(plain.reads.max_ns, XFER + TPROG - 100_000 + TR + XFER);
    dev.timing.suspend = flashtail::nand::timing::Suspend { enabled: true, suspend_ns: 20_000, resume_ns: 30_000 };
    let s = run(&dev, "base", reqs(), 1);
    // The program (started at XFER) has XFER + TPROG - 100 us left when the read arrives;
    // 20 us to suspend, then the read runs; then the program resumes for what was left + 30 us.
    let read_done = 100_000 + 20_000 + TR + XFER;
    assert_eq!(s.reads.max_ns, read_done - 100_000);
    let left = XFER + TPROG - 100_000;
    assert_eq!(s.writes.max_ns, read_done + left + 30_000);
    assert_eq!(s.flash.suspends, 1);
    assert_eq!(s.integrity.violations, 0);
}

#[test]
fn dynamic_allocation_spreads_writes_over_idle_planes() {
    let mut dev = tiny();
    // Four writes to LPNs of plane 0, all at t = 0.
    let reqs = || (0..4u64).map(|i| HostRequest::new(Nanos(0), i * 4 * 4096, 4096, Op::Write)).collect::<Vec<_>>();
    let stat = run(&dev, "base", reqs(), 1);
    assert_eq!(stat.writes.max_ns, 4 * (XFER + TPROG));
    dev.ftl.allocation = flashtail::config::Allocation::Dynamic;
    let dynm = run(&dev, "base", reqs(), 1);
    // One write per plane; two planes share each channel, so the second transfer waits one XFER.
    assert_eq!(dynm.writes.min_ns, XFER + TPROG);
    assert_eq!(dynm.writes.max_ns, 2 * XFER + TPROG);
}

#[test]
fn dynamic_allocation_with_die_units_uses_every_plane_of_a_die() {
    // Two planes per die share the die's queue, so they always tie on load: writes used to
    // go to the first plane of each die while it had an open block, and under the bundled
    // DTRS slice's bursts that plane filled with valid data and writes stalled on it for good
    // ("simulation stalled: 10523 requests never completed").
    use flashtail::trace::{self, ReplayOptions};
    let mut dev = tiny();
    dev.geometry.planes_per_die = 2;
    dev.ftl.unit = flashtail::config::UnitOfExecution::Die;
    dev.ftl.allocation = flashtail::config::Allocation::Dynamic;
    let raw = trace::embedded::dtrs(&trace::TraceOptions::default());
    let mut src = trace::replay(raw, &ReplayOptions::default(), dev.host_bytes(), u64::from(dev.geometry.page_size));
    let s = flashtail::gc::build_scheme("base", None, 1).unwrap();
    let sim = Simulation::new(dev, s, SimOptions { seed: 1, oracle: true, ..Default::default() }).unwrap();
    let r = sim.run(&mut *src).unwrap_or_else(|e| panic!("die units, dynamic allocation: {e}"));
    assert_eq!(r.integrity.requests_completed, 127_043);
    assert_eq!(r.integrity.violations, 0);
    assert!(r.flash.erases > 0 && r.flash.waf > 1.0, "GC ran: {} erases", r.flash.erases);
}
