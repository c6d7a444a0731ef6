//! `flashtail reproduce PAPER --quick`: the RL-GC and SplitGC reproductions end to end. Each
//! prints the paper-vs-flashtail table and one verdict line per claim, and writes
//! `claims.json`, `reproduce.txt` and report files per cell. The tests pin the verdicts that
//! the docs state (docs/rlgc.md, docs/splitgc.md) and check that the numbers are sane; they
//! take about 20-40 s each in release.

mod support;
use support::*;

fn verdict<'a>(cs: &'a [serde_json::Value], id: &str) -> &'a str {
    claim(cs, id)["verdict"].as_str().expect("verdict")
}

/// Every cell directory's summary.json: (scheme, report) pairs.
fn summaries(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("out dir") {
        let p = e.expect("entry").path().join("summary.json");
        if p.is_file() {
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
            out.extend(v["reports"].as_array().expect("reports").iter().cloned());
        }
    }
    out
}

#[test]
fn rlgc_quick_prints_the_paper_beside_flashtail_with_verdicts() {
    let out = scratch_dir("reproduce", "rlgc");
    let (stdout, _) = succeeds_both(&["reproduce", "rlgc", "--quick", "--out", out.to_str().unwrap()]);
    assert!(stdout.contains("== Empty start (the paper's setup)"), "{stdout}");
    assert!(stdout.contains("== Paper vs flashtail"), "{stdout}");
    for id in 1..=10 {
        assert!(stdout.lines().any(|l| l.starts_with('[') && l.contains(&format!("] R{id} "))), "no verdict line for R{id}:\n{stdout}");
    }
    assert!(stdout.contains("10 claims: "), "{stdout}");
    let cs = claims(&out);
    assert_eq!(cs.len(), 10);
    // From an empty device (the paper's setup) Lazy-RTGC keeps up and RL-GC's large tasks
    // only add tail: RL-GC (∝Q, as the paper ran it) is worse at write p99.99 on 512 Gb
    // home1, and the aggressive variant is no better on 128 Gb; both are stated as not
    // reproduced in docs/rlgc.md.
    let r1 = ours(&cs, "R1");
    assert!((1.5..5.0).contains(&r1), "R1 {r1}");
    assert_eq!(verdict(&cs, "R1"), "not_reproduced");
    let r7 = ours(&cs, "R7");
    assert!((0.9..2.0).contains(&r7), "R7 {r7}");
    assert_eq!(verdict(&cs, "R7"), "not_reproduced");
    // p99 is unmoved by the rare long tasks: the paper's 0.92 holds.
    let r3 = ours(&cs, "R3");
    assert!((0.8..1.05).contains(&r3), "R3 {r3}");
    // Early GC costs erases (more free blocks held), within the paper's ±10 % or a little
    // beyond.
    let r8 = ours(&cs, "R8");
    assert!((1.0..1.6).contains(&r8), "R8 {r8}");
    // oltp saturates the device: no scheme changes its tail.
    assert_eq!(verdict(&cs, "R9"), "reproduced");
    assert_eq!(verdict(&cs, "R10"), "not_measured");
    // Sanity of every run: the device filled (GC ran), every request completed, and no
    // scheme is flagged for postponing its GC.
    let reports = summaries(&out);
    assert_eq!(reports.len(), 16, "2 devices x 2 workloads x 4 schemes");
    for r in &reports {
        assert!(r["flash"]["erases"].as_u64().unwrap() > 100, "{} did too little GC", r["scheme"]);
        assert_eq!(r["integrity"]["requests_submitted"], r["integrity"]["requests_completed"]);
        assert!(r.get("no_gc_in_window").is_none(), "{}", r["scheme"]);
        assert!(r["writes"]["p99_99_ns"].as_u64().unwrap() >= r["writes"]["p99_ns"].as_u64().unwrap());
    }
    assert!(out.join("reproduce.txt").is_file());
}

#[test]
fn splitgc_quick_prints_the_paper_beside_flashtail_with_verdicts() {
    let out = scratch_dir("reproduce", "splitgc");
    let (stdout, _) = succeeds_both(&["reproduce", "splitgc", "--quick", "--out", out.to_str().unwrap()]);
    for id in 1..=16 {
        assert!(stdout.lines().any(|l| l.starts_with('[') && l.contains(&format!("] S{id} "))), "no verdict line for S{id}:\n{stdout}");
    }
    let cs = claims(&out);
    assert_eq!(cs.len(), 16);
    // The tail claims hold from the same fingerprinted fill (S1-S3), the migration claims
    // do not in magnitude: SplitGC picks fuller victims, and against CAGC (which writes one
    // copy per content) it migrates several times more.
    for id in ["S1", "S2", "S3"] {
        let v = ours(&cs, id);
        assert!((0.1..0.95).contains(&v), "{id} {v}");
        assert_eq!(verdict(&cs, id), "reproduced", "{id}");
    }
    let s11 = ours(&cs, "S11");
    assert!((0.5..1.2).contains(&s11), "S11 {s11}");
    let s13 = ours(&cs, "S13");
    assert!(s13 > 2.0, "S13 {s13}");
    assert_eq!(verdict(&cs, "S13"), "not_reproduced");
    assert_eq!(verdict(&cs, "S14"), "not_measured");
    // Every read of every content-aware run returned the newest data, and GC ran.
    let reports = summaries(&out);
    assert_eq!(reports.len(), 8);
    for r in &reports {
        assert_eq!(r["integrity"]["violations"], 0, "{}", r["scheme"]);
        assert!(r["flash"]["erases"].as_u64().unwrap() > 50, "{}", r["scheme"]);
    }
}

#[test]
fn an_unknown_paper_or_missing_trace_dir_fails_cleanly() {
    fails_with(&["reproduce", "ttflash-nope", "--quick"], &["unknown paper 'ttflash-nope'", "rlgc", "splitgc"]);
    fails_with(&["reproduce", "rlgc", "--quick", "--trace-dir", "/nonexistent/traces"], &["--trace-dir", "not a directory"]);
    let (list, _) = succeeds_both(&["reproduce", "--list"]);
    assert!(list.contains("rlgc") && list.contains("splitgc") && list.contains("--quick"), "{list}");
}
