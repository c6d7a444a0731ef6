//! End-to-end tests of trace input on the command line, one group per problem a user
//! acceptance pass found: malformed lines in the middle of a trace, `--no-wrap`, blkparse
//! completions without a sector range, `--blk-event` validation, truncated compressed files,
//! the "nothing to simulate" message, the capacity `trace show` folds into, the file argument
//! of `trace stats` / `trace show`, and the warning for coarse arrival times.
//!
//! Traces are small synthetic files written per test (the blkparse lines are copied from the
//! shared Hadoop slice), so the file needs no data outside the repository. Runs use the `tiny`
//! device unless the test is about the default device.

mod support;
use support::*;
use std::path::{Path, PathBuf};

/// Runs a command that must fail cleanly (exit code not 0, no panic); returns its stderr.
fn fails(args: &[&str]) -> String {
    fails_with(args, &[])
}

/// Runs a command that must succeed; returns (stdout, stderr).
fn succeeds(args: &[&str]) -> (String, String) {
    succeeds_both(args)
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    scratch_dir("cli-trace-input", name)
}


/// The value of a `  key: value` workload note in a run's summary text.
fn note<'a>(out: &'a str, key: &str) -> Option<&'a str> {
    let prefix = format!("  {key}: ");
    out.lines().find_map(|l| l.strip_prefix(prefix.as_str()))
}

/// `n` MSR Cambridge lines, 1 ms apart, 4 KiB reads and writes within the first 256 KiB.
fn msr_trace(n: u64) -> String {
    (0..n)
        .map(|i| {
            let op = if i % 2 == 0 { "Write" } else { "Read" };
            format!("{},hm,0,{op},{},4096,100\n", 128166385295514663 + i * 10_000, (i % 64) * 4096)
        })
        .collect()
}

