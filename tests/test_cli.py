"""The `check`, `rules`, `explain` and `schema` commands as users run them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parent.parent
ESTATE = REPO / "samples" / "estate"
CATALOG = (
    [f"EXL{n:03d}" for n in range(1, 10)]
    + [f"HIE{n:03d}" for n in range(1, 8)]
    + [f"REP{n:03d}" for n in range(1, 11)]
    + [f"BKF{n:03d}" for n in range(1, 7)]
    + [f"DUP{n:03d}" for n in range(1, 6)]
    + [f"STS{n:03d}" for n in range(1, 6)]
    + [f"RTE{n:03d}" for n in range(1, 8)]
    + [f"SHD{n:03d}" for n in range(1, 8)]
    + [f"CON{n:03d}" for n in range(1, 4)]
)


def invoke(*args, cwd=None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(cli, [str(a) for a in args])
    with runner.isolated_filesystem(temp_dir=cwd):
        return runner.invoke(cli, [str(a) for a in args])


def report(*args):
    result = invoke("check", "--format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


ORG = """apiVersion: exlint/v1
kind: Organization
metadata: {name: contoso}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG1, siteFolderServer: EX10-A}]
  sites: [{name: London}, {name: Paris}]
  siteLinks: [{name: L, sites: [London, Paris], cost: 10}]
"""
SERVER = """apiVersion: exlint/v1
kind: Server
metadata: {{name: {name}}}
spec:
  version: "2010"
  site: {site}
  adminGroup: AG1
  roles: [Mailbox, HubTransport]
  dag: DAG-1
"""
STORE = """apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata: {{name: {name}}}
spec:
  server: {server}
  hierarchy: Public Folders
  created: 2010-01-01
  emailAddress: {name}@contoso.com
