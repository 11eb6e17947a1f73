"""The local engine's rows: checks that share a `where` evaluate it once per table
(LocalEngine.rows), keyed by its text so that constants Python compares equal
(1 and true) stay apart; and the findings are those of evaluating it per check."""
from __future__ import annotations

from pathlib import Path

from linter.engines.local import LocalEngine
from linter.estate import build_estate
from linter.loading import load_text
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[1]
RULE = """
- id: {id}
  title: t
  severity: warning
  summary: s
  rationale: r
  fix_hint: f
  source: {{note: test}}
  table: Server
  where: "{where}"
  when: "{when}"
  field: version
  message: "{id} {{name}}"
  examples: {{bad: [{{}}], good: [{{}}]}}
"""
ESTATE = """
apiVersion: exlint/v1
kind: Server
metadata: {name: EX1}
spec: {version: "2010", site: London, roles: [Mailbox]}
---
apiVersion: exlint/v1
kind: Server
metadata: {name: EX2}
spec: {version: "2007", site: London, roles: [Mailbox]}
"""


def _rules(tmp_path, rules: dict) -> dict:
    (tmp_path / "pack.yaml").write_text("".join(RULE.format(id=i, where=w, when=c) for i, (w, c) in rules.items()))
    loaded = load_rules([tmp_path])
    return {rule_id: loaded[rule_id] for rule_id in rules}


def _fired(rules: dict, text: str = ESTATE) -> list[tuple]:
    estate = build_estate([load_text(text, "estate.yaml")])
    return sorted((f.rule, f.message) for f in LocalEngine(estate, rules).run())


def test_checks_sharing_a_where_evaluate_it_once(tmp_path, monkeypatch):
    rules = _rules(tmp_path, {"XRW001": ("version >= 2010", "name == 'ex1'"),
                              "XRW002": ("version >= 2010", "name != 'ex2'"),
                              "XRW003": ("version < 2010", "name == 'ex2'")})  # names compare lower-cased
    evaluated = []
    original = LocalEngine._matching_rows
    monkeypatch.setattr(LocalEngine, "_matching_rows",
                        lambda self, check, focused: evaluated.append(repr(check.where)) or original(self, check, focused))
    assert _fired(rules) == [("XRW001", "XRW001 EX1"), ("XRW002", "XRW002 EX1"), ("XRW003", "XRW003 EX2")]
    assert sorted(evaluated) == sorted({repr(rules["XRW001"].checks[0].where), repr(rules["XRW003"].checks[0].where)})


def test_wheres_whose_constants_python_compares_equal_stay_apart(tmp_path):
    # True == 1 in Python, so the two wheres' syntax trees compare equal; their text does not
    rules = _rules(tmp_path, {"XRW011": ("name + True == 'ex1true'", "True"),
                              "XRW012": ("name + 1 == 'ex1true'", "True")})
    assert _fired(rules) == [("XRW011", "XRW011 EX1")]


def test_the_samples_give_the_findings_of_a_where_evaluated_per_check(monkeypatch):
    rules = load_rules()
    text = "\n---\n".join(p.read_text() for p in sorted((REPO / "samples" / "broken").rglob("*.yaml")))
    shared = _fired(rules, text)
    monkeypatch.setattr(LocalEngine, "rows", lambda self, check, focused=False: self._matching_rows(check, focused))
    assert shared == _fired(rules, text) and shared
