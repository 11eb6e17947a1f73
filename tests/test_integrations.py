"""CI integrations: SARIF (validated against the official schema), JUnit,
GitHub annotations, several outputs in one run, and baselines."""
from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = REPO / "tests" / "vendor" / "sarif-schema-2.1.0.json"  # see tests/vendor/NOTICE.md
ESTATE = REPO / "samples" / "estate"

ORG = """apiVersion: exlint/v1
kind: Organization
metadata: {name: contoso}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG1, siteFolderServer: EX10-A}]
  sites: [{name: London}, {name: Paris}]
  siteLinks: [{name: L, sites: [London, Paris], cost: 10}]
"""
SERVERS = """apiVersion: exlint/v1
kind: Server
metadata: {name: EX10-A}
spec: {version: "2010", site: London, adminGroup: AG1, roles: [Mailbox], dag: D1}
---
apiVersion: exlint/v1
kind: Server
metadata: {name: EX10-B}
spec: {version: "2010", site: Paris, adminGroup: AG1, roles: [Mailbox], dag: D1}
"""
STORE = """# store of {server}
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
  name: {name}
spec:
  server: {server}
  hierarchy: Public Folders
  created: 2010-01-01
  emailAddress: {name}@contoso.com
"""


def invoke(*args, env=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".exlint.yaml").write_text("{}\n")
    (tmp_path / "org.yaml").write_text(ORG)
    (tmp_path / "servers.yaml").write_text(SERVERS)
    (tmp_path / "a.yaml").write_text(STORE.format(name="PFDB-A", server="EX10-A"))
    (tmp_path / "b.yaml").write_text(STORE.format(name="PFDB-B", server="EX10-NOPE"))
    return tmp_path


def sarif_validator():
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"the official SARIF schema is expected at {SARIF_SCHEMA}")
    from jsonschema import Draft7Validator

    schema = json.loads(SARIF_SCHEMA.read_text())
    return Draft7Validator(schema)


@pytest.mark.parametrize("target", ["broken", "clean"])
def test_sarif_is_valid_against_the_official_schema(repo, target):
    path = repo if target == "broken" else ESTATE
    result = invoke("check", "--format", "sarif", path)
    document = json.loads(result.stdout)
    errors = sorted(sarif_validator().iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {"EXL001", "EXL007"}
    for rule in rules:
        assert "helpUri" not in rule  # no documentation address is configured
        assert rule["name"][0].isupper() and not any(a.isupper() and b.isupper() for a, b in zip(rule["name"], rule["name"][1:]))
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    if target == "broken":
        (item,) = [r for r in run["results"] if r["ruleId"] == "EXL007"]
        physical = item["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": "b.yaml", "uriBaseId": "%SRCROOT%"}
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
        assert physical["region"] == {"startLine": 7, "startColumn": 11, "snippet": {"text": "  server: EX10-NOPE"}}
        assert physical["contextRegion"]["startLine"] == 5 and physical["contextRegion"]["endLine"] == 9
        assert physical["contextRegion"]["snippet"]["text"].splitlines()[2] == "  server: EX10-NOPE"
        assert item["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].startswith(
            "PublicFolderDatabase/PFDB-B")
        assert rules[item["ruleIndex"]]["id"] == "EXL007"


def test_every_sarif_result_has_a_fingerprint_of_its_own():
    # BKF004 says one delay is longer than two other values: two results, one setting,
    # which shared a fingerprint (code scanning merges such results into one alert)
    broken = Path(__file__).resolve().parents[1] / "samples" / "broken"
    results = json.loads(invoke("check", "--format", "sarif", broken).stdout)["runs"][0]["results"]
    prints = [r["partialFingerprints"]["exlintFingerprint/v1"] for r in results]
    keys = [(r["ruleId"], r["message"]["text"], json.dumps(r["locations"], sort_keys=True)) for r in results]
    assert len(set(keys)) == len(keys) and len(set(prints)) == len(prints)
    shared = [r for r in results if r["ruleId"] == "BKF004"]
    assert len(shared) >= 2  # the case this is about is in the samples


def test_sarif_fingerprints_survive_line_shifts(repo):
    before = json.loads(invoke("check", "--format", "sarif", repo).stdout)["runs"][0]["results"]
    text = (repo / "b.yaml").read_text()
    (repo / "b.yaml").write_text("# a new comment\n# and another\n" + text)
    after = json.loads(invoke("check", "--format", "sarif", repo).stdout)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in before] == [r["partialFingerprints"] for r in after]
    assert before[0]["locations"][0]["physicalLocation"]["region"]["startLine"] + 2 == \
        after[0]["locations"][0]["physicalLocation"]["region"]["startLine"]


