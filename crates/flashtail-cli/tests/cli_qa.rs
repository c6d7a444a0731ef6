//! End-to-end tests of the problems a user-acceptance pass of the command line found:
//! default scheme selection on fingerprinted workloads, WAF without host writes, what
//! "victims selected" (`gc_runs`) counts, error messages (GC reserve, preconditioning keys,
//! workload errors, doubled OS errors), and small things (duplicate schemes, plurals,
//! `--count 0`, negative numbers, tiny wait shares, the victim policy list), and the
//! power-loss options (`--power-loss-every`, `--power-cut-at`).
//!
//! Every run uses the `tiny` device, a short generated workload, a few-line trace or a
//! window of the bundled DTRS slice, so the file takes a few seconds.

mod support;
use support::*;
use std::path::{Path, PathBuf};

/// Runs a command that must fail cleanly; returns its stderr after checking that it
/// contains every `needle`.
fn fails(args: &[&str], needles: &[&str]) -> String {
    fails_with(args, needles)
}

/// Runs a command that must succeed; returns (stdout, stderr).
fn succeeds(args: &[&str]) -> (String, String) {
    succeeds_both(args)
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    scratch_dir("cli-qa", name)
}


/// The schemes a `compare` ran, from its summary.json.
fn compared_schemes(out: &Path) -> Vec<String> {
    let v = read_json(&out.join("summary.json"));
    v["meta"]["config"]["schemes"].as_array().expect("meta.config.schemes").iter().map(|x| x.as_str().unwrap_or("").to_string()).collect()
}

/// The cells of the row of `scheme` in the "Flash and GC" table, split on runs of 2+ spaces.
fn flash_row(table: &str, scheme: &str) -> Vec<String> {
    let flash = table.split("Flash and GC\n").nth(1).unwrap_or_else(|| panic!("no flash table:\n{table}"));
    let line = flash
        .lines()
        .find(|l| l.split_whitespace().next() == Some(scheme))
        .unwrap_or_else(|| panic!("no row {scheme}:\n{flash}"));
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(str::to_string).collect()
}

const CONTENT_AWARE: [&str; 3] = ["splitgc", "cagc", "dagc"];

// ----- 1. content-aware schemes in the default selection --------------------------------

/// `compare` without --schemes runs splitgc, cagc and dagc on fingerprinted writes with
/// duplicates (`--gen splitgc-*`, an FIU trace) and leaves them out, with a note, otherwise.
/// wla-gc's rule (more than one bit per cell) is unchanged: left out on `tiny`, and so
/// are the RAIN schemes, which need 3 channels.
#[test]
fn default_schemes_include_content_aware_ones_on_fingerprinted_workloads() {
    let dir = scratch("default-content");
    let note = |n: &str| format!("note: {n} left out (content-aware");
    // A generator with duplicate content.
    let out = dir.join("gen-splitgc");
    let (_, err) = succeeds(&["compare", "--device", "tiny", "--gen", "splitgc-webmail", "--gen-count", "300", "--no-cost", "--out", s(&out)]);
    let ran = compared_schemes(&out);
    for n in CONTENT_AWARE {
        assert!(ran.iter().any(|r| r == n), "{n} should run on --gen splitgc-webmail: {ran:?}\n{err}");
        assert!(!err.contains(&note(n)), "{err}");
    }
    assert!(err.contains("note: wla-gc left out (one bit per cell"), "{err}");
    assert!(!ran.iter().any(|r| r == "wla-gc"));
    // tiny has 2 channels: the RAIN schemes cannot run there (the default compare on tiny
    // used to fail with "scheme ttflash-gtr: invalid device: RAIN needs at least 3 channels").
    for n in ["ttflash-gtr", "ttflash-rgc", "ttflash"] {
        assert!(err.contains(&format!("note: {n} left out (RAIN parity needs at least 3 channels)")), "{err}");
    }
    assert_eq!(ran.len(), flashtail::gc::scheme_names().len() - 4, "{ran:?}");

    // The same workload as an FIU trace (fingerprints per block) is fingerprinted; as an
    // MQSim trace (no content column) it is not.
    for (format, content) in [("fiu", true), ("mqsim", false)] {
        let trace = dir.join(format!("webmail.{format}"));
        succeeds(&["gen", "--preset", "splitgc-webmail", "--count", "300", "--span-gib", "1", "--format", format, "-o", s(&trace)]);
        let out = dir.join(format!("trace-{format}"));
        let (_, err) = succeeds(&["compare", "--device", "tiny", "--trace", s(&trace), "--format", format, "--no-cost", "--out", s(&out)]);
        let ran = compared_schemes(&out);
        for n in CONTENT_AWARE {
            assert_eq!(ran.iter().any(|r| r == n), content, "{format}: {n} in {ran:?}\n{err}");
            assert_eq!(err.contains(&note(n)), !content, "{format}:\n{err}");
        }
    }

    // A generator whose writes are all unique (bench-ref): the schemes would be base plus
    // their scrub cost, so they stay out, each with its note.
    let out = dir.join("gen-bench");
    let (_, err) = succeeds(&["compare", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "300", "--no-cost", "--out", s(&out)]);
    let ran = compared_schemes(&out);
    for n in CONTENT_AWARE {
        assert!(!ran.iter().any(|r| r == n), "{ran:?}");
        assert!(err.contains(&format!("{}: this workload's writes carry no content fingerprints with duplicates to find", note(n))), "{err}");
    }
}

