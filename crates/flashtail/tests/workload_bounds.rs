//! Every generated request is well formed: aligned offset and size, inside the span, size
//! within the distribution's bounds, arrivals non-decreasing, count and duration limits kept.

use flashtail::workload::{
    preset, preset_names, AddressPattern, Arrival, GapDist, GenConfig, Generator, SizeDist, WeightedSize,
};
use flashtail::{HostRequest, Op, RequestSource};

fn collect(cfg: GenConfig) -> Vec<HostRequest> {
    let mut g = Generator::new(cfg).expect("valid config");
    let mut v = Vec::new();
    while let Some(r) = g.next_request().expect("generator never fails") {
        v.push(r);
    }
    v
}

fn check(v: &[HostRequest], span: u64, align: u64, min: u64, max: u64, what: &str) {
    let mut prev = 0u64;
    for (i, r) in v.iter().enumerate() {
        assert_eq!(r.offset % align, 0, "{what} #{i}: offset {} unaligned", r.offset);
        assert_eq!(r.size % align, 0, "{what} #{i}: size {} unaligned", r.size);
        assert!(r.size >= min && r.size <= max, "{what} #{i}: size {} outside {min}..={max}", r.size);
        assert!(r.offset + r.size <= span, "{what} #{i}: {}+{} beyond span {span}", r.offset, r.size);
        assert!(r.arrival.0 >= prev, "{what} #{i}: arrival goes back");
        prev = r.arrival.0;
    }
}

#[test]
fn every_preset_stays_in_bounds() {
    // A deliberately small span (64 MiB) so the end-of-span clamp is exercised.
    let span = 64 << 20;
    for name in preset_names() {
        let cfg = preset(name).expect("listed").with_span(span).with_count(20_000);
        let g = Generator::new(cfg.clone()).expect("valid");
        let v = collect(cfg);
        assert_eq!(v.len(), 20_000, "{name}");
        assert_eq!(v[0].arrival.0, 0, "{name}: first request at time 0");
        let max = match name {
            "rlgc-RBESQL" => 512 << 10,
            "rlgc-MSNSFS" => 256 << 10,
            "bench-ref" => 16 << 10,
            _ => 64 << 10,
        };
        check(&v, span, 4096, 4096, max, name);
        assert!(g.expected_size_bytes() <= max as f64);
    }
}

#[test]
fn sequential_runs_continue_the_previous_request() {
    let cfg = GenConfig {
        count: Some(10_000),
        read_ratio: 0.0,
        sequential_share: 1.0,
        size: SizeDist::Uniform { min_bytes: 4096, max_bytes: 65536 },
        ..GenConfig::default().with_span(16 << 20)
    };
    let v = collect(cfg);
    check(&v, 16 << 20, 4096, 4096, 65536, "sequential_share");
    // Every request starts where the previous ended, except where that would cross the end.
    let mut breaks = 0;
    for w in v.windows(2) {
        if w[1].offset != w[0].offset + w[0].size {
            assert!(w[0].offset + w[0].size + w[1].size > 16 << 20, "run broken without reason");
            breaks += 1;
        }
    }
    // A run ends at the span's end and restarts at a uniform page, so a run covers half of the
    // 16 MiB span on average: ~240 requests of mean 34 KiB, i.e. ~42 breaks in 10k requests.
    assert!(breaks > 20 && breaks < 80, "breaks {breaks}");
}

#[test]
fn sequential_pattern_wraps_and_recent_writes_reads_written_offsets() {
    let span = 1 << 20;
    let cfg = GenConfig {
        count: Some(5000),
        read_ratio: 0.5,
        address: AddressPattern::Sequential,
        read_address: Some(AddressPattern::RecentWrites { window: 8 }),
        size: SizeDist::Weighted {
            sizes: vec![WeightedSize { bytes: 4096, weight: 1.0 }, WeightedSize { bytes: 12288, weight: 1.0 }],
        },
        ..GenConfig::default().with_span(span)
    };
    let v = collect(cfg);
    check(&v, span, 4096, 4096, 12288, "sequential+recent");
    let mut recent: Vec<u64> = Vec::new();
    let mut reads_checked = 0;
    for r in &v {
        match r.op {
            Op::Write => {
                recent.push(r.offset);
                if recent.len() > 8 {
                    recent.remove(0);
                }
            }
            Op::Read if !recent.is_empty() => {
                // Start of one of the last 8 writes (clamped if a larger read would overrun).
                let ok = recent.iter().any(|&o| o == r.offset || (o.min(span - r.size) == r.offset));
                assert!(ok, "read at {} not among recent writes {recent:?}", r.offset);
                reads_checked += 1;
            }
            Op::Read => {}
        }
    }
    assert!(reads_checked > 2000);
}

#[test]
fn duration_limit_stops_the_stream() {
    let cfg = GenConfig {
        count: None,
        duration_s: Some(2.0),
        arrival: Arrival::FixedInterval { mean_us: 1000.0, dist: GapDist::Constant },
        ..GenConfig::default().with_span(1 << 30)
    };
    let v = collect(cfg);
    // Arrivals at 0, 1 ms, ..., 2000 ms inclusive.
    assert_eq!(v.len(), 2001);
    assert_eq!(v[2000].arrival.0, 2_000_000_000);
}

#[test]
fn geometric_size_with_tiny_span_is_rejected_not_clamped() {
    let cfg =
        GenConfig { size: SizeDist::Geometric { mean_bytes: 10_000.0, max_bytes: 1 << 20 }, ..GenConfig::default() }
            .with_span(512 << 10);
    assert!(Generator::new(cfg).is_err(), "max size above the span must be an error");
}
