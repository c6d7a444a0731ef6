//! Sorting provenance notes for the page: which facts hold for every run of a comparison
//! and which differ between runs. Each run's ingestion and replay facts
//! (`RunReport::workload_notes`) are the authority: a comparison's `CompareMeta::notes`
//! may copy one run's notes, and showing those as if they held for every run would be
//! wrong when, e.g., only some schemes wrapped requests into capacity. Pure data; the
//! HTML lives in `html.rs`.

use crate::stats::RunReport;
use std::collections::BTreeSet;

/// Notes split by whether every run agrees on them.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct SortedNotes {
    /// Facts true for the whole comparison: (key, value).
    pub common: Vec<(String, String)>,
    /// Facts that differ between runs (or that some runs lack): key, then each run's
    /// value in report order (`None`: the run did not report it).
    pub per_run: Vec<(String, Vec<Option<String>>)>,
}

/// Splits `meta_notes` and every report's `workload_notes` into common and per-run facts.
/// A key any report carries is decided by the reports alone (common only when every run
/// has the same value); meta notes with other keys (seed, device source, ...) are common.
/// Common facts from the reports come first, in key order, then the remaining meta notes
/// in their given order.
pub(crate) fn sort_notes(meta_notes: &[(String, String)], reports: &[RunReport]) -> SortedNotes {
    let keys: BTreeSet<&String> = reports
        .iter()
        .flat_map(|r| r.workload_notes.keys())
        .collect();
    let mut out = SortedNotes::default();
    for key in &keys {
        let values: Vec<Option<String>> = reports
            .iter()
            .map(|r| r.workload_notes.get(*key).cloned())
            .collect();
        match values.first() {
            Some(Some(first)) if values.iter().all(|v| v.as_ref() == Some(first)) => {
                out.common.push(((*key).clone(), first.clone()));
            }
            _ => out.per_run.push(((*key).clone(), values)),
        }
    }
    out.common.extend(
        meta_notes
            .iter()
            .filter(|(k, _)| !keys.contains(k))
            .cloned(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(notes: &[(&str, &str)]) -> RunReport {
        RunReport {
            workload_notes: notes
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn differing_and_missing_notes_are_per_run() {
        let meta = vec![
            (
                "requests_wrapped_into_capacity".to_string(),
                "0".to_string(),
            ),
            ("seed".to_string(), "1".to_string()),
        ];
        let reports = [
            run(&[("format", "msr"), ("requests_wrapped_into_capacity", "0")]),
            run(&[
                ("format", "msr"),
                ("requests_wrapped_into_capacity", "36316"),
                ("x", "1"),
            ]),
        ];
        let s = sort_notes(&meta, &reports);
        assert_eq!(
            s.common,
            vec![
                ("format".to_string(), "msr".to_string()),
                ("seed".to_string(), "1".to_string())
            ]
        );
        assert_eq!(
            s.per_run,
            vec![
                (
                    "requests_wrapped_into_capacity".to_string(),
                    vec![Some("0".to_string()), Some("36316".to_string())]
                ),
                ("x".to_string(), vec![None, Some("1".to_string())]),
            ]
        );
    }

    #[test]
    fn without_reports_meta_notes_are_common() {
        let meta = vec![("trace".to_string(), "t".to_string())];
        let s = sort_notes(&meta, &[]);
        assert_eq!(s.common, meta);
        assert!(s.per_run.is_empty());
    }
}
