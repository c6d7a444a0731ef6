//! Warnings about how a run's input met the device, for the console (`run`, `compare`):
//! a trace folded many times into the device's host capacity, reads of pages that hold no
//! data, and a footprint larger than the requested occupancy. Each is a fact of the report
//! (`workload_notes`, `flash.extra`, `config.precondition`) worded with what it means and
//! the setting that changes it; the numbers stay in the JSON either way.

use crate::stats::RunReport;

/// Share of requests folded into the host capacity above which a run warns.
pub const FOLDED_WARN_SHARE: f64 = 0.10;
/// Share of page reads that found no data above which a run warns.
pub const UNWRITTEN_WARN_SHARE: f64 = 0.01;

/// The warnings of one run, one line each, each starting with `warning: `.
pub fn run_warnings(r: &RunReport) -> Vec<String> {
    let mut out = Vec::new();
    let note = |k: &str| r.workload_notes.get(k).and_then(|v| v.parse::<u64>().ok());
    let cap = note("logical_capacity_bytes").unwrap_or(0);
    // The replay folds a trace's offsets (`replay_wrapped`); a generated workload or a
    // request source without replay controls is folded by the engine.
    let (folded, of) = match (note("replay_wrapped"), note("replay_requests")) {
        (Some(w), Some(n)) => (w, n),
        _ => (note("requests_wrapped_into_capacity").unwrap_or(0), r.integrity.requests_completed),
    };
    if of > 0 && folded as f64 / of as f64 > FOLDED_WARN_SHARE {
        out.push(format!(
            "warning: {:.1} % of the requests ({folded} of {of}) reach beyond the device's host capacity ({}) and were folded into it: \
             the replay's addresses overlap where the trace's did not (a larger device, --no-wrap, or a trace of this device's size avoids it)",
            100.0 * folded as f64 / of as f64,
            gib(cap)
        ));
    }
    let extra = |k: &str| r.flash.extra.get(k).copied().unwrap_or(0);
    let (unwritten, reads) = (extra("unwritten_reads"), extra("host_page_reads"));
    // A device asked to start empty (`precondition.model = "none"`) reads nothing before
    // it writes it by construction: no warning there.
    let empty = r.config.pointer("/device/precondition/model").and_then(|v| v.as_str()) == Some("none");
    if !empty && reads > 0 && unwritten as f64 / reads as f64 > UNWRITTEN_WARN_SHARE {
        let how = match r.config.pointer("/device/ftl/unwritten_reads").and_then(|v| v.as_str()) {
            Some("flash") => "timed as flash reads (ftl.unwritten_reads = \"flash\")",
            _ => "answered from the mapping table without a flash read (ftl.unwritten_reads = \"mapping\")",
        };
        out.push(format!(
            "warning: {:.1} % of the page reads ({unwritten} of {reads}) fell on pages that hold no data, {how}; \
             preconditioning writes the pages a replay reads first with precondition.model = \"workload\" (footprint = \"touched\" or \"reads\")",
            100.0 * unwritten as f64 / reads as f64
        ));
    }
    let pre = r.config.get("precondition");
    let num = |k: &str| pre.and_then(|p| p.get(k)).and_then(|v| v.as_f64());
    let want = r.config.pointer("/device/precondition/occupancy").and_then(|v| v.as_f64());
    if let (Some(want), Some(got), Some(fp)) = (want, num("occupancy"), num("footprint_pages")) {
        if got > want + 0.005 && fp > 0.0 {
            out.push(format!(
                "warning: the replay touches {:.1} % of the host's logical space, more than precondition.occupancy {want}: \
                 the device starts {:.1} % full",
                100.0 * got,
                100.0 * got
            ));
        }
    }
    out
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// The warnings of a comparison: one every run shares is given once; the others name the
/// schemes they hold for (`warning: ... [base, ttflash]`).
pub fn comparison_warnings(reports: &[RunReport]) -> Vec<String> {
    let mut warned: Vec<(String, Vec<&str>)> = Vec::new();
    for r in reports {
        for w in run_warnings(r) {
            match warned.iter_mut().find(|(t, _)| *t == w) {
                Some((_, who)) => who.push(&r.scheme),
                None => warned.push((w, vec![&r.scheme])),
            }
        }
    }
    warned
        .into_iter()
        .map(|(w, who)| if who.len() == reports.len() { w } else { format!("{w} [{}]", who.join(", ")) })
        .collect()
}
