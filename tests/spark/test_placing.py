"""Where a rule's findings get their positions: a rule query yields the record's id
(``_rid``) and its candidate paths, never the record's position columns, and one
join after the rules places every finding on its record (forms.place). Spark
generates code copying every column a query carries at every operator it passes
through (docs/spark.md, session 34); the positions themselves are the parity tests'."""
from __future__ import annotations

import re
from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.forms import FIRED, place
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.records import POSITION
from linter.engines.spark.sqltext import q
from linter.policy.packs import load_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = load_rules()


def _inputs():
    # YAML and JSON Lines in one estate: their parse tasks number their records apart
    return discover_inputs([ROOT / "samples" / "estate", ROOT / "samples" / "inventory" / "estate.jsonl"])


def test_rule_queries_carry_the_record_id_and_not_its_position(spark):
    run = job.run(spark, _inputs(), RULES, Config())
    try:
        model = run.model
        parts, failures = job.rule_findings(model, RULES)
        assert parts and failures == []
        for part in parts:
            # a column no query names is pruned from every operator below the top
            named = set(re.findall(r"`(_[a-z]+)`", part))
            assert not named & {"_marks", "_line", "_column", "_kind", "_entity"}, (named, part[:300])
            frame = spark.sql(f"SELECT * FROM ({part}) AS {q(model.alias())}")
            assert frame.columns == FIRED
    finally:
        run.close()


def test_placing_keeps_every_fired_row_once(spark):
    run = job.run(spark, _inputs(), RULES, Config())
    try:
        model = run.model
        parts, _ = job.rule_findings(model, RULES)
        fired = spark.sql(" UNION ALL ".join(f"SELECT {job.FIRED_COLUMNS} FROM ({p}) AS {q(model.alias())}"
                                             for p in parts))
        view = model.alias() + "fired_test"
        fired.createOrReplaceTempView(view)
        model.registered.append(view)
        # a record's id names one record: the left join neither drops nor repeats a finding
        ids = spark.sql(f"SELECT count(1) AS n, count(DISTINCT `_est`, `_rid`) AS d FROM {q(model.positions)}").first()
        assert ids["n"] == ids["d"] == sum(model.counts.values())
        assert spark.table(model.positions).columns == ["_est", "_rid"] + POSITION
        placed = spark.sql(place(model, view))
        assert placed.count() == fired.count() > 0
        # every rule's finding of the samples is about a record written somewhere
        assert placed.where("`file` IS NULL OR `line` IS NULL").count() == 0
    finally:
        run.close()


def test_a_finding_about_no_record_has_no_position(spark, tmp_path):
    # EXL008 without an Organization: no record, so no file, line or path
    (tmp_path / "server.yaml").write_text("apiVersion: exlint/v1\nkind: Server\nmetadata:\n  name: EX01\n"
                                          "spec:\n  version: \"2016\"\n  site: HQ\n  roles: [Mailbox]\n")
    run = job.run(spark, discover_inputs([tmp_path]), RULES, Config())
    try:
        rows = [r.asDict() for r in run.findings.collect() if r["rule"] == "EXL008"]
        assert len(rows) == 1, rows
        assert [rows[0][k] for k in ("file", "line", "column", "path", "entity_kind", "entity_name")] == [None] * 6
    finally:
        run.close()
