"""Report routing and --compare, sweep 52: an output named for a format gets that
format, a malformed --compare record is a usage error naming its field, and a
--compare no report would show is refused before anything runs."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.reports.routing import route

REPO = Path(__file__).resolve().parent.parent
ESTATE = REPO / "samples" / "estate"
DUP001_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "fix" / "dup001" / "pfdb-ex03-lon-01.yaml"


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.fixture
def estate(tmp_path, monkeypatch) -> Path:
    """A copy of the clean sample estate with one DUP001 (safe fix), as the working directory."""
    root = tmp_path / "estate"
    shutil.copytree(ESTATE, root)
    shutil.copyfile(DUP001_FIXTURE, root / "stores" / "pfdb-ex03-lon-01.yaml")
    monkeypatch.chdir(root)
    return root


# -- routing ---------------------------------------------------------------------------

@pytest.mark.parametrize("formats,outputs,files,stdout", [
    (["sarif"], ["a.json", "b.sarif"], [("json", "a.json"), ("sarif", "b.sarif")], []),
    (["sarif", "json"], ["a.json"], [("json", "a.json")], ["sarif"]),
    (["json", "sarif"], ["a.json"], [("json", "a.json")], ["sarif"]),
    # a .json file still takes SARIF when no output is named for it
    (["sarif"], ["a.json"], [("sarif", "a.json")], []),
    (["github", "sarif"], ["exlint.sarif"], [("sarif", "exlint.sarif")], ["github"]),
])
def test_an_output_named_for_a_format_gets_that_format(formats, outputs, files, stdout):
    assert route(formats, outputs, "text") == (files, stdout)


def test_json_file_keeps_json_when_sarif_has_its_own_file(estate, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.sarif"
    result = invoke("check", ".", "--output", a, "--output", b, "--format", "sarif")
    assert result.exit_code == 1, result.output
    assert json.loads(a.read_text())["version"] == "1" and "findings" in json.loads(a.read_text())
    assert json.loads(b.read_text())["version"] == "2.1.0"


def test_an_unroutable_report_is_refused_before_fix_edits_a_file(estate, tmp_path):
    store = estate / "stores" / "pfdb-ex03-lon-01.yaml"
    before = store.read_bytes()
    result = invoke("check", "--fix", ".", "--output", tmp_path / "report.bin")
    assert result.exit_code == 2 and "report.bin from its extension" in result.stderr
    assert store.read_bytes() == before


# -- --compare records of the wrong type ---------------------------------------------------

@pytest.mark.parametrize("record,field", [
    ({"rule": "DUP001", "entity": None, "path": ["spec", "registry"]}, "'path' is a list, not text"),
    ({"rule": "DUP001", "entity": {"kind": "Server", "name": "x"}, "path": 5}, "'path' is the number 5, not text"),
    ({"rule": "DUP001", "entity": None, "path": "spec", "line": float("inf")}, "'line' is a number out of range"),
    ({"rule": "DUP001", "file": {"a": 1}}, "'file' is an object, not text"),
    ({"rule": "DUP001", "column": "left"}, "'column' is the text 'left', not a column number"),
    ({"rule": "DUP001", "entity": ["Server", "x"]}, "'entity' is a list, not an object"),
    ({"rule": "DUP001", "entity": {"kind": "Server", "name": [1]}}, "'entity.name' is a list, not text"),
    ({"rule": ["DUP001"]}, "'rule' is a list, not text"),
])
def test_a_malformed_compare_record_is_a_usage_error_naming_record_and_field(estate, tmp_path, record, field):
    earlier = tmp_path / "earlier.jsonl"
    good = {"rule": "DUP001", "message": "m", "file": "stores/x.yaml", "line": 3, "path": "spec"}
    # json.dumps writes infinity as Infinity; 1e999 is how a JSON writer spells it
    earlier.write_text(json.dumps(good) + "\n" + json.dumps(record).replace("Infinity", "1e999") + "\n")
    result = invoke("check", ".", "--output", tmp_path / "r.html", "--compare", earlier)
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and "internal error" not in line
    assert f"earlier.jsonl: record 2 is not a finding: its {field}" in line, line
    assert not (tmp_path / "r.html").exists()


def test_well_formed_compare_records_still_load(estate, tmp_path):
    earlier = tmp_path / "earlier.jsonl"
    records = [{"rule": "DUP001", "line": 3, "column": "7", "path": None, "entity": None, "file": None},
               {"rule": "REP001", "entity_kind": "PublicFolder", "entity_name": "/Sales", "line": 12.0}]
    earlier.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = invoke("check", ".", "--output", tmp_path / "r.html", "--compare", earlier)
    assert result.exit_code == 1, result.output
    assert "fixed" in (tmp_path / "r.html").read_text()


# -- --compare with no html report ------------------------------------------------------------

@pytest.mark.parametrize("args", [
    [],
    ["--format", "json"],
    ["--format", "sarif", "--output", "r.sarif"],
    ["--diff", "--format", "html"],  # --diff's standard output holds the diff, not the report
])
def test_compare_without_an_html_report_is_a_usage_error(estate, tmp_path, args):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(invoke("check", "--format", "json", ".").stdout)
    result = invoke("check", ".", *args, "--compare", earlier)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1
    assert "only the html report shows what is new and fixed" in result.stderr
    assert "add --output FILE.html, or drop --compare" in result.stderr
    assert result.stdout == ""  # refused before anything ran


def test_compare_is_refused_before_fix_edits_a_file(estate, tmp_path):
    store = estate / "stores" / "pfdb-ex03-lon-01.yaml"
    before = store.read_bytes()
    earlier = tmp_path / "earlier.json"
    earlier.write_text(invoke("check", "--format", "json", ".").stdout)
    assert invoke("check", "--fix", ".", "--compare", earlier).exit_code == 2
    assert store.read_bytes() == before
    earlier.write_text('{"rule": "DUP001", "path": [1]}\n')  # an html report, but a bad record
    assert invoke("check", "--fix", ".", "--output", tmp_path / "r.html", "--compare", earlier).exit_code == 2
    assert store.read_bytes() == before


def test_compare_with_an_html_report_still_works(estate, tmp_path):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(invoke("check", "--format", "json", ".").stdout)
    for args in (["--output", tmp_path / "r.html"], ["--format", "html"],
                 ["--diff", "--output", tmp_path / "d.html"]):
        result = invoke("check", ".", *args, "--compare", earlier)
        assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize("args", [["check", "--output", "-"], ["estate", "--output", "-"], ["estate", "--report", "-"]])
def test_output_dash_is_refused_not_written_as_a_file_named_dash(estate, args):
    # refused before anything runs (estate: before Spark starts)
    result = invoke(args[0], ".", "--format", "json", *args[1:])
    assert result.exit_code == 2, result.output
    assert f"{args[1]} -:" in result.stderr and result.stdout == ""
    assert not (estate / "-").exists()


@pytest.mark.parametrize("name, fix", [("out.json", "--format json > "), ("out.sarif", "--format sarif > "),
                                       ("out.xml", "--format junit > "), ("r.html", "--report ")])
def test_estate_output_named_as_a_report_file_is_refused_not_made_a_parquet_folder(estate, name, fix):
    # estate's --output is a folder of findings: `--output out.json --format json` used to make
    # a Parquet folder named out.json, where the user meant check's --output FILE
    result = invoke("estate", ".", "--format", "json", "--output", name)
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert line.startswith(f"exlint: error: {name}: names ") and f"{fix}{name}" in line and "findings/" in line, line
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert not (estate / name).exists()


def test_estate_output_folder_with_a_spark_style_suffix_is_still_a_folder(tmp_path):
    from linter.engines.spark.output import check_target

    for name in ("findings", "findings.parquet", "findings.jsonl"):
        assert check_target(str(tmp_path / name)) == (tmp_path / name).resolve()
    earlier = tmp_path / "old.json"  # an earlier output folder of that name stays replaceable
    earlier.mkdir()
    assert check_target(str(earlier)) == earlier.resolve()
