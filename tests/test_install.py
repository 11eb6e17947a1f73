"""A non-editable install (the built wheel) works from another directory: rule
packs and schemas ship inside the wheel."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from installed import install_wheel

REPO = Path(__file__).resolve().parent.parent
# the installed package, not a checkout on PYTHONPATH, is what runs
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the checkout")
    work = tmp_path_factory.mktemp("install")
    python = install_wheel(work)
    return python, next((work / "wheels").glob("exlint-*.whl")), work


def test_wheel_contains_rules_and_schemas(installed):
    import zipfile

    _, wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("linter/_data/rules/") and n.endswith(".yaml") for n in names)
    assert "linter/_data/schemas/common.json" in names


def test_installed_exlint_runs_from_another_directory(installed):
    python, _, work = installed
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(python), "-c", "import linter; print(linter.__file__)"],
                           cwd=elsewhere, env=CLEAN_ENV, capture_output=True, text=True, check=True).stdout
    assert str(work / "venv") in where, where
    exlint = work / "venv" / "bin" / "exlint"
    clean = subprocess.run([str(exlint), "check", "--format", "json", str(REPO / "samples" / "estate")],
                           cwd=elsewhere, env=CLEAN_ENV, capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    summary = json.loads(clean.stdout)["summary"]
    assert summary["error"] == 0 and summary["warning"] == 0
    broken = subprocess.run([str(exlint), "check", str(REPO / "samples" / "broken")],
                            cwd=elsewhere, env=CLEAN_ENV, capture_output=True, text=True)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    rules = subprocess.run([str(exlint), "rules", "--format", "json"], cwd=elsewhere, env=CLEAN_ENV,
                           capture_output=True, text=True, check=True)
    assert len(json.loads(rules.stdout)) >= 60
    module = subprocess.run([str(python), "-m", "linter", "schema", "Server"], cwd=elsewhere, env=CLEAN_ENV,
                            capture_output=True, text=True, check=True)
    assert json.loads(module.stdout)["title"].endswith("Server")
