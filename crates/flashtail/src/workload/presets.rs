//! Named workload presets, each with its source and the assumptions added to it.
//!
//! - `bench-ref`: the project's performance reference workload (fixed by the project brief).
//! - `rlgc-*`: the rows of Table 1 of the RL-GC paper ("Workload Characteristics"):
//!   write ratio, mean inter-arrival time and mean request size are the paper's; everything
//!   else is an assumption stated below.
//! - `splitgc-*`: the FIU workloads of Table 1 of the SplitGC paper ("Workload characterization"): write ratio, duplication rate and mean request size are that
//!   table's. It gives no arrival rate: home1-3 and webmail take the mean interval of the
//!   same FIU traces in RL-GC's Table 1; webresearch and webusers, in neither table, an
//!   assumed 100 ms.
//!
//! Assumptions shared by the trace-like presets (not in the papers):
//! - Arrivals: the FIU and MSR traces are bursty, so a mean interval M is realised as on/off
//!   bursts: 16 requests per burst on average, inner gaps exponential with mean
//!   min(1 ms, M / 8), idle gaps lognormal (sigma 1.5, heavy tailed) with the mean that makes
//!   the overall mean interval exactly M in expectation (`onoff_for_mean_interval`). So 15 of
//!   16 gaps are short and a few are very long. filebench `oltp` is a synthetic closed stream,
//!   so it gets plain Poisson arrivals at 1 / M.
//! - Sizes: 4 KiB-aligned truncated geometric whose mean is the table's "KB" read as KiB;
//!   max 64 KiB (256 KiB for MSNSFS, 512 KiB for RBESQL, whose means are larger).
//! - Addresses: writes hot/cold, 20% of the space takes 80% of writes; reads go to one of the
//!   last 65,536 written offsets (reads of written data, as a replay of a real trace would).
//! - Duplicate popularity (splitgc): Zipf theta 0.8 over earlier contents.
//! - Count 200,000 requests (override with `with_count`); span unset (set with `with_span`).
//!
//! Does not reproduce the traces themselves: only the statistics named above.

use super::arrival::onoff_for_mean_interval;
use super::config::{AddressPattern, Arrival, ContentConfig, GapDist, GenConfig, SizeDist, BLOCK_4K};

/// One preset: name, one-line description (with source), builder.
struct PresetDef {
    name: &'static str,
    description: &'static str,
    build: fn() -> GenConfig,
}

/// RL-GC Table 1: (name, write ratio, mean interval us, mean size KB).
const RLGC_TABLE1: [(&str, f64, f64, f64); 9] = [
    ("home1", 0.99, 85_565.0, 8.08),
    ("home2", 0.91, 320_548.0, 9.4),
    ("home3", 0.99, 1_882_329.0, 8.26),
    ("home4", 0.94, 693_651.0, 7.56),
    ("webmail", 0.74, 303_762.0, 8.0),
    ("webmail+online", 0.78, 127_184.0, 8.0),
    ("RBESQL", 0.82, 11_664.0, 57.85),
    ("MSNSFS", 0.67, 739.0, 21.67),
    ("oltp", 0.99, 84.0, 4.46),
];

/// SplitGC Table 1: (name, write ratio, duplication rate, mean size KB).
pub const SPLITGC_TABLE1: [(&str, f64, f64, f64); 6] = [
    ("home1", 0.986, 0.453, 8.25),
    ("home2", 0.869, 0.336, 10.93),
    ("home3", 0.990, 0.360, 8.26),
    ("webmail", 0.696, 0.701, 8.00),
    ("webresearch", 0.999, 0.752, 8.00),
    ("webusers", 0.893, 0.635, 8.76),
];

/// Mean interval (µs) of a SplitGC workload: RL-GC's Table 1 for the traces it lists (the
/// same FIU traces), else 100 ms (assumed).
fn splitgc_interval_us(name: &str) -> f64 {
    RLGC_TABLE1.iter().find(|r| r.0 == name).map_or(100_000.0, |r| r.2)
}

const TRACE_COUNT: u64 = 200_000;
const BURST_LEN: f64 = 16.0;

fn trace_like(write_ratio: f64, arrival: Arrival, size: SizeDist) -> GenConfig {
    GenConfig {
        count: Some(TRACE_COUNT),
        // Rounded so 1 - 0.99 prints as 0.01, not 0.010000000000000009.
        read_ratio: ((1.0 - write_ratio) * 1e9).round() / 1e9,
        address: AddressPattern::Hotcold { hot_fraction_of_space: 0.2, hot_fraction_of_accesses: 0.8 },
        read_address: Some(AddressPattern::RecentWrites { window: 65_536 }),
        size,
        arrival,
        ..GenConfig::default()
    }
}

fn bursty(mean_interval_us: f64) -> Arrival {
    let inner_us = (mean_interval_us / 8.0).min(1000.0);
    let p = onoff_for_mean_interval(mean_interval_us, 1e6 / inner_us, BURST_LEN);
    Arrival::Onoff {
        burst_iops: p.burst_iops,
        target_idle_share: p.target_idle_share,
        mean_idle_ms: p.mean_idle_ms,
        idle_dist: GapDist::Lognormal { sigma: 1.5 },
    }
}

