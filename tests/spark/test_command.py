"""`exlint estate` end to end: the same finding objects as `exlint check`,
findings written partitioned by rule, committed atomically, exit codes, and
clear errors without PySpark or Java (those two run in a subprocess and never
start Spark)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parents[2]


def _exlint(*args, env=None, code=None):
    script = code or "from linter.cli import main; main()"
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_estate_without_pyspark_says_how_to_install_it():
    code = ("import sys; sys.modules['pyspark'] = None; sys.argv = ['exlint'] + sys.argv[1:]; "
            "from linter.cli import main; main()")
    done = _exlint("estate", "samples/estate", code=code)
    assert done.returncode == 2
    assert "pip install 'exlint[spark]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_estate_without_pyspark_hook_variable():
    done = _exlint("estate", "samples/estate", env={"EXLINT_HIDE_PYSPARK": "1"},
                   code="import sys; sys.argv = ['exlint'] + sys.argv[1:]; from linter.cli import main; main()")
    assert done.returncode == 2
    assert "pip install 'exlint[spark]'" in done.stderr


def test_check_never_imports_pyspark():
    code = ("import sys; from click.testing import CliRunner; from linter.cli import cli; "
            "CliRunner().invoke(cli, ['check', 'samples/estate']); print('pyspark' in sys.modules)")
    done = _exlint(code=code)
    assert done.stdout.strip().endswith("False"), done.stdout + done.stderr


def test_estate_without_java_says_to_install_java_17(tmp_path):
    pytest.importorskip("pyspark")
    done = _exlint("estate", "samples/estate", env={"JAVA_HOME": str(tmp_path / "no-java")},
                   code="import sys; sys.argv = ['exlint'] + sys.argv[1:]; from linter.cli import main; main()")
    assert done.returncode == 2
    assert "Java 17" in done.stderr and "JAVA_HOME" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def defective_estate(tmp_path_factory):
    """A small estate with findings of several rules (from the rules' bad examples)."""
    from linter.policy.examples import example_documents
    from linter.policy.packs import load_rules

    import yaml

    rules = load_rules()
    root = tmp_path_factory.mktemp("estate")
    patch = {}
    for rule_id in ("DUP001", "STS002", "HIE004"):
        rule = rules.get(rule_id)
        if rule is not None:
            for key, value in (rule.examples["bad"][0].get("patch") or rule.examples["bad"][0]).items():
                if "/" in key:
                    patch.setdefault(key, {}).update(value)
    documents, _ = example_documents({"patch": patch})
    for index, document in enumerate(documents):
        (root / f"{index:02d}.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return root


def test_estate_prints_the_check_findings_and_writes_them_partitioned(spark, defective_estate, tmp_path,
                                                                     monkeypatch):
    monkeypatch.chdir(defective_estate)
    output = tmp_path / "findings"
    runner = CliRunner()
    estate = runner.invoke(cli, ["estate", ".", "--format", "json", "--output", str(output),
                                 "--output-format", "jsonl", "--quiet"])
    check = runner.invoke(cli, ["check", ".", "--format", "json"])
    assert check.exit_code == 1, check.output
    expected = json.loads(check.output)["findings"]
    assert expected
    got = json.loads(estate.stdout)["findings"]
    assert sorted(map(json.dumps, got)) == sorted(map(json.dumps, expected))
    assert estate.exit_code == 1
    written = {}
    for part in output.glob("rule=*"):
        rows = [json.loads(line) for path in part.glob("*.json") for line in path.read_text().splitlines() if line]
        written[part.name.split("=", 1)[1]] = len(rows)
    by_rule = {}
    for finding in expected:
        by_rule[finding["rule"]] = by_rule.get(finding["rule"], 0) + 1
    assert written == by_rule
    assert not list(tmp_path.glob(".findings*"))  # no staging directory left


def _sarif_results(text: str) -> list:
    """A SARIF run's results as comparable tuples (the estate job keeps no text: no snippets)."""
    out = []
    for result in json.loads(text)["runs"][0]["results"]:
        physical = result["locations"][0].get("physicalLocation", {}) if result.get("locations") else {}
        region = physical.get("region", {})
        out.append((result["ruleId"], result["level"], result["message"]["text"],
                    physical.get("artifactLocation", {}).get("uri"), region.get("startLine"),
                    region.get("startColumn"), result["partialFingerprints"]["exlintFingerprint/v1"]))
    return sorted(out, key=str)


def test_estate_prints_check_s_sarif_junit_and_github_reports(spark, defective_estate, monkeypatch):
    # the product spec: estate takes the same --format as check
    import xml.etree.ElementTree as ET

    from jsonschema import Draft7Validator

    monkeypatch.chdir(defective_estate)
    runner = CliRunner()
    estate = runner.invoke(cli, ["estate", ".", "--format", "sarif", "--quiet"])
    check = runner.invoke(cli, ["check", ".", "--format", "sarif"])
    assert (estate.exit_code, check.exit_code) == (1, 1), estate.output
    schema = Path(__file__).resolve().parents[1] / "vendor" / "sarif-schema-2.1.0.json"
    errors = list(Draft7Validator(json.loads(schema.read_text())).iter_errors(json.loads(estate.stdout)))
    assert errors == []
    assert _sarif_results(estate.stdout) and _sarif_results(estate.stdout) == _sarif_results(check.output)
    github = runner.invoke(cli, ["estate", ".", "--format", "github", "--quiet"])
    assert sorted(github.stdout.splitlines()) == sorted(runner.invoke(cli, ["check", ".", "--format", "github"])
                                                         .output.splitlines())
    junit = runner.invoke(cli, ["estate", ".", "--format", "junit", "--quiet", "--fail-on", "warning"])
    suites = ET.fromstring(junit.stdout)
    expected = ET.fromstring(runner.invoke(cli, ["check", ".", "--format", "junit", "--fail-on", "warning"]).output)
    failed = {(s.get("name"), c.get("name")) for s in suites for c in s if c.find("failure") is not None}
    assert failed and failed == {(s.get("name"), c.get("name")) for s in expected for c in s
                                 if c.find("failure") is not None}


def test_estate_sarif_from_outside_the_repo_is_relative_to_the_config_root_as_check(spark, defective_estate,
                                                                                  tmp_path, monkeypatch):
    # %SRCROOT% was the current directory for estate, the config repo for check: run from
    # elsewhere, estate's URIs were ../../repo/inventory/00.yaml where check's were inventory/00.yaml
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(defective_estate, repo / "inventory")
    (repo / ".exlint.yaml").write_text("fail_on: error\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    runner = CliRunner()
    estate = runner.invoke(cli, ["estate", str(repo / "inventory"), "--format", "sarif", "--quiet"])
    check = runner.invoke(cli, ["check", str(repo / "inventory"), "--format", "sarif"])
    assert (estate.exit_code, check.exit_code) == (1, 1), estate.output
    base = json.loads(estate.stdout)["runs"][0]["originalUriBaseIds"]
    assert base == json.loads(check.output)["runs"][0]["originalUriBaseIds"]
    assert base["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    results = _sarif_results(estate.stdout)
    assert results and results == _sarif_results(check.output)
    assert {uri.split("/")[0] for _, _, _, uri, *_ in results if uri} == {"inventory"}


def test_estate_fail_on_never_and_select(spark, defective_estate, monkeypatch):
    monkeypatch.chdir(defective_estate)
    done = CliRunner().invoke(cli, ["estate", ".", "--select", "HIE004", "--fail-on", "never", "--quiet"])
    assert done.exit_code == 0, done.output
    assert "HIE004" in done.stdout


@pytest.mark.parametrize("args, config, needle", [
    (["--select", "DUP999"], None, "--select: unknown rule ID or prefix 'DUP999' (did you mean DUP"),
    (["--ignore", "REP999"], None, "--ignore: unknown rule ID or prefix 'REP999'"),
    ([], "select: [DUP999]\n", "select: unknown rule ID or prefix 'DUP999'"),
])
def test_an_unknown_rule_id_is_exit_2_before_spark_starts(defective_estate, tmp_path, monkeypatch, args, config,
                                                          needle):
    # as `check`: a typo must not turn a gate into a pass
    if config:  # the configuration is read before any file: the directory needs none
        (tmp_path / ".exlint.yaml").write_text(config)
        monkeypatch.chdir(tmp_path)
    else:
        monkeypatch.chdir(defective_estate)
    done = CliRunner().invoke(cli, ["estate", ".", *args, "--quiet"])
    assert done.exit_code == 2 and needle in done.stderr, done.output
    assert "start Spark" not in done.stderr


def test_another_tools_json_lines_in_a_walk_is_skipped_as_check_skips_it(spark, tmp_path, monkeypatch):
    # estate reads a walked JSON Lines file only when its head says it is exlint's
    line = json.dumps({"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "contoso"},
                       "spec": {"hierarchies": [{"name": "Public Folders", "type": "MAPI"}]}})
    (tmp_path / "estate.jsonl").write_text(line + "\n")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.jsonl").write_text('{"ts": 1, "kind": "event"}\n{"ts": 2}\n')
    monkeypatch.chdir(tmp_path)
    walked = CliRunner().invoke(cli, ["estate", ".", "--format", "json", "--quiet", "--fail-on", "never"])
    assert walked.exit_code == 0, walked.output
    data = json.loads(walked.stdout)
    assert {f["file"] for f in data["findings"]} <= {"estate.jsonl"}, data["findings"]
    assert data["summary"]["skipped"] == 1 and data["summary"]["records_in"] == 1, data["summary"]
    named = CliRunner().invoke(cli, ["estate", "logs/app.jsonl", "--format", "json", "--quiet", "--fail-on", "never"])
    rules = [f["rule"] for f in json.loads(named.stdout)["findings"]]
    assert rules and set(rules) == {"EXL004", "EXL008"}, named.output  # named, it is read: each line a document


def test_only_other_tools_yaml_is_exit_2(spark, tmp_path, monkeypatch):
    # as `check`: a wrong path never passes silently
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("on: [push]\njobs: {}\n")
    (tmp_path / "compose.yaml").write_text("services: {}\n")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["estate", ".", "--quiet"])
    assert done.exit_code == 2 and "no exlint documents (2 file(s) skipped" in done.stderr, done.output
    (tmp_path / ".exlint.yaml").write_text("allow_empty: true\n")
    assert CliRunner().invoke(cli, ["estate", ".", "--quiet"]).exit_code == 0


def test_failed_write_leaves_no_output(spark, defective_estate, tmp_path, monkeypatch):
    from pyspark.sql.readwriter import DataFrameWriter

    def broken(self, path, *args, **kwargs):
        Path(path.replace("file://", "").replace("file:", "")).mkdir(parents=True)
        (Path(path.replace("file://", "").replace("file:", "")) / "part-00000.parquet").write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(DataFrameWriter, "parquet", broken)
    monkeypatch.chdir(defective_estate)
    output = tmp_path / "findings"
    done = CliRunner().invoke(cli, ["estate", ".", "--select", "HIE004", "--output", str(output), "--quiet"])
    assert done.exit_code == 2
    assert "could not be written" in done.stderr
    assert not output.exists()
    assert not list(tmp_path.glob(".findings*"))


def test_output_parent_that_is_not_a_directory_is_exit_2(spark, defective_estate, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.chdir(defective_estate)
    done = CliRunner().invoke(cli, ["estate", ".", "--select", "HIE004", "--output", str(blocker / "findings"),
                                    "--quiet"])
    assert done.exit_code == 2
    assert not (blocker / "findings").exists()


@pytest.fixture(scope="module")
def small_inventory(tmp_path_factory):
    """A generated 20-server JSON Lines inventory with defects, and the estate job's
    findings on it."""
    from linter.generate.core import Settings, generate

    path = tmp_path_factory.mktemp("parse") / "estate.jsonl"
    generate(Settings(servers=20, seed=5, defect_rate=0.3, format="jsonl", output=str(path)))
    done = CliRunner().invoke(cli, ["estate", str(path), "--format", "json", "--quiet"])
    assert done.exit_code == 1, done.output
    return path, sorted(map(json.dumps, json.loads(done.stdout)["findings"]))


def test_check_reads_json_lines_as_the_estate_job_does(small_inventory):
    """`exlint check` on the same JSON Lines file gives the estate job's findings."""
    inventory, expected = small_inventory
    done = CliRunner().invoke(cli, ["check", str(inventory), "--format", "json"])
    assert done.exit_code == 1, done.output
    assert sorted(map(json.dumps, json.loads(done.stdout)["findings"])) == expected


def test_two_config_repos_are_an_estate_each_as_check_lints_them(spark, defective_estate, tmp_path, monkeypatch):
    # `exlint estate east/ west/`: before, one estate (two Organizations: EXL008, and every name
    # of one repo clashing with the other's: EXL006)
    import shutil

    for name in ("east", "west"):
        shutil.copytree(defective_estate, tmp_path / name)
        (tmp_path / name / ".exlint.yaml").write_text("{}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    estate = runner.invoke(cli, ["estate", "east", "west", "--format", "json", "--quiet"])
    check = runner.invoke(cli, ["check", "east", "west", "--format", "json"])
    expected = json.loads(check.output)["findings"]
    assert expected and not {f["rule"] for f in expected} & {"EXL006", "EXL008"}
    got = json.loads(estate.stdout)["findings"]
    assert sorted(map(json.dumps, got)) == sorted(map(json.dumps, expected))
    # configured differently: refused before Spark starts, with the way out
    (tmp_path / "west" / ".exlint.yaml").write_text("fail_on: warning\n", encoding="utf-8")
    refused = runner.invoke(cli, ["estate", "east", "west", "--quiet"])
    assert refused.exit_code == 2 and "configured differently" in refused.output and "--config" in refused.output
    # --config: one configuration for both, still an estate each
    given = runner.invoke(cli, ["estate", "east", "west", "--config", "east/.exlint.yaml", "--format", "json",
                                "--quiet"])
    assert sorted(map(json.dumps, json.loads(given.stdout)["findings"])) == sorted(map(json.dumps, expected))


def test_estate_text_output_escapes_control_characters(monkeypatch, capsys):
    # a folder named "/Sales\n::error file=evil.yaml::X" must not forge a finding line (or a
    # GitHub workflow command), and ESC/OSC sequences must not reach the terminal: as check's text
    from linter.engines.spark import command
    from linter.findings import Entity, Finding

    name = "/Sales\n::error file=evil.yaml::X\x1b]0;t\x07\u202e"
    finding = Finding("REP001", "error", f"folder {name} has no replica", "inv.jsonl", 3, 1, "spec.replicas",
                      Entity("PublicFolder", name))
    monkeypatch.setattr(command, "_finding_objects", lambda findings, count: iter([finding]))
    summary = {"stats": {"files": 1, "documents": 1, "records_in": 1, "linted": 1, "skipped": 0},
               "severity": {"error": 1, "warning": 0, "info": 0}, "rule": [("REP001", "error", 1)],
               "site": [("Lon\x1b]0;pwned\x07\ndon", 1)], "version": [("2016\x1b", 1)]}
    command._print_findings(None, "text", summary)
    printed = capsys.readouterr().out + command._summary_table(summary)
    assert "\x1b" not in printed and "\u202e" not in printed and "\x07" not in printed
    assert not any(line.startswith("::error") or line.startswith("don") for line in printed.splitlines())
    assert "\\n::error file=evil.yaml::X\\x1b" in printed


def test_input_format_yaml_reads_a_file_named_jsonl_as_yaml(spark, defective_estate, tmp_path, monkeypatch):
    # --input-format names the format of every file given by name: its suffix was obeyed instead
    text = "".join("---\n" + path.read_text() for path in sorted(defective_estate.rglob("*.yaml"))
                   if path.name != ".exlint.yaml")
    (tmp_path / "export.yaml").write_text(text)
    (tmp_path / "export.jsonl").write_text(text)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    estate = runner.invoke(cli, ["estate", "export.jsonl", "--input-format", "yaml", "--format", "json", "--quiet"])
    check = runner.invoke(cli, ["check", "export.yaml", "--format", "json"])
    got = [dict(f, file="export.yaml") for f in json.loads(estate.stdout)["findings"]]
    expected = json.loads(check.stdout)["findings"]
    assert expected and sorted(map(json.dumps, got)) == sorted(map(json.dumps, expected))


def test_estate_names_documents_it_did_not_lint_when_their_finding_is_hidden(spark, tmp_path, monkeypatch):
    # as `check` (tests/test_hidden_unread.py): every input document is linted or reported
    from test_hidden_unread import BROKEN, SERVER, UNKNOWN_KIND

    (tmp_path / ".exlint.yaml").write_text("{}\n")
    (tmp_path / "server.yaml").write_text(SERVER)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    (tmp_path / "unknown.yaml").write_text(UNKNOWN_KIND)
    monkeypatch.chdir(tmp_path)
    hidden = CliRunner().invoke(cli, ["estate", ".", "--select", "DUP", "--quiet"])
    assert hidden.exit_code == 0, hidden.output
    notes = [line for line in hidden.stderr.splitlines() if "is not linted" in line]
    assert len(notes) == 1, hidden.stderr
    assert "broken.yaml:" in notes[0] and "EXL001 is hidden by" in notes[0] and "(1 more such document(s))" in notes[0]
    shown = CliRunner().invoke(cli, ["estate", ".", "--quiet"])
    assert "EXL001" in shown.stdout and "is not linted" not in shown.stderr


def test_estate_reads_a_utf16_json_lines_file_as_check_does(spark, tmp_path, monkeypatch):
    # one task reads such a file whole (its lines do not end at a b"\n" byte), as check reads it
    from test_jsonl_check import utf16_inventory

    inventory = utf16_inventory(tmp_path)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    estate = runner.invoke(cli, ["estate", inventory.name, "--format", "json", "--quiet"])
    check = runner.invoke(cli, ["check", inventory.name, "--format", "json"])
    got, expected = json.loads(estate.stdout)["findings"], json.loads(check.stdout)["findings"]
    assert expected and "EXL001" not in {f["rule"] for f in expected}
    assert sorted(map(json.dumps, got)) == sorted(map(json.dumps, expected))