/// Replaces the leading digits of 1-based line `no` with `abc`, as `sed 'Ns/^[0-9]*/abc/'`.
fn mangle_line(trace: &str, no: usize) -> String {
    trace
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == no {
                format!("abc{}\n", l.trim_start_matches(|c: char| c.is_ascii_digit()))
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

#[test]
fn malformed_line_mid_trace_is_an_error_not_a_header() {
    let dir = scratch("mid");
    let m2 = dir.join("m2.csv");
    write(&m2, mangle_line(&msr_trace(700), 600));
    let err = fails(&["run", "--device", "tiny", "--trace", s(&m2)]);
    assert!(
        err.contains("m2.csv:600: field Timestamp: 'abc' is not an unsigned integer"),
        "{err}"
    );
    // The same under `trace stats`, and for an MQSim trace damaged at line 30.
    let err = fails(&["trace", "stats", s(&m2)]);
    assert!(err.contains("m2.csv:600: field Timestamp: 'abc'"), "{err}");
    let mq = dir.join("w.mqsim");
    let lines: String = (0..100).map(|i| format!("{} 0 {} 8 1\n", i * 1000, i * 8)).collect();
    write(&mq, mangle_line(&lines, 30));
    let err = fails(&["trace", "stats", s(&mq)]);
    assert!(err.contains("w.mqsim:30: field time: 'abc' is not a non-negative number"), "{err}");

    // --on-error skip: skipped and counted as a bad record, not as a header.
    let (out, _) = succeeds(&["run", "--device", "tiny", "--trace", s(&m2), "--on-error", "skip"]);
    assert_eq!(note(&out, "skipped_bad_Timestamp"), Some("1"), "{out}");
    assert_eq!(note(&out, "skipped_header-like"), None, "{out}");
    assert_eq!(note(&out, "requests"), Some("699"), "{out}");

    // A header before the first record is still skipped, whatever the policy.
    let with_header = dir.join("h.csv");
    write(&with_header, format!("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n{}", msr_trace(10)));
    let (out, _) = succeeds(&["run", "--device", "tiny", "--trace", s(&with_header)]);
    assert_eq!(note(&out, "skipped_header-like"), Some("1"), "{out}");
    assert_eq!(note(&out, "requests"), Some("10"), "{out}");
}

/// MQSim lines: one request inside the tiny device, two at 100 GiB (209715200 sectors).
const FAR: &str = "0 0 0 8 0\n500000 0 209715200 8 0\n1000000 0 209715200 8 1\n";

#[test]
fn no_wrap_drops_and_counts_requests_beyond_the_capacity() {
    let dir = scratch("nowrap");
    let far = dir.join("far.mqsim");
    write(&far, FAR);
    let base = ["run", "--device", "tiny", "--scheme", "nogc", "--format", "mqsim", "--trace", s(&far)];
    let (out, _) = succeeds(&[&base[..], &["--no-wrap"]].concat());
    assert_eq!(note(&out, "replay_beyond_capacity"), Some("2"), "{out}");
    assert_eq!(note(&out, "replay_requests"), Some("1"), "{out}");
    assert_eq!(note(&out, "replay_wrapped"), Some("0"), "{out}");
    assert_eq!(note(&out, "requests_wrapped_into_capacity"), Some("0"), "{out}");
    assert!(out.contains("1/1 requests completed"), "{out}");

    // Default: both are folded by replay (the engine folds nothing), all three simulated.
    let (out, _) = succeeds(&base);
    assert_eq!(note(&out, "replay_wrapped"), Some("2"), "{out}");
    assert_eq!(note(&out, "replay_beyond_capacity"), None, "{out}");
    assert_eq!(note(&out, "requests_wrapped_into_capacity"), Some("0"), "{out}");
    assert!(out.contains("3/3 requests completed"), "{out}");

    // Nothing left inside the capacity: an error that says so.
    let all_far = dir.join("allfar.mqsim");
    write(&all_far, "0 0 209715200 8 0\n1000000 0 209715200 8 1\n");
    let err = fails(&["run", "--device", "tiny", "--format", "mqsim", "--no-wrap", "--trace", s(&all_far)]);
    assert!(
        err.starts_with(
            "error: nothing to simulate: every request reaches beyond the logical capacity \
             (26841088 bytes) and --no-wrap drops such requests (2 dropped)\n"
        ),
        "{err}"
    );
}

/// Lines 800-806 of the shared Hadoop blkparse slice (a flush completion at 804), plus two
/// ordinary completions.
const BLK: &str = "  8,16   5      320     3.832901000 18615  Q   W 1950885314 + 8 [java]
  8,16   5      321     3.832902000 18615  G   W 1950885314 + 8 [java]
  8,16   5      322     3.832903000 18615  I   W 1950885314 + 8 [java]
  8,16   5      323     3.832904000 18615  D   W 1950885314 + 8 [java]
  8,16   5      324     3.832956675     0  C  WS 1950885322 [0]
  8,16   5      325     3.832957000     0  C   W 1950885314 + 8 [0]
  8,16   5      326     3.832990000     0  C   R 1444645666 + 256 [0]
";

#[test]
fn blkparse_completions_without_a_range_are_counted_not_errors() {
    let dir = scratch("blkc");
    let t = dir.join("hadoop.txt");
    write(&t, BLK);
    let (out, _) = succeeds(&["run", "--device", "tiny", "--trace", s(&t), "--blk-event", "C"]);
    assert_eq!(note(&out, "requests"), Some("2"), "{out}");
    assert_eq!(note(&out, "not_request_flush_or_barrier_without_data"), Some("1"), "{out}");
    assert_eq!(note(&out, "not_request_other_blkparse_event"), Some("4"), "{out}");
    // Lower case is accepted; each per-request event finds its one line.
    for ev in ["q", "G", "I", "D"] {
        let (out, _) = succeeds(&["trace", "stats", s(&t), "--blk-event", ev]);
        assert!(out.lines().any(|l| l == "requests               1"), "{ev}: {out}");
    }
}

#[test]
fn unknown_blk_event_is_rejected_with_the_allowed_ones() {
    let dir = scratch("blkx");
    let t = dir.join("hadoop.txt");
    write(&t, BLK);
    for cmd in [&["run", "--device", "tiny", "--trace", s(&t)][..], &["trace", "stats", s(&t)]] {
        let err = fails(&[cmd, &["--blk-event", "X"]].concat());
        assert!(
            err.contains("invalid value 'X' for '--blk-event <BLK_EVENT>': unknown blkparse event 'X' (allowed: Q, G, I, D, C"),
            "{err}"
        );
        assert!(!err.contains("cannot detect"), "{err}");
    }
}

#[test]
fn truncated_compressed_trace_says_how_far_it_got() {
    // The bundled DTRS slice (zstd) cut in half: the decoder runs out mid-frame.
    let zst = Path::new(env!("CARGO_MANIFEST_DIR")).join("../flashtail/data/dtrs-127k.ascii.zst");
    let bytes = std::fs::read(&zst).unwrap_or_else(|e| panic!("{}: {e}", zst.display()));
    let dir = scratch("trunc");
    let t = dir.join("trunc.ascii.zst");
    write(&t, &bytes[..bytes.len() / 2]);
    let err = fails(&["trace", "stats", s(&t), "--time-unit", "0.01"]);
    let line = err.lines().next().unwrap_or_default();
    let rest = line
        .strip_prefix(&format!("error: {}: after line ", s(&t)))
        .unwrap_or_else(|| panic!("{err}"));
    let (n, what) = rest.split_once(": ").unwrap_or_else(|| panic!("{err}"));
    let n: u64 = n.parse().unwrap_or_else(|_| panic!("{err}"));
    // Half the compressed bytes hold roughly half the 127,043 lines.
    assert!((30_000..100_000).contains(&n), "{err}");
    assert_eq!(what, "compressed (zstd) stream ends early (truncated file?)", "{err}");
    let err = fails(&["run", "--device", "tiny", "--trace", s(&t)]);
    assert!(err.contains("compressed (zstd) stream ends early (truncated file?)"), "{err}");
}

#[test]
fn nothing_to_simulate_says_why_on_a_short_first_line() {
    let dir = scratch("empty");
    let empty = dir.join("empty.csv");
    write(&empty, "");
    let err = fails(&["run", "--device", "tiny", "--trace", s(&empty), "--format", "msr"]);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], "error: nothing to simulate: the trace is empty (0 lines)", "{err}");
    assert_eq!(lines[1], format!("  workload: {} (msr trace)", s(&empty)), "{err}");
    // Then every note on its own indented line.
    assert!(lines.contains(&"    lines: 0"), "{err}");
    assert!(lines.contains(&"    requests: 0"), "{err}");
    assert!(lines[2..].iter().all(|l| l.starts_with("    ") && l.len() < 120), "{err}");

    let two = dir.join("two.csv");
    let mut t = msr_trace(4);
    t.push_str(&msr_trace(3).replace(",hm,0,", ",hm,1,"));
    write(&two, t);
    let err = fails(&["run", "--device", "tiny", "--trace", s(&two), "--volume", "99"]);
    assert_eq!(
        err.lines().next(),
        Some("error: nothing to simulate: volume 99 has no requests; volumes present: 0, 1"),
        "{err}"
    );
    assert!(err.lines().any(|l| l == "    other_volume_skipped: 7"), "{err}");

    // Every line junk, and a window after the end.
    let junk = dir.join("junk.csv");
    write(&junk, "Timestamp,Hostname\n# nothing here\n");
    let err = fails(&["run", "--device", "tiny", "--trace", s(&junk), "--format", "msr"]);
    assert_eq!(
        err.lines().next(),
        Some("error: nothing to simulate: no requests: every line was skipped (2 lines; the counts below say why)"),
        "{err}"
    );
    let err = fails(&["run", "--device", "tiny", "--trace", s(&two), "--window", "500:"]);
    assert_eq!(
        err.lines().next(),
        Some("error: nothing to simulate: no request in --window 500: (7 requests before its start)"),
        "{err}"
    );
}

