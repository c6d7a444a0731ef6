//! Writing the sweep's tables as Parquet with the `parquet` crate's low-level column
//! writer (no Arrow, no compression codecs: the crate without default features, chosen for
//! build time). One row group; text columns are UTF-8 strings, numbers doubles, `seed` and
//! `seeds` 64-bit integers, and a parameter column is a double when every value is a number
//! (else a string). The same table gives the same bytes.

use super::ci::CiTable;
use super::table::{numeric, Table};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::path::Path;
use std::sync::Arc;

/// One column's values.
pub enum Column {
    Text(Vec<String>),
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// A parameter column: doubles when every value is a number.
fn param_column(values: Vec<String>) -> Column {
    if numeric(&values) {
        Column::Float(values.iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect())
    } else {
        Column::Text(values)
    }
}

/// Writes named columns (all of one length) to `path`.
pub fn write(path: &Path, columns: &[(String, Column)]) -> Result<(), String> {
    let err = |e: parquet::errors::ParquetError| format!("{}: {e}", path.display());
    let fields = columns
        .iter()
        .map(|(name, c)| {
            let b = match c {
                Column::Text(_) => Type::primitive_type_builder(name, parquet::basic::Type::BYTE_ARRAY).with_logical_type(Some(parquet::basic::LogicalType::String)),
                Column::Float(_) => Type::primitive_type_builder(name, parquet::basic::Type::DOUBLE),
                Column::Int(_) => Type::primitive_type_builder(name, parquet::basic::Type::INT64),
            };
            b.with_repetition(parquet::basic::Repetition::REQUIRED).build().map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build().map_err(err)?);
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let props = Arc::new(WriterProperties::builder().set_created_by("flashtail".into()).build());
    let mut w = SerializedFileWriter::new(file, schema, props).map_err(err)?;
    let mut rg = w.next_row_group().map_err(err)?;
    let mut i = 0;
    while let Some(mut cw) = rg.next_column().map_err(err)? {
        match &columns[i].1 {
            Column::Text(v) => {
                let vals: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                cw.typed::<ByteArrayType>().write_batch(&vals, None, None).map_err(err)?;
            }
            Column::Float(v) => {
                cw.typed::<DoubleType>().write_batch(v, None, None).map_err(err)?;
            }
            Column::Int(v) => {
                cw.typed::<Int64Type>().write_batch(v, None, None).map_err(err)?;
            }
        }
        cw.close().map_err(err)?;
        i += 1;
    }
    rg.close().map_err(err)?;
    w.close().map_err(err)?;
    Ok(())
}

fn text<T>(rows: &[T], f: impl Fn(&T) -> String) -> Column {
    Column::Text(rows.iter().map(f).collect())
}

/// `table.parquet`.
pub fn write_table(path: &Path, t: &Table) -> Result<(), String> {
    let r = &t.rows;
    let mut cols = vec![
        ("point".to_string(), text(r, |x| x.point.clone())),
        ("device".into(), text(r, |x| x.device.clone())),
        ("workload".into(), text(r, |x| x.workload.clone())),
    ];
    for (i, p) in t.params.iter().enumerate() {
        cols.push((p.clone(), param_column(r.iter().map(|x| x.params[i].clone()).collect())));
    }
    cols.push(("seed".into(), Column::Int(r.iter().map(|x| x.seed as i64).collect())));
    cols.push(("scheme".into(), text(r, |x| x.scheme.clone())));
    cols.push(("op".into(), text(r, |x| x.op.clone())));
    cols.push(("stat".into(), text(r, |x| x.stat.clone())));
    cols.push(("value".into(), Column::Float(r.iter().map(|x| x.value).collect())));
    write(path, &cols)
}

/// `ci.parquet`.
pub fn write_ci(path: &Path, t: &CiTable) -> Result<(), String> {
    let r = &t.rows;
    let mut cols = vec![("device".to_string(), text(r, |x| x.device.clone())), ("workload".into(), text(r, |x| x.workload.clone()))];
    for (i, p) in t.params.iter().enumerate() {
        cols.push((p.clone(), param_column(r.iter().map(|x| x.params[i].clone()).collect())));
    }
    cols.push(("scheme".into(), text(r, |x| x.scheme.clone())));
    cols.push(("op".into(), text(r, |x| x.op.clone())));
    cols.push(("stat".into(), text(r, |x| x.stat.clone())));
    cols.push(("seeds".into(), Column::Int(r.iter().map(|x| x.seeds as i64).collect())));
    for (name, f) in [("mean", (|x: &super::ci::CiRow| x.mean) as fn(&super::ci::CiRow) -> f64), ("std", |x| x.std), ("ci_low", |x| x.ci_low), ("ci_high", |x| x.ci_high)] {
        cols.push((name.to_string(), Column::Float(r.iter().map(f).collect())));
    }
    cols.push(("ci_level".into(), Column::Float(vec![t.level; r.len()])));
    write(path, &cols)
}
