"""The hook, proven with the real pre-commit tool in a scratch git repository
whose .pre-commit-config.yaml points at this repository at its current commit."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ESTATE = REPO / "samples" / "estate"

pytestmark = pytest.mark.slow


def run(*args, cwd, env=None, check=True):
    process = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if check and process.returncode != 0:
        raise AssertionError(f"{args} failed ({process.returncode}):\n{process.stdout}\n{process.stderr}")
    return process


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    if shutil.which("pre-commit") is None or shutil.which("git") is None:
        pytest.skip("pre-commit and git are needed (pip install 'exlint[test]')")
    head = run("git", "rev-parse", "HEAD", cwd=REPO).stdout.strip()
    dirty = run("git", "status", "--porcelain", "--", ".pre-commit-hooks.yaml", "linter", "rules", "schemas",
                "pyproject.toml", cwd=REPO).stdout.strip()
    if dirty and not os.environ.get("CI"):
        pytest.skip("uncommitted changes in the package: pre-commit installs the committed revision")
    work = tmp_path_factory.mktemp("precommit")
    repo = work / "config-repo"
    shutil.copytree(ESTATE, repo)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {head}\n    hooks:\n      - id: exlint\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(work / "cache"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid", "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    run("git", "init", "-q", "-b", "main", cwd=repo, env=env)
    run("git", "add", "-A", cwd=repo, env=env)
    run("git", "commit", "-q", "-m", "estate", cwd=repo, env=env)
    return repo, env


def test_clean_estate_passes(scratch):
    repo, env = scratch
    result = run("pre-commit", "run", "--all-files", cwd=repo, env=env, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "exlint" in result.stdout and "Passed" in result.stdout


def test_broken_file_fails_with_positioned_findings(scratch):
    repo, env = scratch
    store = next((repo / "stores").glob("*.yaml"))
    original = store.read_text()
    try:
        store.write_text(original + "  sever: EX-TYPO\n")
        run("git", "add", str(store), cwd=repo, env=env)
        run("git", "commit", "-q", "--no-verify", "-m", "broken", cwd=repo, env=env)
        result = run("pre-commit", "run", "--all-files", cwd=repo, env=env, check=False)
        assert result.returncode == 1, result.stdout
        relative = store.relative_to(repo).as_posix()
        line = len(original.splitlines()) + 1
        assert f"{relative}:{line}:3: EXL003 [error] unknown field 'sever' in spec; did you mean 'server'?" \
            in result.stdout, result.stdout
    finally:
        store.write_text(original)
        run("git", "add", str(store), cwd=repo, env=env)
        run("git", "commit", "-q", "--no-verify", "-m", "fixed", cwd=repo, env=env)


def test_single_staged_file_resolves_references_into_unchanged_files(scratch):
    repo, env = scratch
    folders = sorted((repo / "folders").glob("*.yaml"))[0]
    original = folders.read_text()
    try:
        # only this file is staged; the stores and servers it names are in other, unchanged files
        folders.write_text(original + "\n# reviewed\n")
        run("git", "add", str(folders), cwd=repo, env=env)
        result = run("pre-commit", "run", cwd=repo, env=env, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        # and a replica naming a store that exists nowhere is still caught from that one file
        import yaml

        first = next(d for d in yaml.safe_load_all(original) if d and d["spec"].get("replicas"))
        store = first["spec"]["replicas"][0]
        assert store in original
        folders.write_text(original.replace(store, "PFDB-DOES-NOT-EXIST", 1))
        run("git", "add", str(folders), cwd=repo, env=env)
        result = run("pre-commit", "run", cwd=repo, env=env, check=False)
        assert result.returncode == 1 and "REP001" in result.stdout, result.stdout
    finally:
        folders.write_text(original)
        run("git", "add", str(folders), cwd=repo, env=env)
