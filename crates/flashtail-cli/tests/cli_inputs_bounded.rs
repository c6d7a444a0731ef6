//! Every input bounded and never misread: one regression test per failure of the stress pass,
//! each run exactly as it was reported (a hang, an abort, a silent misread), plus the
//! plausibility warnings and `--strict`. Small synthetic traces per test; the DTRS case
//! reads the shared slice when it is there.

mod support;
use std::path::PathBuf;
use support::*;

fn scratch(name: &str) -> PathBuf {
    scratch_dir("cli-inputs-bounded", name)
}

fn dtrs() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces/ms-production/dtrs-127k.ascii"));
    p.is_file().then_some(p)
}

/// `run --device tiny --scheme splitgc:period_ms=0 ...` looped forever (the next scrub pass
/// at the same instant); period_ms and the other knobs are range-checked, naming the bound.
#[test]
fn scheme_parameters_are_range_checked() {
    let gen = ["--gen", "splitgc-webmail", "--gen-count", "2"];
    for (scheme, bound) in [
        ("splitgc:period_ms=0", "period_ms = '0' is not an integer from 1 to 1000000000000"),
        ("splitgc:bloom_bits=1e300", "at most 64"),
        ("rlgc:reward_window=4294967295", "from 1 to 1000000"),
        ("rlgc:max_copies=4294967295", "from 1 to 4096"),
        ("rlgc:max_copies=20000000", "from 1 to 4096"),
    ] {
        let mut args = vec!["run", "--device", "tiny", "--scheme", scheme];
        args.extend(gen);
        fails_with(&args, &[bound]);
    }
    let mut args = vec!["run", "--device", "tiny", "--victim", "d-choices:4294967295"];
    args.extend(gen);
    fails_with(&args, &["d must be an integer from 1 to 65536"]);
}

/// Replay options were silently ignored with `--gen`.
#[test]
fn replay_options_with_gen_are_an_error() {
    let err = fails_with(
        &["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "10", "--time-scale", "2", "--loops", "3", "--no-wrap"],
        &["--time-scale, --loops, --no-wrap apply to a trace, not to a generated workload (--gen bench-ref)"],
    );
    assert!(!err.contains("--window"), "{err}");
    fails_with(&["compare", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "10", "--window", "0:1"], &["--window applies to a trace"]);
}

/// Lone `\r` line endings: 60 records read as 1 (exit 0, 59 lost, a "salvaged" note).
#[test]
fn cr_only_line_endings_read_every_record() {
    let d = scratch("cr");
    let p = d.join("mac.mqsim");
    let t: String = (0..60).map(|i| format!("{} 0 {} 8 1\r", i * 1000, i * 8)).collect();
    write(&p, t);
    let (out, _) = succeeds_both(&["trace", "stats", s(&p)]);
    assert!(out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["requests", "60"]), "{out}");
    assert!(!out.contains("salvaged_after_binary  1"), "{out}");
}

/// A timestamp of 2^64 saturated silently to u64::MAX in the ascii layouts.
#[test]
fn a_timestamp_past_2_64_is_an_error() {
    let d = scratch("t64");
    let p = d.join("late.mqsim");
    write(&p, "0 0 0 8 1\n18446744073709551616 0 8 8 1\n");
    fails_with(&["trace", "stats", s(&p)], &["late.mqsim:2: field time:", "2^64"]);
    fails_with(&["run", "--device", "tiny", "--scheme", "splitgc", "--trace", s(&p)], &["late.mqsim:2: field time:"]);
}

/// splitgc on a trace with a 10^7 s gap hung (the scrub cost events per idle second); now
/// the scrub parks after a write-free cycle and the run ends at once.
#[test]
fn splitgc_over_a_huge_idle_gap_finishes() {
    let d = scratch("gap");
    let p = d.join("gap.fiu");
    let mut t = String::new();
    for i in 0..40u64 {
        let ts = if i < 20 { i * 1_000_000 } else { 10_000_000_000_000_000 + i * 1_000_000 };
        t.push_str(&format!("{ts} 1 p {} 8 W 6 0 {:016x}{:016x}\n", (i % 8) * 8, 1 + i % 4, 0));
    }
    write(&p, t);
    let j = d.join("r.json");
    let started = std::time::Instant::now();
    succeeds_both(&["run", "--device", "tiny", "--scheme", "splitgc", "--trace", s(&p), "--json", s(&j)]);
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    let v = read_json(&j);
    let extra = &v["flash"]["extra"];
    assert!(extra["scrub_passes_parked"].as_u64().is_some_and(|n| n >= 1), "{extra}");
    // The default cycle is 10 passes: at most two cycles of passes ran over the gap.
    assert!(extra["scrub_passes_done"].as_u64().is_some_and(|n| n <= 20), "{extra}");
}

/// A valid but huge device aborted on allocation with no estimate up front.
#[test]
fn a_huge_device_is_refused_by_its_memory_estimate() {
    fails_with(
        &["run", "--device", "ttflash", "--scheme", "ttflash", "--set", "geometry.blocks_per_plane=65535", "--max-memory", "16G", "--gen", "bench-ref", "--gen-count", "10"],
        &["needs about 18.0 GiB of memory", "more than the limit of 16.0 GiB", "--max-memory"],
    );
}

