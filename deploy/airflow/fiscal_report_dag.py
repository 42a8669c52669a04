"""Monthly fiscal-report run split over shards, then merged: one task per shard, one merge task.

The key comes from an Airflow Variable into the task's environment, never its command line.
"""
from datetime import datetime

from airflow import DAG
from airflow.operators.bash import BashOperator

SHARDS = 4
BASE = "/data/fiscal-report/{{ ds_nodash[:6] }}"
FETCH = (
    "fiscal-report --log-format json fetch --base-url https://registry.example/ "
    "--cnpjs /config/carteira.csv --ano-mes latest --shard {k}/{n} --out " + BASE + "/shard-{k} --resume"
)

with DAG(
    dag_id="fiscal_report_monthly",
    schedule="0 6 2 * *",
    start_date=datetime(2026, 1, 1),
    catchup=False,
) as dag:
    env = {"REGISTRY_API_KEY": "{{ var.value.registry_api_key }}"}
    fetches = [
        BashOperator(task_id=f"fetch_shard_{k}", bash_command=FETCH.format(k=k, n=SHARDS), env=env, append_env=True)
        for k in range(SHARDS)
    ]
    merge = BashOperator(
        task_id="merge",
        bash_command="fiscal-report --log-format json merge " + BASE + "/merged "
        + " ".join(BASE + f"/shard-{k}" for k in range(SHARDS)),
    )
    fetches >> merge
