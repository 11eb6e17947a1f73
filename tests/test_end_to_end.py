"""The gate in a realistic config repo, as a new user builds it from README.md:
estate/ beside .pre-commit-config.yaml, .github/workflows/, mkdocs.yml,
docker-compose.yml and an Ansible playbook, in a git repository; the real
pre-commit tool installs the hook from this repository (README's snippet, at
the current commit) and the CI line runs exactly as README prints it, with the
console script pre-commit installed (issue 18)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from test_readme import fenced

REPO = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = REPO / "tests" / "vendor" / "sarif-schema-2.1.0.json"  # see tests/vendor/NOTICE.md
STORE = "estate/stores/pfdb-ex03-nyc-01.yaml"
STORE_NAME = "PFDB-EX03-NYC-01"

pytestmark = pytest.mark.slow

OTHER_TOOLS = {
    "mkdocs.yml": "site_name: Exchange estate\ntheme: {name: material}\nnav:\n  - Home: index.md\n"
                  "markdown_extensions:\n  - toc:\n      permalink: true\n",
    "docker-compose.yml": "services:\n  docs:\n    image: squidfunk/mkdocs-material:9\n    ports: ['127.0.0.1:8000:8000']\n"
                          "    volumes: ['.:/docs']\n",
    "ansible/playbook.yml": "- name: Apply public folder settings\n  hosts: exchange\n  gather_facts: false\n"
                            "  tasks:\n    - name: Set replication schedule\n      ansible.windows.win_shell: |\n"
                            "        Set-PublicFolderDatabase -Identity PFDB-EX03-NYC-01 -ReplicationPeriod 15\n",
    "ansible/inventory.yaml": "all:\n  hosts:\n    ex03-nyc-01: {ansible_host: 127.0.0.1}\n",
}


def run(*args, cwd, env, check=True, shell=False):
    process = subprocess.run(args[0] if shell else list(args), cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=900, shell=shell, executable="/bin/bash" if shell else None)
    if check and process.returncode != 0:
        raise AssertionError(f"{args} failed ({process.returncode}):\n{process.stdout}\n{process.stderr}")
    return process


def readme_hook_snippet(head: str) -> str:
    """README's .pre-commit-config.yaml, pointed at this checkout at its commit."""
    snippet = fenced("## pre-commit", "yaml")
    assert re.search(r"^\s+- repo: \S+", snippet, re.M) and re.search(r"^\s+rev: \S+", snippet, re.M)
    snippet = re.sub(r"(^\s+- repo: )\S+", lambda m: m.group(1) + str(REPO), snippet, count=1, flags=re.M)
    return re.sub(r"(^\s+rev: )\S+", lambda m: m.group(1) + head, snippet, count=1, flags=re.M)


def readme_ci_line() -> str:
    workflow = fenced("## CI (GitHub Actions)", "yaml")
    (line,) = [l.strip()[len("- run: "):] for l in workflow.splitlines() if l.strip().startswith("- run: exlint ")]
    return line


