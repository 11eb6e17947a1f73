"""The estate report computed with Spark aggregations equals the one the
local path computes from the same findings and model (the HTML report of
`exlint estate --report` against `exlint check --format html`)."""
from __future__ import annotations

from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is an optional extra: pip install 'exlint[spark]'")

from linter.reports.html import aggregate, compare  # noqa: E402
from linter.runner import Options, lint  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TABLES = ("Site", "Server", "PublicFolderDatabase", "MailboxDatabase", "PublicFolder")
COLUMNS = {"_est": "bigint", "_file": "string", "_doc": "bigint", "_prefix": "string", "name": "string",
           "name__text": "string", "site": "string", "site__text": "string", "version__text": "string",
           "server": "string", "replicas": "array<string>"}
FINDING = ("rule string, severity string, message string, file string, line bigint, `column` bigint, "
           "path string, entity_kind string, entity_name string, _est bigint")


@pytest.fixture(scope="module")
def spark():
    from linter.engines.spark.session import SessionError, SessionOptions, build_session

    try:
        return build_session(SessionOptions())
    except SessionError as exc:
        pytest.skip(str(exc))


def table_frames(spark, estate):
    frames = {}
    for name in TABLES:
        rows = [{c: (0 if c == "_est" else record.get(c)) for c in COLUMNS} for record in estate.tables[name]]
        schema = ", ".join(f"`{c}` {t}" for c, t in COLUMNS.items())
        frames[name] = spark.createDataFrame(rows, schema)
    return frames


def finding_frame(spark, findings):
    rows = [(f.rule, f.severity, f.message, f.file, f.line, f.column, f.path,
             f.entity.kind if f.entity else None, f.entity.name if f.entity else None, 0) for f in findings]
    return spark.createDataFrame(rows, FINDING)


# names with a final sigma, written in other cases than their references: the report finds
# the folder's store, server and site as the rules do (linter.model.names)
GREEK = """apiVersion: exlint/v1
kind: Organization
metadata: {name: Hellas}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG, siteFolderServer: EX10-ΑΘΗΝΑΣ}]
  sites: [{name: ΑΘΗΝΑΣ}]
---
apiVersion: exlint/v1
kind: Server
metadata: {name: EX10-ΑΘΗΝΑΣ}
spec: {version: 2010, site: Αθηνασ, adminGroup: AG, roles: [Mailbox], dag: DAG1}
---
apiVersion: exlint/v1
kind: Server
metadata: {name: EX10-B}
spec: {version: 2010, site: ΑΘΗΝΑΣ, adminGroup: AG, roles: [Mailbox], dag: DAG1}
---
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata: {name: PF-ΟΔΟΣ}
spec: {server: ex10-αθηνασ, hierarchy: Public Folders, created: 2010-01-01, emailAddress: a@x}
---
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata: {name: PF-B}
spec: {server: EX10-B, hierarchy: Public Folders, created: 2010-01-01, emailAddress: b@x}
---
apiVersion: exlint/v1
kind: PublicFolder
metadata: {name: /ΟΔΟΣ}
spec: {hierarchy: Public Folders, replicas: [pf-οδοσ, PF-B]}
"""


@pytest.mark.parametrize("estate", ["broken", "inventory", "greek"])
def test_spark_report_data_equals_local(spark, estate, tmp_path):
    from linter.engines.spark.report import report_data

    if estate == "broken":
        result = lint(Options(paths=[str(REPO / "samples" / "broken")]))
    elif estate == "greek":
        (tmp_path / "estate.yaml").write_text(GREEK, encoding="utf-8")
        result = lint(Options(paths=[str(tmp_path / "estate.yaml")]))
        assert [f.rule for f in result.findings] == ["REP010"]
        assert aggregate(result)["by_site"][0]["label"] != "(unknown)", aggregate(result)["by_site"]
    else:
        from linter.generate.core import Settings, generate

        out = tmp_path / "estate"
        generate(Settings(servers=60, seed=5, defect_rate=0.2, format="yaml", output=str(out)))
        result = lint(Options(paths=[str(out)]))
    assert result.findings
    local = aggregate(result)
    remote = report_data(finding_frame(spark, result.findings), table_frames(spark, result.estate), result.rules,
                         meta=local["meta"])
    for key in ("totals", "by_rule", "by_family", "by_site", "by_version", "top_servers", "top_stores"):
        assert remote[key] == local[key], key


def test_spark_comparison_equals_local(spark):
    from linter.engines.spark.report import compare_frames

    broken = lint(Options(paths=[str(REPO / "samples" / "broken")])).findings
    earlier = broken[::2] + broken[:3]  # some fixed since, some new, duplicates counted as multisets
    local = compare(broken, earlier)
    remote = compare_frames(finding_frame(spark, broken), finding_frame(spark, earlier))
    for key in ("previous_total", "current_total", "new_count", "fixed_count", "unchanged_count", "by_rule"):
        assert remote[key] == local[key], key
    key = lambda f: (f["file"], f["line"], f["column"], f["rule"], f["message"])  # noqa: E731
    assert sorted(map(key, remote["new"])) == sorted(map(key, local["new"]))
    assert sorted(map(key, remote["fixed"])) == sorted(map(key, local["fixed"]))
