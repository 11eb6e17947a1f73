"""One rule failing never sinks the estate job: a rule whose Spark query fails
to analyse, or fails while it runs, becomes one EXL000 finding naming it, and
every other finding is the same as without it. EXL000 is never hidden by
selection. The local engine does the same for a check that raises."""
from __future__ import annotations

from pathlib import Path

import pytest
from parity import run_spark, tree_spec

from linter.config import Config, ConfigError, check_rule_ids
from linter.engines.spark import job
from linter.findings import RULE_FAILED
from linter.policy.packs import load_rules

ROOT = Path(__file__).resolve().parents[2]

# the broken query, written where the rule's ID is: it fails at analysis (a column
# no table has) or only when a row fires (raise_error), after other rules ran
BREAKAGES = {
    "analysis": "CAST(`exlint_no_such_column` AS STRING)",
    "runtime": "CASE WHEN raise_error('exlint test: a rule made to fail') IS NULL THEN '{rule}' END",
}


@pytest.fixture(scope="module")
def estate():
    return tree_spec("samples", ROOT / "samples" / "broken", ROOT)


@pytest.fixture(scope="module")
def normal(spark, estate, tmp_path_factory):
    found, _, failures = run_spark(spark, [estate], load_rules(), tmp_path_factory.mktemp("normal"))
    assert not failures
    return found["samples"]


