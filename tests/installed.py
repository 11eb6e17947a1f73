"""exlint as a user installs it: the wheel built from the tracked files, installed
(not editable) into a fresh virtual environment; and a `python3` that cannot
import exlint, for a PATH like a cron job's or a CI container's."""
from __future__ import annotations

import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build_wheel(work: Path) -> Path:
    """The wheel of a copy of the tracked files only: what a clean checkout holds."""
    source, wheels = work / "source", work / "wheels"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels), str(source)], check=True)
    return next(wheels.glob("exlint-*.whl"))


def install_wheel(work: Path, extra: str = "") -> Path:
    """A fresh virtual environment with the wheel installed; its python. The
    environment sees the test interpreter's packages (PySpark is 400 MB: not
    downloaded again), after its own, so exlint comes from the wheel."""
    if shutil.which("git") is None:
        raise RuntimeError("git is needed to copy the checkout")
    wheel = build_wheel(work)
    environment = work / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(environment)
    python = environment / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]]) if p != own]
    (Path(own) / "_outer_packages.pth").write_text("\n".join(outer) + "\n", encoding="utf-8")
    requirement = f"{wheel}[{extra}]" if extra else str(wheel)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index",
                    requirement], check=True)
    return python


def bare_python_dir(work: Path) -> Path:
    """A directory whose `python3` is a virtual environment's with no packages (not even exlint)."""
    bare = work / "bare-venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(bare)
    directory = work / "bare-bin"
    directory.mkdir()
    wrapper = directory / "python3"
    # a wrapper, not a symlink: a symlink outside the environment would resolve to the base interpreter
    wrapper.write_text(f'#!/bin/sh\nexec "{bare / "bin" / "python3"}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return directory
