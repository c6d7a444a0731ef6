//! Synthetic workload generation (placeholder; owned by the workload work).
