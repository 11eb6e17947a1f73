"""Driver work on threads of PySpark's own kind (InheritableThread), which carry
the calling thread's job group and local properties to the JVM: Spark's jobs
then run side by side, and Python work overlaps the waits on the JVM (a call
through Py4J releases the GIL while it waits)."""
from __future__ import annotations


def in_threads(work, items: list, session) -> list:
    """``work(item)`` for every item, each in a thread of its own; the results in
    order, or the first exception raised, raised here. ``session``: the
    SparkSession the work uses (a Spark Connect thread must be given it)."""
    from pyspark import InheritableThread

    results: list = [None] * len(items)
    errors: list = []

    def run(index: int) -> None:
        try:
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
                self._value = work()
            except BaseException as exc:  # noqa: BLE001 - handed to result()
                self._error = exc

        self._thread = InheritableThread(target=run, session=session, daemon=True)
        self._thread.start()

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
