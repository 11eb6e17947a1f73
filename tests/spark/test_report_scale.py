"""The estate report at the scale of a 100,000-server estate: built from
aggregates computed in Spark (only grouped counts, the top servers and stores and
capped new/fixed lists reach the driver), and a few megabytes at most.

The model tables and the findings are made in Spark with the shape of a
100,000-server estate (4,000 AD sites, 8 versions, 36,000 public folder stores,
130,000 mailbox databases, 400,000 folders; 1,000,000 findings now and 900,000
in the earlier run, over every rule), so the test measures the report's
aggregation path, not the rules."""
from __future__ import annotations

import json

import pytest

from linter.policy.packs import load_rules
from linter.reports import html as report

SERVERS, SITES, STORES, MAILBOX_DBS, FOLDERS = 100_000, 4_000, 36_000, 130_000, 400_000
FINDINGS, EARLIER = 1_000_000, 900_000
VERSIONS = ["2003", "2007", "2010", "2013", "2016", "2019", "SE", "2000"]

META = ("CAST(0 AS BIGINT) AS _est", "'inventory.jsonl' AS _file", "id AS _doc", "'' AS _prefix")


def _tables(spark):
    versions = "array(" + ", ".join(f"'{v}'" for v in VERSIONS) + ")"
    site = "concat('site-', CAST(id AS STRING))"
    server = "concat('ex-', lpad(CAST(id AS STRING), 6, '0'))"
    return {
        "Site": spark.range(SITES).selectExpr(*META, f"{site} AS name", f"upper({site}) AS name__text"),
        "Server": spark.range(SERVERS).selectExpr(
            *META, f"{server} AS name", f"upper({server}) AS name__text",
            f"concat('site-', CAST(id % {SITES} AS STRING)) AS site",
            f"upper(concat('site-', CAST(id % {SITES} AS STRING))) AS site__text",
            f"element_at({versions}, CAST(id % 8 AS INT) + 1) AS version__text"),
        "PublicFolderDatabase": spark.range(STORES).selectExpr(
            *META, "concat('pfdb-', CAST(id AS STRING)) AS name", "concat('PFDB-', CAST(id AS STRING)) AS name__text",
            f"concat('ex-', lpad(CAST(id * 2 % {SERVERS} AS STRING), 6, '0')) AS server"),
        "MailboxDatabase": spark.range(MAILBOX_DBS).selectExpr(
            *META, "concat('mdb-', CAST(id AS STRING)) AS name", "concat('MDB-', CAST(id AS STRING)) AS name__text",
            f"concat('ex-', lpad(CAST(id % {SERVERS} AS STRING), 6, '0')) AS server"),
        "PublicFolder": spark.range(FOLDERS).selectExpr(
            *META, "concat('/f/', CAST(id AS STRING)) AS name",
            f"array(concat('pfdb-', CAST(id % {STORES} AS STRING))) AS replicas"),
    }


def _findings(spark, rules: list[str], count: int, offset: int):
    """Findings spread over every rule and every kind of entity the report places."""
    ids = "array(" + ", ".join(f"'{r}'" for r in rules) + ")"
    kinds = "array('Server', 'PublicFolderDatabase', 'MailboxDatabase', 'PublicFolder', 'Organization')"
    return spark.range(offset, offset + count).selectExpr(
        "CAST(0 AS BIGINT) AS _est",
        f"element_at({ids}, CAST(id % {len(rules)} AS INT) + 1) AS rule",
        "element_at(array('error', 'warning', 'info'), CAST(id % 3 AS INT) + 1) AS severity",
        "concat('problem ', CAST(id AS STRING)) AS message",
        "concat('inventory-', CAST(id % 50 AS STRING), '.jsonl') AS file",
        "id AS line", "CAST(1 AS BIGINT) AS `column`", "'spec.x' AS path",
        f"element_at({kinds}, CAST(id % 5 AS INT) + 1) AS entity_kind",
        f"""CASE CAST(id % 5 AS INT)
              WHEN 0 THEN concat('EX-', lpad(CAST(id % {SERVERS} AS STRING), 6, '0'))
              WHEN 1 THEN concat('PFDB-', CAST(id % {STORES} AS STRING))
              WHEN 2 THEN concat('MDB-', CAST(id % {MAILBOX_DBS} AS STRING))
              WHEN 3 THEN concat('/f/', CAST(id % {FOLDERS} AS STRING))
              ELSE 'contoso' END AS entity_name""")


@pytest.mark.slow
def test_report_of_a_100k_server_estate_is_aggregated_in_spark_and_small(spark):
    from linter.engines.spark.report import compare_frames, report_data

    rules = load_rules()
    ids = sorted(rules)
    tables = _tables(spark)
    now = _findings(spark, ids, FINDINGS, 100_000)
    before = _findings(spark, ids, EARLIER, 0)  # overlapping: some fixed since, more new
    comparison = compare_frames(now, before, label="earlier/")
    data = report_data(now, tables, rules, comparison=comparison, meta={"engine": "estate"})

    assert data["totals"]["findings"] == FINDINGS
    assert sum(r["count"] for r in data["by_rule"]) == FINDINGS
    assert {r["label"] for r in data["by_rule"]} == set(ids)
    # by fingerprint (rule, entity, setting path) as multisets: what is unchanged is in both runs
    assert comparison["current_total"] == FINDINGS and comparison["previous_total"] == EARLIER
    assert comparison["new_count"] - comparison["fixed_count"] == FINDINGS - EARLIER
    assert comparison["fixed_count"] > report.ROW_LIMIT
    assert len(comparison["new"]) == report.ROW_LIMIT == len(comparison["fixed"])
    assert len(data["top_servers"]) == report.TOP and len(data["top_stores"]) == report.TOP
    # every finding lands on a site (hundreds of them: the chart shows the largest and "(n more)")
    assert sum(bar["count"] for bar in data["by_site"]) == FINDINGS
    assert len(data["by_site"]) > report.MAX_BARS
    assert {bar["label"] for bar in data["by_version"]} >= set(VERSIONS)

    size = len(report.render_html(data).encode("utf-8"))
    assert size < 3_000_000, f"the report is {size} bytes"
    assert len(json.dumps(data)) < 1_000_000
