"""Test-wide isolation: the record cache goes to a temporary directory, never
to the user's ~/.cache."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "exlint-cache"))
