"""The declarative fix vocabulary of rule packs, parsed and validated when a
pack loads (nothing in it is ever executed).

A rule's ``fix:`` is a mapping with exactly one action:

- ``set: EXPR``: the value becomes the expression's result (parsed with
  ``linter.policy.expr``: ``value`` is the value as written, ``None`` when the
  setting is absent; the record's fields can be used too). A setting that is
  missing is added at the path of the check's ``field``;
- ``set_map: {OLD: NEW, ...}``: the value is replaced when it is one of the
  ``OLD`` values (compared by type and value); any other value is left alone;
- ``delete: true``: the key the finding points at is removed;
- ``remove_item: true | duplicate``: the list element the finding points at is
  removed; with ``duplicate``, only when an earlier element of the same list is
  equal to it (names compared case-insensitively), so the first stays;
- ``rename_to: suggestion``: the key the finding points at is renamed to the
  finding's suggestion (EXL005), when there is one, the mapping does not
  already hold that name, and no other key of the mapping is renamed to it.

and optional guards:

- ``fields: [name, ...]``: only findings at these fields of the rule's checks;
- ``when: EXPR``: only when the expression is true (``value`` bound as above).

and its safety (as ruff has it): ``safety: safe`` when the fixed file makes
Exchange do what it does today (the value in force is written, or a value
Exchange ignores is removed); ``safety: unsafe`` (the default) when the fix
changes behaviour. ``check --fix`` applies safe fixes, ``--unsafe-fixes`` the
others too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from linter.policy.expr import ExprError, Node, parse

ACTIONS = ("set", "set_map", "delete", "remove_item", "rename_to")
GUARDS = ("fields", "when")
SAFETIES = ("safe", "unsafe")
FIX_KEYS = ACTIONS + GUARDS + ("safety",)
FIELD_ACTIONS = ("set", "set_map", "delete")
_SCALARS = (int, float, str, bool)


class FixSpecError(ValueError):
    pass


@dataclass(frozen=True)
class FixSpec:
    action: str
    expr: Node | None = None  # set
    mapping: tuple[tuple[Any, Any], ...] = ()  # set_map
    mode: str | None = None  # remove_item: "item" | "duplicate"; rename_to: "suggestion"
    fields: tuple[str, ...] = ()
    when: Node | None = None
    text: str = ""  # the expression as written (set)
    safety: str = "unsafe"

    @property
    def safe(self) -> bool:
        return self.safety == "safe"

    def lookup(self, value: Any) -> tuple[bool, Any]:
        """set_map: (found, new value)."""
        for old, new in self.mapping:
            if type(old) is type(value) and old == value:
                return True, new
        return False, None


def _expression(raw: Any, what: str) -> tuple[Node, str]:
    if isinstance(raw, bool):
        raw = "True" if raw else "False"
    if isinstance(raw, (int, float)):
        raw = repr(raw)
    if not isinstance(raw, str):
        raise FixSpecError(f"fix: {what} must be an expression (text or a number), not {type(raw).__name__}")
    try:
        return parse(raw), raw
    except ExprError as exc:
        raise FixSpecError(f"fix: {what}: {exc}") from None


def parse_fix(raw: Any) -> FixSpec | None:
    """The fix of a rule (None when it has none). Raises FixSpecError."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise FixSpecError("fix must be a mapping with one of: " + ", ".join(ACTIONS))
    unknown = sorted(str(k) for k in set(raw) - set(FIX_KEYS))
    if unknown:
        raise FixSpecError(f"unknown fix keys {unknown}; known: {', '.join(FIX_KEYS)}")
    actions = [k for k in ACTIONS if k in raw]
    if len(actions) != 1:
        raise FixSpecError(f"a fix needs exactly one action of {', '.join(ACTIONS)}; got {actions or 'none'}")
    action = actions[0]
    value = raw[action]
    fields = raw.get("fields") or ()
    if isinstance(fields, str):
        fields = (fields,)
    if not isinstance(fields, (list, tuple)) or not all(isinstance(f, str) for f in fields):
        raise FixSpecError("fix: fields must be a list of field names")
    when = _expression(raw["when"], "when")[0] if "when" in raw else None
    safety = raw.get("safety", "unsafe")
    if safety not in SAFETIES:
        raise FixSpecError(f"fix: safety is {safety!r}; use safe (keeps what Exchange does today) or unsafe")
    common = {"fields": tuple(fields), "when": when, "safety": safety}
    if action == "set":
        node, text = _expression(value, "set")
        return FixSpec("set", expr=node, text=text, **common)
    if action == "set_map":
        if not isinstance(value, dict) or not value:
            raise FixSpecError("fix: set_map must be a non-empty mapping {old: new}")
        for old, new in value.items():
            if not isinstance(old, _SCALARS) or not isinstance(new, _SCALARS):
                raise FixSpecError(f"fix: set_map entries must be plain values, not {old!r}: {new!r}")
        return FixSpec("set_map", mapping=tuple(value.items()), **common)
    if action == "delete":
        if value is not True:
            raise FixSpecError("fix: delete takes `true`")
        return FixSpec("delete", **common)
    if action == "remove_item":
        if value is True:
            return FixSpec("remove_item", mode="item", **common)
        if value == "duplicate":
            return FixSpec("remove_item", mode="duplicate", **common)
        raise FixSpecError("fix: remove_item takes `true` or `duplicate`")
    if value != "suggestion":
        raise FixSpecError("fix: rename_to takes `suggestion` (the name the finding suggests)")
    if fields:
        raise FixSpecError("fix: rename_to does not take fields")
    return FixSpec("rename_to", mode="suggestion", **common)


