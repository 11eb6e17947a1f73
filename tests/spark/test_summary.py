"""`exlint estate`'s summary counts (by severity, rule, AD site and version) are
one grouping-sets query; they must equal the counts of the findings themselves."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.command import _summary, _tables
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.report import placed_findings
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]


def test_summary_counts_equal_the_findings(spark):
    run = job.run(spark, discover_inputs([REPO / "samples" / "inventory" / "estate.jsonl"]), load_rules(), Config())
    try:
        summary = _summary(run.findings, run)
        totals = _summary(run.findings, run, placed=False)  # the json and text formats' (no placing)
        findings = run.findings.collect()
        placed = placed_findings(run.findings, _tables(run)).collect()
    finally:
        run.close()
    assert len(placed) == len(findings) > 0
    severity = Counter(f["severity"] for f in findings)
    assert summary["severity"] == {s: severity.get(s, 0) for s in ("error", "warning", "info")}
    assert totals["severity"] == summary["severity"] and totals["stats"] == summary["stats"]
    assert Counter({(r, s): n for r, s, n in summary["rule"]}) == Counter((f["rule"], f["severity"]) for f in findings)
    for dim in ("site", "version"):
        assert dict(summary[dim]) == Counter(p[dim] for p in placed), dim
        assert len(summary[dim]) > 1, dim  # the sample spreads its findings over sites and versions


def test_placing_with_the_models_first_records_equals_ranking_namesakes(spark):
    """The summary and the CLI's report place with Model.dedup_view (kept, shared with
    the rules); without it, placed_sql ranks namesakes itself. The sample has
    namesakes (EXL006), so both must agree row for row."""
    from linter.engines.spark.command import _firsts

    run = job.run(spark, discover_inputs([REPO / "samples" / "inventory" / "estate.jsonl"]), load_rules(), Config())
    try:
        by_model = Counter(tuple(r) for r in placed_findings(run.findings, _tables(run), _firsts(run)).collect())
        ranked = Counter(tuple(r) for r in placed_findings(run.findings, _tables(run)).collect())
        rules = {f["rule"] for f in run.findings.collect()}
    finally:
        run.close()
    assert "EXL006" in rules
    assert by_model == ranked and sum(by_model.values()) > 0


def test_summary_format_shows_the_placed_counts_and_json_the_totals(spark):
    """`--format summary` places every finding (the AD site and version table); the
    other formats count by severity only: both totals must be the same."""
    import json

    from click.testing import CliRunner

    from linter.cli import cli

    inventory = str(REPO / "samples" / "inventory" / "estate.jsonl")
    table = CliRunner().invoke(cli, ["estate", inventory, "--format", "summary", "--quiet"])
    body = CliRunner().invoke(cli, ["estate", inventory, "--format", "json", "--quiet"])
    assert table.exit_code == body.exit_code == 1, (table.output, body.output)
    totals = json.loads(body.output)["summary"]
    assert (f"findings: {totals['error']} error(s), {totals['warning']} warning(s), {totals['info']} info"
            in table.output)
    sites = table.output.split("AD SITE")[1].split("VERSION")[0].strip().splitlines()[1:]
    assert sites and sum(int(line.split()[-1]) for line in sites) == len(json.loads(body.output)["findings"])
