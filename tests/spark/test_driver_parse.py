"""A small inventory in local mode is parsed by the driver (inventory.parse_on_driver):
the same partition functions, run here instead of in Spark's Python workers.
Both ways must give the same rows, counts and stats, for YAML trees, JSON Lines
and broken input alike."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from linter.engines.spark import inventory as inventory_module
from linter.engines.spark.inventory import discover_inputs, read_inventory
from linter.engines.spark.records import ddl, spark_schema

REPO = Path(__file__).resolve().parents[2]
INPUTS = {
    "jsonl": [REPO / "samples" / "inventory" / "estate.jsonl"],
    "yaml tree": [REPO / "samples" / "estate"],
    "bad input": [REPO / "tests" / "corpus" / "bad-input"],
}


def rows(frame) -> list:
    return sorted(str(row) for row in frame.collect())


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_driver_and_workers_parse_alike(spark, name):
    inputs = discover_inputs(INPUTS[name])
    by_workers = read_inventory(spark, inputs, checkpoint=True, driver_parse=False)
    by_driver = read_inventory(spark, inputs, checkpoint=True, driver_parse=True)
    try:
        assert by_driver.stats == by_workers.stats
        assert by_driver.counts == by_workers.counts
        assert sum(by_driver.counts.values()) > 0
        assert rows(by_driver.union[0]) == rows(by_workers.union[0])
        assert rows(by_driver.findings) == rows(by_workers.findings)
    finally:
        by_workers.unpersist()
        by_driver.unpersist()


def test_large_inventories_are_parsed_by_workers(spark, monkeypatch):
    """Above DRIVER_PARSE_BYTES the driver parses nothing (the worker path)."""
    monkeypatch.setattr(inventory_module, "parse_on_driver", lambda *a: pytest.fail("parsed by the driver"))
    monkeypatch.setattr(inventory_module, "DRIVER_PARSE_BYTES", 1024)
    found = read_inventory(spark, discover_inputs(INPUTS["jsonl"]), checkpoint=True, driver_parse=True)
    try:
        assert found.counts["Server"] > 0
    finally:
        found.unpersist()


def test_schema_built_in_python_equals_sparks_own_parse(spark):
    from pyspark.sql.types import _parse_datatype_string

    columns = inventory_module.union_columns()
    assert spark_schema(columns) == _parse_datatype_string(ddl(columns))



def test_a_parse_task_runs_with_the_collector_paused_and_restores_it(monkeypatch):
    # a Python worker is reused by later tasks: the collector must come back on
    import gc

    from linter.engines.spark import inventory

    seen = []
    real = inventory.line_document

    def spy(*args):
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(inventory, "line_document", spy)
    produced = inventory._documents_rows(inventory.Emitter(0), 0, "inv.jsonl", [(1, '{"kind": "Server"}', None)], True)
    assert produced and seen == [False] and gc.isenabled()


def _python_rdds(frame) -> list[str]:
    lineage = frame._jdf.queryExecution().toRdd().toDebugString()
    return re.findall(r"\bPythonRDD\[\d+\][^\n]*", lineage)


def test_rows_parsed_by_the_driver_reach_the_jvm_without_a_python_worker(spark):
    # the point of the driver parse: a Python worker (re-batching the pickles) would
    # cost a fresh run its start-up; the lineage shows one as a PythonRDD
    from linter.engines.spark.records import local_frame

    inputs = discover_inputs(INPUTS["jsonl"])
    schema = spark_schema(inventory_module.union_columns())
    data = inventory_module.parse_on_driver([], inventory_module.jsonl_tasks(inputs), 0)
    frame = local_frame(spark, data, schema, 2)
    assert "ParallelCollectionRDD" in frame._jdf.queryExecution().toRdd().toDebugString()
    assert _python_rdds(frame) == []
    assert frame.count() == len(data)


def test_a_small_local_run_builds_no_table_through_a_python_worker(spark, monkeypatch):
    # nor the tables the model builds from rows held by the driver (the site graph,
    # default Organizations, refused checks): spark.createDataFrame(list) re-batches
    # its rows in a Python RDD (a PipelinedRDD), and a kept table hides it from the
    # lineage, so every Python RDD the run creates is counted
    from pyspark.rdd import PipelinedRDD

    from linter.config import Config
    from linter.engines.spark import job
    from linter.policy.packs import load_rules

    created = []
    real = PipelinedRDD.__init__

    def spy(self, *args, **kwargs):
        created.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(PipelinedRDD, "__init__", spy)
    run = job.run(spark, discover_inputs(INPUTS["jsonl"]), load_rules(), Config())
    try:
        assert run.model.graph_view and run.findings.count() > 0
        assert created == []
    finally:
        run.close()


@pytest.mark.parametrize("megabytes", [0.5, 3, 9, 37, 50, 111, 365, 1000])
@pytest.mark.parametrize("cores", [1, 2, 3, 4, 8])
def test_json_lines_ranges_fill_every_core_and_stay_small(megabytes, cores):
    # at most CHUNK_BYTES each, two per core once there is over a megabyte, and a multiple
    # of the cores (37 MB on 2 cores: six ranges of ~6.2 MB, not five of 8 MB and a core idle)
    total = int(megabytes * 1024 * 1024)
    chunk = inventory_module.chunk_bytes(total, cores)
    ranges = -(-total // chunk)
    assert chunk <= inventory_module.CHUNK_BYTES
    if total > 1024 * 1024:
        assert chunk >= 1024 * 1024 or ranges >= 2 * cores
    if ranges > cores and chunk > 1024 * 1024:
        assert ranges % cores == 0, (megabytes, cores, chunk, ranges)


def _is_kept(frame) -> bool:
    """Whether ``frame`` reads rows Spark already holds (a local checkpoint, or a
    persisted frame), not the driver's parse again."""
    plan = frame._jdf.queryExecution().analyzed()
    if plan.getClass().getSimpleName() == "LogicalRDD" and plan.rdd().isCheckpointed():
        return True
    if frame.storageLevel.useMemory or frame.storageLevel.useDisk:
        return True
    # model._short_plan: a leaf over a persisted frame's rows
    return "CachedPartitions" in frame._jdf.queryExecution().toRdd().toDebugString()


