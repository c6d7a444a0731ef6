//! Replay controls give exact, predictable request streams.

use flashtail::trace::{replay, ReplayOptions};
use flashtail::{HostRequest, Nanos, Op, RequestSource, VecSource};

fn w(t: u64, off: u64, size: u64) -> HostRequest {
    HostRequest::new(Nanos(t), off, size, Op::Write)
}

/// (arrival, offset, size) of each request, and the summary.
type Out = (Vec<(u64, u64, u64)>, Vec<(String, String)>);

fn run(reqs: Vec<HostRequest>, o: ReplayOptions, cap: u64, page: u64) -> Out {
    let mut src = replay(Box::new(VecSource::new(reqs)), &o, cap, page);
    let mut out = Vec::new();
    while let Some(r) = src.next_request().unwrap() {
        out.push((r.arrival.0, r.offset, r.size));
    }
    (out, src.summary())
}

fn get<'a>(s: &'a [(String, String)], k: &str) -> &'a str {
    s.iter()
        .find(|(a, _)| a == k)
        .map(|(_, v)| v.as_str())
        .unwrap_or("")
}

const BIG: u64 = 1 << 40;

#[test]
fn default_is_identity_for_aligned_requests() {
    let reqs = vec![w(0, 0, 4096), w(7, 8192, 8192)];
    let (out, s) = run(reqs, ReplayOptions::default(), BIG, 4096);
    assert_eq!(out, vec![(0, 0, 4096), (7, 8192, 8192)]);
    assert_eq!(
        (get(&s, "replay_wrapped"), get(&s, "replay_realigned")),
        ("0", "0")
    );
}

#[test]
fn time_scale_two_halves_arrivals() {
    let reqs = vec![w(0, 0, 4096), w(1_000, 0, 4096), w(3_000_000, 0, 4096)];
    let o = ReplayOptions {
        time_scale: 2.0,
        ..ReplayOptions::default()
    };
    let (out, s) = run(reqs, o, BIG, 4096);
    let t: Vec<u64> = out.iter().map(|x| x.0).collect();
    assert_eq!(t, vec![0, 500, 1_500_000]);
    assert_eq!(get(&s, "replay_time_scale"), "2");
}

#[test]
fn window_selects_and_shifts_to_zero() {
    let s = 1_000_000_000;
    let reqs = vec![
        w(s / 2, 0, 4096),
        w(s, 4096, 4096),
        w(2 * s, 8192, 4096),
        w(3 * s, 0, 4096),
    ];
    let o = ReplayOptions {
        start_s: Some(1.0),
        end_s: Some(3.0),
        ..ReplayOptions::default()
    };
    let (out, sum) = run(reqs, o, BIG, 4096);
    assert_eq!(out, vec![(0, 4096, 4096), (s, 8192, 4096)]);
    assert_eq!(get(&sum, "replay_skipped_before_window"), "1");
    assert_eq!(get(&sum, "replay_window_s"), "1:3");
}

#[test]
fn alignment_and_wrap_are_counted() {
    // Capacity 16 KiB, page 4 KiB.
    let reqs = vec![
        w(0, 20 * 1024, 4096), // beyond: 20K % 16K = 4K
        w(1, 14 * 1024, 4096), // aligned to 12K..20K (8K), end > 16K: moved to 8K
        w(2, 1000, 100),       // aligned to 0..4K
        w(3, 0, 64 * 1024),    // larger than capacity: truncated to 16K at 0
    ];
    let (out, s) = run(reqs, ReplayOptions::default(), 16 * 1024 + 100, 4096);
    assert_eq!(
        out,
        vec![
            (0, 4096, 4096),
            (1, 8192, 8192),
            (2, 0, 4096),
            (3, 0, 16384)
        ]
    );
    assert_eq!(get(&s, "replay_wrapped"), "3");
    assert_eq!(get(&s, "replay_truncated_to_capacity"), "1");
    assert_eq!(get(&s, "replay_realigned"), "2");
    assert_eq!(get(&s, "replay_wrap_capacity_bytes"), "16384");
    // Without wrap, requests reaching beyond the capacity are dropped and counted (the
    // engine would otherwise fold them); the rest pass unchanged.
    let o = ReplayOptions {
        wrap: false,
        align: false,
        ..ReplayOptions::default()
    };
    let reqs = vec![
        w(0, 20 * 1024, 4096),
        w(1, 4096, 4096),
        w(2, 14 * 1024, 4096),
    ];
    let (out, s) = run(reqs, o, 16 * 1024, 4096);
    assert_eq!(out, vec![(1, 4096, 4096)]);
    assert_eq!(get(&s, "replay_beyond_capacity"), "2");
    assert_eq!(get(&s, "replay_requests"), "1");
    assert_eq!(get(&s, "replay_wrapped"), "0");
}

