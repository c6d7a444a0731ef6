//! `flashtail sweep`: the tables a small sweep writes (rows, columns, numbers), resuming,
//! a failing point among good ones, the same bytes whatever the thread count, and the
//! spec's errors.

mod support;
use support::*;

/// Two schemes × two OP values × two seeds of a short generated workload on `tiny`.
const SPEC: &str = r#"schemes = ["base", "nogc"]
devices = ["tiny"]
seeds = { start = 1, stop = 2 }
[[workloads]]
gen = "rlgc-oltp"
count = 3000
[set]
"ftl.over_provisioning" = [0.1, 0.2]
"#;

fn setup(name: &str, spec: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let d = scratch_dir("sweep", name);
    let spec_path = d.join("s.toml");
    write(&spec_path, spec);
    (spec_path, d.join("out"))
}

fn lines(p: &std::path::Path) -> Vec<String> {
    read(p).lines().map(String::from).collect()
}

#[test]
fn a_sweep_writes_the_tidy_table_and_the_across_seed_table() {
    let (spec, out) = setup("tables", SPEC);
    let (stdout, _) = succeeds_both(&["sweep", s(&spec), "--out", s(&out)]);
    assert!(stdout.contains("4 points (0 resumed, 0 failed), 312 rows"), "{stdout}");
    assert!(stdout.contains("report.html"), "{stdout}");
    let t = lines(&out.join("table.csv"));
    assert_eq!(t[0], "point,device,workload,ftl.over_provisioning,seed,scheme,op,stat,value");
    // 4 points × 2 schemes × (12 statistics for read and write, 15 for all).
    assert_eq!(t.len() - 1, 4 * 2 * (12 + 12 + 15));
    assert!(t[1].contains(",tiny,gen:rlgc-oltp,0.1,1,base,read,count,"), "{}", t[1]);
    // Seeds run fastest, then the override values.
    let seeds_ops: Vec<(&str, &str)> = t[1..].iter().step_by(78).map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f[3], f[4])
    }).collect();
    assert_eq!(seeds_ops, [("0.1", "1"), ("0.1", "2"), ("0.2", "1"), ("0.2", "2")]);
    // The across-seed table: one row per (OP, scheme, op, stat), its mean that of the seeds.
    let ci = lines(&out.join("ci.csv"));
    assert_eq!(ci[0], "device,workload,ftl.over_provisioning,scheme,op,stat,seeds,mean,std,ci_low,ci_high,ci_level");
    assert_eq!(ci.len() - 1, 2 * 2 * 39);
    let value = |op: &str, seed: &str| -> f64 {
        t.iter().find(|l| l.contains(&format!(",{op},{seed},base,all,p99_ns,"))).and_then(|l| l.rsplit(',').next()).unwrap().parse().unwrap()
    };
    let row = ci.iter().find(|l| l.starts_with("tiny,gen:rlgc-oltp,0.1,base,all,p99_ns,")).unwrap();
    let f: Vec<f64> = row.split(',').skip(6).map(|x| x.parse().unwrap()).collect();
    let (a, b) = (value("0.1", "1"), value("0.1", "2"));
    assert_eq!(f[0], 2.0);
    assert_eq!(f[1], (a + b) / 2.0);
    assert!(f[3] >= a.min(b) && f[4] <= a.max(b) && f[3] <= f[1] && f[1] <= f[4], "{row}");
    assert_eq!(f[5], 0.95);
    for f in ["table.parquet", "ci.parquet"] {
        let b = std::fs::read(out.join(f)).unwrap();
        assert_eq!((&b[..4], &b[b.len() - 4..]), (&b"PAR1"[..], &b"PAR1"[..]), "{f}");
    }
    assert_eq!(std::fs::read_dir(out.join("points")).unwrap().count(), 4);
    report_shows_the_intervals(&out, &ci);
}