// ----- 2. WAF without host pages ---------------------------------------------------------

/// A read-only trace on the demo device at 512 blocks per plane, aged to 0.71 without
/// settling (`precondition.settle=false`: every plane starts below the GC threshold): GC erases 580 blocks but no host page is
/// programmed, so WAF has no denominator. The tables say `n/a` (was `0.000`); JSON keeps
/// `waf` 0 with `host_pages_programmed` 0, as docs/json.md states.
#[test]
fn waf_is_n_a_when_no_host_page_was_programmed() {
    let dir = scratch("waf-na");
    let trace = dir.join("reads.csv");
    let t0 = 128_166_372_003_061_629u64;
    let lines: String = (0..200u64).map(|i| msr_line(t0 + i * 10_000, "Read", i * 4096 * 37, 4096)).collect();
    write(&trace, &lines);
    let out = dir.join("out");
    let unsettled = [
        "--set",
        "geometry.blocks_per_plane=512",
        "--set",
        "ftl.rain_parity=\"spare\"",
        "--set",
        "precondition.model=aged",
        "--set",
        "precondition.ratio=0.71",
        "--set",
        "precondition.settle=false",
    ];
    let mut args = vec!["compare", "--trace", s(&trace), "--schemes", "base", "--no-cost", "--out", s(&out)];
    args.extend(unsettled);
    let (stdout, _) = succeeds(&args);
    let row = flash_row(&stdout, "base");
    assert_eq!(row[..4], ["base", "n/a", "580", "580"], "{stdout}");
    let v = read_json(&out.join("summary.json"));
    let f = &v["reports"][0]["flash"];
    assert_eq!(f["host_pages_programmed"], 0);
    assert_eq!(f["erases"], 580);
    assert_eq!(f["waf"], 0.0);
    // `run`'s summary line too.
    let mut args = vec!["run", "--trace", s(&trace), "--scheme", "base"];
    args.extend(unsettled);
    let (stdout, _) = succeeds(&args);
    assert!(stdout.contains("| erases 580 | victims selected 580 | WAF n/a\n"), "{stdout}");
    // With host writes the number stays.
    let (stdout, _) = succeeds(&["run", "--device", "tiny", "--scheme", "base", "--gen", "bench-ref", "--gen-count", "20000"]);
    assert!(stdout.contains("| erases 2936 | victims selected 2936 | WAF 2.871\n"), "{stdout}");
}

// ----- 3. what gc_runs counts ------------------------------------------------------------

