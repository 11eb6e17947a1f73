"""Rule packs: YAML files of rule definitions, loaded as data and checked.

A rule has metadata (id, title, severity, summary, rationale, source, fix
guidance, examples) and one or more checks. A check has a form:

- ``predicate``: a condition on one record (``when``), optionally for each item
  of a list (``each``) or for each of several fields (``fields``, bound to ``value``);
- ``unique``: records sharing a ``key`` (all values present) are each reported;
- ``reference``: each name in ``field`` must match a ``target`` record
  (by ``target_key``, default its name) satisfying ``target_where``;
- ``group``: records grouped by ``group``, with ``aggregates``
  (``{count: expr}``, ``{distinct: expr}``); ``when`` sees them; ``report``
  picks the rows to report;
- ``minority``: within each ``partition``, rows outside the largest ``group``
  (ties: the group with the smallest ``tiebreak``);
- ``pairs``: each record with each ``with`` record sharing ``join`` keys,
  ``other`` bound to the second;
- ``builtin``: reported by the loader or validator (EXL001-EXL005) or, with
  ``runs: <name>``, computed by each engine's function of that name
  (linter.forms.builtin.CHECKS: EXL008's ``organization_count``); the pack holds its documentation.

Loading a pack never executes anything from it: expressions are parsed by
``linter.policy.expr`` into a tree and checked against the model's tables.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any

import yaml

from linter.loading import display_path, read_regular_text
from linter.loading.fast_yaml import load as _yaml_load

from linter.findings import SEVERITIES
from linter.fixing.spec import FixSpecError, check_fix, parse_fix
from linter.model.tables import TableSpec, load_tables
from linter.forms import CHECK_KEYS, COMMON_KEYS, FORMS
from linter.forms.builtin import parse_runs
from linter.forms.errors import PackError, expression
from linter.policy import expr as _expr
from linter.policy.expr import Node
from linter.resources import rules_dir

ID_PATTERN = re.compile(r"^[A-Z]{2,6}\d{3}$")
RULE_KEYS = {
    "id", "title", "severity", "summary", "rationale", "source", "fix_hint", "examples", "fix", "checks",
    "options", "tags",
}
CONTEXT_NAMES = {"organization", "item", "value", "other", "profile", "count", "group", "largest"}


@dataclass
class Check:
    form: str
    table: str | None = None
    where: Node | None = None
    when: Node | None = None
    field: str | None = None
    fields: tuple[str, ...] = ()
    each: str | None = None
    message: str = ""
    severity_when: dict[str, Node] = dc_field(default_factory=dict)
    key: tuple[Node, ...] = ()
    target: str | None = None
    target_key: str = "name"
    target_where: Node | None = None
    required: bool = False
    repeats: bool = False  # reference over a list: only the entries that repeat an earlier one
    group: Node | None = None
    aggregates: dict[str, tuple[str, Node]] = dc_field(default_factory=dict)
    report: Node | None = None
    partition: Node | None = None
    tiebreak: Node | None = None
    with_table: str | None = None
    join: tuple[Node, Node] | None = None
    # pairs: named expressions over the `with` record; `when` reads them as
    # profile.<name> once per distinct profile, `other_when` then per partner
    profile: dict[str, Node] = dc_field(default_factory=dict)
    other_when: Node | None = None
    runs: str | None = None  # form builtin: the engines' check of that name (linter.forms.builtin.CHECKS)
    placeholders: tuple[tuple[str, Node], ...] = ()
    # the message cut at its placeholders: literal text at even positions, a
    # placeholder's text at odd ones (filled in one pass: a value holding "{name}"
    # is shown as written, not filled in turn)
    template: tuple[str, ...] = ()

    def fill(self, values: dict[str, str]) -> str:
        """The message with each placeholder's display (``values``, by its text)."""
        return "".join(piece if i % 2 == 0 else values[piece] for i, piece in enumerate(self.template))


