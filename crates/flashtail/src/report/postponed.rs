//! Flags a scheme that did no GC in the measured window while another scheme of the same
//! comparison did. Such a scheme (a partial-GC policy that found no idle gap to work in, or
//! whose trigger the run never reached) has postponed its GC past the end of the run: its
//! tail looks like the GC-free bound only because the run stopped before the bill came.
//! The flag is data (`RunReport::no_gc_in_window`) plus a marker in the text table; it
//! says nothing about why the scheme postponed.

use crate::stats::RunReport;

/// The marker after a flagged scheme's name in the text table.
pub const NO_GC_MARK: &str = "[no GC]";

/// The footnote under a table with a flagged scheme.
pub const NO_GC_NOTE: &str =
    "= selected no GC victim in the measured window while other schemes did: its latencies reflect postponed GC work, not a better policy";

/// Sets `no_gc_in_window` on every report that selected no victim when at least one other
/// report did (clears it otherwise), and returns how many were flagged.
pub fn flag_postponed_gc(reports: &mut [RunReport]) -> usize {
    let any = reports.iter().any(|r| r.flash.gc_runs > 0);
    let mut n = 0;
    for r in reports.iter_mut() {
        r.no_gc_in_window = any && r.flash.gc_runs == 0;
        n += usize::from(r.no_gc_in_window);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(scheme: &str, victims: u64) -> RunReport {
        let mut r = RunReport { scheme: scheme.into(), ..Default::default() };
        r.flash.gc_runs = victims;
        r.flash.erases = victims;
        r
    }

    #[test]
    fn only_a_scheme_without_gc_beside_one_with_gc_is_flagged() {
        let mut rs = vec![run("nogc", 96), run("rlgc", 0), run("base", 96), run("idle-es", 0)];
        assert_eq!(flag_postponed_gc(&mut rs), 2);
        let flagged: Vec<&str> = rs.iter().filter(|r| r.no_gc_in_window).map(|r| r.scheme.as_str()).collect();
        assert_eq!(flagged, ["rlgc", "idle-es"]);
        let table = crate::report::format_table(&rs);
        assert!(table.contains(&format!("rlgc {NO_GC_MARK}")), "{table}");
        assert!(table.contains(NO_GC_NOTE), "{table}");
        // Nobody collected: the workload never needed GC, and nobody is flagged.
        let mut quiet = vec![run("base", 0), run("rlgc", 0)];
        assert_eq!(flag_postponed_gc(&mut quiet), 0);
        assert!(!crate::report::format_table(&quiet).contains(NO_GC_MARK));
        // The flag is data in the JSON only when set.
        assert!(serde_json::to_string(&rs[1]).unwrap().contains("\"no_gc_in_window\":true"));
        assert!(!serde_json::to_string(&rs[0]).unwrap().contains("no_gc_in_window"));
    }
}