#[test]
fn no_wrap_drops_beyond_capacity_in_every_loop_and_says_why_when_empty() {
    let o = ReplayOptions {
        wrap: false,
        loops: 3,
        loop_offset: Some(8192),
        ..ReplayOptions::default()
    };
    // Loop k shifts by 8 KiB: the 4 KiB request at 4 KiB fits twice in 16 KiB, not a third time.
    let (out, s) = run(vec![w(0, 4096, 4096)], o, 16 * 1024, 4096);
    assert_eq!(out.iter().map(|r| r.1).collect::<Vec<_>>(), vec![4096, 12288]);
    assert_eq!(get(&s, "replay_beyond_capacity"), "1");
    let o = ReplayOptions {
        wrap: false,
        ..ReplayOptions::default()
    };
    let mut src = replay(Box::new(VecSource::new(vec![w(0, 1 << 20, 4096)])), &o, 16 * 1024, 4096);
    assert_eq!(src.next_request().unwrap(), None);
    assert_eq!(
        src.empty_reason().as_deref(),
        Some(
            "every request reaches beyond the logical capacity (16384 bytes) and --no-wrap \
             drops such requests (1 dropped)"
        )
    );
    let o = ReplayOptions {
        start_s: Some(5.0),
        ..ReplayOptions::default()
    };
    let mut src = replay(Box::new(VecSource::new(vec![w(0, 0, 4096), w(1, 0, 4096)])), &o, BIG, 4096);
    assert_eq!(src.next_request().unwrap(), None);
    assert_eq!(
        src.empty_reason().as_deref(),
        Some("no request in --window 5: (2 requests before its start)")
    );
}

#[test]
fn loops_shift_time_and_address() {
    let reqs = vec![w(0, 0, 4096), w(1_000, 4096, 4096), w(2_000, 8192, 4096)];
    let o = ReplayOptions {
        loops: 3,
        ..ReplayOptions::default()
    };
    let (out, s) = run(reqs.clone(), o, BIG, 4096);
    // Period = last arrival (2000) + mean gap (1000); loop offset = slice extent (12 KiB).
    let want: Vec<(u64, u64, u64)> = (0..3u64)
        .flat_map(|k| (0..3u64).map(move |i| (k * 3_000 + i * 1_000, k * 12_288 + i * 4096, 4096)))
        .collect();
    assert_eq!(out, want);
    assert_eq!(
        (
            get(&s, "replay_loop_period_ns"),
            get(&s, "replay_loop_offset_bytes")
        ),
        ("3000", "12288")
    );
    assert_eq!(get(&s, "replay_requests"), "9");
    // Explicit loop offset, combined with scaling and wrap into 16 KiB.
    let o = ReplayOptions {
        loops: 2,
        loop_offset: Some(4096),
        time_scale: 2.0,
        ..ReplayOptions::default()
    };
    let (out, s) = run(reqs, o, 16 * 1024, 4096);
    assert_eq!(
        out,
        vec![
            (0, 0, 4096),
            (500, 4096, 4096),
            (1000, 8192, 4096),
            (1500, 4096, 4096),
            (2000, 8192, 4096),
            (2500, 12288, 4096)
        ]
    );
    assert_eq!(get(&s, "replay_wrapped"), "0");
}

#[test]
fn loops_whose_address_shift_overflows_are_an_error() {
    // A slice reaching 2^64 - 4096: loop 1 cannot move it. The shift saturated, and every
    // request of the later loops landed on the capacity's last page.
    let top = u64::MAX - 4095;
    let reqs = vec![w(0, top - 4096, 4096), w(10, 0, 4096)];
    let o = ReplayOptions {
        loops: 3,
        ..ReplayOptions::default()
    };
    let mut src = replay(Box::new(VecSource::new(reqs.clone())), &o, BIG, 4096);
    // The first pass is served as it is; the error comes where loop 1 would start.
    assert_eq!(src.next_request().unwrap().map(|r| r.offset), Some((top - 4096) % BIG));
    assert_eq!(src.next_request().unwrap().map(|r| r.offset), Some(0));
    let e = src.next_request().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "--loops 3: loop 2 would shift the slice (offsets up to {top} bytes) by 2 x {top} bytes, \
             beyond 64-bit byte offsets: use fewer --loops or a smaller --loop-offset"
        )
    );
    // A slice two pages lower, shifted a page per loop, ends exactly at 2^64 - 4096: allowed.
    let reqs = vec![w(0, top - 3 * 4096, 4096), w(10, 0, 4096)];
    let o = ReplayOptions {
        loops: 3,
        loop_offset: Some(4096),
        ..ReplayOptions::default()
    };
    let (out, _) = run(reqs, o, BIG, 4096);
    assert_eq!(out.len(), 6);
    assert_eq!(out[3].1, 4096);
    assert_eq!(out[5].1, 8192);
}
