"""What several parts of a rule query read is kept once (Model.kept_view): RTE005's
reach rows were computed by each of the two branches that read them (its site check
alone 8.7 s -> 2.2 s warm at the independent 10,000 servers, docs/spark.md, session 57)."""
from __future__ import annotations

import re
from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.inventory import discover_inputs
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"


def _kept(frame) -> bool:
    """The frame reads a local checkpoint and nothing else (its view's alias aside)."""
    plan = frame._jdf.queryExecution().optimizedPlan()
    return plan.getClass().getSimpleName() == "LogicalRDD"


def test_a_kept_view_is_built_after_the_item_arrays_and_kept_once(spark):
    run = job.run(spark, discover_inputs([SAMPLE]), load_rules(), Config())
    try:
        model = run.model
        items, _ = model.item_array_view("PublicFolder", "replicas", ("created",))  # a path no rule asks
        name = model.kept_view(f"SELECT `_k_list` FROM `{items}`", "test_kept")
        assert model.kept_view(f"SELECT `_k_list` FROM `{items}`", "test_kept") == name, "one text, kept twice"
        # named, not analysed: analysing it now would build the item arrays before
        # later checks ask theirs of the same list
        assert not spark.catalog.tableExists(name)
        assert not spark.catalog.tableExists(items)
        model.flush_items()
        model.keep_named()
        assert _kept(spark.table(name)), "not kept"
        assert spark.table(name).count() == spark.table(items).count()
        model.keep_named()  # built once: nothing is left to build
        assert model._kept_texts == []
        model.settle()
    finally:
        run.close()  # the tests share one JVM


def test_sql_reading_a_kept_view_not_built_yet_builds_it(spark):
    """As with item arrays (Model.sql): a text the model runs before the rules are
    compiled that names a pending kept view finds it built, not missing."""
    run = job.run(spark, discover_inputs([SAMPLE]), load_rules(), Config())
    try:
        model = run.model
        first = model.kept_view("SELECT 1 AS `n`", "test_first")
        second = model.kept_view(f"SELECT `n` + 1 AS `n` FROM `{first}`", "test_second")  # reads the first
        assert [row["n"] for row in model.sql(f"SELECT `n` FROM `{second}`").collect()] == [2]
        assert _kept(spark.table(first)) and _kept(spark.table(second))
        assert model._kept_texts == []
        model.settle()
    finally:
        run.close()


def test_rte005_reads_its_reach_rows_from_kept_views(spark):
    rules = load_rules()
    run = job.run(spark, discover_inputs([SAMPLE]), rules, Config())
    try:
        parts, refused = job.rule_findings(run.model, {"RTE005": rules["RTE005"]})
        assert not refused
        reach = [part for part in parts if "reach_rows" in part]
        assert len(reach) == 1, "the site check no longer reads kept reach rows"
        views = set(re.findall(r"`(exlint\d+_reach_(?:rows|distinct)_\d+)`", reach[0]))
        assert any("reach_rows" in view for view in views)
        for view in views:
            assert _kept(spark.table(view)), f"{view} is not kept"
        # both branches (profiles the index decides, and the rest) read the one kept view
        rows_view = next(view for view in views if "reach_rows" in view)
        assert reach[0].count(f"`{rows_view}`") == 2
        run.model.settle()
    finally:
        run.close()
