//! The trace writer's output parses back, with a small independent line parser, to exactly
//! the requests the generator produced (same count, fields, and fingerprints).

use flashtail::workload::{preset, write_trace, Generator, TraceFormat};
use flashtail::{HostRequest, Op, RequestSource};

fn requests(name: &str, n: u64) -> Vec<HostRequest> {
    let mut g = Generator::new(preset(name).expect("preset").with_span(1 << 30).with_count(n)).expect("valid");
    let mut v = Vec::new();
    while let Some(r) = g.next_request().expect("ok") {
        v.push(r);
    }
    v
}

fn text(name: &str, n: u64, f: TraceFormat) -> String {
    let mut g = Generator::new(preset(name).expect("preset").with_span(1 << 30).with_count(n)).expect("valid");
    let mut out = Vec::new();
    let written = write_trace(&mut g, f, &mut out).expect("write");
    assert_eq!(written, n);
    String::from_utf8(out).expect("ascii")
}

fn num(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}

#[test]
fn mqsim_lines_round_trip() {
    let reqs = requests("rlgc-webmail", 3000);
    let t = text("rlgc-webmail", 3000, TraceFormat::Mqsim);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), reqs.len());
    for (l, r) in lines.iter().zip(&reqs) {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!(f.len(), 5, "{l}");
        assert_eq!(num(f[0]), r.arrival.0);
        assert_eq!(f[1], "0");
        assert_eq!(num(f[2]) * 512, r.offset);
        assert_eq!(num(f[3]) * 512, r.size);
        assert_eq!(f[4], if r.op == Op::Write { "0" } else { "1" });
    }
}

#[test]
fn fiu_lines_round_trip_with_fingerprints() {
    let reqs = requests("splitgc-webmail", 3000);
    let t = text("splitgc-webmail", 3000, TraceFormat::Fiu);
    let mut lines = t.lines();
    let mut count = 0;
    for r in &reqs {
        let blocks = r.size / 4096;
        for i in 0..blocks {
            let l = lines.next().expect("one line per 4 KiB block");
            count += 1;
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 9, "{l}");
            assert_eq!(num(f[0]), r.arrival.0);
            assert_eq!(f[2], "flashtail");
            assert_eq!(num(f[3]) * 512, r.offset + i * 4096);
            assert_eq!(num(f[4]), 8);
            assert_eq!(f[5], if r.op == Op::Write { "W" } else { "R" });
            assert_eq!(f[8].len(), 32);
            assert!(f[8].bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
            assert_eq!(&f[8][16..], "0000000000000000");
            let fp = u64::from_str_radix(&f[8][..16], 16).expect("hex");
            let want = if r.op == Op::Write { r.fingerprints[i as usize] } else { 0 };
            assert_eq!(fp, want);
        }
    }
    assert!(lines.next().is_none(), "extra lines");
    assert!(count > reqs.len(), "multi-block requests expand to several lines");
}

#[test]
fn format_names_parse() {
    assert_eq!("mqsim".parse::<TraceFormat>(), Ok(TraceFormat::Mqsim));
    assert_eq!("FIU".parse::<TraceFormat>(), Ok(TraceFormat::Fiu));
    let e = "disksim".parse::<TraceFormat>().expect_err("unknown");
    assert!(e.contains("disksim") && e.contains("mqsim"), "{e}");
}
