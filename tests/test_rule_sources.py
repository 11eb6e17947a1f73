"""Every rule cites a document a user can look up: a title and a publisher,
never a file of the project's research notes or an internal specification."""
from __future__ import annotations

import re

import pytest

from linter.policy.packs import PackError, load_rules, parse_rule, _Validator
from linter.model.tables import load_tables

RULES = load_rules()
INTERNAL = re.compile(r"seed|\b\d{3}_[0-9a-f]{16}\.txt|input-model|\bfact F\d|\bF\d{1,2}\b|schemas/", re.I)


@pytest.mark.parametrize("rule", RULES.values(), ids=lambda r: r.id)
def test_source_names_title_and_publisher(rule):
    assert rule.source.get("title"), rule.id
    assert rule.source.get("publisher"), rule.id
    assert rule.source["title"] in rule.source_text() and rule.source["publisher"] in rule.source_text()


@pytest.mark.parametrize("rule", RULES.values(), ids=lambda r: r.id)
def test_source_names_no_internal_document(rule):
    assert not INTERNAL.search(rule.source_text()), rule.source_text()
    assert not INTERNAL.search(" ".join(rule.source)), rule.source


def test_exchange_rules_cite_published_exchange_documents():
    """Rules about Exchange behaviour cite Microsoft or a published Exchange article;
    only the input rules (EXL, REP005) cite exlint's own documentation."""
    own = {r.id for r in RULES.values() if r.source.get("publisher") == "exlint project"}
    assert own <= {f"EXL{n:03d}" for n in range(1, 11)} | {"REP005"}
    urls = [r.source.get("url") for r in RULES.values() if r.source.get("url")]
    assert all(u.startswith("https://") for u in urls)


def test_seed_style_source_is_rejected():
    raw = {"id": "ZZZ001", "title": "t", "severity": "info", "summary": "s", "rationale": "r",
           "source": {"seed": "004_6b7b89465959af8c.txt"}, "form": "builtin", "message": "m"}
    with pytest.raises(PackError, match="unknown source keys"):
        parse_rule(raw, _Validator(load_tables()))


def test_sarif_help_and_html_report_carry_the_citation():
    from linter.reports import sarif

    rule = RULES["DUP001"]
    markdown = sarif._rule_descriptor(rule, None)["help"]["markdown"]
    assert "MSExchangeGuru.com" in markdown and "https://msexchangeguru.com/2013/04/22/transport/" in markdown
    assert "004_" not in markdown
