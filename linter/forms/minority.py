"""The `minority` check form: within each `partition`, the records outside the largest
`group` (ties: the smallest `tiebreak`) (see linter.forms)."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from linter.engines.scope import Scope, derive
from linter.findings import Finding
from linter.forms.errors import expression
from linter.policy.locate import field_path

if TYPE_CHECKING:
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.policy.packs import Check, Rule

NAME = "minority"
KEYS = ("partition", "group", "tiebreak")  # the check keys of this form (beside the keys every check has)
WHEN_REQUIRED = False  # whether a check of this form needs `when`


def parse(check: "Check", merged: dict, ctx: dict, validator, where: str, rule_id: str) -> dict | None:
    table = validator.tables[check.table]
    check.partition = expression(merged.get("partition"), where)
    check.group = expression(merged.get("group"), where)
    check.tiebreak = expression(merged.get("tiebreak", "name"), where)
    for node in (check.partition, check.group, check.tiebreak):
        validator.check(node, table, ctx, where)
    ctx.update({"count": None, "largest": None})
    return None


# -- the local engine ----------------------------------------------------------------------
def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    table = engine.tables[check.table]
    partitions: dict[Any, dict[Any, list]] = defaultdict(lambda: defaultdict(list))
    for record, scope, part in engine.member_rows(check, lambda scope: engine.evaluator.eval(check.partition, scope)):
        group = engine.evaluator.eval(check.group, scope)
        if part is None or group is None:
            continue
        partitions[part][group].append((record, scope))
    out = []
    for groups in partitions.values():
        if len(groups) < 2 or not any(engine.touches_focus(m) for m in groups.values()):
            continue
        def rank(item):
            members = item[1]
            ties = [engine.evaluator.eval(check.tiebreak, s) for _, s in members]
            ties = [t for t in ties if t is not None]
            return (-len(members), min(ties) if ties else "")
        winner_key, winner = min(groups.items(), key=rank)
        # the smallest tiebreak, and its text as written (for messages): min over (value, text)
        ties = [pair for pair in (_tiebreak(engine, check, s) for _, s in winner) if pair[0] is not None]
        largest, largest_text = min(ties, key=lambda pair: (pair[0], pair[1] or "")) if ties else (None, None)
        for key, members in groups.items():
            if key == winner_key:
                continue
            for record, scope in members:
                inner = derive(scope, aggregates={"count": len(members), "largest": largest,
                                                  "largest__text": largest_text})
                if engine.true(check.when, inner):
                    out.append(engine.finding(rule, check, inner, field_path(table, check.field)))
    return out


def _tiebreak(engine: "LocalEngine", check: Check, scope: Scope) -> tuple[Any, Any]:
    if check.tiebreak.op == "field":
        return engine.evaluator.nav(check.tiebreak.args, scope)
    return engine.evaluator.eval(check.tiebreak, scope), None


# -- Spark SQL -----------------------------------------------------------------------------
def spark(model: "Model", rule: "Rule", check: "Check") -> list[str]:
    """The query of the check's findings (one, as a list: every form's `spark` gives queries)."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Frame, INT, Rec, Scope, STR, Val
    from linter.engines.spark.forms import fires_when, finding, fired
    from linter.engines.spark.sqltext import q

    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    tie = frame.compile(check.tiebreak, scope)
    extras = {a + "w": fires_when(frame, check.where, scope), a + "p": frame.compile(check.partition, scope).sql,
              a + "g": frame.compile(check.group, scope).sql, a + "t": tie.sql,
              # the tiebreak as written (names are compared lower-cased, displayed as written)
              a + "x": f"CAST({tie.text if tie.text is not None else tie.sql} AS STRING)"}
    p, g, t, x = q(a + "p"), q(a + "g"), q(a + "t"), q(a + "x")
    e, pp, gg = q(a + "e"), q(a + "pp"), q(a + "gg")
    smallest = f"coalesce({q(a + 'min')}, '')" if tie.type == STR else f"{q(a + 'min')} ASC NULLS FIRST"

    def members(parent: str) -> str:
        rows = f"SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {q(a + 'w')} AND {p} IS NOT NULL AND {g} IS NOT NULL"
        groups = (f"SELECT `_est` AS {e}, {p} AS {pp}, {g} AS {gg}, count(1) AS {q(a + 'count')}, "
                  f"min({t}) AS {q(a + 'min')}, min(named_struct('v', {t}, 'x', {x})).x AS {q(a + 'minx')}, "
                  f"min(named_struct('f', `_file`, 'd', `_doc`, 'p', `_prefix`)) AS {q(a + 'first')} "
                  f"FROM {q(a + 'rows')} GROUP BY `_est`, {p}, {g}")
        window = f"PARTITION BY {e}, {pp}"
        ranked = (f"SELECT *, row_number() OVER ({window} ORDER BY {q(a + 'count')} DESC, {smallest}, "
                  f"{q(a + 'first')}) AS {q(a + 'rank')}, count(1) OVER ({window}) AS {q(a + 'groups')} "
                  f"FROM ({groups}) AS {q(a + 'gs')}")
        winners = (f"SELECT {e} AS {q(a + 'we')}, {pp} AS {q(a + 'wp')}, {q(a + 'min')} AS {q(a + 'largest')}, "
                   f"{q(a + 'minx')} AS {q(a + 'largestx')} "
                   f"FROM {q(a + 'ranked')} WHERE {q(a + 'rank')} = 1")
        losers = f"SELECT * FROM {q(a + 'ranked')} WHERE {q(a + 'rank')} > 1 AND {q(a + 'groups')} >= 2"
        return (f"WITH {q(a + 'rows')} AS ({rows}), {q(a + 'ranked')} AS ({ranked}) "
                # one join per SELECT: each SELECT's hint keeps its output in one partition (Model.join_hint)
                f"SELECT {model.join_hint()}* FROM (SELECT {model.join_hint()}* FROM {q(a + 'rows')} "
                f"JOIN ({losers}) AS {q(a + 'lo')} ON `_est` = {e} AND {p} = {pp} AND {g} = {gg}) AS {q(a + 'rl')} "
                f"JOIN ({winners}) AS {q(a + 'wi')} ON `_est` = {q(a + 'we')} AND {p} = {q(a + 'wp')}")

    inner = frame.derived_base(members, extras)
    scope = replace(scope, aggregates={"count": Val(f"CAST({q(a + 'count')} AS BIGINT)", INT),
                                       "largest": Val(q(a + "largest"), tie.type, q(a + "largestx"), STR)})
    relative = field_path(scope.record.table, check.field)
    return [fired(inner, [f"CASE WHEN {fires_when(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])]
