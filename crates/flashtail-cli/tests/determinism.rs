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

/// A trace read once into memory and replayed from there gives the same reports as one
/// parsed from its file for every pass and scheme (`--input-memory 0`), on the bundled
/// slice (with a workload footprint) and on a generator.
#[test]
fn an_input_replayed_from_memory_gives_the_same_bytes_as_one_read_each_time() {
    let dir = std::env::temp_dir().join(format!("flashtail-mem-{}", std::process::id()));
    for (i, input) in [vec!["--window", ":60"], vec!["--gen", "bench-ref", "--gen-count", "3000"]].iter().enumerate() {
        let mut outs = Vec::new();
        for mem in ["256M", "0"] {
            let out = dir.join(format!("{i}-{mem}"));
            let mut args = vec!["compare", "--device", "tiny", "--schemes", "nogc,base", "--no-cost", "--input-memory", mem, "--out", out.to_str().unwrap()];
            args.extend(input.iter().copied());
            flashtail(&args);
            let json = out.join("run.json");
            let mut run = vec!["run", "--device", "tiny", "--scheme", "base", "--no-cost", "--input-memory", mem, "--json", json.to_str().unwrap()];
            run.extend(input.iter().copied());
            flashtail(&run);
            outs.push(out);
        }
        for f in ["summary.json", "summary.csv", "cdf.csv", "run.json"] {
            let (x, y) = (std::fs::read(outs[0].join(f)).unwrap(), std::fs::read(outs[1].join(f)).unwrap());
            assert!(!x.is_empty() && x == y, "{f} differs between an input in memory and one read each time ({input:?})");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
