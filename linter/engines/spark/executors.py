"""Before any work on a cluster: can an executor run exlint?

The job's parse step runs exlint's own code on the executors. When a node's
Python cannot import exlint (or imports another version), the job would fail
minutes later, deep inside a task, with hundreds of lines of trace. One tiny
task asks first, and the answer is one line saying what to do.
"""
from __future__ import annotations

import threading

from linter import __version__
from linter.engines.spark.failures import WORKERS_HINT, describe

PROBE_GROUP = "exlint-probe"
PROBE_TIMEOUT = 180.0  # seconds for a cluster to give the probe an executor


class ExecutorError(Exception):
    """The executors cannot run this exlint (exit code 2); the message says what to do."""


def _probe_task():
    # Built inside a function so that cloudpickle ships it by value: a function
    # of an exlint module would be pickled by reference, and unpickling it would
    # itself need exlint on the executor.
    def probe(_rows):
        import sys

        try:
            import linter

            yield (getattr(linter, "__version__", "unknown"), sys.executable, sys.version.split()[0], "")
        except BaseException as exc:  # noqa: BLE001 - the answer, whatever it is
            yield ("", sys.executable, sys.version.split()[0], f"{type(exc).__name__}: {exc}")

    return probe


def check_executors(spark, timeout: float = PROBE_TIMEOUT) -> None:
    """Raise ExecutorError unless an executor imports exlint at the driver's version."""
    context = spark.sparkContext
    context.setJobGroup(PROBE_GROUP, "exlint: can the executors import exlint?", True)
    timer = threading.Timer(timeout, context.cancelJobGroup, args=(PROBE_GROUP,))
    timer.daemon = True
    timer.start()
    try:
        answers = context.parallelize([0], 1).mapPartitions(_probe_task()).collect()
    except Exception as exc:  # noqa: BLE001 - Py4J/PySpark failures of the probe job
        if not timer.is_alive():
            raise ExecutorError(f"no executor ran exlint's start-up check within {timeout:.0f} s: check that the "
                                f"master has live workers with free cores and memory, or run without --master") \
                from None
        raise ExecutorError(f"the Spark executors cannot run exlint: {describe(exc)}") from None
    finally:
        timer.cancel()
        context.setLocalProperty("spark.jobGroup.id", None)
        context.setLocalProperty("spark.job.description", None)
    for version, python, python_version, error in answers:
        if error:
            raise ExecutorError(f"the Spark executors' Python ({python}, {python_version}) cannot import exlint "
                                f"({error}): {WORKERS_HINT}")
        if version != __version__:
            raise ExecutorError(f"the Spark executors' Python ({python}) has exlint {version}, the driver "
                                f"{__version__}: {WORKERS_HINT}")
