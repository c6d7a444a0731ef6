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
