//! Reader options on small in-memory traces: compression by magic bytes and truncated
//! streams, error policy and its counters (headers only before the first record), zero-size
//! records, volume selection and strides, time units, the blkparse event, the reason an
//! input gave no requests, and the coarse-timestamp note.

use flashtail::trace::{open_reader, Format, OnError, TraceOptions, VolumeSelect};
use flashtail::{Op, RequestSource};
use std::io::Write;

fn get(s: &[(String, String)], k: &str) -> String {
    s.iter()
        .find(|(a, _)| a == k)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// (arrival, offset, size, op) of every request, plus the summary.
type Read = (Vec<(u64, u64, u64, Op)>, Vec<(String, String)>);

fn read(name: &str, bytes: Vec<u8>, o: &TraceOptions) -> Read {
    let mut src = open_reader(name, Box::new(std::io::Cursor::new(bytes)), o).unwrap();
    let mut v = Vec::new();
    while let Some(r) = src.next_request().unwrap() {
        v.push((r.arrival.0, r.offset, r.size, r.op));
    }
    (v, src.summary())
}

const ASCII: &str = "100 0 8 8 1\n300 0 16 16 0\n250 0 0 4 1\n";

#[test]
fn compression_is_detected_by_magic_not_name() {
    let plain = read("a.txt", ASCII.as_bytes().to_vec(), &TraceOptions::default()).0;
    assert_eq!(
        plain,
        vec![
            (0, 4096, 4096, Op::Read),
            (150, 0, 2048, Op::Read),
            (200, 8192, 8192, Op::Write)
        ]
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(ASCII.as_bytes()).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(ASCII.as_bytes()).unwrap();
    let zs = zstd::encode_all(ASCII.as_bytes(), 3).unwrap();
    for (kind, bytes) in [
        ("gzip", gz.finish().unwrap()),
        ("bzip2", bz.finish().unwrap()),
        ("zstd", zs),
    ] {
        let (got, s) = read("misnamed.txt", bytes, &TraceOptions::default());
        assert_eq!(got, plain, "{kind}");
        assert_eq!(get(&s, "compression"), kind);
    }
}

#[test]
fn zero_size_records_are_skipped_and_counted() {
    let text = "0 0 8 8 1\n5 0 8 0 1\n9 0 8 8 0\n";
    let (got, s) = read("z", text.as_bytes().to_vec(), &TraceOptions::default());
    assert_eq!(got.len(), 2);
    assert_eq!(get(&s, "zero_size_skipped"), "1");
}

#[test]
fn skip_policy_counts_per_field_and_stop_names_the_line() {
    let text = "0 0 8 8 1\n1 0 8 8 7\n2 0 x 8 1\n3 0 8 8 9\n4 0 8 8 0\n";
    let skip = TraceOptions {
        format: Some(Format::Ssdsim),
        on_error: OnError::Skip,
        ..TraceOptions::default()
    };
    let (got, s) = read("e", text.as_bytes().to_vec(), &skip);
    assert_eq!(got.len(), 2);
    assert_eq!(
        (get(&s, "skipped_bad_op"), get(&s, "skipped_bad_lsn")),
        ("2".into(), "1".into())
    );
    assert!(
        get(&s, "skipped_lines").starts_with("line 2 (field op: 7 is not an op code (1=read, 0=write))")
    );
    let stop = TraceOptions {
        format: Some(Format::Ssdsim),
        ..TraceOptions::default()
    };
    let mut src = open_reader(
        "e.ascii",
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        &stop,
    )
    .unwrap();
    let err = loop {
        match src.next_request() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("expected an error"),
            Err(e) => break e,
        }
    };
    assert_eq!(
        err.to_string(),
        "e.ascii:2: field op: 7 is not an op code (1=read, 0=write)"
    );
}

#[test]
fn volumes_select_or_get_their_own_region() {
    let text = "128166385295514663,hm,0,Write,4096,4096,1\n\
                128166385295514700,hm,3,Read,4096,4096,1\n\
                128166385295514800,hm,1,Read,0,512,1\n";
    let msr = |volume, stride| TraceOptions {
        volume,
        volume_stride: stride,
        ..TraceOptions::default()
    };
    let off = |o: &TraceOptions| {
        read("m.csv", text.as_bytes().to_vec(), o)
            .0
            .iter()
            .map(|r| r.1)
            .collect::<Vec<_>>()
    };
    assert_eq!(off(&msr(VolumeSelect::All, None)), vec![4096, 4096, 0]);
    // Stride: volume index by first appearance (0, 3, 1 → 0, 1, 2).
    assert_eq!(
        off(&msr(VolumeSelect::All, Some(1 << 30))),
        vec![4096, (1 << 30) + 4096, 2 << 30]
    );
    // Only: the listed order gives the index.
    assert_eq!(
        off(&msr(VolumeSelect::Only(vec![1, 3]), Some(1 << 20))),
        vec![(1 << 20) + 4096, 0]
    );
    let (_, s) = read(
        "m.csv",
        text.as_bytes().to_vec(),
        &msr(VolumeSelect::Only(vec![3]), None),
    );
    assert_eq!(
        (get(&s, "other_volume_skipped"), get(&s, "volumes")),
        ("2".into(), "only [3], merged as-is".into())
    );
}

#[test]
fn time_unit_override_and_bad_options() {
    let o = TraceOptions {
        time_unit_ns: Some(1e3),
        ..TraceOptions::default()
    };
    let (got, s) = read("u", ASCII.as_bytes().to_vec(), &o);
    assert_eq!(
        got.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![0, 150_000, 200_000]
    );
    assert_eq!(get(&s, "original_start_ns"), "100000");
    let bad = TraceOptions {
        time_unit_ns: Some(-1.0),
        ..TraceOptions::default()
    };
    let e = open_reader("u", Box::new(std::io::Cursor::new(Vec::new())), &bad)
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "invalid trace option: time unit must be > 0 ns, got -1"
    );
    // A format with a fixed unit ignored --time-unit silently (`--time-unit s` replayed an
    // MSR trace at its own 100 ns unit); it is now an option error naming the unit.
    let msr = TraceOptions {
        time_unit_ns: Some(1e9),
        ..TraceOptions::default()
    };
    let line = b"128166385295514663,hm,0,Write,9056014336,2048,2833\n".to_vec();
    let e = open_reader("hm.csv", Box::new(std::io::Cursor::new(line)), &msr)
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "invalid trace option: --time-unit applies to ssdsim, mqsim, flashsim and linnos traces only; \
         hm.csv is in the msr format, whose time column is always in units of 100 ns (use \
         --time-scale to replay it faster or slower)"
    );
    let e = open_reader(
        "junk.bin",
        Box::new(std::io::Cursor::new(b"hello\nworld\n".to_vec())),
        &TraceOptions::default(),
    )
    .err()
    .unwrap();
    assert!(e
        .to_string()
        .starts_with("junk.bin: cannot detect the trace format from the first 2 lines"));
}

