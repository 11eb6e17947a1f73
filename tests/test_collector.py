"""linter/collector.py: the cyclic garbage collector is paused while exlint builds
its data (a third of a large `exlint check`), and always restored."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from linter import runner
from linter.collector import collector_paused

REPO = Path(__file__).resolve().parents[1]


def test_paused_inside_restored_after_even_on_failure_and_kept_paused_for_a_caller_that_paused_it():
    seen = []

    @collector_paused
    def work(fail: bool):
        seen.append(gc.isenabled())
        if fail:
            raise ValueError("fails")
        return "done"

    assert gc.isenabled()
    assert work(False) == "done"
    with pytest.raises(ValueError):
        work(True)
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        work(False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_lint_runs_with_the_collector_paused_and_gives_it_back(monkeypatch):
    seen = []
    real = runner._lint_one

    def spy(options, progress):
        seen.append(gc.isenabled())
        return real(options, progress)

    monkeypatch.setattr(runner, "_lint_one", spy)
    result = runner.lint(runner.Options(paths=[str(REPO / "samples" / "broken")], use_cache=False))
    assert seen == [False] and gc.isenabled()
    assert result.findings
