//! The shared real trace slices parse with the right counts. Expected figures are computed
//! here from the raw files by plain string splitting (not the library's parsers), plus a few
//! hard-coded facts. Skips (with a note) when ../shared/traces is absent.

use flashtail::trace::{self, Format, TraceOptions, VolumeSelect};
use flashtail::{HostRequest, Op, RequestSource};
use std::io::Read;
use std::path::{Path, PathBuf};

fn shared() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces"
    ));
    if p.is_dir() {
        Some(p)
    } else {
        println!("note: {} absent, skipping real-trace test", p.display());
        None
    }
}

fn raw_text(p: &Path) -> String {
    let bytes = std::fs::read(p).unwrap();
    let mut s = Vec::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut s)
            .unwrap();
    } else if bytes.starts_with(b"BZh") {
        bzip2::read::BzDecoder::new(&bytes[..])
            .read_to_end(&mut s)
            .unwrap();
    } else {
        s = bytes;
    }
    String::from_utf8_lossy(&s).into_owned()
}

/// Independent expectation: (requests, reads, writes, read bytes, write bytes, span ns).
#[derive(Debug, PartialEq, Default)]
struct Expect {
    n: u64,
    reads: u64,
    writes: u64,
    rbytes: u64,
    wbytes: u64,
    span: u64,
}

fn expect(rows: impl Iterator<Item = (i128, bool, u64)>) -> Expect {
    let mut e = Expect::default();
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for (t, read, size) in rows {
        e.n += 1;
        if read {
            e.reads += 1;
            e.rbytes += size;
        } else {
            e.writes += 1;
            e.wbytes += size;
        }
        lo = lo.min(t);
        hi = hi.max(t);
    }
    e.span = (hi - lo) as u64;
    e
}

fn read_all(src: &mut dyn RequestSource) -> (Expect, Vec<HostRequest>) {
    let mut e = Expect::default();
    let mut first_last = Vec::new();
    let mut last = None;
    while let Some(r) = src.next_request().unwrap() {
        e.n += 1;
        match r.op {
            Op::Read => {
                e.reads += 1;
                e.rbytes += r.size;
            }
            Op::Write => {
                e.writes += 1;
                e.wbytes += r.size;
            }
        }
        e.span = r.arrival.0;
        if first_last.is_empty() {
            first_last.push(r.clone());
        }
        last = Some(r);
    }
    first_last.extend(last);
    (e, first_last)
}

fn ours(p: &Path, opts: &TraceOptions) -> (Expect, Vec<HostRequest>, Vec<(String, String)>) {
    let mut src = trace::open(p, opts).unwrap();
    let (e, fl) = read_all(&mut src);
    (e, fl, src.summary())
}

fn get<'a>(s: &'a [(String, String)], k: &str) -> &'a str {
    s.iter()
        .find(|(a, _)| a == k)
        .map(|(_, v)| v.as_str())
        .unwrap_or("")
}

/// Seconds with a fraction → ns, by string splitting.
fn secs(s: &str) -> i128 {
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    let mut f = f.to_string();
    f.truncate(9);
    while f.len() < 9 {
        f.push('0');
    }
    i.parse::<i128>().unwrap() * 1_000_000_000 + f.parse::<i128>().unwrap()
}

#[test]
fn msr_hm0() {
    let Some(d) = shared() else { return };
    let p = d.join("msr/hm_0-sample.csv");
    let want = expect(raw_text(&p).lines().map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (
            f[0].parse::<i128>().unwrap() * 100,
            f[3] == "Read",
            f[5].parse().unwrap(),
        )
    }));
    let (got, fl, s) = ours(&p, &TraceOptions::default());
    assert_eq!(got, want);
    assert_eq!((got.n, got.reads), (1000, 508));
    assert_eq!(
        fl[0],
        HostRequest::new(flashtail::Nanos(0), 9056014336, 2048, Op::Write)
    );
    assert_eq!(
        fl[1].arrival.0,
        (128166386567849604u64 - 128166385295514663) * 100
    );
    assert_eq!(get(&s, "format"), "msr");
    assert_eq!(get(&s, "original_start_ns"), "12816638529551466300");
}