/// `report.html` holds each value with its across-seed interval, in its tables (as in
/// `ci.csv`) and as error bars in its figures.
fn report_shows_the_intervals(out: &std::path::Path, ci: &[String]) {
    let html = read(&out.join("report.html"));
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("flashtail sweep: 4 points × 2 schemes"), "{}", &html[..200]);
    for line in ci.iter().filter(|l| l.starts_with("tiny,gen:rlgc-oltp,0.2,base,read,p99_99_ns,") || l.starts_with("tiny,gen:rlgc-oltp,0.1,nogc,write,p99_ns,")) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f[i].parse::<f64>().unwrap();
        let row = flashtail::sweep::CiRow {
            device: f[0].into(),
            workload: f[1].into(),
            params: vec![f[2].into()],
            scheme: f[3].into(),
            op: f[4].into(),
            stat: f[5].into(),
            seeds: f[6].parse().unwrap(),
            mean: num(7),
            std: num(8),
            ci_low: num(9),
            ci_high: num(10),
        };
        let cell = flashtail::report::interval_text(&row, flashtail::report::IntervalUnit::Ms);
        assert!(cell.contains(" [") && cell.contains(" – "), "{cell}");
        assert!(html.contains(&format!("data-v=\"{}\">{}</td>", row.mean, cell.replace('&', "&amp;"))), "no cell {cell} for {line}");
    }
    // One figure set (the OP axis, both values), four figures, error bars in each.
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(html.contains("read p99.99: mean over seeds and its 95% interval"));
    assert!(html.contains(">0.1<") && html.contains(">0.2<"), "the x axis names both OP values");
}

#[test]
fn resume_skips_recorded_points_and_gives_the_same_bytes() {
    let (spec, out) = setup("resume", SPEC);
    succeeds_both(&["sweep", s(&spec), "--out", s(&out), "--jobs", "1"]);
    let first = read(&out.join("table.csv"));
    let parquet = std::fs::read(out.join("table.parquet")).unwrap();
    // An interrupted sweep: one point's record is missing.
    let gone = std::fs::read_dir(out.join("points")).unwrap().next().unwrap().unwrap().path();
    std::fs::remove_file(&gone).unwrap();
    let (stdout, _) = succeeds_both(&["sweep", s(&spec), "--out", s(&out), "--resume", "--jobs", "2"]);
    assert!(stdout.contains("4 points (3 resumed, 0 failed)"), "{stdout}");
    assert!(gone.exists());
    assert_eq!(read(&out.join("table.csv")), first);
    assert_eq!(std::fs::read(out.join("table.parquet")).unwrap(), parquet);
    // Without --resume every point runs again, to the same bytes.
    let (stdout, _) = succeeds_both(&["sweep", s(&spec), "--out", s(&out)]);
    assert!(stdout.contains("4 points (0 resumed, 0 failed)"), "{stdout}");
    assert_eq!(read(&out.join("table.csv")), first);
}

#[test]
fn a_failing_point_is_reported_and_the_others_kept() {
    let spec = SPEC.replace("[0.1, 0.2]", "[0.1, 7.0]");
    let (spec, out) = setup("failure", &spec);
    let err = fails_with(&["sweep", s(&spec), "--out", s(&out)], &["point 2 (device=tiny workload=gen:rlgc-oltp ftl.over_provisioning=7.0 seed=1)", "over_provisioning", "2 of 4 points failed"]);
    assert!(err.contains("point 3 ("), "{err}");
    assert_eq!(lines(&out.join("table.csv")).len() - 1, 2 * 78);
    assert_eq!(lines(&out.join("failures.txt")).len(), 2);
}

#[test]
fn spec_errors_name_the_key_and_line() {
    let (spec, out) = setup("errors", "schemes = [\"base\"]\n[set]\n\"ftl.over_provisioning\" = { start = 0.2, stop = 0.1 }\n");
    fails_with(&["sweep", s(&spec), "--out", s(&out)], &["s.toml: set.\"ftl.over_provisioning\": range stop 0.1 is below its start 0.2"]);
    let (spec, out) = setup("errors2", "schemes = [\"base\"]\nseed = [1]\n");
    fails_with(&["sweep", s(&spec), "--out", s(&out)], &["line 2", "unknown field `seed`"]);
    let (spec, out) = setup("errors3", "schemes = [\"base\", \"turbo\"]\n");
    fails_with(&["sweep", s(&spec), "--out", s(&out)], &["schemes: unknown scheme 'turbo'"]);
    fails_with(&["sweep", "no-such.toml"], &["no-such.toml"]);
    fails_with(&["sweep", s(&spec), "--backend", "ray"], &["python -m flashtail sweep", "--backend ray"]);
}
