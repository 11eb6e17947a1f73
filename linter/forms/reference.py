"""The `reference` check form: a `field` naming no record of table `target` (by
`target_key`, among the `target_where` ones) (see linter.forms)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from linter.engines.scope import Scope, derive
from linter.findings import Finding
from linter.forms.errors import PackError, expression
from linter.policy.expr import Node
from linter.policy.locate import field_path

if TYPE_CHECKING:
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.model.tables import TableSpec
    from linter.policy.packs import Check, Rule

NAME = "reference"
KEYS = ("target", "target_key", "target_where", "required", "repeats")  # the check keys of this form (beside the keys every check has)
WHEN_REQUIRED = False  # whether a check of this form needs `when`


def parse(check: "Check", merged: dict, ctx: dict, validator, where: str, rule_id: str) -> dict | None:
    tables = validator.tables
    check.target = merged.get("target")
    if check.target not in tables:
        raise PackError(f"{rule_id}: unknown target table {check.target!r}")
    if not check.field:
        raise PackError(f"{rule_id}: a reference check needs `field`")
    check.target_key = merged.get("target_key", "name")
    check.target_where = expression(merged["target_where"], where) if "target_where" in merged else None
    validator.check(check.target_where, tables[check.target], {}, where)
    check.required = bool(merged.get("required", False))
    # a list's entries that repeat an earlier entry (the first of each value stays: it is
    # the one a `remove_item: duplicate` fix keeps); one finding per entry to remove
    check.repeats = merged.get("repeats", False)
    if not isinstance(check.repeats, bool):
        raise PackError(f"{rule_id}: `repeats` must be true or false")
    field_spec = tables[check.table].fields.get(check.field)
    if check.repeats and (field_spec is None or not field_spec.is_list):
        raise PackError(f"{rule_id}: `repeats` needs a list field, and {check.field!r} is not one")
    ctx["value"] = None
    return None


# -- the local engine ----------------------------------------------------------------------
def _target_keys(engine: "LocalEngine", check: Check, target_table: TableSpec) -> set:
    """The keys a reference may resolve to; shared by checks with the same target."""
    memo = engine.__dict__.setdefault("_key_sets", {})
    memo_key = (check.target, check.target_key, id(check.target_where))
    if memo_key not in memo:
        key_node = Node("field", (check.target_key,))
        keys = set()
        for target in engine.estate.tables[check.target]:
            tscope = Scope(target, target_table)
            key = engine.evaluator.eval(key_node, tscope)
            if key is not None and engine.true(check.target_where, tscope):
                keys.add(key)
        memo[memo_key] = (check.target_where, keys)  # the node is kept so its id stays unique
    return memo[memo_key][1]


def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    table = engine.tables[check.table]
    target_table = engine.tables[check.target]
    spec = table.fields.get(check.field)
    rows = engine.rows(check, focused=True)
    keys = _target_keys(engine, check, target_table) if rows else set()
    out = []
    for record, scope in rows:
        # `when` sees the record and the entry's value and text only: an entry written again
        # is judged once (REP005's count over the list, per repeat, was quadratic: 4,000
        # entries of two stores took 153 s)
        verdicts: dict = {}
        value = engine.evaluator.field(record, check.field)
        text = record.get(check.field + "__text")
        if spec is not None and spec.is_list:
            texts = text if isinstance(text, list) else value or []
            pairs = [(v, t, spec.path + (i,)) for i, (v, t) in enumerate(zip(value or [], texts))]
            if check.repeats:
                seen: set = set()
                pairs = [pair for pair in pairs if pair[0] in seen or seen.add(pair[0])]
        else:
            pairs = [(value, text, field_path(table, check.field))]
        for v, t, path in pairs:
            if v is None:
                if not check.required or (spec is not None and spec.is_list):
                    continue
            elif v in keys:
                continue
            inner = derive(scope, value=v, value_text=t)
            try:
                fires = verdicts.get((v, t))
                if fires is None:
                    fires = verdicts[(v, t)] = engine.true(check.when, inner)
            except TypeError:  # an entry that is no name (unhashable): judged on its own
                fires = engine.true(check.when, inner)
            if fires:
                out.append(engine.finding(rule, check, inner, path))
    return out


# -- Spark SQL -----------------------------------------------------------------------------
def spark(model: "Model", rule: "Rule", check: "Check") -> list[str]:
    """The query of the check's findings (one, as a list: every form's `spark` gives queries)."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Bound, explode_items, Frame, Rec, Scope, STR, Val
    from linter.engines.spark.forms import fires_when, finding, fired, Index
    from linter.engines.spark.sqltext import q
    from linter.policy.expr import Node

    table = model.tables[check.table]
    target = model.tables[check.target]
    a = model.alias()
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", table))
    where = fires_when(frame, check.where, scope)
    spec = table.fields.get(check.field)
    value = frame.field(scope.record, check.field)
    if spec is not None and spec.is_list:
        rows, position, iv, it = explode_items(frame, value.sql, value.text, where=where, skip_missing=True)
        if check.repeats:  # an earlier entry holds the same value (slice: the first `position` entries)
            var = model.lambda_var()
            earlier = f"exists(slice({value.sql}, 1, {q(position)}), {var} -> {var} = {q(iv)})"
            rows = rows.derived_base(lambda parent: f"SELECT * FROM ({parent}) AS {q(a + 'rp')} WHERE {earlier}")
        relative = spec.path + (Index(position),)
        bound = Val(q(iv), STR, q(it), STR, name=iv)
    else:
        v, t = a + "v", a + "t"
        extras = {v: value.sql, t: value.text or "CAST(NULL AS STRING)", a + "w": where}
        condition = q(a + "w") if check.required else f"{q(a + 'w')} AND {q(v)} IS NOT NULL"
        rows = frame.derived_base(lambda parent: f"SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {condition}",
                                  extras)
        relative = field_path(table, check.field)
        bound = Val(q(v), value.type, q(t), STR, name=v)
    hint = model.broadcast_hint(*([a + "keys"] if model.broadcast(check.target) else []))
    if check.target_key == "name" and check.target_where is None:
        # the target's names are its navigation lookup (kept already, one record per
        # name): joined whole, as navigation joins it, so that every query naming the
        # table shares one broadcast and no key set is aggregated per check
        keys_view = q(model.dedup_view(check.target))
        inner = rows.derived_base(
            lambda parent: f"SELECT {hint}{q(a + 'r')}.* FROM ({parent}) AS {q(a + 'r')} "
                           f"LEFT JOIN {keys_view} AS {q(a + 'keys')} "
                           f"ON `_est` = {q(a + 'keys')}.`_k_est` AND {bound.sql} = {q(a + 'keys')}.`_k_name` "
                           f"WHERE {q(a + 'keys')}.`_k_name` IS NULL")
    else:  # the key set of the target records that qualify
        target_frame = Frame.over(model, check.target)
        target_scope = Scope(Rec("", target))
        key = target_frame.compile(Node("field", (check.target_key,)), target_scope)
        target_where = fires_when(target_frame, check.target_where, target_scope)
        keys = target_frame.select([f"DISTINCT `_est` AS {q(a + 'e')}", f"{key.sql} AS {q(a + 'key')}"],
                                   where=f"({target_where}) AND ({key.sql}) IS NOT NULL")
        inner = rows.derived_base(
            lambda parent: f"SELECT {hint}* FROM ({parent}) AS {q(a + 'r')} LEFT JOIN ({keys}) AS {q(a + 'keys')} "
                           f"ON `_est` = {q(a + 'e')} AND {bound.sql} = {q(a + 'key')} WHERE {q(a + 'key')} IS NULL")
    scope = replace(scope, value=Bound(bound, None))
    return [fired(inner, [f"CASE WHEN {fires_when(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])]