/// `trace show`'s `# offsets folded into N bytes` line, as N.
fn show_capacity(out: &str) -> u64 {
    let l = out
        .lines()
        .find_map(|l| l.strip_prefix("# offsets folded into "))
        .unwrap_or_else(|| panic!("{out}"));
    l.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{out}"))
}

#[test]
fn trace_show_folds_into_the_capacity_a_default_run_uses() {
    let dir = scratch("show");
    let far = dir.join("far.mqsim");
    write(&far, FAR);
    let json = dir.join("run.json");
    // A default run (default device and scheme) on the same trace.
    succeeds(&["run", "--trace", s(&far), "--json", s(&json)]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let run_cap: u64 = v["workload_notes"]["replay_wrap_capacity_bytes"]
        .as_str()
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("{v}"));
    let (out, _) = succeeds(&["trace", "show", "--trace", s(&far)]);
    assert_eq!(show_capacity(&out), run_cap, "{out}");
    assert!(out.contains("(host capacity of device dtrs-demo, as `run` with the default scheme)"), "{out}");
    let far_off = 209_715_200u64 * 512;
    let want = format!("500000 W {} 4096", far_off % run_cap);
    assert!(out.lines().any(|l| l == want), "{want}\n{out}");
    // Another device, or an explicit capacity.
    let (out, _) = succeeds(&["trace", "show", "--trace", s(&far), "--device", "tiny"]);
    assert_eq!(show_capacity(&out), 26_841_088, "{out}");
    let (out, _) = succeeds(&["trace", "show", "--trace", s(&far), "--capacity", "256G"]);
    assert_eq!(show_capacity(&out), 256 << 30, "{out}");
    assert!(out.contains("(--capacity)"), "{out}");
}