/// `buffer.capacity_pages` was ignored unless `buffer.enabled` (by ttFlash's stripe buffer
/// too), and a 64 MiB stripe buffer on a small device (tiny with the 4 channels RAIN needs) let a run pass without touching
/// flash: both are named.
#[test]
fn buffer_settings_that_do_nothing_are_named() {
    let (_, err) = succeeds_both(&["run", "--device", "tiny", "--set", "geometry.channels=4", "--scheme", "ttflash", "--gen", "bench-ref", "--gen-count", "10"]);
    assert!(err.contains("ttFlash's stripe buffer holds 16384 pages, as many as the device's whole host capacity"), "{err}");
    let (_, err) = succeeds_both(&["run", "--device", "tiny", "--scheme", "base", "--set", "buffer.capacity_pages=64", "--gen", "bench-ref", "--gen-count", "10"]);
    assert!(err.contains("buffer.capacity_pages = 64 is ignored: buffer.enabled is false"), "{err}");
    let j = scratch("buf").join("r.json");
    let (_, err) = succeeds_both(&["run", "--device", "tiny", "--set", "geometry.channels=4", "--scheme", "ttflash", "--set", "buffer.capacity_pages=64", "--gen", "bench-ref", "--gen-count", "10", "--json", s(&j)]);
    assert!(!err.contains("stripe buffer holds"), "{err}");
    assert_eq!(read_json(&j)["flash"]["extra"]["flush_buffer_pages"], 64);
}

fn linnos_lines(n: u64) -> String {
    (0..n).map(|i| format!("{}.{:03} 0 {} 4096 {}\n", i / 2, (i % 2) * 500, i * 4096 * 7, i % 2)).collect()
}

/// The LinnOS/Heimdall/FlashNet byte layout was read as flashsim (sizes x 4096): 112
/// requests became 722,432 host pages. Now detected; forced as ssdsim, a warning names the
/// byte layout, and --strict refuses.
#[test]
fn byte_unit_traces_are_not_multiplied() {
    let d = scratch("linnos");
    let p = d.join("win.trace");
    write(&p, linnos_lines(112));
    let (out, err) = succeeds_both(&["trace", "stats", s(&p)]);
    assert!(out.contains("format                 linnos"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("writes") && l.contains("224.0 KiB")), "{out}");
    assert!(!err.contains("warning"), "{err}");
    let (_, err) = succeeds_both(&["trace", "stats", "--format", "ssdsim", s(&p)]);
    assert!(err.contains("they look like bytes") && err.contains("--format linnos"), "{err}");
    fails_with(&["trace", "stats", "--format", "mqsim", "--strict", s(&p)], &["refused under --strict: 1 plausibility warning (unit"]);
    fails_with(&["run", "--device", "tiny", "--format", "mqsim", "--strict", "--trace", s(&p)], &["refused under --strict"]);
}

/// The DTRS slice read without `--time-unit 0.01` became a 30,000 s trace at 4.2
/// requests/s, silently.
#[test]
fn dtrs_without_its_time_unit_warns_and_strict_refuses() {
    let Some(p) = dtrs() else { return };
    let (_, err) = succeeds_both(&["trace", "stats", s(&p)]);
    assert!(err.contains("4.2 requests/s") && err.contains("--time-unit 0.01"), "{err}");
    let (_, err) = succeeds_both(&["trace", "stats", "--time-unit", "0.01", s(&p)]);
    assert!(!err.contains("warning"), "{err}");
    fails_with(&["trace", "stats", "--strict", s(&p)], &["refused under --strict", "time_unit"]);
    fails_with(&["run", "--device", "tiny", "--strict", "--trace", s(&p)], &["--time-unit 0.01", "refused under --strict"]);
}

/// Sizes in tens of MiB and a span of days for a few thousand requests are named too.
#[test]
fn implausible_sizes_and_spans_warn() {
    let d = scratch("implausible");
    let big = d.join("big.csv");
    let t: String = (0..50u64).map(|i| msr_line(128166385295514663 + i * 10_000_000, "Read", i << 26, 32 << 20)).collect();
    write(&big, t);
    let (_, err) = succeeds_both(&["trace", "stats", s(&big)]);
    assert!(err.contains("half of 50 requests are 32 MiB or larger"), "{err}");
    assert!(err.contains("than the msr format assumes"), "{err}");
    // `run` checks the input in the pass that notes its footprint: the same warning, with
    // the format named (that pass once lost the reader's notes and said "the this format").
    let (_, err) = succeeds_both(&["run", "--device", "tiny", "--trace", s(&big)]);
    assert!(err.contains("half of 50 requests are") && err.contains("than the msr format assumes"), "{err}");
    let slow = d.join("slow.csv");
    let t: String = (0..3000u64).map(|i| msr_line(128166385295514663 + i * 1_000_000_000, "Write", i * 4096, 4096)).collect();
    write(&slow, t);
    let (_, err) = succeeds_both(&["trace", "stats", s(&slow)]);
    assert!(err.contains("3000 requests span 3.5 days"), "{err}");
}