"""


@pytest.fixture
def repo(tmp_path):
    """A small config repo with a root marker, two servers and two stores."""
    write(tmp_path / ".exlint.yaml", "{}\n")
    write(tmp_path / "org.yaml", ORG)
    write(tmp_path / "servers" / "a.yaml", SERVER.format(name="EX10-A", site="London"))
    write(tmp_path / "servers" / "b.yaml", SERVER.format(name="EX10-B", site="Paris"))
    write(tmp_path / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A"))
    write(tmp_path / "stores" / "b.yaml", STORE.format(name="PFDB-B", server="EX10-B"))
    return tmp_path


def test_sample_estate_is_clean():
    code, data = report(ESTATE)
    assert code == 0
    assert data["summary"]["error"] == 0 and data["summary"]["warning"] == 0
    assert data["summary"]["files"] > 40 and data["summary"]["documents"] > 80


def test_json_contract_shape(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    code, data = report(repo)
    assert code == 1
    assert data["version"] == "1" and data["tool"]["name"] == "exlint"
    finding = next(f for f in data["findings"] if f["rule"] == "EXL007")
    assert set(finding) == {"rule", "severity", "message", "file", "line", "column", "path", "entity"}
    assert finding["file"].endswith("stores/a.yaml") and finding["line"] == 5 and finding["column"] == 11
    assert finding["path"] == "spec.server"
    assert finding["entity"] == {"kind": "PublicFolderDatabase", "name": "PFDB-A"}
    assert set(data["summary"]) == {"files", "documents", "error", "warning", "info", "skipped"}


def test_text_output_format(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    result = invoke("check", repo / "stores" / "a.yaml")
    assert result.exit_code == 1
    line = next(l for l in result.stdout.splitlines() if "EXL007" in l)
    assert line.endswith("server EX10-NOPE is not defined: no Server document has that name")
    assert ":5:11: EXL007 [error] " in line


def test_root_resolves_references_into_unchanged_files(repo):
    # only one file is given (as pre-commit does); its references live elsewhere
    code, data = report(repo / "stores" / "a.yaml")
    assert code == 0 and data["findings"] == [] and data["summary"]["files"] == 1


def test_explicit_root_option(repo, tmp_path_factory):
    (repo / ".exlint.yaml").unlink()
    code, data = report(repo / "stores" / "a.yaml")
    assert code == 1 and {f["rule"] for f in data["findings"]} >= {"EXL008"}
    code, data = report("--root", repo, repo / "stores" / "a.yaml")
    assert code == 0, data


def test_fail_on_levels(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A").replace(
        "  created: 2010-01-01\n", ""))  # RTE002 is info
    assert report(repo)[0] == 0
    assert report("--fail-on", "info", repo)[0] == 1
    assert report("--fail-on", "warning", repo)[0] == 0


def test_select_and_ignore(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    assert report("--ignore", "EXL", repo)[0] == 0
    assert report("--select", "HIE,REP", repo)[0] == 0
    code, data = report("--select", "exl007", repo)
    assert code == 1 and {f["rule"] for f in data["findings"]} == {"EXL007"}


def test_config_file_severity_select_and_options(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    write(repo / ".exlint.yaml", "severity: {EXL007: warning}\n")
    code, data = report(repo)
    assert code == 0 and data["findings"][0]["severity"] == "warning"
    write(repo / ".exlint.yaml", "ignore: [EXL007]\n")
    assert report(repo)[0] == 0
    write(repo / ".exlint.yaml", "exclude: ['stores/a.yaml']\n")
    assert report(repo)[1]["summary"]["files"] == 4


def test_pyproject_configuration_found_upward(repo):
    (repo / ".exlint.yaml").unlink()
    write(repo / "pyproject.toml", "[tool.exlint]\nignore = ['EXL007']\n")
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    runner = CliRunner()
    import os

    here = os.getcwd()
    os.chdir(repo)
    try:
        result = runner.invoke(cli, ["check", "--format", "json", "."])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("ignored, selected, runs", [
    ("[EXL007]", "EXL007", True), ("[EXL]", "EXL007", True), ("[EXL007]", "EXL", False), ("[EXL00]", "EXL", False)])
def test_a_rule_selected_on_the_command_line_beats_the_configurations_ignore(repo, ignored, selected, runs):
    # `--select EXL007` with `ignore: [EXL007]` in .exlint.yaml ran nothing and said nothing
    write(repo / ".exlint.yaml", f"ignore: {ignored}\n")
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    code, data = report("--select", selected, str(repo))
    assert ("EXL007" in {f["rule"] for f in data["findings"]}) is runs


def test_a_pyproject_section_beside_the_exlint_yaml_that_wins_is_said_to_be_unread(repo):
    write(repo / "pyproject.toml", "[tool.exlint]\nfail_on = 'never'\n")
    result = CliRunner().invoke(cli, ["check", str(repo)])
    assert "[tool.exlint] is not read: .exlint.yaml beside it is the configuration" in result.stderr, result.output


@pytest.mark.parametrize("text, needle", [
    ("[tool.exlnt]\nselect = ['DUP001']\n", "did you mean [tool.exlint]?"),
    ("[project]\nname = 'x'\n", "has no [tool.exlint] table"),
    ("tool = {exlint = 5}\n", "is not a table"),
])
def test_a_pyproject_named_with_config_must_hold_the_table(repo, tmp_path, text, needle):
    # a misspelt table ran every rule with the defaults and dropped the repo's .exlint.yaml
    pyproject = write(tmp_path / "elsewhere" / "pyproject.toml", text)
    result = CliRunner().invoke(cli, ["check", "--config", str(pyproject), str(repo)])
    assert result.exit_code == 2 and needle in result.stderr and str(pyproject) in result.stderr, result.output


@pytest.mark.parametrize("text,needle", [
    ("select: DUP\nbogus: 1\n", "unknown key 'bogus'"),
    ("selct: [DUP]\n", "did you mean select?"),
    ("severity: {DUP001: fatal}\n", "severity"),
    ("options: {DUP002: {threshold_hours: lots}}\n", "must be a number"),
    ("[not yaml\n", "invalid YAML"),
    ("options: {DUP002: {nope: 3}}\n", "no option"),
    ("thresholds: {DUP001: 5}\n", ".exlint.yaml:1:14: thresholds: DUP001 has no threshold to set"),
    ("thresholds: {DUP002: -5}\n", "threshold_hours is -5: it must be 0 or more"),
    ("thresholds: {DUP002: 9223372036854775808}\n", ".exlint.yaml:1:14: options: DUP002 threshold_hours is "
                                                   "9223372036854775808: it must fit in 64 bits"),
    ("thresholds: {DUP002: lots}\n", "must be a number"),
    ("thresholds: {DUP002: 5}\noptions: {dup002: {threshold_hours: 3}}\n", "set in `options` too"),
    ("thresholds: {dup002: 5, DUP002: 6}\n", "`thresholds` names DUP002 twice"),
    ("thresholds: [DUP002]\n", "`thresholds` maps rule IDs to numbers"),
])
def test_bad_configuration_is_exit_2(repo, text, needle):
    write(repo / ".exlint.yaml", text)
    result = invoke("check", repo)
    assert result.exit_code == 2
    assert needle in result.stderr and "Traceback" not in result.output


def test_config_option_override_changes_a_threshold(repo):
    store = STORE.format(name="PFDB-A", server="EX10-A")
    write(repo / "servers" / "a.yaml", SERVER.format(name="EX10-A", site="London").replace('"2010"', '"2003"').replace("  dag: DAG-1\n", ""))
    write(repo / "stores" / "a.yaml", store + "  registry:\n    Track Duplicates (in hours): 300\n")
    code, data = report("--select", "DUP002", repo)
    assert code == 0 and [f["rule"] for f in data["findings"]] == ["DUP002"]
    write(repo / ".exlint.yaml", "options: {DUP002: {threshold_hours: 336}}\n")
    code, data = report("--select", "DUP002", repo)
    assert data["findings"] == []
    # the catalog's word: thresholds, a rule's one threshold by its ID
    write(repo / ".exlint.yaml", "thresholds: {dup002: 336}\n")
    code, data = report("--select", "DUP002", repo)
    assert data["findings"] == []
    write(repo / ".exlint.yaml", "thresholds: {DUP002: 200}\n")
    assert [f["rule"] for f in report("--select", "DUP002", repo)[1]["findings"]] == ["DUP002"]
    # Exchange 2007 and later read DeliveredTo Expiration in Hours: the same threshold, in its own check
    write(repo / "servers" / "b.yaml", SERVER.format(name="EX10-B", site="London").replace("  dag: DAG-1\n", ""))
    write(repo / "stores" / "b.yaml", STORE.format(name="PFDB-B", server="EX10-B")
          + "  registry:\n    DeliveredTo Expiration in Hours: 300\n")
    write(repo / ".exlint.yaml", "thresholds: {DUP002: 250}\n")
    found = report("--select", "DUP002", repo)[1]["findings"]
    assert sorted(f["message"].split(" is ")[0] for f in found) == ["DeliveredTo Expiration in Hours",
                                                                     "Track Duplicates (in hours)"]
    write(repo / ".exlint.yaml", "thresholds: {DUP002: 300}\n")
    assert report("--select", "DUP002", repo)[1]["findings"] == []


def test_inline_suppressions(repo):
    bad = STORE.format(name="PFDB-A", server="EX10-NOPE")
    write(repo / "stores" / "a.yaml", bad.replace(
        "server: EX10-NOPE", 'server: EX10-NOPE  # exlint: disable=EXL007 reason="decommissioning CHG-1"'))
    assert report(repo)[0] == 0
    assert report("--no-inline-suppressions", repo)[0] == 1
    # a comment on its own line silences the next line
    write(repo / "stores" / "a.yaml", bad.replace(
        "  server: EX10-NOPE", '  # exlint: disable=EXL007 reason="CHG-2"\n  server: EX10-NOPE'))
    assert report(repo)[0] == 0
    write(repo / "stores" / "a.yaml", "# exlint: disable-file=EXL\n" + bad)
    assert report(repo)[0] == 0


def test_unused_suppression_is_reported(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A").replace(
        "server: EX10-A", 'server: EX10-A  # exlint: disable=DUP002 reason="old"'))
    code, data = report(repo)
    assert code == 0
    assert [(f["rule"], f["line"]) for f in data["findings"]] == [("EXL010", 5)]


def test_findings_are_sorted_and_deterministic(repo):
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-NOPE"))
    write(repo / "stores" / "c.yaml", STORE.format(name="PFDB-C", server="EX10-NOPE2"))
    first = invoke("check", "--format", "json", repo).stdout
    second = invoke("check", "--format", "json", repo).stdout
    assert first == second
    findings = json.loads(first)["findings"]
    keys = [(f["file"], f["line"], f["column"], f["rule"]) for f in findings]
    assert keys == sorted(keys)


def test_multiple_formats_and_outputs(repo, tmp_path):
    out = tmp_path / "report.json"
    result = invoke("check", "--format", "json", "--output", out, "--format", "text", repo)
    assert result.exit_code == 0
    assert json.loads(out.read_text())["version"] == "1"
    assert "error(s)" in result.stdout


def test_rules_lists_the_whole_catalog():
    result = invoke("rules", "--format", "json")
    assert result.exit_code == 0
    rules = {r["id"]: r for r in json.loads(result.stdout)}
    missing = [rule_id for rule_id in CATALOG if rule_id not in rules]
    assert missing == []
    for rule in rules.values():
        assert rule["severity"] in ("error", "warning", "info") and rule["title"] and rule["source"]
    listed = [r["id"] for r in json.loads(result.stdout)]
    assert listed == sorted(listed)  # by ID, the built-in EXL rules among the rest
    table = invoke("rules")
    assert table.exit_code == 0 and "DUP001" in table.stdout
    ids = [line.split()[0] for line in table.stdout.splitlines()[1:]]
    assert ids == sorted(ids) == listed


def test_explain_and_unknown_rule():
    result = invoke("explain", "exl007")
    assert result.exit_code == 0
    for heading in ("What it does", "Why it matters", "References", "Example", "Use instead", "How to fix", "Fix: "):
        assert heading in result.stdout
    result = invoke("explain", "EXL070")
    assert result.exit_code == 2 and "(did you mean EXL0" in result.stderr
    # a number far from every rule's still gets its family's rules, as --select gives them
    result = invoke("explain", "DUP999")
    assert result.exit_code == 2 and "unknown rule 'DUP999' (did you mean DUP" in result.stderr


def test_schema_command():
    result = invoke("schema", "server")
    body = json.loads(result.stdout)
    assert body["title"].endswith("Server") and "$defs" in body
    whole = json.loads(invoke("schema").stdout)
    assert len(whole["allOf"]) == 5
    assert invoke("schema", "Nope").exit_code == 2


def test_schema_bundle_validates_documents():
    from jsonschema import Draft202012Validator

    whole = json.loads(invoke("schema").stdout)
    Draft202012Validator.check_schema(whole)
    validator = Draft202012Validator(whole)
    import yaml

    for path in ESTATE.rglob("*.yaml"):
        for document in yaml.safe_load_all(path.read_text()):
            if document and "kind" in document:
                document = json.loads(json.dumps(document, default=str))
                assert not list(validator.iter_errors(document)), path


def test_docs_rules_md_is_current():
    from linter.docs import rules_markdown
    from linter.policy.packs import load_rules

    current = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert current == rules_markdown(load_rules()), "docs/rules.md is stale: run python -m linter.docs"


def test_an_empty_path_is_an_error_not_the_working_directory(repo):
    # `exlint check "$UNSET"` must not lint whatever directory it happens to run in
    result = invoke("check", "")
    assert result.exit_code == 2 and "empty PATH" in result.output


def test_generate_refuses_an_absurd_number_of_servers(tmp_path):
    result = invoke("generate", "--servers", "99999999999999", "--format", "jsonl", "--output", tmp_path / "x.jsonl")
    assert result.exit_code == 2 and not (tmp_path / "x.jsonl").exists()


def test_an_internal_error_is_one_line_and_its_trace_only_with_debug(repo, monkeypatch):
    import linter.runner

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(linter.runner, "lint", broken)
    monkeypatch.delenv("EXLINT_DEBUG", raising=False)
    result = CliRunner().invoke(cli, ["check", str(repo)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip().splitlines() == [
        "exlint: error: internal error: RuntimeError: boom; this is a bug in exlint: run the same command with "
        "--debug (exlint --debug ...) for the trace, and report it"], result.stderr
    traced = CliRunner().invoke(cli, ["--debug", "check", str(repo)])
    assert isinstance(traced.exception, RuntimeError)  # the trace, as Python prints it


@pytest.mark.parametrize("args, words", [
    (["check", "--fail-on", "warnings", "."], ("'warnings' is not one of", "see exlint check --help")),
    (["check", "--bogus", "."], ("No such option '--bogus'", "see exlint check --help")),
    (["chek"], ("No such command 'chek'", "'check'", "see exlint --help")),
    (["--bogus"], ("No such option '--bogus'", "see exlint --help")),
    (["check", "--output"], ("requires an argument",)),
])
def test_a_usage_error_is_one_line_and_exit_2(args, words):
    # Click's usage block (Usage:, Try ..., a blank line, Error: ...) is four lines in a CI log
    result = CliRunner().invoke(cli, args, prog_name="exlint")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("exlint: error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
