"""A whole number written as a float (``5000.0``: how JSON exports, and Parquet's
doubles, write numbers) means the number: every rule's examples, with each
integer written so, raise the same rules at the same places."""
from __future__ import annotations

import pytest
import yaml

from linter.estate import build_estate
from linter.loading import load_text
from linter.policy.examples import example_documents
from linter.policy.packs import load_rules

RULES = load_rules()


def _floated(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {key: _floated(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_floated(item) for item in value]
    return value


def _findings(documents) -> list[tuple]:
    from linter.engines.local import LocalEngine

    files = [load_text(yaml.safe_dump(d, sort_keys=False, allow_unicode=True), f"example/{i:02d}.yaml")
             for i, d in enumerate(documents)]
    estate = build_estate(files)
    found = list(estate.findings) + LocalEngine(estate, RULES).run()
    return sorted((f.rule, f.file, f.line, f.path) for f in found)


CASES = [pytest.param(rule, example, id=f"{rule.id}-{kind}{index}")
         for rule in RULES.values() for kind in ("bad", "good")
         for index, example in enumerate(rule.examples.get(kind) or [])]


@pytest.mark.parametrize("rule,example", CASES)
def test_whole_numbers_written_as_floats_mean_the_numbers(rule, example):
    documents, raw = example_documents(example)
    if raw is not None:
        pytest.skip("a raw text example")
    assert _findings([_floated(d) for d in documents]) == _findings(documents)


def test_a_fraction_is_still_no_integer():
    from linter.model.tables import convert

    assert convert("int", 5000.0) == 5000 and convert("size", 30000.0) == 30000
    assert convert("version", 2010.0) == convert("version", 2010)
    assert convert("int", 5000.5) is None and convert("int", float("inf")) is None