@dataclass
class Rule:
    id: str
    title: str
    severity: str
    summary: str
    rationale: str
    source: dict
    fix_hint: str
    examples: dict
    checks: list[Check]
    fix: dict | None = None
    options: dict = dc_field(default_factory=dict)
    option_defaults: dict = dc_field(default_factory=dict)  # as the pack declares them
    pack: str = ""
    origin: str = "builtin"  # or the directory of a user's rule pack

    @property
    def family(self) -> str:
        return re.match(r"[A-Z]+", self.id).group(0)

    @property
    def builtin(self) -> bool:
        return all(c.form == "builtin" for c in self.checks)

    @property
    def fixable(self) -> bool:
        return bool(self.fix)

    @property
    def tables(self) -> list[str]:
        return sorted({c.table for c in self.checks if c.table})

    def citation(self) -> str:
        """The published document the rule comes from: title, the work it is
        part of, publisher and date, address."""
        src = self.source or {}
        cited = f"\u201c{src['title']}\u201d" if src.get("title") else ""
        if src.get("part_of"):
            cited += f", {src['part_of']}"
        imprint = ", ".join(str(src[k]) for k in ("publisher", "date") if src.get(k))
        if imprint:
            cited += f" ({imprint})" if cited else imprint
        if src.get("url"):
            cited += f" <{src['url']}>"
        return cited

    def source_text(self) -> str:
        """The citation, then what the document says (quote) or what the rule
        takes from it (note)."""
        src = self.source or {}
        cited = self.citation()
        said = f"\u201c{src['quote']}\u201d" if src.get("quote") else src.get("note") or ""
        return f"{cited}: {said}" if cited and said else cited or said


SOURCE_KEYS = ("title", "part_of", "publisher", "date", "url", "quote", "note")


