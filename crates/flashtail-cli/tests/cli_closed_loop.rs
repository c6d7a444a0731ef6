//! `--closed-loop` and `--timing` on the command line: the run says how requests entered the
//! device and reports bandwidth in the table, summary.json and summary.csv, and bad values
//! are refused naming the option.

mod support;
use support::*;

const GEN: [&str; 6] = ["--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000"];

#[test]
fn closed_loop_runs_report_their_queues_and_throughput() {
    let dir = scratch_dir("cli-closed-loop", "run");
    let mut args = vec!["compare", "--schemes", "base", "--closed-loop", "4x2", "--timing", "ignore", "--no-cost", "--out", s(&dir)];
    args.extend(GEN);
    let out = succeeds_both(&args).0;
    assert!(out.contains("Throughput (first issue to last completion)"), "{out}");
    assert!(out.contains("closed loop, QD 4 × 2 queues, ignore timing"), "{out}");
    let closed = read_json(&dir.join("summary.json"));
    let t = &closed["reports"][0]["throughput"];
    assert_eq!(closed["reports"][0]["config"]["host"]["queues"], 2);
    let csv = read(&dir.join("summary.csv"));
    assert!(csv.lines().next().unwrap().contains(",gc_pages_migrated,mb_per_s,iops,share_waited_on_gc,thin"), "{csv}");
    // Open loop on the same workload: the same bytes, over a span the arrivals set.
    let open_dir = scratch_dir("cli-closed-loop", "open");
    let mut args = vec!["compare", "--schemes", "base", "--no-cost", "--out", s(&open_dir)];
    args.extend(GEN);
    succeeds_both(&args);
    let open = read_json(&open_dir.join("summary.json"));
    let o = &open["reports"][0]["throughput"];
    assert_eq!(o["host_interface"], "open loop");
    assert_eq!(t["read_bytes"], o["read_bytes"]);
    assert!(t["all_mb_per_s"].as_f64().unwrap() > 0.0 && o["all_mb_per_s"].as_f64().unwrap() > 0.0, "closed {t} vs open {o}");
    assert_ne!(t["span_ns"], o["span_ns"]);
}

#[test]
fn bad_closed_loop_values_name_the_option() {
    let mut args = vec!["run", "--scheme", "base", "--closed-loop", "4x0"];
    args.extend(GEN);
    fails_with(&args, &["closed loop", "at least 1"]);
    let mut args = vec!["run", "--scheme", "base", "--closed-loop", "deep"];
    args.extend(GEN);
    fails_with(&args, &["--closed-loop 'deep'", "QDxQUEUES"]);
    let mut args = vec!["run", "--scheme", "base", "--timing", "ignore"];
    args.extend(GEN);
    fails_with(&args, &["--closed-loop"]);
}
