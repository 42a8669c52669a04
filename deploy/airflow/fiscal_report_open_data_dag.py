"""Monthly fiscal-report run over the publishers' own files: download, then run.

The download is its own task, so Airflow retries it alone when a publisher's server stalls for
hours; each retry resumes the files where the last one stopped. The run then reads the release
the download completed (and no older one kept beside it) and commits it to the store. The mail
server's password comes from an Airflow Variable into the task's environment, never its command
line.
"""
from datetime import datetime, timedelta

from airflow import DAG
from airflow.operators.bash import BashOperator

DATA = "/data/fiscal-report"

with DAG(
    dag_id="fiscal_report_open_data_monthly",
    schedule="0 6 20 * *",
    start_date=datetime(2026, 1, 1),
    catchup=False,
) as dag:
    download = BashOperator(
        task_id="download",
        bash_command="fiscal-report --log-format json download --to " + DATA + "/dados --keep 2",
        retries=6,
        retry_delay=timedelta(hours=1),
    )
    run = BashOperator(
        task_id="run",
        bash_command=(
            "fiscal-report --log-format json run --open-data " + DATA + "/dados --download "
            "--cnpjs /config/carteira.csv --store " + DATA + "/store --rules /config/regras.toml "
            "--out " + DATA + "/{{ ds_nodash[:6] }} "
            "--email-to analista@example.com --smtp-url 'smtp://relatorios@mail.example.com:587?tls=required' "
            "--email-from relatorios@example.com"
        ),
        env={"FISCAL_REPORT_SMTP_PASSWORD": "{{ var.value.smtp_password }}"},
        append_env=True,
    )
    download >> run
