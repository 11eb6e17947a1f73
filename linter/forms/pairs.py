"""The `pairs` check form: each record with each record of table `with` sharing the
`join` key (`other`), or with a `profile` of them (see linter.forms)."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from linter.engines.scope import SCOPED_NAMES, Scope, derive, hashable
from linter.estate import record_order
from linter.findings import Finding
from linter.forms import pairs_reach
from linter.forms.errors import PackError, expression
from linter.policy.expr import field_paths
from linter.policy.locate import field_path

if TYPE_CHECKING:
    from linter.engines.spark.compile import Frame
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.policy.packs import Check, Rule

NAME = "pairs"
KEYS = ("with", "join", "profile", "other_when")  # the check keys of this form (beside the keys every check has)
WHEN_REQUIRED = True  # whether a check of this form needs `when`


def parse(check: "Check", merged: dict, ctx: dict, validator, where: str, rule_id: str) -> dict | None:
    """Returns the context of messages and severities when it differs from `when`'s
    (with a profile, `when` reads the profile and messages the partner too)."""
    tables = validator.tables
    table = tables[check.table]
    check.with_table = merged.get("with")
    if check.with_table not in tables:
        raise PackError(f"{rule_id}: unknown `with` table {check.with_table!r}")
    join = merged.get("join") or {}
    left, right = expression(join.get("left"), where), expression(join.get("right"), where)
    validator.check(left, table, ctx, where)
    validator.check(right, tables[check.with_table], {}, where)
    check.join = (left, right)
    ctx["other"] = tables[check.with_table]
    profile = merged.get("profile") or {}
    if not isinstance(profile, dict):
        raise PackError(f"{rule_id}: `profile` must map names to expressions over the `with` record")
    for name, text in profile.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise PackError(f"{rule_id}: profile name {name!r} is not an identifier")
        node = expression(text, where)
        validator.check(node, tables[check.with_table], {}, where)
        check.profile[name] = node
    if "other_when" in merged:
        if not profile:
            raise PackError(f"{rule_id}: `other_when` needs a `profile` (without one, `when` reads `other`)")
        check.other_when = expression(merged["other_when"], where)
        validator.check(check.other_when, table, {**ctx, "profile": dict(profile)}, where)
    if profile:
        # `when` runs once per profile: it may read profile.<name>, not the partner itself;
        # messages and severities are per finding (partner and profile both known)
        finding_ctx = {**ctx, "profile": dict(profile)}
        del ctx["other"]
        ctx["profile"] = dict(profile)
        return finding_ctx
    return None


# -- the local engine ----------------------------------------------------------------------
def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    table = engine.tables[check.table]
    other_table = engine.tables[check.with_table]
    left, right = check.join
    rows = engine.rows(check, focused=True)
    if not rows:
        return []  # no record of a reported file: no partner index to build
    others: dict[Any, list[dict]] = defaultdict(list)
    for other in engine.estate.tables[check.with_table]:
        key = engine.evaluator.eval(right, Scope(other, other_table))
        if key is not None:
            others[key].append(other)
    if check.profile:
        return _profile_pairs(engine, rule, check, others, rows)
    out = []
    for record, scope in rows:
        key = engine.evaluator.eval(left, scope)
        if key is None:
            continue
        for other in sorted(others.get(key, ()), key=record_order):
            inner = derive(scope, other=other, other_table=other_table)
            if engine.true(check.when, inner):
                out.append(engine.finding(rule, check, inner, field_path(table, check.field)))
    return out


def _profile_pairs(engine: "LocalEngine", rule: "Rule", check: "Check", others: dict[Any, list[dict]],
                   rows: list[tuple[dict, Scope]]) -> list[Finding]:
    """Pairs whose `when` reads only the partner's profile: evaluated once per
    distinct profile among a record's partners, then `other_when` per partner of
    a profile that fired. The same findings as `when and other_when` over every
    pair, at the cost of records x profiles instead of records x partners."""
    table = engine.tables[check.table]
    other_table = engine.tables[check.with_table]
    names = list(check.profile)
    grouped: dict[Any, dict[tuple, tuple[dict, list[dict]]]] = {}
    for key, members in others.items():
        profiles: dict[tuple, tuple[dict, list[dict]]] = {}
        for other in members:
            scope = Scope(other, other_table)
            values = {n: engine.evaluator.eval(check.profile[n], scope) for n in names}
            identity = tuple(hashable(values[n]) for n in names)
            profiles.setdefault(identity, (values, []))[1].append(other)
        grouped[key] = profiles
    left = check.join[0]
    # `when` reads the record only through these fields (and the estate, which is fixed):
    # records with equal values share its result, per profile
    reads = sorted({p[0] for p in field_paths(check.when) if p[0] not in SCOPED_NAMES | {"profile"}}) \
        if check.when is not None else []
    # the conjuncts of `when` that read the profile alone, once per profile (as on Spark),
    # and a reach term's index (linter.forms.pairs_reach): `when` then runs on the
    # profiles the term holds for, without it, not on every site of the hierarchy
    alone = _profile_conjuncts(check.when)
    record_only = _record_conjuncts(check.when)
    pools: dict[Any, list] = {}
    reach = pairs_reach.find(check.when)
    index = pairs_reach.LocalIndex(engine, reach) if reach is not None and engine.estate.graph is not None else None
    rest = pairs_reach.rest(check.when, reach) if index is not None else None
    # per distinct (join key, fields `when` reads): the profiles for which it fires
    firing: dict[tuple, list] = {}
    out = []
    engine.evaluator.item_memo = {}
    try:
        for record, scope in rows:
            key = engine.evaluator.eval(left, scope)
            if key is None:
                continue
            profiles = grouped.get(key)
            if not profiles:
                continue
            try:
                seen = (key,) + tuple(hashable(engine.evaluator.field(record, name)) for name in reads)
                fired = firing.get(seen)
            except TypeError:
                seen = fired = None
            if fired is None and record_only is not None and not engine.true(record_only, scope):
                fired = []  # `when` cannot hold for any profile
            if fired is None:
                pool = pools.get(key)
                if pool is None:
                    pool = pools[key] = [
                        (values, members) for values, members in profiles.values()
                        if alone is None or engine.true(alone, derive(scope, aggregates={**scope.aggregates, "profile": values}))]
                fired = []
                for values, members, decided in (index.candidates(pool, scope) if index is not None
                                                 else [(v, m, False) for v, m in pool]):
                    inner = derive(scope, aggregates={**scope.aggregates, "profile": values})
                    if engine.true(rest if decided else check.when, inner):
                        fired.append((values, members))
                if seen is not None:
                    firing[seen] = fired
            for values, members in fired:
                inner = derive(scope, aggregates={**scope.aggregates, "profile": values})
                for other in sorted(members, key=record_order):
                    pair = derive(inner, other=other, other_table=other_table)
                    if check.other_when is None or engine.true(check.other_when, pair):
                        out.append(engine.finding(rule, check, pair, field_path(table, check.field)))
    finally:
        engine.evaluator.item_memo = None
    return out


# -- Spark SQL -----------------------------------------------------------------------------
OTHER = "_o_"


def spark(model: "Model", rule: "Rule", check: "Check") -> list[str]:
    """The query of the check's findings (one, as a list: every form's `spark` gives queries)."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Frame, Rec, Scope
    from linter.engines.spark.forms import fires_when, finding, fired
    from linter.engines.spark.model import KEYS
    from linter.engines.spark.sqltext import q

    if check.profile:
        return [_spark_profile_pairs(model, rule, check)]
    other_table = model.tables[check.with_table]
    left_node = check.join[0]
    others = _spark_partners(model, check, Frame.over(model, check.with_table), [])
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    extras = {a + "w": fires_when(frame, check.where, scope), a + "key": frame.compile(left_node, scope).sql}
    hint = model.join_hint(*([a + "o"] if model.broadcast(check.with_table) else []))
    inner = frame.derived_base(
        lambda parent: f"SELECT {hint}* FROM (SELECT * FROM ({parent}) AS {q(a + 'in')} "
                       f"WHERE {q(a + 'w')} AND {q(a + 'key')} IS NOT NULL) AS {q(a + 'r')} JOIN ({others}) AS {q(a + 'o')} "
                       f"ON `_est` = {q(OTHER + '_est')} AND {q(a + 'key')} = {q(OTHER + '_key')}", extras)
    inner.keys = KEYS + [OTHER + "_rid"]
    scope = replace(scope, other=Rec(OTHER, other_table))
    relative = field_path(scope.record.table, check.field)
    return [fired(inner, [f"CASE WHEN {fires_when(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])]


def _spark_partners(model: "Model", check: "Check", other_frame: "Frame", columns: list[str]) -> str:
    """SQL of the `with` records that have a join key: every column but where it is
    written (a finding is placed on the record paired with, forms.place) renamed with
    the OTHER prefix, the key as `_o__key`, plus ``columns``."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from linter.engines.spark.compile import Rec, Scope
    from linter.engines.spark.records import POSITION
    from linter.engines.spark.sqltext import q

    right = other_frame.compile(check.join[1], Scope(Rec("", model.tables[check.with_table])))
    renamed = [f"{q(other_frame.alias)}.{q(c)} AS {q(OTHER + c)}" for c in model.columns[check.with_table]
               if c not in POSITION]
    return other_frame.select(renamed + [f"{right.sql} AS {q(OTHER + '_key')}"] + columns,
                              where=f"({right.sql}) IS NOT NULL")


def _spark_profile_pairs(model: Model, rule: "Rule", check: "Check") -> str:
    """Pairs with a profile (``_profile_pairs`` above): the partners' distinct
    profiles per join key are a small broadcast table; `when` runs once per
    distinct (join key, values of the columns it reads) and profile; the rows
    that fire are joined back to their records and to the partners of that
    profile, where `other_when` picks the findings. The rows formed are distinct
    records x profiles plus findings, never records x partners."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Frame, Rec, Scope, Val
    from linter.engines.spark.forms import fires_when, finding, fired
    from linter.engines.spark.model import KEYS
    from linter.engines.spark.sqltext import STR, q
    from linter.policy.expr import field_paths

    other_table = model.tables[check.with_table]
    table = model.tables[check.table]
    left_node = check.join[0]
    a = model.alias()
    other_frame = Frame.over(model, check.with_table)
    other_scope = Scope(Rec("", other_table))
    columns: list[str] = []  # profile columns (values and texts), as named in the partners' rows
    profile_values: dict[str, Val] = {}  # as named in the rows paired with a profile
    profile_names: list[str] = []
    for name, node in check.profile.items():
        val = other_frame.compile(node, other_scope)
        column = OTHER + "p_" + name
        columns.append(f"{val.sql} AS {q(column)}")
        profile_names.append(column)
        text = None
        if val.text is not None:
            columns.append(f"{val.text} AS {q(column + '__t')}")
            profile_names.append(column + "__t")
            text = q(a + column + "__t")
        profile_values[name] = Val(q(a + column), val.type, text, val.text_type if text else None)
    others_view = model._view_name(f"{check.with_table}_profiled")
    model.sql(_spark_partners(model, check, other_frame, columns)).createOrReplaceTempView(others_view)
    picked = ", ".join([f"{q(OTHER + '_est')} AS {q(a + 'pe')}", f"{q(OTHER + '_key')} AS {q(a + 'pk')}"]
                       + [f"{q(c)} AS {q(a + c)}" for c in profile_names])
    profiles = f"SELECT DISTINCT {picked} FROM {q(others_view)}"
    # the conjuncts of `when` that read the profile alone filter the profiles before
    # they are paired with records (exact: `when` still runs on every pair formed):
    # RTE005's custom-list check then pairs records with the few custom profiles, not
    # with every site's (at 7,500 servers ~6,000 rows instead of ~4 million)
    alone = _profile_conjuncts(check.when)
    if alone is not None:
        profile_frame = Frame(model, f"({profiles})", [a + "pe", a + "pk"])
        possible = fires_when(profile_frame, alone, Scope(Rec("", table), aggregates={"profile": profile_values}))
        if not profile_frame.steps:  # a plain filter (no lookup joined for it)
            profiles = f"SELECT * FROM ({profiles}) AS {q(a + 'pp')} WHERE {possible}"

    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", table))
    # the conjuncts of `when` that read the record alone (and the organization) filter
    # the records before they are paired (exact: `when` still runs on every pair):
    # RTE005's site check stands down in an estate with a site link it cannot read,
    # where 72,000 folders paired with the sites beyond their replicas' reach were a
    # million rows at the independent 10,000 servers, and 14,454 sites at 100,000
    # made it a hundred million
    record_only = _record_conjuncts(check.when)
    selected = fires_when(frame, check.where, scope)
    if record_only is not None:
        selected = f"({selected}) AND ({fires_when(frame, record_only, scope)})"
    extras = {a + "w": selected, a + "key": frame.compile(left_node, scope).sql}
    # `when` reads the record only through these columns: it runs once per distinct
    # (estate, key, these values) and profile, on a representative row (the smallest
    # row id, whose own lists find their arrays precomputed per list position), as
    # the local ``_profile_pairs`` shares verdicts between equal records
    reads = sorted({path[0] for path in field_paths(check.when) if path[0] in model.columns[check.table]}
                   if check.when is not None else set())
    # a list `when` reads only as any()/all() of one navigation from its items (RTE005:
    # any(replicas, ... item.server.site ...)) counts by the set of those values: folders
    # with other replicas on the same sites share a verdict (at 7,500 servers 1,213
    # distinct sets of sites against 5,945 distinct replica lists); the representative
    # row keeps its own list, which `when` reads
    # (the set leaves a missing entry out, as any/all skip it, and keeps NULL for an
    # entry whose navigation finds nothing: two lists that differ only by a missing
    # entry share a verdict)
    represented = []
    carried = []
    item_paths = _item_paths(check.when, model, table)
    for name, path in item_paths.items():
        reads.remove(name)
        # the representative's array of those values rides along: joined per pair
        # instead, it hashed the whole list once per distinct row and profile (a tenth
        # of RTE005's time at a second independent generator's 10,000 servers)
        values, key, join = frame.carried_items(Rec("", table), name, path)
        carried.append((key, join))
        # the values of the entries that are there (any/all skip a missing entry; an
        # entry whose navigation finds nothing is NULL and kept)
        x, y = model.lambda_var(), model.lambda_var()
        present = f"flatten(filter(zip_with({q(name)}, {values}, ({x}, {y}) -> IF({x} IS NULL, NULL, array({y}))), " \
                  f"{x} -> {x} IS NOT NULL))"
        extras[a + "is_" + name] = f"sort_array(array_distinct({present}))"
        reads.append(a + "is_" + name)
        represented += [c for c in (name, name + "__text") if model.has(check.table, c)] + [join.alias + "rec"]
    representative = "".join(f", min_by({q(c)}, `_rid`) AS {q(c)}" for c in represented)
    reads += [c + "__text" for c in reads if model.has(check.table, c + "__text")]
    read_columns = "".join(f", {q(c)}" for c in reads)
    # Adaptive execution sizes the partitions by the distinct rows, a few thousand,
    # and would put them in one task, yet each becomes a row per profile here (the
    # bulk of the rule's work): spread them over the shuffle partitions.
    distinct = (f"SELECT {model.spread_hint()}`_est`, min(`_rid`) AS `_rid`, {q(a + 'key')}{read_columns}"
                f"{representative} FROM ({frame.relation(extras=extras)}) "
                f"AS {q(a + 'all')} WHERE {q(a + 'w')} AND {q(a + 'key')} IS NOT NULL "
                f"GROUP BY `_est`, {q(a + 'key')}{read_columns}")
    paired = None
    reach = pairs_reach.find(check.when)
    if reach is not None and reach.field in item_paths and profile_values[reach.profile].type == STR:
        paired = pairs_reach.spark_by_profile(
            model, reach, distinct, ["_est", "_rid", a + "key"] + reads + represented, a + "key",
            a + "is_" + reach.field, profiles, a + "pe", a + "pk",
            [a + c for c in profile_names], a + OTHER + "p_" + reach.profile)
    when = check.when
    if paired is None:  # every profile of the key
        paired = (f"SELECT {model.join_hint(a + 'p')}* FROM ({distinct}) AS {q(a + 'd')} "
                  f"JOIN ({profiles}) AS {q(a + 'p')} ON `_est` = {q(a + 'pe')} AND {q(a + 'key')} = {q(a + 'pk')}")
    else:  # the profiles the reach term holds for: `when` runs without it
        when = pairs_reach.rest(check.when, reach)
    by_profile = Frame(model, f"({paired})", KEYS + [a + c for c in profile_names])
    for key, join in carried:
        by_profile.carry(key, join)
    when_scope = replace(scope, aggregates={"profile": profile_values})
    fires = fires_when(by_profile, when, when_scope)
    fired_rows = by_profile.select(
        [f"`_est` AS {q(a + 'fe')}", f"{q(a + 'key')} AS {q(a + 'fk')}"]
        + [f"{q(c)} AS {q(a + 'f_' + c)}" for c in reads] + [q(a + c) for c in profile_names], where=fires)
    same_record = "".join(f" AND {q(c)} <=> {q(a + 'f_' + c)}" for c in reads)
    same_profile = "".join(f" AND {q(a + c)} <=> {q(c)}" for c in profile_names)
    # one join per SELECT: each SELECT's hint keeps its output in one partition (Model.join_hint)
    inner = frame.derived_base(
        lambda parent: f"SELECT {model.join_hint(*([a + 'o'] if model.broadcast(check.with_table) else []))}* "
                       f"FROM (SELECT {model.join_hint(a + 'f')}* FROM (SELECT * FROM ({parent}) AS {q(a + 'in')} "
                       f"WHERE {q(a + 'w')} AND {q(a + 'key')} IS NOT NULL) AS {q(a + 'r')} "
                       f"JOIN ({fired_rows}) AS {q(a + 'f')} ON `_est` = {q(a + 'fe')} AND {q(a + 'key')} = {q(a + 'fk')}"
                       f"{same_record}) AS {q(a + 'rf')} "
                       f"JOIN {q(others_view)} AS {q(a + 'o')} ON `_est` = {q(OTHER + '_est')} "
                       f"AND {q(a + 'key')} = {q(OTHER + '_key')}{same_profile}", extras)
    inner.keys = KEYS + [OTHER + "_rid"]
    pair_scope = replace(scope, other=Rec(OTHER, other_table), aggregates={"profile": profile_values})
    relative = field_path(table, check.field)
    return fired(inner, [f"CASE WHEN {fires_when(inner, check.other_when, pair_scope)} THEN "
                         f"{finding(inner, rule, check, pair_scope, relative)} END"])


def _profile_conjuncts(node):
    """The part of a `when` (its top-level `and` terms) that reads nothing but the
    profile (fields, constants, comparisons, not/and/or/if): None when no term does."""
    return _conjuncts(node, _reads_profile_only)


def _record_conjuncts(node):
    """The part of a `when` (its top-level `and` terms) that reads neither the profile
    nor the partner: None when no term does."""
    from linter.policy.expr import walk

    return _conjuncts(node, lambda term: not any(n.op == "field" and n.args[0] in ("profile", "other")
                                                 for n in walk(term)))


def _conjuncts(node, keep):
    """The top-level `and` terms of ``node`` that ``keep`` holds for, as one node (None: none)."""
    if node is None:
        return None
    from linter.policy.expr import Node

    kept = [term for term in (node.args if node.op == "and" else (node,)) if keep(term)]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else Node("and", tuple(kept))


def _reads_profile_only(node) -> bool:
    from linter.policy.expr import walk

    fields = [n.args for n in walk(node) if n.op == "field"]
    return bool(fields) and all(path[0] == "profile" for path in fields) \
        and all(n.op in ("field", "const", "cmp", "not", "and", "or", "if", "isnull", "in", "list", "bin")
                for n in walk(node))


_LIST_AGGREGATES = ("any", "all", "count", "distinct_count")


def _item_paths(node, model: "Model", table) -> dict[str, tuple]:
    """The list fields of ``table`` that ``node`` reads only as the list of an
    any() or all() whose condition reads the item through one navigation path and
    holds no list aggregate of its own: {field: path}. Such a verdict depends on
    the set of those values alone (duplicates and order cannot change an any or an
    all; an unknown value counts as neither true nor false in both)."""
    if node is None:
        return {}
    from linter.policy.expr import walk

    found: dict[str, set] = {}
    listed_nodes = set()
    for n in walk(node):
        if n.op != "call" or n.args[0] not in ("any", "all") or len(n.args) != 3:
            continue
        listed, cond = n.args[1], n.args[2]
        if listed.op != "field" or len(listed.args) != 1 or not isinstance(cond, type(node)):
            continue
        if any(m.op == "call" and m.args[0] in _LIST_AGGREGATES for m in walk(cond)):
            continue
        paths = {m.args[1:] for m in walk(cond) if m.op == "field" and m.args[0] == "item"}
        found.setdefault(listed.args[0], set()).update(paths or {()})
        listed_nodes.add(id(listed))
    out = {}
    for name, paths in found.items():
        spec = table.fields.get(name)
        if len(paths) != 1 or () in paths or spec is None or not spec.is_list or not spec.ref \
                or not model.has(table.name, "_rid"):
            continue
        # every other read of the field disqualifies it (size(replicas), replicas in a message is not `when`)
        if any(n.op == "field" and n.args[0] == name and id(n) not in listed_nodes for n in walk(node)):
            continue
        out[name] = next(iter(paths))
    return out
