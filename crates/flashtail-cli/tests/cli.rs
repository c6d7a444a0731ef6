//! End-to-end tests of the `flashtail` binary: what a user sees on the command line.
//!
//! Failure cases check the contract for bad input: exit code not 0, an error on stderr that
//! names the offending thing (preset, scheme, key, file, line, field), and never a panic.
//! Success cases check exact facts (request counts, file sets, row counts, the analytic
//! latency of a lone read and write). Every run uses the `tiny` device or fails before any
//! simulation, so the whole file takes a few seconds. Does not test the numbers of the
//! default DTRS comparison (too slow for CI; the library's tests cover the mechanisms).

mod support;
use support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a command that must fail cleanly; returns its stderr after checking that it
/// contains every `needle`.
fn fails(args: &[&str], needles: &[&str]) -> String {
    fails_with(args, needles)
}

/// Runs a command that must succeed; returns its stdout.
fn succeeds(args: &[&str]) -> String {
    succeeds_both(args).0
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    scratch_dir("cli", name)
}


/// 10 writes of one 4 KiB page each, then 10 reads of the same pages, 10 ms apart: every
/// request finds the `tiny` device idle.
fn idle_msr_trace() -> String {
    let t0 = 128_166_385_295_514_663u64;
    let gap = 100_000; // 10 ms in 100 ns ticks
    let mut out = String::new();
    for i in 0..20u64 {
        let op = if i < 10 { "Write" } else { "Read" };
        out.push_str(&msr_line(t0 + i * gap, op, (i % 10) * 4096, 4096));
    }
    out
}

// ----- bad input ------------------------------------------------------------------------

#[test]
fn unknown_preset_is_named_with_the_known_ones() {
    let err = fails(
        &["run", "--scheme", "nogc", "--device", "no-such-ssd"],
        &["no-such-ssd", "tiny", "dtrs-demo"],
    );
    assert!(err.starts_with("error:"), "{err}");
    fails(
        &["presets", "--show", "no-such-ssd"],
        &["unknown device preset 'no-such-ssd'", "tiny"],
    );
    fails(&["compare", "--device", "no-such-ssd"], &["no-such-ssd"]);
}

#[test]
fn unknown_scheme_is_named_in_run_and_compare() {
    fails(
        &["run", "--device", "tiny", "--scheme", "fastgc"],
        &["unknown scheme 'fastgc'", "nogc", "ttflash"],
    );
    // Checked before any scheme runs, even when it is not the first in the list.
    fails(
        &[
            "compare",
            "--device",
            "tiny",
            "--schemes",
            "nogc,fastgc",
            "--gen",
            "bench-ref",
            "--gen-count",
            "10",
        ],
        &["unknown scheme 'fastgc'", "base"],
    );
}

#[test]
fn unknown_victim_policy_and_workload_preset_are_named() {
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--scheme",
            "base",
            "--victim",
            "oldest",
            "--gen",
            "bench-ref",
            "--gen-count",
            "10",
        ],
        &["unknown victim policy 'oldest'", "greedy"],
    );
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--scheme",
            "nogc",
            "--gen",
            "no-such-load",
        ],
        &["no-such-load", "bench-ref"],
    );
}

#[test]
fn bad_override_key_is_named() {
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--set",
            "ftl.over_provisionning=0.2",
        ],
        &[
            "ftl.over_provisionning",
            "unknown key 'over_provisionning'",
            "over_provisioning",
        ],
    );
    fails(
        &["run", "--device", "tiny", "--set", "flash.channels=2"],
        &["unknown section 'flash'"],
    );
    fails(
        &["run", "--device", "tiny", "--set", "ftl.over_provisioning"],
        &["key=value"],
    );
}

