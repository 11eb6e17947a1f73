"""The local engine: evaluates compiled rule checks over the estate's records in
Python, with SQL's three-valued logic so it agrees with the Spark engine."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from linter.engines.scope import SCOPED_NAMES, Scope, derive
from linter.estate import Estate
from linter.findings import RULE_FAILED, Entity, Finding, rule_failed_message
from linter.forms import FORMS
from linter.model.tables import TableSpec, load_tables
from linter.policy.expr import Node, field_paths, parse
from linter.policy.locate import display, locate
from linter.policy.packs import Check, Rule

# an aggregate's predicate that reads nothing but these is a function of the item and
# the pairs profile: pairs' profile evaluation memoizes it (item_memo)
_ITEM_AND_PROFILE = {"item", "profile"}
_ABSENT = object()


class Evaluator:
    def __init__(self, estate: Estate):
        self.estate = estate
        self.tables = load_tables()
        self._compiled: dict[int, Any] = {}
        self._nav_memo: dict[tuple, tuple[Any, Any]] = {}
        # set by linter.forms.pairs for its duration: predicate results keyed
        # by (node, item table, item, profile values); the profile dicts outlive it
        self.item_memo: dict[tuple, Any] | None = None
        self._pure: dict[int, tuple[Node, bool]] = {}
        # derived fields are computed when a rule first reads them, then kept on the record
        self._derived = {(table.name, name): parse(text)
                         for table in self.tables.values() for name, text in table.derived.items()}

    def field(self, record: dict, name: str) -> Any:
        value = record.get(name, _ABSENT)
        if value is _ABSENT:
            table = self.tables[record["_table"]]
            if name in table.facts:
                value = record[name] = self._fact(name, *table.facts[name], record=record)
                return value
            node = self._derived.get((record["_table"], name))
            if node is None:
                return None
            value = record[name] = self.eval(node, Scope(record, table))
        return value

    def _fact(self, name: str, table_name: str, condition: str, by: str | None = None, key: str | None = None,
              record=None) -> int:
        """A count of the records of ``table_name`` meeting ``condition``: estate-wide,
        or (``by``) those whose ``by`` names ``record`` (its field ``key``, or its name)."""
        memo = self.__dict__.setdefault("_facts", {})
        memo_key = (table_name, condition, by)
        if memo_key not in memo:
            node, table = parse(condition), self.tables[table_name]
            key_node = parse(by) if by else None
            counts: dict = defaultdict(int)
            for counted in self.estate.tables[table_name]:
                scope = Scope(counted, table)
                if self.eval(node, scope) is True:
                    counts[self.eval(key_node, scope) if key_node else None] += 1
            memo[memo_key] = counts
        counts = memo[memo_key]
        if by is None:
            return counts.get(None, 0)
        own = (self.field(record, key) if key else record.get("name")) if record else None
        return counts.get(own, 0) if own is not None else 0

    # -- navigation -------------------------------------------------------
    def _target(self, table: TableSpec, name: str) -> TableSpec | None:
        target = table.target(name)
        return self.tables[target] if target else None

    def nav(self, path: tuple, scope: Scope) -> tuple[Any, Any]:
        first = path[0]
        record, table = scope.record, scope.table
        rest, value, text, ref = path, None, None, None
        if first in scope.aggregates:
            value = scope.aggregates[first]
            if first == "profile":  # pairs profiles: profile.<name>
                value = value.get(path[1]) if len(path) == 2 else None
            return value, scope.aggregates.get(first + "__text")
        if first == "item":
            value, text, ref = scope.item, scope.item_text, scope.item_table
            record = None
            rest = path[1:]
        elif first == "value":
            value, text, ref = scope.value, scope.value_text, scope.value_table
            record = None
            rest = path[1:]
        elif first == "other":
            record, table = scope.other, scope.other_table
            rest = path[1:]
        elif first == "organization" and "organization" not in (table.fields if table else {}):
            record, table = self.estate.organization, self.tables["Organization"]
            rest = path[1:]
        if record is None and rest:
            if ref is None or value is None:
                return None, None
            # from a name, navigation is a function of the estate: pairs and list
            # aggregates ask the same (store -> server -> site) chains again and again
            key = (ref.name, value, rest)
            try:
                return self._nav_memo[key]
            except KeyError:
                pass
            except TypeError:  # an unhashable value: walk without the memo
                return self._walk(self.estate.lookup(ref.name, value), ref, rest, value, None)
            found = self._nav_memo[key] = self._walk(self.estate.lookup(ref.name, value), ref, rest, value, None)
            return found
        return self._walk(record, table, rest, value, text)

    def _walk(self, record, table, rest, value, text) -> tuple[Any, Any]:
        if record is None and rest:
            return None, None
        for i, part in enumerate(rest):
            value = self.field(record, part)
            text = record.get(part + "__text")
            if i == len(rest) - 1:
                return value, text
            ref = self._target(table, part)
            record = self.estate.lookup(ref.name, value) if (ref and value is not None) else None
            table = ref
            if record is None:
                return None, None
        return value, text

    # -- evaluation with three-valued logic ---------------------------------
    def eval(self, node: Node, scope: Scope) -> Any:
        return self.compiled(node)(scope)

    def compiled(self, node: Node):
        """The node as a function of a scope (loops over records call it directly)."""
        entry = self._compiled.get(id(node))
        if entry is None or entry[0] is not node:
            # the node is kept with its closure so that its id cannot be reused
            entry = self._compiled[id(node)] = (node, self._compile(node))
        return entry[1]

    def _compile(self, node: Node):
        """The expression as nested closures: interpreting the tree for every
        record costs several times more."""
        op, args = node.op, node.args
        if op == "const":
            value = args[0]
            return lambda scope: value
        if op == "field":
            path = args
            if len(path) == 1 and path[0] not in SCOPED_NAMES:
                name = path[0]

                def plain_field(scope):
                    aggregates = scope.aggregates
                    if aggregates and name in aggregates:
                        return aggregates[name]
                    record = scope.record
                    value = record.get(name, _ABSENT)
                    return self.field(record, name) if value is _ABSENT else value
                return plain_field
            return lambda scope: self.nav(path, scope)[0]
        if op in ("and", "or"):
            parts = [self._compile(a) for a in args]
            stop, neutral = (False, True) if op == "and" else (True, False)

            def junction(scope):
                result = neutral
                for part in parts:
                    value = part(scope)
                    if value is stop:
                        return stop
                    if value is None:
                        result = None
                return result
            return junction
        if op == "not":
            inner = self._compile(args[0])

            def negation(scope):
                value = inner(scope)
                return None if value is None else not value
            return negation
        if op in ("isnull", "notnull"):
            inner = self._compile(args[0])
            if op == "isnull":
                return lambda scope: inner(scope) is None
            return lambda scope: inner(scope) is not None
        if op == "cmp":
            compare, left_fn, right_fn = _COMPARE[args[0]], self._compile(args[1]), self._compile(args[2])

            def comparison(scope):
                left, right = left_fn(scope), right_fn(scope)
                if left is None or right is None:
                    return None
                try:
                    return compare(left, right)
                except TypeError:
                    return None
            return comparison
        if op == "bin":
            symbol, left_fn, right_fn = args[0], self._compile(args[1]), self._compile(args[2])

            def arithmetic(scope):
                left, right = left_fn(scope), right_fn(scope)
                if left is None or right is None:
                    return None
                if symbol == "+" and (isinstance(left, str) or isinstance(right, str)):
                    return display(left) + display(right)
                if isinstance(left, str) or isinstance(right, str):
                    return None
                result = left + right if symbol == "+" else left - right if symbol == "-" else left * right
                if isinstance(result, int) and not -2 ** 63 <= result < 2 ** 63:
                    return None  # past 64 bits: no value, as in the Spark engine (SQL's try_multiply)
                return result
            return arithmetic
        if op == "if":
            test, then, otherwise = (self._compile(a) for a in args)
            return lambda scope: then(scope) if test(scope) is True else otherwise(scope)
        if op == "list":
            values = list(args)
            return lambda scope: values
        if op == "in":
            needle_fn, haystack_fn = self._compile(args[0]), self._compile(args[1])

            def membership(scope):
                needle, haystack = needle_fn(scope), haystack_fn(scope)
                if needle is None or haystack is None:
                    return None
                return needle in haystack
            return membership
        if op == "call":
            return self._compile_call(args[0], args[1:])
        raise ValueError(f"unknown expression node {op}")

    def _compile_call(self, name: str, args: tuple):
        """A function call as a closure over its arguments' closures: dispatching on
        the name and looking each argument up on every call was a fifth of a large
        estate's evaluation."""
        if name in ("written", "unread"):
            path = args[0].args
            key = path[-1] + "__set"
            estate, own = self.estate, path[0] not in ("organization", "other")
            other = path[0] == "other"

            def setting(scope):
                record = scope.record if own else scope.other if other else estate.organization
                # __set: True written, False the default applies, None written but unreadable
                return record.get(key, False)
            if name == "written":
                return lambda scope: bool(setting(scope))
            return lambda scope: setting(scope) is None
        if name in ("any", "all", "count", "distinct_count"):
            path, predicate = args[0].args, (args[1] if len(args) > 1 else None)
            test = self._compile(predicate) if predicate is not None else None
            return lambda scope: self._aggregate(name, path, predicate, test, scope)
        fns = [self._compile(a) for a in args]
        if name == "coalesce":
            def first_present(scope):
                for fn in fns:
                    value = fn(scope)
                    if value is not None:
                        return value
                return None
            return first_present
        if name in ("greatest", "least"):
            pick = max if name == "greatest" else min

            def extreme(scope):
                values = [v for v in (fn(scope) for fn in fns) if v is not None]
                return pick(values) if values else None
            return extreme
        if name == "lower":
            inner = fns[0]

            def lowered(scope):
                value = inner(scope)
                return value.lower() if isinstance(value, str) else None
            return lowered
        if name == "size":
            inner = fns[0]

            def size(scope):
                value = inner(scope)
                return len(value) if isinstance(value, list) else None
            return size
        if name == "site_group":
            return lambda scope: self.estate.graph.site_group(fns[0](scope))
        if name == "site_cost":
            return lambda scope: self.estate.graph.site_cost(fns[0](scope), fns[1](scope))
        raise ValueError(name)

    def _aggregate(self, name: str, path: tuple, predicate: Node | None, test, scope: Scope) -> Any:
        """any, all, count, distinct_count of ``test`` (``predicate`` compiled) over the list at ``path``."""
        items, texts, item_table = self._list(path, scope)
        results = []
        memo = self.item_memo
        profile = scope.aggregates.get("profile") if memo is not None else None
        cached = profile is not None and self._reads_item_and_profile(predicate)
        for value, text in zip(items, texts):
            if value is None:
                continue
            if test is None:
                results.append(True)
                continue
            key = (id(predicate), id(item_table), type(value), value, id(profile)) if cached else None
            result = _ABSENT
            if key is not None:
                try:
                    result = memo.get(key, _ABSENT)
                except TypeError:  # an unhashable item: evaluated, not kept
                    key = None
            if result is _ABSENT:
                result = test(derive(scope, item=value, item_text=text, item_table=item_table))
                if key is not None:
                    memo[key] = result
            results.append(result)
        if name == "any":
            return True if True in results else (None if None in results else False)
        if name == "all":
            return False if False in results else (None if None in results else True)
        if name == "count":
            return sum(1 for r in results if r is True)
        return len({r for r in results if r is not None})

    def _reads_item_and_profile(self, node: Node | None) -> bool:
        if node is None:
            return False
        entry = self._pure.get(id(node))
        if entry is None or entry[0] is not node:
            entry = self._pure[id(node)] = (node, all(p[0] in _ITEM_AND_PROFILE for p in field_paths(node)))
        return entry[1]

    def _list(self, path: tuple, scope: Scope):
        values, texts = self.nav(path, scope)
        if not isinstance(values, list):
            return [], [], None
        texts = texts if isinstance(texts, list) else values
        # the table of the list's items, for item.x navigation
        table = scope.table
        if path[0] == "other":
            table, path = scope.other_table, path[1:]
        elif path[0] == "organization":
            table, path = self.tables["Organization"], path[1:]
        for part in path[:-1]:
            table = self._target(table, part) if table else None
        item_table = self._target(table, path[-1]) if table else None
        return values, texts, item_table

    def placeholder(self, node: Node, scope: Scope) -> str:
        value, text = self.nav(node.args, scope)
        return display(value, text)