/// `gc_runs` counts victims selected: each is chosen once and stays chosen until its erase,
/// so it exceeds `erases` by the victims partial GC left half moved at the end (at most one
/// per plane; `tiny` has 4), and equals it for blocking GC. The table and `run` summary
/// call it "victims selected" (was "GC runs", documented as "victim blocks reclaimed").
#[test]
fn gc_runs_are_victims_selected_and_exceed_erases_only_by_unfinished_victims() {
    let dir = scratch("gc-runs");
    let mut counts = Vec::new();
    for scheme in ["lazy-rtgc", "base"] {
        let json = dir.join(format!("{scheme}.json"));
        let (stdout, _) = succeeds(&["run", "--device", "tiny", "--scheme", scheme, "--gen", "bench-ref", "--gen-count", "20000", "--json", s(&json)]);
        assert!(stdout.contains("victims selected"), "{stdout}");
        assert!(!stdout.contains("GC runs"), "{stdout}");
        let f = read_json(&json)["flash"].clone();
        counts.push((f["erases"].as_u64().unwrap_or(0), f["gc_runs"].as_u64().unwrap_or(0)));
    }
    // Intensive GC starts at the device's hard threshold minus one (tiny's, not one block).
    assert_eq!(counts[0], (2440, 2441), "lazy-rtgc (erases, victims)");
    assert!(counts[0].1 - counts[0].0 <= 4, "at most one unfinished victim per plane");
    assert_eq!(counts[1].0, counts[1].1, "base finishes every victim it starts");
    let (stdout, _) = succeeds(&["compare", "--device", "tiny", "--schemes", "lazy-rtgc", "--gen", "bench-ref", "--gen-count", "20000", "--no-cost", "--out", s(&dir.join("c"))]);
    assert!(stdout.contains("  erases  victims selected  pages migrated"), "{stdout}");
    let help = text(&flashtail(&["compare", "--help"]).stdout);
    assert!(!help.contains("GC runs"), "{help}");
}

// ----- 4. error messages -----------------------------------------------------------------

/// A GC reserve too large for the plane is named as the field to change, with the largest
/// reserve that fits (it was reported as "over_provisioning 0.2 is too small"); an
/// over-provisioning too small for the default reserve is still named as such.
#[test]
fn a_too_large_gc_reserve_is_named_before_over_provisioning() {
    let err = fails(
        &["run", "--device", "tiny", "--set", "ftl.gc_reserved_blocks=100"],
        &["ftl.gc_reserved_blocks 100 is too large for ftl.over_provisioning 0.2", "100 reserved for GC", "64 blocks", "lower ftl.gc_reserved_blocks to at most 10"],
    );
    assert!(!err.contains("over_provisioning 0.2 is too small"), "{err}");
    fails(
        &["run", "--device", "tiny", "--set", "ftl.gc_reserved_blocks=10", "--set", "ftl.over_provisioning=0.1"],
        &["ftl.gc_reserved_blocks 10 is too large", "at most 4", "or raise ftl.over_provisioning to at least 0.188"],
    );
    fails(
        &["run", "--device", "tiny", "--set", "ftl.over_provisioning=0.02"],
        &["ftl.over_provisioning 0.02 is too small", "2 reserved for GC", "raise ftl.over_provisioning to at least 0.063"],
    );
}

/// A preconditioning key of another model is an error naming the active model, its keys
/// and how to switch (it was silently ignored under `none`, and a bare serde error under
/// `aged`); `precondition.model=...` switches models.
#[test]
fn precondition_keys_must_belong_to_the_active_model() {
    fails(
        &["run", "--device", "tiny", "--set", "precondition.ratio=1.5", "--gen", "bench-ref", "--gen-count", "10"],
        &["override 'precondition.ratio=1.5'", "preconditioning model is 'none', which has no keys", "'ratio' belongs to model 'aged'", "--set precondition.model=aged"],
    );
    fails(
        &["run", "--device", "dtrs-demo", "--set", "precondition.fill=0.5", "--gen", "bench-ref", "--gen-count", "10"],
        &["preconditioning model is 'workload', whose keys are occupancy, footprint, spread, free_blocks_margin", "'fill' belongs to model 'steady'", "--set precondition.model=steady"],
    );
    fails(
        &["run", "--device", "tiny", "--set", "precondition.fil=0.5"],
        &["unknown key 'fil'", "steady (fill, free_blocks_margin)", "aged (ratio, settle)"],
    );
    // Switching: tiny (none) aged at ratio 0.5 maps pages; the demo device (aged) turned
    // steady takes fill, and its ratio does not linger.
    let dir = scratch("precondition");
    let json = dir.join("aged.json");
    succeeds(&["run", "--device", "tiny", "--set", "precondition.model=aged", "--set", "precondition.ratio=0.5", "--gen", "bench-ref", "--gen-count", "10", "--json", s(&json)]);
    let v = read_json(&json);
    assert_eq!(v["config"]["device"]["precondition"], serde_json::json!({"model": "aged", "ratio": 0.5, "settle": true}));
    assert_eq!(v["config"]["precondition"]["mapped_pages"], 2014);
    let json = dir.join("none.json");
    succeeds(&["run", "--device", "bench-ref", "--set", "precondition.model=none", "--gen", "bench-ref", "--gen-count", "10", "--json", s(&json)]);
    let v = read_json(&json);
    assert_eq!(v["config"]["device"]["precondition"], serde_json::json!({"model": "none"}));
    assert_eq!(v["config"]["precondition"]["mapped_pages"], 0);
}

