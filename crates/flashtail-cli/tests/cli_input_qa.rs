//! End-to-end tests of what a QA pass over everything a user feeds flashtail found (trace
//! files, device files, `--set`, options): each test names the problem it pins down, and
//! asserts the exact message or number the fix gives. A run that silently replays less than
//! the trace (a `--volume` id with no requests, `--no-wrap` dropping most requests, `trace
//! stats` of an input with no requests) now says so; a forced blkparse format, a trace that
//! nearly fits a format, options given a bad whole number, `wla-toy` parameters and
//! `compare`'s output directory give an error naming the line, field or option, before any
//! output or run.
//!
//! Traces are a few synthetic lines written per test; runs use the `tiny` device.

mod support;
use std::path::PathBuf;
use support::*;

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    scratch_dir("cli-input-qa", name)
}

/// MQSim lines of volumes 0 and 1: `n` 4 KiB writes each, 1 ms apart, in the first 256 KiB.
fn two_volumes(n: u64) -> String {
    (0..2 * n).map(|i| format!("{} {} {} 8 0\n", i * 1_000_000, i % 2, (i % 64) * 8)).collect()
}

/// A `--volume` id that has no requests was passed over in silence (the run replayed the
/// other volumes only); it is a warning naming it, in the MAJOR:MINOR form for blkparse. A
/// volume listed twice is refused (with `--volume-stride` the list's order places them).
#[test]
fn volume_lists_warn_of_ids_without_requests_and_refuse_repeats() {
    let dir = scratch("volumes");
    let t = dir.join("two.mqsim");
    write(&t, two_volumes(50));
    let (out, err) = succeeds_both(&["run", "--device", "tiny", "--trace", s(&t), "--volume", "0,7,9"]);
    assert!(out.contains("  volumes_without_requests: 7, 9\n"), "{out}");
    assert!(out.contains("  replay_requests: 50\n"), "{out}");
    assert!(
        err.contains(&format!(
            "warning: {}: volumes 7, 9 of --volume have no requests in this trace (a typo?); only the other listed volumes were replayed\n",
            t.display()
        )),
        "{err}"
    );
    let (_, err) = succeeds_both(&["trace", "stats", s(&t), "--volume", "1,2"]);
    assert!(err.contains("volume 2 of --volume has no requests in this trace"), "{err}");
    // Every listed volume present: no warning.
    let (out, err) = succeeds_both(&["run", "--device", "tiny", "--trace", s(&t), "--volume", "1,0"]);
    assert!(!out.contains("volumes_without_requests") && !err.contains("warning"), "{out}\n{err}");

    let bp = dir.join("hadoop.txt");
    write(&bp, "  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]\n");
    let (_, err) = succeeds_both(&["run", "--device", "tiny", "--trace", s(&bp), "--volume", "8:16,8:17"]);
    assert!(err.contains("volume 8:17 of --volume has no requests"), "{err}");

    fails_with(&["run", "--device", "tiny", "--trace", s(&t), "--volume", "0,1,0"], &["invalid value '0,1,0' for '--volume <VOLUME>': volume '0' is listed twice"]);
}

/// `--no-wrap` on a trace that reaches beyond the device dropped 2 of 3 requests with only
/// a note among 25; it warns with the share the results leave out.
#[test]
fn no_wrap_warns_how_much_of_the_trace_it_dropped() {
    let dir = scratch("nowrap");
    let far = dir.join("far.mqsim");
    // One request inside the tiny device, two at 100 GiB.
    write(&far, "0 0 0 8 0\n500000 0 209715200 8 0\n1000000 0 209715200 8 1\n");
    let (out, err) = succeeds_both(&["run", "--device", "tiny", "--trace", s(&far), "--no-wrap"]);
    assert!(out.contains("1/1 requests completed"), "{out}");
    assert!(
        err.contains(&format!(
            "warning: {}: --no-wrap dropped 2 of 3 requests (66.7 %) that reach beyond the logical capacity (26841088 bytes); the results cover the other 1 only\n",
            far.display()
        )),
        "{err}"
    );
    // Wrapped (the default), nothing is dropped, and the share folded is said.
    let (_, err) = succeeds_both(&["run", "--device", "tiny", "--trace", s(&far)]);
    assert!(!err.contains("dropped"), "{err}");
    assert!(err.contains("warning: 66.7 % of the requests (2 of 3) reach beyond the device's host capacity (0.02 GiB) and were folded into it"), "{err}");
}