@pytest.fixture(scope="module")
def config_repo(tmp_path_factory):
    if shutil.which("pre-commit") is None or shutil.which("git") is None:
        pytest.skip("pre-commit and git are needed (pip install 'exlint[test]')")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid", "NO_COLOR": "1"}
    for name in ("GITHUB_ACTIONS", "PYTHONPATH"):
        env.pop(name, None)
    head = run("git", "rev-parse", "HEAD", cwd=REPO, env=env).stdout.strip()
    dirty = run("git", "status", "--porcelain", "--", ".pre-commit-hooks.yaml", "linter", "rules", "schemas",
                "pyproject.toml", cwd=REPO, env=env).stdout.strip()
    if dirty and not os.environ.get("CI"):
        pytest.skip("uncommitted changes in the package: pre-commit installs the committed revision")
    work = tmp_path_factory.mktemp("e2e")
    env["PRE_COMMIT_HOME"] = str(work / "pre-commit-cache")
    env["EXLINT_CACHE_DIR"] = str(work / "exlint-cache")
    repo = work / "config-repo"
    shutil.copytree(REPO / "samples" / "estate", repo / "estate",
                    ignore=shutil.ignore_patterns(".exlint.yaml", "README.md"))
    (repo / ".exlint.yaml").write_text(fenced("## Configuration", "yaml"))
    (repo / ".pre-commit-config.yaml").write_text(readme_hook_snippet(head))
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "exlint.yml").write_text(fenced("## CI (GitHub Actions)", "yaml"))
    for name, text in OTHER_TOOLS.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    run("git", "init", "-q", "-b", "main", cwd=repo, env=env)
    run("git", "add", "-A", cwd=repo, env=env)
    run("git", "commit", "-q", "--no-verify", "-m", "estate", cwd=repo, env=env)
    run("pre-commit", "install", cwd=repo, env=env)
    first = run("pre-commit", "run", "--all-files", cwd=repo, env=env, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    (script,) = Path(env["PRE_COMMIT_HOME"]).glob("repo*/py_env-*/bin/exlint")
    return repo, env, script


def commit(repo: Path, env: dict, message: str) -> subprocess.CompletedProcess:
    result = run("git", "commit", "-q", "-m", message, cwd=repo, env=env, check=False)
    result.stdout += result.stderr  # where the hook's report lands depends on git
    return result


@pytest.fixture
def clean(config_repo):
    repo, env, script = config_repo
    yield repo, env, script
    run("git", "reset", "-q", "--hard", "HEAD", cwd=repo, env=env)


def references(repo: Path, name: str) -> set[tuple[str, int]]:
    """Where the estate's other files name ``name``: each is a broken reference once it is gone."""
    found = set()
    for path in sorted((repo / "estate").rglob("*.yaml")):
        relative = path.relative_to(repo).as_posix()
        if relative == STORE:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if name in line:
                found.add((relative, number))
    return found


def reported(output: str, rule: str = "REP001") -> set[tuple[str, int]]:
    return {(m.group(1), int(m.group(2))) for m in re.finditer(rf"^(\S+?):(\d+):\d+: {rule} \[error\]", output, re.M)}


def test_other_tools_files_produce_no_finding(clean):
    repo, env, script = clean
    body = json.loads(run(str(script), "check", "--format", "json", ".", cwd=repo, env=env).stdout)
    # OTHER_TOOLS, README's .pre-commit-config.yaml and its workflow in .github/ (hidden, walked all the same)
    assert body["findings"] == [] and body["summary"]["skipped"] == len(OTHER_TOOLS) + 2
    # the hook, given each of them as a changed file
    for name in [*OTHER_TOOLS, ".github/workflows/exlint.yml"]:
        with (repo / name).open("a") as handle:
            handle.write("# touched\n")
    run("git", "add", "-A", cwd=repo, env=env)
    result = commit(repo, env, "other tools")
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_ci_line_writes_sarif_that_validates(clean):
    repo, env, script = clean
    line = readme_ci_line()
    assert line == "exlint check . --format github --format sarif --output exlint.sarif"
    path_env = {**env, "PATH": f"{script.parent}{os.pathsep}{env['PATH']}"}
    result = run(line, cwd=repo, env=path_env, shell=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("exlint: 0 error(s)")  # the annotations' summary on the log, not SARIF
    document = json.loads((repo / "exlint.sarif").read_text())
    from jsonschema import Draft7Validator

    errors = list(Draft7Validator(json.loads(SARIF_SCHEMA.read_text())).iter_errors(document))
    assert not errors, errors[:3]
    assert document["runs"][0]["results"] == []
    # with a planted defect the same line fails, and the SARIF points at it
    folders = repo / "estate" / "folders" / "sales.yaml"
    folders.write_text(folders.read_text().replace(STORE_NAME, "PFDB-NOWHERE", 1))
    result = run(line, cwd=repo, env=path_env, shell=True, check=False)
    assert result.returncode == 1 and "::error file=estate/folders/sales.yaml" in result.stdout
    (item,) = json.loads((repo / "exlint.sarif").read_text())["runs"][0]["results"]
    assert item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "estate/folders/sales.yaml"
    assert not list(Draft7Validator(json.loads(SARIF_SCHEMA.read_text())).iter_errors(
        json.loads((repo / "exlint.sarif").read_text())))


def test_planted_rep001_fails_the_commit(clean):
    repo, env, _ = clean
    folders = repo / "estate" / "folders" / "sales.yaml"
    lines = folders.read_text().splitlines(keepends=True)
    number = next(i for i, l in enumerate(lines, start=1) if STORE_NAME in l)
    lines[number - 1] = lines[number - 1].replace(STORE_NAME, "PFDB-EX03-NYC-99")
    folders.write_text("".join(lines))
    run("git", "add", "-A", cwd=repo, env=env)
    result = commit(repo, env, "typo")
    assert result.returncode != 0
    assert ("estate/folders/sales.yaml", number) in reported(result.stdout), result.stdout


def test_renamed_store_fails_the_commit_in_unchanged_files(clean):
    repo, env, _ = clean
    store = repo / STORE
    store.write_text(store.read_text().replace(f"name: {STORE_NAME}", f"name: {STORE_NAME}-NEW"))
    expected = references(repo, STORE_NAME)
    assert len(expected) >= 5
    run("git", "add", "-A", cwd=repo, env=env)
    result = commit(repo, env, "rename the store")
    assert result.returncode != 0
    assert reported(result.stdout) == expected, result.stdout


def test_deleted_store_fails_the_commit(clean):
    repo, env, _ = clean
    expected = references(repo, STORE_NAME)
    run("git", "rm", "-q", STORE, cwd=repo, env=env)
    result = commit(repo, env, "remove the store")  # pre-commit passes no file: only a deletion is staged
    assert result.returncode != 0
    assert reported(result.stdout) == expected, result.stdout
