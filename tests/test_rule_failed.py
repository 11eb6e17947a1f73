"""A check that raises in the local engine is one EXL000 finding naming its
rule; the other rules' findings stand, and selection never hides it (the Spark
engine's side: tests/spark/test_rule_failure.py)."""
from __future__ import annotations

from pathlib import Path

from linter.engines.local import LocalEngine
from linter.findings import RULE_FAILED
from linter.runner import Options, lint

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "broken"


def _keys(findings):
    return {(f.rule, f.message, f.file, f.line, f.column) for f in findings}


def test_a_check_that_raises_is_one_exl000_and_the_rest_stand(monkeypatch):
    normal = lint(Options([str(SAMPLES)], use_cache=False)).findings
    fired = sorted({f.rule for f in normal if not f.rule.startswith("EXL")})
    victim, other = fired[0], fired[-1]
    original = LocalEngine._run_check

    def failing(self, rule, check):
        if rule.id == victim:
            raise ZeroDivisionError("exlint test: a rule made to fail")
        return original(self, rule, check)

    monkeypatch.setattr(LocalEngine, "_run_check", failing)
    result = lint(Options([str(SAMPLES)], use_cache=False))
    failed = [f for f in result.findings if f.rule == RULE_FAILED]
    assert [f.message for f in failed] == [f"rule {victim} failed: ZeroDivisionError: exlint test: a rule made to fail"]
    assert _keys(f for f in result.findings if f.rule != RULE_FAILED) == _keys(f for f in normal if f.rule != victim)
    assert result.failed("error")
    # EXL000 is never hidden: selecting the failing rule and ignoring EXL still shows it (as on Spark)
    selected = lint(Options([str(SAMPLES)], select=(victim, other), ignore=("EXL",), use_cache=False))
    assert {f.rule for f in selected.findings} == {RULE_FAILED, other}
    # a rule the selection leaves out is not evaluated at all (as on Spark), so it cannot fail
    calls = []
    monkeypatch.setattr(LocalEngine, "_run_check", lambda self, rule, check: calls.append(rule.id) or original(self, rule, check))
    selected = lint(Options([str(SAMPLES)], select=(other,), use_cache=False))
    assert set(calls) == {other} and {f.rule for f in selected.findings} == {other}


def test_explain_exl000():
    from click.testing import CliRunner

    from linter.cli import cli

    result = CliRunner().invoke(cli, ["explain", "exl000"])
    assert result.exit_code == 0 and result.output.startswith("EXL000 [error] A rule could not run"), result.output
    assert "never hidden" in result.output
