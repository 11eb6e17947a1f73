"""CI reports a real client accepts: SARIF locations (relative, percent-encoded,
with snippets), provenance and rule metadata, checked by Microsoft's SARIF
Multitool when npm is available; JUnit failing only at the --fail-on level."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from linter.cli import cli

from test_integrations import ORG, SERVERS, STORE, sarif_validator

MULTITOOL = "@microsoft/sarif-multitool"


def invoke(*args, env=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env={"EXLINT_DOCS_URL": None, **(env or {})})


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "config repo"
    (root / "estate").mkdir(parents=True)
    (root / "estate" / "org.yaml").write_text(ORG)
    (root / "estate" / "servers.yaml").write_text(SERVERS)
    # a name that must be percent-encoded in a URI
    (root / "estate" / "east #2 100%.yaml").write_text(STORE.format(name="PFDB-B", server="EX10-NOPE"))
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "git@git.example.com:ops/exchange-estate.git")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "estate")
    return root


def sarif(*args, env=None):
    result = invoke("check", "--format", "sarif", *args, env=env)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_artifact_uris_are_relative_and_percent_encoded(repo):
    document = sarif(repo / "estate")
    assert not list(sarif_validator().iter_errors(document))
    run = document["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    (item,) = [r for r in run["results"] if r["ruleId"] == "EXL007"]
    artifact = item["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "estate/east%20%232%20100%25.yaml", "uriBaseId": "%SRCROOT%"}


def test_version_control_provenance(repo):
    (provenance,) = sarif(repo / "estate")["runs"][0]["versionControlProvenance"]
    assert provenance["revisionId"] == git(repo, "rev-parse", "HEAD").strip()
    assert provenance["repositoryUri"] == "ssh://git.example.com/ops/exchange-estate.git"
    assert provenance["branch"] == "main" and provenance["mappedTo"] == {"uriBaseId": "%SRCROOT%"}


def test_help_uri_only_when_a_docs_url_is_configured(repo):
    driver = sarif(repo / "estate")["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver and not any("helpUri" in r for r in driver["rules"])
    (repo / ".exlint.yaml").write_text("docs_url: https://git.example.com/tools/exlint/-/blob/main/docs/rules.md\n")
    driver = sarif(repo / "estate")["runs"][0]["tool"]["driver"]
    assert driver["informationUri"].startswith("https://git.example.com/")
    dup = next(r for r in driver["rules"] if r["id"] == "DUP001")
    assert dup["helpUri"] == "https://git.example.com/tools/exlint/-/blob/main/docs/rules.md#dup001"
    (repo / ".exlint.yaml").write_text("docs_url: not a url\n")
    assert invoke("check", repo / "estate").exit_code == 2


def test_a_finding_no_file_owns_still_has_a_location(repo):
    (repo / "estate" / "org.yaml").unlink()  # EXL008: no Organization at all
    results = sarif(repo / "estate")["runs"][0]["results"]
    assert all(r.get("locations") for r in results)
    (item,) = [r for r in results if r["ruleId"] == "EXL008"]
    assert item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "estate/east%20%232%20100%25.yaml"
    (repo / ".exlint.yaml").write_text("{}\n")  # a config repo root: its configuration file
    (item,) = [r for r in sarif(repo / "estate")["runs"][0]["results"] if r["ruleId"] == "EXL008"]
    physical = item["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == ".exlint.yaml" and physical["region"]["startLine"] == 1


def test_junit_fails_only_at_or_above_fail_on(repo):
    (repo / "estate" / "east #2 100%.yaml").write_text(STORE.format(name="PFDB-B", server="EX10-A")
                                                       + "  registry:\n    Track Duplicates (in hours): 300\n")
    env = {}
    text = invoke("check", "--format", "json", repo / "estate", env=env).stdout
    severities = {f["severity"] for f in json.loads(text)["findings"]}
    assert "error" not in severities and severities, text  # warnings or info only

    def cases(*extra):
        result = invoke("check", "--format", "junit", *extra, repo / "estate")
        root = ET.fromstring(result.stdout)
        return result.exit_code, root, root.findall(".//testcase")

    code, root, testcases = cases()
    assert code == 0 and root.get("failures") == "0"
    assert not any(c.find("failure") is not None for c in testcases)
    reported = [c for c in testcases if c.find("system-out") is not None]
    assert reported and "Track Duplicates" in "".join(c.find("system-out").text for c in reported)
    code, root, testcases = cases("--fail-on", "info")
    assert code == 1 and int(root.get("failures")) == len(reported)


def test_junit_gives_a_finding_of_the_estate_no_position(repo):
    # EXL008 (no Organization) was written `<estate>:0:0:`, line 0 in a 1-based world
    (repo / "estate" / "org.yaml").unlink()
    result = invoke("check", "--format", "junit", repo / "estate")
    texts = [node.text or "" for node in ET.fromstring(result.stdout).iter() if node.tag in ("failure", "system-out")]
    estate = [line for text in texts for line in text.splitlines() if "EXL008" in line]
    assert estate and all(line.startswith("<estate>: EXL008 [error]") for line in estate), estate
    assert not any(":0:" in line for text in texts for line in text.splitlines())


def _multitool(tmp_path_factory) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the SARIF Multitool check needs it")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "exlint-sarif-multitool"
    binary = cache / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
    if not binary.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        install = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(cache), MULTITOOL],
                                 capture_output=True, text=True, timeout=600)
        if install.returncode != 0 or not binary.is_file():
            pytest.skip(f"npm install {MULTITOOL} failed: {install.stderr.strip()[-300:]}")
    binary.chmod(binary.stat().st_mode | 0o100)  # its postinstall script may not have run
    return binary


def _validate(binary: Path, log: Path, out: Path) -> list[tuple[str, str, str]]:
    subprocess.run([str(binary), "validate", str(log), "--rule-kind", "Sarif;Gh", "--level", "Error;Warning;Note",
                    "--output", str(out), "--log", "ForceOverwrite"], capture_output=True, text=True, timeout=300)
    report = json.loads(out.read_text(encoding="utf-8-sig"))
    return [(r.get("level", "warning"), r["ruleId"], r["message"].get("id", ""))
            for r in report["runs"][0].get("results", [])]


def test_sarif_multitool_finds_nothing_to_improve(repo, tmp_path, tmp_path_factory):
    binary = _multitool(tmp_path_factory)
    (repo / ".exlint.yaml").write_text("docs_url: https://git.example.com/tools/exlint/-/blob/main/docs/rules.md\n")
    log = tmp_path / "exlint.sarif"
    assert invoke("check", "--output", log, repo / "estate").exit_code == 1
    issues = _validate(binary, log, tmp_path / "validation.sarif")
    assert not [i for i in issues if i[0] in ("error", "warning")], issues
    # what the Multitool suggested before: snippets, context regions, provenance,
    # Pascal-case rule names, help addresses, URIs with a leading slash
    unwanted = ("Snippet", "ContextRegion", "VersionControl", "Pascal", "HelpUri", "Absolute", "Slash")
    assert not [i for i in issues if any(word.lower() in i[2].lower() for word in unwanted)], issues
    # without a documentation address, the missing tool address is the only warning
    (repo / ".exlint.yaml").write_text("{}\n")
    assert invoke("check", "--output", log, repo / "estate").exit_code == 1
    issues = _validate(binary, log, tmp_path / "validation.sarif")
    assert {i[1] for i in issues if i[0] in ("error", "warning")} == {"SARIF2005"}, issues