/// The first error of a source (panics when it ends without one).
fn first_error(src: &mut dyn RequestSource) -> String {
    loop {
        match src.next_request() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("expected an error"),
            Err(e) => break e.to_string(),
        }
    }
}

fn open(name: &str, text: &str, o: &TraceOptions) -> Box<dyn RequestSource + Send> {
    open_reader(name, Box::new(std::io::Cursor::new(text.as_bytes().to_vec())), o).unwrap()
}

#[test]
fn header_like_lines_are_skipped_only_before_the_first_record() {
    let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                # exported by hand\n\
                128166385295514663,hm,0,Write,4096,4096,1\n\
                abc,hm,0,Read,0,4096,1\n\
                # a comment\n\
                128166385295514700,hm,0,Read,4096,4096,1\n\
                ,,,,,,\n";
    let err = first_error(&mut *open("m.csv", text, &TraceOptions::default()));
    assert_eq!(err, "m.csv:4: field Timestamp: 'abc' is not an unsigned integer");
    let skip = TraceOptions {
        on_error: OnError::Skip,
        ..TraceOptions::default()
    };
    let (got, s) = read("m.csv", text.as_bytes().to_vec(), &skip);
    assert_eq!(got.len(), 2);
    // Before the first record: header and comment; after it: the comment is still one, the
    // damaged line and the digitless one are bad records.
    assert_eq!(
        (
            get(&s, "skipped_header-like"),
            get(&s, "skipped_comment"),
            get(&s, "skipped_bad_Timestamp")
        ),
        ("2".into(), "1".into(), "2".into())
    );
    assert!(get(&s, "skipped_lines").contains("line 4 (field Timestamp: 'abc' is not an unsigned integer)"));
    // An MQSim trace damaged after its first line: the same error.
    let mq = "0 0 8 8 1\n1000 0 8 8 1\nabc 0 8 8 1\n";
    let o = TraceOptions {
        format: Some(Format::Mqsim),
        ..TraceOptions::default()
    };
    let err = first_error(&mut *open("w.mqsim", mq, &o));
    assert_eq!(err, "w.mqsim:3: field time: 'abc' is not a non-negative number");
    // blkparse's summary section after the events is recognised by the parser, not an error.
    let blk = "  8,16   5  2  0.000001850 18615  Q   R 1444645666 + 256 [java]\n\
               CPU0 (8,16):\n \
               Reads Queued:           0,        0KiB\t Writes Queued:      15,524,  7,762MiB\n";
    let (got, s) = read("b.txt", blk.as_bytes().to_vec(), &TraceOptions::default());
    assert_eq!(got.len(), 1);
    assert_eq!(get(&s, "not_request_blkparse_summary_line"), "2");
}

