"""The `unique` check form: records sharing a `key` (default: the name) with another
record (see linter.forms)."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from linter.engines.scope import Scope, derive
from linter.findings import Finding
from linter.forms.errors import expression
from linter.policy.locate import field_path

if TYPE_CHECKING:
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.policy.packs import Check, Rule

NAME = "unique"
KEYS = ("key",)  # the check keys of this form (beside the keys every check has)
WHEN_REQUIRED = False  # whether a check of this form needs `when`


def parse(check: "Check", merged: dict, ctx: dict, validator, where: str, rule_id: str) -> dict | None:
    table = validator.tables[check.table]
    check.key = tuple(expression(k, where) for k in (merged.get("key") or ["name"]))
    for k in check.key:
        validator.check(k, table, ctx, where)
    ctx["count"] = None
    ctx["group"] = None
    return None


# -- the local engine ----------------------------------------------------------------------
def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    table = engine.tables[check.table]
    groups: dict[tuple, list[tuple[dict, Scope]]] = defaultdict(list)

    def key_of(scope):
        key = tuple(engine.evaluator.eval(k, scope) for k in check.key)
        return None if any(part is None for part in key) else key

    for record, scope, key in engine.member_rows(check, key_of):
        if key is not None:
            groups[key].append((record, scope))
    out = []
    for members in groups.values():
        if len(members) < 2 or not engine.touches_focus(members):
            continue
        names = sorted((r["name__text"] or "" for r, _ in members), key=lambda n: (n.lower(), n))
        for record, scope in members:
            inner = derive(scope, aggregates={"count": len(members), "group": names})
            if engine.true(check.when, inner):
                out.append(engine.finding(rule, check, inner, field_path(table, check.field)))
    return out


# -- Spark SQL -----------------------------------------------------------------------------
def spark(model: "Model", rule: "Rule", check: "Check") -> list[str]:
    """The query of the check's findings (one, as a list: every form's `spark` gives queries)."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Frame, INT, LIST, Rec, Scope, Val
    from linter.engines.spark.forms import fires_when, finding, fired
    from linter.engines.spark.sqltext import q

    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    names = [a + f"k{i}" for i in range(len(check.key))]
    extras = {a + "w": fires_when(frame, check.where, scope)}
    extras.update({n: frame.compile(k, scope).sql for n, k in zip(names, check.key)})
    l, r = model.lambda_var(), model.lambda_var()
    order = (f"({l}, {r}) -> CASE WHEN lower({l}) < lower({r}) THEN -1 WHEN lower({l}) > lower({r}) THEN 1 "
             f"WHEN {l} < {r} THEN -1 WHEN {l} > {r} THEN 1 ELSE 0 END")

    def members(parent: str) -> str:
        # each row with the count and names of the rows sharing its key: a window over
        # the key (one shuffle), not a grouping joined back (a shuffle and a join more)
        present = " AND ".join([q(a + "w")] + [f"{q(n)} IS NOT NULL" for n in names])
        rows = f"SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {present}"
        window = f"PARTITION BY `_est`, {', '.join(q(n) for n in names)}"
        counted = (f"SELECT *, count(1) OVER ({window}) AS {q(a + 'count')}, "
                   f"array_sort(collect_list(coalesce(`name__text`, '')) OVER ({window}), {order}) AS {q(a + 'group')} "
                   f"FROM ({rows}) AS {q(a + 'rows')}")
        return f"SELECT * FROM ({counted}) AS {q(a + 'counted')} WHERE {q(a + 'count')} >= 2"

    inner = frame.derived_base(members, extras)
    scope = replace(scope, aggregates={"count": Val(q(a + "count"), INT), "group": Val(q(a + "group"), LIST)})
    relative = field_path(scope.record.table, check.field)
    return [fired(inner, [f"CASE WHEN {fires_when(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])]
