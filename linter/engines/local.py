"""The local engine: evaluates compiled rule checks over the estate's records in
Python, with SQL's three-valued logic so it agrees with the Spark engine."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from linter.estate import Estate, record_order
from linter.findings import RULE_FAILED, Entity, Finding, rule_failed_message
from linter.model.tables import TableSpec, load_tables
from linter.policy.expr import Node, field_paths, parse
from linter.policy.locate import display, field_path, locate
from linter.policy.packs import Check, Rule

ORG_ABSENT = "the estate has no Organization document: add one (kind: Organization) describing sites, hierarchies and transport settings"
ORG_SEVERAL = "the estate has {count} Organization documents; exactly one describes the organization: merge them"


@dataclass
class Scope:
    record: dict | None
    table: TableSpec | None
    item: Any = None
    item_text: Any = None
    item_table: TableSpec | None = None
    other: dict | None = None
    other_table: TableSpec | None = None
    value: Any = None
    value_text: Any = None
    value_table: TableSpec | None = None
    aggregates: dict = field(default_factory=dict)


def derive(scope: Scope, **changes) -> Scope:
    """The scope with some fields changed: dataclasses.replace, without its per-call
    introspection (the pairs and list loops make millions of these)."""
    fields = dict(scope.__dict__)
    fields.update(changes)
    return Scope(**fields)


_SCOPED_NAMES = {"item", "value", "other", "organization"}
# an aggregate's predicate that reads nothing but these is a function of the item and
# the pairs profile: _profile_pairs memoizes it (item_memo)
_ITEM_AND_PROFILE = {"item", "profile"}
_ABSENT = object()


class Evaluator:
    def __init__(self, estate: Estate):
        self.estate = estate
        self.tables = load_tables()
        self._compiled: dict[int, Any] = {}
        self._nav_memo: dict[tuple, tuple[Any, Any]] = {}
        # set by LocalEngine._profile_pairs for its duration: predicate results keyed
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

    def _fact(self, name: str, table_name: str, condition: str, by: str | None = None, record=None) -> int:
        """A count of the records of ``table_name`` meeting ``condition``: estate-wide,
        or (``by``) those whose ``by`` names ``record``."""
        memo = self.__dict__.setdefault("_facts", {})
        key = (table_name, condition, by)
        if key not in memo:
            node, table = parse(condition), self.tables[table_name]
            key_node = parse(by) if by else None
            counts: dict = defaultdict(int)
            for counted in self.estate.tables[table_name]:
                scope = Scope(counted, table)
                if self.eval(node, scope) is True:
                    counts[self.eval(key_node, scope) if key_node else None] += 1
            memo[key] = counts
        counts = memo[key]
        if by is None:
            return counts.get(None, 0)
        own = record.get("name") if record else None
        return counts.get(own, 0) if own is not None else 0

    # -- navigation -------------------------------------------------------
    def _target(self, table: TableSpec, name: str) -> TableSpec | None:
        spec = table.fields.get(name)
        if spec is not None and spec.ref:
            return self.tables[spec.ref]
        if name == table.parent:
            return self.tables[table.document]
        return None

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
        entry = self._compiled.get(id(node))
        if entry is None or entry[0] is not node:
            # the node is kept with its closure so that its id cannot be reused
            entry = self._compiled[id(node)] = (node, self._compile(node))
        return entry[1](scope)

    def _compile(self, node: Node):
        """The expression as nested closures: interpreting the tree for every
        record costs several times more."""
        op, args = node.op, node.args
        if op == "const":
            value = args[0]
            return lambda scope: value
        if op == "field":
            path = args
            if len(path) == 1 and path[0] not in _SCOPED_NAMES:
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
                return left + right if symbol == "+" else left - right if symbol == "-" else left * right
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
            name, call_args = args[0], args[1:]
            return lambda scope: self._call(name, call_args, scope)
        raise ValueError(f"unknown expression node {op}")

    def _call(self, name: str, args: tuple, scope: Scope) -> Any:
        if name == "coalesce":
            for arg in args:
                value = self.eval(arg, scope)
                if value is not None:
                    return value
            return None
        if name in ("greatest", "least"):
            values = [v for v in (self.eval(a, scope) for a in args) if v is not None]
            if not values:
                return None
            return max(values) if name == "greatest" else min(values)
        if name == "lower":
            value = self.eval(args[0], scope)
            return value.lower() if isinstance(value, str) else None
        if name == "size":
            value = self.eval(args[0], scope)
            return len(value) if isinstance(value, list) else None
        if name == "written":
            path = args[0].args
            if path[0] == "organization":
                return bool(self.estate.organization.get(path[-1] + "__set"))
            record = scope.record if path[0] != "other" else scope.other
            return bool(record.get(path[-1] + "__set"))
        if name == "site_group":
            return self.estate.graph.site_group(self.eval(args[0], scope))
        if name == "site_cost":
            return self.estate.graph.site_cost(self.eval(args[0], scope), self.eval(args[1], scope))
        # list aggregates: any, all, count, distinct_count
        items, texts, item_table = self._list(args[0].args, scope)
        results = []
        predicate = args[1] if len(args) > 1 else None
        memo = self.item_memo
        profile = scope.aggregates.get("profile") if memo is not None else None
        cached = profile is not None and self._reads_item_and_profile(predicate)
        for value, text in zip(items, texts):
            if value is None:
                continue
            if predicate is None:
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
                result = self.eval(predicate, derive(scope, item=value, item_text=text, item_table=item_table))
                if key is not None:
                    memo[key] = result
            results.append(result)
        if name == "any":
            return True if True in results else (None if None in results else False)
        if name == "all":
            return False if False in results else (None if None in results else True)
        if name == "count":
            return sum(1 for r in results if r is True)
        if name == "distinct_count":
            return len({r for r in results if r is not None})
        raise ValueError(name)

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


    def run(self) -> list[Finding]:
        findings: list[Finding] = []
        for rule in self.rules.values():
            for check in rule.checks:
                if check.form == "builtin":
                    if check.runs:
                        findings.extend(getattr(self, "_builtin_" + check.runs)(rule))
                    continue
                try:
                    findings.extend(self._run_check(rule, check))
                except Exception as exc:  # a broken (user) rule must not kill the run
                    findings.append(Finding(RULE_FAILED, "error",
                                            rule_failed_message(rule.id, f"{type(exc).__name__}: {exc}")))
        return findings

    # -- helpers --------------------------------------------------------------
    def _builtin_organization_count(self, rule: Rule) -> list[Finding]:
        """EXL008: no Organization (while the estate holds documents), or several."""
        count = self.estate.organization_count
        if count == 1 or not self.estate.has_documents:
            return []
        if count == 0:
            return [Finding(rule.id, rule.severity, ORG_ABSENT)]
        out = []
        for record in self.estate.tables["Organization"]:
            path, line, column = locate(record, ("metadata", "name"))
            out.append(Finding(rule.id, rule.severity, ORG_SEVERAL.format(count=count), record["_file"],
                               line, column, path, Entity("Organization", record["_entity"])))
        return out

    def _finding(self, rule: Rule, check: Check, scope: Scope, relative: tuple) -> Finding:
        record = scope.record
        severity = rule.severity
        for level in ("error", "warning", "info"):
            node = check.severity_when.get(level)
            if node is not None and self.evaluator.eval(node, scope) is True:
                severity = level
                break
        message = check.message
        for text, node in check.placeholders:
            message = message.replace("{" + text + "}", self.evaluator.placeholder(node, scope))
        path, line, column = locate(record, relative)
        entity = Entity(record["_kind"], record["_entity"]) if record.get("_entity") else None
        return Finding(rule.id, severity, message, record["_file"], line, column, path, entity)

    def _rows(self, check: Check, focused: bool = False) -> list[tuple[dict, Scope]]:
        table = self.tables[check.table]
        focus = self.focus if focused else None
        out = []
        for record in self.estate.tables[check.table]:
            if focus is not None and record["_file"] not in focus:
                continue
            scope = Scope(record, table)
            if check.where is None or self.evaluator.eval(check.where, scope) is True:
                out.append((record, scope))
        return out

    def _member_rows(self, check: Check, key_of) -> list[tuple[dict, Scope, Any]]:
        """(record, scope, key) of the rows a grouping check needs, in table order:
        every row without a focus; with one, only rows whose key is the key of a
        reported file's row (other groups can give no reported finding). For the
        other rows the key is computed first, so most skip `where`; `where` still
        decides membership."""
        if self.focus is None:
            return [(record, scope, key_of(scope)) for record, scope in self._rows(check)]
        wanted = {key_of(scope) for _, scope in self._rows(check, focused=True)} - {None}
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

    def _touches_focus(self, members: list[tuple[dict, Scope]]) -> bool:
        """Whether a group holds a record of a reported file (only those get findings)."""
        return self.focus is None or any(record["_file"] in self.focus for record, _ in members)

    def _run_check(self, rule: Rule, check: Check) -> list[Finding]:
        return getattr(self, "_form_" + check.form)(rule, check)

    def _true(self, node: Node | None, scope: Scope) -> bool:
        return node is None or self.evaluator.eval(node, scope) is True

    # -- forms ------------------------------------------------------------------
    def _form_predicate(self, rule: Rule, check: Check) -> list[Finding]:
        table = self.tables[check.table]
        out = []
        for record, scope in self._rows(check, focused=True):
            if check.each:
                spec = table.fields[check.each]
                values = self.evaluator.field(record, check.each) or []
                texts = record.get(check.each + "__text") or values
                ref = self.tables[spec.ref] if spec.ref else None
                for index, (value, text) in enumerate(zip(values, texts)):
                    inner = derive(scope, item=value, item_text=text, item_table=ref)
                    if self._true(check.when, inner):
                        out.append(self._finding(rule, check, inner, spec.path + (index,)))
            elif check.fields:
                for name in check.fields:
                    spec = table.fields.get(name)
                    ref = self.tables[spec.ref] if spec is not None and spec.ref else None
                    inner = derive(scope, value=self.evaluator.field(record, name), value_text=record.get(name + "__text"),
                                    value_table=ref)
                    if self._true(check.when, inner):
                        out.append(self._finding(rule, check, inner, field_path(table, name)))
            elif self._true(check.when, scope):
                out.append(self._finding(rule, check, scope, field_path(table, check.field)))
        return out

    def _form_unique(self, rule: Rule, check: Check) -> list[Finding]:
        table = self.tables[check.table]
        groups: dict[tuple, list[tuple[dict, Scope]]] = defaultdict(list)

        def key_of(scope):
            key = tuple(self.evaluator.eval(k, scope) for k in check.key)
            return None if any(part is None for part in key) else key

        for record, scope, key in self._member_rows(check, key_of):
            if key is not None:
                groups[key].append((record, scope))
        out = []
        for members in groups.values():
            if len(members) < 2 or not self._touches_focus(members):
                continue
            names = sorted((r["name__text"] or "" for r, _ in members), key=lambda n: (n.lower(), n))
            for record, scope in members:
                inner = derive(scope, aggregates={"count": len(members), "group": names})
                if self._true(check.when, inner):
                    out.append(self._finding(rule, check, inner, field_path(table, check.field)))
        return out

    def _target_keys(self, check: Check, target_table: TableSpec) -> set:
        """The keys a reference may resolve to; shared by checks with the same target."""
        memo = self.__dict__.setdefault("_key_sets", {})
        memo_key = (check.target, check.target_key, id(check.target_where))
        if memo_key not in memo:
            key_node = Node("field", (check.target_key,))
            keys = set()
            for target in self.estate.tables[check.target]:
                tscope = Scope(target, target_table)
                key = self.evaluator.eval(key_node, tscope)
                if key is not None and self._true(check.target_where, tscope):
                    keys.add(key)
            memo[memo_key] = (check.target_where, keys)  # the node is kept so its id stays unique
        return memo[memo_key][1]

    def _form_reference(self, rule: Rule, check: Check) -> list[Finding]:
        table = self.tables[check.table]
        target_table = self.tables[check.target]
        spec = table.fields.get(check.field)
        rows = self._rows(check, focused=True)
        keys = self._target_keys(check, target_table) if rows else set()
        out = []
        for record, scope in rows:
            value = self.evaluator.field(record, check.field)
            text = record.get(check.field + "__text")
            if spec is not None and spec.is_list:
                texts = text if isinstance(text, list) else value or []
                pairs = [(v, t, spec.path + (i,)) for i, (v, t) in enumerate(zip(value or [], texts))]
            else:
                pairs = [(value, text, field_path(table, check.field))]
            for v, t, path in pairs:
                if v is None:
                    if not check.required or (spec is not None and spec.is_list):
                        continue
                elif v in keys:
                    continue
                inner = derive(scope, value=v, value_text=t)
                if self._true(check.when, inner):
                    out.append(self._finding(rule, check, inner, path))
        return out

    def _form_group(self, rule: Rule, check: Check) -> list[Finding]:
        table = self.tables[check.table]
        groups: dict[Any, list[tuple[dict, Scope]]] = defaultdict(list)
        for record, scope, key in self._member_rows(check, lambda scope: self.evaluator.eval(check.group, scope)):
            if key is not None:
                groups[key].append((record, scope))
        out = []
        for members in groups.values():
            if not self._touches_focus(members):
                continue  # its findings would all be on files not reported
            aggregates: dict[str, Any] = {"count": len(members)}
            for name, (fn, node) in check.aggregates.items():
                values = [self.evaluator.eval(node, scope) for _, scope in members]
                if fn == "count":
                    aggregates[name] = sum(1 for v in values if v is True)
                else:
                    aggregates[name] = len({v for v in values if v is not None})
            for record, scope in members:
                if self.focus is not None and record["_file"] not in self.focus:
                    continue
                inner = derive(scope, aggregates=aggregates)
                if self._true(check.when, inner) and self._true(check.report, inner):
                    out.append(self._finding(rule, check, inner, field_path(table, check.field)))
        return out

    def _form_minority(self, rule: Rule, check: Check) -> list[Finding]:
        table = self.tables[check.table]
        partitions: dict[Any, dict[Any, list]] = defaultdict(lambda: defaultdict(list))
        for record, scope, part in self._member_rows(check, lambda scope: self.evaluator.eval(check.partition, scope)):
            group = self.evaluator.eval(check.group, scope)
            if part is None or group is None:
                continue
            partitions[part][group].append((record, scope))
        out = []
        for groups in partitions.values():
            if len(groups) < 2 or not any(self._touches_focus(m) for m in groups.values()):
                continue
            def rank(item):
                members = item[1]
                ties = [self.evaluator.eval(check.tiebreak, s) for _, s in members]
                ties = [t for t in ties if t is not None]
                return (-len(members), min(ties) if ties else "")
            winner_key, winner = min(groups.items(), key=rank)
            # the smallest tiebreak, and its text as written (for messages): min over (value, text)
            ties = [pair for pair in (self._tiebreak(check, s) for _, s in winner) if pair[0] is not None]
            largest, largest_text = min(ties, key=lambda pair: (pair[0], pair[1] or "")) if ties else (None, None)
            for key, members in groups.items():
                if key == winner_key:
                    continue
                for record, scope in members:
                    inner = derive(scope, aggregates={"count": len(members), "largest": largest,
                                                      "largest__text": largest_text})
                    if self._true(check.when, inner):
                        out.append(self._finding(rule, check, inner, field_path(table, check.field)))
        return out

    def _tiebreak(self, check: Check, scope: Scope) -> tuple[Any, Any]:
        if check.tiebreak.op == "field":
            return self.evaluator.nav(check.tiebreak.args, scope)
        return self.evaluator.eval(check.tiebreak, scope), None

    def _form_pairs(self, rule: Rule, check: Check) -> list[Finding]:
        table = self.tables[check.table]
        other_table = self.tables[check.with_table]
        left, right = check.join
        rows = self._rows(check, focused=True)
        if not rows:
            return []  # no record of a reported file: no partner index to build
        others: dict[Any, list[dict]] = defaultdict(list)
        for other in self.estate.tables[check.with_table]:
            key = self.evaluator.eval(right, Scope(other, other_table))
            if key is not None:
                others[key].append(other)
        if check.profile:
            return self._profile_pairs(rule, check, others, rows)
        out = []
        for record, scope in rows:
            key = self.evaluator.eval(left, scope)
            if key is None:
                continue
            for other in sorted(others.get(key, ()), key=record_order):
                inner = derive(scope, other=other, other_table=other_table)
                if self._true(check.when, inner):
                    out.append(self._finding(rule, check, inner, field_path(table, check.field)))
        return out

    def _profile_pairs(self, rule: Rule, check: Check, others: dict[Any, list[dict]],
                       rows: list[tuple[dict, Scope]]) -> list[Finding]:
        """Pairs whose `when` reads only the partner's profile: evaluated once per
        distinct profile among a record's partners, then `other_when` per partner of
        a profile that fired. The same findings as `when and other_when` over every
        pair, at the cost of records x profiles instead of records x partners."""
        table = self.tables[check.table]
        other_table = self.tables[check.with_table]
        names = list(check.profile)
        grouped: dict[Any, dict[tuple, tuple[dict, list[dict]]]] = {}
        for key, members in others.items():
            profiles: dict[tuple, tuple[dict, list[dict]]] = {}
            for other in members:
                scope = Scope(other, other_table)
                values = {n: self.evaluator.eval(check.profile[n], scope) for n in names}
                identity = tuple(_hashable(values[n]) for n in names)
                profiles.setdefault(identity, (values, []))[1].append(other)
            grouped[key] = profiles
        left = check.join[0]
        # `when` reads the record only through these fields (and the estate, which is fixed):
        # records with equal values share its result, per profile
        reads = sorted({p[0] for p in field_paths(check.when) if p[0] not in _SCOPED_NAMES | {"profile"}}) \
            if check.when is not None else []
        # per distinct (join key, fields `when` reads): the profiles for which it fires
        firing: dict[tuple, list] = {}
        out = []
        self.evaluator.item_memo = {}
        try:
            for record, scope in rows:
                key = self.evaluator.eval(left, scope)
                if key is None:
                    continue
                profiles = grouped.get(key)
                if not profiles:
                    continue
                try:
                    seen = (key,) + tuple(_hashable(self.evaluator.field(record, name)) for name in reads)
                    fired = firing.get(seen)
                except TypeError:
                    seen = fired = None
                if fired is None:
                    fired = []
                    for values, members in profiles.values():
                        inner = derive(scope, aggregates={**scope.aggregates, "profile": values})
                        if self._true(check.when, inner):
                            fired.append((values, members))
                    if seen is not None:
                        firing[seen] = fired
                for values, members in fired:
                    inner = derive(scope, aggregates={**scope.aggregates, "profile": values})
                    for other in sorted(members, key=record_order):
                        pair = derive(inner, other=other, other_table=other_table)
                        if check.other_when is None or self._true(check.other_when, pair):
                            out.append(self._finding(rule, check, pair, field_path(table, check.field)))
        finally:
            self.evaluator.item_memo = None
        return out


def _hashable(value: Any) -> Any:
    """A profile value as a dictionary key (lists become tuples)."""
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value
