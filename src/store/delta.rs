//! One Delta Lake table of the store, through delta-rs: create it from a frame's schema, read
//! the partitions of a version into a Polars frame, and replace partitions in one commit.
//!
//! No datafusion: files are written by delta-rs's record-batch writer and committed with our own
//! remove + add actions, which is all a partition replacement needs. Frames cross from Polars
//! to arrow-rs through an in-memory Parquet file, the one format both sides read exactly.

use std::collections::BTreeSet;

use deltalake::kernel::transaction::CommitBuilder;
use deltalake::kernel::{Action, StructType};
use deltalake::protocol::{DeltaOperation, SaveMode};
use deltalake::writer::{DeltaWriter, RecordBatchWriter};
use deltalake::{DeltaTable, DeltaTableError};
use polars::prelude::*;

use super::{StoreError, StoreRoot};

/// Table `name` of the store at `root`, partitioned by `partition`.
#[derive(Debug, Clone)]
pub struct TableRef {
    pub name: &'static str,
    pub root: StoreRoot,
    pub partition: &'static str,
}

fn delta_err(table: &str) -> impl Fn(DeltaTableError) -> StoreError + '_ {
    move |e| StoreError::Delta { table: table.to_string(), message: e.to_string() }
}

fn polars_err(table: &str) -> impl Fn(PolarsError) -> StoreError + '_ {
    move |e| StoreError::Delta { table: table.to_string(), message: e.to_string() }
}

impl TableRef {
    fn url(&self) -> Result<url::Url, StoreError> {
        self.root.table_url(self.name)
    }

    pub async fn exists(&self) -> Result<bool, StoreError> {
        self.root.has_dir(&format!("{}/_delta_log", self.name)).await
    }

    /// The newest version, or `None` when the table was never created.
    pub async fn latest_version(&self) -> Result<Option<u64>, StoreError> {
        if !self.exists().await? {
            return Ok(None);
        }
        // The newest commit's number, without loading the table's state.
        let t = deltalake::DeltaTableBuilder::from_url(self.url()?)
            .and_then(|b| b.build())
            .map_err(delta_err(self.name))?;
        Ok(Some(t.get_latest_version().await.map_err(delta_err(self.name))?))
    }

    async fn open_at(&self, version: u64) -> Result<DeltaTable, StoreError> {
        deltalake::open_table_with_version(self.url()?, version).await.map_err(delta_err(self.name))
    }

    /// Commits a copy of `version` as the newest version: what an interrupted run committed
    /// after it stops being current, and no file is deleted (time travel still reads it).
    pub async fn restore(&self, version: u64) -> Result<u64, StoreError> {
        let t = deltalake::open_table(self.url()?).await.map_err(delta_err(self.name))?;
        let (t, _) = t.restore().with_version_to_restore(version).await.map_err(delta_err(self.name))?;
        t.version().ok_or_else(|| StoreError::Delta { table: self.name.into(), message: "no version".into() })
    }

