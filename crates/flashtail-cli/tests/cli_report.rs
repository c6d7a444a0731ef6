//! The report-facing command line: `run --report` and `--figures` write what they say,
//! every output path is checked before any simulation, progress is printed when stderr is
//! not a terminal, and near-miss names get a suggestion. Runs use the `tiny` device and a
//! few thousand generated requests, so the file takes seconds.

mod support;
use std::process::Command;
use std::time::Instant;
use support::*;

const GEN: [&str; 6] = ["--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000"];

#[test]
fn run_json_to_a_missing_directory_fails_before_simulating() {
    let started = Instant::now();
    let err = fails_with(
        &["run", "--gen", "bench-ref", "--json", "/nonexistent-flashtail-dir/x.json"],
        &["--json /nonexistent-flashtail-dir/x.json", "does not exist"],
    );
    // The 1M-request reference workload takes many seconds; the check takes none.
    assert!(started.elapsed().as_secs() < 5, "took {:?}: {err}", started.elapsed());
    assert!(!err.contains("panicked"));
}

#[test]
fn run_report_writes_the_one_run_report_and_figures() {
    let dir = scratch_dir("cli-report", "run");
    let (rep, fig) = (dir.join("rep"), dir.join("fig"));
    let mut args = vec!["run", "--scheme", "base"];
    args.extend(GEN);
    args.extend(["--report", s(&rep), "--figures", s(&fig), "--no-cost"]);
    let out = succeeds_both(&args).0;
    assert!(out.contains("wrote 16 figure files"), "{out}");
    for f in ["summary.json", "summary.csv", "cdf.csv", "report.html"] {
        assert!(rep.join(f).is_file(), "{f} missing");
    }
    let html = read(&rep.join("report.html"));
    assert!(html.contains("<h1>flashtail: base on tiny</h1>"), "title");
    assert!(html.contains("<table class=\"sortable\">"));
    // One data row per op in the CSV, ending with the `thin` column.
    let csv = read(&rep.join("summary.csv"));
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.lines().next().unwrap().ends_with(",share_waited_on_gc,thin"));
    for name in ["cdf-reads", "tail-writes", "percentiles", "waits", "free-blocks-min-plane"] {
        let svg = read(&fig.join(format!("{name}.svg")));
        assert!(svg.starts_with("<svg"), "{name}.svg");
        let png = std::fs::read(fig.join(format!("{name}.png"))).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}.png");
    }
}

#[test]
fn progress_is_a_plain_periodic_line_when_not_a_terminal() {
    let dir = scratch_dir("cli-report", "progress");
    let out = Command::new(env!("CARGO_BIN_EXE_flashtail"))
        .args(["compare", "--schemes", "base,nogc", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "200000"])
        .args(["--out", s(&dir)])
        .env("FLASHTAIL_PROGRESS_EVERY", "0.05")
        .output()
        .expect("run flashtail");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let line = err.lines().find(|l| l.starts_with("progress: ")).unwrap_or_else(|| panic!("no progress line in {err}"));
    assert!(line.contains("runs finished") && line.contains("requests simulated"), "{line}");
}

#[test]
fn near_miss_names_get_a_suggestion() {
    fails_with(&["run", "--scheme", "ttfash"], &["did you mean 'ttflash'?"]);
    fails_with(&["run", "--device", "dtrs-dmeo"], &["did you mean 'dtrs-demo'?"]);
    let err = fails_with(&["run", "--set", "ftl.overprovisioning=0.1"], &["did you mean 'over_provisioning'?"]);
    // Every key of the section, optional ones included, as a plain list.
    assert!(err.contains("power_loss_protection") && err.contains("max_queued_writes") && !err.contains("[\""), "{err}");
    fails_with(&["gen", "--preset", "rlgc-hom1"], &["did you mean 'rlgc-home1'?"]);
}

#[test]
fn gen_preset_without_span_uses_the_default_devices_capacity() {
    let dir = scratch_dir("cli-report", "gen");
    let f = dir.join("t.txt");
    let (_, err) = succeeds_both(&["gen", "--preset", "rlgc-home1", "--count", "5", "-o", s(&f)]);
    assert!(err.contains("no --span-gib or --span given"), "{err}");
    assert_eq!(read(&f).lines().count(), 5);
}