#[test]
fn stats_and_show_take_the_file_positionally_or_with_trace() {
    let dir = scratch("args");
    let t = dir.join("t.csv");
    write(&t, msr_trace(30));
    let (a, _) = succeeds(&["trace", "stats", s(&t)]);
    let (b, _) = succeeds(&["trace", "stats", "--trace", s(&t)]);
    assert_eq!(a, b);
    assert!(a.lines().any(|l| l == "requests               30"), "{a}");
    let (a, _) = succeeds(&["trace", "show", s(&t), "-n", "5"]);
    let (b, _) = succeeds(&["trace", "show", "--trace", s(&t), "-n", "5"]);
    assert_eq!(a, b);
    assert_eq!(a.lines().filter(|l| !l.starts_with('#')).count(), 5, "{a}");
    let err = fails(&["trace", "stats", s(&t), "--trace", s(&t)]);
    assert!(err.contains("cannot be used with"), "{err}");
    let err = fails(&["trace", "show", s(&t), "--trace", s(&t)]);
    assert!(err.contains("cannot be used with"), "{err}");
    let err = fails(&["trace", "stats"]);
    assert!(err.contains("required"), "{err}");
}

#[test]
fn coarse_arrival_times_print_one_warning() {
    let dir = scratch("coarse");
    // Tencent CBS: 1,500 requests in one second, then 10 in the next.
    let t = dir.join("cbs.csv");
    let mut lines: String = (0..1500).map(|i| format!("1538323200,{},8,0,1058\n", (i % 512) * 8)).collect();
    lines.extend((0..10).map(|i| format!("1538323201,{},8,1,1058\n", i * 8)));
    write(&t, lines);
    let warning = format!(
        "warning: {}: coarse arrival times: up to 1500 requests share one timestamp (1510 \
         requests on 2 distinct times, all whole seconds); such requests arrive together, so \
         queueing dominates their latency (no replay option spreads them; --time-scale only \
         stretches the gaps between distinct times)",
        s(&t)
    );
    let (out, err) = succeeds(&["trace", "stats", s(&t)]);
    assert_eq!(err.lines().filter(|l| l.starts_with("warning:")).collect::<Vec<_>>(), vec![warning.as_str()]);
    assert!(out.contains("coarse_timestamps      up to 1500 requests share one timestamp"), "{out}");
    let (_, err) = succeeds(&["run", "--device", "tiny", "--scheme", "nogc", "--trace", s(&t)]);
    assert_eq!(err.lines().filter(|l| l.starts_with("warning:")).collect::<Vec<_>>(), vec![warning.as_str()]);
    let out_dir = dir.join("cmp");
    let (_, err) = succeeds(&[
        "compare", "--device", "tiny", "--schemes", "nogc,base", "--trace", s(&t), "--out", s(&out_dir),
    ]);
    assert_eq!(err.lines().filter(|l| l.starts_with("warning:")).count(), 1, "{err}");

    // A fine-grained trace: no warning, no note.
    let fine = dir.join("fine.csv");
    write(&fine, msr_trace(1200));
    let (out, err) = succeeds(&["trace", "stats", s(&fine)]);
    assert!(!err.contains("warning") && !out.contains("coarse_timestamps"), "{err}\n{out}");
}

// ----- replay and reading options at their extremes (QA pass of the layers above the parsers)

/// A replay far slower than real time pushes arrivals past 2^62 ns: the run names the request
/// and the flags (it ended "simulation stalled: 350 requests never completed (free blocks
/// exhausted ...?)" once the times saturated at u64::MAX). 1 ms apart at 1e-9 is 10^6 s per
/// request: request 4613 (at 4,612,000,000 s) is the first after 4,611,686,018 s.
#[test]
fn a_replay_beyond_the_time_horizon_names_the_request() {
    let dir = scratch("horizon");
    let trace = dir.join("t.csv");
    write(&trace, msr_trace(5000));
    let err = fails(&["run", "--device", "tiny", "--trace", s(&trace), "--time-scale", "1e-9"]);
    assert!(
        err.contains("error: workload: request 4613: arrives at t=4612000000000000000 ns, after the latest time flashtail simulates (2^62 ns, about 146 years): replay the trace faster (a larger --time-scale) or fewer times (--loops), or generate fewer requests"),
        "{err}"
    );
    // Loops whose address shift passes 2^64 (a slice reaching its top page) are refused where
    // loop 1 would start; their requests all landed on the capacity's last page.
    let high = dir.join("high.csv");
    write(&high, "0,hm,0,Write,18446744073709543424,4096,1\n10000,hm,0,Write,0,4096,1\n");
    let err = fails(&["run", "--device", "tiny", "--trace", s(&high), "--loops", "3"]);
    assert!(
        err.contains("error: workload: --loops 3: loop 2 would shift the slice (offsets up to 18446744073709547520 bytes) by 2 x 18446744073709547520 bytes, beyond 64-bit byte offsets: use fewer --loops or a smaller --loop-offset"),
        "{err}"
    );
    // A window bound past the horizon is refused up front (it printed a 301-digit number).
    let err = fails(&["trace", "show", s(&trace), "--window", "1e300:"]);
    assert!(err.contains("'1e300' is not a time in seconds from 0 to 4611686018 (2^62 ns, the latest time flashtail simulates)"), "{err}");
    // Values starting with '-' reach the checks (they were taken for unknown flags).
    let err = fails(&["run", "--device", "tiny", "--trace", s(&trace), "--window", "-1:5"]);
    assert!(err.contains("'-1' is not a time in seconds from 0 to 4611686018"), "{err}");
    let err = fails(&["run", "--device", "tiny", "--trace", s(&trace), "--time-scale", "-inf"]);
    assert!(err.contains("time scale must be a number > 0, got '-inf'"), "{err}");
}

