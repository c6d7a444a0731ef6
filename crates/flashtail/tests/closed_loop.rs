//! The closed-loop host interface (`host::closed_loop`): the bandwidth an idle device reaches
//! at a queue depth equals the analytic bound of its planes and channels, requests issue in
//! trace order as their queue's slots free, trace timing bounds the issue from below, and
//! runs are deterministic.
mod common;
use common::*;
use flashtail::host::{ClosedLoop, IssueTiming};
use flashtail::{DeviceConfig, HostRequest, Nanos, Op, RunReport, SimOptions, Simulation, VecSource};

const XFER: u64 = 40_960; // 4 KiB at 10 ns/B (tiny preset)
const TR: u64 = 50_000;
const TPROG: u64 = 500_000;
const PAGE: u64 = 4096;

fn closed(qd: u32, queues: u32, timing: IssueTiming) -> Option<ClosedLoop> {
    Some(ClosedLoop { queue_depth: qd, queues, timing })
}

fn run_with(dev: &DeviceConfig, host: Option<ClosedLoop>, reqs: Vec<HostRequest>) -> RunReport {
    let s = flashtail::gc::build_scheme("base", None, 1).unwrap();
    let opts = SimOptions { seed: 1, oracle: true, check_every: 500, closed_loop: host, ..Default::default() };
    Simulation::new(dev.clone(), s, opts).unwrap().run(&mut VecSource::new(reqs)).unwrap()
}

/// `n` one-page reads of pages 0, 1, 2, ...: channel-first striping spreads them over every
/// plane in turn (tiny: 2 channels × 2 chips, one plane each). All arrive at time 0.
fn spread_reads(n: u64) -> Vec<HostRequest> {
    (0..n).map(|i| HostRequest::new(Nanos(0), i * PAGE, PAGE, Op::Read)).collect()
}

/// The bound of the planes and channels for one-page reads kept in every plane's queue:
/// a plane serves one read per tR + transfer (it is held during its transfer), a channel
/// carries one transfer at a time; MB/s.
fn analytic_bound_mb_s(dev: &DeviceConfig, tr: u64) -> f64 {
    let g = &dev.geometry;
    let per_s = |pages: f64, ns: u64| pages * PAGE as f64 * 1e9 / ns as f64 / 1e6;
    let planes = per_s(f64::from(g.planes()), tr + XFER);
    let channels = per_s(f64::from(g.channels), XFER);
    planes.min(channels)
}

#[test]
fn qd1_reads_reach_one_page_per_read_latency() {
    let dev = tiny();
    let n = 200;
    let r = run_with(&dev, closed(1, 1, IssueTiming::Ignore), spread_reads(n));
    // One read at a time: each takes tR + transfer, the next issues at its completion.
    assert_eq!(r.reads.max_ns, TR + XFER);
    assert_eq!(r.reads.min_ns, TR + XFER);
    assert_eq!(r.throughput.span_ns, n * (TR + XFER));
    let bound = PAGE as f64 * 1e9 / (TR + XFER) as f64 / 1e6;
    assert!((r.throughput.read_mb_per_s - bound).abs() < 1e-9 * bound, "{} vs {bound}", r.throughput.read_mb_per_s);
    assert!((r.throughput.read_iops - 1e9 / (TR + XFER) as f64).abs() < 1e-6);
    assert_eq!(r.throughput.read_bytes, n * PAGE);
    assert_eq!(r.throughput.host_interface, "closed loop, QD 1 × 1 queue, ignore timing");
    assert_eq!(r.config["host"]["queue_depth"], 1);
}

#[test]
fn deep_queues_reach_the_plane_bound() {
    // tR + transfer = 90.96 µs per plane; two planes per channel need 81.92 µs of its
    // 90.96: the planes bind. Each plane's k-th read completes at k × 90.96 µs, but the
    // second plane of a channel waits one transfer at the start: the last completion is at
    // M × (tR + x) + x for M reads per plane.
    let dev = tiny();
    let m = 250;
    let n = 4 * m;
    let r = run_with(&dev, closed(4, 4, IssueTiming::Ignore), spread_reads(n));
    assert_eq!(r.throughput.span_ns, m * (TR + XFER) + XFER);
    let bound = analytic_bound_mb_s(&dev, TR);
    assert_eq!(bound, 4.0 * PAGE as f64 * 1e3 / (TR + XFER) as f64);
    let got = r.throughput.read_mb_per_s;
    assert!(got <= bound && got > 0.99 * bound, "{got} MB/s vs bound {bound}");
    // Never more than 16 outstanding: a read waits at most for the reads ahead on its plane.
    assert!(r.reads.max_ns <= 4 * (TR + XFER) + XFER, "{}", r.reads.max_ns);
}

