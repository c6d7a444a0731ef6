//! Parameter sweeps: a TOML (or JSON) spec names devices, `--set` overrides with lists or
//! ranges of values, workloads and seeds; their cross product is the sweep's points, and
//! each point runs the spec's schemes as one comparison (one preconditioned device state
//! and request stream shared by its schemes, as `flashtail compare` does). Results form one
//! tidy long table (CSV and Parquet), and an across-seed table with the mean and a
//! bootstrap confidence interval of every statistic, and a `report.html` that shows every
//! value with its interval (`report::render_sweep_html`). Finished points are recorded one file
//! each and skipped when a sweep is resumed.
//!
//! Files: `spec` (the spec and its checks), `points` (expansion and point ids), `exec`
//! (running points locally, and the per-point entry other backends call), `table` (the tidy
//! table and CSV), `ci` (across seeds), `parquet_out`, `resume`. The command line draws the
//! progress; the Python package adds the Ray backend on top of [`run_point`] and [`finish`].

mod ci;
mod exec;
mod parquet_out;
mod points;
mod resume;
mod spec;
mod table;

pub use ci::{across_seeds, bootstrap_mean, CiRow, CiTable};
pub use exec::{finish, point_label, run_local, run_point, write_tables, ExecOptions, SweepOutcome, SweepProgress};
pub use points::{expand, Point};
pub use resume::{load as load_point, point_file, save as save_point};
pub use spec::{CiSettings, Sweep, SweepSpec, Value, Values, WorkloadSpec};
pub use table::{Row, Table};
