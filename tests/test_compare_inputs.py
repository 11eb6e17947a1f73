"""`--compare` of `exlint check` reads what `exlint estate --output DIR` writes:
findings partitioned by rule (``DIR/rule=ID/part-*``), whose files carry no
``rule`` column: the rule is the partition directory's name (no Spark needed)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.reports.html import CompareError, load_findings

FINDINGS = [
    {"rule": "DUP005", "severity": "warning", "message": "duplicate", "file": "inv/estate.yaml", "line": 3,
     "column": 5, "path": "spec.name", "entity_kind": "PublicFolderDatabase", "entity_name": "PFDB-LON-01"},
    {"rule": "REP001", "severity": "error", "message": "unknown replica", "file": "inv/estate.yaml", "line": 30,
     "column": 78, "path": "spec.replicas[1]", "entity_kind": "PublicFolder", "entity_name": "/Sales"},
    {"rule": "REP001", "severity": "error", "message": "unknown replica", "file": "inv/estate.yaml", "line": 31,
     "column": 78, "path": "spec.replicas[2]", "entity_kind": "PublicFolder", "entity_name": "/Sales"},
    # a rule ID with a character Spark escapes in a partition directory name (rule=X%3DY)
    {"rule": "X=Y", "severity": "info", "message": "odd", "file": None, "line": None, "column": None,
     "path": None, "entity_kind": "Server", "entity_name": "EX10-LON-01"},
]


def _escaped(rule: str) -> str:
    return rule.replace("%", "%25").replace("=", "%3D")


def _partitioned(directory, write) -> None:
    """An estate --output layout: rule=ID/part-*, a _SUCCESS and the exlint marker, .crc files."""
    directory.mkdir()
    (directory / "_SUCCESS").write_text("")
    (directory / "_EXLINT_FINDINGS").write_text(json.dumps({"tool": "exlint", "format": "x"}) + "\n")
    for rule in sorted({f["rule"] for f in FINDINGS}):
        part = directory / f"rule={_escaped(rule)}"
        part.mkdir()
        rows = [{k: v for k, v in f.items() if k != "rule"} for f in FINDINGS if f["rule"] == rule]
        write(part, rows)
        (part / ".part-00000.crc").write_bytes(b"\x00crc")


def _write_jsonl(part, rows) -> None:  # as Spark's DataFrameWriter.json: one object a line, nulls left out
    lines = [json.dumps({k: v for k, v in row.items() if v is not None}, separators=(",", ":")) for row in rows]
    (part / "part-00000-abc.c000.json").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_parquet(part, rows) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.Table.from_pylist(rows), part / "part-00000-abc.c000.snappy.parquet")


def _key(finding) -> tuple:
    entity = finding.entity
    return (finding.rule, finding.severity, finding.message, finding.file, finding.line, finding.column,
            finding.path, entity.kind if entity else None, entity.name if entity else None)


EXPECTED = sorted(tuple(f[k] for k in ("rule", "severity", "message", "file", "line", "column", "path",
                                         "entity_kind", "entity_name")) for f in FINDINGS)


@pytest.mark.parametrize("write", [_write_jsonl, _write_parquet], ids=["jsonl", "parquet"])
def test_rule_comes_from_the_partition_directory(tmp_path, write):
    directory = tmp_path / "findings"
    _partitioned(directory, write)
    assert sorted(map(_key, load_findings(directory))) == EXPECTED


def test_a_rule_field_wins_over_the_directory(tmp_path):
    directory = tmp_path / "findings"
    (directory / "rule=AAA001").mkdir(parents=True)
    (directory / "rule=AAA001" / "part-0.jsonl").write_text(
        json.dumps({**FINDINGS[0], "rule": "BBB002"}) + "\n" + json.dumps(FINDINGS[1] | {"rule": None}) + "\n")
    assert [f.rule for f in load_findings(directory)] == ["BBB002", "AAA001"]


def test_a_part_file_named_by_itself_takes_its_directory_rule(tmp_path):
    directory = tmp_path / "findings"
    _partitioned(directory, _write_jsonl)
    [part] = (directory / "rule=REP001").glob("part-*.json")
    assert {f.rule for f in load_findings(part)} == {"REP001"}


def test_without_a_rule_anywhere_it_is_still_refused(tmp_path):
    directory = tmp_path / "findings"
    (directory / "other=1").mkdir(parents=True)
    (directory / "other=1" / "part-0.json").write_text(json.dumps(FINDINGS[0] | {"rule": None}) + "\n")
    with pytest.raises(CompareError, match="no 'findings' list|no 'rule'"):
        load_findings(directory)


def test_an_empty_directory_names_the_fix(tmp_path):
    with pytest.raises(CompareError, match="no findings files.*exlint estate --output"):
        load_findings(tmp_path)


@pytest.mark.parametrize("write", [_write_jsonl, _write_parquet], ids=["jsonl", "parquet"])
def test_check_compares_with_an_estate_output_directory(tmp_path, monkeypatch, write):
    inventory = tmp_path / "inv"
    inventory.mkdir()
    (inventory / "estate.yaml").write_text("", encoding="utf-8")
    directory = tmp_path / "findings"
    _partitioned(directory, write)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["check", "inv", "--format", "html", "--output", "report.html",
                                    "--compare", "findings", "--fail-on", "never"])
    assert done.exit_code == 0, done.output
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "not a finding" not in done.output
    assert "REP001" in page and "X=Y" in page
