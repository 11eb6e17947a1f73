"""README.md stays true: the quick tour's commands run as written from a
checkout, and the configuration example runs as copied."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")


def fenced(after_heading: str, language: str) -> str:
    """The first ```language block after a heading of README.md."""
    section = README[README.index(after_heading):]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"no {language} block after {after_heading!r}"
    return match.group(1)


def tour_commands() -> list[str]:
    return [line[2:].split("  #")[0].strip() for line in fenced("## A quick tour", "console").splitlines()
            if line.startswith("$ exlint ")]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """What the tour needs of a checkout, in a scratch copy (--fix edits files)."""
    work = tmp_path_factory.mktemp("tour")
    for folder in ("samples", "tests/importers/fixtures"):
        shutil.copytree(REPO / folder, work / folder)
    return work


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    assert words[0] == "exlint"
    target = None
    if ">" in words:  # `exlint schema X > file`
        target = cwd / words[words.index(">") + 1]
        words = words[:words.index(">")]
    expanded = []
    for word in words[1:]:  # the shell's globbing, as the README's reader has it
        matches = sorted(str(p.relative_to(cwd)) for p in cwd.glob(word)) if "*" in word else []
        expanded.extend(matches or [word])
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    process = subprocess.run([sys.executable, "-m", "linter", *expanded], cwd=cwd, env=env,
                             capture_output=True, text=True, timeout=600)
    if target is not None:
        target.write_text(process.stdout)
    return process


def test_the_tour_lists_the_commands_it_promises():
    commands = tour_commands()
    assert len(commands) >= 15
    assert any(c.startswith("exlint check --output report.html") for c in commands)


@pytest.mark.parametrize("command", [c for c in tour_commands() if not c.startswith("exlint estate")])
def test_tour_command_runs_as_written(checkout, command):
    process = run(command, checkout)
    # findings (exit 1) are the point of several commands; usage errors (2) and tracebacks never are
    assert process.returncode in (0, 1), f"{command}: {process.returncode}\n{process.stdout[-800:]}\n{process.stderr}"
    assert "Traceback" not in process.stderr


def test_tour_outputs_are_what_the_readme_shows(checkout):
    shown = fenced("## A quick tour", "console")
    clean = run("exlint check samples/estate", checkout)
    assert clean.returncode == 0 and clean.stdout.strip() in shown
    broken = run("exlint check --no-cache samples/broken", REPO)
    assert broken.returncode == 1 and broken.stdout.strip().splitlines()[-1] in shown
    assert broken.stdout.splitlines()[0] in shown
    # every finding the tour shows is one the run prints ("..." stands for what it leaves out)
    printed = broken.stdout.splitlines()
    for line in shown.splitlines():
        if line.startswith("samples/broken/"):
            shape = re.compile(".*".join(re.escape(part) for part in line.split("...")))
            assert any(shape.fullmatch(p) for p in printed), line


@pytest.mark.spark
def test_tour_estate_command_runs_as_written(tmp_path):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Java is needed for the estate job")
    checkout = tmp_path  # a reader's fresh directory: `generate` refuses to overwrite the other tests' estate.jsonl
    for command in tour_commands():
        if command.startswith("exlint generate") or command.startswith("exlint estate"):
            process = run(command, checkout)
            assert process.returncode in (0, 1), f"{command}\n{process.stderr[-2000:]}"


def test_configuration_example_runs_as_copied(tmp_path):
    config = fenced("## Configuration", "yaml")
    shutil.copytree(REPO / "samples" / "estate", tmp_path / "estate")
    (tmp_path / "estate" / ".exlint.yaml").write_text(config)
    process = run("exlint check --verbose estate", tmp_path)
    assert process.returncode == 0, process.stdout + process.stderr
    assert f"configuration {tmp_path / 'estate' / '.exlint.yaml'}" in process.stderr