#[test]
fn deep_queues_reach_the_channel_bound_when_transfers_dominate() {
    // tR 10 µs: a plane could serve a read per 50.96 µs, two per channel want more than the
    // channel's one transfer per 40.96 µs: the channels bind, busy from the first tR on.
    let mut dev = tiny();
    let tr = 10_000;
    dev.timing.read_ns = vec![tr];
    let m = 500; // reads per channel
    let r = run_with(&dev, closed(32, 1, IssueTiming::Ignore), spread_reads(2 * m));
    assert_eq!(r.throughput.span_ns, tr + m * XFER);
    let bound = analytic_bound_mb_s(&dev, tr);
    assert_eq!(bound, 2.0 * PAGE as f64 * 1e3 / XFER as f64);
    let got = r.throughput.read_mb_per_s;
    assert!(got <= bound && got > 0.99 * bound, "{got} MB/s vs bound {bound}");
}

#[test]
fn open_loop_measures_the_offered_load() {
    // Reads every 1 ms on an idle device: open and trace-timed closed loop are the same run,
    // and the bandwidth is the trace's (one page per ms), not the device's.
    let dev = tiny();
    let reqs: Vec<HostRequest> = (0..50).map(|i| HostRequest::new(Nanos(i * 1_000_000), i * PAGE, PAGE, Op::Read)).collect();
    let open = run_with(&dev, None, reqs.clone());
    let traced = run_with(&dev, closed(1, 1, IssueTiming::Trace), reqs);
    assert_eq!(open.reads, traced.reads);
    assert_eq!(open.throughput.span_ns, 49 * 1_000_000 + TR + XFER);
    assert_eq!(traced.throughput.span_ns, open.throughput.span_ns);
    assert_eq!(traced.throughput.host_wait_ns, 0);
    assert_eq!(open.throughput.host_interface, "open loop");
    assert_eq!(open.config["host"]["mode"], "open_loop");
}

#[test]
fn requests_issue_in_trace_order_when_a_slot_of_their_queue_frees() {
    let dev = tiny();
    // Two queues of depth 1, all requests arriving at 0. Request 0 (queue 0) writes a page
    // (transfer + tPROG), request 1 (queue 1) reads one page, request 2 (queue 0) two
    // pages, request 3 (queue 1) three pages, each on planes the others leave free.
    let reqs = vec![
        HostRequest::new(Nanos(0), 0, PAGE, Op::Write),
        HostRequest::new(Nanos(0), 3 * PAGE, PAGE, Op::Read),
        HostRequest::new(Nanos(0), 5 * PAGE, 2 * PAGE, Op::Read),
        HostRequest::new(Nanos(0), 8 * PAGE, 3 * PAGE, Op::Read),
    ];
    let r = run_with(&dev, closed(1, 2, IssueTiming::Ignore), reqs);
    let write_done = r.writes.max_ns;
    assert_eq!(write_done, XFER + TPROG);
    let mut reads = r.tail.reads.slowest.clone();
    reads.sort_by_key(|t| t.pages);
    let issue: Vec<u64> = reads.iter().map(|t| t.arrival_ns).collect();
    // Request 1 issues at once and is done long before the write.
    assert_eq!((issue[0], reads[0].latency_ns), (0, TR + XFER));
    // Request 2 waits for the write's slot in queue 0.
    assert_eq!(issue[1], write_done);
    // Request 3's slot in queue 1 freed at 90.96 µs, but it issues after request 2 (trace
    // order), not before.
    assert_eq!(issue[2], write_done);
}