/// `text` compressed three ways.
fn compressed(text: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(text).unwrap();
    vec![
        ("gzip", gz.finish().unwrap()),
        ("bzip2", bz.finish().unwrap()),
        ("zstd", zstd::encode_all(text, 3).unwrap()),
    ]
}

#[test]
fn truncated_compressed_streams_say_how_far_they_got() {
    use std::io::Read as _;
    // 300,000 lines (about 5 MB): several bzip2 blocks, so a cut one leaves whole lines.
    let text: String = (0..300_000u64)
        .map(|i| format!("{} 0 {} 8 {}\n", i * 1000, (i * 7919) % 1_000_000, i % 2))
        .collect();
    for (kind, bytes) in compressed(text.as_bytes()) {
        let cut = bytes[..bytes.len() * 3 / 4].to_vec();
        // What the decoder itself yields from the cut stream, before it fails.
        let mut dec: Box<dyn std::io::Read> = match kind {
            "gzip" => Box::new(flate2::read::MultiGzDecoder::new(&cut[..])),
            "bzip2" => Box::new(bzip2::read::MultiBzDecoder::new(&cut[..])),
            _ => Box::new(zstd::stream::read::Decoder::new(&cut[..]).unwrap()),
        };
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = dec.read(&mut buf) {
            assert!(n > 0, "{kind}: the cut stream must fail, not end");
            got.extend_from_slice(&buf[..n]);
        }
        drop(dec);
        let whole = got.iter().filter(|b| **b == b'\n').count();
        assert!(whole > 1000 && whole < 300_000, "{kind}: {whole}");
        let mut src = open_reader("t.ascii.x", Box::new(std::io::Cursor::new(cut)), &TraceOptions::default()).unwrap();
        assert_eq!(
            first_error(&mut *src),
            format!("t.ascii.x: after line {whole}: compressed ({kind}) stream ends early (truncated file?)")
        );
    }
    // Cut inside the lines read ahead for format detection.
    let gz = &compressed(b"0 0 8 8 1\n")[0].1;
    let e = open_reader("t.gz", Box::new(std::io::Cursor::new(gz[..gz.len() - 4].to_vec())), &TraceOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().starts_with("t.gz: after line 1: compressed (gzip) stream ends early"), "{e}");
}