/// `--time-unit` was silently ignored by the formats with a fixed unit (`--time-unit s` on an
/// MSR trace replayed it unchanged); it is an error there and still works on the ASCII ones.
#[test]
fn time_unit_is_refused_where_the_format_fixes_the_unit() {
    let dir = scratch("time-unit");
    let msr = dir.join("t.csv");
    write(&msr, msr_trace(4));
    let want = format!(
        "error: invalid trace option: --time-unit applies to ssdsim, mqsim, flashsim and linnos traces only; {} is in the msr format, whose time column is always in units of 100 ns (use --time-scale to replay it faster or slower)",
        s(&msr)
    );
    for cmd in [&["trace", "stats"][..], &["trace", "show"], &["run", "--device", "tiny", "--trace"]] {
        let mut args = cmd.to_vec();
        args.extend([s(&msr), "--time-unit", "s"]);
        let err = fails(&args);
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    let ascii = dir.join("t.ascii");
    write(&ascii, "0 0 0 8 0\n3 0 8 8 1\n");
    let (out, _) = succeeds(&["trace", "show", s(&ascii), "--device", "tiny", "--time-unit", "ms"]);
    assert!(out.contains("\n3000000 R 4096 4096\n"), "{out}");
}

/// `trace show` checks the capacity and page size it folds into (`--capacity 0` printed
/// unfolded offsets under "offsets folded into 0 bytes"; `--page-size 0` aligned to 1 byte;
/// a huge page size printed 18446744073709551615-byte requests), and says why it shows nothing.
#[test]
fn trace_show_checks_capacity_and_page_size_and_explains_an_empty_listing() {
    let dir = scratch("show-capacity");
    let trace = dir.join("t.csv");
    write(&trace, msr_trace(4));
    let t = s(&trace);
    let err = fails(&["trace", "show", t, "--capacity", "1"]);
    assert!(err.contains("error: the capacity (1 bytes, --capacity) must hold at least one page of 4096 bytes (--capacity, --page-size)"), "{err}");
    let err = fails(&["trace", "show", t, "--capacity", "0"]);
    assert!(err.contains("error: the capacity (0 bytes, --capacity)"), "{err}");
    let err = fails(&["trace", "show", t, "--page-size", "0"]);
    assert!(err.contains("error: --page-size must be more than 0 bytes"), "{err}");
    let err = fails(&["trace", "show", t, "--device", "tiny", "--page-size", "18446744073709551615"]);
    assert!(err.contains("must hold at least one page of 18446744073709551615 bytes"), "{err}");
    let (out, _) = succeeds(&["trace", "show", t, "--capacity", "4K"]);
    assert!(out.contains("# offsets folded into 4096 bytes (--capacity)\n"), "{out}");
    let (out, _) = succeeds(&["trace", "show", t, "--volume", "9"]);
    assert!(out.ends_with("# no requests: volume 9 has no requests; volumes present: 0\n"), "{out}");
}

/// `--volume-stride 0` is refused by its own parser, naming the flag (it was "invalid trace
/// option: volume stride must be > 0").
#[test]
fn a_zero_volume_stride_is_named() {
    let err = fails(&["trace", "show", "--volume-stride", "0"]);
    assert!(
        err.contains("invalid value '0' for '--volume-stride <VOLUME_STRIDE>': the stride must be more than 0 bytes (leave --volume-stride out to merge volumes as-is)"),
        "{err}"
    );
}
