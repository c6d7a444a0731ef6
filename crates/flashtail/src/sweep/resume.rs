//! Resuming a sweep: each finished point's rows are written to `OUT/points/ID.json` (ID the
//! point's hash, `points::Point::id`) as soon as the point is done, through a temporary
//! file and a rename, so an interrupted sweep leaves only whole files. A rerun with resume
//! on reads these instead of running the points again. A file that cannot be read, or was
//! written for another point, is ignored and the point runs again.

use super::points::Point;
use super::table::Row;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Serialize, Deserialize)]
struct Record {
    id: String,
    rows: Vec<Row>,
}

/// Where a point's rows are kept.
pub fn point_file(out: &Path, p: &Point) -> PathBuf {
    out.join("points").join(format!("{}.json", p.id))
}

/// The rows a previous run recorded for `p`, if any.
pub fn load(out: &Path, p: &Point) -> Option<Vec<Row>> {
    let text = std::fs::read_to_string(point_file(out, p)).ok()?;
    let r: Record = serde_json::from_str(&text).ok()?;
    (r.id == p.id).then_some(r.rows)
}

/// Records `p`'s rows.
pub fn save(out: &Path, p: &Point, rows: &[Row]) -> Result<(), String> {
    let path = point_file(out, p);
    let dir = out.join("points");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let text = serde_json::to_string(&Record { id: p.id.clone(), rows: rows.to_vec() }).map_err(|e| e.to_string())?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))
}