def _source(raw: Any, rule_id: str) -> dict:
    """A rule's reference: a published document a user can look up (title and
    publisher at least), with what it says (quote) or what the rule takes from
    it (note)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise PackError(f"{rule_id}: source must be a mapping with title and publisher "
                        f"(and optionally {', '.join(SOURCE_KEYS[2:])})")
    unknown = sorted(str(k) for k in set(raw) - set(SOURCE_KEYS))
    if unknown:
        raise PackError(f"{rule_id}: unknown source keys {unknown}; known: {', '.join(SOURCE_KEYS)}")
    if raw and not (raw.get("title") or raw.get("note")):
        raise PackError(f"{rule_id}: a source names the document it comes from (title, publisher)")
    return {k: str(v) for k, v in raw.items() if v is not None}


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


# What a field of each model type holds: its kind of value (linter.policy.expr) and how
# a message names it
_FIELD_KINDS = {
    "name": (_expr.TEXT, "a name"), "dn_name": (_expr.TEXT, "a name"), "text": (_expr.TEXT, "text"),
    "enum": (_expr.TEXT, "one of its values, as text"), "date": (_expr.TEXT, "a date, as ISO text"),
    "int": (_expr.NUMBER, "a number"), "count": (_expr.NUMBER, "a count"),
    "duration": (_expr.NUMBER, "a duration, in seconds"), "size": (_expr.NUMBER, "a size, in bytes"),
    "version": (_expr.NUMBER, "a version: a release rank such as 2007"), "bool": (_expr.BOOL, "true or false"),
    "names": (_expr.LIST, "a list of names"), "enums": (_expr.LIST, "a list of values"),
}


class ExpressionKindError(PackError):
    """An expression that can never be true for the kinds of its values; ``node`` is the
    whole expression, so that the loader can place it at the key that holds it."""

    def __init__(self, message: str, node: Node):
        super().__init__(message)
        self.node = node


class _Validator:
    """Checks that every name in an expression exists in the model, and that its
    values are of kinds its operations can use."""

    def __init__(self, tables: dict[str, TableSpec]):
        self.tables = tables
        self._derived_kinds: dict[tuple[str, str], str | None] = {}

    def has(self, table: TableSpec, name: str) -> bool:
        return (name in table.fields or name in table.derived or name in table.facts
                or name in ("name", table.parent, table.parent_document) and name is not None)

    def check_path(self, path, table: TableSpec, ctx: dict, where: str) -> None:
        first, rest = path[0], path[1:]
        if first in ctx:
            current = ctx[first]
            if isinstance(current, dict):  # profile.<name>: a value, not a record
                if len(rest) != 1 or rest[0] not in current:
                    raise PackError(f"{where}: {first} has only {', '.join(f'{first}.{n}' for n in current)}")
                return
            if current is None:
                if rest:
                    raise PackError(f"{where}: {first!r} cannot be navigated here")
                return
        elif first == "organization":
            current = self.tables["Organization"]
        elif self.has(table, first):
            if not rest:
                return
            target = table.target(first)
            if target is None:
                raise PackError(f"{where}: {first!r} is not a reference; cannot navigate to {rest[0]!r}")
            current = self.tables[target]
        else:
            raise PackError(f"{where}: unknown field {first!r} in table {table.name}")
        for i, part in enumerate(rest):
            if not self.has(current, part):
                raise PackError(f"{where}: unknown field {part!r} in table {current.name}")
            if i < len(rest) - 1:
                target = current.target(part)
                if target is None:
                    raise PackError(f"{where}: {part!r} of {current.name} is not a reference")
                current = self.tables[target]

    def check(self, node: Node | None, table: TableSpec, ctx: dict, where: str) -> None:
        if node is None:
            return
        self._check(node, table, ctx, where)
        _, problem = self._kind_problem(node, table, ctx)
        if problem:
            raise ExpressionKindError(f"{where}: in {_expr.render(node)!r}: {problem}", node)

    def _kind_problem(self, node: Node, table: TableSpec, ctx: dict) -> tuple[str | None, str | None]:
        """(the kind of ``node``'s value, what is wrong in it or None): names are checked first."""
        if node.op == "field":
            return self._field(node.args, table, ctx)[0], None
        if node.op == "call" and node.args[0] in _expr.AGGREGATES:
            inner = dict(ctx, item=self._list_item_table(node.args[1].args, table, ctx))
            for arg in node.args[2:]:
                _, problem = self._kind_problem(arg, table, inner)
                if problem:
                    return None, problem
            return (_expr.NUMBER if node.args[0] in ("count", "distinct_count") else _expr.BOOL), None
        kinds: list = []
        for arg in node.args:
            kind = None
            if isinstance(arg, Node):
                kind, problem = self._kind_problem(arg, table, ctx)
                if problem:
                    return None, problem
            kinds.append(kind)
        describe = lambda field: self._field(field.args, table, ctx)[1]  # noqa: E731
        return _expr.result_kind(node, kinds), _expr.kind_problem(node, kinds, describe)

    def _field(self, path, table: TableSpec, ctx: dict) -> tuple[str | None, str | None]:
        """(kind, description) of the field at ``path`` (checked already), or (None, None)."""
        first, rest = path[0], list(path[1:])
        if first in ctx:
            current = ctx[first]
            if not isinstance(current, TableSpec):
                if first == "item" and current is None and not rest:  # an item of a list of names or values
                    return _expr.TEXT, "an item of a list, as text"
                return None, None
            if not rest:
                return _expr.TEXT, "a name"  # a record stands for its name
        elif first == "organization":
            current = self.tables["Organization"]
        else:
            current, rest = table, [first, *rest]
        for part in rest[:-1]:
            target = current.target(part)
            if target is None:
                return None, None
            current = self.tables[target]
        name = rest[-1] if rest else "name"
        if name in current.facts:
            return _expr.NUMBER, "a count"
        if name in current.derived:
            return self._derived_kind(current, name), None
        return _FIELD_KINDS.get(current.field_type(name) or "", (None, None))

    def _derived_kind(self, table: TableSpec, name: str) -> str | None:
        key = (table.name, name)
        if key not in self._derived_kinds:
            self._derived_kinds[key] = None  # a derived field reading itself is not known (and not looped on)
            self._derived_kinds[key] = self._kind_problem(_expr.parse(table.derived[name]), table, {})[0]
        return self._derived_kinds[key]

    def _check(self, node: Node, table: TableSpec, ctx: dict, where: str) -> None:
        if node.op == "field":
            self.check_path(node.args, table, ctx, where)
            return
        if node.op == "call" and node.args[0] in ("any", "all", "count", "distinct_count"):
            list_path = node.args[1].args
            self.check_path(list_path, table, ctx, where)
            item_table = self._list_item_table(list_path, table, ctx)
            inner = dict(ctx)
            inner["item"] = item_table
            for arg in node.args[2:]:
                self._check(arg, table, inner, where)
            return
        for arg in node.args:
            if isinstance(arg, Node):
                self._check(arg, table, ctx, where)

    def _list_item_table(self, path, table: TableSpec, ctx: dict) -> TableSpec | None:
        current = table
        if path[0] in ctx:
            current = ctx[path[0]]
            path = path[1:]
        elif path[0] == "organization":
            current = self.tables["Organization"]
            path = path[1:]
        for i, part in enumerate(path):
            if current is None:
                return None
            if i < len(path) - 1:
                target = current.target(part)
                current = self.tables.get(target) if target else None
            else:
                target = current.target(part)
                return self.tables.get(target) if target else None
        return None


def _parse_check(raw: dict, rule_id: str, defaults: dict, validator: _Validator) -> Check:
    unknown = set(raw) - CHECK_KEYS
    if unknown:
        raise PackError(f"{rule_id}: unknown check keys {sorted(unknown)}")
    merged = {**defaults, **raw}
    form = merged.get("form", "predicate")
    if form not in FORMS:
        raise PackError(f"{rule_id}: unknown form {form!r}; known: {', '.join(FORMS)}")
    for key in sorted(set(merged) - set(COMMON_KEYS) - set(FORMS[form].KEYS)):
        # a key of another form would silently do nothing here
        owners = [name for name, module in FORMS.items() if key in module.KEYS]
        raise PackError(f"{rule_id}: `{key}` is a key of {' and '.join(owners)} checks: only with form: "
                        f"{' or '.join(owners)} (this check's form is {form})")
    if form == "builtin":
        return Check("builtin", message=merged.get("message", ""), runs=parse_runs(merged, rule_id))
    tables = validator.tables
    table_name = merged.get("table")
    if table_name not in tables:
        raise PackError(f"{rule_id}: unknown table {table_name!r}; known: {', '.join(tables)}")
    table = tables[table_name]
    where = f"{rule_id}"
    check = Check(form=form, table=table_name)
    ctx: dict[str, Any] = {}
    check.where = expression(merged["where"], where) if "where" in merged else None
    validator.check(check.where, table, ctx, where)
    check.field = merged.get("field")
    check.fields = tuple(merged.get("fields") or ())
    for name in ((check.field,) if check.field else ()) + check.fields:
        if not validator.has(table, name):
            raise PackError(f"{rule_id}: field {name!r} is not a field of {table_name}")
    if check.fields:
        ctx["value"] = None
    check.each = merged.get("each")
    if check.each:
        spec = table.fields.get(check.each)
        if spec is None or not spec.is_list:
            raise PackError(f"{rule_id}: each: {check.each!r} is not a list field of {table_name}")
        ctx["item"] = tables[spec.ref] if spec.ref else None
    finding_ctx = FORMS[form].parse(check, merged, ctx, validator, where, rule_id)
    finding_ctx = finding_ctx or ctx
    if "when" not in merged and FORMS[form].WHEN_REQUIRED:
        raise PackError(f"{rule_id}: a {form} check needs `when`")
    if "when" in merged:
        check.when = expression(merged["when"], where)
        validator.check(check.when, table, ctx, where)
    for severity, text in (merged.get("severity_when") or {}).items():
        if severity not in SEVERITIES:
            raise PackError(f"{rule_id}: severity_when: unknown severity {severity!r}")
        node = expression(text, where)
        validator.check(node, table, finding_ctx, where)
        check.severity_when[severity] = node
    check.message = merged.get("message") or ""
    if not check.message:
        raise PackError(f"{rule_id}: a check needs a message")
    placeholders = []
    for text in _PLACEHOLDER.findall(check.message):
        node = expression(text, f"{rule_id} message")
        if node.op != "field":
            raise PackError(f"{rule_id}: message placeholders must be field names, got {{{text}}}")
        validator.check(node, table, finding_ctx, f"{rule_id} message")
        placeholders.append((text, node))
    check.placeholders = tuple(dict(placeholders).items())  # each once, however often written
    check.template = tuple(_PLACEHOLDER.split(check.message))
    _stand_down_on_unread(check, table, tables.get(check.with_table) if check.with_table else None, ctx)
    return check


# Forms that judge each record (or pair) on its own: a record left out of them changes
# no other record's finding. Group, unique and minority checks count records, so one
# left out could make another fire: they read unreadable values as NULL instead.
_RECORD_FORMS = ("predicate", "reference", "pairs")


def _stand_down_on_unread(check: Check, table: TableSpec, with_table: TableSpec | None, ctx: dict) -> None:
    """One problem, one finding: a value written in a form exlint cannot read is
    EXL003's, so a check reading that field stands down for the record (REP003 saw
    `replicas: PFDB-LON`, a string, as no replica at all). Guards each field of its
    own record (and of the partner) that `where` and `when` read with `unread()`; a field
    they ask `unread()` of is theirs to judge (DUP005 words its message by it; EXL009 counts
    a setting written under both names even when one value is malformed)."""
    if check.form not in _RECORD_FORMS:
        return
    reads = [n for n in (check.where, check.when, check.other_when) if n is not None]
    judged = _fields_asked_unread(reads)
    own = _fields_read(reads, lambda path: len(path) >= 1 and path[0] not in ctx and _guardable(table, path[0])
                       and (path[0],) not in judged)
    partner = _fields_read(reads, lambda path: len(path) == 2 and path[0] == "other" and with_table is not None
                           and _guardable(with_table, path[1]) and tuple(path) not in judged)
    if own:
        check.where = _conjunction(check.where, [_not_unread((name,)) for name in own])
    if partner:
        guards = [_not_unread(("other", name)) for name in partner]
        if check.other_when is not None:
            check.other_when = _conjunction(check.other_when, guards)
        else:
            check.when = _conjunction(check.when, guards)


def _guardable(table: TableSpec, name: str) -> bool:
    spec = table.fields.get(name)
    return spec is not None and spec.type != "count"  # a count has no __set: it is never unread


def _fields_read(nodes: list[Node], wanted) -> list[str]:
    """The last name of each field path in ``nodes`` that ``wanted`` accepts; in order, once."""
    found: dict[str, None] = {}
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if node.op == "field":
            if wanted(node.args):
                found[node.args[0] if node.args[0] != "other" else node.args[1]] = None
            continue
        if node.op == "call" and node.args[0] == "unread":
            continue  # asked whether it is unread: the check itself says what that means
        stack.extend(reversed([a for a in node.args if isinstance(a, Node)]))
    return list(found)


def _fields_asked_unread(nodes: list[Node]) -> set[tuple]:
    """The field paths that ``nodes`` ask ``unread()`` of."""
    asked: set[tuple] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node.op == "call" and node.args[0] == "unread" and isinstance(node.args[1], Node):
            asked.add(tuple(node.args[1].args))
        stack.extend(a for a in node.args if isinstance(a, Node))
    return asked


def _not_unread(path: tuple) -> Node:
    return Node("not", (Node("call", ("unread", Node("field", path))),))


def _conjunction(node: Node | None, guards: list[Node]) -> Node:
    parts = ([node] if node is not None else []) + guards
    return parts[0] if len(parts) == 1 else Node("and", tuple(parts))


_OPTION = re.compile(r"\$([a-z_][a-z0-9_]*)")


def _substitute(node: Any, options: dict, rule_id: str) -> Any:
    """Put option values (numbers, from the pack or the user's config) into the
    check's expressions and messages before they are parsed."""
    if isinstance(node, str):
        def value(match):
            name = match.group(1)
            if name not in options:
                raise PackError(f"{rule_id}: unknown option ${name}; declared: {', '.join(options) or 'none'}")
            return repr(options[name])
        return _OPTION.sub(value, node)
    if isinstance(node, list):
        return [_substitute(v, options, rule_id) for v in node]
    if isinstance(node, dict):
        return {k: (v if k == "examples" else _substitute(v, options, rule_id)) for k, v in node.items()}
    return node


def option_value_problem(value, default) -> str | None:
    """Why an option's configured ``value`` cannot stand for its ``default``, or None:
    NaN or infinite, an integer past 64 bits, or a negative number where the default
    is not negative (a threshold)."""
    def number(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    if number(value) and (value != value or value in (float("inf"), float("-inf"))):
        return "it must be a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
        # substituted into the rule's expression, where both engines hold 64-bit integers:
        # left to the expression, its error would name the rule pack, not this value
        return "it must fit in 64 bits (-9223372036854775808 to 9223372036854775807)"
    if number(value) and number(default) and default >= 0 and value < 0:
        return f"it must be 0 or more (the default is {default})"
    return None


def parse_rule(raw: dict, validator: _Validator, pack: str = "", overrides: dict | None = None) -> Rule:
    if not isinstance(raw, dict):
        raise PackError(f"{pack}: each rule must be a mapping")
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not ID_PATTERN.match(rule_id):
        raise PackError(f"{pack}: invalid rule id {rule_id!r} (expected like ABC123)")
    options = dict(raw.get("options") or {})
    for name, value in (overrides or {}).get(rule_id, {}).items():
        if name not in options:
            raise PackError(f"{rule_id}: has no option {name!r}; options: {', '.join(options) or 'none'}")
        problem = option_value_problem(value, options[name])
        if problem:  # linter.config.check_options says where, before rules load
            raise PackError(f"{rule_id}: option {name} is {value!r}: {problem}")
        options[name] = value
    raw = {k: (_substitute(v, options, rule_id) if k in CHECK_KEYS or k == "checks" else v) for k, v in raw.items()}
    severity = raw.get("severity")
    if severity not in SEVERITIES:
        raise PackError(f"{rule_id}: severity must be one of {', '.join(SEVERITIES)}")
    for key in ("title", "summary", "rationale"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise PackError(f"{rule_id}: missing {key}")
    check_part = {k: v for k, v in raw.items() if k in CHECK_KEYS}
    unknown = set(raw) - RULE_KEYS - CHECK_KEYS
    if unknown:
        raise PackError(f"{rule_id}: unknown keys {sorted(unknown)}")
    if "checks" in raw:
        defaults = check_part
        checks = [_parse_check(c, rule_id, defaults, validator) for c in raw["checks"]]
    else:
        checks = [_parse_check(check_part, rule_id, {}, validator)]
    if raw.get("fix") is not None:
        try:
            check_fix(parse_fix(raw["fix"]), checks, validator, f"{rule_id} fix")
        except FixSpecError as exc:
            raise PackError(f"{rule_id}: {exc}") from None
    examples = raw.get("examples") or {}
    if not checks[0].form == "builtin" or examples:
        if not examples.get("bad") or not examples.get("good"):
            raise PackError(f"{rule_id}: every rule needs good and bad examples")
    return Rule(
        id=rule_id,
        title=raw["title"].strip(),
        severity=severity,
        summary=raw["summary"].strip(),
        rationale=raw["rationale"].strip(),
        source=_source(raw.get("source"), rule_id),
        fix_hint=(raw.get("fix_hint") or "").strip(),
        examples=examples,
        checks=checks,
        fix=raw.get("fix"),
        options=options,
        option_defaults=dict(raw.get("options") or {}),
        pack=pack,
    )


def _read_pack(path: Path) -> list:
    from linter.cache import parsed_file_cache

    cache = parsed_file_cache("packs")
    cached = cache.get(path)
    if cached is not None:
        return cached
    try:
        data = _yaml_load(read_regular_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: cannot read rule pack: {exc}") from None
    except yaml.YAMLError as exc:
        raise PackError(f"{path}: rule pack is not valid YAML: {exc}") from None
    if data is None:
        return []
    if isinstance(data, dict) and "rules" in data:
        data = data["rules"]
    if not isinstance(data, list):
        raise PackError(f"{path}: a rule pack is a list of rules (or a mapping with `rules:`)")
    cache.put(path, data)
    return data


def _rule_line(path: Path, raw) -> str:
    """``:<line>`` of the rule's ``id:`` in its pack file, or nothing when it cannot be found."""
    rule_id = raw.get("id") if isinstance(raw, dict) else None
    if not isinstance(rule_id, str) or not rule_id:
        return ""
    try:
        text = read_regular_text(path)
    except (OSError, UnicodeDecodeError):
        return ""
    import re

    pattern = re.compile(r"^[\s-]*id\s*:\s*['\"]?" + re.escape(rule_id) + r"['\"]?\s*(?:#.*)?$")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return f":{number}"
    return ""


def _key_position(path: Path, index: int, raw, node: Node) -> str:
    """``:<line>:<column>`` of the key of rule ``index`` whose expression is ``node``
    (``when:``, a check's ``where:``...), or nothing when it cannot be found."""
    from linter.loading.fast_yaml import load_marked

    found = []

    def search(value, keys):
        if found:
            return
        if isinstance(value, str) and keys:
            try:
                if _expr.parse(value) == node:
                    found.append(keys)
            except _expr.ExprError:
                pass
        elif isinstance(value, dict):
            for key, item in value.items():
                search(item, keys + (key,))
        elif isinstance(value, list):
            for number, item in enumerate(value):
                search(item, keys + (number,))

    search(raw, ())
    if not found:
        return ""
    try:
        _, marks = load_marked(read_regular_text(path))
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
        return ""
    prefix = ("rules", index) if ("rules",) in marks else (index,)  # a pack may be a mapping with `rules:`
    mark = marks.get(prefix + found[0])
    return f":{mark[0]}:{mark[1]}" if mark else ""


def load_rules(extra_dirs=(), options: dict | None = None) -> dict[str, Rule]:
    """All rules: the built-in packs, then packs from ``extra_dirs``, with option
    overrides (``{rule_id: {name: value}}``) from the configuration."""
    key = (tuple(str(d) for d in extra_dirs), repr(sorted((options or {}).items())))
    if key not in _cache:
        _cache[key] = _load_rules(key[0], options or {})
    return _cache[key]


_cache: dict[tuple, dict] = {}


def _load_rules(extra_dirs: tuple[str, ...], options: dict) -> dict[str, Rule]:
    validator = _Validator(load_tables())
    rules: dict[str, Rule] = {}
    directories = [rules_dir()] + [Path(d) for d in extra_dirs]
    for directory in directories:
        if not directory.is_dir():
            raise PackError(f"{directory}: rule pack directory not found")
        for path in sorted(directory.glob("*.y*ml")):
            for index, raw in enumerate(_read_pack(path)):
                try:
                    rule = parse_rule(raw, validator, path.name, options)
                except PackError as exc:  # where: the pack file and the line of the rule's id (or of the key)
                    message = str(exc)
                    if message.startswith(path.name + ": "):
                        message = message[len(path.name) + 2:]
                    at = _key_position(path, index, raw, exc.node) if isinstance(exc, ExpressionKindError) else ""
                    raise PackError(f"{display_path(path)}{at or _rule_line(path, raw)}: {message}") from None
                if directory != directories[0]:
                    rule.origin = str(directory)
                if rule.id in rules:
                    raise PackError(f"{path.name}: rule {rule.id} is already defined in {rules[rule.id].pack}")
                rules[rule.id] = rule
    from linter.cache import parsed_file_cache

    parsed_file_cache("packs").save()
    parsed_file_cache("expressions").save()
    unknown = set(options) - set(rules)
    if unknown:
        raise PackError(f"options given for unknown rules: {', '.join(sorted(unknown))}")
    return rules
