//! Same inputs and seed → byte-identical output files (with `--no-cost`).

use std::process::Command;

fn flashtail(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_flashtail")).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn compare_outputs_are_byte_identical_for_the_same_seed() {
    let dir = std::env::temp_dir().join(format!("flashtail-det-{}", std::process::id()));
    let (a, b) = (dir.join("a"), dir.join("b"));
    for d in [&a, &b] {
        flashtail(&[
            "compare", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "3000", "--schemes", "nogc,base,preemptive",
            "--no-cost", "--out", d.to_str().unwrap(),
        ]);
    }
    for f in ["summary.json", "summary.csv", "cdf.csv", "report.html"] {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(!x.is_empty());
        assert!(x == y, "{f} differs between identical runs");
    }
    let j1 = dir.join("r1.json");
    let j2 = dir.join("r2.json");
    for j in [&j1, &j2] {
        flashtail(&["run", "--device", "tiny", "--gen", "bench-ref", "--gen-count", "2000", "--scheme", "base", "--no-cost", "--json", j.to_str().unwrap()]);
    }
    assert_eq!(std::fs::read(&j1).unwrap(), std::fs::read(&j2).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// One host capacity per device: a scheme's report from `run` is the one it gets in any
/// `compare` set, RAIN schemes beside it or not (the device's capacity, not the set's).
#[test]
fn run_and_every_compare_set_agree_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("flashtail-cap-{}", std::process::id()));
    let dev = ["--device", "dtrs-demo", "--set", "geometry.blocks_per_plane=128", "--gen", "bench-ref", "--gen-count", "4000", "--no-cost"];
    let alone = dir.join("alone.json");
    let mut run = vec!["run", "--scheme", "base", "--json", alone.to_str().unwrap()];
    run.extend(dev);
    std::fs::create_dir_all(&dir).unwrap();
    flashtail(&run);
    let alone: serde_json::Value = serde_json::from_slice(&std::fs::read(&alone).unwrap()).unwrap();
    for set in ["nogc,base", "base,ttflash-rgc,ttflash", "ttflash-gtr,preemptive,base"] {
        let out = dir.join(set.replace(',', "-"));
        let mut cmp = vec!["compare", "--schemes", set, "--out", out.to_str().unwrap()];
        cmp.extend(dev);
        flashtail(&cmp);
        let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
        let base = summary["reports"].as_array().unwrap().iter().find(|r| r["scheme"] == "base").unwrap();
        assert!(*base == alone, "base differs between `run` and `compare --schemes {set}`");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