#[test]
fn blkparse_event_must_be_a_per_request_event() {
    for ev in ["X", "M", "", "QQ"] {
        let o = TraceOptions {
            blk_event: ev.to_string(),
            ..TraceOptions::default()
        };
        let e = open_reader("b", Box::new(std::io::Cursor::new(Vec::new())), &o).err().unwrap();
        assert_eq!(
            e.to_string(),
            format!(
                "invalid trace option: unknown blkparse event '{ev}' (allowed: Q, G, I, D, C: \
                 queued, got request, inserted, issued, completed)"
            )
        );
    }
}

#[test]
fn an_input_without_requests_says_why() {
    let why = |text: &str, o: &TraceOptions| {
        let mut src = open("t.csv", text, o);
        assert_eq!(src.next_request().unwrap(), None);
        src.empty_reason()
    };
    let msr = |v: Vec<u64>| TraceOptions {
        format: Some(Format::Msr),
        volume: VolumeSelect::Only(v),
        ..TraceOptions::default()
    };
    let two = "128166385295514663,hm,0,Write,4096,4096,1\n\
               128166385295514700,hm,3,Read,4096,4096,1\n\
               128166385295514800,hm,3,Read,0,512,1\n";
    assert_eq!(why("", &msr(vec![0])).as_deref(), Some("the trace is empty (0 lines)"));
    assert_eq!(
        why(two, &msr(vec![9])).as_deref(),
        Some("volume 9 has no requests; volumes present: 0, 3")
    );
    assert_eq!(
        why(two, &msr(vec![9, 8])).as_deref(),
        Some("volumes 9, 8 have no requests; volumes present: 0, 3")
    );
    assert_eq!(
        why("# only a comment\n\n", &msr(vec![0])).as_deref(),
        Some("no requests: every line was skipped (2 lines; the counts below say why)")
    );
    assert_eq!(
        why("0 0 8 0 1\n5 0 8 0 1\n", &TraceOptions::default()).as_deref(),
        Some("no requests: all 2 records have size 0")
    );
    // blkparse volumes read as MAJOR:MINOR, as --volume takes them.
    let blk = TraceOptions {
        volume: VolumeSelect::Only(vec![(8 << 20) | 1]),
        ..TraceOptions::default()
    };
    assert_eq!(
        why("  8,16   5  2  0.000001850 18615  Q   R 1444645666 + 256 [java]\n", &blk).as_deref(),
        Some("volume 8:1 has no requests; volumes present: 8:16")
    );
    let mut src = open("t.csv", two, &TraceOptions::default());
    while src.next_request().unwrap().is_some() {}
    assert_eq!(src.empty_reason(), None);
}

#[test]
fn coarse_timestamps_are_noted_only_when_many_requests_share_one() {
    let note = |text: String| {
        let (got, s) = read("t.csv", text.into_bytes(), &TraceOptions::default());
        (got.len(), get(&s, "coarse_timestamps"))
    };
    // Tencent CBS (whole seconds): 1,001 requests on one second is coarse, 1,000 is not...
    let cbs = |per: &[u64]| -> String {
        per.iter()
            .enumerate()
            .flat_map(|(sec, n)| (0..*n).map(move |i| format!("{},{},8,0,1\n", 1538323200 + sec as u64, i * 8)))
            .collect()
    };
    assert_eq!(
        note(cbs(&[1001, 5])),
        (1006, "up to 1001 requests share one timestamp (1006 requests on 2 distinct times, all whole seconds)".into())
    );
    // ...unless the whole-second times carry 10 or more requests each on average.
    assert_eq!(note(cbs(&[100; 9])), (900, String::new()));
    assert_eq!(
        note(cbs(&[100; 10])),
        (1000, "up to 100 requests share one timestamp (1000 requests on 10 distinct times, all whole seconds)".into())
    );
    assert_eq!(note(cbs(&[9; 200])), (1800, String::new()));
    // Nanosecond times: only the count on one timestamp matters.
    let ns = |same: u64| -> String {
        (0..same).map(|i| format!("7 0 {} 8 1\n", i * 8)).chain((1..50).map(|i| format!("{} 0 0 8 1\n", 7 + i))).collect()
    };
    assert_eq!(note(ns(1000)).1, "");
    assert_eq!(
        note(ns(1001)).1,
        "up to 1001 requests share one timestamp (1050 requests on 50 distinct times)"
    );
}