_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


class LocalEngine:
    """``focus``: the files being reported. Checks whose findings land on the
    record they test skip records of other files (loaded only to resolve
    references); grouping checks still see every record."""

    def __init__(self, estate: Estate, rules: dict[str, Rule], focus: set[str] | None = None):
        self.estate = estate
        self.rules = rules
        self.focus = focus
        self.evaluator = Evaluator(estate)
        self.tables = load_tables()
        self._rows: dict[tuple, list] = {}  # rows(): (table, focused, where) -> its rows
        self._scopes: dict[str, list] = {}  # _scoped(): table -> (record, scope) of each record


    def run(self) -> list[Finding]:
        findings: list[Finding] = []
        for rule in self.rules.values():
            for check in rule.checks:
                try:
                    findings.extend(self._run_check(rule, check))
                except Exception as exc:  # a broken (user) rule must not kill the run
                    findings.append(Finding(RULE_FAILED, "error",
                                            rule_failed_message(rule.id, f"{type(exc).__name__}: {exc}")))
        return findings

    # -- helpers --------------------------------------------------------------

    def finding(self, rule: Rule, check: Check, scope: Scope, relative: tuple) -> Finding:
        record = scope.record
        severity = rule.severity
        for level in ("error", "warning", "info"):
            node = check.severity_when.get(level)
            if node is not None and self.evaluator.eval(node, scope) is True:
                severity = level
                break
        message = check.fill({text: self.evaluator.placeholder(node, scope) for text, node in check.placeholders})
        path, line, column = locate(record, relative)
        entity = Entity(record["_kind"], record["_entity"]) if record.get("_entity") else None
        return Finding(rule.id, severity, message, record["_file"], line, column, path, entity)

    def rows(self, check: Check, focused: bool = False) -> list[tuple[dict, Scope]]:
        """(record, scope) of the records of the check's table that meet its `where`
        (``focused``: of the reported files only). Checks share `where`s (82 distinct
        among 116 predicate checks): each is evaluated once per table. Keyed by its
        text, which tells 1 from true and from 1.0 where the nodes compare equal."""
        key = (check.table, focused, repr(check.where))
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = self._matching_rows(check, focused)
        return found

    def _matching_rows(self, check: Check, focused: bool) -> list[tuple[dict, Scope]]:
        focus = self.focus if focused else None
        where = self.holds(check.where)
        out = []
        for record, scope in self._scoped(check.table):
            if focus is not None and record["_file"] not in focus:
                continue
            if where(scope):
                out.append((record, scope))
        return out

    def _scoped(self, table_name: str) -> list[tuple[dict, Scope]]:
        """Every record of the table with its scope, made once (checks only derive from it)."""
        found = self._scopes.get(table_name)
        if found is None:
            table = self.tables[table_name]
            found = self._scopes[table_name] = [(record, Scope(record, table))
                                                for record in self.estate.tables[table_name]]
        return found

    def member_rows(self, check: Check, key_of) -> list[tuple[dict, Scope, Any]]:
        """(record, scope, key) of the rows a grouping check needs, in table order:
        every row without a focus; with one, only rows whose key is the key of a
        reported file's row (other groups can give no reported finding). For the
        other rows the key is computed first, so most skip `where`; `where` still
        decides membership."""
        if self.focus is None:
            return [(record, scope, key_of(scope)) for record, scope in self.rows(check)]
        wanted = {key_of(scope) for _, scope in self.rows(check, focused=True)} - {None}
        if not wanted:
            return []
        table = self.tables[check.table]
        out = []
        for record in self.estate.tables[check.table]:
            scope = Scope(record, table)
            if record["_file"] not in self.focus:
                try:
                    if key_of(scope) not in wanted:
                        continue
                except Exception:  # noqa: BLE001 - a key `where` would have ruled out
                    continue
            if check.where is None or self.evaluator.eval(check.where, scope) is True:
                out.append((record, scope, key_of(scope)))
        return out

    def touches_focus(self, members: list[tuple[dict, Scope]]) -> bool:
        """Whether a group holds a record of a reported file (only those get findings)."""
        return self.focus is None or any(record["_file"] in self.focus for record, _ in members)

    def _run_check(self, rule: Rule, check: Check) -> list[Finding]:
        return FORMS[check.form].local(self, rule, check)

    def true(self, node: Node | None, scope: Scope) -> bool:
        return node is None or self.evaluator.eval(node, scope) is True

    def holds(self, node: Node | None):
        """``true`` as a function of a scope, compiled once (for a loop over records)."""
        if node is None:
            return lambda scope: True
        test = self.evaluator.compiled(node)
        return lambda scope: test(scope) is True

