"""A kept table is computed only after the kept tables it reads (Model.keep,
model.keep_later): a task reading a partition another task is still writing
waits for it holding a task slot, which on 2 cores idled the second core for
the whole of the replica lists' gather (docs/spark.md, session 54)."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from linter.config import Config
from linter.engines.spark import job, model as model_module
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.threads import Background
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"


def test_a_kept_frame_waits_for_the_frames_it_is_computed_after(spark):
    gate = threading.Event()
    earlier = Background(lambda: gate.wait(60), spark)
    frame, work = model_module.keep_later(spark.range(10).toDF("n"), spark, True, (earlier,))
    time.sleep(2)  # a count of ten rows takes well under a second in a warm session
    assert work._thread.is_alive(), "computed before the frame it reads"
    gate.set()
    assert work.result() == 10
    assert frame.count() == 10
    frame.unpersist()


def test_the_model_keeps_a_frame_after_the_kept_frames_its_plan_reads_through_views(spark, monkeypatch):
    run = job.run(spark, discover_inputs([SAMPLE]), load_rules(), Config())
    try:
        _keeps_in_order(spark, monkeypatch, run.model)
    finally:
        run.close()  # the tests share one JVM: a run left open keeps its tables in its heap


def _keeps_in_order(spark, monkeypatch, model):
    asked = []
    real = model_module.keep_later

    def recorded(frame, session, single=True, after=()):
        asked.append(after)
        return real(frame, session, single, after)

    monkeypatch.setattr(model_module, "keep_later", recorded)
    base = model.keep(spark.range(5).toDF("n"))
    view = model._view_name("keep_order_base")
    base.createOrReplaceTempView(view)
    dependent = model.keep(spark.sql(f"SELECT n * 2 AS m FROM `{view}`"))
    unrelated = model.keep(spark.range(3).toDF("k"))
    base_work = model._pending[model_module.checkpoint_id(base)]
    assert asked[0] == ()
    assert asked[1] == (base_work,), "the frame over the kept view did not wait for it"
    assert asked[2] == ()
    assert model_module.checkpoints_read(spark.sql(f"SELECT * FROM `{view}`")) == {model_module.checkpoint_id(base)}
    model.settle()
    assert sorted(r["m"] for r in dependent.collect()) == [0, 2, 4, 6, 8]
    assert unrelated.count() == 3
    for frame in (base, dependent, unrelated):
        frame.unpersist()
