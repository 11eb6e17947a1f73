"""The rules' two unions in the one-partition layouts (job._halves, job._evaluate): the
queries that read a kept view (Model.kept_view: RTE005's reach rows) go to the union
that builds those views first, so the other starts without waiting for them; the larger
layout places each union's findings in its own thread. Neither may change a finding:
docs/spark.md, "Session 62"."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.inventory import discover_inputs
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"
RULES = load_rules()


def test_queries_reading_a_kept_view_wait_in_the_second_union_only():
    queries = ["SELECT a", "SELECT b FROM `v_kept_1`", "SELECT c", "SELECT d", "SELECT e FROM `v_kept_2`", "SELECT f"]
    halves, waits = job._halves(queries, ["v_kept_1", "v_kept_2"])
    assert waits == [False, True]
    assert halves[0] == ["SELECT a", "SELECT d"]
    assert halves[1] == ["SELECT c", "SELECT f", "SELECT b FROM `v_kept_1`", "SELECT e FROM `v_kept_2`"]
    # a name inside another word is no reading of the view
    assert job._halves(["SELECT `v_kept_10`", "SELECT 1"], ["v_kept_1"])[1] == [False, False]


def test_without_kept_views_or_when_all_read_them_the_queries_alternate():
    queries = ["SELECT 1", "SELECT 2", "SELECT 3"]
    assert job._halves(queries, []) == ([["SELECT 1", "SELECT 3"], ["SELECT 2"]], [False, False])
    reading = [f"SELECT {i} FROM `v`" for i in range(3)]
    assert job._halves(reading, ["v"]) == ([reading[0::2], reading[1::2]], [False, False])


def _findings(run) -> Counter:
    return Counter(tuple(sorted(row.asDict().items())) for row in run.findings.collect())


def test_both_layouts_split_and_place_the_unions_to_the_same_findings(spark, monkeypatch):
    """The sample's catalog in the small one-partition layout (placed once, after both
    unions) and in the larger one (each union placed in its thread): the same findings,
    as a multiset, with RTE005's kept views read by the second union only."""
    splits = []
    original = job._halves

    def recorded(queries, named):
        split = original(queries, named)
        splits.append(split)
        return split

    monkeypatch.setattr(job, "_halves", recorded)
    small = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        assert small.model.single and not small.model.broadcast_lookups
        expected = _findings(small)
    finally:
        small.close()
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)  # the larger layout ("compiled")
    larger = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        assert larger.model.single and larger.model.broadcast_lookups
        found = _findings(larger)
    finally:
        larger.close()
    assert len(splits) == 2
    for halves, waits in splits:
        assert waits == [False, True], "RTE005's kept views no longer make the second union wait"
        assert all("reach_rows" not in query for query in halves[0])
        assert any("reach_rows" in query for query in halves[1])
    assert sum(expected.values()) > 0
    assert not [f for f in found if dict(f)["rule"] == "EXL000"], "a union failed in the larger layout"
    assert found == expected
