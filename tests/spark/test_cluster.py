"""Cluster mode against a real standalone master and two workers started on
127.0.0.1 from the PySpark package: the same findings as local mode, and the
job survives losing a worker mid-way. Every process started is stopped."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark is an optional extra: pip install 'exlint[spark]'")

from standalone import standalone_cluster  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("EXLINT_CLUSTER_TESTS") == "0",
                       reason="EXLINT_CLUSTER_TESTS=0: the standalone-cluster tests are switched off"),
]
REPO = Path(__file__).resolve().parents[2]


def estate_command(*args, timeout=1200, env=None):
    return subprocess.Popen([sys.executable, "-m", "linter", "estate", *map(str, args)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def findings_of(process, timeout=1200):
    out, err = process.communicate(timeout=timeout)
    assert process.returncode in (0, 1), err[-3000:]
    return sorted(json.dumps(f, sort_keys=True) for f in json.loads(out)["findings"])


@pytest.fixture(scope="module")
def inventory(tmp_path_factory):
    from linter.generate.core import Settings, generate

    out = tmp_path_factory.mktemp("cluster") / "estate.jsonl"
    generate(Settings(servers=120, seed=11, defect_rate=0.1, format="jsonl", output=str(out)))
    return out


@pytest.fixture(scope="module")
def local_findings(spark, inventory):
    """The findings of embedded local mode (the test session's SparkSession)."""
    from click.testing import CliRunner

    from linter.cli import cli

    done = CliRunner().invoke(cli, ["estate", str(inventory), "--format", "json", "--quiet"])
    assert done.exit_code in (0, 1), done.output
    return sorted(json.dumps(f, sort_keys=True) for f in json.loads(done.stdout)["findings"])


def executors_on_every_worker(cluster) -> bool:
    workers = [w for w in cluster.state().get("workers", []) if w.get("state") == "ALIVE"]
    return len(workers) == len(cluster.workers) and all(w.get("coresused", 0) > 0 for w in workers)


def test_standalone_cluster_gives_the_local_findings(tmp_path, inventory, local_findings):
    with standalone_cluster(tmp_path, workers=2) as cluster:
        remote = findings_of(estate_command(inventory, "--format", "json", "--master", cluster.url,
                                            "--conf", "spark.executor.memory=1g", "--conf", "spark.cores.max=2"))
        assert cluster.state()["completedapps"], "the job did not run on the cluster"
    assert remote == local_findings and local_findings


def test_losing_a_worker_mid_job_still_completes(tmp_path, inventory, local_findings):
    with standalone_cluster(tmp_path, workers=2) as cluster:
        process = estate_command(inventory, "--format", "json", "--master", cluster.url,
                                 "--conf", "spark.executor.memory=1g", "--conf", "spark.task.maxFailures=8")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            if executors_on_every_worker(cluster):
                time.sleep(6)  # into the job's stages: the executor killed holds tasks and cached blocks
                break
            time.sleep(0.5)
        assert process.poll() is None, "the job finished before a worker could be killed"
        cluster.kill(cluster.workers[0])  # the worker and its executor (one process group)
        assert cluster.workers[0].poll() is not None
        remote = findings_of(process)
    assert remote == local_findings
    assert cluster.master.poll() is not None and all(w.poll() is not None for w in cluster.workers)
