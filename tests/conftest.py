"""Test-wide isolation: the record cache goes to a temporary directory, never
to the user's ~/.cache; no JVM class-data archive unless a test asks for one."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # helpers shared by tests below: installed.py


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "exlint-cache"))
    # the driver JVM's class-data archive (engines/spark/driver_jvm.py) is written by a
    # first run (~10 s, one line on standard error): on only where a test turns it on
    monkeypatch.setenv("EXLINT_JVM_CACHE", "0")
