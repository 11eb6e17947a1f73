"""Check forms compiled to Spark SQL: each returns the text of a query whose rows
are findings (records.FINDING columns). Semantics are those of
LocalEngine._form_*.

Predicate checks of one table are evaluated together: one SELECT builds an
array of the findings each row raises (one element per check and field, null
when it does not fire) and ``inline`` explodes it (Deequ-style: one pass over
the table for all its predicate rules).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from linter.engines.spark.compile import (
    INT, LIST, STR, Bound, CompileError, Frame, Rec, Scope, Val, display, explode_items, strict_true,
)
from linter.engines.spark.model import KEYS, Model
from linter.engines.spark.sqltext import q, string
from linter.findings import format_path
from linter.policy.expr import Node, field_paths
from linter.policy.locate import field_path
from linter.policy.packs import Check, Rule


@dataclass(frozen=True)
class Index:
    """A list index held in a column (the position of an exploded item)."""
    column: str


# -- where a finding points, what it says ------------------------------------------------------------
def _suffix(parts, leading: bool) -> list[str]:
    """SQL pieces of format_path(parts), appended to a non-empty prefix when ``leading``."""
    pieces = []
    started = leading
    for part in parts:
        if isinstance(part, Index):
            pieces += ["'['", f"CAST({q(part.column)} AS STRING)", "']'"]
        elif isinstance(part, int):
            pieces.append(string(f"[{part}]"))
        else:
            pieces.append(string(("." if started else "") + str(part)))
        started = True
    return pieces


def candidates(rec: Rec, relative: tuple) -> str:
    """SQL array of the path and its ancestors, deepest first, as keys of the
    record's ``_marks`` (linter.policy.locate.candidate_paths)."""
    table = rec.table
    out = []
    for cut in range(len(relative), -1, -1):
        if table.each:
            pieces = [q(rec.prefix + "_prefix")] + _suffix(relative[:cut], True)
        else:
            pieces = _suffix(relative[:cut], False) or ["''"]
        out.append(pieces[0] if len(pieces) == 1 else f"concat({', '.join(pieces)})")
    if table.each:
        out += [string(format_path(table.each[:cut])) for cut in range(len(table.each), -1, -1)]
    return f"array({', '.join(out)})"


def locate(model: Model, relation: str) -> str:
    """Findings with positions from rows (meta columns, rule, severity, message,
    cands): the first candidate written in ``_marks`` gives path, line and column
    (linter.policy.locate.locate); none: the document's own position."""
    var = model.lambda_var()
    a = model.alias()
    hit = f"filter(`cands`, {var} -> element_at(`_marks`, {var}) IS NOT NULL)[0]"
    found = (f"SELECT *, {hit} AS {q(a + 'hit')} FROM ({relation}) AS {q(a + 'in')}")
    mark = f"element_at(`_marks`, {q(a + 'hit')})"
    has_entity = "(`_entity` IS NOT NULL AND `_entity` <> '')"
    return (f"SELECT `_est`, `rule`, `severity`, `message`, `_file` AS `file`, "
            f"CAST(coalesce({mark}[0], `_line`) AS BIGINT) AS `line`, "
            f"CAST(coalesce({mark}[1], `_column`) AS BIGINT) AS `column`, "
            f"nullif({q(a + 'hit')}, '') AS `path`, "
            f"CASE WHEN {has_entity} THEN `_kind` END AS `entity_kind`, "
            f"CASE WHEN {has_entity} THEN `_entity` END AS `entity_name` FROM ({found}) AS {q(a + 'f')}")


def finding(frame: Frame, rule: Rule, check: Check, scope: Scope, relative: tuple) -> str:
    """The finding struct of the scope's record (LocalEngine._finding); its
    position is resolved from ``cands`` after the explode (see ``locate``)."""
    severity = string(rule.severity)
    levels = [(level, check.severity_when[level]) for level in ("error", "warning", "info")
              if level in check.severity_when]
    if levels:
        cases = " ".join(f"WHEN {strict_true(frame.compile(node, scope))} THEN {string(level)}" for level, node in levels)
        severity = f"CASE {cases} ELSE {severity} END"
    message = string(check.message)
    for text, node in check.placeholders:
        message = f"replace({message}, {string('{' + text + '}')}, {display(frame.nav(node.args, scope))})"
    return (f"named_struct('rule', {string(rule.id)}, 'severity', {severity}, 'message', {message}, "
            f"'cands', {candidates(scope.record, relative)})")


