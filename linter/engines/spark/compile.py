"""Rule expressions (the IR of linter.policy.expr) compiled to Spark SQL, with
the local engine's semantics (linter/engines/local.py) reproduced exactly:

- SQL three-valued logic: ``and``/``or`` are Kleene, a comparison or arithmetic
  with a missing value is missing, and a check fires only on an exact ``True``;
- Python's rules where SQL differs: ``'a' == 1`` is false (never a cast), ``<``
  between text and a number is missing, ``not 0`` is true, ``+`` with text
  joins the displayed values, ``x in list`` ignores missing elements;
- navigation ``server.version`` is a left join of the target table
  deduplicated by name (the first record by file, document, position wins),
  broadcast when small; ``organization.x`` joins the estate's one Organization
  row (the documented defaults when there is none or several);
- list aggregates (``any``, ``all``, ``count``, ``distinct_count``) become
  higher-order functions on the list itself (``exists``/``filter``, with the
  item's index when the condition reads it) when the condition needs no join,
  and otherwise a posexplode, the joins, a group-by on the row's key and a left
  join back;
- ``site_cost``/``site_group`` index arrays computed in Python from the site
  graph (linter.topology; Model._graph), joined as a one-row-per-estate table.

A Frame is a query under construction: a base relation and a list of joins
whose column lists grow while expressions are compiled; its SQL is rendered
only at the end, so each join carries just the columns some expression used.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from linter.engines.spark.sqltext import (
    ANY, BOOL, FLOAT, INT, LIST, MISSING_BOOL, NULL, NUMERIC, SPARK_TYPE, STR,
    and_all, display_sql, literal_sql, q, string, typed_null,
)
from linter.model.tables import TableSpec
from linter.policy.expr import AGGREGATES, Node, walk
from linter.topology import UNREACHABLE


class CompileError(Exception):
    """An expression the Spark engine cannot express (reported as EXL000)."""


class NeedsExplode(Exception):
    """Raised inside a higher-order function when a join is needed (navigation from ``item``)."""


@dataclass
class Val:
    sql: str
    type: str
    text: str | None = None  # SQL of the text as written, for messages
    text_type: str | None = None
    name: str | None = None  # the frame column holding the value, when it is one
    lam: bool = False  # built from a lambda variable (cannot be joined on)


LOOKUP_EST, LOOKUP_NAME, LOOKUP_REC = "_k_est", "_k_name", "_k_rec"


class Join:
    """``LEFT JOIN <lookup view> AS alias ON ...``: a lookup view has the columns
    (_k_est, _k_name, _k_rec) with the record's fields and texts packed in
    ``_k_rec`` (model.lookup_columns), so that every join of one table reads the
    same columns and Spark broadcasts it once per query (exchange reuse).
    ``subquery``: an aggregate joined back instead, whose columns have unique names.

    A relation derived from the frame (Frame.relation) carries on only the fields
    of the record that its readers read (``read``, filled as they compile; the
    relation is rendered after them): the whole record, carried through every
    sort, window and join above, made Spark generate and compile code copying
    each of its fields at every step (docs/spark.md, session 33)."""

    def __init__(self, alias: str, source, on: str, subquery: bool = False):
        self.alias = alias
        self.source = source  # view name, or a callable returning the subquery SQL
        self.on = on
        self.subquery = subquery
        self.read: set[str] = set()  # fields of the record read through a derived relation
        self.whole = False  # the record is read whole there (the site graph's arrays)

    def render(self) -> str:
        if self.subquery:
            return f"LEFT JOIN ({self.source()}) AS {q(self.alias)} ON {self.on}"
        return f"LEFT JOIN {q(self.source)} AS {q(self.alias)} ON {self.on}"

    def exposed(self) -> str:
        """How the join's columns appear in a relation derived from the frame."""
        if self.subquery:
            return f"{q(self.alias)}.*"
        record = f"{q(self.alias)}.{q(LOOKUP_REC)}"
        if not self.whole:  # a missing record reads as NULL fields either way
            fields = ", ".join(f"{string(name)}, {record}.{q(name)}" for name in sorted(self.read))
            record = f"named_struct({fields})" if fields else "CAST(NULL AS STRUCT<`_`: INT>)"
        return f"{record} AS {q(self.alias + 'rec')}"

    def exposed_field(self, name: str) -> str:
        """A field of the record as a derived relation exposes it (``exposed``)."""
        self.read.add(name)
        return f"{q(self.alias + 'rec')}.{q(name)}"

    def exposed_whole(self) -> str:
        self.whole = True
        return q(self.alias + "rec")


@dataclass(eq=False)
class Rec:
    """A record in the frame: base columns (``prefix + field``), or the record
    packed in a lookup join's ``_k_rec``."""
    prefix: str
    table: TableSpec
    join: Join | None = None


