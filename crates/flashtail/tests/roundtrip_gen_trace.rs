//! Generator → file → trace parser round trips: what `flashtail gen` writes, the trace
//! readers read back exactly (MQSim ASCII request by request; FIU block by block with content
//! fingerprints).

use flashtail::trace::{self, format::Format, TraceOptions};
use flashtail::workload::{preset, write_trace, Generator, TraceFormat};
use flashtail::{HostRequest, RequestSource};

fn drain(src: &mut dyn RequestSource) -> Vec<HostRequest> {
    let mut v = Vec::new();
    while let Some(r) = src.next_request().unwrap() {
        v.push(r);
    }
    v
}

/// (arrival relative to the first, 4 KiB block offset, op, fingerprint) for every 4 KiB block.
fn blocks(reqs: &[HostRequest]) -> Vec<(u64, u64, flashtail::Op, u64)> {
    let t0 = reqs.first().map_or(0, |r| r.arrival.0);
    let mut out = Vec::new();
    for r in reqs {
        for i in 0..r.size.div_ceil(4096) {
            let fp = r.fingerprints.get(i as usize).copied().unwrap_or(0);
            out.push((r.arrival.0 - t0, r.offset / 4096 + i, r.op, fp));
        }
    }
    out
}

fn generated(name: &str, n: u64) -> Vec<HostRequest> {
    let cfg = preset(name).unwrap().with_span(1 << 30).with_count(n);
    drain(&mut Generator::new(cfg).unwrap())
}

fn write_and_parse(reqs: &[HostRequest], fmt: TraceFormat, parse_as: Format) -> Vec<HostRequest> {
    write_and_read("roundtrip", reqs, fmt, Some(parse_as))
}

/// Write `reqs` as `fmt` and read them back from a file called `name`, in `parse_as` or, if
/// `None`, the format detected.
fn write_and_read(name: &str, reqs: &[HostRequest], fmt: TraceFormat, parse_as: Option<Format>) -> Vec<HostRequest> {
    let mut buf = Vec::new();
    let mut src = flashtail::VecSource::new(reqs.to_vec());
    write_trace(&mut src, fmt, &mut buf).unwrap();
    let opts = TraceOptions { format: parse_as, ..TraceOptions::default() };
    let mut parsed = trace::open_reader(name, Box::new(std::io::Cursor::new(buf)), &opts).unwrap();
    drain(&mut *parsed)
}

/// `flashtail gen` output saved under a `.trace` name (as MQSim names its traces) is read
/// back in nanoseconds and sectors: the name used to make it flashsim's milliseconds and
/// 4 KiB pages, a run a million times too slow.
#[test]
fn generated_mqsim_trace_named_dot_trace_is_detected_as_mqsim() {
    let g = generated("bench-ref", 2_000);
    let back = write_and_read("w.trace", &g, TraceFormat::Mqsim, None);
    let t0 = g[0].arrival.0;
    assert_eq!(back.len(), g.len());
    for (a, b) in g.iter().zip(&back) {
        assert_eq!((a.arrival.0 - t0, a.offset, a.size), (b.arrival.0, b.offset, b.size));
    }
}

#[test]
fn mqsim_round_trip_is_exact() {
    let g = generated("bench-ref", 5_000);
    let back = write_and_parse(&g, TraceFormat::Mqsim, Format::Mqsim);
    assert_eq!(back.len(), g.len());
    let t0 = g[0].arrival.0;
    for (a, b) in g.iter().zip(&back) {
        assert_eq!((a.arrival.0 - t0, a.offset, a.size, a.op), (b.arrival.0, b.offset, b.size, b.op));
    }
}

#[test]
fn fiu_round_trip_keeps_every_block_and_fingerprint() {
    let g = generated("splitgc-webmail", 3_000);
    assert!(g.iter().any(|r| !r.fingerprints.is_empty()));
    let back = write_and_parse(&g, TraceFormat::Fiu, Format::Fiu);
    let (a, b) = (blocks(&g), blocks(&back));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.0, y.0);
        assert_eq!(x.1, y.1);
        assert_eq!(x.2, y.2);
        if x.2 == flashtail::Op::Write {
            assert_eq!(x.3, y.3, "fingerprint of block {}", x.1);
        }
    }
}
