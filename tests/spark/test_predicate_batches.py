"""A table's predicate checks are one projection, cut into batches where Spark
generates code (linter.forms.predicate.BATCH_SQL): a batch past the JVM's 64 KB
method limit would run without generated code. Cut or whole, the findings are the
local engine's."""
from __future__ import annotations

from pathlib import Path

import pytest

from linter.forms import predicate
from linter.policy.packs import load_rules
from parity import local_findings, run_spark, tree_spec

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def many_partitions(monkeypatch):
    # the layout with generated code: an inventory too large for the one-partition ones
    from linter.engines.spark import job

    monkeypatch.setattr(job, "SMALL_RECORDS", 0)
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)


def test_every_check_its_own_batch_gives_the_same_findings(spark, tmp_path, monkeypatch, many_partitions):
    monkeypatch.setattr(predicate, "BATCH_SQL", 1)  # every predicate check a projection of its own
    batches = []
    real = predicate.spark_batch

    def counted(model, table_name, checks, failures):
        out = real(model, table_name, checks, failures)
        batches.append((table_name, len(checks), len(out)))
        return out

    monkeypatch.setattr(predicate, "spark_batch", counted)  # FORMS["predicate"] is this module
    rules = load_rules()
    samples = tree_spec("samples", REPO / "samples" / "estate", REPO)
    found, _, failures = run_spark(spark, [samples], rules, tmp_path / "inputs")
    assert failures == []
    assert found["samples"] == local_findings(samples, rules)
    # the cut really happened: a table of many checks gave as many projections
    assert any(checks > 1 and parts == checks for _, checks, parts in batches), batches


def test_the_stores_predicates_are_cut_below_the_limit(spark, tmp_path, many_partitions):
    from linter.config import Config
    from linter.engines.spark import job
    from linter.engines.spark.inventory import discover_inputs

    rules = load_rules()
    stores = [r for r in rules.values() if any(c.form == "predicate" and c.table == "PublicFolderDatabase"
                                               for c in r.checks)]
    assert len(stores) > 10
    run = job.run(spark, discover_inputs([REPO / "samples" / "inventory" / "estate.jsonl"]), rules, Config())
    try:
        parts, refused = job.rule_findings(run.model, {r.id: r for r in stores})
    finally:
        run.close()
    assert not refused
    assert len(parts) > 1  # the stores' checks are more than one batch's worth of SQL
    # each part holds at most one check past the limit (a single check is never cut)
    assert all(len(part) < 2 * predicate.BATCH_SQL for part in parts), [len(p) for p in parts]
