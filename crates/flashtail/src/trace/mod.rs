//! Trace ingestion (placeholder; owned by the trace work).
