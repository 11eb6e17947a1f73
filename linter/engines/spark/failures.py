"""What went wrong inside Spark, in one line a user can act on.

Spark reports an executor's exception, a lost driver or an exhausted heap as a
Py4J or PySpark exception whose text is hundreds of lines of Java and Python
stack. ``exlint estate`` prints one line instead: the cause and what to do,
and the path of a log file that holds the whole trace (and, unless
``--debug``, everything the JVM printed). The rules below are matched against
the exception's text in order; the first that matches names the cause.
"""
from __future__ import annotations

import os
import re
import tempfile
import time
import traceback
from pathlib import Path

from linter.engines.spark.java_text import BAD_CONF_HINT, BAD_CONF_VALUE, LIMIT, exception_text, said, unframed

KEEP_LOGS = 20


def log_directory() -> Path:
    """Where the estate job's logs go: beside the record cache, else the temp dir."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for candidate in (Path(base) / "exlint" / "logs", Path(tempfile.gettempdir()) / f"exlint-logs-{os.getuid()}"):
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            if os.access(candidate, os.W_OK):
                return candidate
        except OSError:
            continue
    return Path(tempfile.mkdtemp(prefix="exlint-logs-"))


def new_log_path() -> Path:
    """A fresh log file for one run; the oldest beyond KEEP_LOGS are removed."""
    directory = log_directory()
    logs = sorted(directory.glob("estate-*.log"), key=lambda p: p.stat().st_mtime if p.exists() else 0)
    for old in logs[:max(0, len(logs) - KEEP_LOGS + 1)]:
        try:
            old.unlink()
        except OSError:
            pass
    return directory / f"estate-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"


def append_trace(log: Path | None, exc: BaseException) -> None:
    if log is None:
        return
    try:
        with open(log, "a", encoding="utf-8", errors="replace") as out:
            out.write("\n--- exlint: the failure ---\n")
            out.write("".join(traceback.format_exception(exc)))
    except OSError:
        pass


WORKERS_HINT = ("install exlint (same version) in the Python that Spark's workers start on every node, ship an "
                "environment with --archives (see docs/spark.md, \"Cluster\"), or point --conf "
                "spark.pyspark.python at an interpreter that has exlint")
MEMORY_HINT = ("give Spark more memory: --conf spark.driver.memory=8g (and --conf spark.executor.memory=8g on a "
               "cluster)")

DRIVER_CAUSE = "the Spark driver stopped unexpectedly (its JVM exited or was killed)"
DRIVER_HINT = "see the log for why; if it ran out of memory, " + MEMORY_HINT

DRIVER_OUT_OF_MEMORY = "the Spark driver ran out of memory and stopped (java.lang.OutOfMemoryError)"


def _driver_stopped() -> str:
    """The driver JVM is gone: why, when its log says it ran out of heap."""
    from linter.engines.spark.session import jvm_log

    if driver_ran_out_of_memory(jvm_log()):
        return f"{DRIVER_OUT_OF_MEMORY}: {MEMORY_HINT}"
    return f"{DRIVER_CAUSE}: {DRIVER_HINT}"


def driver_ran_out_of_memory(log) -> bool:
    """Whether the driver JVM's log ends with its exit on an exhausted heap
    (session.exit_on_out_of_memory)."""
    try:
        with open(log, "rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - 65536))
            return b"Terminating due to java.lang.OutOfMemoryError" in handle.read()
    except (OSError, TypeError):
        return False


# (pattern over the exception's text, cause, what to do); {0} is the pattern's first group
_CAUSES: list[tuple[re.Pattern, str, str]] = [
    (re.compile(r"OutOfMemoryError|Java heap space|GC overhead limit exceeded|Container killed .*memory"),
     "Spark ran out of memory", MEMORY_HINT),
    (re.compile(r"No module named '([^']+)'"),
     "Spark's Python workers cannot import {0!r}", WORKERS_HINT),
    (re.compile(r"Cannot run program \"([^\"]+)\""),
     "Spark cannot start the Python {0!r} for its workers", WORKERS_HINT),
    (re.compile(r"Python in worker has different version[^\n]*"),
     "Spark's Python workers run another Python version than the driver", WORKERS_HINT),
    (re.compile(r"(?:is not a Parquet file|CANNOT_READ_FILE_FOOTER|Could not read footer|"
                r"FAILED_READ_FILE[^\n]*?(?:Parquet|parquet))"),
     "a Parquet file of the inventory cannot be read{file}", "check that every *.parquet file given is a complete "
     "Parquet file (re-export it, or leave it out)"),
    (re.compile(r"Answer from Java side is empty|Error while sending or receiving|Connection refused|"
                r"JAVA_GATEWAY_EXITED|Java gateway process exited|SparkContext was shut down|"
                r"Cannot call methods on a stopped SparkContext|Py4JNetworkError|"
                r"SparkContext has been shutdown"),
     DRIVER_CAUSE, DRIVER_HINT),
    (BAD_CONF_VALUE, "Spark refused a setting: {0}", BAD_CONF_HINT),
    (re.compile(r"Initial job has not accepted any resources|All masters are unresponsive|"
                r"Master removed our application"),
     "the Spark cluster gave the job no executors", "check that the master has live workers with free cores "
     "and memory (its web UI), or run without --master"),
]


def _headline(text: str) -> str:
    """The most telling line of a Spark failure: the task's own exception when a
    stage failed, else the first non-empty line, without Py4J's framing."""
    lost = re.search(r"Lost task [^:]*\): ([^\n]+)", text)
    if lost:
        line = lost.group(1)
        python = re.findall(r"^(\w+(?:Error|Exception): [^\n]+)$", text, re.MULTILINE)
        if "PythonException" in line and python:
            line = python[-1]
    else:
        line = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith(("Traceback", " "))),
                    "unknown error")
        line = re.sub(r"^\w+: ", "", line, count=1) if re.match(r"^Py4J\w*Error: ", line) else line
        call = line.find("An error occurred while calling")
        if call >= 0:  # what Java said is on a later line
            line = said(text[text.index(line) + call:])
    return unframed(line)[:LIMIT] or "unknown error"