#[test]
fn bad_override_value_is_rejected() {
    // A word where a number belongs: the message says what was expected.
    fails(
        &["run", "--device", "tiny", "--set", "timing.erase_ns=fast"],
        &["override 'timing.erase_ns=fast' rejected", "expected u64"],
    );
    // A number out of range: validation names the field.
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--set",
            "ftl.over_provisioning=1.5",
        ],
        &["ftl.over_provisioning must be in [0.01, 0.9), got 1.5"],
    );
}

/// The brief's contract: a bad value names its key. Today a type error says what was
/// expected but not where (`override rejected: invalid type: string "fast", expected u64`).
#[test]
fn bad_override_value_names_the_key() {
    fails(
        &["run", "--device", "tiny", "--set", "timing.erase_ns=fast"],
        &["timing.erase_ns", "fast"],
    );
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--set",
            "ftl.allocation=sideways",
        ],
        &["ftl.allocation", "sideways"],
    );
}

/// Without a GC reserve a busy plane can run out of pages for GC's own frontier. Today the
/// engine panics (`sim/engine/mod.rs`, "the GC reserve is exhausted"); it should refuse the
/// setting at validation or fail with an error.
#[test]
fn zero_gc_reserve_fails_cleanly() {
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--scheme",
            "base",
            "--set",
            "ftl.gc_reserved_blocks=0",
            "--gen",
            "bench-ref",
            "--gen-count",
            "20000",
        ],
        &["gc_reserved_blocks"],
    );
}

#[test]
fn impossible_geometry_is_named() {
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--scheme",
            "nogc",
            "--set",
            "geometry.channels=0",
        ],
        &["tiny", "geometry.channels must be at least 1"],
    );
}

#[test]
fn device_file_with_a_typo_names_file_and_key() {
    let dir = scratch("typo-device");
    let good = succeeds(&["presets", "--show", "tiny"]);
    assert!(
        good.contains("over_provisioning = 0.20"),
        "tiny preset changed:\n{good}"
    );
    let path = dir.join("my-ssd.toml");
    write(
        &path,
        good.replace("over_provisioning = 0.20", "over_provisionning = 0.20"),
    );
    fails(
        &["run", "--device", s(&path), "--scheme", "nogc"],
        &["my-ssd.toml", "over_provisionning"],
    );
    // The untouched text is a valid device file.
    write(&path, &good);
    let out = succeeds(&[
        "run",
        "--device",
        s(&path),
        "--scheme",
        "nogc",
        "--gen",
        "bench-ref",
        "--gen-count",
        "50",
    ]);
    assert!(out.contains("on device tiny"), "{out}");
}

#[test]
fn malformed_trace_line_names_file_line_and_field() {
    let dir = scratch("bad-trace");
    let path = dir.join("broken.csv");
    let t0 = 128_166_385_295_514_663u64;
    let mut trace = String::new();
    trace.push_str(&msr_line(t0, "Write", 0, 4096));
    trace.push_str(&msr_line(t0 + 1000, "Read", 0, 4096));
    trace.push_str(&format!("{},hm,0,Write,8192,4k,100\n", t0 + 2000)); // line 3: bad Size
    trace.push_str(&msr_line(t0 + 3000, "Read", 8192, 4096));
    trace.push_str(&msr_line(t0 + 4000, "Write", 12288, 4096));
    write(&path, &trace);
    let where_ = format!("{}:3: field Size", path.display());
    for format in [None, Some("msr")] {
        let mut args = vec![
            "run",
            "--device",
            "tiny",
            "--scheme",
            "nogc",
            "--trace",
            s(&path),
        ];
        if let Some(f) = format {
            args.extend(["--format", f]);
        }
        fails(&args, &[&where_]);
    }
    fails(&["trace", "stats", s(&path)], &[&where_]);
    // With --on-error skip the other four records run.
    let json = dir.join("skip.json");
    succeeds(&[
        "run",
        "--device",
        "tiny",
        "--scheme",
        "nogc",
        "--trace",
        s(&path),
        "--on-error",
        "skip",
        "--json",
        s(&json),
    ]);
    let v = read_json(&json);
    assert_eq!(v["integrity"]["requests_completed"], 4);
}

