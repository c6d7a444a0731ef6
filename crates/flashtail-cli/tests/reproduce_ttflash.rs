//! `flashtail reproduce ttflash --quick`: the ttFlash experiment on the bundled DTRS slice
//! (seven runs of the 256 GB artifact device, about 30 s in release on 2 cores). It prints
//! the steps table, the paper's claims with one verdict line each, and the artifact's figures
//! beside flashtail's; the test checks the lines are there and the numbers are sane (it
//! does not pin verdicts that GC-scheduling work may move: docs/ttflash.md states them).

mod support;
use support::claims::*;
use support::*;

#[test]
fn ttflash_quick_prints_the_paper_and_the_artifact_beside_flashtail() {
    let out = scratch_dir("reproduce", "ttflash");
    let (stdout, _) = succeeds_both(&["reproduce", "ttflash", "--quick", "--out", out.to_str().unwrap()]);
    assert!(stdout.contains("not run: --quick: DTRS only"), "the quick run says what it leaves out:\n{stdout}");
    assert!(stdout.contains("== 1. The paper's claims") && stdout.contains("== 2. The artifact"), "{stdout}");
    for id in 1..=11 {
        assert!(stdout.lines().any(|l| l.starts_with('[') && l.contains(&format!("] T{id} "))), "no verdict line for T{id}:\n{stdout}");
    }
    assert!(stdout.contains("11 claims: "), "{stdout}");
    assert!(stdout.contains("[not measured] T11 "), "wear is not measured in a 300 s window:\n{stdout}");

    // The steps table: one row per step, NoGC's ratios 1.
    for step in ["NoGC", "Base", "+PBL", "+GTR", "+RGC", "ttFlash", "NoGC, no RAIN"] {
        assert!(stdout.lines().any(|l| l.starts_with("dtrs") && l.contains(&format!(" {step} "))), "no {step} row:\n{stdout}");
    }
    assert!(stdout.contains("1.00 / 1.00 / 1.00"), "{stdout}");

    // The paper's claims, numbers sane: Base's tail is GC-bound, ttFlash's near NoGC, the
    // price of parity a few tens of per cent, wear not measured.
    let cs = claims(&out);
    assert_eq!(cs.len(), 11);
    let base = ours(&cs, "T2");
    assert!((10.0..1000.0).contains(&base), "Base p99.99 / NoGC {base}");
    let tt = ours(&cs, "T3");
    assert!((0.9..3.0).contains(&tt), "ttFlash's worst tail / NoGC {tt} (within 3× NoGC)");
    let mean = ours(&cs, "T10");
    assert!((1.0..2.0).contains(&mean), "ttFlash mean read / NoGC without RAIN {mean}");
    let blocked = ours(&cs, "T6");
    assert!((0.005..0.5).contains(&blocked), "Base's share of I/Os blocked by GC {blocked}");
    assert!(claim(&cs, "T11")["ours"].is_null());

    // The artifact's figures beside flashtail's: NoGC's median agrees, the summary line.
    let nogc_p50 = stdout.lines().find(|l| l.contains("nogc") && l.contains("read p50")).expect("nogc read p50 row");
    assert!(nogc_p50.contains("347.4") && nogc_p50.ends_with("within 5 %"), "{nogc_p50}");
    let summary = stdout.lines().find(|l| l.starts_with("[artifact dtrs] ")).expect("artifact summary line");
    let within: usize = summary.split_whitespace().nth(2).and_then(|n| n.parse().ok()).expect("count");
    assert!(summary.contains(" of 24 checked figures") && within >= 12, "{summary}");

    // Report files: seven runs, every request completed, the order of the reports fixed.
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("dtrs/summary.json")).expect("dtrs summary")).expect("json");
    let reports = s["reports"].as_array().expect("reports");
    let schemes: Vec<&str> = reports.iter().map(|r| r["scheme"].as_str().unwrap()).collect();
    assert_eq!(schemes, ["ttflash", "base", "ttflash-pbl", "ttflash-gtr", "ttflash-rgc", "ttflash", "nogc"]);
    for r in reports {
        assert_eq!(r["integrity"]["requests_completed"], r["integrity"]["requests_submitted"]);
        assert_eq!(r["integrity"]["requests_submitted"], 127_043);
    }
    assert_eq!(reports[0]["flash"]["gc_runs"], 0, "NoGC reaches no GC threshold");
    assert!(reports[1]["flash"]["gc_runs"].as_u64().unwrap() > 100, "Base collects from the first writes");
    assert!(out.join("reproduce.txt").is_file());
}
