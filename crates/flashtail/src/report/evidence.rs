//! Honest small samples and honest "faster than the lower bound" cells: which percentiles
//! rest on too few samples to mean much, and why a scheme can beat `nogc`.
//!
//! A percentile is *thin* when fewer than [`THIN_SAMPLES`] completed requests lie at or
//! above its value (the summary's `samples_at_or_above`): on 508 reads, p99.9, p99.99 and
//! the maximum are one and the same request. Every table, CSV and figure marks thin
//! percentiles with [`THIN_MARK`]. The maximum is not marked: it rests on one sample by
//! definition and is read as such.
//!
//! `nogc` removes GC's cost but not the device's other limits, so a scheme that changes
//! what a request does (buffers writes, rebuilds reads from parity, routes around a busy
//! channel) can be faster than it. [`below_reference_reason`] names that mechanism for the
//! schemes that have one; other ratios below 1 are left unexplained rather than guessed.

use crate::stats::LatencySummary;

/// A percentile with fewer samples at or above its value than this is marked thin.
pub const THIN_SAMPLES: u64 = 10;

/// The mark a thin percentile carries in tables, CSV notes and figures.
pub const THIN_MARK: &str = "†";

/// The legend line every thin mark refers to.
pub fn thin_legend() -> String {
    format!(
        "{THIN_MARK} rests on fewer than {THIN_SAMPLES} samples at or above the value: \
         read it as a single observation, not a percentile"
    )
}

/// Whether percentile `name` ("p99.9") of `s` is thin. Names the summary has no evidence
/// for (e.g. "max", "mean") are never thin.
pub fn is_thin(s: &LatencySummary, name: &str) -> bool {
    s.count > 0
        && s.samples_at_or_above
            .get(name)
            .is_some_and(|&n| n < THIN_SAMPLES)
}

/// The thin percentiles of `s`, in increasing order ("p99.9;p99.99;p99.999" in the CSV).
pub fn thin_percentiles(s: &LatencySummary) -> Vec<&'static str> {
    crate::stats::PERCENTILES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| is_thin(s, n))
        .collect()
}

/// `text` with the thin mark appended when percentile `name` of `s` is thin.
pub fn mark_thin(text: String, s: &LatencySummary, name: &str) -> String {
    if is_thin(s, name) {
        text + THIN_MARK
    } else {
        text
    }
}

/// Why scheme `scheme`'s `op` ("read" or "write") latency can be below `nogc`'s, when the
/// scheme has a known mechanism for it.
pub fn below_reference_reason(scheme: &str, op: &str) -> Option<&'static str> {
    let s = scheme.to_ascii_lowercase();
    match (s.as_str(), op) {
        ("ttflash", "write") => Some("write buffer: ttFlash acknowledges writes from its capacitor-backed stripe buffer"),
        ("ttflash" | "ttflash-gtr" | "ttflash-rgc", "read") => {
            Some("parity rebuild: a read on a busy plane is rebuilt from its RAIN stripe instead of waiting")
        }
        ("venice" | "gc-bypass", _) => {
            Some("interconnect: the mesh routes transfers around busy links that a shared channel bus would queue on")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(count: u64, above: &[(&str, u64)]) -> LatencySummary {
        LatencySummary {
            count,
            samples_at_or_above: above.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn fewer_than_ten_samples_is_thin() {
        let s = summary(508, &[("p99", 6), ("p99.9", 1), ("p90", 51)]);
        assert!(is_thin(&s, "p99"));
        assert!(!is_thin(&s, "p90"));
        assert!(!is_thin(&s, "max"));
        assert_eq!(thin_percentiles(&s), ["p99", "p99.9"]);
        assert_eq!(mark_thin("3.1".into(), &s, "p99.9"), "3.1†");
        let big = summary(100_000, &[("p99.99", 10)]);
        assert!(!is_thin(&big, "p99.99"));
        // No requests: nothing to mark.
        assert!(!is_thin(&summary(0, &[("p99", 0)]), "p99"));
    }

    #[test]
    fn reasons_only_for_known_mechanisms() {
        assert!(below_reference_reason("ttflash", "write").unwrap().starts_with("write buffer"));
        assert!(below_reference_reason("ttflash-gtr", "read").unwrap().starts_with("parity rebuild"));
        assert!(below_reference_reason("gc-bypass", "read").unwrap().starts_with("interconnect"));
        assert_eq!(below_reference_reason("base", "read"), None);
        assert_eq!(below_reference_reason("ttflash-pbl", "read"), None);
    }
}