#[test]
fn missing_trace_file_is_named() {
    let dir = scratch("missing-trace");
    let path = dir.join("nowhere.csv");
    fails(
        &[
            "run",
            "--device",
            "tiny",
            "--scheme",
            "nogc",
            "--trace",
            s(&path),
        ],
        &["nowhere.csv"],
    );
    fails(
        &[
            "compare",
            "--device",
            "tiny",
            "--trace",
            s(&path),
            "--out",
            s(&dir),
        ],
        &["nowhere.csv"],
    );
    fails(&["trace", "stats", s(&path)], &["nowhere.csv"]);
    assert!(
        !dir.join("summary.csv").exists(),
        "a failed compare must not write outputs"
    );
}

#[test]
fn bad_replay_options_and_scheme_device_mismatch_are_named() {
    fails(
        &["run", "--device", "tiny", "--window", "5:1"],
        &["--window", "window end 1 must be after start 5"],
    );
    fails(
        &["run", "--device", "tiny", "--time-scale", "0"],
        &["--time-scale", "time scale must be a number > 0"],
    );
    fails(
        &[
            "run", "--device", "tiny", "--trace", "x.csv", "--format", "csvish",
        ],
        &["--format", "csvish"],
    );
    // RAIN stripes over channels: the 2-channel test device cannot hold them.
    fails(
        &["run", "--device", "tiny", "--scheme", "ttflash"],
        &["RAIN needs at least 3 channels (got 2)"],
    );
    // `gen` with a zero address span says which field and the options that set it.
    fails(
        &["gen", "--preset", "bench-ref", "--count", "5", "--span", "0"],
        &["span_bytes", "--span-gib"],
    );
}

// ----- success ----------------------------------------------------------------------------

#[test]
fn presets_lists_every_preset_and_show_round_trips() {
    let out = succeeds(&["presets"]);
    let listed: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(listed, flashtail::config::presets::names());
    for n in ["dtrs-demo", "ttflash", "bench-ref", "tiny"] {
        assert!(listed.contains(&n), "{n} missing:\n{out}");
    }
    let tiny = out
        .lines()
        .find(|l| l.starts_with("tiny "))
        .unwrap_or_default();
    assert!(
        tiny.contains("2ch x 2chip x 1die x 1pl, 64 blk x 32 pg x 4 KiB"),
        "{tiny}"
    );
    let shown = succeeds(&["presets", "--show", "dtrs-demo"]);
    let parsed =
        flashtail::config::presets::parse("shown", &shown).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        parsed,
        flashtail::config::presets::load("dtrs-demo").unwrap_or_else(|e| panic!("{e}"))
    );
}

#[test]
fn schemes_lists_every_scheme_and_the_victim_policies() {
    let out = succeeds(&["schemes"]);
    let names: Vec<&str> = out
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let known: Vec<&str> = flashtail::gc::scheme_names()
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(names, known);
    for n in ["nogc", "base", "preemptive", "ttflash"] {
        assert!(names.contains(&n), "{n} missing:\n{out}");
    }
    assert!(
        out.contains("greedy, cost-benefit, fifo, random, d-choices[:D]"),
        "{out}"
    );
}

