"""A small inventory in local mode is kept in one partition that Spark knows is
one (job.run, Model.single): no rule query then shuffles or broadcasts, so the
rules run as a handful of Spark stages instead of two hundred. These tests walk
the physical plans Spark would run; test_parity.py proves the findings equal the
local engine's in this layout and in the many-partition one."""
from __future__ import annotations

from pathlib import Path

import pytest

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.sqltext import q
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
RULES = load_rules()
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"
EXCHANGES = {"ShuffleExchangeExec", "BroadcastExchangeExec", "ReusedExchangeExec"}


def plan_nodes(node) -> list[str]:
    """The class names of a physical plan's nodes, the whole tree."""
    names = [node.getClass().getSimpleName()]
    children = node.children()
    for i in range(children.size()):
        names += plan_nodes(children.apply(i))
    return names


def partitioning(frame) -> str:
    return frame._jdf.queryExecution().executedPlan().outputPartitioning().toString()


def test_large_inventories_keep_many_partitions(spark, monkeypatch):
    # first in the module: the run below must not overlap the module's open run (its settings)
    monkeypatch.setattr(job, "SMALL_RECORDS", 0)
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        assert not run.model.single
        assert partitioning(spark.table(run.model.view("PublicFolder"))) != "SinglePartition"
    finally:
        run.close()


def _joins(spark, model, rule_id: str) -> list[str]:
    parts, _ = job.rule_findings(model, {rule_id: RULES[rule_id]})
    nodes = []
    for part in parts:
        plan = spark.sql(f"SELECT {job.FIRED_COLUMNS} FROM ({part}) AS {q(model.alias())}")._jdf.queryExecution() \
            .executedPlan()
        if plan.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
            plan = plan.inputPlan()
        nodes += [name for name in plan_nodes(plan) if name.endswith("JoinExec")]
    return nodes


@pytest.mark.parametrize("limit, join", [(10**9, "BroadcastHashJoinExec"), (0, "SortMergeJoinExec")])
def test_item_arrays_of_a_large_table_are_broadcast_not_shuffled(spark, monkeypatch, limit, join):
    # REP010 reads the folders' replicas' stores through an item array (one row per
    # folder): past BROADCAST_ROWS (here 0: no navigation lookup is broadcast) the
    # array is broadcast up to ITEM_BROADCAST_ROWS; a sort-merge join shuffled every
    # folder, wide rows and all, for each query reading it
    from linter.engines.spark import model as model_module

    monkeypatch.setattr(job, "SMALL_RECORDS", 0)
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)
    monkeypatch.setattr(model_module, "BROADCAST_ROWS", 0)
    monkeypatch.setattr(model_module, "ITEM_BROADCAST_ROWS", limit)
    saved = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")  # only the hints broadcast
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        assert not run.model.single
        joins = _joins(spark, run.model, "REP010")
        assert joins == [join], joins
    finally:
        run.close()
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", saved)


def interpreted_scans(node, compiled: bool = False) -> list[str]:
    """The kept-table scans (RDDScanExec) of a physical plan that run outside
    generated code, as their output columns."""
    name = node.getClass().getSimpleName()
    if name == "WholeStageCodegenExec":
        compiled = True
    elif name == "InputAdapter":
        compiled = False
    found = [node.output().toString()] if name == "RDDScanExec" and not compiled else []
    children = node.children()
    for i in range(children.size()):
        found += interpreted_scans(children.apply(i), compiled)
    return found


@pytest.mark.parametrize("conf_applied", [True, False])
def test_many_partitions_compile_the_scans_of_the_records(spark, monkeypatch, conf_applied):
    # the parsed records' union (a struct per table, 404 fields) is wider than Spark
    # compiles by default (spark.sql.codegen.maxFields, 100): its scans then ran
    # interpreted, copying every whole row of every table, in each PublicFolder
    # rule's query (MANY_PARTITIONS_CONF; without it, the test sees them interpreted)
    monkeypatch.setattr(job, "SMALL_RECORDS", 0)
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)
    if not conf_applied:
        monkeypatch.setattr(job, "MANY_PARTITIONS_CONF", {})
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    saved = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # the whole plan, its stages compiled, before it runs
    try:
        parts, _ = job.rule_findings(run.model, {"REP003": RULES["REP003"]})  # a predicate on PublicFolder
        scans = [scan for part in parts for scan in interpreted_scans(
            spark.sql(f"SELECT {job.FIRED_COLUMNS} FROM ({part}) AS {q(run.model.alias())}")._jdf.queryExecution()
            .executedPlan())]
        union_scans = [scan for scan in scans if "PublicFolder#" in scan]
        if conf_applied:
            assert union_scans == [], union_scans
        else:
            assert union_scans, "the records' scan ran compiled without the setting: the test proves nothing"
    finally:
        spark.conf.set("spark.sql.adaptive.enabled", saved)
        run.close()


