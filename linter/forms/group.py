"""The `group` check form: records grouped by `group`, with counts and `aggregates` per
group; `when` and `report` per record (see linter.forms)."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from linter.engines.scope import Scope, derive
from linter.findings import Finding
from linter.forms.errors import PackError, expression
from linter.policy.locate import field_path

if TYPE_CHECKING:
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.policy.packs import Check, Rule

NAME = "group"
KEYS = ("group", "aggregates", "report")  # the check keys of this form (beside the keys every check has)
WHEN_REQUIRED = True  # whether a check of this form needs `when`


def parse(check: "Check", merged: dict, ctx: dict, validator, where: str, rule_id: str) -> dict | None:
    table = validator.tables[check.table]
    check.group = expression(merged.get("group"), where)
    validator.check(check.group, table, ctx, where)
    for name, spec in (merged.get("aggregates") or {}).items():
        if not isinstance(spec, dict) or len(spec) != 1:
            raise PackError(f"{rule_id}: aggregate {name!r} must be {{count: expr}} or {{distinct: expr}}")
        (fn, text), = spec.items()
        if fn not in ("count", "distinct"):
            raise PackError(f"{rule_id}: aggregate function {fn!r}; known: count, distinct")
        node = expression(text, where)
        validator.check(node, table, ctx, where)
        check.aggregates[name] = (fn, node)
        ctx[name] = None
    ctx["count"] = None
    check.report = expression(merged["report"], where) if "report" in merged else None
    validator.check(check.report, table, ctx, where)
    return None


# -- the local engine ----------------------------------------------------------------------
def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    table = engine.tables[check.table]
    groups: dict[Any, list[tuple[dict, Scope]]] = defaultdict(list)
    for record, scope, key in engine.member_rows(check, lambda scope: engine.evaluator.eval(check.group, scope)):
        if key is not None:
            groups[key].append((record, scope))
    out = []
    for members in groups.values():
        if not engine.touches_focus(members):
            continue  # its findings would all be on files not reported
        aggregates: dict[str, Any] = {"count": len(members)}
        for name, (fn, node) in check.aggregates.items():
            values = [engine.evaluator.eval(node, scope) for _, scope in members]
            if fn == "count":
                aggregates[name] = sum(1 for v in values if v is True)
            else:
                aggregates[name] = len({v for v in values if v is not None})
        for record, scope in members:
            if engine.focus is not None and record["_file"] not in engine.focus:
                continue
            inner = derive(scope, aggregates=aggregates)
            if engine.true(check.when, inner) and engine.true(check.report, inner):
                out.append(engine.finding(rule, check, inner, field_path(table, check.field)))
    return out


# -- Spark SQL -----------------------------------------------------------------------------
def spark(model: "Model", rule: "Rule", check: "Check") -> list[str]:
    """The query of the check's findings (one, as a list: every form's `spark` gives queries)."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Frame, INT, Rec, Scope, strict_true, Val
    from linter.engines.spark.forms import fires_when, finding, fired
    from linter.engines.spark.sqltext import q

    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    extras = {a + "w": fires_when(frame, check.where, scope), a + "g": frame.compile(check.group, scope).sql}
    types = {}
    for name, (_, node) in check.aggregates.items():
        val = frame.compile(node, scope)
        extras[a + "a_" + name] = val.sql
        types[name] = val.type
    # each member row with its group's aggregates: window functions over the group
    # (one shuffle), not a grouping joined back (a shuffle and a join more); a
    # distinct count is the size of the set of non-missing values, as count(DISTINCT)
    window = f"OVER (PARTITION BY `_est`, {q(a + 'g')})"
    aggs = [f"count(1) {window} AS {q(a + 'count')}"]
    for name, (fn, _) in check.aggregates.items():
        column = Val(q(a + "a_" + name), types[name])
        if fn == "count":
            aggs.append(f"sum(CASE WHEN {strict_true(column)} THEN 1 ELSE 0 END) {window} AS {q(a + 'n_' + name)}")
        else:
            aggs.append(f"size(collect_set({column.sql}) {window}) AS {q(a + 'n_' + name)}")

    def members(parent: str) -> str:
        rows = f"SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {q(a + 'w')} AND {q(a + 'g')} IS NOT NULL"
        return f"SELECT *, {', '.join(aggs)} FROM ({rows}) AS {q(a + 'rows')}"

    inner = frame.derived_base(members, extras)
    aggregates = {"count": Val(f"CAST({q(a + 'count')} AS BIGINT)", INT)}
    for name in check.aggregates:
        aggregates[name] = Val(f"CAST({q(a + 'n_' + name)} AS BIGINT)", INT)
    scope = replace(scope, aggregates=aggregates)
    fires = f"{fires_when(inner, check.when, scope)} AND {fires_when(inner, check.report, scope)}"
    relative = field_path(scope.record.table, check.field)
    return [fired(inner, [f"CASE WHEN {fires} THEN {finding(inner, rule, check, scope, relative)} END"])]
