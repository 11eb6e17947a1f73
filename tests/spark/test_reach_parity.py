"""The reach index on Spark (linter.forms.pairs_reach.spark_by_profile): on the
random site graphs of tests/test_pairs_reach.py, RTE005 and the other shapes of
a reach term give the local engine's findings, in one partition and in many."""
from __future__ import annotations

import pytest

from parity import EstateSpec, local_findings, run_spark
from reach_estates import SHAPES, reach_yaml, shape_rules

SEEDS = range(60)


@pytest.mark.parametrize("layout", ["one partition", "many partitions"])
def test_reach_parity_on_random_site_graphs(spark, tmp_path, monkeypatch, layout):
    from linter.engines.spark import job

    if layout == "many partitions":
        monkeypatch.setattr(job, "SMALL_RECORDS", 0)
        monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
        monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)
    rules = shape_rules(tmp_path)
    specs = [EstateSpec(f"seed {seed}", [("estate.yaml", reach_yaml(seed).encode("utf-8"))]) for seed in SEEDS]
    found, _, failures = run_spark(spark, specs, rules, tmp_path / "inputs")
    assert failures == []
    fired = set()
    for spec in specs:
        expected = local_findings(spec, rules)
        assert found[spec.name] == expected, spec.name
        fired.update(f[0] for f in expected)
    assert fired >= {"RTE005", *SHAPES}


def test_the_spark_query_pairs_records_with_candidates_only(spark, tmp_path, monkeypatch):
    """RTE005's site check compiles to the candidate join (the graph's beyond
    arrays, exploded), not to every profile of the hierarchy; its custom-list
    check, which has no reach term, to the join with every (custom) profile."""
    from linter.forms import pairs
    from linter.policy.packs import load_rules

    rules = load_rules()
    captured = []
    real = pairs._spark_profile_pairs

    def watched(model, rule, check):
        sql = real(model, rule, check)
        captured.append((check.when, sql))
        return sql

    monkeypatch.setattr(pairs, "_spark_profile_pairs", watched)
    run_spark(spark, [EstateSpec("seed 3", [("estate.yaml", reach_yaml(3).encode("utf-8"))])],
              {"RTE005": rules["RTE005"]}, tmp_path / "inputs")
    by_reach = {"site_cost" in repr(when): "_reach_" in sql and "explode(" in sql for when, sql in captured}
    assert by_reach == {True: True, False: False}