/// A malformed trace is the workload's fault: `compare` reports it once, without blaming
/// the first scheme (was `error: scheme base: workload: FILE:4: ...`).
#[test]
fn a_workload_error_is_reported_once_not_as_a_schemes() {
    let dir = scratch("workload-error");
    let path = dir.join("BAD.csv");
    let t0 = 128_166_385_295_514_663u64;
    let mut trace = msr_line(t0, "Write", 0, 4096);
    trace.push_str(&msr_line(t0 + 1000, "Write", 4096, 4096));
    trace.push_str(&msr_line(t0 + 2000, "Read", 0, 4096));
    trace.push_str(&format!("{},hm,0,Write,x,4096,100\n", t0 + 3000));
    write(&path, &trace);
    let out = dir.join("out");
    let expected = format!("error: workload: {}:4: field Offset", path.display());
    for schemes in [Some("base,nogc"), None] {
        let mut args = vec!["compare", "--device", "tiny", "--trace", s(&path), "--out", s(&out)];
        if let Some(sc) = schemes {
            args.extend(["--schemes", sc]);
        }
        let err = fails(&args, &[&expected]);
        assert_eq!(err.matches("error:").count(), 1, "{err}");
        assert!(!err.contains("scheme base"), "{err}");
    }
}

/// An OS error appears once (`... (os error 20)`), not again as the error's cause.
#[test]
fn an_os_error_is_printed_once() {
    let dir = scratch("os-error");
    let file = dir.join("a-file");
    write(&file, "x");
    let out = file.join("sub");
    let err = fails(
        &["compare", "--device", "tiny", "--schemes", "base", "--gen", "bench-ref", "--gen-count", "10", "--out", s(&out)],
        &[&format!("--out {}: cannot create the directory: ", out.display()), "(os error"],
    );
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
}

