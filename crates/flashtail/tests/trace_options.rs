//! Reader options on small in-memory traces: compression by magic bytes, error policy and its
//! counters, zero-size records, volume selection and strides, time units.

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
        get(&s, "skipped_lines").starts_with("2 (field op: 7 is not an op code (1=read, 0=write))")
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
