"""`exlint check --hook`: a rename or deletion that breaks unchanged files is
caught, with the file:line of each broken reference (issue 18)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

from documents import ORG, SERVER, STORE

FOLDER = """apiVersion: exlint/v1
kind: PublicFolder
metadata: {{name: {name}}}
spec:
  hierarchy: Public Folders
  replicas:
    - {replica}
"""


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    files = {
        ".exlint.yaml": "{}\n",
        "org.yaml": ORG,
        "servers/a.yaml": SERVER.format(name="EX10-A"),
        "servers/b.yaml": SERVER.format(name="EX10-B"),
        "stores/a.yaml": STORE.format(name="PFDB-A", server="EX10-A"),
        "stores/b.yaml": STORE.format(name="PFDB-B", server="EX10-B"),
        "folders/sales.yaml": FOLDER.format(name="/Sales", replica="PFDB-A"),
        "folders/hr.yaml": FOLDER.format(name="/HR", replica="PFDB-A"),
        "folders/it.yaml": FOLDER.format(name="/IT", replica="PFDB-B"),
    }
    return committed(root, files, tmp_path, monkeypatch)


def committed(root: Path, files: dict[str, str], tmp_path: Path, monkeypatch) -> Path:
    """``files`` written under ``root``, committed in a new git repository, as the working directory."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "estate")
    monkeypatch.chdir(root)
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def hook(*files):
    result = CliRunner().invoke(cli, ["check", "--hook", "--format", "json", *map(str, files)])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def where(report, rule="REP001"):
    return sorted((f["rule"], f["file"], f["line"]) for f in report["findings"] if f["rule"] == rule)


def test_unchanged_commit_passes(repo):
    assert hook("stores/a.yaml") == (0, hook("stores/a.yaml")[1])
    assert hook()[0] == 0


def test_renamed_store_fails_in_the_unchanged_files_that_name_it(repo):
    store = repo / "stores" / "a.yaml"
    store.write_text(store.read_text().replace("name: PFDB-A", "name: PFDB-A2"))
    git(repo, "add", "-A")
    code, report = hook("stores/a.yaml")
    assert code == 1 and {f["file"] for f in report["findings"]} == {"folders/hr.yaml", "folders/sales.yaml"}
    assert where(report) == [("REP001", "folders/hr.yaml", 7), ("REP001", "folders/sales.yaml", 7)]
    assert all("PFDB-A" in f["message"] for f in report["findings"])


def test_deleted_store_fails_even_when_no_file_is_passed(repo):
    git(repo, "rm", "-q", "stores/a.yaml")
    code, report = hook()  # pre-commit passes no file: the deletion is all there is
    assert code == 1
    assert where(report) == [("REP001", "folders/hr.yaml", 7), ("REP001", "folders/sales.yaml", 7)]


def test_a_deletion_in_an_estate_below_the_git_top_fails_with_no_file_passed(tmp_path, monkeypatch):
    # a repository holding estates in subfolders (each with its .exlint.yaml): pre-commit runs from the
    # git top and passes a deletion-only commit no file; the estate was never looked at
    top = committed(tmp_path / "top", {
        "east/.exlint.yaml": "{}\n", "east/org.yaml": ORG, "east/servers/a.yaml": SERVER.format(name="EX10-A"),
        "east/stores/a.yaml": STORE.format(name="PFDB-A", server="EX10-A"),
        "east/folders/sales.yaml": FOLDER.format(name="/Sales", replica="PFDB-A"),
        "west/.exlint.yaml": "{}\n", "west/org.yaml": ORG}, tmp_path, monkeypatch)
    assert hook()[0] == 0
    git(top, "rm", "-q", "east/stores/a.yaml")
    code, report = hook()
    assert code == 1
    assert where(report) == [("REP001", "east/folders/sales.yaml", 7)]
    monkeypatch.chdir(top / "east")  # the same from inside the estate, as before
    code, report = hook()
    assert code == 1 and where(report) == [("REP001", "folders/sales.yaml", 7)]


def test_moved_file_keeping_its_names_passes(repo):
    (repo / "stores" / "moved").mkdir()
    git(repo, "mv", "stores/a.yaml", "stores/moved/a.yaml")
    assert hook("stores/moved/a.yaml")[0] == 0


def test_dependents_report_only_what_the_change_broke(repo):
    # an old problem in a dependent file is not this commit's business
    hr = repo / "folders" / "hr.yaml"
    hr.write_text(hr.read_text() + "    - PFDB-GONE-LONG-AGO\n")
    git(repo, "commit", "-qam", "old defect")
    store = repo / "stores" / "a.yaml"
    store.write_text(store.read_text().replace("name: PFDB-A", "name: PFDB-A2"))
    code, report = hook("stores/a.yaml")
    assert code == 1 and not any("PFDB-GONE-LONG-AGO" in f["message"] for f in report["findings"])
    assert ("REP001", "folders/hr.yaml", 7) in where(report)


def test_dependents_are_found_from_the_cache(repo):
    hook("stores/b.yaml")  # fills the record cache
    git(repo, "rm", "-q", "stores/b.yaml")
    code, report = hook()
    assert code == 1 and where(report) == [("REP001", "folders/it.yaml", 7)]


@pytest.mark.parametrize("source", ["samples/broken", "generated"])
def test_one_file_with_root_reports_what_the_whole_run_reports(source, tmp_path):
    """The engine skips groups, partner indexes and references with no record of a
    reported file (speed); the findings on each file must stay those of a
    whole-estate run."""
    from linter.runner import Options, lint

    if source == "generated":
        estate = tmp_path / "gen"
        result = CliRunner().invoke(cli, ["generate", "--servers", "20", "--seed", "3", "--defect-rate", "0.3",
                                          "--format", "yaml", "--output", str(estate)])
        assert result.exit_code == 0, result.output
    else:
        estate = Path(__file__).resolve().parent.parent / source
    whole = lint(Options([str(estate)], use_cache=False)).findings
    files = sorted({f.file for f in whole if f.file})
    assert len(files) >= 5 and len(whole) >= 20
    for file in files:
        alone = lint(Options([file], root=str(estate), use_cache=False)).findings
        assert [f for f in alone if f.file == file] == [f for f in whole if f.file == file], file
