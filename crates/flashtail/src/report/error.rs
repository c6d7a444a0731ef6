//! Errors of report writing. Only I/O and serialisation can fail: every edge case of the
//! data itself (no runs, no writes, zero latencies) is rendered, not rejected.
//!
//! The underlying error is a field named `error`, not `source`: thiserror would make a
//! `source` field the error's cause, and `anyhow`'s `{:#}` would print it a second time
//! after the message that already quotes it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot create output directory {}: {error}", path.display())]
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot write {}: {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot serialise {what} to JSON: {error}")]
    Json {
        what: String,
        error: serde_json::Error,
    },
    #[error("cannot format {what} as CSV: {error}")]
    Csv { what: String, error: csv::Error },
}