@dataclass
class Bound:
    val: Val
    ref: TableSpec | None
    # inside a higher-order function over a record's list field: (record, field)
    # and the SQL of the element's index, for navigation from the element through
    # arrays precomputed per list position (Model.item_array_view)
    source: tuple | None = None
    index: str | None = None


@dataclass
class Scope:
    record: Rec
    item: Bound | None = None
    value: Bound | None = None
    other: Rec | None = None
    aggregates: dict = field(default_factory=dict)


def null() -> Val:
    return Val("NULL", NULL)


def literal(value) -> Val:
    try:
        sql, kind = literal_sql(value)
    except ValueError as exc:
        raise CompileError(str(exc)) from None
    return Val(sql, kind)


def strict_true(val: Val) -> str:
    """Python's ``value is True`` (what makes a check fire)."""
    return f"coalesce({val.sql}, false)" if val.type == BOOL else "false"


def kleene(val: Val) -> str:
    """An operand of ``and``/``or``: False, None, or (anything else) True."""
    if val.type == BOOL:
        return val.sql
    if val.type == NULL:
        return MISSING_BOOL
    return f"CASE WHEN {val.sql} IS NULL THEN {MISSING_BOOL} ELSE true END"


def eq_true(val: Val) -> str:
    """``value == True`` with None kept (``True in results``)."""
    if val.type == BOOL:
        return val.sql
    if val.type in (INT, FLOAT):
        return f"({val.sql} = 1)"
    if val.type == NULL:
        return MISSING_BOOL
    return f"CASE WHEN {val.sql} IS NULL THEN {MISSING_BOOL} ELSE false END"


def eq_false(val: Val) -> str:
    if val.type == BOOL:
        return f"(NOT {val.sql})"
    if val.type in (INT, FLOAT):
        return f"({val.sql} = 0)"
    if val.type == NULL:
        return MISSING_BOOL
    return f"CASE WHEN {val.sql} IS NULL THEN {MISSING_BOOL} ELSE false END"


def _numeric(val: Val, to: str) -> str:
    if val.type == BOOL or (to == FLOAT and val.type == INT):
        return f"CAST({val.sql} AS {SPARK_TYPE[to]})"
    return val.sql


def unify(vals: list[Val]) -> tuple[str, list[str]]:
    """A common type for the branches of an ``if`` or the arguments of
    ``coalesce``/``greatest``, and their SQL cast to it."""
    kinds = {v.type for v in vals if v.type != NULL}
    if not kinds:
        return NULL, [v.sql for v in vals]
    if len(kinds) == 1:
        kind = kinds.pop()
    elif kinds <= set(NUMERIC):
        kind = FLOAT if FLOAT in kinds else INT
    elif ANY in kinds:
        kind = ANY
    else:
        raise CompileError(f"values of different types ({', '.join(sorted(kinds))}) in one expression")
    out = []
    for v in vals:
        if v.type == NULL:
            out.append(typed_null(kind))
        elif kind in (INT, FLOAT) and v.type != kind:
            out.append(_numeric(v, kind))
        else:
            out.append(v.sql)
    return kind, out


def display(val: Val) -> str:
    """display(value, text): the text as written when there is one. Said without a
    CASE over the two where it can be: messages are nearly half of the rules' SQL,
    which the driver parses and analyses on every run (a scalar's display shrinks
    from nine expression nodes to four)."""
    if val.text is None:
        return display_sql(val.sql, val.type)
    if val.text_type == STR:  # a text is its own display; the value's when there is none
        return f"coalesce({val.text}, {display_sql(val.sql, val.type)})"
    if val.text_type == LIST and val.type == LIST:  # one display of whichever is there
        return display_sql(f"coalesce({val.text}, {val.sql})", LIST)
    return (f"CASE WHEN {val.text} IS NOT NULL THEN {display_sql(val.text, val.text_type)} "
            f"ELSE {display_sql(val.sql, val.type)} END")


def target_of(table: TableSpec, name: str, tables: dict) -> TableSpec | None:
    target = table.target(name)
    return tables[target] if target else None


