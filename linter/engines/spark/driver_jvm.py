"""The driver JVM that `exlint estate` starts itself (local mode, and a cluster's
client): its scratch directory, the class-data archive that shortens later starts,
its JIT mode, and how it ends. Measured on the bundled sample, fresh processes,
2 cores (docs/spark.md, "Starting the JVM"):

- A fresh JVM spends most of a small run loading, verifying and compiling Spark's
  ~21,000 classes (the same job takes 8 s in a warm JVM, 20 s in a cold one).
  Class-data sharing (CDS, JDK 13+) maps the classes of an earlier run from an
  archive instead: the first run on a machine writes it when its JVM exits
  (``-XX:ArchiveClassesAtExit``; ~10 s, once per Java, Spark and exlint version),
  later runs map it (``-XX:SharedArchiveFile``). A stale or foreign archive is
  refused by the JVM itself, which then loads classes as usual.
- A short run is over before the optimizing compiler (C2) pays for its work
  (27 s of compile threads' CPU against 4 s for C1 alone, on 2 cores shared with
  the job): a small inventory runs with C1 only (``-XX:TieredStopAtLevel=1``), with
  the tiered code cache's size (C1_CODE_CACHE): C1 alone would get 48 MB, which
  Spark's generated classes fill at 10,000 servers (the JIT then stops, or the JVM
  dies "Out of space in CodeCache"); and G1 marks its old generation later
  (SHORT_RUN_MARKING), which costs less of the two cores the job runs on.
- Spark's scratch files (local dirs, ``java.io.tmpdir``) go to a directory of this
  run, removed after the JVM: the JVM is then killed rather than stopped (a clean
  ``SparkContext.stop()`` takes ~1.3 s and only matters to a cluster's master),
  and a killed JVM no longer leaves its directories behind in /tmp.
- Before JDK 22, a thread in a JNI critical region (lz4 compressing a broadcast)
  holds off G1's collections, and an allocation that has waited for it twice fails
  with ``OutOfMemoryError`` though a collection would make room (JDK-8192647): seen
  once in eight runs of an independently generated 10,000-server inventory
  (``Retried waiting for GCLocker too often allocating 8388608 words``, the heap at
  5.1 of 5.4 GB after collections). Such an allocation now waits up to
  GCLOCKER_RETRIES times (``-XX:GCLockerRetryAllocationCount``, as Trino sets it);
  JDK 22's G1 pins regions instead (JEP 423) and needs none.

``EXLINT_JVM_CACHE=0`` turns the archive (and the parser's corpus) off; a user's own ``-Xshare``,
``-XX:SharedArchiveFile``, ``-XX:TieredStopAtLevel``, ``-XX:ReservedCodeCacheSize``, a marking
threshold or another collector, or ``-XX:GCLockerRetryAllocationCount`` in
``spark.driver.extraJavaOptions`` wins over these.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from linter.engines.spark.jvm_cache import ARCHIVE_SUFFIX, archive_path, cache_on, corpus_path, prune_other_versions

# up to this many bytes of inventory, a run is short: C1 only (docs/spark.md, "Starting
# the JVM": 10,000 servers, 37 MB, ~6 s faster; 30,000 servers, 111 MB, even; 100,000
# servers, 365 MB, 9 s slower)
SHORT_RUN_BYTES = 96 * 1024 * 1024
# C1 alone gets the JVM's non-tiered code cache, 48 MB, and Spark's generated classes
# fill it: 44.4 MB used at the independent 10,000 servers (86 MB), and one such run ended
# "Out of space in CodeCache for adapters" (docs/spark.md, session 58). The tiered
# default (240 MB) is reserved address space, committed only as code is compiled.
C1_CODE_CACHE = "240m"
# G1 starts marking the old generation concurrently once the heap is this full, not at
# the occupancy it predicts: its marking threads took 13 s of CPU in a fresh run of the
# independent 10,000 servers, on the job's two cores (4 alternated pairs: 87.0 s against
# 90.5 s on average, docs/spark.md, session 58)
SHORT_RUN_MARKING = ["-XX:-G1UseAdaptiveIHOP", "-XX:InitiatingHeapOccupancyPercent=85"]
GCLOCKER_RETRIES = 32
QUIET_CDS = "-Xlog:cds=off -Xlog:cds+dynamic=off -Xlog:class+path=off"


@dataclass
class Launch:
    """What this process's launch of the driver JVM set up, for its end."""
    scratch: str | None = None  # this run's scratch directory (removed at the end)
    archive: Path | None = None  # the class-data archive this run writes when its JVM exits
    pending: Path | None = None  # ... first under this name, renamed once complete
    using: Path | None = None  # the archive this run's JVM maps
    cluster: bool = False  # a cluster's master must hear the application end


LAUNCH = Launch()


def prepare(conf: dict, master: str, java: str | None, java_major: int, short_run: bool,
            log_dir: Path | None = None) -> None:
    """Add to ``conf`` what the launch needs (scratch directory, class-data
    archive, JIT mode, crash reports in ``log_dir`` beside the run's log rather than
    in the working directory), and remember it in LAUNCH for ``end``."""
    global LAUNCH
    LAUNCH = Launch(cluster=not master.startswith("local"))
    options = conf.get("spark.driver.extraJavaOptions", "")
    added = []
    if log_dir is not None and "ErrorFile" not in options:
        added.append(f"-XX:ErrorFile={log_dir / 'hs_err_pid%p.log'}")
    if not LAUNCH.cluster and "spark.local.dir" not in conf and not os.environ.get("SPARK_LOCAL_DIRS") \
            and "java.io.tmpdir" not in options:
        LAUNCH.scratch = tempfile.mkdtemp(prefix="exlint-spark-")
        conf["spark.local.dir"] = LAUNCH.scratch
        added.append(f"-Djava.io.tmpdir={LAUNCH.scratch}")
    if short_run and "TieredStopAtLevel" not in options and "TieredCompilation" not in options:
        added.append("-XX:TieredStopAtLevel=1")
        if "ReservedCodeCacheSize" not in options:
            added.append(f"-XX:ReservedCodeCacheSize={C1_CODE_CACHE}")
    if short_run and not any(flag in options for flag in ("InitiatingHeapOccupancyPercent", "G1UseAdaptiveIHOP",
                                                          "UseParallelGC", "UseSerialGC", "UseZGC", "UseShenandoahGC")):
        added += SHORT_RUN_MARKING
    added += _class_data_options(options, java, java_major)
    from linter.engines.spark import sql_warmup

    sql_warmup.use_corpus(corpus_path(java))
    if added:
        conf["spark.driver.extraJavaOptions"] = " ".join([options] + added).strip()