#[test]
fn run_on_a_small_trace_counts_every_request_with_analytic_latency() {
    let dir = scratch("run-trace");
    let trace = dir.join("idle.csv");
    write(&trace, idle_msr_trace());
    let json = dir.join("run.json");
    let out = succeeds(&[
        "run",
        "--scheme",
        "nogc",
        "--device",
        "tiny",
        "--trace",
        s(&trace),
        "--json",
        s(&json),
    ]);
    assert!(out.contains("scheme nogc on device tiny"), "{out}");
    assert!(
        out.contains("0 violations | 20/20 requests completed"),
        "{out}"
    );
    let v = read_json(&json);
    assert_eq!(v["scheme"], "nogc");
    assert_eq!(v["device"], "tiny");
    assert_eq!(v["all"]["count"], 20);
    assert_eq!(v["reads"]["count"], 10);
    assert_eq!(v["writes"]["count"], 10);
    assert_eq!(v["integrity"]["requests_submitted"], 20);
    assert_eq!(v["integrity"]["requests_completed"], 20);
    assert_eq!(v["integrity"]["violations"], 0);
    assert_eq!(v["flash"]["host_pages_programmed"], 10);
    assert_eq!(v["flash"]["gc_runs"], 0);
    // tiny: tR 50 us, tPROG 500 us, 4 KiB over the channel 40,960 ns, no command overhead.
    // An idle read = tR + transfer; an idle write = transfer + tPROG.
    for key in ["min_ns", "p50_ns", "max_ns"] {
        assert_eq!(v["reads"][key], 90_960, "reads {key}");
        assert_eq!(v["writes"][key], 540_960, "writes {key}");
    }
    assert_eq!(v["reads"]["samples_at_or_above"]["p99.99"], 10);
    assert_eq!(v["waits"]["requests_waited_on_gc"], 0);
}

/// `--latency tail` on a run shorter than its switch point (2^18 samples) reports exactly what
/// exact mode does (the switch itself is tested in `stats::latency`), and a bad mode is refused
/// by name.
#[test]
fn latency_tail_mode_is_exact_on_short_runs_and_checked() {
    let dir = scratch("latency-tail");
    let run = |mode: &str, name: &str| {
        let json = dir.join(name);
        succeeds(&[
            "run", "--scheme", "base", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "20000",
            "--latency", mode, "--no-cost", "--json", s(&json),
        ]);
        read_json(&json)
    };
    let (t, e) = (run("tail", "tail.json"), run("exact", "exact.json"));
    assert_eq!(t["all"]["count"], 20_000);
    assert_eq!(t["all"]["exact"], true);
    assert!(t["all"].get("exact_from_quantile").is_none());
    for class in ["reads", "writes", "all"] {
        assert_eq!(t[class], e[class], "{class}");
    }
    fails(&["run", "--device", "tiny", "--scheme", "base", "--latency", "approx"], &["approx", "exact", "tail"]);
}

#[test]
fn compare_writes_four_files_with_one_row_per_scheme_and_op() {
    let dir = scratch("compare");
    let args = |out: &Path| -> Vec<String> {
        [
            "compare",
            "--schemes",
            "nogc,base",
            "--gen",
            "bench-ref",
            "--gen-count",
            "2000",
            "--device",
            "tiny",
            "--out",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([s(out).to_string()])
        .collect()
    };
    let a = dir.join("a");
    let argv = args(&a);
    let stdout = succeeds(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        stdout.contains("Reads (ms; (×) = ratio to nogc)"),
        "{stdout}"
    );
    for f in ["summary.json", "summary.csv", "cdf.csv", "report.html"] {
        assert!(a.join(f).is_file(), "{f} not written");
        assert!(
            stdout.contains(&format!("wrote {}", a.join(f).display())),
            "{stdout}"
        );
    }
    let csv = read(&a.join("summary.csv"));
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 7, "header + 6 rows:\n{csv}");
    assert_eq!(&rows[0][..3], ["scheme", "op", "count"]);
    let keys: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(
        keys,
        [
            ("nogc", "read"),
            ("nogc", "write"),
            ("nogc", "all"),
            ("base", "read"),
            ("base", "write"),
            ("base", "all")
        ]
    );
    for r in &rows[1..] {
        assert_eq!(r.len(), rows[0].len());
        if r[1] == "all" {
            assert_eq!(r[2], "2000", "{r:?}");
        }
    }
    let cdf = read(&a.join("cdf.csv"));
    assert!(
        cdf.starts_with("scheme,op,latency_ns,cdf\n"),
        "{}",
        &cdf[..cdf.len().min(80)]
    );
    let json = read_json(&a.join("summary.json"));
    let reports = json["reports"].as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[1]["scheme"], "base");
    assert_eq!(reports[1]["integrity"]["requests_completed"], 2000);
    assert!(read(&a.join("report.html")).contains("<svg"));
    // Same inputs and seed: the CSV outputs are byte-identical.
    let b = dir.join("b");
    let argv = args(&b);
    succeeds(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(csv, read(&b.join("summary.csv")));
    assert_eq!(cdf, read(&b.join("cdf.csv")));
}