#[test]
fn trace_timing_is_a_lower_bound_and_ignore_drops_it() {
    let dev = tiny();
    // Reads 10 µs apart on one plane: each takes 90.96 µs, so with QD1 they queue in the host.
    let reqs: Vec<HostRequest> = (0..20).map(|i| HostRequest::new(Nanos(1_000 + i * 10_000), i * 4 * PAGE, PAGE, Op::Read)).collect();
    let traced = run_with(&dev, closed(1, 1, IssueTiming::Trace), reqs.clone());
    let ignored = run_with(&dev, closed(1, 1, IssueTiming::Ignore), reqs.clone());
    // The device is the bottleneck: both issue each read at the previous one's completion,
    // the first at its trace arrival; latency excludes the wait in the host.
    assert_eq!(traced.reads, ignored.reads);
    assert_eq!(traced.reads.max_ns, TR + XFER);
    assert_eq!(traced.throughput.span_ns, 20 * (TR + XFER));
    // Request i arrived at 1 µs + 10 µs·i and issued at 1 µs + 90.96 µs·i.
    let waited: u64 = (0..20).map(|i| i * (TR + XFER - 10_000)).sum();
    assert_eq!(traced.throughput.host_wait_ns, waited);
    assert_eq!(ignored.throughput.host_wait_ns, 0);
    // Open loop: the same reads queue in the device instead, and their latency shows it.
    let open = run_with(&dev, None, reqs);
    assert!(open.reads.max_ns > 10 * (TR + XFER));
    assert_eq!(open.throughput.span_ns, traced.throughput.span_ns);
}

#[test]
fn closed_loop_runs_with_gc_are_deterministic_and_keep_data() {
    let dev = tiny();
    let reqs = random_workload(6000, dev.host_bytes(), 70, 4, 20_000, 7);
    let a = run_with(&dev, closed(8, 4, IssueTiming::Trace), reqs.clone());
    let mut b = run_with(&dev, closed(8, 4, IssueTiming::Trace), reqs.clone());
    assert!(a.flash.erases > 0, "the workload collects garbage");
    assert_eq!(a.integrity.violations, 0);
    let mut a2 = a.clone();
    a2.cost.strip_machine();
    b.cost.strip_machine();
    assert_eq!(serde_json::to_string(&a2).unwrap(), serde_json::to_string(&b).unwrap());
    // Bounded outstanding requests: lower tail latency than open loop on the same trace.
    let open = run_with(&dev, None, reqs);
    assert!(a.all.p99_ns < open.all.p99_ns, "{} vs {}", a.all.p99_ns, open.all.p99_ns);
}

#[test]
fn closed_loop_is_refused_with_power_cuts() {
    let s = flashtail::gc::build_scheme("base", None, 1).unwrap();
    let opts = SimOptions { closed_loop: closed(4, 1, IssueTiming::Trace), power_cut_at: vec![10], ..Default::default() };
    let e = Simulation::new(tiny(), s, opts).err().expect("refused").to_string();
    assert!(e.contains("closed-loop") && e.contains("power cuts"), "{e}");
}

#[test]
fn arrival_timing_counts_the_wait_for_a_slot() {
    // QD 1, ten one-page reads of plane 0 all at time 0: each is issued when the one before
    // completes (tR + transfer = 90.96 us apart). `trace` counts each from its issue;
    // `arrival` from time 0, as SSDsim does behind its host queue.
    let dev = tiny();
    let reqs: Vec<HostRequest> = (0..10).map(|_| HostRequest::new(Nanos(0), 0, PAGE, Op::Read)).collect();
    let issue = run_with(&dev, closed(1, 1, IssueTiming::Trace), reqs.clone());
    let arrival = run_with(&dev, closed(1, 1, IssueTiming::Arrival), reqs);
    assert_eq!((issue.reads.min_ns, issue.reads.max_ns), (TR + XFER, TR + XFER));
    assert_eq!((arrival.reads.min_ns, arrival.reads.max_ns), (TR + XFER, 10 * (TR + XFER)));
    assert_eq!(arrival.reads.mean_ns, 5.5 * (TR + XFER) as f64);
    // The same device work and the same host wait (0 + 1 + ... + 9 reads' time).
    assert_eq!(issue.throughput.span_ns, arrival.throughput.span_ns);
    assert_eq!(issue.throughput.host_wait_ns, 45 * (TR + XFER));
    assert_eq!(arrival.throughput.host_wait_ns, 45 * (TR + XFER));
    assert_eq!(arrival.throughput.host_interface, "closed loop, QD 1 × 1 queue, arrival timing");
}