class Frame:
    """A query under construction over rows identified by ``keys``: a base
    relation (flat, uniquely named columns) and left joins."""

    def __init__(self, model, base, keys, parent: "Frame | None" = None, alias: str | None = None):
        self.model = model
        self.base = base  # SQL relation text (or a callable returning it), aliased as `alias`
        self.alias = alias or model.alias()
        self.keys = list(keys)
        self.steps: list[Join] = []
        self.hints: list[str] = []
        self.navs: dict = dict(parent.navs) if parent else {}
        self.org = parent.org if parent else None
        self.graph = parent.graph if parent else None
        self.costs = parent.costs if parent else None

    @classmethod
    def over(cls, model, table: str) -> "Frame":
        return cls(model, q(model.view(table)), ["_est", "_rid"])

    # -- rendering -------------------------------------------------------------------------
    def _steps(self, upto=None, lookups_only=False) -> list:
        steps = self.steps if upto is None else self.steps[:upto]
        return [s for s in steps if not s.subquery] if lookups_only else steps

    def _from(self, steps) -> str:
        base = self.base() if callable(self.base) else self.base
        return " ".join([f"{base} AS {q(self.alias)}"] + [s.render() for s in steps])

    def _hint(self, steps) -> str:
        return self.model.broadcast_hint(*[s.alias for s in steps if s.alias in self.hints])  # left joins

    def relation(self, upto=None, extras=None, lookups_only=False) -> str:
        """The rows with every column flat: the base's, the joined records (as
        ``<alias>rec`` structs), aggregates (unless ``lookups_only``), and
        ``extras`` (name -> SQL)."""
        steps = self._steps(upto, lookups_only)
        items = [f"{q(self.alias)}.*"] + [s.exposed() for s in steps]
        items += [f"{sql} AS {q(name)}" for name, sql in (extras or {}).items()]
        return f"SELECT {self._hint(steps)}{', '.join(items)} FROM {self._from(steps)}"

    def select(self, items, where: str | None = None, group_by=None) -> str:
        sql = f"SELECT {self._hint(self.steps)}{', '.join(items)} FROM {self._from(self.steps)}"
        if where:
            sql += f" WHERE {where}"
        if group_by:
            sql += " GROUP BY " + ", ".join(group_by)
        return sql

    def derived_base(self, wrap, extras=None, lookups_only=False) -> "Frame":
        """A child frame over ``wrap(relation)``: this frame's rows as they are now,
        with ``extras`` computed (wrap refers to columns by their flat names)."""
        upto = len(self.steps)
        return Frame(self.model, lambda: f"({wrap(self.relation(upto, extras, lookups_only))})", self.keys,
                     parent=self)

    # -- records and navigation ----------------------------------------------------------------
    def column(self, rec: Rec, name: str) -> str:
        if rec.join is None:
            return q(rec.prefix + name)
        return self.joined(rec.join, name)

    def joined(self, join: Join, name: str | None = None) -> str:
        """A field of a joined record (None: the whole record), read where this
        frame joins it or through the relation derived from the frame that did
        (Join.exposed)."""
        if join in self.steps:
            record = f"{q(join.alias)}.{q(LOOKUP_REC)}"
            return record if name is None else f"{record}.{q(name)}"
        return join.exposed_whole() if name is None else join.exposed_field(name)

    def field(self, rec: Rec, name: str) -> Val:
        model = self.model
        table = rec.table.name
        kind = model.type_of(table, name)
        if kind is None or not model.has(table, name):
            # the packs name only fields the model has: a column missing here is a derived
            # field or fact not computed yet, which must never read as a silent NULL
            raise CompileError(f"{table}.{name} is not computed at this point of the model "
                               f"(a derived field or fact read before it is built)")
        text, text_type = None, None
        if model.has(table, name + "__text"):
            text, text_type = self.column(rec, name + "__text"), (LIST if kind == LIST else STR)
        plain = rec.prefix + name if rec.join is None else None
        return Val(self.column(rec, name), kind, text, text_type, name=plain)

    def _lookup(self, view: str, on_name: str | None) -> Join:
        alias = self.model.alias()
        on = f"{q('_est')} = {q(alias)}.{q(LOOKUP_EST)}"
        if on_name is not None:
            on += f" AND ({on_name}) = {q(alias)}.{q(LOOKUP_NAME)}"
        join = Join(alias, view, on)
        self.steps.append(join)
        return join

    def deref(self, val: Val, target: TableSpec) -> Rec | None:
        """The record of ``target`` named by ``val`` (a left join, made once per source)."""
        if val.type not in (STR, ANY):
            return None
        if val.lam:
            raise NeedsExplode()
        key = (val.sql, target.name)
        if key not in self.navs:
            join = self._lookup(self.model.dedup_view(target.name), val.sql)
            if self.model.broadcast(target.name):
                self.hints.append(join.alias)
            self.navs[key] = join
        return Rec("", target, self.navs[key])

    def organization(self) -> Rec | None:
        view = self.model.org_view
        if view is None:
            return None
        if self.org is None:
            self.org = self._lookup(view, None)
            self.hints.append(self.org.alias)
        return Rec("", self.model.tables["Organization"], self.org)

    def site_costs(self) -> str:
        """SQL of the estate's site costs struct (n, cost: Model._graph)."""
        if self.costs is None:
            self.costs = self._lookup(self.model.cost_view, None)
            self.hints.append(self.costs.alias)
        return self.joined(self.costs)

    def site_maps(self) -> str:
        """SQL of the estate's site-graph struct (n, m, idx, group: Model._graph)."""
        if self.graph is None:
            self.graph = self._lookup(self.model.graph_view, None)
            self.hints.append(self.graph.alias)
        return self.joined(self.graph)

    def nav(self, path: tuple, scope: Scope) -> Val:
        first = path[0]
        if first in scope.aggregates:
            if first == "profile":  # pairs profiles: profile.<name>
                return scope.aggregates[first].get(path[1], null()) if len(path) == 2 else null()
            return scope.aggregates[first]
        bound, rec, rest = None, None, path
        if first == "item":
            bound, rest = scope.item, path[1:]
        elif first == "value":
            bound, rest = scope.value, path[1:]
        elif first == "other":
            rec, rest = scope.other, path[1:]
            if rec is None:
                return null()
        elif first == "organization" and "organization" not in scope.record.table.fields:
            rec, rest = self.organization(), path[1:]
            if rec is None:
                return null()
        else:
            rec = scope.record
        if rec is None:
            if bound is None:
                return null()
            if not rest:
                return bound.val
            if bound.ref is None or bound.val.type == NULL:
                return null()
            if bound.val.lam and bound.source is not None:
                return self.item_array(bound, rest)
            rec = self.deref(bound.val, bound.ref)
            if rec is None:
                return null()
        if not rest:
            return null()
        for index, part in enumerate(rest):
            val = self.field(rec, part)
            if index == len(rest) - 1:
                return val
            target = target_of(rec.table, part, self.model.tables)
            if target is None or val.type == NULL:
                return null()
            rec = self.deref(val, target)
            if rec is None:
                return null()
        return null()

    def list_item_table(self, path: tuple, scope: Scope) -> TableSpec | None:
        """The table of a list's items, for ``item.x`` (local engine: Evaluator._list)."""
        tables = self.model.tables
        table = scope.record.table
        if path[0] == "other":
            table, path = (scope.other.table if scope.other else None), path[1:]
        elif path[0] == "organization":
            table, path = tables["Organization"], path[1:]
        if not path:
            return None
        for part in path[:-1]:
            table = target_of(table, part, tables) if table else None
        return target_of(table, path[-1], tables) if table else None

    # -- expressions ---------------------------------------------------------------------------
    def compile(self, node: Node, scope: Scope) -> Val:
        method = getattr(self, "_op_" + node.op, None)
        if method is None:
            raise CompileError(f"unknown expression node {node.op}")
        return method(node.args, scope)

    def _op_const(self, args, scope):
        return literal(args[0])

    def _op_field(self, args, scope):
        return self.nav(args, scope)

    def _op_list(self, args, scope):
        if not all(isinstance(v, str) for v in args):
            raise CompileError("list literals outside `in` must hold text only")
        return Val(f"CAST(array({', '.join(string(v) for v in args)}) AS ARRAY<STRING>)", LIST)

    def _op_and(self, args, scope):
        return Val("(" + " AND ".join(f"({kleene(self.compile(a, scope))})" for a in args) + ")", BOOL)

    def _op_or(self, args, scope):
        return Val("(" + " OR ".join(f"({kleene(self.compile(a, scope))})" for a in args) + ")", BOOL)

    def _op_not(self, args, scope):
        val = self.compile(args[0], scope)
        if val.type == BOOL:
            return Val(f"(NOT {val.sql})", BOOL)
        if val.type in (INT, FLOAT):
            return Val(f"({val.sql} = 0)", BOOL)
        if val.type == STR:
            return Val(f"({val.sql} = '')", BOOL)
        if val.type == LIST:
            return Val(f"CASE WHEN {val.sql} IS NULL THEN {MISSING_BOOL} ELSE size({val.sql}) = 0 END", BOOL)
        if val.type == NULL:
            return Val(MISSING_BOOL, BOOL)
        raise CompileError("`not` of a value of unknown type")

    def _op_isnull(self, args, scope):
        val = self.compile(args[0], scope)
        return Val("true" if val.type == NULL else f"({val.sql} IS NULL)", BOOL)

    def _op_notnull(self, args, scope):
        val = self.compile(args[0], scope)
        return Val("false" if val.type == NULL else f"({val.sql} IS NOT NULL)", BOOL)

    def _op_cmp(self, args, scope):
        op, left, right = args[0], self.compile(args[1], scope), self.compile(args[2], scope)
        return compare(op, left, right)

    def _op_bin(self, args, scope):
        op, left, right = args[0], self.compile(args[1], scope), self.compile(args[2], scope)
        if left.type == NULL or right.type == NULL:
            return null()
        if STR in (left.type, right.type):
            if op != "+":
                return null()
            joined = f"concat({display_sql(left.sql, left.type)}, {display_sql(right.sql, right.type)})"
            return Val(f"CASE WHEN {left.sql} IS NULL OR {right.sql} IS NULL THEN CAST(NULL AS STRING) "
                       f"ELSE {joined} END", STR)
        if LIST in (left.type, right.type):
            if op == "+" and left.type == right.type:
                return Val(f"concat({left.sql}, {right.sql})", LIST)
            raise CompileError(f"`{op}` on a list")
        if left.type not in NUMERIC or right.type not in NUMERIC:
            raise CompileError(f"`{op}` on values of unknown type")
        target = FLOAT if FLOAT in (left.type, right.type) else INT
        if target == INT:  # past 64 bits: NULL, as the local engine says (no silent wrap-around)
            function = {"+": "try_add", "-": "try_subtract", "*": "try_multiply"}[op]
            return Val(f"{function}({_numeric(left, target)}, {_numeric(right, target)})", target)
        return Val(f"({_numeric(left, target)} {op} {_numeric(right, target)})", target)

    def _op_if(self, args, scope):
        test = self.compile(args[0], scope)
        body, orelse = self.compile(args[1], scope), self.compile(args[2], scope)
        if test.type != BOOL:  # Python: only `test is True` takes the first branch
            return orelse
        kind, (a, b) = unify([body, orelse])
        return Val(f"CASE WHEN {strict_true(test)} THEN {a} ELSE {b} END", kind)

    def _op_in(self, args, scope):
        needle = self.compile(args[0], scope)
        if args[1].op == "list":
            if needle.type == NULL:
                return Val(MISSING_BOOL, BOOL)
            tests = []
            for const in args[1].args:
                if const is None:
                    continue
                lit = literal(const)
                if (needle.type in NUMERIC and lit.type in NUMERIC) or needle.type in (lit.type, ANY):
                    tests.append(f"coalesce({compare('==', needle, lit).sql}, false)")
            found = " OR ".join(tests) if tests else "false"
            return Val(f"CASE WHEN {needle.sql} IS NULL THEN {MISSING_BOOL} ELSE ({found}) END", BOOL)
        haystack = self.compile(args[1], scope)
        if needle.type == NULL or haystack.type == NULL:
            return Val(MISSING_BOOL, BOOL)
        missing = f"{needle.sql} IS NULL OR {haystack.sql} IS NULL"
        if haystack.type == LIST:
            if needle.type in (STR, ANY):
                var = self.model.lambda_var()
                found = f"exists({haystack.sql}, {var} -> coalesce({var} = {needle.sql}, false))"
            else:
                found = "false"
            return Val(f"CASE WHEN {missing} THEN {MISSING_BOOL} ELSE {found} END", BOOL)
        if haystack.type == STR and needle.type == STR:
            return Val(f"contains({haystack.sql}, {needle.sql})", BOOL)
        raise CompileError(f"`in` with a {haystack.type} on the right")

    def _op_call(self, args, scope):
        name, rest = args[0], args[1:]
        if name in ("any", "all", "count", "distinct_count"):
            return self._aggregate(name, rest, scope)
        return getattr(self, "_fn_" + name)(rest, scope)

    # -- functions -------------------------------------------------------------------------------
    def _fn_coalesce(self, args, scope):
        kind, parts = unify([self.compile(a, scope) for a in args])
        if kind == NULL:
            return null()
        return Val(f"coalesce({', '.join(parts)})", kind)

    def _extreme(self, args, scope, function):
        vals = [v for v in (self.compile(a, scope) for a in args) if v.type != NULL]
        if not vals:
            return null()
        kind, parts = unify(vals)
        if kind in (BOOL, LIST):
            raise CompileError("greatest/least of booleans or lists")
        return Val(f"{function}({', '.join(parts)})" if len(parts) > 1 else parts[0], kind)

    def _fn_greatest(self, args, scope):
        return self._extreme(args, scope, "greatest")

    def _fn_least(self, args, scope):
        return self._extreme(args, scope, "least")

    def _fn_lower(self, args, scope):
        val = self.compile(args[0], scope)
        return Val(f"lower({val.sql})", STR) if val.type == STR else null()

    def _fn_size(self, args, scope):
        val = self.compile(args[0], scope)
        if val.type != LIST:
            return null()
        return Val(f"CASE WHEN {val.sql} IS NULL THEN CAST(NULL AS BIGINT) ELSE CAST(size({val.sql}) AS BIGINT) END",
                   INT)

    def _fn_written(self, args, scope):
        column = self._set_column(args[0].args, scope)
        return Val("false" if column is None else f"coalesce({column}, false)", BOOL)

    def _fn_unread(self, args, scope):
        """Whether the field was written with a value that could not be read
        (records.py: its ``__set`` is NULL, neither true nor false)."""
        column = self._set_column(args[0].args, scope)
        return Val("false" if column is None else f"({column} IS NULL)", BOOL)

    def _set_column(self, path: tuple, scope) -> str | None:
        """SQL of the ``__set`` column of the field at ``path``: on the Organization,
        the partner (``other``) or the scope's record; None where there is none."""
        if path[0] == "organization":
            rec = self.organization()
        elif path[0] == "other":
            rec = scope.other
        else:
            rec = scope.record
        column = path[-1] + "__set"
        if rec is None or not self.model.has(rec.table.name, column):
            return None
        return self.column(rec, column)

    def _site_number(self, site: str) -> str:
        """The site's number in the estate's graph (Model._graph), null when the
        site is in no list or link: a hash bucket, then a one- or two-key map."""
        maps = self.site_maps()
        bucket = f"element_at({maps}.`idx`, CAST(pmod(xxhash64({site}), {maps}.`m`) AS INT) + 1)"
        return f"element_at({bucket}, {site})"

    def _fn_site_group(self, args, scope):
        site = self.compile(args[0], scope)
        if site.type == NULL:
            return null()
        if site.type not in (STR, ANY):
            return site
        maps = self.site_maps()
        return Val(f"coalesce(element_at({maps}.`group`, {self._site_number(site.sql)} + 1), {site.sql})", STR)

    def _fn_site_cost(self, args, scope):
        a, b = self.compile(args[0], scope), self.compile(args[1], scope)
        if a.type == NULL or b.type == NULL:
            return null()
        if a.type not in (STR, ANY) or b.type not in (STR, ANY):
            raise CompileError("site_cost of values that are not site names")
        costs = self.site_costs()
        cell = f"{self._site_number(a.sql)} * {costs}.`n` + {self._site_number(b.sql)} + 1"
        cost = f"element_at({costs}.`cost`, {cell})"
        return Val(f"CASE WHEN {a.sql} IS NULL OR {b.sql} IS NULL THEN CAST(NULL AS BIGINT) "
                   f"WHEN {a.sql} = {b.sql} THEN CAST(0 AS BIGINT) "
                   f"ELSE coalesce({cost}, CAST({UNREACHABLE} AS BIGINT)) END", INT)

    # -- list aggregates -------------------------------------------------------------------------
    def _aggregate(self, name: str, args, scope: Scope) -> Val:
        path = args[0].args
        listed = self.nav(path, scope)
        cond = args[1] if len(args) > 1 else None
        if listed.type != LIST:  # not a list: no items
            return _empty_aggregate(name)
        item_table = self.list_item_table(path, scope)
        values = f"coalesce({listed.sql}, CAST(array() AS ARRAY<STRING>))"
        texts = listed.text if listed.text_type == LIST else None
        try:
            return self._aggregate_lambda(name, values, texts, item_table, cond, scope, self._list_source(path, scope))
        except NeedsExplode:
            if listed.lam:
                raise
            return self._aggregate_explode(name, values, texts, item_table, cond, scope)

    def _list_source(self, path: tuple, scope: Scope):
        """(record, field) when the list is a list field of the scope's record or of
        ``other`` (its items can be navigated through precomputed arrays)."""
        if len(path) == 1 and path[0] not in scope.aggregates and path[0] not in ("item", "value", "other"):
            rec, name = scope.record, path[0]
        elif len(path) == 2 and path[0] == "other" and scope.other is not None:
            rec, name = scope.other, path[1]
        else:
            return None
        if rec.join is not None:
            return None
        spec = rec.table.fields.get(name)
        if spec is None or not spec.is_list or not spec.ref or not self.model.has(rec.table.name, "_rid"):
            return None
        return rec, name

    def item_array(self, bound: Bound, rest: tuple) -> Val:
        """``item.<rest>`` inside a higher-order function: the element's value in an
        array computed per list position for each distinct list, joined by the list."""
        rec, name = bound.source
        values, kind = self.item_values(rec, name, rest)
        if kind == NULL:
            return null()
        return Val(f"{values}[{bound.index}]", kind)

    def item_values(self, rec: Rec, name: str, rest: tuple) -> tuple[str, str]:
        """SQL of the array of ``item.<rest>`` for every element of the list field
        ``name`` of ``rec`` (in list order; NULL for a record with an empty list),
        and the values' type."""
        key, kind = self._items_key(rec, name, rest)
        view = key[1]
        if key not in self.navs:
            alias = self.model.alias()
            on = (f"{q(rec.prefix + '_est')} = {q(alias)}.{q(LOOKUP_EST)} "
                  f"AND {q(rec.prefix + name)} = {q(alias)}.`_k_list`")
            join = Join(alias, view, on)
            self.steps.append(join)
            if self.model.broadcast_items(rec.table.name):
                self.hints.append(alias)
            self.navs[key] = join
        return self.joined(self.navs[key], "v"), kind

    def _items_key(self, rec: Rec, name: str, rest: tuple) -> tuple[tuple, str]:
        """The navigation key of ``item.<rest>``'s array for ``rec``'s list ``name``, and the values' type."""
        view, kind = self.model.item_array_view(rec.table.name, name, rest)
        return ("items", view, rec.prefix), kind

    def carried_items(self, rec: Rec, name: str, rest: tuple) -> tuple[str, tuple, Join]:
        """item_values' SQL, with its join's key and the join, whose array every
        relation derived from this frame carries: a frame over such a relation reads
        the array there (``carry``) instead of joining the items again."""
        values, _ = self.item_values(rec, name, rest)
        key, _ = self._items_key(rec, name, rest)
        join = self.navs[key]
        join.exposed_field("v")
        return values, key, join

    def carry(self, key: tuple, join: Join) -> None:
        """Read ``join`` (of another frame: carried_items) through this frame's base."""
        self.navs[key] = join

    def pairs_sql(self, values: str, texts: str | None) -> str:
        """The list as an array of (v: value, t: text as written) structs."""
        x, i = self.model.lambda_var(), self.model.lambda_var()
        text = f"get({texts}, {i})" if texts is not None else x
        return f"transform({values}, ({x}, {i}) -> named_struct('v', {x}, 't', {text}, 'i', {i}))"

    def _aggregate_lambda(self, name, values, texts, item_table, cond, scope, source=None) -> Val:
        """The aggregate as higher-order functions over the list itself, missing
        items skipped in the lambda: an array of (value, text, index) structs
        built per row and filtered was most of the cost of the PublicFolder
        predicates (docs/spark.md, "List aggregates without structs")."""
        model = self.model
        x, i, acc, y = model.lambda_var(), model.lambda_var(), model.lambda_var(), model.lambda_var()
        if cond is None:
            val = Val("true", BOOL)
        else:
            text = f"get({texts}, {i})" if texts is not None else x
            item = Bound(Val(x, STR, text, STR, lam=True), item_table, source, i)
            val = self.compile(cond, replace(scope, item=item))
        # the index only when the condition reads it (the item's text, an item array)
        indexed = re.search(rf"\b{i}\b", val.sql) is not None
        present = f"{x} IS NOT NULL"
        if name in ("any", "all"):
            # Spark's exists is three-valued, as ``True in results`` is: true, else
            # missing when some item's test is, else false
            test = f"{present} AND ({eq_true(val) if name == 'any' else eq_false(val)})"
            found = (f"aggregate(transform({values}, ({x}, {i}) -> {test}), false, ({acc}, {y}) -> {acc} OR {y})"
                     if indexed else f"exists({values}, {x} -> {test})")
            if name == "any":
                overlap = self._membership_overlap(values, cond, scope, source)
                if overlap is not None:
                    found = (f"CASE WHEN {overlap[0]} THEN true WHEN {overlap[0]} = false AND "
                             f"size(array_compact({overlap[1]})) = size({overlap[1]}) THEN false ELSE {found} END")
            return Val(found if name == "any" else f"(NOT {found})", BOOL)
        if name == "count":
            return Val(f"CAST(size(filter({values}, ({x}, {i}) -> {present} AND {strict_true(val)})) AS BIGINT)", INT)
        if val.type == NULL:
            return Val("CAST(0 AS BIGINT)", INT)
        if val.sql == x:
            distinct = f"filter({values}, {y} -> {y} IS NOT NULL)"
        else:
            distinct = (f"filter(transform({values}, ({x}, {i}) -> CASE WHEN {present} THEN {val.sql} END), "
                        f"{y} -> {y} IS NOT NULL)")
        return Val(f"CAST(size(array_distinct({distinct})) AS BIGINT)", INT)

    def _membership_overlap(self, values: str, cond, scope: Scope, source) -> tuple[str, str] | None:
        """For ``any(L, item.<path> in H)`` with H not read from the item: SQL that is
        true exactly where some item's value is in H (a shared non-missing element,
        Spark's arrays_overlap), else false or NULL, and the array of the items'
        values; None for any other condition. Where it is false and no value is
        NULL, every item's test is plainly false (arrays_overlap is false, not NULL,
        beside an empty H even when a value is NULL: the item's test is then
        missing). The lambda decides only the other rows (a missing entry, an
        unresolved item, H absent or holding a missing entry). RTE005 pairs 3.4 million
        folders and custom lists at the independent 10,000 servers, where the lambda
        over every replica and list entry took 25 s in one task for the pairs that
        share a server; the pairs that share none (the findings) ran it too until
        session 49, 270 s of task time at the independent 100,000 servers."""
        if cond is None or cond.op != "in" or cond.args[0].op != "field" or cond.args[0].args[0] != "item" \
                or cond.args[1].op == "list":  # a list literal is tested by equalities, no lambda
            return None
        if any(n.op == "field" and n.args[0] == "item" or n.op == "call" and n.args[0] in AGGREGATES
               for n in walk(cond.args[1])):
            return None
        haystack = self.compile(cond.args[1], scope)
        if haystack.type != LIST:
            return None
        rest = cond.args[0].args[1:]
        if not rest:
            return f"arrays_overlap({values}, {haystack.sql})", values
        if source is None:
            return None
        item_values, kind = self.item_values(source[0], source[1], rest)
        if kind != STR:
            return None
        return f"arrays_overlap({item_values}, {haystack.sql})", item_values

    def _aggregate_explode(self, name, values, texts, item_table, cond, scope) -> Val:
        model = self.model
        a = model.alias()
        inner, pos, iv, it = explode_items(self, values, texts, skip_missing=True, lookups_only=True)
        item = Bound(Val(q(iv), STR, q(it), STR, name=iv), item_table)
        val = inner.compile(cond, replace(scope, item=item)) if cond is not None else Val("true", BOOL)
        keys = [f"{q(k)} AS {q(a + 'k' + str(i))}" for i, k in enumerate(self.keys)]
        if name in ("any", "all"):
            hit = eq_true(val) if name == "any" else eq_false(val)
            aggs = [f"sum(CASE WHEN {hit} THEN 1 ELSE 0 END) AS {q(a + 'hit')}",
                    f"sum(CASE WHEN ({val.sql}) IS NULL THEN 1 ELSE 0 END) AS {q(a + 'nul')}"]
        elif name == "count":
            aggs = [f"sum(CASE WHEN {strict_true(val)} THEN 1 ELSE 0 END) AS {q(a + 'n')}"]
        elif val.type == NULL:
            aggs = [f"0 AS {q(a + 'n')}"]
        else:
            aggs = [f"count(DISTINCT {val.sql}) AS {q(a + 'n')}"]
        group = [q(k) for k in self.keys]
        on = " AND ".join(f"{q(k)} = {q(a + 'k' + str(i))}" for i, k in enumerate(self.keys))
        self.steps.append(Join(a, lambda: inner.select(keys + aggs, group_by=group), on, subquery=True))
        if name in ("any", "all"):
            hit_sql, nul_sql = f"coalesce({q(a + 'hit')}, 0) > 0", f"coalesce({q(a + 'nul')}, 0) > 0"
            if name == "any":
                return Val(f"CASE WHEN {hit_sql} THEN true WHEN {nul_sql} THEN {MISSING_BOOL} ELSE false END", BOOL)
            return Val(f"CASE WHEN {hit_sql} THEN false WHEN {nul_sql} THEN {MISSING_BOOL} ELSE true END", BOOL)
        return Val(f"CAST(coalesce({q(a + 'n')}, 0) AS BIGINT)", INT)