    /// The partition values present at `version`, with their row counts.
    pub async fn partitions(
        &self,
        version: u64,
    ) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
        let t = self.open_at(version).await?;
        let mut out = std::collections::BTreeMap::new();
        for f in t.snapshot().map_err(delta_err(self.name))?.log_data().iter() {
            if let Some(Some(v)) = f.partition_values_map().get(self.partition) {
                *out.entry(v.clone()).or_insert(0) += f.num_records().unwrap_or(0) as u64;
            }
        }
        Ok(out)
    }

    /// The rows of the partitions `values` at `version`, the partition column included (as
    /// text), in file order.
    pub async fn read(
        &self,
        version: u64,
        values: &BTreeSet<String>,
    ) -> Result<Option<DataFrame>, StoreError> {
        let t = self.open_at(version).await?;
        let mut files = Vec::new();
        for f in t.snapshot().map_err(delta_err(self.name))?.log_data().iter() {
            if let Some(Some(v)) = f.partition_values_map().get(self.partition)
                && values.contains(v)
            {
                files.push((v.clone(), format!("{}/{}", self.name, f.object_store_path().as_ref())));
            }
        }
        files.sort();
        let mut out: Option<DataFrame> = None;
        for (value, rel) in files {
            let bytes = self.root.read(&rel).await?.ok_or_else(|| StoreError::Corrupt {
                path: self.root.path_of(&rel),
                message: "a data file the table's log names is missing".into(),
            })?;
            let mut df =
                ParquetReader::new(std::io::Cursor::new(bytes)).finish().map_err(polars_err(self.name))?;
            let n = df.height();
            df.with_column(Column::new(self.partition.into(), vec![value.as_str(); n]))
                .map_err(polars_err(self.name))?;
            match &mut out {
                None => out = Some(df),
                Some(acc) => {
                    // Files written before and after the table gained a column.
                    conform(acc, df.schema()).map_err(polars_err(self.name))?;
                    conform(&mut df, acc.schema()).map_err(polars_err(self.name))?;
                    let df = df.select(acc.get_column_names_owned()).map_err(polars_err(self.name))?;
                    acc.vstack_mut_owned(df).map_err(polars_err(self.name))?;
                }
            }
        }
        Ok(out)
    }

    /// Replaces the partitions `replaced` (those present) with `frame`'s rows in one commit,
    /// creating the table from `frame`'s schema first if needed. `frame` holds the partition
    /// column. Returns the new version.
    pub async fn replace(&self, frame: &DataFrame, replaced: &BTreeSet<String>) -> Result<u64, StoreError> {
        let name = self.name;
        let batches =
            record_batches(frame).map_err(|message| StoreError::Delta { table: name.into(), message })?;
        let table = if self.exists().await? {
            let table = deltalake::open_table(self.url()?).await.map_err(delta_err(name))?;
            add_new_columns(table, &batches.0).await.map_err(delta_err(name))?
        } else {
            if let StoreRoot::Local(root) = &self.root {
                let dir = root.join(name);
                std::fs::create_dir_all(&dir).map_err(|e| StoreError::io(&dir, e))?;
            }
            let schema: StructType =
                deltalake::kernel::engine::arrow_conversion::TryIntoKernel::try_into_kernel(
                    batches.0.as_ref(),
                )
                .map_err(|e| StoreError::Delta { table: name.into(), message: e.to_string() })?;
            deltalake::operations::create::CreateBuilder::new()
                .with_location(self.url()?.as_str())
                .with_table_name(name)
                .with_columns(schema.fields().cloned())
                .with_partition_columns([self.partition])
                .await
                .map_err(delta_err(name))?
        };
        let mut actions: Vec<Action> = Vec::new();
        for f in table.snapshot().map_err(delta_err(name))?.log_data().iter() {
            if let Some(Some(v)) = f.partition_values_map().get(self.partition)
                && replaced.contains(v)
            {
                actions.push(Action::Remove(f.remove_action(true)));
            }
        }
        let mut writer = RecordBatchWriter::for_table(&table).map_err(delta_err(name))?;
        for b in batches.1 {
            writer.write(b).await.map_err(delta_err(name))?;
        }
        actions.extend(writer.flush().await.map_err(delta_err(name))?.into_iter().map(Action::Add));
        let operation = DeltaOperation::Write {
            mode: SaveMode::Overwrite,
            partition_by: Some(vec![self.partition.to_string()]),
            predicate: Some(format!(
                "{} IN ({})",
                self.partition,
                replaced.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ")
            )),
        };
        let snapshot = table.snapshot().map_err(delta_err(name))?;
        let done = CommitBuilder::default()
            .with_actions(actions)
            .build(Some(snapshot), table.log_store(), operation)
            .await
            .map_err(delta_err(name))?;
        Ok(done.version())
    }
}