/// `flashtail bench` runs each case in its own process and reports what the reference
/// workload did, how the binary was built and on what machine (timings mean little without
/// them).
#[test]
fn bench_reports_each_case_with_its_build_and_host() {
    let dir = scratch("bench");
    let json = dir.join("bench.json");
    let out = succeeds(&[
        "bench", "--requests", "2000", "--schemes", "base", "--oracle", "both", "--json", json.to_str().unwrap(),
    ]);
    assert!(out.contains("build: ") && out.contains("host: "), "{out}");
    let cases = read_json(&json).as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = cases.iter().filter_map(|c| c["case"].as_str()).collect();
    assert_eq!(names, ["base, oracle on", "base, oracle off"]);
    for c in &cases {
        assert_eq!(c["requests"], 2000, "{c}");
        assert!(c["events"].as_u64().is_some_and(|e| e >= 2000), "{c}");
        assert!(c["build"].as_str().is_some_and(|b| !b.is_empty()), "{c}");
        assert!(c["cpus"].as_u64().is_some_and(|n| n >= 1), "{c}");
        // Where /proc reports them (Linux), the CPU model and the load are recorded too.
        if std::path::Path::new("/proc/loadavg").exists() {
            assert!(c["load_avg_1min"].as_f64().is_some_and(|l| l >= 0.0), "{c}");
            assert!(c["cpu_model"].is_string() || c["cpu_model"].is_null(), "{c}");
        }
    }
    // Both cases replay the same requests on the same device: the oracle only checks.
    assert_eq!(cases[0]["events"], cases[1]["events"]);
    fails(&["bench", "--requests", "10", "--schemes", "no-such-scheme"], &["no-such-scheme"]);
}

/// `--repeat` runs the case list round after round, tags each run with its round, and
/// summarises each case; every round of a case simulates the same events.
#[test]
fn bench_repeat_runs_rounds_and_summarises_them() {
    let dir = scratch("bench-repeat");
    let json = dir.join("bench.json");
    let out = succeeds(&[
        "bench", "--requests", "1500", "--schemes", "base", "--oracle", "off", "--repeat", "3", "--json", json.to_str().unwrap(),
    ]);
    assert!(out.contains("summary over 3 rounds (fastest / median):"), "{out}");
    let summary = out.lines().skip_while(|l| !l.starts_with("summary over")).nth(2).unwrap_or_default();
    assert!(summary.starts_with("base, oracle off"), "{out}");
    let runs = read_json(&json).as_array().cloned().unwrap_or_default();
    let rounds: Vec<u64> = runs.iter().filter_map(|r| r["round"].as_u64()).collect();
    assert_eq!(rounds, [1, 2, 3]);
    assert!(runs.iter().all(|r| r["events"] == runs[0]["events"] && r["requests"] == 1500), "{runs:?}");
    fails(&["bench", "--requests", "10", "--repeat", "0"], &["--repeat"]);
    fails(&["bench", "--scaling", "--repeat", "2"], &["--repeat applies to the scheme cases"]);
}