def test_sarif_for_an_estate_without_organization_is_valid(tmp_path):
    (tmp_path / "a.yaml").write_text(STORE.format(name="PFDB-A", server="EX10-A"))
    document = json.loads(invoke("check", "--format", "sarif", tmp_path / "a.yaml").stdout)
    assert not list(sarif_validator().iter_errors(document))
    (exl008,) = [r for r in document["runs"][0]["results"] if r["ruleId"] == "EXL008"]
    # a finding no file owns still points somewhere a viewer can show: here the one file linted
    assert exl008["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "a.yaml"
    assert all(r.get("locations") for r in document["runs"][0]["results"])


def test_junit_counts(repo):
    (repo / "c.yaml").write_text(STORE.format(name="PFDB-C", server="EX10-NOPE2").replace(
        "  emailAddress: PFDB-C@contoso.com\n", ""))
    result = invoke("check", "--format", "junit", repo)
    root = ET.fromstring(result.stdout)
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert len(suites) == 5  # every file of the repo, clean ones included
    c = suites[str(repo / "c.yaml")] if str(repo / "c.yaml") in suites else next(
        s for n, s in suites.items() if n.endswith("c.yaml"))
    names = sorted(case.get("name") for case in c.findall("testcase"))
    assert names == ["EXL007", "HIE004"]
    assert all(case.find("failure") is not None for case in c.findall("testcase"))
    assert int(root.get("failures")) == 3 and int(root.get("tests")) == 3 + 3
    clean = next(s for n, s in suites.items() if n.endswith("a.yaml"))
    assert clean.get("failures") == "0" and clean.find("testcase/failure") is None


def test_github_annotations_and_auto_selection(repo):
    result = invoke("check", repo, env={"GITHUB_ACTIONS": "true"})
    line = next(l for l in result.stdout.splitlines() if l.startswith("::error"))
    assert line.startswith("::error file=") and ",line=7,col=11,title=EXL007::" in line
    assert result.exit_code == 1
    plain = invoke("check", repo, env={"GITHUB_ACTIONS": ""})
    assert not plain.stdout.startswith("::")


def test_github_escaping():
    from linter.reports.github import _data, _property

    assert _data("50% done\nnext") == "50%25 done%0Anext"
    assert _property("a:b,c") == "a%3Ab%2Cc"


def test_outputs_pair_in_order(repo, tmp_path):
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    result = invoke("check", "--format", "sarif", "--output", sarif, "--format", "junit", "--output", junit,
                    "--format", "text", repo)
    assert result.exit_code == 1
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert ET.fromstring(junit.read_text()).tag == "testsuites"
    assert "EXL007 [error]" in result.stdout


def test_baseline_round_trip(repo, tmp_path):
    baseline = tmp_path / "baseline.json"
    wrote = invoke("check", "--write-baseline", baseline, repo)
    assert wrote.exit_code == 0 and baseline.is_file()
    assert invoke("check", "--baseline", baseline, repo).exit_code == 0
    # shift every line of the baselined file and add a new defect elsewhere
    (repo / "b.yaml").write_text("# moved\n\n\n" + (repo / "b.yaml").read_text())
    (repo / "a.yaml").write_text(STORE.format(name="PFDB-A", server="EX10-A").replace(
        "  emailAddress: PFDB-A@contoso.com\n", ""))
    result = invoke("check", "--format", "json", "--baseline", baseline, repo)
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule"], Path(f["file"]).name) for f in findings] == [("HIE004", "a.yaml")]
    # fix the baselined problem: it is listed as fixed
    (repo / "b.yaml").write_text(STORE.format(name="PFDB-B", server="EX10-B"))
    result = invoke("check", "--format", "json", "--baseline", baseline, repo)
    body = json.loads(result.stdout)
    assert len(body["baseline"]["fixed"]) == 1 and body["baseline"]["fixed"][0]["rule"] == "EXL007"
    assert "fixed since the baseline" in result.stderr


def test_a_baselined_finding_not_looked_for_is_not_fixed(repo, tmp_path):
    # `--baseline` with some paths (the hook) or some rules said every finding of the other
    # files or rules was "fixed since the baseline"
    baseline = tmp_path / "baseline.json"
    assert invoke("check", "--write-baseline", baseline, repo).exit_code == 0
    assert "EXL007" in baseline.read_text() and "b.yaml" in baseline.read_text()
    for narrowed in ([repo / "a.yaml"], ["--select", "HIE", repo], ["--ignore", "EXL007", repo]):
        result = invoke("check", "--format", "json", "--baseline", baseline, *narrowed)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout).get("baseline", {}).get("fixed", []) == [], narrowed
        assert "fixed since" not in result.stderr and ", 0 fixed" in result.stderr, narrowed


def test_bad_baseline_is_exit_2(repo, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = invoke("check", "--baseline", bad, repo)
    assert result.exit_code == 2 and "bad.json:1:2" in result.stderr
    result = invoke("check", "--baseline", tmp_path / "missing.json", repo)
    assert result.exit_code == 2 and "--write-baseline" in result.stderr