def _victim(normal) -> str:
    """A rule of a built-in pack (not a loader rule) with findings on the samples."""
    fired = sorted({f[0] for f in normal if not f[0].startswith("EXL")})
    assert fired, "the samples should raise rule findings"
    return fired[len(fired) // 2]


@pytest.mark.parametrize("how", sorted(BREAKAGES))
def test_a_rule_that_fails_on_spark_is_one_exl000_and_the_rest_stand(spark, estate, normal, how, monkeypatch,
                                                                       tmp_path):
    victim = _victim(normal)
    original = job.rule_findings
    literal = f"'{victim}'"

    def sabotaged(model, rules, **options):
        parts, failures = original(model, rules, **options)
        broken = BREAKAGES[how].format(rule=victim)
        return [part.replace(literal, broken) for part in parts], failures

    monkeypatch.setattr(job, "rule_findings", sabotaged)
    found, _, failures = run_spark(spark, [estate], load_rules(), tmp_path)
    assert [rule for rule, _ in failures] == [victim]
    failed = sorted(f for f in found["samples"] if f[0] == RULE_FAILED)
    assert len(failed) == 1 and failed[0][2].startswith(f"rule {victim} failed: cannot run on Spark: "), failed
    assert "Traceback" not in failed[0][2] and "\n" not in failed[0][2]
    if how == "runtime":
        assert "a rule made to fail" in failed[0][2]
    rest = {f for f in found["samples"] if f[0] != RULE_FAILED}
    assert rest == {f for f in normal if f[0] != victim}


@pytest.mark.parametrize("how", ["analysis", "runtime"])
def test_a_kept_view_of_a_rule_that_fails_is_that_rules_exl000(spark, estate, normal, how, monkeypatch, tmp_path):
    """What a rule's query reads more than once is kept once the rules are compiled
    (Model.kept_view: RTE005's reach rows); one that fails to analyse, or fails while it
    is computed on its own thread, is that rule's failure, not the job's."""
    from linter.engines.spark import model as model_module

    original = model_module.Model.kept_view
    kept = []

    def failing(self, text, label="kept"):
        kept.append(label)
        if how == "analysis":
            text = f"SELECT *, CAST(`exlint_no_such_column` AS STRING) AS `x` FROM ({text}) AS `t`"
        else:
            text = f"SELECT * FROM ({text}) AS `t` WHERE raise_error('exlint test: a kept view fails') IS NULL"
        return original(self, text, label)

    monkeypatch.setattr(model_module.Model, "kept_view", failing)
    found, _, failures = run_spark(spark, [estate], load_rules(), tmp_path)
    assert "reach_rows" in kept, "the estate no longer has a rule that keeps a view"
    assert [rule for rule, _ in failures] == ["RTE005"]
    failed = [f for f in found["samples"] if f[0] == RULE_FAILED]
    assert len(failed) == 1 and failed[0][2].startswith("rule RTE005 failed: cannot run on Spark: "), failed
    rest = {f for f in found["samples"] if f[0] != RULE_FAILED}
    assert rest == {f for f in normal if f[0] != "RTE005"}


def test_exl000_is_never_hidden_by_selection(spark, estate, normal, monkeypatch, tmp_path):
    victim = _victim(normal)
    other = next(r for r in sorted({f[0] for f in normal}) if r != victim and not r.startswith("EXL"))
    original = job.rule_findings

    def sabotaged(model, rules, **options):
        parts, failures = original(model, rules, **options)
        return [p.replace(f"'{victim}'", BREAKAGES["analysis"]) for p in parts], failures

    monkeypatch.setattr(job, "rule_findings", sabotaged)
    config = Config(select=[victim, other], ignore=["EXL"])
    found, _, _ = run_spark(spark, [estate], load_rules(), tmp_path, config)
    assert {f[0] for f in found["samples"]} == {RULE_FAILED, other}


def test_a_failing_spark_that_no_rule_causes_is_not_blamed_on_a_rule(spark, estate, monkeypatch, tmp_path):
    """The whole query failing while each rule runs alone: the job's own failure, raised."""
    calls = []

    def failing_evaluate(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("exlint test: the union fails, every rule alone works")

    monkeypatch.setattr(job, "_evaluate", failing_evaluate)
    rules = dict(sorted(load_rules().items())[:3])  # each rule alone is probed: a few will do
    with pytest.raises(RuntimeError, match="the union fails"):
        run_spark(spark, [estate], rules, tmp_path)
    assert calls == [1]


def test_a_model_table_that_fails_is_the_runs_failure_not_the_rules(spark, estate, monkeypatch, tmp_path):
    """The model's tables are computed on threads of their own while the rules compile
    (Model.keep); one that fails is the run's failure, raised as when the build computed
    it itself, not an EXL000 for each rule that reads it."""
    from linter.engines.spark import model as model_module

    original = model_module.Model.with_facts

    def failing(self, name, view):
        text = original(self, name, view)
        if name != "Hierarchy":
            return text
        return f"SELECT * FROM ({text}) AS `t` WHERE raise_error('exlint test: a model table fails') IS NULL"

    probed = []
    original_alone = job.run_alone

    def run_alone(model, rules):
        probed.append(sorted(rules))
        return original_alone(model, rules)

    monkeypatch.setattr(model_module.Model, "with_facts", failing)
    monkeypatch.setattr(job, "run_alone", run_alone)
    settings = ("spark.sql.defaultSizeInBytes", "spark.sql.autoBroadcastJoinThreshold", "spark.sql.adaptive.enabled")
    before = {key: spark.conf.get(key, None) for key in settings}
    with pytest.raises(Exception, match="a model table fails"):
        run_spark(spark, [estate], load_rules(), tmp_path)
    assert probed == [], "the model's failure was first blamed on the rules reading it"
    # the failed run's layout settings do not outlive it in the session
    assert {key: spark.conf.get(key, None) for key in settings} == before


def test_exl000_cannot_be_selected_ignored_or_regraded():
    rules = load_rules()
    for config, select, ignore in [(Config(), (), ("EXL000",)), (Config(severity={"EXL000": "info"}), (), ()),
                                   (Config(select=["exl000"]), (), ())]:
        with pytest.raises(ConfigError, match="EXL000 .* cannot be selected, ignored or re-graded"):
            check_rule_ids(config, set(rules), select, ignore)
    assert Config(select=["REP001"], ignore=["EXL"]).enabled(RULE_FAILED)