/// `bench --side-by-side` times a whole `run` from a trace file and another command after
/// it, with the kernel's CPU seconds and peak memory for each, and the ratio.
#[cfg(unix)]
#[test]
fn bench_side_by_side_times_a_run_from_a_file_and_another_command() {
    let dir = scratch("bench-side");
    let trace = dir.join("t.trace");
    succeeds(&["gen", "--preset", "bench-ref", "--count", "3000", "--span-gib", "1", "--format", "mqsim", "-o", trace.to_str().unwrap()]);
    let json = dir.join("side.json");
    let out = succeeds(&[
        "bench", "--side-by-side", trace.to_str().unwrap(), "--format", "mqsim", "--device", "tiny", "--repeat", "2",
        "--against", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done", "--json", json.to_str().unwrap(),
    ]);
    assert!(out.contains("median of 2 rounds: CPU") && out.contains("less than the other command"), "{out}");
    assert!(out.contains("CPU ratio per round"), "{out}");
    let rows = read_json(&json).as_array().cloned().unwrap_or_default();
    // The pooled ratio is the sum of the other command's CPU over the sum of the runs'.
    let sum = |which: &str| rows.iter().filter(|r| r["command"] == which).filter_map(|r| r["cpu_seconds"].as_f64()).sum::<f64>();
    let pooled = format!("total CPU over the rounds: {:.1}× less ({:.2} s vs {:.2} s", sum("against") / sum("flashtail"), sum("flashtail"), sum("against"));
    assert!(out.contains(&pooled), "{pooled} in {out}");
    let cmds: Vec<&str> = rows.iter().filter_map(|r| r["command"].as_str()).collect();
    assert_eq!(cmds, ["flashtail", "against", "flashtail", "against"]);
    // Each round's ratio is the other command's CPU over the run's just before it.
    for pair in rows.chunks(2) {
        let want = pair[1]["cpu_seconds"].as_f64().unwrap() / pair[0]["cpu_seconds"].as_f64().unwrap();
        let got = pair[1]["cpu_ratio"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9 * want.max(1.0), "{got} vs {want}");
    }
    for r in &rows {
        // The shell loop and the run both burn CPU; the kernel counts it.
        assert!(r["cpu_seconds"].as_f64().is_some_and(|c| c > 0.0), "{r}");
        assert!(r["peak_rss_mib"].as_f64().is_some_and(|m| m > 0.5), "{r}");
        assert_eq!(r["exit_code"], 0, "{r}");
    }
    fails(&["bench", "--side-by-side", "no/such.trace"], &["no/such.trace", "not found"]);
    fails(&["bench", "--side-by-side", trace.to_str().unwrap(), "--schemes", "base,nogc"], &["one scheme"]);
}

/// A reader that stops early (`flashtail compare | head`) ends the output quietly, as with
/// any Unix filter: no panic, no backtrace.
#[cfg(unix)]
#[test]
fn closed_stdout_ends_the_process_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "2000", "--no-oracle"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start flashtail");
    // Read nothing: closing the pipe at once makes the first line's write fail.
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("read stderr");
    let status = child.wait().expect("wait");
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.success() || status.signal() == Some(13), "status {status:?}, stderr:\n{err}");
}

/// `wla-toy` prints the WLA-GC paper's §IV-A word-line model exactly (51.125 / 38.125,
/// 25.4 %) and the §IV-B pool emulation, with a gain of 0 at 100 % valid; bad parameters are
/// errors naming the field.
#[test]
fn wla_toy_gives_the_paper_model_and_a_correct_emulation() {
    let out = succeeds(&["wla-toy", "--blocks", "400", "--pages-per-block", "256", "--batches", "2"]);
    assert!(out.contains("mean: vanilla 51.125, wla 38.125, gain 25.4%"), "{out}");
    let pools = out.split("§IV-B").nth(1).expect("a pool section");
    let row = |pct: &str| pools.lines().find(|l| l.split_whitespace().next() == Some(pct)).map(str::to_owned);
    // The word-line table's first and last fill steps: 7 vs 3, then 84 vs 84.
    assert!(out.contains("     1      7.00      3.00   57.1%"), "{out}");
    let full = row("100").expect("a 100% row");
    assert!(full.contains(" 0.00%"), "{full}");
    let five = row("5").expect("a 5% row");
    let gain: f64 = five.split_whitespace().nth(3).and_then(|g| g.trim_end_matches('%').parse().ok()).expect("gain");
    assert!(gain > 0.0 && gain < 20.0, "{five}");
    fails(&["wla-toy", "--blocks", "0"], &["blocks"]);
    fails(&["wla-toy", "--pages-per-block", "100"], &["wla-toy: --pages-per-block (100) must be a multiple of bits x --pages-per-level"]);
    fails(&["wla-toy", "--layout", "sideways"], &["layout"]);
}