/// `table` with the columns of `schema` it lacks added (nullable, so its older files read them
/// as nulls): a column a later release adds to a table reaches a store made before it.
async fn add_new_columns(
    table: DeltaTable,
    schema: &arrow::datatypes::SchemaRef,
) -> Result<DeltaTable, DeltaTableError> {
    let held: BTreeSet<String> = table.snapshot()?.schema().fields().map(|f| f.name().to_string()).collect();
    let wanted: StructType =
        deltalake::kernel::engine::arrow_conversion::TryIntoKernel::try_into_kernel(schema.as_ref())?;
    let new: Vec<_> = wanted.fields().filter(|f| !held.contains(f.name())).cloned().collect();
    if new.is_empty() {
        return Ok(table);
    }
    table.add_columns().with_fields(new).await
}

/// Columns `like` has and `df` lacks, added to `df` as nulls of `like`'s types: rows of a
/// snapshot written before a table gained a column, read beside rows written after.
pub(crate) fn conform(df: &mut DataFrame, like: &Schema) -> PolarsResult<()> {
    let n = df.height();
    for (name, dtype) in like.iter() {
        if df.column(name).is_err() {
            df.with_column(Column::full_null(name.clone(), n, dtype))?;
        }
    }
    Ok(())
}

/// `frame` as arrow-rs batches (and their schema), through an in-memory Parquet file.
fn record_batches(
    frame: &DataFrame,
) -> Result<(arrow::datatypes::SchemaRef, Vec<arrow::record_batch::RecordBatch>), String> {
    let mut buf: Vec<u8> = Vec::new();
    let mut df = frame.clone();
    ParquetWriter::new(&mut buf).finish(&mut df).map_err(|e| e.to_string())?;
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(buf))
            .map_err(|e| e.to_string())?;
    // Polars writes strings as views; a Delta `string` is plain Utf8 to every reader. Delta has
    // no unsigned integers (a count is UInt32 in Polars): they become `long`, which holds them.
    use arrow::datatypes::{DataType, Field, Schema};
    let plain = |t: &DataType| match t {
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => DataType::Int64,
        _ => t.clone(),
    };
    let read_schema = reader.schema().clone();
    let schema = std::sync::Arc::new(Schema::new(
        read_schema
            .fields()
            .iter()
            .map(|f| Field::new(f.name(), plain(f.data_type()), true))
            .collect::<Vec<_>>(),
    ));
    let mut batches = Vec::new();
    for b in reader.build().map_err(|e| e.to_string())? {
        let b = b.map_err(|e| e.to_string())?;
        let columns = b
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| arrow::compute::cast(c, f.data_type()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        batches.push(
            arrow::record_batch::RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())?,
        );
    }
    Ok((schema, batches))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(snapshot: &str, columns: &[(&str, &str)]) -> DataFrame {
        let mut cols: Vec<Column> =
            columns.iter().map(|(name, value)| Column::new((*name).into(), [*value])).collect();
        cols.push(Column::new("snapshot".into(), [snapshot]));
        DataFrame::new(1, cols).unwrap()
    }

    #[tokio::test]
    async fn a_column_added_later_reads_as_null_in_the_older_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let t = TableRef {
            name: "dividas_pgfn",
            root: StoreRoot::Local(dir.path().to_path_buf()),
            partition: "snapshot",
        };
        let first =
            t.replace(&frame("202606", &[("cnpj", "a")]), &BTreeSet::from(["202606".into()])).await.unwrap();
        let wider = frame("202609", &[("cnpj", "b"), ("uf_devedor", "SP")]);
        let last = t.replace(&wider, &BTreeSet::from(["202609".into()])).await.unwrap();
        assert!(last > first);
        let both = t.read(last, &BTreeSet::from(["202606".into(), "202609".into()])).await.unwrap().unwrap();
        let text = |name: &str| -> Vec<Option<String>> {
            both.column(name).unwrap().str().unwrap().iter().map(|v| v.map(String::from)).collect()
        };
        assert_eq!(text("cnpj"), [Some("a".into()), Some("b".into())]);
        assert_eq!(text("uf_devedor"), [None, Some("SP".into())]);
        // The older version still reads as it was written.
        let before = t.read(first, &BTreeSet::from(["202606".into()])).await.unwrap().unwrap();
        assert!(before.column("uf_devedor").is_err());
    }
}
