//! The result of one simulation run, as written to JSON and read by `report` (HTML/CSV).
//!
//! Every field is documented because users put these numbers in papers; the JSON keys are
//! the field names. Latencies are integer nanoseconds.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Latency statistics of one class of requests (reads, writes or all).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    /// Number of completed requests in the class.
    pub count: u64,
    pub mean_ns: f64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p99_9_ns: u64,
    pub p99_99_ns: u64,
    pub p99_999_ns: u64,
    pub max_ns: u64,
    /// For each reported percentile, how many samples lie at or above it: the evidence
    /// behind the number (p99.99 of 100k requests rests on 10 samples).
    pub samples_at_or_above: BTreeMap<String, u64>,
    /// True when percentiles come from every exact sample; false when from a histogram
    /// (then `relative_error` bounds them).
    pub exact: bool,
    pub relative_error: f64,
    /// With `exact` false (latency mode `tail`): values at quantiles at or above this one
    /// (rank ≥ this × count) are exact; those below come from the histogram.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_from_quantile: Option<f64>,
}

/// Points of an empirical CDF, dense in the tail: `(latency_ns, fraction <= latency)`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Cdf {
    pub points: Vec<(u64, f64)>,
}

/// Flash-level work counted over the run (timed phase only, not preconditioning).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FlashCounts {
    /// Pages programmed for host writes (including buffer flushes).
    pub host_pages_programmed: u64,
    /// Pages programmed by GC migration (not counting copyback separately).
    pub gc_pages_programmed: u64,
    /// Parity pages programmed (RAIN).
    pub parity_pages_programmed: u64,
    /// Valid pages moved by GC (copyback or read+program).
    pub gc_pages_migrated: u64,
    /// Of those, moved by intra-plane copyback.
    pub copybacks: u64,
    /// Page reads issued to flash for host reads (including parity-rebuild reads).
    pub host_pages_read: u64,
    /// Reads served from the controller's DRAM (write buffer or in-flight write data).
    pub buffer_hits: u64,
    /// Block erases: the victims GC finished.
    pub erases: u64,
    /// Victim blocks selected (one GC run = one victim chosen). A victim stays chosen until
    /// its erase and is never chosen twice, so this is `erases` plus the victims still being
    /// collected when the run ended (at most one per plane: partial GC, which moves a victim
    /// in bounded tasks, can leave them half moved).
    pub gc_runs: u64,
    /// Program/erase suspensions for reads.
    pub suspends: u64,
    /// (host + gc + parity pages programmed) / host pages programmed; 0 when no host page was
    /// programmed (undefined: tables print `n/a`), however much GC programmed.
    pub waf: f64,
    /// Extra counters a scheme adds (e.g. deferred migrations, rebuilt reads).
    pub extra: BTreeMap<String, u64>,
}

/// Why requests waited: total wait time (ns) attributed to each cause, and the share of
/// requests that waited on GC at all.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct WaitBreakdown {
    /// Requests with at least one sub-request that waited behind a GC operation.
    pub requests_waited_on_gc: u64,
    pub share_waited_on_gc: f64,
    /// Reads among them (ttFlash's "GC-blocked reads").
    pub reads_waited_on_gc: u64,
    pub share_reads_waited_on_gc: f64,
    /// Total wait (ns, summed over sub-requests) by cause: `user_op`, `gc_copy`,
    /// `gc_erase`, `background`, `channel`, `buffer`, `free_space`, `power_cut` (per request).
    pub wait_ns_by_cause: BTreeMap<String, u64>,
}

/// One sample of free space over simulated time.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FreeBlocksSample {
    pub time_ns: u64,
    /// Free blocks summed over all planes.
    pub total_free_blocks: u64,
    /// The fewest free blocks of any plane.
    pub min_plane_free_blocks: u64,
}

/// Integrity-oracle and conservation counters.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct IntegrityReport {
    pub oracle_enabled: bool,
    /// Page reads whose returned version was checked against the newest written version.
    pub reads_checked: u64,
    /// Reads that returned a stale or wrong version (must be 0; the run fails loudly).
    pub violations: u64,
    pub requests_submitted: u64,
    pub requests_completed: u64,
}

/// Cost of the run on the host machine.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunCost {
    pub wall_seconds: f64,
    pub precondition_seconds: f64,
    /// Peak resident memory of the process (bytes), read from the OS; shared by
    /// runs executing in parallel.
    pub peak_rss_bytes: u64,
    pub events: u64,
    pub simulated_requests_per_second: f64,
}

impl RunCost {
    /// Zero the fields that measure the host machine (wall time, memory, speed), keeping the
    /// event count: outputs then depend only on inputs and seed, byte for byte.
    pub fn strip_machine(&mut self) {
        self.wall_seconds = 0.0;
        self.precondition_seconds = 0.0;
        self.peak_rss_bytes = 0;
        self.simulated_requests_per_second = 0.0;
    }
}

/// The full result of one run of one scheme.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunReport {
    pub flashtail_version: String,
    pub scheme: String,
    pub device: String,
    /// The request source (trace file and format, or generator parameters).
    pub workload: String,
    /// Facts about ingestion and replay (lines skipped, requests wrapped, time scale, ...).
    pub workload_notes: BTreeMap<String, String>,
    pub seed: u64,
    /// Simulated time from the first arrival to the last completion.
    pub sim_time_ns: u64,
    pub reads: LatencySummary,
    pub writes: LatencySummary,
    pub all: LatencySummary,
    pub cdf_reads: Cdf,
    pub cdf_writes: Cdf,
    pub cdf_all: Cdf,
    /// Bandwidth and IOPS over the run's span, and how requests entered the device
    /// (`stats::throughput`). Absent from reports written before it existed (read back as
    /// zeros).
    #[serde(default)]
    pub throughput: super::throughput::Throughput,
    pub flash: FlashCounts,
    pub waits: WaitBreakdown,
    /// What the slowest requests waited for (`stats::tail`). Absent from reports written
    /// before it existed (read back as empty).
    #[serde(default)]
    pub tail: super::tail::TailReport,
    pub free_blocks: Vec<FreeBlocksSample>,
    pub integrity: IntegrityReport,
    pub cost: RunCost,
    /// The scheme selected no GC victim in the measured window while another scheme of the
    /// same comparison did (`report::flag_postponed_gc`): its latencies reflect GC work it
    /// postponed past the end of the run, not a better policy. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_gc_in_window: bool,
    /// Scheme-specific output (e.g. the RL agent's Q-table), free-form JSON.
    pub scheme_details: serde_json::Value,
    /// The complete configuration of the run (device, scheme parameters, workload), so a
    /// figure can carry its provenance.
    pub config: serde_json::Value,
}
