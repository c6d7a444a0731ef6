//! `flashtail._native`: the compiled half of the Python package. Each function takes plain
//! values (strings, JSON text) and returns the library's own outputs (JSON and CSV text),
//! which the pure-Python half (`python/flashtail`) turns into pandas DataFrames. Runs
//! release the GIL, and Ctrl-C stops them (`interrupt`). Errors are raised as
//! `flashtail.FlashtailError` (a `ValueError`) with the command line's message.
//!
//! Files: `interrupt.rs` (running with the GIL released and polling for signals),
//! `compare.rs` (run / compare / trace statistics), `sweep.rs` (sweeps, and the per-point
//! entry the Ray backend calls).

use pyo3::prelude::*;

mod compare;
mod interrupt;
mod sweep;

pyo3::create_exception!(_native, FlashtailError, pyo3::exceptions::PyValueError, "An error in flashtail's input or run, in the command line's words.");

/// The closed-loop host interface of `closed_loop=` (`QD` or `QDxQUEUES`) and `timing=`
/// (`trace`, the default, or `ignore`), as `--closed-loop` and `--timing` give it; `None`:
/// open loop. A timing without a closed loop is an error, as on the command line.
pub(crate) fn closed_loop(queues: Option<&str>, timing: Option<&str>) -> Result<Option<flashtail::host::ClosedLoop>, String> {
    use flashtail::host::{ClosedLoop, IssueTiming};
    match (queues, timing) {
        (Some(q), t) => Ok(Some(ClosedLoop::parse(q, IssueTiming::parse(t.unwrap_or("trace"))?)?)),
        (None, Some(_)) => Err("timing applies to a closed loop: give closed_loop too, or leave timing out".into()),
        (None, None) => Ok(None),
    }
}

/// A library error (the command line's message) as a Python exception.
pub(crate) fn err(msg: impl Into<String>) -> PyErr {
    FlashtailError::new_err(msg.into())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FlashtailError", m.py().get_type::<FlashtailError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(compare::compare, m)?)?;
    m.add_function(wrap_pyfunction!(compare::trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(compare::presets, m)?)?;
    m.add_function(wrap_pyfunction!(compare::schemes, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_run_point, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_finish, m)?)?;
    Ok(())
}