def with_gclocker_retries(options: str, java_major: int) -> str:
    """``options`` (the driver's Java options) with G1 waiting GCLOCKER_RETRIES times
    for JNI critical regions before JDK 22 (module docstring). Every JVM this process
    launches gets it, not only `exlint estate`'s: benchmarks/profile_estate.py ran the
    independent 10,000 servers out of heap without it (session 49)."""
    if java_major >= 22 or "GCLockerRetryAllocationCount" in options:
        return options
    return f"{options} -XX:+UnlockDiagnosticVMOptions -XX:GCLockerRetryAllocationCount={GCLOCKER_RETRIES}".strip()


def _class_data_options(options: str, java: str | None, java_major: int) -> list[str]:
    if java_major < 13 or not cache_on() or "Xshare" in options \
            or "SharedArchiveFile" in options or "ArchiveClassesAtExit" in options or java is None:
        return []
    try:
        archive = archive_path(java)
    except OSError:
        return []
    if archive.is_file():
        LAUNCH.using = archive
        return [f"-XX:SharedArchiveFile={archive}", QUIET_CDS]
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=archive.parent, prefix=".probe-")
        probe.close()
    except OSError:  # no writable cache: run as before
        return []
    LAUNCH.archive = archive
    LAUNCH.pending = archive.with_name(f".{archive.name}.{os.getpid()}.tmp")
    return [f"-XX:ArchiveClassesAtExit={LAUNCH.pending}", QUIET_CDS]


def without_archive(conf: dict) -> Path | None:
    """After a failed start with an archive: ``conf`` set to start without it, and the
    archive returned (None when none was in use: nothing to retry). The caller removes
    it if the start without it succeeds (a damaged archive crashes the JVM as it starts:
    a truncated file is a SIGBUS); a start that fails for another cause (a heap too
    small for the JVM) keeps it."""
    archive = LAUNCH.using
    if archive is None:
        return None
    dropped = (f"-XX:SharedArchiveFile={LAUNCH.using}", QUIET_CDS)
    options = conf.get("spark.driver.extraJavaOptions", "")
    for option in dropped:
        options = options.replace(option, "")
    conf["spark.driver.extraJavaOptions"] = " ".join(options.split())
    LAUNCH.using = None
    return archive


def remove_archive(archive: Path) -> None:
    try:
        archive.unlink()
    except OSError:
        pass


def end(process, stop_context, timeout: float = 20.0, keep_classes: bool = True, quiet: bool = False) -> None:
    """End the driver JVM ``process`` (a Popen, or None) and what it left:
    ``stop_context`` (a callable) first when a cluster's master must hear of it or
    this run writes the class-data archive (``keep_classes``: not after Ctrl-C or a
    failure; said on standard error unless ``quiet``), then the JVM and its
    children are killed and the scratch removed."""
    from linter.engines.spark import sql_warmup

    sql_warmup.stop()  # before the JVM goes: no call of its left waiting on a closed socket
    launch = LAUNCH
    dump = keep_classes and launch.pending is not None and process is not None
    if launch.cluster or dump or launch.scratch is None:
        stop_context(timeout)
    if dump:
        _write_archive(process, launch, quiet)
    if process is not None:
        kill_tree(process.pid)
        try:
            process.wait(timeout=10)
        except Exception:  # noqa: BLE001
            pass
    if launch.pending is not None:
        try:
            launch.pending.unlink()
        except OSError:
            pass
    if launch.scratch is not None:
        shutil.rmtree(launch.scratch, ignore_errors=True)
        launch.scratch = None


def _write_archive(process, launch: Launch, quiet: bool, timeout: float = 180.0) -> None:
    """Let the JVM exit on its own (PySpark's gateway exits when its standard input
    closes), which writes the archive; then give it its name, atomically."""
    if not quiet:
        print(f"exlint: keeping Spark's classes in {launch.archive} for faster starts (once)", file=sys.stderr)
    try:
        process.stdin.close()
        code = process.wait(timeout=timeout)
    except Exception:  # noqa: BLE001 - no archive this time; the next run tries again
        return
    if code == 0 and launch.pending.is_file() and launch.pending.stat().st_size > 0:
        try:
            os.replace(launch.pending, launch.archive)
            prune_other_versions(launch.archive, ARCHIVE_SUFFIX)
        except OSError:
            pass


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process below it (Spark's Python daemon and workers)."""
    import signal

    children: dict[int, list[int]] = {}
    try:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as stat:
                        fields = stat.read().rsplit(b")", 1)[1].split()
                    children.setdefault(int(fields[1]), []).append(int(entry))
                except (OSError, IndexError, ValueError):
                    continue
    except OSError:  # no /proc: the JVM alone
        pass
    order, pending = [], [pid]
    while pending:
        current = pending.pop()
        order.append(current)
        pending.extend(children.get(current, ()))
    for target in order:
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
