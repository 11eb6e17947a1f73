"""The scope an expression is evaluated in by the local engine: the record and
its table, and what a check binds (a list item, a field's value, the partner of a
pair, a group's aggregates). Shared by the evaluator (linter.engines.local) and
the check forms (linter.forms)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from linter.model.tables import TableSpec


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


# names an expression reads from the scope, not from the record
SCOPED_NAMES = {"item", "value", "other", "organization"}


def hashable(value: Any) -> Any:
    """A profile value as a dictionary key (lists become tuples)."""
    if isinstance(value, list):
        return tuple(hashable(v) for v in value)
    return value