_FILE = re.compile(r"\b(?:file|hdfs|s3a?|abfss?|gs):\S+?\.parq(?:uet)?\b")


def describe(exc: BaseException) -> str:
    """One line: the cause and what to do."""
    from linter.engines.spark.session import jvm_exited

    if is_spark_failure(exc) and jvm_exited():
        # Py4J's own words for a call the dead JVM never answered name only the call
        return _driver_stopped()
    text = exception_text(exc)
    for pattern, cause, hint in _CAUSES:
        match = pattern.search(text)
        if match and cause == DRIVER_CAUSE:
            return _driver_stopped()
        if match:
            named = _FILE.search(text)
            where = f" ({named.group(0).removeprefix('file:')})" if named else ""
            return f"{cause.format(*match.groups(), file=where)}: {hint}"
    return f"{'Spark failed: ' if is_spark_failure(exc) else ''}{_headline(text)}"


def is_spark_failure(exc: BaseException) -> bool:
    """An exception raised by Spark or Py4J (rather than by exlint's own code)."""
    for cls in type(exc).__mro__:
        if cls.__module__.split(".")[0] in ("py4j", "pyspark"):
            return True
    return isinstance(exc, (ConnectionError, EOFError)) or "Py4J" in type(exc).__name__


def is_infrastructure(exc: BaseException) -> bool:
    """A failure of Spark itself (memory, a lost driver or cluster, workers that
    cannot start), which no rule causes and no rule can be blamed for."""
    from linter.engines.spark.session import jvm_exited

    text = exception_text(exc)
    return jvm_exited() or any(pattern.search(text) for pattern, _, _ in _CAUSES)
