"""Driver work on threads of PySpark's own kind (InheritableThread), which carry
the calling thread's job group and local properties to the JVM: Spark's jobs
then run side by side, and Python work overlaps the waits on the JVM (a call
through Py4J releases the GIL while it waits).

A Ctrl-C cancels the jobs running at that moment (PySpark's handler), not the
ones these threads start next: ``stop`` tells them to start no more, so that an
interrupted run on a cluster ends in seconds rather than after every queued
table (87 s measured, docs/spark.md "Session 63")."""
from __future__ import annotations

import threading

_stopping = threading.Event()


class Stopped(KeyboardInterrupt):
    """Raised on a run's thread, instead of starting its next Spark job, once the
    run was interrupted: an interruption, as the Ctrl-C itself (exit 130)."""


def begin() -> None:
    """A run starts: its threads may start jobs (a process runs one run at a time)."""
    _stopping.clear()


def stop(session) -> None:
    """The run was interrupted: its threads start no further job, and the jobs
    they started since the Ctrl-C are cancelled too."""
    _stopping.set()
    try:
        session.sparkContext.cancelAllJobs()
    except Exception:  # noqa: BLE001 - Spark Connect, or a JVM the Ctrl-C already ended
        pass


def check() -> None:
    """Before a thread of the run starts a Spark job: Stopped if the run was interrupted."""
    if _stopping.is_set():
        raise Stopped("the run was interrupted")


def was_interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a Ctrl-C was being handled: py4j, interrupted in a
    call to a JVM the same Ctrl-C stopped, raises its own error from its handler of the
    KeyboardInterrupt ("Gateway must be connected to send cancel cmd", seen once in
    fifteen interrupted runs); that is still an interruption (130), not a Spark failure."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def in_threads(work, items: list, session) -> list:
    """``work(item)`` for every item, each in a thread of its own; the results in
    order, or the first exception raised, raised here. ``session``: the
    SparkSession the work uses (a Spark Connect thread must be given it)."""
    from pyspark import InheritableThread

    results: list = [None] * len(items)
    errors: list = []

    def run(index: int) -> None:
        try:
            check()
            results[index] = work(items[index])
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            errors.append(exc)

    threads = [InheritableThread(target=run, args=(i,), session=session, daemon=True) for i in range(len(items))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


class Background:
    """``work()`` started now on a thread of its own; ``result()`` waits for it and
    returns its value, or raises what it raised. ``session``: as for in_threads."""

    def __init__(self, work, session):
        from pyspark import InheritableThread

        self._value = None
        self._error: BaseException | None = None

        def run() -> None:
            try:
                check()
                self._value = work()
            except BaseException as exc:  # noqa: BLE001 - handed to result()
                self._error = exc

        self._thread = InheritableThread(target=run, session=session, daemon=True)
        self._thread.start()

    def result(self):
        check()  # an interrupted run does not wait for what it no longer needs
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