/// `trace stats` of an input without a request printed a table of zeros and exited 0 without
/// a word of why; the reader's reason is now a warning and a note.
#[test]
fn trace_stats_says_why_it_found_no_requests() {
    let dir = scratch("stats-empty");
    let header = dir.join("header.csv");
    write(&header, "Timestamp,Response,IOType,LUN,Offset,Size\n");
    let (out, err) = succeeds_both(&["trace", "stats", s(&header), "--format", "systor"]);
    assert!(out.starts_with("requests               0\n"), "{out}");
    assert!(out.contains("empty_reason           no requests: every line was skipped (1 line; the counts below say why)\n"), "{out}");
    assert!(err.starts_with(&format!("warning: {}: no requests: every line was skipped (1 line;", header.display())), "{err}");
    let t = dir.join("two.mqsim");
    write(&t, two_volumes(3));
    let (_, err) = succeeds_both(&["trace", "stats", s(&t), "--volume", "5"]);
    assert!(err.starts_with(&format!("warning: {}: volume 5 has no requests; volumes present: 0, 1\n", t.display())), "{err}");
    let (_, err) = succeeds_both(&["trace", "stats", s(&t)]);
    assert!(!err.contains("warning"), "{err}");
}

/// `--format blkparse` on a trace of another format skipped every line as a "blkparse summary
/// line" (silently, even under `--on-error stop`); it stops at line 1 on its field count, as
/// every other wrong `--format` does.
#[test]
fn forced_blkparse_on_another_format_stops_at_line_1() {
    let dir = scratch("blk-wrong");
    let t = dir.join("hm.csv");
    write(&t, msr_line(128166385295514663, "Write", 0, 4096) + &msr_line(128166385295524663, "Read", 0, 4096));
    let err = fails_with(&["run", "--device", "tiny", "--trace", s(&t), "--format", "blkparse"], &[]);
    assert_eq!(
        err,
        format!("error: workload: {}:1: field line: expected 'dev cpu seq time pid action rwbs ...', found 1 fields\n", t.display())
    );
}

/// `compare --schemes "base, nogc"` read the blank as part of the name ("unknown scheme
/// ' nogc'"); an output directory that cannot be made failed only after every run.
#[test]
fn compare_trims_scheme_names_and_checks_the_output_directory_first() {
    let dir = scratch("compare");
    let t = dir.join("two.mqsim");
    write(&t, two_volumes(20));
    let out = dir.join("out");
    let (stdout, _) = succeeds_both(&["compare", "--device", "tiny", "--trace", s(&t), "--schemes", "base, nogc", "--out", s(&out)]);
    assert!(stdout.contains(&format!("wrote {}", out.join("summary.json").display())), "{stdout}");
    let v = read_json(&out.join("summary.json"));
    assert_eq!(v["meta"]["config"]["schemes"], serde_json::json!(["base", "nogc"]));
    // A file where the directory should be: refused before the runs start.
    let file = dir.join("file");
    write(&file, "x");
    let o = flashtail(&["compare", "--device", "tiny", "--trace", s(&t), "--schemes", "base", "--out", s(&file.join("sub"))]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.starts_with(&format!("error: --out {}: cannot create the directory: ", file.join("sub").display())), "{err}");
    assert!(!err.contains("comparing 1 scheme"), "no run starts: {err}");
}