/// WLA-GC runs on a multi-level device and reports what its moves cost; `--victim wla` gives
/// the same rule to another scheme.
#[test]
fn wla_gc_runs_and_reports_gc_array_time_on_multi_level_cells() {
    let dir = scratch("wla");
    let json = dir.join("wla.json");
    let common = ["--device", "tiny", "--set", "geometry.bits_per_cell=4", "--set", "geometry.pages_per_level=2",
        "--set", "timing.read_ns=[50000,60000,70000,80000]", "--gen", "bench-ref", "--gen-count", "12000"];
    let mut args = vec!["run", "--scheme", "wla-gc", "--json", json.to_str().unwrap()];
    args.extend(common);
    let out = succeeds(&args);
    assert!(out.contains("0 violations"), "{out}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["config"]["scheme"]["victim"], "wla");
    let extra = &report["flash"]["extra"];
    assert!(extra["gc_read_ns"].as_u64().unwrap() > 0, "{extra}");
    assert!(extra["gc_move_ns_per_victim"].as_u64().unwrap() > 0, "{extra}");
    let mut args = vec!["run", "--scheme", "preemptive", "--victim", "wla"];
    args.extend(common);
    assert!(succeeds(&args).contains("0 violations"));
    // A word-line must divide the block: 32 pages are not whole word-lines of 4 x 3 pages.
    fails(&["run", "--device", "tiny", "--set", "geometry.bits_per_cell=4", "--set", "geometry.pages_per_level=3"], &["pages_per_block", "word-lines"]);
}

/// Venice and GC bypass run by name; `--interconnect` moves another scheme onto the mesh, the
/// mesh's parameters come from `--set`, and bad values name their field.
#[test]
fn venice_and_gc_bypass_run_and_report_the_mesh() {
    let dir = scratch("venice");
    let json = dir.join("gcb.json");
    let common = ["--device", "tiny", "--gen", "bench-ref", "--gen-count", "6000"];
    let mut args = vec!["run", "--scheme", "gc-bypass", "--set", "interconnect.hop_ns=5", "--json", json.to_str().unwrap()];
    args.extend(common);
    assert!(succeeds(&args).contains("0 violations"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["config"]["scheme"]["interconnect"], "gc-bypass");
    assert_eq!(report["config"]["device"]["interconnect"]["hop_ns"], 5);
    let extra = &report["flash"]["extra"];
    assert!(extra["mesh_transfers"].as_u64().unwrap() > 6000, "{extra}");
    assert!(extra["mesh_first_try_paths"].as_u64().unwrap() > 0, "{extra}");
    let json = dir.join("pre.json");
    let mut args = vec!["run", "--scheme", "preemptive", "--interconnect", "venice", "--json", json.to_str().unwrap()];
    args.extend(common);
    assert!(succeeds(&args).contains("0 violations"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["config"]["scheme"]["interconnect"], "venice");
    fails(&["run", "--device", "tiny", "--interconnect", "ring"], &["ring", "venice"]);
    fails(&["run", "--device", "tiny", "--scheme", "venice", "--set", "interconnect.max_visits=0"], &["interconnect.max_visits"]);
}