META = ["_est", "_file", "_kind", "_entity", "_marks", "_line", "_column"]


def fired(frame: Frame, structs: list[str]) -> str:
    """Findings (records.FINDING columns) of the structs that fired
    (``structs``: CASE WHEN <fires> THEN struct END, one per check)."""
    var = frame.model.lambda_var()
    exploded = frame.select([q(c) for c in META]
                            + [f"inline(filter(array({', '.join(structs)}), {var} -> {var} IS NOT NULL))"])
    return locate(frame.model, exploded)


def _fires(frame: Frame, node, scope: Scope) -> str:
    return strict_true(frame.compile(node, scope)) if node is not None else "true"


# -- predicate -----------------------------------------------------------------------------------------
def predicates(model: Model, table_name: str, checks: list, failures: list) -> list[str]:
    """Queries for all predicate checks of one table: one per `each` list (plain and
    `fields` checks share the one without a list)."""
    table = model.tables[table_name]
    groups: dict = {}
    for rule, check in checks:
        groups.setdefault(check.each, []).append((rule, check))
    out = []
    for each, members in groups.items():
        frame = Frame.over(model, table_name)
        scope = Scope(Rec("", table))
        position = None
        if each:
            spec = table.fields[each]
            frame, position, iv, it = explode_items(frame, q(each), q(each + "__text"))
            ref = model.tables[spec.ref] if spec.ref else None
            scope = replace(scope, item=Bound(Val(q(iv), STR, q(it), STR, name=iv), ref))
        structs = []
        for rule, check in members:
            try:
                structs.extend(_predicate(frame, rule, check, scope, position))
            except CompileError as exc:
                failures.append((rule.id, str(exc)))
        if structs:
            out.append(fired(frame, structs))
    return out


def _predicate(frame: Frame, rule: Rule, check: Check, scope: Scope, position) -> list[str]:
    model = frame.model
    table = model.tables[check.table]
    where = _fires(frame, check.where, scope)
    if check.each:
        spec = table.fields[check.each]
        fires = f"{where} AND {_fires(frame, check.when, scope)}"
        return [f"CASE WHEN {fires} THEN {finding(frame, rule, check, scope, spec.path + (Index(position),))} END"]
    if check.fields:
        structs = []
        for name in check.fields:
            spec = table.fields.get(name)
            ref = model.tables[spec.ref] if spec is not None and spec.ref else None
            inner = replace(scope, value=Bound(frame.field(scope.record, name), ref))
            fires = f"{where} AND {_fires(frame, check.when, inner)}"
            structs.append(f"CASE WHEN {fires} THEN {finding(frame, rule, check, inner, field_path(table, name))} END")
        return structs
    fires = f"{where} AND {_fires(frame, check.when, scope)}"
    return [f"CASE WHEN {fires} THEN {finding(frame, rule, check, scope, field_path(table, check.field))} END"]