@pytest.mark.parametrize("checkpoint", [True, False])
def test_rows_parsed_here_are_kept_once_in_the_layout_chosen(spark, monkeypatch, checkpoint):
    """read_inventory(defer_keep=True) hands the driver's rows to Spark's memory only
    when the caller knows the layout: in one partition, or as parsed (kept); either
    way the records are the ones a kept parse gives."""
    from linter.engines.spark import model as model_module

    inputs = discover_inputs(INPUTS["bad input"] + INPUTS["jsonl"])
    own = read_inventory(spark, inputs, checkpoint=checkpoint, driver_parse=True)
    real_keep = model_module.keep
    monkeypatch.setattr(model_module, "keep", lambda *a, **k: pytest.fail("kept before the layout was known"))
    deferred = read_inventory(spark, inputs, checkpoint=checkpoint, driver_parse=True, defer_keep=True)
    monkeypatch.setattr(model_module, "keep", real_keep)
    assert deferred.deferred and not own.deferred and not _is_kept(deferred.union[0])
    assert deferred.stats == own.stats and deferred.counts == own.counts
    one = deferred.in_one_partition(checkpoint)
    kept = deferred.kept(checkpoint)
    try:
        if one.computing is not None:
            one.computing.result()
        assert not kept.deferred and _is_kept(kept.union[0]) and kept.kept(checkpoint) is kept
        assert kept.rows.rdd.getNumPartitions() == own.rows.rdd.getNumPartitions()
        if checkpoint:  # (persisted, in_one_partition keeps the partitions as they are)
            assert one.rows.rdd.getNumPartitions() == 1 and _is_kept(one.rows)
        for layout in (one, kept):
            assert rows(layout.rows) == rows(own.rows)
            assert rows(layout.findings) == rows(own.findings)
    finally:
        for frame in (own, deferred, one, kept):
            frame.unpersist()


def test_a_parse_by_spark_s_workers_is_never_deferred(spark):
    inputs = discover_inputs(INPUTS["jsonl"])
    found = read_inventory(spark, inputs, checkpoint=True, driver_parse=False, defer_keep=True)
    try:
        assert not found.deferred and _is_kept(found.union[0]) and found.kept(True) is found
    finally:
        found.unpersist()


def test_the_job_keeps_a_deferred_parse_in_the_many_partition_layout(spark, monkeypatch):
    from linter.config import Config
    from linter.engines.spark import job
    from linter.policy.packs import load_rules

    monkeypatch.setattr(job, "SMALL_RECORDS", 0)
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)
    run = job.run(spark, discover_inputs(INPUTS["jsonl"]), load_rules(), Config())
    try:
        assert not run.model.single
        assert not run.inventory.deferred and _is_kept(run.inventory.union[0])
        assert run.findings.count() > 0
    finally:
        run.close()
