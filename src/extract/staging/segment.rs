//! Staging segments: one Parquet file per table and commit, every column the wire text as-is,
//! written with arrow-rs and renamed into place; and the independent reader tools and tests use.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::{StagingError, io_err};
use crate::tables::{Row, RowMap, Table};

pub(super) fn sync_dir(dir: &Path) -> Result<(), StagingError> {
    // Directory fsync makes the renames durable; not all platforms allow opening a dir.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

pub(super) fn write_segment(path: &Path, table: Table, rows: &[Row]) -> Result<(), StagingError> {
    let columns = table.columns();
    let schema = Arc::new(Schema::new(
        columns.iter().map(|c| Field::new(c, DataType::Utf8, true)).collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = (0..columns.len())
        .map(|i| {
            let mut b = StringBuilder::with_capacity(rows.len(), rows.len() * 16);
            for r in rows {
                b.append_option(r.get(i).and_then(|v| v.as_deref()));
            }
            Arc::new(b.finish()) as ArrayRef
        })
        .collect();
    let perr = |e: &dyn std::fmt::Display| StagingError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| perr(&e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(|e| perr(&e))?))
        .build();
    // Encoded in memory (a segment is one task's rows), then written here: a full disk or a lost
    // mount is then the I/O error it is (the user's to fix, exit 2). Written by arrow-rs, the
    // final flush's error came back flattened into text (`fail to get inner writer: ...`), read
    // as a Parquet problem (ours, exit 70).
    let mut w = ArrowWriter::try_new(Vec::new(), schema, Some(props)).map_err(|e| perr(&e))?;
    w.write(&batch).map_err(|e| perr(&e))?;
    let bytes = w.into_inner().map_err(|e| perr(&e))?;
    let tmp = path.with_extension("parquet.tmp");
    let mut file = File::create(&tmp).map_err(io_err(&tmp))?;
    file.write_all(&bytes).map_err(io_err(&tmp))?;
    file.sync_all().map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))?;
    Ok(())
}

/// Reads staged rows back with arrow-rs: the independent reader tests and tools use.
pub fn read_segment(path: &Path) -> Result<Vec<RowMap>, StagingError> {
    use arrow::array::{Array, AsArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let perr = |e: &dyn std::fmt::Display| StagingError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = File::open(path).map_err(io_err(path))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| perr(&e))?
        .build()
        .map_err(|e| perr(&e))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| perr(&e))?;
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let mut row = RowMap::new();
            for (f, col) in schema.fields().iter().zip(batch.columns()) {
                let Some(s) = col.as_string_opt::<i32>() else { continue };
                row.insert(f.name().clone(), (!s.is_null(i)).then(|| s.value(i).to_string()));
            }
            rows.push(row);
        }
    }
    Ok(rows)
}
