//! Errors of report writing. Only I/O and serialisation can fail: every edge case of the
//! data itself (no runs, no writes, zero latencies) is rendered, not rejected.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot create output directory {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot serialise {what} to JSON: {source}")]
    Json {
        what: String,
        source: serde_json::Error,
    },
    #[error("cannot format {what} as CSV: {source}")]
    Csv { what: String, source: csv::Error },
}