/// `wla-toy` printed its whole §IV-A table before refusing a bad §IV-B parameter, named by
/// its library field (`emulate: pick_fraction`); both models are checked first, and each
/// parameter is named by its option.
#[test]
fn wla_toy_checks_both_models_before_printing() {
    for (args, msg) in [
        (&["--pick-fraction", "1.5"][..], "error: wla-toy: --pick-fraction must be in (0, 1] (got 1.5)\n"),
        (&["--batches", "0"], "error: wla-toy: --batches must be at least 1\n"),
        (&["--blocks", "0"], "error: wla-toy: --blocks must be at least 1\n"),
        (&["--pages-per-level", "0"], "error: wla-toy: --pages-per-level must be at least 1\n"),
        (&["--pages-per-block", "6"], "error: wla-toy: --pages-per-block (6) must be a multiple of bits x --pages-per-level (4 x 4 = 16)\n"),
    ] {
        let o = flashtail(&[&["wla-toy"][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&o.stdout), "", "{args:?}: nothing printed before the error");
        assert_eq!(text(&o.stderr), msg, "{args:?}");
    }
}

/// Whole-number options answered `-1`, `1e3` or `x` with clap's bare "invalid digit found in
/// string"; they name the range.
#[test]
fn whole_number_options_name_their_range() {
    let max = u64::MAX;
    for (args, opt, v) in [
        (&["run", "--device", "tiny", "--seed", "-1"][..], "--seed <SEED>", "-1"),
        (&["run", "--device", "tiny", "--reorder-window", "1e3"], "--reorder-window <REORDER_WINDOW>", "1e3"),
        (&["gen", "--preset", "bench-ref", "--span-gib", "x"], "--span-gib <SPAN_GIB>", "x"),
        (&["trace", "show", "-n", "-1"], "--count <COUNT>", "-1"),
    ] {
        fails_with(args, &[&format!("invalid value '{v}' for '{opt}': '{v}' is not a whole number from 0 to {max}")]);
    }
    fails_with(&["wla-toy", "--pages-per-block", "-4"], &["'-4' is not a whole number from 0 to 4294967295"]);
}

/// Device settings: a zero page size or block count names the real minimum (it said "at least
/// 1", and 1 was then refused too); an override through a setting names the setting (it said
/// "not a section").
#[test]
fn device_setting_errors_name_the_real_minimum_and_the_setting() {
    fails_with(&["run", "--device", "tiny", "--set", "geometry.page_size=0"], &["error: device 'tiny' after --set overrides: geometry.page_size must be at least 512 (a multiple of 512 bytes), got 0"]);
    fails_with(&["run", "--device", "ttflash", "--set", "geometry.blocks_per_plane=0"], &["geometry.blocks_per_plane must be at least 8 (GC needs them), got 0"]);
    fails_with(&["run", "--device", "tiny", "--set", "geometry.channels.x=1"], &["error: override 'geometry.channels.x': 'geometry.channels' is a setting, not a section"]);
    fails_with(&["run", "--device", "tiny", "--set", "ftl..gc_reserved_blocks=1"], &["error: override 'ftl..gc_reserved_blocks': empty key part (a doubled, leading or trailing '.'?)"]);
}

/// A trace whose only line has a format's fields but one bad value failed detection with
/// "cannot detect the trace format from the first 1 lines" and nothing on what is wrong; the
/// error names the line, the nearest format (the extension's first) and the field.
#[test]
fn a_trace_that_nearly_fits_a_format_names_the_bad_field() {
    let dir = scratch("near-miss");
    let t = dir.join("one.mqsim");
    write(&t, "0 0 0 8 2\n");
    let err = fails_with(&["run", "--device", "tiny", "--trace", s(&t)], &[]);
    assert!(
        err.starts_with(&format!(
            "error: {}: cannot detect the trace format from the first 1 line; line 1 has the fields of the mqsim format, but field op: 2 is not an op code (1=read, 0=write); use --format (msr (MSR Cambridge CSV), ",
            t.display()
        )),
        "{err}"
    );
    // Nothing like any format: the plain message.
    let junk = dir.join("junk.txt");
    write(&junk, "1 2 3\n4 5 6\n");
    let err = fails_with(&["trace", "stats", s(&junk)], &[]);
    assert!(err.starts_with(&format!("error: {}: cannot detect the trace format from the first 2 lines; use --format (", junk.display())), "{err}");
}
