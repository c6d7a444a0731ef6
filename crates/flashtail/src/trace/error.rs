//! Trace errors and the per-line error policy.
//!
//! Every parse error names the file, the 1-based line and the field that is wrong, so a user
//! can open the trace at that spot. This module does not decide *whether* a line is bad (the
//! format parsers do); it only carries the verdict.

use crate::host::SourceError;

/// What to do with a line that looks like a record but does not parse.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum OnError {
    /// Stop at the first bad record (the default: silent data loss is worse than a stop).
    #[default]
    Stop,
    /// Skip it and count it per reason; the summary lists the counts.
    Skip,
}

impl std::str::FromStr for OnError {
    type Err = String;
    fn from_str(s: &str) -> Result<OnError, String> {
        match s.to_ascii_lowercase().as_str() {
            "stop" => Ok(OnError::Stop),
            "skip" => Ok(OnError::Skip),
            _ => Err(format!(
                "unknown error policy '{s}' (expected stop or skip)"
            )),
        }
    }
}

/// An error while opening or reading a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The I/O error is printed in the message, not chained as a source (no doubled text).
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("{file}:{line}: field {field}: {message}")]
    Parse {
        file: String,
        line: u64,
        field: &'static str,
        message: String,
    },
    #[error("{file}: {message}")]
    Format { file: String, message: String },
    #[error("invalid trace option: {0}")]
    Option(String),
}

impl TraceError {
    /// The same error in the shape every request source reports.
    pub fn to_source_error(&self) -> SourceError {
        match self {
            TraceError::Parse {
                file,
                line,
                field,
                message,
            } => SourceError {
                location: format!("{file}:{line}: field {field}"),
                message: message.clone(),
            },
            TraceError::Io { file, error: source } => SourceError {
                location: file.clone(),
                message: source.to_string(),
            },
            TraceError::Format { file, message } => SourceError {
                location: file.clone(),
                message: message.clone(),
            },
            TraceError::Option(m) => SourceError {
                location: String::from("options"),
                message: m.clone(),
            },
        }
    }
}

/// A field-level parse failure, before the reader adds file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    pub message: String,
}

impl FieldError {
    pub fn new(field: &'static str, message: impl Into<String>) -> FieldError {
        FieldError {
            field,
            message: message.into(),
        }
    }
}