/// Device settings a probe of extremes found: a plane count beyond u32 panicked (division
/// by the wrapped count, 0), and a soft GC threshold at or below the host-write reserve
/// deadlocked threshold-driven GC, reported only as "simulation stalled". Partial GC starts
/// its intensive GC at the reserve itself and runs.
#[test]
fn extreme_device_settings_are_errors_naming_the_field() {
    let gen = ["--gen", "bench-ref", "--gen-count", "2000", "--no-cost"];
    let run = |sets: &[&str], scheme: &str| {
        let mut a = vec!["run", "--device", "tiny", "--scheme", scheme];
        for x in sets {
            a.extend(["--set", x]);
        }
        a.extend(gen);
        a.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let argv = run(&["geometry.channels=65536", "geometry.chips_per_channel=65536"], "base");
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    fails(&args, &["error: device 'tiny' after --set overrides: device has 8796093022208 pages; flashtail addresses at most 4294967294"]);
    let argv = run(&["ftl.gc_soft_threshold=0", "ftl.gc_hard_threshold=0"], "base");
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    fails(&args, &["error: invalid device: scheme 'base': ftl.gc_soft_threshold 0 (0 of 64 blocks) must be above ftl.gc_reserved_blocks 2: GC starts below the soft threshold, but host writes stop at 2 free blocks, so GC would never start (raise the threshold to more than 2 blocks, or lower ftl.gc_reserved_blocks)"]);
    let argv = run(&["ftl.gc_reserved_blocks=7"], "preemptive");
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    fails(&args, &["scheme 'preemptive': ftl.gc_soft_threshold 0.1 (7 of 64 blocks) must be above ftl.gc_reserved_blocks 7"]);
    let argv = run(&["ftl.gc_soft_threshold=0", "ftl.gc_hard_threshold=0"], "lazy-rtgc");
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let (out, _) = succeeds(&args);
    assert!(out.contains("| 2000/2000 requests completed"), "{out}");
    // A RAIN scheme on one channel: the generator failed on a 0-byte span before.
    let argv = run(&["geometry.channels=1"], "ttflash");
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let err = fails(&args, &["error: scheme ttflash: invalid device: RAIN needs at least 3 channels (got 1)"]);
    assert!(!err.contains("span_bytes"), "{err}");
}

// ----- 5. nits ---------------------------------------------------------------------------

#[test]
fn a_scheme_named_twice_is_rejected() {
    fails(
        &["compare", "--device", "tiny", "--schemes", "base,nogc,base", "--gen", "bench-ref", "--gen-count", "10"],
        &["scheme 'base' is named twice in --schemes"],
    );
}

#[test]
fn one_scheme_is_singular() {
    let dir = scratch("plural");
    let out = dir.join("out");
    let (stdout, stderr) = succeeds(&["compare", "--device", "tiny", "--schemes", "base", "--gen", "bench-ref", "--gen-count", "10", "--out", s(&out)]);
    assert!(stderr.contains("comparing 1 scheme on device 'tiny'"), "{stderr}");
    assert!(stdout.contains("\n1 scheme in "), "{stdout}");
    assert!(!stdout.contains("schemes") && !stderr.contains("1 schemes"), "{stdout}\n{stderr}");
    assert_eq!(read_json(&out.join("summary.json"))["meta"]["title"], "flashtail: 1 GC scheme on tiny");
    let (stdout, stderr) = succeeds(&["compare", "--device", "tiny", "--schemes", "base,nogc", "--gen", "bench-ref", "--gen-count", "10", "--out", s(&out)]);
    assert!(stderr.contains("comparing 2 schemes on device 'tiny'") && stdout.contains("\nall 2 schemes in "), "{stdout}\n{stderr}");
}

/// An empty workload is never what was meant: `gen --count 0` (wrote an empty trace and
/// exited 0), `--gen-count 0` and `count = 0` in a workload file are errors.
#[test]
fn a_request_count_of_zero_is_rejected() {
    let dir = scratch("count-zero");
    let trace = dir.join("empty.trace");
    fails(&["gen", "--preset", "bench-ref", "--count", "0", "--span-gib", "1", "-o", s(&trace)], &["'--count <COUNT>'", "must be at least 1 request, got 0"]);
    assert!(!trace.exists(), "no file is written");
    fails(&["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "0"], &["'--gen-count <GEN_COUNT>'", "must be at least 1 request, got 0"]);
    let cfg = dir.join("w.toml");
    let (toml, _) = succeeds(&["gen", "--preset", "bench-ref", "--print-config"]);
    let toml: String = toml.lines().map(|l| if l.starts_with("count = ") { "count = 0\n".to_string() } else { format!("{l}\n") }).collect();
    assert!(toml.contains("count = 0\n"), "{toml}");
    write(&cfg, &toml);
    fails(&["gen", "--config", s(&cfg), "--span-gib", "1"], &["workload config field `count`: must be at least 1"]);
}

/// A negative number reaches the option's own range check instead of clap's "unexpected
/// argument '-1'".
#[test]
fn negative_numbers_get_a_range_error() {
    let err = fails(&["run", "--device", "tiny", "--time-scale", "-1"], &["--time-scale", "time scale must be a number > 0, got '-1'"]);
    assert!(!err.contains("unexpected argument"), "{err}");
    fails(&["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "-5"], &["must be at least 1 request, got -5"]);
    fails(&["gen", "--preset", "bench-ref", "--count", "-5"], &["must be at least 1 request, got -5"]);
    let err = fails(&["run", "--device", "tiny", "--loops", "-1"], &["--loops", "-1"]);
    assert!(!err.contains("unexpected argument"), "{err}");
}

/// A share that rounds to 0.0 % but is not 0 shows its count, and 0.0 % means none: on the
/// bundled DTRS slice, 42 of 113,123 reads wait on GC under ttflash-rgc and 24 under ttflash:
/// reads arriving in the last tenth of a millisecond or so of an erase, where waiting for it
/// is expected to be sooner than a rebuild (the table said 0.0 % for both while a running
/// erase was counted twice in the GC time left).
#[test]
fn tiny_wait_shares_show_their_count() {
    let dir = scratch("tiny-share");
    let (stdout, _) = succeeds(&["compare", "--schemes", "ttflash-rgc,ttflash,nogc", "--no-cost", "--out", s(&dir.join("out"))]);
    let last2 = |scheme: &str| {
        let row = flash_row(&stdout, scheme);
        row[row.len() - 2..].to_vec()
    };
    assert_eq!(last2("ttflash-rgc"), ["1.5%", "<0.1% (42)"], "{stdout}");
    assert_eq!(last2("ttflash"), ["<0.1% (24)", "<0.1% (24)"], "{stdout}");
    assert_eq!(last2("nogc"), ["0.0%", "0.0%"], "{stdout}");
}

/// The victim policies the error for an unknown one lists are the ones `flashtail schemes`
/// describes and `--help` names (splitgc and dagc were only in the error).
#[test]
fn the_victim_policy_lists_agree() {
    let err = fails(&["run", "--device", "tiny", "--victim", "bogus", "--gen", "bench-ref", "--gen-count", "10"], &["unknown victim policy 'bogus' (known: "]);
    let known = err.split("(known: ").nth(1).and_then(|r| r.split(')').next()).unwrap_or_default().to_string();
    let names: Vec<&str> = known.split(", ").collect();
    assert_eq!(names, ["greedy", "cost-benefit", "fifo", "random", "d-choices[:D]", "wla", "splitgc", "dagc"]);
    let (schemes, _) = succeeds(&["schemes"]);
    assert!(schemes.contains(&format!("victim policies (--victim): {known} ")), "{schemes}");
    for n in &names {
        assert!(schemes.lines().any(|l| l.split_whitespace().next() == Some(n)), "{n} not described:\n{schemes}");
    }
    assert!(schemes.contains("splitgc's own rule") && schemes.contains("greedy under a scheme that tracks no content"), "{schemes}");
    for cmd in ["run", "compare"] {
        let help = text(&flashtail(&[cmd, "--help"]).stdout).split_whitespace().collect::<Vec<_>>().join(" ");
        let victim = help.split("--victim <VICTIM>").nth(1).and_then(|h| h.split(" --").next()).unwrap_or_default();
        for n in &names {
            assert!(victim.contains(n), "{cmd} --help: {n} missing:\n{victim}");
        }
    }
}

// ----- 6. flag extremes (QA pass of every subcommand's options) ----------------------------

/// An empty name in a scheme list is reported as such, with its position (`--schemes ,` said
/// "scheme '' is named twice", `base,` "unknown scheme ''").
#[test]
fn an_empty_scheme_name_is_a_list_typo() {
    let gen = ["compare", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "100"];
    for (list, pos) in [(",", "1 of 2"), ("base,", "2 of 2"), ("base,,nogc", "2 of 3"), ("", "1 of 1")] {
        let mut args = gen.to_vec();
        args.extend(["--schemes", list]);
        fails(&args, &[&format!("error: --schemes has an empty name at position {pos} (an empty list, or a doubled or trailing comma?)")]);
    }
    fails(&["bench", "--schemes", "base,", "--requests", "10"], &["error: --schemes has an empty name at position 2 of 2"]);
}

/// `bench` checks its sizes before printing anything or starting a child: `--requests 0`
/// failed inside the child ("case run:base:off failed: ..."), and `--precondition-tib 1e-9`
/// was reported there as "does not fit 32-bit page numbers".
#[test]
fn bench_checks_its_sizes_up_front() {
    let err = fails(&["bench", "--requests", "0"], &["'--requests <REQUESTS>': must be at least 1 request, got 0"]);
    assert!(!err.contains("case"), "{err}");
    let range = "must be from 0.000977 TiB (32 blocks per plane of the bench-ref geometry, the fewest it runs with) to 15.999969 TiB (32-bit page numbers with 4096 B pages)";
    for tib in ["1e-9", "0", "-1", "NaN", "1e9"] {
        let out = flashtail(&["bench", "--no-runs", "--precondition-tib", tib]);
        let err = text(&out.stderr);
        assert!(err.contains(&format!("invalid value '{tib}' for '--precondition-tib <TIB>': {range}")), "{tib}: {err}");
        assert!(text(&out.stdout).is_empty(), "{tib}: nothing runs");
    }
}

/// `wla-toy` bounds the emulation's work (`--batches 4294967295` ran for years): the product
/// of pool size, block size and batches is at most 25 times the paper's.
#[test]
fn wla_toy_bounds_its_work() {
    let out = flashtail(&["wla-toy", "--batches", "4294967295"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).is_empty());
    assert_eq!(
        text(&out.stderr),
        "error: --blocks x --pages-per-block x --batches is 20000 x 4096 x 4294967295 = 351843720806400000 pages per step; at most 1000000000000 (the paper's 1,000,000 x 4096 x 10 is 40,960,000,000)\n"
    );
    // The bound is on the product: a million blocks take 244 batches, not 245.
    fails(&["wla-toy", "--blocks", "1000000", "--batches", "245"], &["= 1003520000000 pages per step; at most 1000000000000"]);
}

/// A generated workload on a device whose capacity is not a multiple of 4 KiB (512 B pages)
/// spans the whole 4 KiB blocks of it; it was refused naming `span_bytes`, a field the user
/// never set.
#[test]
fn a_generated_workload_fits_a_device_with_small_pages() {
    let (stdout, _) = succeeds(&["run", "--device", "tiny", "--set", "geometry.page_size=512", "--gen", "bench-ref", "--gen-count", "500"]);
    // tiny at 512 B pages: 3,355,136 bytes of host capacity, 3,354,624 of them in whole 4 KiB blocks.
    assert!(stdout.contains("span 3354624 B"), "{stdout}");
    assert!(stdout.contains("| 0 violations | 500/500 requests completed"), "{stdout}");
}

/// `--power-loss-every N` audits a power loss after every N-th request: the report counts
/// the audits; what the audit does not cover, and N = 0, are refused with a reason.
#[test]
fn power_loss_audits_from_the_command_line() {
    let dir = scratch("power-loss");
    let json = dir.join("run.json");
    let base = ["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000"];
    let mut args = base.to_vec();
    args.extend(["--power-loss-every", "100", "--set", "ftl.power_loss_protection=false", "--json", json.to_str().expect("utf-8 path")]);
    succeeds(&args);
    let v = read_json(&json);
    assert_eq!(v["flash"]["extra"]["power_loss_audits"], 30);
    assert!(v["flash"]["extra"]["power_loss_unacked_pages"].as_u64().expect("a count") > 0);
    assert_eq!(v["integrity"]["violations"], 0);
    let mut args = base.to_vec();
    args.extend(["--power-loss-every", "0"]);
    fails(&args, &["--power-loss-every", "0"]);
    let mut args = base.to_vec();
    args.extend(["--power-loss-every", "10", "--scheme", "splitgc", "--set", "ftl.power_loss_protection=false"]);
    fails(&args, &["content-aware", "supercapacitor"]);
    let mut args = base.to_vec();
    args.extend(["--power-loss-every", "10", "--no-oracle"]);
    fails(&args, &["oracle"]);
}

/// `--power-cut-at N[,N...]` enacts power cuts on `run` and `compare`: the report and the
/// printed summary carry the new keys; a scheme the cut does not cover, a repeated N, N = 0
/// and a cut the workload ends before are refused with the reason.
#[test]
fn power_cuts_from_the_command_line() {
    let dir = scratch("power-cut");
    let json = dir.join("run.json");
    let base = ["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000"];
    let mut args = base.to_vec();
    args.extend(["--power-cut-at", "1000,2000", "--json", json.to_str().expect("utf-8 path")]);
    let (stdout, _) = succeeds(&args);
    for line in ["  power_cuts: 2\n", "  power_cut_recovery_ns: 68800000\n", "  power_cut_reissued_requests: 0\n", "  power_cut_unacked_pages: 0\n"] {
        assert!(stdout.contains(line), "{line:?} in {stdout}");
    }
    assert!(stdout.contains("| 0 violations | 3000/3000 requests completed"), "{stdout}");
    let v = read_json(&json);
    let extra = &v["flash"]["extra"];
    assert_eq!(extra["power_cuts"], 2);
    // The fullest plane's spare-area scans, at 50 µs a page: 1,376 pages over the two cuts.
    assert_eq!(extra["power_cut_recovery_ns"], 68_800_000);
    assert_eq!(extra["power_cut_padded_pages"], 101);
    assert!(extra.get("power_loss_audits").is_none(), "no audit was asked for");
    assert_eq!(v["integrity"]["violations"], 0);
    // compare: every scheme is cut.
    let out = dir.join("compare");
    succeeds(&["compare", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000", "--schemes", "base,lazy-rtgc", "--power-cut-at", "1500", "--out", out.to_str().expect("utf-8 path")]);
    let v = read_json(&out.join("summary.json"));
    let reports = v["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 2);
    for r in reports {
        assert_eq!(r["flash"]["extra"]["power_cuts"], 1, "{}", r["scheme"]);
    }
    // compare's default set would leave out, with a note each, the schemes a cut is not
    // enacted under; every scheme of it is covered (four channels, so that the RAIN schemes
    // run).
    let out = dir.join("compare-default");
    let (_, stderr) = succeeds(&["compare", "--device", "tiny", "--set", "geometry.channels=4", "--gen", "bench-ref", "--gen-count", "3000", "--power-cut-at", "1500", "--out", out.to_str().expect("utf-8 path")]);
    assert!(!stderr.contains("(--power-cut-at: "), "{stderr}");
    let all = ["nogc", "base", "preemptive", "ttflash-pbl", "ttflash-gtr", "ttflash-rgc", "ttflash", "venice", "gc-bypass", "lazy-rtgc", "rlgc", "rlgc-aggressive", "idle-ma", "idle-es"];
    assert_eq!(compared_schemes(&out), all);
    let v = read_json(&out.join("summary.json"));
    for r in v["reports"].as_array().expect("reports") {
        assert_eq!((r["flash"]["extra"]["power_cuts"].as_u64(), r["integrity"]["violations"].as_u64()), (Some(1), Some(0)), "{}", r["scheme"]);
    }
    // Without power-loss protection NoGC is left out (its instant erases ignore the pages a
    // torn program still needs), not the whole comparison failed; with the DRAM write buffer
    // every scheme is, which is an error.
    let out = dir.join("compare-unprotected");
    let (_, stderr) = succeeds(&["compare", "--device", "tiny", "--set", "ftl.power_loss_protection=false", "--gen", "bench-ref", "--gen-count", "3000", "--power-cut-at", "1500", "--out", out.to_str().expect("utf-8 path")]);
    assert!(stderr.contains("note: nogc left out (--power-cut-at: scheme 'nogc' reclaims blocks instantly"), "{stderr}");
    assert_eq!(compared_schemes(&out), ["base", "preemptive", "ttflash-pbl", "venice", "gc-bypass", "lazy-rtgc", "rlgc", "rlgc-aggressive", "idle-ma", "idle-es"]);
    let out = dir.join("compare-none");
    fails(
        &["compare", "--device", "tiny", "--set", "buffer.enabled=true", "--set", "buffer.capacity_pages=64", "--gen", "bench-ref", "--gen-count", "3000", "--power-cut-at", "1500", "--out", out.to_str().expect("utf-8 path")],
        &["note: base left out (--power-cut-at: power cuts do not cover the DRAM write buffer", "no scheme left to compare: every scheme of the default set was left out"],
    );
    let mut args = base.to_vec();
    args.extend(["--set", "buffer.enabled=true", "--set", "buffer.capacity_pages=64", "--power-cut-at", "10"]);
    fails(&args, &["power cuts do not cover the DRAM write buffer (buffer.enabled) without ttFlash's flush"]);
    // The content-aware schemes are cut (their tables survive: the key says how many pages
    // came back mapped to a content).
    let mut args = base.to_vec();
    args.extend(["--power-cut-at", "1000,2000", "--scheme", "splitgc"]);
    let (stdout, _) = succeeds(&args);
    assert!(stdout.contains("  power_cuts: 2\n") && stdout.contains("  power_cut_shared_pages: "), "{stdout}");
    let mut args = base.to_vec();
    args.extend(["--power-cut-at", "10,10"]);
    fails(&args, &["--power-cut-at lists request 10 twice"]);
    let mut args = base.to_vec();
    args.extend(["--power-cut-at", "0"]);
    fails(&args, &["--power-cut-at", "0"]);
    let mut args = base.to_vec();
    args.extend(["--power-cut-at", "3000"]);
    fails(&args, &["workload: request 3000 (the last): --power-cut-at 3000: the workload ended after 3000 requests"]);
    let mut args = base.to_vec();
    args.extend(["--power-cut-at", "10", "--no-oracle"]);
    fails(&args, &["power cuts check versions", "oracle"]);
}
