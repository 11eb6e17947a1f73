"""`exlint estate` as a user installs and runs it: the built wheel (non-editable,
with the spark extra) in a fresh virtual environment, the console script called
by absolute path from another directory, and a PATH whose `python3` cannot
import exlint (as under pipx, cron or a CI container). Spark's Python workers
must run exlint's own interpreter in local mode; on a standalone cluster whose
workers only have that bare `python3`, the job stops before any work with one
line and exit 2, and succeeds once `spark.pyspark.python` names an interpreter
that has exlint (the documented recipe)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark is an optional extra: pip install 'exlint[spark]'")

from installed import bare_python_dir, install_wheel  # noqa: E402
from standalone import Cluster  # noqa: E402

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
INVENTORY = REPO / "samples" / "inventory" / "estate.jsonl"


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    """(exlint console script, its python, an environment whose python3 lacks exlint, a work directory)."""
    work = tmp_path_factory.mktemp("as-installed")
    python = install_wheel(work, extra="spark")
    bare = bare_python_dir(work)
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV", "EXLINT_JVM_CACHE",
                          "EXLINT_CACHE_DIR")}
    env["PATH"] = f"{bare}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(work / "cache")
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    probe = subprocess.run(["python3", "-c", "import linter"], env=env, cwd=elsewhere, capture_output=True, text=True)
    assert probe.returncode != 0, "the bare python3 must not import exlint"
    return python.parent / "exlint", python, env, elsewhere


def _findings(stdout: str) -> list[str]:
    return sorted(json.dumps(f, sort_keys=True) for f in json.loads(stdout)["findings"])


def test_installed_estate_runs_with_a_bare_python3_on_path(user):
    exlint, _, env, elsewhere = user
    estate = subprocess.run([str(exlint), "estate", str(INVENTORY), "--format", "json"], cwd=elsewhere, env=env,
                            capture_output=True, text=True, timeout=1200)
    assert estate.returncode in (0, 1), estate.stderr[-3000:]
    check = subprocess.run([str(exlint), "check", str(INVENTORY), "--format", "json"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, timeout=600)
    assert check.returncode in (0, 1), check.stderr[-3000:]
    assert _findings(estate.stdout) == _findings(check.stdout)
    assert len(_findings(estate.stdout)) > 0
    # standard error is a pipe: no JVM start-up noise, no traceback; only progress lines, and
    # (a first run on this machine, its cache empty) the one line of the JVM's class-data archive
    assert "Traceback" not in estate.stderr
    assert "WARNING" not in estate.stderr and "WARN " not in estate.stderr, estate.stderr[-2000:]
    kept = [line for line in estate.stderr.splitlines() if line.startswith("exlint: keeping Spark's classes in ")]
    assert len(kept) == 1, estate.stderr[-2000:]
    jvm = Path(env["XDG_CACHE_HOME"]) / "exlint" / "jvm"
    archives = list(jvm.glob("spark-*.jsa"))
    assert archives, "the archive, for the next runs"
    # beside it, under its name, the rule queries the next run's SQL parser is warmed with
    corpus = archives[0].with_name(archives[0].name[:-len(".jsa")] + ".sql.json")
    queries = json.loads(corpus.read_text())
    assert queries and all(isinstance(query, str) and "SELECT" in query.upper() for query in queries)
    for line in estate.stderr.splitlines():
        assert line.startswith("exlint: [") or line in kept, line


@pytest.fixture(scope="module")
def bare_cluster(user, tmp_path_factory):
    """A standalone master and worker whose environment's python3 cannot import exlint."""
    _, _, env, _ = user
    cluster = Cluster(tmp_path_factory.mktemp("bare-cluster"))
    cluster.env = {**env, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_MASTER_HOST": "127.0.0.1",
                   "SPARK_LOG_DIR": str(cluster.workdir / "logs"), "SPARK_WORKER_DIR": str(cluster.workdir / "work")}
    try:
        cluster.start_master()
        cluster.start_worker(cores=2, memory="2g")
        cluster.wait_for_workers(1)
        yield cluster
    finally:
        cluster.stop()


@pytest.mark.skipif(os.environ.get("EXLINT_CLUSTER_TESTS") == "0", reason="EXLINT_CLUSTER_TESTS=0")
def test_cluster_workers_without_exlint_stop_the_job_with_one_line(user, bare_cluster):
    exlint, _, env, elsewhere = user
    done = subprocess.run([str(exlint), "estate", str(INVENTORY), "--master", bare_cluster.url, "--quiet",
                           "--output", str(elsewhere / "findings")],
                          cwd=elsewhere, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 2, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    assert "cannot import exlint" in lines[0] and "spark.pyspark.python" in lines[0] and "--archives" in lines[0]
    assert "Traceback" not in done.stderr
    assert not (elsewhere / "findings").exists()


@pytest.mark.skipif(os.environ.get("EXLINT_CLUSTER_TESTS") == "0", reason="EXLINT_CLUSTER_TESTS=0")
def test_cluster_runs_when_spark_pyspark_python_names_exlints_interpreter(user, bare_cluster):
    exlint, python, env, elsewhere = user
    done = subprocess.run([str(exlint), "estate", str(INVENTORY), "--master", bare_cluster.url, "--format", "json",
                           "--conf", f"spark.pyspark.python={python}"],
                          cwd=elsewhere, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    check = subprocess.run([str(exlint), "check", str(INVENTORY), "--format", "json"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, timeout=600)
    assert _findings(done.stdout) == _findings(check.stdout)