#[test]
fn fiu_mail_with_tar_header() {
    let Some(d) = shared() else { return };
    let p = d.join("fiu/mail-cheetah-110108-113008-sample.blkparse");
    let text = raw_text(&p);
    // Records: every line's text after its last NUL that has 9 fields.
    let want = expect(text.lines().filter_map(|l| {
        let l = l.rsplit('\0').next().unwrap_or("");
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() == 9).then(|| {
            (
                f[0].parse::<i128>().unwrap(),
                f[5] == "R",
                f[4].parse::<u64>().unwrap() * 512,
            )
        })
    }));
    let (got, fl, s) = ours(&p, &TraceOptions::default());
    assert_eq!(got, want);
    assert_eq!((got.n, got.reads, got.writes), (9998, 8896, 1102));
    // The first record is the one at the end of tar-header line 3.
    assert_eq!(fl[0].offset, 18579576 * 512);
    assert_eq!(fl[0].fingerprints.as_slice(), [0xd6c7_5ba4_6e82_326f]);
    assert_eq!(fl[1].fingerprints.as_slice(), [0xd6bd_5b6a_24cd_f140]);
    assert_eq!(get(&s, "format"), "fiu");
    assert_eq!(get(&s, "salvaged_after_binary"), "1");
    assert_eq!(get(&s, "skipped_non-text"), "2");
    assert_eq!(get(&s, "skipped_preamble"), "1");
    assert_eq!(
        get(&s, "skipped_lines"),
        "line 1 (non-text); line 2 (preamble); line 3 (non-text prefix skipped, record salvaged); line 10001 (non-text)"
    );
}

/// `time dev lsn size op` files with `unit_ns` per raw time unit.
fn ascii_expect(p: &Path, sep: char, unit: f64, size_unit: u64) -> Expect {
    expect(raw_text(p).lines().map(|l| {
        let f: Vec<&str> = l.split(sep).filter(|x| !x.is_empty()).collect();
        let t = (f[0].parse::<f64>().unwrap() * unit).round() as i128;
        (t, f[4] == "1", f[3].parse::<u64>().unwrap() * size_unit)
    }))
}

#[test]
fn spc_ascii_slices() {
    let Some(d) = shared() else { return };
    let cases = [
        ("spc/financial1-head.ascii", Format::Ssdsim, 10_000, 4077),
        ("spc/websearch1-small.mqsim", Format::Mqsim, 24_783, 24_779),
        ("spc/tpcc-small.mqsim", Format::Mqsim, 6_999, 4_381),
    ];
    for (f, fmt, n, reads) in cases {
        let p = d.join(f);
        let (got, _, s) = ours(&p, &TraceOptions::default());
        assert_eq!(got, ascii_expect(&p, ' ', 1.0, 512), "{f}");
        assert_eq!((got.n, got.reads), (n, reads), "{f}");
        assert_eq!(get(&s, "format"), fmt.name(), "{f}");
    }
}

#[test]
fn flashsim_financial1() {
    let Some(d) = shared() else { return };
    let p = d.join("spc/financial1-50k.trace");
    let (got, fl, s) = ours(&p, &TraceOptions::default());
    assert_eq!(got, ascii_expect(&p, '\t', 1e6, 4096));
    assert_eq!(
        (got.n, got.reads, got.span),
        (50_000, 29_199, 853_403_229_000)
    );
    assert_eq!((fl[0].offset, fl[0].size), (303574 * 512, 4096));
    assert_eq!(get(&s, "format"), "flashsim");
}

#[test]
fn dtrs_file_and_embedded_agree() {
    let Some(d) = shared() else { return };
    let p = d.join("ms-production/dtrs-127k.ascii");
    let opts = TraceOptions {
        time_unit_ns: Some(0.01),
        ..TraceOptions::default()
    };
    let (got, fl, _) = ours(&p, &opts);
    assert_eq!(got, ascii_expect(&p, ' ', 0.01, 512));
    assert_eq!(
        (got.n, got.reads, got.span),
        (127_043, 113_123, 299_999_516_000)
    );
    let (emb, efl) = read_all(&mut trace::embedded::dtrs(&TraceOptions::default()));
    assert_eq!((emb, efl), (got, fl));
}

#[test]
fn tencent_volumes() {
    let Some(d) = shared() else { return };
    let p = d.join("tencent/cbs-sample.csv.bz2");
    let rows: Vec<(i128, bool, u64, u64)> = raw_text(&p)
        .lines()
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (
                i128::from(f[0]) * 1_000_000_000,
                f[3] == 0,
                f[2] * 512,
                f[4],
            )
        })
        .collect();
    let (got, _, s) = ours(&p, &TraceOptions::default());
    assert_eq!(got, expect(rows.iter().map(|r| (r.0, r.1, r.2))));
    assert_eq!((got.n, got.reads), (50_000, 24_521));
    assert_eq!(
        (get(&s, "compression"), get(&s, "volumes_seen")),
        ("bzip2", "2038")
    );
    // One volume only.
    let opts = TraceOptions {
        volume: VolumeSelect::Only(vec![1063]),
        ..TraceOptions::default()
    };
    let (one, _, s) = ours(&p, &opts);
    let want: Vec<_> = rows
        .iter()
        .filter(|r| r.3 == 1063)
        .map(|r| (r.0, r.1, r.2))
        .collect();
    let n1063 = want.len() as u64;
    assert_eq!(one, expect(want.into_iter()));
    assert_eq!(
        get(&s, "other_volume_skipped"),
        (50_000 - n1063).to_string()
    );
}

