//! Shards without a shared volume: three `fetch --shard K/3` to a bucket, `merge` from the
//! bucket into the bucket, equal record for record to one local run; `report --from s3://…`
//! re-renders in the bucket; pyarrow reads the merged dataset from the bucket.

use std::path::Path;

use super::{S3Server, no_secret_in, walkdir};
use crate::common_bin::*;
use fiscal_report::export::tables::read_exported_table;
use fiscal_report::simulator::Dataset;

const KEY: &str = "bucket-key";

#[test]
fn shards_in_a_bucket_merge_into_a_bucket_equal_to_one_local_run() {
    let Some(s3) = S3Server::start() else { return };
    s3.python("s3.create_bucket(Bucket='lake')");
    let srv = ServeProcess::start(KEY, 13, 0.05, &[]);
    let dir = tempfile::tempdir().unwrap();
    let portfolio = dir.path().join("p.txt");
    let cnpjs: Vec<String> =
        Dataset::generate(13, 0.05).demo_portfolio(25).iter().map(|c| c.to_string()).collect();
    std::fs::write(&portfolio, cnpjs.join("\n")).unwrap();
    let source = |out: &str| -> Vec<String> {
        ["--base-url", &srv.base_url, "--uf", "SP,RJ,AC", "--ano-mes", "202607:202609", "--cnpjs"]
            .iter()
            .map(|s| s.to_string())
            .chain([portfolio.display().to_string(), "--out".into(), out.into()])
            .collect()
    };
    let whole = dir.path().join("whole");
    let o = s3
        .command(dir.path(), &s3.url)
        .args(["--quiet", "run"])
        .args(source(&whole.display().to_string()))
        .env("REGISTRY_API_KEY", KEY)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let mut outputs = Vec::new();
    for k in 0..3 {
        let o = s3
            .command(dir.path(), &s3.url)
            .args(["--quiet", "fetch", "--shard", &format!("{k}/3")])
            .args(source(&format!("s3://lake/2026-09/shard-{k}")))
            .env("REGISTRY_API_KEY", KEY)
            .output()
            .unwrap();
        assert!(o.status.success(), "shard {k}: {}", String::from_utf8_lossy(&o.stderr));
        outputs.push(o);
    }
    let shards: Vec<String> = (0..3).map(|k| format!("s3://lake/2026-09/shard-{k}")).collect();
    let merge_into = |out: &str| {
        s3.command(dir.path(), &s3.url).args(["--quiet", "merge", out]).args(&shards).output().unwrap()
    };
    let o = merge_into("s3://lake/2026-09/merged");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    outputs.push(o);
    // Nothing stays behind on the machine: no work dir, no downloaded shard.
    let work = dir.path().join(".fiscal-report-work");
    let left: Vec<_> = walkdir(&work);
    assert!(left.is_empty(), "left in the work dir: {left:?}");

    let merged = dir.path().join("merged");
    s3.download("lake", "2026-09/merged", &merged);
    crate::merge_shards::assert_same_outputs(&whole, &merged);

    // pyarrow reads the merged dataset where it lies, hive partitions and all. (DuckDB would
    // need its httpfs extension, which it downloads at first use: no network in CI.)
    let rows = s3.python(&format!(
        "import pyarrow.dataset as ds, pyarrow.fs as fs\n\
         f = fs.S3FileSystem(endpoint_override='{}', scheme='http', access_key='testing', secret_key='testing', region='us-east-1')\n\
         d = ds.dataset('lake/2026-09/merged/creditos_ativos', filesystem=f, format='parquet', partitioning='hive')\n\
         print(d.count_rows(), len(set(d.to_table(columns=['ano_mes']).column('ano_mes').to_pylist())))",
        s3.url
    ));
    let want = read_exported_table(&whole, "creditos_ativos").unwrap();
    assert_eq!(rows.trim(), format!("{} 3", want.height()), "rows and months read from the bucket");

    // report --from the bucket: an analyst's extra query lands next to the others, in the bucket.
    let queries = dir.path().join("queries");
    std::fs::create_dir_all(&queries).unwrap();
    // The query files (their historico/ folder is for runs on a store).
    for e in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("queries")).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), queries.join(e.file_name())).unwrap();
        }
    }
    std::fs::write(
        queries.join("90_contagem_uf.sql"),
        "-- titulo: Créditos por UF\n-- answers: How many active credits does each state hold?\nSELECT uf, COUNT(*) AS creditos FROM creditos_ativos GROUP BY uf ORDER BY uf\n",
    )
    .unwrap();
    let o = s3
        .command(dir.path(), &s3.url)
        .args(["--quiet", "report", "--from", "s3://lake/2026-09/merged", "--queries"])
        .arg(&queries)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    outputs.push(o);
    let named = s3.python(
        "m = json.loads(s3.get_object(Bucket='lake', Key='2026-09/merged/manifest.json')['Body'].read())\n\
         f = [f for f in m['files'] if f['path'] == 'aggregates/contagem_uf.parquet'][0]\n\
         body = s3.get_object(Bucket='lake', Key='2026-09/merged/' + f['path'])['Body'].read()\n\
         assert hashlib.sha256(body).hexdigest() == f['sha256']\n\
         print(f['rows'])",
    );
    assert_eq!(named.trim(), "3", "one row per state");
    assert!(walkdir(&work).is_empty());
    for o in &outputs {
        no_secret_in(o, dir.path());
    }

    // A prefix with no run, and a merge into a prefix that holds one, are refused.
    let o = s3
        .command(dir.path(), &s3.url)
        .args(["--quiet", "report", "--from", "s3://lake/nothing-here"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("holds no finished run"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = merge_into("s3://lake/2026-09/merged");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already holds a run"));
    // Nor does a merge clear the work dir of an unfinished run to the same URL.
    let waiting = work.join("lake/2026-09/merged2/.staging");
    std::fs::create_dir_all(&waiting).unwrap();
    let o = merge_into("s3://lake/2026-09/merged2");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unfinished run"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(waiting.is_dir(), "the unfinished run's staging is kept");
}