/// The Table 1 row `name` as a configuration.
fn rlgc(name: &str) -> GenConfig {
    let row = RLGC_TABLE1.iter().find(|r| r.0 == name).copied().unwrap_or(RLGC_TABLE1[0]);
    let (_, w, interval_us, size_kb) = row;
    let arrival = if name == "oltp" { Arrival::Poisson { iops: 1e6 / interval_us } } else { bursty(interval_us) };
    let max_bytes = match name {
        "RBESQL" => 512 * 1024,
        "MSNSFS" => 256 * 1024,
        _ => 64 * 1024,
    };
    trace_like(w, arrival, SizeDist::Geometric { mean_bytes: size_kb * 1024.0, max_bytes })
}

fn splitgc(name: &str) -> GenConfig {
    let row = SPLITGC_TABLE1.iter().find(|r| r.0 == name).copied().unwrap_or(SPLITGC_TABLE1[0]);
    let (_, w, dup, size_kb) = row;
    let size = SizeDist::Geometric { mean_bytes: size_kb * 1024.0, max_bytes: 64 * 1024 };
    let mut c = trace_like(w, bursty(splitgc_interval_us(name)), size);
    c.content = ContentConfig { fingerprints: true, dup_rate: dup, dup_theta: 0.8 };
    c
}

fn bench_ref() -> GenConfig {
    GenConfig {
        count: Some(1_000_000),
        duration_s: None,
        span_bytes: 0,
        align_bytes: BLOCK_4K,
        read_ratio: 0.3,
        address: AddressPattern::Uniform,
        read_address: None,
        sequential_share: 0.0,
        size: SizeDist::Uniform { min_bytes: BLOCK_4K, max_bytes: 4 * BLOCK_4K },
        arrival: Arrival::Poisson { iops: 1000.0 },
        content: ContentConfig::default(),
        seed: 42,
    }
}

macro_rules! rl {
    ($n:literal, $d:literal) => {
        PresetDef { name: concat!("rlgc-", $n), description: $d, build: || rlgc($n) }
    };
}
macro_rules! sg {
    ($n:literal, $d:literal) => {
        PresetDef { name: concat!("splitgc-", $n), description: $d, build: || splitgc($n) }
    };
}

const PRESETS: &[PresetDef] = &[
    PresetDef {
        name: "bench-ref",
        description: "performance reference: 1M uniform 4-16 KiB requests, 70% writes, Poisson 1000 IOPS, seed 42 (project brief)",
        build: bench_ref,
    },
    rl!("home1", "RL-GC Table 1 FIU home1: 99% writes, 85,565 us mean interval (bursty), 8.08 KB"),
    rl!("home2", "RL-GC Table 1 FIU home2: 91% writes, 320,548 us mean interval (bursty), 9.4 KB"),
    rl!("home3", "RL-GC Table 1 FIU home3: 99% writes, 1,882,329 us mean interval (bursty), 8.26 KB"),
    rl!("home4", "RL-GC Table 1 FIU home4: 94% writes, 693,651 us mean interval (bursty), 7.56 KB"),
    rl!("webmail", "RL-GC Table 1 FIU webmail: 74% writes, 303,762 us mean interval (bursty), 8 KB"),
    rl!("webmail+online", "RL-GC Table 1 FIU webmail+online: 78% writes, 127,184 us mean interval (bursty), 8 KB"),
    rl!("RBESQL", "RL-GC Table 1 MSR RBESQL: 82% writes, 11,664 us mean interval (bursty), 57.85 KB"),
    rl!("MSNSFS", "RL-GC Table 1 MSR MSNSFS: 67% writes, 739 us mean interval (bursty), 21.67 KB"),
    rl!("oltp", "RL-GC Table 1 filebench oltp: 99% writes, 84 us mean interval (Poisson), 4.46 KB"),
    sg!("home1", "SplitGC Table 1 FIU home1: 98.6% writes, 45.3% duplicates, 8.25 KB; rlgc-home1's 85,565 us interval"),
    sg!("home2", "SplitGC Table 1 FIU home2: 86.9% writes, 33.6% duplicates, 10.93 KB; rlgc-home2's 320,548 us interval"),
    sg!("home3", "SplitGC Table 1 FIU home3: 99.0% writes, 36.0% duplicates, 8.26 KB; rlgc-home3's 1,882,329 us interval"),
    sg!("webmail", "SplitGC Table 1 FIU webmail: 69.6% writes, 70.1% duplicates, 8.00 KB; rlgc-webmail's 303,762 us interval"),
    sg!("webresearch", "SplitGC Table 1 FIU webresearch: 99.9% writes, 75.2% duplicates, 8.00 KB; 100 ms mean interval (assumed)"),
    sg!("webusers", "SplitGC Table 1 FIU webusers: 89.3% writes, 63.5% duplicates, 8.76 KB; 100 ms mean interval (assumed)"),
];

/// The preset called `name` (span unset: call `with_span`), or `None` if there is none.
pub fn preset(name: &str) -> Option<GenConfig> {
    PRESETS.iter().find(|p| p.name == name).map(|p| (p.build)())
}

/// Every preset name, in listing order.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

/// The one-line description (with source) of a preset.
pub fn preset_description(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.name == name).map(|p| p.description)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_validates_once_given_a_span() {
        for n in preset_names() {
            let c = preset(n).map(|c| c.with_span(64 << 30));
            assert!(c.is_some(), "{n}");
            if let Some(c) = c {
                assert!(c.validate().is_ok(), "{n}: {:?}", c.validate());
            }
        }
        assert!(preset("bench-ref").is_some_and(|c| c.validate().is_err()), "span must be required");
        assert!(preset("nope").is_none());
    }
}
