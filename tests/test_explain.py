"""`exlint explain` as a user reads it: every rule's page has the parts of
ruff's (what it does, why, example, use instead, options, fix, references),
and the examples it prints are complete documents that lint as they claim
when pasted into the example estate."""
from __future__ import annotations

import re

import pytest
import yaml
from click.testing import CliRunner

from linter.cli import cli
from linter.docs import _examples, explain_text
from linter.policy.examples import base_documents, check_example
from linter.policy.packs import load_rules

RULES = load_rules()
CASES = [pytest.param(rule, label, text, id=f"{rule.id}-{label.split()[0].lower()}")
         for rule in RULES.values() for label, text in _examples(rule)]
REMOVED = re.compile(r"^# removed from the estate: (.*)$", re.M)


def pasted(text: str) -> dict:
    """The estate a user gets by pasting the printed text into the example
    estate as a file of its own: its documents replace those of the same kind
    and name, and the documents it says were removed are gone."""
    try:
        documents = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        documents = []
    keys = {f"{d.get('kind')}/{(d.get('metadata') or {}).get('name')}" for d in documents}
    removed = {k.replace(" ", "/", 1) for line in REMOVED.findall(text) for k in line.split(", ")}
    base = {f"{d['kind']}/{d['metadata']['name']}" for d in base_documents()}
    return {"delete": sorted((keys | removed) & base), "yaml": text + "\n"}


@pytest.mark.parametrize("rule,label,text", CASES)
def test_printed_example_lints_as_it_claims(rule, label, text):
    kind = "bad" if label == "Example" else "good"
    assert check_example(rule, kind, pasted(text), RULES) is None


@pytest.mark.parametrize("rule,label,text", CASES)
def test_printed_example_is_complete_yaml(rule, label, text):
    assert not re.search(r"^[A-Za-z]+/[^\s:]+:", text, re.M), "a Kind/Name: patch, not a document"
    assert "''" not in text and "\\n" not in text, "escaped text instead of the YAML itself"
    if rule.id not in ("EXL001", "EXL002"):  # these show raw text on purpose
        for document in yaml.safe_load_all(text):
            assert {"apiVersion", "kind", "metadata", "spec"} <= set(document)


@pytest.mark.parametrize("rule", RULES.values(), ids=lambda r: r.id)
def test_page_has_the_parts_of_a_ruff_page(rule):
    page = explain_text(rule)
    for part in ("What it does", "Why it matters", "Fix: ", "References"):
        assert f"\n{part}" in page, part
    if rule.examples.get("bad"):
        assert "\nExample\n" in page and "\nUse instead\n" in page
    for name, default in rule.option_defaults.items():
        assert f"{name} (default {default})" in page


def test_options_are_shown_with_their_defaults_not_the_configured_values():
    rules = load_rules(options={"DUP002": {"threshold_hours": 336}})
    assert rules["DUP002"].options == {"threshold_hours": 336}
    assert "threshold_hours (default 168)" in explain_text(rules["DUP002"])


def test_explain_command_prints_the_page():
    result = CliRunner().invoke(cli, ["explain", "dup001"])
    assert result.exit_code == 0
    assert result.output == explain_text(RULES["DUP001"])
    assert "Track Duplicates (in hours): 5000" in result.output


def test_explain_a_prefix_lists_its_rules():
    result = CliRunner().invoke(cli, ["explain", "dup"])
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.splitlines() if line.startswith("DUP")]
    assert listed == sorted(r for r in load_rules() if r.startswith("DUP")) and len(listed) >= 5


@pytest.mark.parametrize("value", ["", " , "])
def test_an_empty_select_is_a_usage_error_not_every_rule(value):
    result = CliRunner().invoke(cli, ["check", "--select", value, "."])
    assert result.exit_code == 2 and "needs a rule ID or prefix" in result.output


@pytest.mark.parametrize("value", ["", "   "])
def test_explain_an_empty_id_is_a_usage_error_not_every_rule(value):
    result = CliRunner().invoke(cli, ["explain", value])
    assert result.exit_code == 2 and "RULE_ID is empty" in result.output


def test_explain_ignores_surrounding_spaces_and_a_prefix_lists_the_built_in_exl000():
    assert CliRunner().invoke(cli, ["explain", " DUP001 "]).output == explain_text(RULES["DUP001"])
    result = CliRunner().invoke(cli, ["explain", "EXL00"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines() if line.startswith("EXL")][0] == "EXL000"