def test_the_larger_one_partition_layout_broadcasts_lookups_and_stays_in_one_partition(spark, monkeypatch):
    # past INTERPRETED_CHECKED_ROWS checked rows, under ONE_PARTITION_MAX_RECORDS rows of work: one partition, but a
    # navigation lookup is broadcast (a sort-merge join sorted every row for each one),
    # with generated code; no rule query shuffles, and the findings are one partition
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        assert run.model.single and run.model.broadcast_lookups
        assert spark.conf.get("spark.sql.codegen.wholeStage") != "false"
        for table, view in run.model.views.items():
            assert partitioning(spark.table(view)) == "SinglePartition", table
        parts, _ = job.rule_findings(run.model, {"DUP003": RULES["DUP003"]})
        nodes = [name for part in parts
                 for name in plan_nodes(spark.sql(f"SELECT {job.FIRED_COLUMNS} FROM ({part}) AS {q(run.model.alias())}")
                                        ._jdf.queryExecution().executedPlan())]
        assert "BroadcastHashJoinExec" in nodes and "SortMergeJoinExec" not in nodes
        assert "ShuffleExchangeExec" not in nodes
        assert run.findings.rdd.getNumPartitions() == 1
    finally:
        run.close()


@pytest.fixture(scope="module")
def sample_run(spark):
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    yield run
    run.close()


def test_a_small_local_inventory_runs_in_one_partition(sample_run):
    assert sample_run.model.single
    for table, view in sample_run.model.views.items():
        assert partitioning(sample_run.model.spark.table(view)) == "SinglePartition", table


@pytest.mark.parametrize("rule_id", sorted(r for r, rule in RULES.items() if any(c.form != "builtin"
                                                                                  for c in rule.checks)))
def test_no_rule_query_shuffles_or_broadcasts(sample_run, rule_id):
    model = sample_run.model
    parts, failures = job.rule_findings(model, {rule_id: RULES[rule_id]})
    assert failures == [] and parts
    for part in parts:
        plan = model.spark.sql(f"SELECT {job.FIRED_COLUMNS} FROM ({part}) AS {q(model.alias())}")._jdf \
            .queryExecution().executedPlan()
        found = EXCHANGES & set(plan_nodes(plan))
        assert not found, f"{rule_id}: {sorted(found)} in\n{plan.toString()[:3000]}"


def scans(node) -> list[str]:
    """The output columns of every kept-table scan (RDDScanExec) of a physical plan."""
    found = [node.output().toString()] if node.getClass().getSimpleName() == "RDDScanExec" else []
    children = node.children()
    for i in range(children.size()):
        found += scans(children.apply(i))
    return found


@pytest.mark.parametrize("larger", [False, True])
def test_no_rule_query_scans_the_records_of_every_table(spark, monkeypatch, larger):
    # in one partition each table is kept on its own (Model.build): a table without
    # derived fields was a view of the parsed records' union (a struct per table), and
    # every query on it scanned every record of every table, copying each whole row
    # (10,000 servers: the rules' executor time 20.3 -> 15.6 s)
    if larger:
        monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        assert run.model.single
        union = set(run.inventory.union[-1].columns)
        assert {"_t", "PublicFolder"} <= union
        parts, _ = job.rule_findings(run.model, {rid: rule for rid, rule in RULES.items()
                                                 if any(c.form != "builtin" for c in rule.checks)})
        assert parts
        for part in parts:
            plan = spark.sql(f"SELECT {job.FIRED_COLUMNS} FROM ({part}) AS {q(run.model.alias())}")._jdf \
                .queryExecution().executedPlan()
            for output in scans(plan):
                assert "_t#" not in output and "PublicFolder#" not in output, f"{output}\n{part[:300]}"
    finally:
        run.close()


def test_the_models_tables_are_checkpointed_once_the_run_is_done(sample_run):
    # computed on threads of their own (Model.keep: lazy local checkpoints, counted in the
    # background): each must end as a checkpoint, or later queries would recompute it
    spark = sample_run.model.spark
    for table, view in sample_run.model.views.items():
        plan = spark.table(view)._jdf.queryExecution().executedPlan()
        kept = [node for node in _nodes(plan) if node.getClass().getSimpleName() == "RDDScanExec"]
        assert len(kept) == 1 and kept[0].rdd().isCheckpointed(), table


def _nodes(node) -> list:
    found = [node]
    children = node.children()
    for i in range(children.size()):
        found += _nodes(children.apply(i))
    return found


def test_findings_are_one_partition(sample_run):
    assert sample_run.findings.rdd.getNumPartitions() == 1
