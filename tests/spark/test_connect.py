"""Spark Connect: `exlint estate --remote sc://127.0.0.1:PORT` against a real
Spark Connect server started from the PySpark package (SparkConnectServer
through spark-submit, local[2], bound to 127.0.0.1) gives the findings of
embedded local mode. Skipped, with the reason, when the client's extra
dependencies (pip install 'pyspark[connect]') are missing. The server is stopped
even when the test fails."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
for module in ("pandas", "pyarrow", "grpc", "google.protobuf"):
    pytest.importorskip(module, reason="Spark Connect's client needs pip install 'pyspark[connect]'")

REPO = Path(__file__).resolve().parents[2]
INVENTORY = REPO / "samples" / "inventory" / "estate.jsonl"
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def connect_server(tmp_path):
    import pyspark

    port = _free_port()
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    log = open(tmp_path / "connect.log", "wb")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    server = subprocess.Popen(
        [str(submit), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
         "--master", "local[2]", "--driver-memory", "3g", "--name", "exlint-connect-test",
         "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
         "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
         "--conf", "spark.ui.enabled=false"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if server.poll() is not None:
                pytest.fail("the Spark Connect server exited: " + (tmp_path / "connect.log").read_text()[-3000:])
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(1)
        else:
            pytest.fail("the Spark Connect server did not listen within 180 s")
        yield f"sc://127.0.0.1:{port}"
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=30)
        log.close()


def _findings(stdout: str) -> list[str]:
    return sorted(json.dumps(f, sort_keys=True) for f in json.loads(stdout)["findings"])


def test_spark_connect_gives_the_local_findings(spark, connect_server):
    from click.testing import CliRunner

    from linter.cli import cli

    local = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--format", "json", "--quiet"])
    assert local.exit_code in (0, 1), local.output
    remote = subprocess.run([sys.executable, "-m", "linter", "estate", str(INVENTORY), "--format", "json",
                             "--quiet", "--remote", connect_server], cwd=REPO, capture_output=True, text=True,
                            timeout=1500)
    assert remote.returncode in (0, 1), remote.stderr[-3000:]
    assert _findings(remote.stdout) == _findings(local.stdout) and _findings(local.stdout)