def explode_items(frame: Frame, values: str, texts: str | None, where: str | None = None,
                  skip_missing: bool = False, lookups_only: bool = False):
    """A child frame with one row per item of a list (SQL valid in ``frame``):
    (child, position column, value column, text column)."""
    model = frame.model
    a = model.alias()
    pos, el, iv, it, listed, keep = a + "pos", a + "el", a + "iv", a + "it", a + "list", a + "keep"
    extras = {listed: frame.pairs_sql(values, texts)}
    if where is not None:
        extras[keep] = where

    def wrap(parent: str) -> str:
        inner = model.alias()
        filtered = f" WHERE {q(keep)}" if where is not None else ""
        sql = (f"SELECT *, {q(el)}.v AS {q(iv)}, {q(el)}.t AS {q(it)} FROM "
               f"(SELECT *, posexplode({q(listed)}) AS ({q(pos)}, {q(el)}) FROM ({parent}) AS {q(inner)}{filtered}) "
               f"AS {q(inner + 'x')}")
        return sql + (f" WHERE {q(el)}.v IS NOT NULL" if skip_missing else "")

    # the items need the record and its lookups, never the aggregates joined so far
    child = frame.derived_base(wrap, extras, lookups_only=lookups_only)
    child.keys = frame.keys + [pos]
    return child, pos, iv, it


