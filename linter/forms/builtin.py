"""The `builtin` check form: what the loader and the validator report
(EXL001-EXL005: the pack documents them, no check runs), or, with
``runs: <name>``, a check each engine computes by a function of that name
(EXL008's ``organization_count``). Side by side: the keys, the local engine's
and the Spark engine's function of each name."""
from __future__ import annotations

from typing import TYPE_CHECKING

from linter.findings import Entity, Finding
from linter.forms.errors import PackError
from linter.policy.locate import locate

if TYPE_CHECKING:
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.policy.packs import Check, Rule

NAME = "builtin"
KEYS = ("runs",)
WHEN_REQUIRED = False

ORG_ABSENT = ("the estate has no Organization document: add one (kind: Organization) describing sites, hierarchies "
              "and transport settings")
ORG_SEVERAL = "the estate has {count} Organization documents; exactly one describes the organization: merge them"


def parse_runs(merged: dict, rule_id: str) -> str | None:
    """The ``runs`` of a builtin check (None: the loader's or validator's rule)."""
    runs = merged.get("runs")
    if runs is not None and runs not in CHECKS:
        raise PackError(f"{rule_id}: unknown builtin check {runs!r}; known: {', '.join(CHECKS)}")
    return runs


# -- the local engine ----------------------------------------------------------------------
def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    return CHECKS[check.runs][0](engine, rule) if check.runs else []


def _organization_count_local(engine: "LocalEngine", rule: "Rule") -> list[Finding]:
    """EXL008: no Organization (while the estate holds documents), or several."""
    count = engine.estate.organization_count
    if count == 1 or not engine.estate.has_documents:
        return []
    if count == 0:
        return [Finding(rule.id, rule.severity, ORG_ABSENT)]
    out = []
    for record in engine.estate.tables["Organization"]:
        path, line, column = locate(record, ("metadata", "name"))
        out.append(Finding(rule.id, rule.severity, ORG_SEVERAL.format(count=count), record["_file"],
                           line, column, path, Entity("Organization", record["_entity"])))
    return out


# -- Spark SQL -----------------------------------------------------------------------------
def spark(model: "Model", rule: "Rule", check: "Check") -> list[str]:
    """Queries of the check's findings (none for the loader's and validator's rules)."""
    return CHECKS[check.runs][1](model, rule) if check.runs else []


def _organization_count_spark(model: "Model", rule: "Rule") -> list[str]:
    """EXL008: no Organization (while the estate holds documents), or several."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from linter.engines.spark import forms
    from linter.engines.spark.compile import Rec
    from linter.engines.spark.sqltext import q, string

    parts = []
    absent = [est for est in model.estates
              if model.organizations.get(est, 0) == 0 and model.documents.get(est, 0) > 0]
    if absent:  # about no record: no position (forms.place)
        values = ", ".join(f"({est})" for est in absent)
        parts.append(f"SELECT `_est`, CAST(NULL AS BIGINT) AS `_rid`, {string(rule.id)} AS `rule`, "
                     f"{string(rule.severity)} AS `severity`, {string(ORG_ABSENT)} AS `message`, "
                     f"CAST(array() AS ARRAY<STRING>) AS `cands` FROM VALUES {values} AS t(`_est`)")
    if any(count > 1 for count in model.organizations.values()):
        view = q(model.view("Organization"))
        cands = forms.candidates(Rec("", model.tables["Organization"]), ("metadata", "name"))
        before, _, after = ORG_SEVERAL.partition("{count}")
        parts.append(f"SELECT {model.join_hint()}`_est`, `_rid`, {string(rule.id)} AS `rule`, "
                     f"{string(rule.severity)} AS `severity`, "
                     f"concat({string(before)}, CAST(`_oc` AS STRING), {string(after)}) AS `message`, "
                     f"{cands} AS `cands` "
                     f"FROM {view} JOIN (SELECT `_est` AS `_oe`, count(1) AS `_oc` FROM {view} GROUP BY `_est` "
                     f"HAVING count(1) > 1) AS `c` ON `_est` = `_oe`")
    return parts


# name -> (local engine function, Spark function)
CHECKS = {"organization_count": (_organization_count_local, _organization_count_spark)}
