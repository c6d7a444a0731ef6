//! Property tests: random input never panics, every parse error names its line, and valid
//! generated lines of every format round-trip to the requests they describe.

use flashtail::trace::{open_reader, Format, OnError, TraceOptions};
use flashtail::{HostRequest, Nanos, Op, RequestSource};
use proptest::prelude::*;

fn opts(format: Option<Format>, on_error: OnError) -> TraceOptions {
    TraceOptions {
        format,
        on_error,
        ..TraceOptions::default()
    }
}

/// Drains a source; returns the requests and the error, if any.
fn drain(bytes: Vec<u8>, o: &TraceOptions) -> (Vec<HostRequest>, Option<String>) {
    let mut src = match open_reader("t", Box::new(std::io::Cursor::new(bytes)), o) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let mut out = Vec::new();
    loop {
        match src.next_request() {
            Ok(Some(r)) => out.push(r),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

fn all_choices() -> Vec<Option<Format>> {
    std::iter::once(None)
        .chain(Format::ALL.iter().copied().map(Some))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        for f in all_choices() {
            for pol in [OnError::Stop, OnError::Skip] {
                let (reqs, _) = drain(bytes.clone(), &opts(f, pol));
                prop_assert!(reqs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
            }
        }
    }

    #[test]
    fn random_lines_never_panic_and_errors_name_a_line(
        lines in proptest::collection::vec("[0-9RWrw ,.:+\\-a-f\t]{0,40}", 0..30)
    ) {
        let text = lines.join("\n").into_bytes();
        for f in Format::ALL {
            let (_, err) = drain(text.clone(), &opts(Some(f), OnError::Stop));
            if let Some(e) = err {
                // "t:LINE: field NAME: message"
                let rest = e.strip_prefix("t:").unwrap_or_else(|| panic!("{e}"));
                let (line, rest) = rest.split_once(':').unwrap();
                let line: usize = line.parse().unwrap_or_else(|_| panic!("{e}"));
                prop_assert!(line >= 1 && line <= lines.len(), "{}", e);
                prop_assert!(rest.starts_with(" field "), "{}", e);
            }
            let (_, err) = drain(text.clone(), &opts(Some(f), OnError::Skip));
            prop_assert!(err.is_none(), "skip policy must not stop: {:?}", err);
        }
    }

    #[test]
    fn bad_line_is_reported_at_its_number(n_before in 1usize..20, junk in "[0-9] [0-9]{1,5} x") {
        let mut lines: Vec<String> = (0..n_before).map(|i| format!("{} 0 {} 8 1", i * 10, i)).collect();
        lines.push(junk);
        lines.push("999 0 1 8 0".to_string());
        // Window 0: requests before the bad line are released before the error.
        let o = TraceOptions { reorder_window: 0, ..opts(Some(Format::Ssdsim), OnError::Stop) };
        let (reqs, err) = drain(lines.join("\n").into_bytes(), &o);
        let want_prefix = format!("t:{}: field ", n_before + 1);
        prop_assert_eq!(reqs.len(), n_before);
        prop_assert!(err.as_deref().unwrap_or("").starts_with(&want_prefix), "{:?}", err);
    }

    #[test]
    fn valid_lines_round_trip(
        recs in proptest::collection::vec((0u64..5_000, 0u64..1_000_000, 1u64..256, any::<bool>(), any::<u64>()), 1..40)
    ) {
        for f in Format::ALL {
            let mut tick = 0u64;
            let mut text = String::new();
            if f == Format::Systor {
                text.push_str("Timestamp,Response,IOType,LUN,Offset,Size\n");
            }
            let mut want = Vec::new();
            for &(dt, lsn, n, read, fp) in &recs {
                tick += dt;
                let (line, t_ns, off, size) = render(f, tick, lsn, n, read, fp);
                text.push_str(&line);
                text.push('\n');
                let op = if read { Op::Read } else { Op::Write };
                let mut r = HostRequest::new(Nanos(t_ns), off, size, op);
                if f == Format::Fiu {
                    r.fingerprints = vec![0; size.div_ceil(4096) as usize].into();
                    r.fingerprints[0] = fp;
                }
                want.push(r);
            }
            let t0 = want[0].arrival.0;
            for r in &mut want {
                r.arrival = Nanos(r.arrival.0 - t0);
            }
            let (got, err) = drain(text.into_bytes(), &opts(Some(f), OnError::Stop));
            prop_assert!(err.is_none(), "{}: {:?}", f, err);
            prop_assert_eq!(got, want, "format {}", f);
        }
    }
}

/// One valid line of format `f`: (line, absolute ns, byte offset, byte size).
fn render(f: Format, tick: u64, lsn: u64, n: u64, read: bool, fp: u64) -> (String, u64, u64, u64) {
    let (rw, b01, b10) = (
        if read { "R" } else { "W" },
        u8::from(read),
        u8::from(!read),
    );
    let secs9 = |ns: u64| format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
    match f {
        Format::Ssdsim | Format::Mqsim => (
            format!("{tick} 0 {lsn} {n} {b01}"),
            tick,
            lsn * 512,
            n * 512,
        ),
        Format::Msr => (
            format!(
                "{},hm,0,{},{},{},77",
                128166385295514663 + tick,
                if read { "Read" } else { "Write" },
                lsn * 512,
                n * 512
            ),
            (128166385295514663 + tick) * 100,
            lsn * 512,
            n * 512,
        ),
        Format::Fiu => (
            format!("{tick} 42 nfsd {lsn} {n} {rw} 6 0 {fp:016x}{:016x}", !fp),
            tick,
            lsn * 512,
            n * 512,
        ),
        Format::Umass => {
            let ns = tick * 1_000;
            (
                format!(
                    "0,{lsn},{},{},{}.{:06}",
                    n * 512,
                    rw.to_lowercase(),
                    ns / 1_000_000_000,
                    (ns / 1_000) % 1_000_000
                ),
                ns,
                lsn * 512,
                n * 512,
            )
        }
        Format::Flashsim => {
            let ns = tick * 1_000;
            (
                format!(
                    "{}.{:03}\t0\t{lsn}\t{n}\t{b01}",
                    ns / 1_000_000,
                    (ns / 1_000) % 1_000
                ),
                ns,
                lsn * 512,
                n * 4096,
            )
        }
        Format::Blkparse => (
            format!(
                "  8,16   1   {tick}   {}  4242  Q   {rw}S {lsn} + {n} [proc]",
                secs9(tick)
            ),
            tick,
            lsn * 512,
            n * 512,
        ),
        Format::Tencent => {
            let s = 1_538_323_200 + tick;
            (
                format!("{s},{lsn},{n},{b10},1058"),
                s * 1_000_000_000,
                lsn * 512,
                n * 512,
            )
        }
        Format::Systor => (
            format!(
                "{},0.000100000,{rw},0,{},{}",
                secs9(1_456_095_145_000_000_000 + tick),
                lsn * 512,
                n * 512
            ),
            1_456_095_145_000_000_000 + tick,
            lsn * 512,
            n * 512,
        ),
        // Milliseconds with a fraction, bytes.
        Format::Linnos => {
            let ns = tick * 1_000;
            (format!("{}.{:03} 0 {} {} {b01}", ns / 1_000_000, (ns / 1_000) % 1_000, lsn * 512, n * 512), ns, lsn * 512, n * 512)
        }
        Format::Flashnet => {
            let ns = tick * 1_000;
            (format!("{}.{:03},{},{b01},{},{},0.5,{}", ns / 1_000_000, (ns / 1_000) % 1_000, n * 3, n * 512, lsn * 512, n * 512), ns, lsn * 512, n * 512)
        }
        Format::Alibaba => {
            let us = 1_577_808_144_000_000 + tick;
            (format!("7,{rw},{},{},{us}", lsn * 512, n * 512), us * 1_000, lsn * 512, n * 512)
        }
        Format::CloudPhysics => {
            let secs = 5_633_898 + tick;
            (format!("1,{secs},{},{},{lsn}", if read { "28" } else { "2a" }, n * 512), secs * 1_000_000_000, lsn * 512, n * 512)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Statistics over arbitrary (even absurd) requests never panic and count every request.
    #[test]
    fn stats_never_panic(reqs in proptest::collection::vec((any::<u64>(), any::<u64>(), 1u64..u64::MAX, any::<bool>()), 0..6)) {
        let mut v: Vec<HostRequest> = reqs
            .iter()
            .map(|&(t, off, size, read)| HostRequest::new(Nanos(t), off, size, if read { Op::Read } else { Op::Write }))
            .collect();
        v.sort_by_key(|r| r.arrival);
        let n = v.len() as u64;
        let s = flashtail::trace::stats::collect(&mut flashtail::VecSource::new(v)).unwrap();
        prop_assert_eq!(s.requests, n);
        prop_assert_eq!(s.reads + s.writes, n);
    }
}
