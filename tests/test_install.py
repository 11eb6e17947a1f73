"""A non-editable install (the built wheel) works from another directory: rule
packs and schemas ship inside the wheel."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# the installed package, not a checkout on PYTHONPATH, is what runs
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the checkout")
    work = tmp_path_factory.mktemp("install")
    wheels = work / "wheels"
    # build from a copy of the tracked files only: what a clean checkout holds
    source = work / "source"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels), str(source)], check=True)
    wheel = next(wheels.glob("exlint-*.whl"))
    environment = work / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(environment)
    python = environment / "bin" / "python"
    _share_dependencies(python)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                    str(wheel)], check=True)
    return python, wheel, work


def _share_dependencies(python: Path) -> None:
    """Make the running interpreter's packages (exlint's dependencies) visible to
    the fresh environment, after its own site-packages: when the suite itself runs
    in a virtual environment, ``system_site_packages`` reaches only the base
    interpreter's, which may hold none of them. The wheel installed in the fresh
    environment still comes first, so the test exercises it, not the checkout."""
    import site

    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    shared = [p for p in [*site.getsitepackages(), site.getusersitepackages()] if Path(p).is_dir()]
    # plain directories only: the .pth files of an editable install of this checkout are not read from here
    Path(target, "zz-test-shared-dependencies.pth").write_text("\n".join(shared) + "\n")


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
