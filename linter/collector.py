"""Python's cyclic garbage collector, paused while exlint builds its data.

Loading and modelling build hundreds of thousands of small objects (documents,
records, findings, rows) that hold no reference cycles: reference counting frees
them. The collector, triggered by how many objects are allocated, walked all of
them again and again as they grew: a third of `exlint check` over 1,000 servers,
half of an estate job's parse task (docs/spark.md, "What stays in Python"). A
leaf module: the local runner and the Spark parse tasks both import it.
"""
from __future__ import annotations

import functools
import gc


def collector_paused(function):
    """``function`` run with the collector paused, and restored after it however it
    ends (a Spark worker is reused by later tasks). A caller that paused it already
    keeps it paused."""
    @functools.wraps(function)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()
    return paused