def check_fix(spec: FixSpec, checks, validator, where: str = "fix") -> None:
    """Validate a parsed fix against the rule's checks: fields exist and the
    expressions only name fields of the checks' tables (``value`` is bound)."""
    modelled = [c for c in checks if c.form != "builtin" and c.table]
    if spec.action in FIELD_ACTIONS + ("remove_item",) and not modelled:
        raise FixSpecError(f"fix: {spec.action} needs a rule with checks on a table (a builtin rule has none)")
    if spec.action in FIELD_ACTIONS:
        pointed = {name for c in modelled for name in ((c.field,) if c.field else ()) + c.fields}
        if not pointed:
            raise FixSpecError(f"fix: {spec.action} needs checks that point at a `field` (or `fields`)")
    else:
        pointed = {name for c in modelled for name in ((c.field,) if c.field else ()) + c.fields + ((c.each,) if c.each else ())}
    for name in spec.fields:
        if name not in pointed:
            raise FixSpecError(f"fix: field {name!r} is not a field the rule's checks point at "
                               f"({', '.join(sorted(pointed)) or 'none'})")
    tables = validator.tables
    for check in modelled:
        names = ((check.field,) if check.field else ()) + check.fields + ((check.each,) if check.each else ())
        if spec.fields and not set(names) & set(spec.fields):
            continue
        for node in (spec.expr, spec.when):
            if node is not None:
                validator.check(node, tables[check.table], {"value": None}, where)


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def describe(raw: Any, label=str) -> str:
    """One line for `exlint explain` and docs/rules.md (``label`` names a field for users)."""
    spec = parse_fix(raw)
    if spec is None:
        return ""
    if spec.action == "set":
        text = f"sets the value to `{spec.text}` (adding the setting when it is missing)"
    elif spec.action == "set_map":
        text = "replaces " + ", ".join(f"{_literal(o)} with {_literal(n)}" for o, n in spec.mapping)
    elif spec.action == "delete":
        text = "deletes the setting"
    elif spec.action == "remove_item":
        text = ("removes the repeated list entries, keeping the first" if spec.mode == "duplicate"
                else "removes the list entry")
    else:
        text = ("renames the key to the suggested name when there is one and the mapping does not "
                "already hold it")
    if spec.fields:
        text += f" (only for {', '.join(label(f) for f in spec.fields)})"
    return text


def availability(raw: Any) -> str:
    """How a user gets the fix: `exlint rules`, `explain` and docs/rules.md."""
    spec = parse_fix(raw)
    if spec is None:
        return "no fix"
    return "safe fix (--fix)" if spec.safe else "unsafe fix (--unsafe-fixes)"
