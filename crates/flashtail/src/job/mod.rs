//! A comparison job as the front ends describe it: a device (preset, TOML file or TOML text,
//! plus `key=value` overrides), a workload (a trace with replay controls, the bundled DTRS
//! slice, or a generator preset), the schemes and the run settings. The command line, the
//! Python package and parameter sweeps all build their runs here, so one set of rules picks
//! the default schemes, folds addresses into the smallest host capacity and words errors.
//!
//! What it does not do: draw progress, print, or write files (the front ends and
//! `report::write_outputs` do). It runs simulations only through `runner::run_many`.

mod cancel;
mod compare;
mod device;
mod workload;

pub use cancel::{Cancel, CancelSource, CANCELLED};
pub use compare::{check_no_empty_scheme, compare, compare_meta, plan, plural, strip_cost, CompareOutcome, ComparePlan};
/// The settings every scheme of a comparison runs with (`runner::RunSettings`, here too so a
/// front end finds a comparison's inputs in one place).
pub use crate::runner::RunSettings;
pub use device::{load_device, DeviceSource};
pub use workload::{record_input, Opener, Workload, INPUT_MEMORY_DEFAULT, SNIFF_REQUESTS};

/// An error and its causes, `: `-separated, skipping a cause whose text the message before it
/// already ends with (an error that quotes its own source would print it twice). The same
/// wording the command line prints after `error: `.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = String::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cur {
        let text = c.to_string();
        if !out.ends_with(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        cur = c.source();
    }
    out
}