def compare(op: str, left: Val, right: Val) -> Val:
    if left.type == NULL or right.type == NULL:
        return Val(MISSING_BOOL, BOOL)
    compatible = ((left.type in NUMERIC and right.type in NUMERIC) or left.type == right.type
                  or ANY in (left.type, right.type))
    if not compatible:  # Python: == is False, != True, ordering raises (missing)
        if op in ("==", "!="):
            value = "true" if op == "!=" else "false"
            return Val(f"CASE WHEN {left.sql} IS NOT NULL AND {right.sql} IS NOT NULL THEN {value} "
                       f"ELSE {MISSING_BOOL} END", BOOL)
        return Val(MISSING_BOOL, BOOL)
    a, b = left.sql, right.sql
    if left.type in NUMERIC and right.type in NUMERIC:
        target = FLOAT if FLOAT in (left.type, right.type) else INT
        a, b = _numeric(left, target), _numeric(right, target)
    symbol = {"==": "=", "!=": "<>"}.get(op, op)
    return Val(f"({a} {symbol} {b})", BOOL)


def _empty_aggregate(name: str) -> Val:
    if name == "any":
        return Val("false", BOOL)
    if name == "all":
        return Val("true", BOOL)
    return Val("CAST(0 AS BIGINT)", INT)


__all__ = ["ANY", "BOOL", "FLOAT", "INT", "LIST", "NULL", "STR", "Bound", "CompileError", "Frame", "Join",
           "Rec", "Scope", "Val", "and_all", "compare", "display", "strict_true"]
