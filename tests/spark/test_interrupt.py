"""An interrupted run ends without waiting: PySpark's Ctrl-C handler cancels the
jobs running at that moment, not the ones the run's threads start next, and a
run that waited for its tables still being computed took up to 87 s to exit on a
standalone cluster (docs/spark.md, "Session 63"). threads.stop makes those
threads start nothing more; job.run stops them instead of waiting for them."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from linter.config import Config
from linter.engines.spark import job, threads
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.model import Model
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"


@pytest.fixture
def stopped(spark):
    threads.stop(spark)
    yield
    threads.begin()


def test_a_stopped_run_starts_no_work_on_its_threads(spark, stopped):
    started = []
    work = threads.Background(lambda: started.append("background") or spark.range(5).count(), spark)
    with pytest.raises(threads.Stopped):
        work.result()
    with pytest.raises(threads.Stopped):
        threads.in_threads(lambda i: started.append(i), [0, 1, 2], spark)
    work._thread.join(30)
    assert started == []
    assert threads.was_interrupted(threads.Stopped("x")), "an interruption: exit 130, not a Spark failure"


def test_a_stopped_run_does_not_wait_for_a_thread_still_working(spark):
    gate = threading.Event()
    work = threads.Background(lambda: gate.wait(60), spark)
    threads.stop(spark)
    try:
        with pytest.raises(threads.Stopped):
            work.result()  # returns at once: the gate is still shut
        assert work._thread.is_alive()
    finally:
        gate.set()
        threads.begin()


def test_a_new_run_may_start_work_again(spark):
    threads.stop(spark)
    threads.begin()
    assert threads.Background(lambda: spark.range(7).count(), spark).result() == 7
    assert threads.in_threads(lambda i: i * 2, [1, 2], spark) == [2, 4]


def test_an_interrupted_run_stops_its_threads_instead_of_settling_them(spark, monkeypatch):
    settled = []
    monkeypatch.setattr(Model, "settle", lambda self: settled.append(self))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(job, "_evaluate", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            job.run(spark, discover_inputs([SAMPLE]), load_rules(), Config())
        assert settled == [], "an interrupted run waited for the tables it no longer needs"
        with pytest.raises(threads.Stopped):
            threads.check()
    finally:
        threads.begin()
    monkeypatch.undo()
    run = job.run(spark, discover_inputs([SAMPLE]), load_rules(), Config())  # the next run is whole
    try:
        assert run.findings.count() > 0
    finally:
        run.close()


def test_a_failing_run_still_settles_its_tables(spark, monkeypatch):
    settled = []
    monkeypatch.setattr(Model, "settle", lambda self: settled.append(self))

    def failing(*args, **kwargs):
        raise ValueError("a failure of the run's own")

    monkeypatch.setattr(job, "_evaluate", failing)
    monkeypatch.setattr(job, "_failing_rules", failing)
    with pytest.raises(ValueError):
        job.run(spark, discover_inputs([SAMPLE]), load_rules(), Config())
    assert settled, "a failed run's tables are waited for before they are dropped"
    threads.check()  # not stopped: a failure is no interruption


def test_the_run_releases_what_it_persisted_the_latest_first(monkeypatch):
    from linter.engines.spark import model

    released = []

    class Frame:
        def __init__(self, name):
            self.name = name

        def unpersist(self):
            released.append(self.name)

    monkeypatch.setattr(model, "_persisted", [Frame("before the run"), Frame("inventory"), Frame("built on it")])
    model.release_persisted(since=1)
    assert released == ["built on it", "inventory"], "a table uncached before one built on it re-plans that one"
    assert [frame.name for frame in model._persisted] == ["before the run"]


def test_what_keep_persisted_leaves_spark_s_cache_when_released(spark):
    from linter.engines.spark import model

    cache = spark._jsparkSession.sharedState().cacheManager()
    since = model.persisted_count()
    base = model.keep(spark.range(100).selectExpr("id", "id % 7 AS k"), checkpoint=False)  # as on a cluster
    model.keep(base.groupBy("k").count(), checkpoint=False)
    kept = model._persisted[since:]
    assert len(kept) == 2 and all(cache.lookupCachedData(frame._jdf).isDefined() for frame in kept)
    model.release_persisted(since)
    assert not any(cache.lookupCachedData(frame._jdf).isDefined() for frame in kept), \
        "a kept table outlived the run in the session (its view reads it by a plan of its own)"


def test_ctrl_c_after_the_findings_were_committed_says_so(capsys):
    from linter.engines.spark import command

    with pytest.raises(SystemExit) as stopped:
        command._interrupted({"started_spark": False, "written": ["findings/", "estate.html"]})
    assert stopped.value.code == 130
    assert capsys.readouterr().err.strip() == ("exlint: interrupted: Spark stopped; written in full before the "
                                               "interrupt: findings/, estate.html; nothing else written")
    with pytest.raises(SystemExit):
        command._interrupted({"started_spark": False})
    assert capsys.readouterr().err.strip() == "exlint: interrupted: Spark stopped, nothing written"
