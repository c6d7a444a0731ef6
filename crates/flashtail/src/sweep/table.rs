//! The sweep's tidy long table: one row per point × scheme × op (`read`, `write`, `all`) ×
//! statistic, with the point's parameters as columns:
//! `point, device, workload, <one column per --set key>, seed, scheme, op, stat, value`.
//! Statistics are `report::op_stats`'s (latencies in ns). Rows are in point order, then the
//! spec's scheme order, then op and statistic order, whatever order points finished in, so
//! the same spec gives the same bytes. CSV floats use Rust's shortest round-trip form.

use super::points::Point;
use crate::stats::RunReport;
use serde::{Deserialize, Serialize};

/// One row of the tidy table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub point: String,
    pub device: String,
    pub workload: String,
    /// The `--set` values, in the table's parameter column order.
    pub params: Vec<String>,
    pub seed: u64,
    pub scheme: String,
    pub op: String,
    pub stat: String,
    /// Kept as its shortest round-trip text in point files and between processes, so a
    /// resumed or distributed sweep gives the same bytes as one run here (JSON numbers
    /// are not read back exactly by every parser).
    #[serde(with = "exact")]
    pub value: f64,
}

/// A float as the text `{v}` prints (shortest round-trip form) and back.
mod exact {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(|_| serde::de::Error::custom(format!("'{text}' is not a number")))
    }
}

/// The tidy table: its parameter columns (the spec's `set` keys) and rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub params: Vec<String>,
    pub rows: Vec<Row>,
}

/// The rows of one point: every scheme's report, every op, every statistic.
pub fn point_rows(p: &Point, reports: &[RunReport]) -> Vec<Row> {
    let params: Vec<String> = p.set.iter().map(|(_, v)| v.text()).collect();
    let mut rows = Vec::new();
    for r in reports {
        for op in crate::report::OPS {
            for (stat, value) in crate::report::op_stats(r, op) {
                rows.push(Row {
                    point: p.id.clone(),
                    device: p.device.clone(),
                    workload: p.workload_label.clone(),
                    params: params.clone(),
                    seed: p.seed,
                    scheme: r.scheme.clone(),
                    op: op.to_string(),
                    stat,
                    value,
                });
            }
        }
    }
    rows
}

/// A column's type in Parquet: a parameter whose every value is a number is a double.
pub fn numeric(values: impl IntoIterator<Item = impl AsRef<str>>) -> bool {
    values.into_iter().all(|v| v.as_ref().parse::<f64>().is_ok_and(f64::is_finite))
}

/// Writes rows of strings as CSV text.
pub fn csv_text(header: &[String], rows: impl Iterator<Item = Vec<String>>) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).map_err(|e| e.to_string())?;
    for r in rows {
        w.write_record(&r).map_err(|e| e.to_string())?;
    }
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// A float in its shortest round-trip form.
pub fn float(v: f64) -> String {
    format!("{v}")
}

impl Table {
    /// The column names, in order.
    pub fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = ["point", "device", "workload"].map(String::from).to_vec();
        h.extend(self.params.iter().cloned());
        h.extend(["seed", "scheme", "op", "stat", "value"].map(String::from));
        h
    }

    /// `table.csv`.
    pub fn to_csv(&self) -> Result<String, String> {
        csv_text(
            &self.header(),
            self.rows.iter().map(|r| {
                let mut v = vec![r.point.clone(), r.device.clone(), r.workload.clone()];
                v.extend(r.params.iter().cloned());
                v.extend([r.seed.to_string(), r.scheme.clone(), r.op.clone(), r.stat.clone(), float(r.value)]);
                v
            }),
        )
    }
}