#[test]
fn systor_unsorted_is_reordered() {
    let Some(d) = shared() else { return };
    let p = d.join("systor/systor17-sample.csv.gz");
    let want = expect(raw_text(&p).lines().skip(1).map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (secs(f[0]), f[2] == "R", f[5].parse().unwrap())
    }));
    let mut src = trace::open(&p, &TraceOptions::default()).unwrap();
    let mut prev = 0;
    let mut got = Expect::default();
    while let Some(r) = src.next_request().unwrap() {
        assert!(r.arrival.0 >= prev, "arrivals must be sorted");
        prev = r.arrival.0;
        got.n += 1;
        if r.op == Op::Read {
            got.reads += 1;
            got.rbytes += r.size;
        } else {
            got.writes += 1;
            got.wbytes += r.size;
        }
        got.span = r.arrival.0;
    }
    assert_eq!(got, want);
    assert_eq!((got.n, got.reads), (999, 826));
    let s = src.summary();
    assert_eq!(
        (
            get(&s, "skipped_header-like"),
            get(&s, "clamped_out_of_order")
        ),
        ("1", "0")
    );
    assert_eq!(get(&s, "compression"), "gzip");
    // Without a window the disorder is clamped and counted instead.
    let opts = TraceOptions {
        reorder_window: 0,
        ..TraceOptions::default()
    };
    let (_, _, s) = ours(&p, &opts);
    assert_ne!(get(&s, "clamped_out_of_order"), "0");
}

#[test]
fn blkparse_q_and_d_events() {
    let Some(d) = shared() else { return };
    let p = d.join("blktrace/hadoop-blkparse.txt");
    let text = raw_text(&p);
    for ev in ["Q", "D"] {
        let want = expect(text.lines().filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 10 && f[5] == ev && f[8] == "+").then(|| {
                (
                    secs(f[3]),
                    f[6].contains('R'),
                    f[9].parse::<u64>().unwrap() * 512,
                )
            })
        }));
        let opts = TraceOptions {
            blk_event: ev.to_string(),
            ..TraceOptions::default()
        };
        let (got, _, _) = ours(&p, &opts);
        assert_eq!(got, want, "event {ev}");
    }
    let (q, _, _) = ours(&p, &TraceOptions::default());
    assert_eq!((q.n, q.reads), (15_524, 80));
}

#[test]
fn fiu_stats_match_independent_sets() {
    use std::collections::HashSet;
    let Some(d) = shared() else { return };
    let p = d.join("fiu/mail-cheetah-110108-113008-sample.blkparse");
    let (mut touched, mut written, mut fps) = (HashSet::new(), HashSet::new(), HashSet::new());
    let (mut pages_written, mut overwrites, mut dups, mut blocks) = (0u64, 0u64, 0u64, 0u64);
    for l in raw_text(&p).lines() {
        let f: Vec<&str> = l
            .rsplit('\0')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if f.len() != 9 {
            continue;
        }
        let off = f[3].parse::<u64>().unwrap() * 512;
        let end = off + f[4].parse::<u64>().unwrap() * 512;
        for pg in off / 4096..end.div_ceil(4096) {
            touched.insert(pg);
            if f[5] == "W" {
                pages_written += 1;
                overwrites += u64::from(!written.insert(pg));
            }
        }
        if f[5] == "W" {
            blocks += 1;
            dups += u64::from(!fps.insert(f[8][..16].to_string()));
        }
    }
    let mut src = trace::open(&p, &TraceOptions::default()).unwrap();
    let st = trace::stats::collect(&mut src).unwrap();
    assert_eq!(st.footprint_pages, touched.len() as u64);
    assert_eq!(st.footprint_pages, 9202);
    assert_eq!(st.pages_written, pages_written);
    assert_eq!(st.overwrite_ratio, overwrites as f64 / pages_written as f64);
    assert_eq!(st.fingerprinted_blocks_written, blocks);
    assert_eq!(st.duplicate_content_rate, Some(dups as f64 / blocks as f64));
    assert_eq!(
        (st.requests, st.reads, st.span_ns),
        (9998, 8896, 89990094148817 - 89966522969723)
    );
}
