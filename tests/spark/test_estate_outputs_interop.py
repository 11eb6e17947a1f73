"""What `exlint estate --output` writes is read back as earlier findings, and never
as inventory: `estate --compare` takes what `check --compare` takes (a relative
directory, a JSON Lines file), and a findings output inside an inventory
directory is skipped by the walk (`exlint estate . --output findings` can run again)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parents[2]
INVENTORY = REPO / "samples" / "inventory" / "estate.jsonl"


def _cards(page: str) -> dict[str, int]:
    return {key: int(value) for key, value in
            re.findall(r'data-total="([a-z]+)"><div class="card-label">[^<]*</div>'
                       r'<div class="card-value" data-value="(\d+)"', page)}


def test_estate_output_is_compared_by_both_commands_and_never_linted(spark, tmp_path, monkeypatch):
    (tmp_path / "inv").mkdir()
    shutil.copy(INVENTORY, tmp_path / "inv" / "estate.jsonl")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    first = runner.invoke(cli, ["estate", "inv", "--quiet", "--output", "prev", "--fail-on", "never"])
    assert first.exit_code == 0, first.output
    assert list(Path("prev").glob("rule=*/part-*.parquet"))
    # an earlier output left inside the inventory (`exlint estate . --output findings`, run again): not inventory
    shutil.copytree("prev", "inv/findings")
    # a relative --compare directory of Parquet, read by Spark
    second = runner.invoke(cli, ["estate", "inv", "--quiet", "--report", "report.html", "--compare", "prev",
                                 "--fail-on", "never"])
    assert second.exit_code == 0, second.output
    cards = _cards(Path("report.html").read_text(encoding="utf-8"))
    assert cards["new"] == cards["fixed"] == 0 and cards["unchanged"] > 0, cards
    # check --compare reads the same directory without Spark (the rule from rule=ID/)
    check = runner.invoke(cli, ["check", "inv/estate.jsonl", "--format", "html", "--output", "check.html",
                                "--compare", "prev", "--fail-on", "never"])
    assert check.exit_code == 0, check.output
    assert _cards(Path("check.html").read_text(encoding="utf-8"))["fixed"] == 0


def test_compare_inputs_are_read_as_check_reads_them(spark, tmp_path, monkeypatch):
    """No job: the reader alone, on a JSON Lines file and a relative JSON Lines partition directory."""
    from linter.engines.spark.command import _compare_input, _previous_findings

    monkeypatch.chdir(tmp_path)
    findings = [{"rule": "REP001", "severity": "error", "message": "m", "file": "a.yaml", "line": 3, "column": 1,
                 "path": "spec.x", "entity": {"kind": "PublicFolder", "name": "/Sales"}},
                {"rule": "DUP005", "severity": "warning", "message": "d", "file": "a.yaml", "line": 9, "column": 2,
                 "path": None, "entity": None}]
    Path("prev.jsonl").write_text("".join(json.dumps(f) + "\n" for f in findings), encoding="utf-8")
    rows = _previous_findings(spark, _compare_input("prev.jsonl")).collect()
    assert sorted((r["rule"], r["entity_kind"], r["line"]) for r in rows) == [("DUP005", None, 9),
                                                                               ("REP001", "PublicFolder", 3)]
    for finding in findings:  # as estate --output-format jsonl writes them: no rule field, rule=ID/ directories
        part = Path("out") / f"rule={finding['rule']}"
        part.mkdir(parents=True)
        flat = {k: v for k, v in finding.items() if k not in ("rule", "entity")}
        if finding["entity"]:
            flat |= {"entity_kind": finding["entity"]["kind"], "entity_name": finding["entity"]["name"]}
        (part / "part-00000.c000.json").write_text(json.dumps(flat) + "\n", encoding="utf-8")
    (Path("out") / "_EXLINT_FINDINGS").write_text("{}\n")
    rows = _previous_findings(spark, _compare_input("out")).collect()
    assert sorted((r["rule"], r["entity_name"]) for r in rows) == [("DUP005", None), ("REP001", "/Sales")]


def test_empty_compare_directory_is_refused_before_spark(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--quiet", "--report", "r.html",
                                    "--compare", "empty"])
    assert done.exit_code == 2
    assert "no findings files" in done.stderr and "exlint estate --output" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_walk_skips_a_findings_output_inside_the_inventory(tmp_path):
    from linter.engines.spark.inventory import discover_inputs

    (tmp_path / "inv" / "old" / "rule=DUP005").mkdir(parents=True)
    shutil.copy(INVENTORY, tmp_path / "inv" / "estate.jsonl")
    (tmp_path / "inv" / "old" / "_EXLINT_FINDINGS").write_text("{}\n")
    (tmp_path / "inv" / "old" / "rule=DUP005" / "part-00000.c000.json").write_text('{"severity":"error"}\n')
    (tmp_path / "inv" / "old" / "rule=DUP005" / "part-00000.snappy.parquet").write_bytes(b"PAR1")
    found = [Path(f.display).name for f in discover_inputs([str(tmp_path / "inv")])]
    assert found == ["estate.jsonl"]


def test_compare_without_a_report_is_refused_before_spark(tmp_path, monkeypatch):
    # only the html report shows new and fixed: ignored, a comparison never made would pass
    (tmp_path / "prev.json").write_text('{"findings": []}\n')
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--quiet", "--compare", "prev.json"])
    assert done.exit_code == 2
    assert "only the html report" in done.stderr and "--report" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_report_in_a_missing_folder_is_refused_before_spark(tmp_path, monkeypatch):
    # it was refused only after the whole job, with --output already committed
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--quiet", "--report", "no-such-dir/estate.html",
                                    "--output", "findings"])
    assert done.exit_code == 2 and not Path("findings").exists()
    assert "no-such-dir does not exist" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_closed_standard_output_is_said_in_one_line_not_as_a_spark_failure(tmp_path):
    # `exlint estate ... --format text | head -1`: the pipe closes while findings are printed
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "linter.cli", "estate", str(INVENTORY), "--format", "text",
                                "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=300) == 2
    assert err.strip().splitlines() == [
        "exlint: error: cannot write to standard output: Broken pipe; check where standard output goes (a full "
        "disk, a closed pipe), or write to a file with --output"], err
