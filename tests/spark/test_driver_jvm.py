"""The driver JVM that `exlint estate` starts (engines/spark/driver_jvm.py): its
class-data archive, written by a first run and mapped by the next; a damaged
archive that would crash the JVM is dropped and the run goes on; its scratch
directory is gone with it; its JIT mode and the user's own options."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linter.engines.spark import driver_jvm

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"


def _estate(tmp: Path, *args: str, cache: bool = True):
    env = {**os.environ, "EXLINT_CACHE_DIR": str(tmp / "cache"), "EXLINT_JVM_CACHE": "1" if cache else "0",
           "TMPDIR": str(tmp / "scratch")}
    (tmp / "scratch").mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "linter", "estate", str(SAMPLE), "--format", "json", *args],
                          cwd=tmp, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    return done


def _findings(done) -> list[str]:
    return sorted(json.dumps(f, sort_keys=True) for f in json.loads(done.stdout)["findings"])


def test_archive_written_once_then_mapped_and_damage_is_survived(tmp_path):
    pytest.importorskip("pyspark")
    first = _estate(tmp_path)
    archives = list((tmp_path / "cache" / "jvm").glob("spark-*.jsa"))
    assert len(archives) == 1 and archives[0].stat().st_size > 1_000_000
    assert "keeping Spark's classes" in first.stderr
    assert not list((tmp_path / "cache" / "jvm").glob(".*.tmp")), "the archive is renamed once complete"
    # the next run maps it: the JVM says where each class came from
    loaded = tmp_path / "classes.txt"
    second = _estate(tmp_path, "--conf", f"spark.driver.extraJavaOptions=-Xlog:class+load:file={loaded}")
    assert "keeping Spark's classes" not in second.stderr
    shared = [line for line in loaded.read_text().splitlines() if "shared objects file" in line]
    assert len(shared) > 5000, "Spark's classes come from the archive"
    assert _findings(second) == _findings(first)
    # scratch: nothing of either run is left in the temporary directory
    assert not list((tmp_path / "scratch").iterdir())
    # a truncated archive crashes a JVM that maps it (SIGBUS): dropped, and the run goes on
    archives[0].chmod(0o644)
    archives[0].write_bytes(archives[0].read_bytes()[:1_000_000])
    third = _estate(tmp_path)
    assert _findings(third) == _findings(first)
    assert not archives[0].exists()
    assert not list(tmp_path.glob("hs_err_pid*.log")), "the JVM's crash report goes beside exlint's logs"


@pytest.fixture(autouse=True)
def _no_corpus_after():
    yield
    from linter.engines.spark import sql_warmup

    sql_warmup.use_corpus(None)  # prepare set one: the tests' shared session must not write it


def _prepared(monkeypatch, tmp_path, options: str = "", master: str = "local[*]", short: bool = True,
              major: int = 17, extra: dict | None = None) -> tuple[str, dict]:
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EXLINT_JVM_CACHE", "1")
    monkeypatch.delenv("SPARK_LOCAL_DIRS", raising=False)
    conf = {"spark.driver.extraJavaOptions": options, **(extra or {})}
    java = sys.executable  # any existing file: the archive's name digests it
    driver_jvm.prepare(conf, master, java, major, short, tmp_path / "logs")
    return conf["spark.driver.extraJavaOptions"], conf


def test_first_run_dumps_later_runs_map(monkeypatch, tmp_path):
    pytest.importorskip("pyspark")
    options, conf = _prepared(monkeypatch, tmp_path)
    assert "-XX:ArchiveClassesAtExit=" in options and "SharedArchiveFile" not in options
    assert "-XX:TieredStopAtLevel=1" in options
    assert f"-XX:ReservedCodeCacheSize={driver_jvm.C1_CODE_CACHE}" in options, "C1 alone: not its 48 MB code cache"
    assert all(flag in options for flag in driver_jvm.SHORT_RUN_MARKING), "G1 marks later in a short run"
    assert conf["spark.local.dir"] == driver_jvm.LAUNCH.scratch and Path(driver_jvm.LAUNCH.scratch).is_dir()
    assert f"-Djava.io.tmpdir={driver_jvm.LAUNCH.scratch}" in options
    assert f"-XX:ErrorFile={tmp_path / 'logs'}" in options
    from linter.engines.spark import sql_warmup

    assert sql_warmup.WARMUP.corpus == driver_jvm.LAUNCH.archive.with_suffix(".sql.json"), "the corpus beside it"
    Path(driver_jvm.LAUNCH.scratch).rmdir()
    driver_jvm.LAUNCH.archive.write_bytes(b"archive")
    options, _ = _prepared(monkeypatch, tmp_path)
    assert f"-XX:SharedArchiveFile={driver_jvm.LAUNCH.using}" in options and "ArchiveClassesAtExit" not in options
    Path(driver_jvm.LAUNCH.scratch).rmdir()


@pytest.mark.parametrize("options, absent", [
    ("-Xshare:off", "SharedArchiveFile"),
    ("-XX:SharedArchiveFile=/elsewhere.jsa", "ArchiveClassesAtExit"),
    ("-XX:TieredStopAtLevel=4", "TieredStopAtLevel=1"),
    ("-XX:ReservedCodeCacheSize=64m", f"ReservedCodeCacheSize={driver_jvm.C1_CODE_CACHE}"),
    ("-XX:InitiatingHeapOccupancyPercent=30", "G1UseAdaptiveIHOP"),
    ("-XX:+UseParallelGC", "InitiatingHeapOccupancyPercent"),
    ("-Djava.io.tmpdir=/mine", "exlint-spark-"),
])
def test_the_users_own_options_win(monkeypatch, tmp_path, options, absent):
    pytest.importorskip("pyspark")
    got, _ = _prepared(monkeypatch, tmp_path, options)
    assert got.startswith(options) and absent not in got
    if driver_jvm.LAUNCH.scratch:
        Path(driver_jvm.LAUNCH.scratch).rmdir()


def test_no_archive_before_java_13_or_when_turned_off(monkeypatch, tmp_path):
    pytest.importorskip("pyspark")
    got, _ = _prepared(monkeypatch, tmp_path, major=11)
    assert "Archive" not in got
    Path(driver_jvm.LAUNCH.scratch).rmdir()
    monkeypatch.setenv("EXLINT_JVM_CACHE", "0")
    conf = {"spark.driver.extraJavaOptions": ""}
    driver_jvm.prepare(conf, "local[*]", sys.executable, 17, False)
    assert "Archive" not in conf["spark.driver.extraJavaOptions"]
    assert "TieredStopAtLevel" not in conf["spark.driver.extraJavaOptions"], "a long run keeps C2"
    assert "ReservedCodeCacheSize" not in conf["spark.driver.extraJavaOptions"], "and the tiered code cache"
    assert "InitiatingHeapOccupancyPercent" not in conf["spark.driver.extraJavaOptions"], "and G1's own marking"
    from linter.engines.spark import sql_warmup

    assert sql_warmup.WARMUP.corpus is None, "no corpus with the cache off"
    Path(driver_jvm.LAUNCH.scratch).rmdir()


def test_g1_waits_longer_for_jni_critical_regions_before_java_22():
    for major, wanted in ((17, True), (21, True), (22, False)):
        got = driver_jvm.with_gclocker_retries("-Xmx1g", major)
        assert got.startswith("-Xmx1g")
        assert ("-XX:+UnlockDiagnosticVMOptions -XX:GCLockerRetryAllocationCount=32" in got) is wanted, major
    mine = "-XX:+UnlockDiagnosticVMOptions -XX:GCLockerRetryAllocationCount=5"
    assert driver_jvm.with_gclocker_retries(mine, 17) == mine  # the user's own count wins


def test_every_driver_jvm_this_process_launches_waits_longer(spark):
    # not only `exlint estate`'s (which prepares its launch): the test session is built as
    # benchmarks/profile_estate.py builds its own, with no JVM log
    from linter.engines.spark.session import check_java, require_pyspark

    options = spark.sparkContext.getConf().get("spark.driver.extraJavaOptions", "")
    wanted = check_java(require_pyspark()) < 22
    assert ("GCLockerRetryAllocationCount=32" in options) is wanted, options


def test_cluster_and_chosen_local_dirs_keep_their_directories(monkeypatch, tmp_path):
    pytest.importorskip("pyspark")
    _, conf = _prepared(monkeypatch, tmp_path, master="spark://127.0.0.1:7077")
    assert "spark.local.dir" not in conf and driver_jvm.LAUNCH.scratch is None and driver_jvm.LAUNCH.cluster
    _, conf = _prepared(monkeypatch, tmp_path, extra={"spark.local.dir": "/data/spark"})
    assert conf["spark.local.dir"] == "/data/spark" and driver_jvm.LAUNCH.scratch is None


def test_a_damaged_archive_is_dropped_once(monkeypatch, tmp_path):
    pytest.importorskip("pyspark")
    driver_jvm.LAUNCH.archive = None
    _prepared(monkeypatch, tmp_path)
    driver_jvm.LAUNCH.archive.write_bytes(b"archive")
    Path(driver_jvm.LAUNCH.scratch).rmdir()
    options, conf = _prepared(monkeypatch, tmp_path)
    archive = driver_jvm.LAUNCH.using
    assert driver_jvm.without_archive(conf) == archive
    # kept until the start without it succeeds: a start failing for another cause keeps it
    assert archive.exists() and "SharedArchiveFile" not in conf["spark.driver.extraJavaOptions"]
    assert "-XX:TieredStopAtLevel=1" in conf["spark.driver.extraJavaOptions"]
    assert driver_jvm.without_archive(conf) is None, "no second retry"
    driver_jvm.remove_archive(archive)
    assert not archive.exists()
    Path(driver_jvm.LAUNCH.scratch).rmdir()
