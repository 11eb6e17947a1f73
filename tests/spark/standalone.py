"""A real Spark standalone cluster on 127.0.0.1, started from the PySpark
package (spark-class ...deploy.master.Master / ...deploy.worker.Worker), for the
cluster-mode tests. Every process it starts is stopped, even when a test fails."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path


def free_port(taken: set[int] | None = None) -> int:
    """A port free now and not in ``taken``: the JVMs bind theirs seconds later, so
    two ports asked for before then could otherwise be the same one (a worker's UI
    then took the master's, and the master's JSON state answered with a worker's page)."""
    taken = taken if taken is not None else set()
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in taken:
            taken.add(port)
            return port


def spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


class Cluster:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.ports: set[int] = set()
        self.master_port = free_port(self.ports)
        self.ui_port = free_port(self.ports)
        self.url = f"spark://127.0.0.1:{self.master_port}"
        self.master: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_MASTER_HOST": "127.0.0.1",
                    "PYSPARK_PYTHON": sys.executable, "SPARK_LOG_DIR": str(workdir / "logs"),
                    "SPARK_WORKER_DIR": str(workdir / "work")}

    def _start(self, name: str, *args: str) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "wb")
        return subprocess.Popen([str(spark_class()), *args], env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def start_master(self) -> None:
        self.master = self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                  "--port", str(self.master_port), "--webui-port", str(self.ui_port))

    def start_worker(self, cores: int = 1, memory: str = "1g") -> subprocess.Popen:
        index = len(self.workers)
        worker = self._start(f"worker{index}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                             "--cores", str(cores), "--memory", memory, "--webui-port", str(free_port(self.ports)),
                             "--work-dir", str(self.workdir / f"work{index}"), self.url)
        self.workers.append(worker)
        return worker

    def state(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as response:
            return json.load(response)

    def wait_for_workers(self, count: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                alive = [w for w in self.state().get("workers", []) if w.get("state") == "ALIVE"]
                if len(alive) >= count:
                    return
            except (OSError, ValueError):  # not up yet, or not yet answering with its state
                pass
            if self.master is not None and self.master.poll() is not None:
                raise RuntimeError("the Spark master exited: " + (self.workdir / "master.log").read_text()[-2000:])
            time.sleep(1)
        raise TimeoutError(f"{count} worker(s) did not register with {self.url} in {timeout}s")

    def kill(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=30)

    def stop(self) -> None:
        for process in [*self.workers, self.master]:
            if process is not None:
                self.kill(process)


@contextmanager
def standalone_cluster(workdir: Path, workers: int = 2):
    cluster = Cluster(workdir)
    try:
        cluster.start_master()
        for _ in range(workers):
            cluster.start_worker()
        cluster.wait_for_workers(workers)
        yield cluster
    finally:
        cluster.stop()
