"""Every rule's own examples: the bad one raises exactly that rule, the good one
does not (and raises no other error or warning), on top of a base estate that
is itself clean."""
from __future__ import annotations

import pytest

from linter.policy.examples import check_example, run_example
from linter.policy.packs import load_rules

RULES = load_rules()
CASES = [
    pytest.param(rule, kind, index, example, id=f"{rule.id}-{kind}{index}")
    for rule in RULES.values()
    for kind in ("bad", "good")
    for index, example in enumerate(rule.examples.get(kind) or [])
]


def test_base_estate_is_clean():
    assert run_example({"patch": {}}, RULES) == []


def test_every_rule_except_suppression_bookkeeping_has_examples():
    missing = [r.id for r in RULES.values() if r.id != "EXL010" and not (r.examples.get("bad") and r.examples.get("good"))]
    assert missing == []


@pytest.mark.parametrize("rule,kind,index,example", CASES)
def test_rule_example(rule, kind, index, example):
    assert check_example(rule, kind, example, RULES) is None