# -- unique --------------------------------------------------------------------------------------------
def unique(model: Model, rule: Rule, check: Check) -> str:
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    names = [a + f"k{i}" for i in range(len(check.key))]
    extras = {a + "w": _fires(frame, check.where, scope)}
    extras.update({n: frame.compile(k, scope).sql for n, k in zip(names, check.key)})
    l, r = model.lambda_var(), model.lambda_var()
    order = (f"({l}, {r}) -> CASE WHEN lower({l}) < lower({r}) THEN -1 WHEN lower({l}) > lower({r}) THEN 1 "
             f"WHEN {l} < {r} THEN -1 WHEN {l} > {r} THEN 1 ELSE 0 END")

    def members(parent: str) -> str:
        present = " AND ".join([q(a + "w")] + [f"{q(n)} IS NOT NULL" for n in names])
        rows = f"SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {present}"
        renamed = ", ".join(f"{q(n)} AS {q(n + 'g')}" for n in names)
        groups = (f"SELECT `_est` AS {q(a + 'e')}, {renamed}, count(1) AS {q(a + 'count')}, "
                  f"array_sort(collect_list(coalesce(`name__text`, '')), {order}) AS {q(a + 'group')} "
                  f"FROM {q(a + 'rows')} GROUP BY `_est`, {', '.join(q(n) for n in names)} HAVING count(1) >= 2")
        on = " AND ".join([f"`_est` = {q(a + 'e')}"] + [f"{q(n)} = {q(n + 'g')}" for n in names])
        return (f"WITH {q(a + 'rows')} AS ({rows}) SELECT * FROM {q(a + 'rows')} "
                f"JOIN ({groups}) AS {q(a + 'gr')} ON {on}")

    inner = frame.derived_base(members, extras)
    scope = replace(scope, aggregates={"count": Val(q(a + "count"), INT), "group": Val(q(a + "group"), LIST)})
    relative = field_path(scope.record.table, check.field)
    return fired(inner, [f"CASE WHEN {_fires(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])


# -- reference ------------------------------------------------------------------------------------------
def reference(model: Model, rule: Rule, check: Check) -> str:
    table = model.tables[check.table]
    target = model.tables[check.target]
    target_frame = Frame.over(model, check.target)
    target_scope = Scope(Rec("", target))
    key = target_frame.compile(Node("field", (check.target_key,)), target_scope)
    target_where = _fires(target_frame, check.target_where, target_scope)
    a = model.alias()
    keys = target_frame.select([f"DISTINCT `_est` AS {q(a + 'e')}", f"{key.sql} AS {q(a + 'key')}"],
                               where=f"({target_where}) AND ({key.sql}) IS NOT NULL")
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", table))
    where = _fires(frame, check.where, scope)
    spec = table.fields.get(check.field)
    value = frame.field(scope.record, check.field)
    if spec is not None and spec.is_list:
        rows, position, iv, it = explode_items(frame, value.sql, value.text, where=where, skip_missing=True)
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
    hint = f"/*+ BROADCAST({q(a + 'keys')}) */ " if model.small(check.target) else ""
    inner = rows.derived_base(
        lambda parent: f"SELECT {hint}* FROM ({parent}) AS {q(a + 'r')} LEFT JOIN ({keys}) AS {q(a + 'keys')} "
                       f"ON `_est` = {q(a + 'e')} AND {bound.sql} = {q(a + 'key')} WHERE {q(a + 'key')} IS NULL")
    scope = replace(scope, value=Bound(bound, None))
    return fired(inner, [f"CASE WHEN {_fires(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])


# -- group -------------------------------------------------------------------------------------------------
def group(model: Model, rule: Rule, check: Check) -> str:
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    extras = {a + "w": _fires(frame, check.where, scope), a + "g": frame.compile(check.group, scope).sql}
    types = {}
    for name, (_, node) in check.aggregates.items():
        val = frame.compile(node, scope)
        extras[a + "a_" + name] = val.sql
        types[name] = val.type
    aggs = [f"count(1) AS {q(a + 'count')}"]
    for name, (fn, _) in check.aggregates.items():
        column = Val(q(a + "a_" + name), types[name])
        if fn == "count":
            aggs.append(f"sum(CASE WHEN {strict_true(column)} THEN 1 ELSE 0 END) AS {q(a + 'n_' + name)}")
        else:
            aggs.append(f"count(DISTINCT {column.sql}) AS {q(a + 'n_' + name)}")

    def members(parent: str) -> str:
        rows = f"SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {q(a + 'w')} AND {q(a + 'g')} IS NOT NULL"
        stats = (f"SELECT `_est` AS {q(a + 'e')}, {q(a + 'g')} AS {q(a + 'gg')}, {', '.join(aggs)} "
                 f"FROM {q(a + 'rows')} GROUP BY `_est`, {q(a + 'g')}")
        return (f"WITH {q(a + 'rows')} AS ({rows}) SELECT * FROM {q(a + 'rows')} JOIN ({stats}) AS {q(a + 'st')} "
                f"ON `_est` = {q(a + 'e')} AND {q(a + 'g')} = {q(a + 'gg')}")

    inner = frame.derived_base(members, extras)
    aggregates = {"count": Val(f"CAST({q(a + 'count')} AS BIGINT)", INT)}
    for name in check.aggregates:
        aggregates[name] = Val(f"CAST({q(a + 'n_' + name)} AS BIGINT)", INT)
    scope = replace(scope, aggregates=aggregates)
    fires = f"{_fires(inner, check.when, scope)} AND {_fires(inner, check.report, scope)}"
    relative = field_path(scope.record.table, check.field)
    return fired(inner, [f"CASE WHEN {fires} THEN {finding(inner, rule, check, scope, relative)} END"])


# -- minority ------------------------------------------------------------------------------------------------
def minority(model: Model, rule: Rule, check: Check) -> str:
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    tie = frame.compile(check.tiebreak, scope)
    extras = {a + "w": _fires(frame, check.where, scope), a + "p": frame.compile(check.partition, scope).sql,
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
                f"SELECT * FROM {q(a + 'rows')} JOIN ({losers}) AS {q(a + 'lo')} ON `_est` = {e} AND {p} = {pp} "
                f"AND {g} = {gg} JOIN ({winners}) AS {q(a + 'wi')} ON `_est` = {q(a + 'we')} AND {p} = {q(a + 'wp')}")

    inner = frame.derived_base(members, extras)
    scope = replace(scope, aggregates={"count": Val(f"CAST({q(a + 'count')} AS BIGINT)", INT),
                                       "largest": Val(q(a + "largest"), tie.type, q(a + "largestx"), STR)})
    relative = field_path(scope.record.table, check.field)
    return fired(inner, [f"CASE WHEN {_fires(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])


# -- pairs ------------------------------------------------------------------------------------------------------
OTHER = "_o_"


def pairs(model: Model, rule: Rule, check: Check) -> str:
    if check.profile:
        return profile_pairs(model, rule, check)
    other_table = model.tables[check.with_table]
    left_node = check.join[0]
    others = _partners(model, check, Frame.over(model, check.with_table), [])
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", model.tables[check.table]))
    a = model.alias()
    extras = {a + "w": _fires(frame, check.where, scope), a + "key": frame.compile(left_node, scope).sql}
    hint = f"/*+ BROADCAST({q(a + 'o')}) */ " if model.small(check.with_table) else ""
    inner = frame.derived_base(
        lambda parent: f"SELECT {hint}* FROM (SELECT * FROM ({parent}) AS {q(a + 'in')} "
                       f"WHERE {q(a + 'w')} AND {q(a + 'key')} IS NOT NULL) AS {q(a + 'r')} JOIN ({others}) AS {q(a + 'o')} "
                       f"ON `_est` = {q(OTHER + '_est')} AND {q(a + 'key')} = {q(OTHER + '_key')}", extras)
    inner.keys = KEYS + [OTHER + "_rid"]
    scope = replace(scope, other=Rec(OTHER, other_table))
    relative = field_path(scope.record.table, check.field)
    return fired(inner, [f"CASE WHEN {_fires(inner, check.when, scope)} THEN "
                         f"{finding(inner, rule, check, scope, relative)} END"])


def _partners(model: Model, check: Check, other_frame: Frame, columns: list[str]) -> str:
    """SQL of the `with` records that have a join key: every column renamed with
    the OTHER prefix, the key as `_o__key`, plus ``columns``."""
    right = other_frame.compile(check.join[1], Scope(Rec("", model.tables[check.with_table])))
    renamed = [f"{q(other_frame.alias)}.{q(c)} AS {q(OTHER + c)}" for c in model.columns[check.with_table]]
    return other_frame.select(renamed + [f"{right.sql} AS {q(OTHER + '_key')}"] + columns,
                              where=f"({right.sql}) IS NOT NULL")


def profile_pairs(model: Model, rule: Rule, check: Check) -> str:
    """Pairs with a profile (LocalEngine._profile_pairs): the partners' distinct
    profiles per join key are a small broadcast table; `when` runs once per
    distinct (join key, values of the columns it reads) and profile; the rows
    that fire are joined back to their records and to the partners of that
    profile, where `other_when` picks the findings. The rows formed are distinct
    records x profiles plus findings, never records x partners."""
    other_table = model.tables[check.with_table]
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
    model.sql(_partners(model, check, other_frame, columns)).createOrReplaceTempView(others_view)
    picked = ", ".join([f"{q(OTHER + '_est')} AS {q(a + 'pe')}", f"{q(OTHER + '_key')} AS {q(a + 'pk')}"]
                       + [f"{q(c)} AS {q(a + c)}" for c in profile_names])
    profiles = f"SELECT DISTINCT {picked} FROM {q(others_view)}"

    table = model.tables[check.table]
    frame = Frame.over(model, check.table)
    scope = Scope(Rec("", table))
    extras = {a + "w": _fires(frame, check.where, scope), a + "key": frame.compile(left_node, scope).sql}
    # `when` reads the record only through these columns: it runs once per distinct
    # (estate, key, these values) and profile, on a representative row (the smallest
    # row id, so that arrays precomputed per list position are found), as
    # LocalEngine._profile_pairs shares verdicts between equal records
    reads = sorted({path[0] for path in field_paths(check.when) if path[0] in model.columns[check.table]}
                   if check.when is not None else set())
    reads += [c + "__text" for c in reads if model.has(check.table, c + "__text")]
    read_columns = "".join(f", {q(c)}" for c in reads)
    # Adaptive execution sizes the partitions by the distinct rows, a few thousand,
    # and would put them in one task, yet each becomes a row per profile here (the
    # bulk of the rule's work): spread them over the shuffle partitions.
    spread = int(model.spark.conf.get("spark.sql.shuffle.partitions") or 8)
    distinct = (f"SELECT /*+ REPARTITION({spread}) */ `_est`, min(`_rid`) AS `_rid`, {q(a + 'key')}{read_columns} FROM ({frame.relation(extras=extras)}) "
                f"AS {q(a + 'all')} WHERE {q(a + 'w')} AND {q(a + 'key')} IS NOT NULL "
                f"GROUP BY `_est`, {q(a + 'key')}{read_columns}")
    by_profile = Frame(model, f"(SELECT /*+ BROADCAST({q(a + 'p')}) */ * FROM ({distinct}) AS {q(a + 'd')} "
                              f"JOIN ({profiles}) AS {q(a + 'p')} ON `_est` = {q(a + 'pe')} AND {q(a + 'key')} = {q(a + 'pk')})",
                       KEYS + [a + c for c in profile_names])
    when_scope = replace(scope, aggregates={"profile": profile_values})
    fires = _fires(by_profile, check.when, when_scope)
    fired_rows = by_profile.select(
        [f"`_est` AS {q(a + 'fe')}", f"{q(a + 'key')} AS {q(a + 'fk')}"]
        + [f"{q(c)} AS {q(a + 'f_' + c)}" for c in reads] + [q(a + c) for c in profile_names], where=fires)
    same_record = "".join(f" AND {q(c)} <=> {q(a + 'f_' + c)}" for c in reads)
    same_profile = "".join(f" AND {q(a + c)} <=> {q(c)}" for c in profile_names)
    hint = f"/*+ BROADCAST({q(a + 'f')}{', ' + q(a + 'o') if model.small(check.with_table) else ''}) */ "
    inner = frame.derived_base(
        lambda parent: f"SELECT {hint}* FROM (SELECT * FROM ({parent}) AS {q(a + 'in')} WHERE {q(a + 'w')} "
                       f"AND {q(a + 'key')} IS NOT NULL) AS {q(a + 'r')} "
                       f"JOIN ({fired_rows}) AS {q(a + 'f')} ON `_est` = {q(a + 'fe')} AND {q(a + 'key')} = {q(a + 'fk')}"
                       f"{same_record} "
                       f"JOIN {q(others_view)} AS {q(a + 'o')} ON `_est` = {q(OTHER + '_est')} "
                       f"AND {q(a + 'key')} = {q(OTHER + '_key')}{same_profile}", extras)
    inner.keys = KEYS + [OTHER + "_rid"]
    pair_scope = replace(scope, other=Rec(OTHER, other_table), aggregates={"profile": profile_values})
    relative = field_path(table, check.field)
    return fired(inner, [f"CASE WHEN {_fires(inner, check.other_when, pair_scope)} THEN "
                         f"{finding(inner, rule, check, pair_scope, relative)} END"])


FORMS = {"unique": unique, "reference": reference, "group": group, "minority": minority, "pairs": pairs}
