"""What a joined record carries through a rule's query: a lookup packs a record's
fields and their texts, never its position and bookkeeping columns, and a relation
derived from a frame carries on only the joined fields its readers read. Spark
generates code copying every field of a record at every operator it passes through
(docs/spark.md, session 33); the findings themselves are the parity tests'."""
from __future__ import annotations

from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.compile import Join
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.model import lookup_columns
from linter.policy.packs import load_rules

ROOT = Path(__file__).resolve().parents[2]


def test_a_lookup_packs_fields_and_texts_only(spark):
    run = job.run(spark, discover_inputs([ROOT / "samples" / "estate"]), load_rules(), Config())
    try:
        model = run.model
        view = model.dedup_view("Server")
        packed = [f.name for f in spark.table(view).schema["_k_rec"].dataType.fields]
        assert packed == lookup_columns(model.columns["Server"])
        assert {"name", "site", "site__text", "version"} <= set(packed)
        assert not [c for c in packed if c.startswith("_") or c.endswith("__set")], packed
        # every column the table has beyond those is position or bookkeeping
        left_out = set(model.columns["Server"]) - set(packed)
        assert {"_file", "_line", "_marks", "_rid"} <= left_out
        assert all(c.startswith("_") or c.endswith("__set") for c in left_out)
        organization = spark.table(model.org_view).schema["_k_rec"].dataType.fieldNames()
        assert organization == lookup_columns(model.columns["Organization"], written=True)
        assert not [c for c in organization if c.startswith("_")], organization
        assert any(c.endswith("__set") for c in organization)  # written(organization.x) reads them
    finally:
        run.close()


def test_a_derived_relation_carries_only_the_fields_read():
    join = Join("j", "view", "true")
    assert join.exposed() == "CAST(NULL AS STRUCT<`_`: INT>) AS `jrec`"  # nothing read
    assert join.exposed_field("site") == "`jrec`.`site`"
    join.exposed_field("name__text")
    assert join.exposed() == ("named_struct('name__text', `j`.`_k_rec`.`name__text`, "
                              "'site', `j`.`_k_rec`.`site`) AS `jrec`")
    assert join.exposed_whole() == "`jrec`"
    assert join.exposed() == "`j`.`_k_rec` AS `jrec`"
    aggregate = Join("g", lambda: "SELECT 1", "true", subquery=True)
    assert aggregate.exposed() == "`g`.*"
