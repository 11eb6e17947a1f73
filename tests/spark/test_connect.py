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
    # a --conf value the server refuses is named, not dropped as a static setting
    refused = subprocess.run([sys.executable, "-m", "linter", "estate", str(INVENTORY), "--quiet", "--remote",
                              connect_server, "--conf", "spark.sql.shuffle.partitions=abc"], cwd=REPO,
                             capture_output=True, text=True, timeout=600)
    assert refused.returncode == 2, refused.stderr[-3000:]
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "spark.sql.shuffle.partitions=abc" in refused.stderr and "fix that --conf value" in refused.stderr


def test_nothing_listening_at_the_remote_is_refused_at_once(tmp_path):
    # Spark Connect itself retries for at least 10 minutes, printing only a UserWarning
    url = f"sc://127.0.0.1:{_free_port()}"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "linter", "estate", str(INVENTORY), "--remote", url], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip() == (f"exlint: error: cannot reach Spark Connect at {url}: connection refused; check "
                                   "--remote (sc://HOST:15002) and that a Spark Connect server runs there")
    assert time.monotonic() - started < 60


def test_a_port_that_is_not_spark_connect_fails_in_seconds_with_one_line(tmp_path):
    # it accepts the connection and never answers: the first call's retries are bounded,
    # and the client's exit hook does not retry again for 10 minutes
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = []
    threading.Thread(target=lambda: [accepted.append(listener.accept()) for _ in range(8)], daemon=True).start()
    url = f"sc://127.0.0.1:{listener.getsockname()[1]}/;user_id=exlint"
    try:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "linter", "estate", str(INVENTORY), "--remote", url, "-q"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        elapsed = time.monotonic() - started
    finally:
        listener.close()
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"exlint: error: cannot connect to Spark Connect at {url}: "), lines
    assert "RETRIES_EXCEEDED" not in done.stderr and "_InactiveRpcError" not in done.stderr
    assert elapsed < 120, elapsed



@pytest.mark.parametrize("url, address", [
    ("sc://host", ("host", 15002)), ("sc://host:15003/;user_id=a;token=b", ("host", 15003)),
    ("sc://[::1]:15002", ("::1", 15002)), ("sc://host;token=b", ("host", 15002)),
    ("sc://:15002", None), ("sc://host:port", None), ("spark://host:7077", None),
])
def test_the_probe_reads_host_and_port_as_spark_connect_does(url, address):
    from linter.engines.spark.session import _connect_address

    assert _connect_address(url) == address
