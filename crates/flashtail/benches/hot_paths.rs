//! Micro-benchmarks of the simulator's hot paths (criterion; `cargo bench -p flashtail`):
//! the event queue, a mapping update, greedy victim selection, phase-duration lookup and
//! preconditioning. Each isolates one cost seen in profiles of the `bench-ref` run; the
//! end-to-end figure is `flashtail bench` (see docs/performance.md).
//!
//! Inputs are seeded, so every run measures the same work.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use flashtail::config::presets;
use flashtail::ftl::precondition::precondition;
use flashtail::ftl::Ftl;
use flashtail::gc::build_victim;
use flashtail::scheduler::events::EventQueue;
use flashtail::scheduler::{PhaseCosts, Txn, TxnKind};
use flashtail::units::{Lpn, Nanos, PlaneId, Ppn};
use flashtail::DeviceConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn bench_ref() -> DeviceConfig {
    presets::load("bench-ref").expect("bundled preset")
}

/// A bench-ref FTL after steady-state preconditioning (80% filled, GC-ready planes).
fn preconditioned(dev: &DeviceConfig) -> Ftl {
    let geo = dev.geometry.clone();
    let mut ftl = Ftl::new(&geo, dev.logical_pages(), dev.logical_pages());
    precondition(&mut ftl, dev, 1, &|l| geo.static_plane(Lpn(l)), None, None).expect("preconditioning");
    ftl
}

/// Steady state of the engine's queue: ~64 pending events (one per unit of bench-ref); each
/// step pops the earliest and schedules a follow-up 12 µs to 3.8 ms later.
fn event_queue(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let delays: Vec<u64> = (0..4096).map(|_| [12_400, 75_000, 750_000, 3_800_000][rng.gen_range(0..4)]).collect();
    let mut q = EventQueue::default();
    let mut seq = 0u64;
    for u in 0..64u32 {
        seq += 1;
        q.push(delays[u as usize], seq, u);
    }
    let mut i = 0usize;
    c.bench_function("event_queue/pop+push, 64 pending", |b| {
        b.iter(|| {
            let (t, _, u) = q.pop().expect("never empty");
            seq += 1;
            i = (i + 1) % delays.len();
            q.push(t + delays[i], seq, u);
            black_box(t)
        })
    });
}

/// The same steady state on `std::collections::BinaryHeap` with a derived-order event (what
/// the engine used before), for comparison.
fn event_queue_std(c: &mut Criterion) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let delays: Vec<u64> = (0..4096).map(|_| [12_400, 75_000, 750_000, 3_800_000][rng.gen_range(0..4)]).collect();
    let mut q: BinaryHeap<Reverse<(u64, u64, u8, u32)>> = BinaryHeap::new();
    let mut seq = 0u64;
    for u in 0..64u32 {
        seq += 1;
        q.push(Reverse((delays[u as usize], seq, 0, u)));
    }
    let mut i = 0usize;
    c.bench_function("event_queue/std BinaryHeap pop+push, 64 pending", |b| {
        b.iter(|| {
            let Reverse((t, _, k, u)) = q.pop().expect("never empty");
            seq += 1;
            i = (i + 1) % delays.len();
            q.push(Reverse((t + delays[i], seq, k, u)));
            black_box(t)
        })
    });
}

/// Map a random logical page to a fresh physical page and unmap it again: the L2P/P2L
/// updates, the valid bitmap and the per-block valid counts of one host write.
fn mapping_update(c: &mut Criterion) {
    let dev = bench_ref();
    let geo = dev.geometry.clone();
    let mut ftl = Ftl::new(&geo, dev.logical_pages(), dev.logical_pages());
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let lpns: Vec<u32> = (0..1 << 16).map(|_| rng.gen_range(0..dev.logical_pages())).collect();
    let total = geo.total_pages();
    let (mut i, mut p) = (0usize, 0u32);
    c.bench_function("mapping/map+unmap random LPN (bench-ref)", |b| {
        b.iter(|| {
            let l = Lpn(lpns[i]);
            i = (i + 1) & (lpns.len() - 1);
            p = if p + 1 == total { 0 } else { p + 1 };
            ftl.map(l, Ppn(p));
            ftl.unmap(l);
        })
    });
}

/// Greedy victim choice on one plane of a preconditioned bench-ref device (256 blocks), and
/// the GC scan for the next valid page of a block.
fn victim_selection(c: &mut Criterion) {
    let dev = bench_ref();
    let ftl = preconditioned(&dev);
    let mut greedy = build_victim("greedy", 1).expect("greedy exists");
    let planes = dev.geometry.planes();
    let mut p = 0u32;
    c.bench_function("victim/greedy select, 256 blocks", |b| {
        b.iter(|| {
            p = (p + 1) % planes;
            black_box(greedy.select(&ftl, PlaneId(p), 1, Nanos(0)))
        })
    });
    let ppb = dev.geometry.pages_per_block;
    let blocks = dev.geometry.total_blocks();
    let mut blk = 0u32;
    c.bench_function("victim/scan a block for valid pages", |b| {
        b.iter(|| {
            blk = (blk + 1) % blocks;
            let (mut from, mut n) = (0, 0u32);
            while let Some(src) = ftl.next_valid_in_block(flashtail::units::BlockId(blk), from) {
                from = src.0 % ppb + 1;
                n += 1;
            }
            black_box(n)
        })
    });
}

/// Duration of a transaction's phase from the precomputed table.
fn phase_lookup(c: &mut Criterion) {
    let dev = bench_ref();
    let costs = PhaseCosts::new(&dev.geometry, &dev.timing);
    let kinds = [TxnKind::Read, TxnKind::Write, TxnKind::GcCopy, TxnKind::Erase];
    let txns: Vec<Txn> = (0..64u32)
        .map(|i| Txn { lpn: i, ppn: i * 7, dst: i * 11, req: 0, ..Txn::probe(kinds[i as usize % 4]) })
        .collect();
    let mut i = 0usize;
    c.bench_function("phase/duration lookup", |b| {
        b.iter(|| {
            i = (i + 1) % (txns.len() * 5);
            black_box(txns[i / 5].phase((i % 5) as u8, &costs))
        })
    });
}

/// Steady-state preconditioning of bench-ref (2 Mi physical pages).
fn preconditioning(c: &mut Criterion) {
    let dev = bench_ref();
    let geo = dev.geometry.clone();
    let mut g = c.benchmark_group("precondition");
    g.sample_size(10);
    g.bench_function("bench-ref steady 80%", |b| {
        b.iter_batched(
            || Ftl::new(&geo, dev.logical_pages(), dev.logical_pages()),
            |mut ftl| {
                precondition(&mut ftl, &dev, 1, &|l| geo.static_plane(Lpn(l)), None, None).expect("preconditioning");
                ftl
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, event_queue, event_queue_std, mapping_update, victim_selection, phase_lookup, preconditioning);
criterion_main!(benches);
