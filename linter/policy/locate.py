"""Where a finding points, and how values are shown in messages: shared by the
engines so that a finding has one position, one path and one wording."""
from __future__ import annotations

import re
from itertools import islice

from linter.findings import format_path
from linter.model.tables import TableSpec

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(text: str) -> tuple:
    if not text:
        return ()
    return tuple(int(index) if index else name for name, index in _PART.findall(text))


def field_path(table: TableSpec, field: str | None) -> tuple:
    """Path of a record field relative to the record (its name when no field)."""
    if field is None or field == "name":
        return table.name_path
    spec = table.fields.get(field)
    if spec is not None:
        return spec.path
    return table.name_path


def candidate_paths(prefix: str, relative: tuple) -> list[str]:
    """The path and its ancestors, deepest first, as dotted strings."""
    full = parse_path(prefix) + tuple(relative)
    return [format_path(full[:cut]) for cut in range(len(full), -1, -1)]


# Registry value names are read in any case (Windows does; linter.model.records): a
# finding about one points at the key as written. The Spark engine's forms.place says
# the same in SQL (lower(), as Spark lower-cases).
REGISTRY = "spec.registry."


def written_path(marks: dict, path: str) -> str | None:
    """``path`` as the record's marks hold it: itself, or for a registry value the
    first key written that differs from it only in case; None when neither is."""
    if path in marks:
        return path
    if path.startswith(REGISTRY):
        wanted = path.lower()
        return next((key for key in marks if key.startswith(REGISTRY) and key.lower() == wanted), None)
    return None


def locate(record: dict, relative: tuple) -> tuple[str | None, int, int]:
    """(reported path, line, column): the value's own position, else its nearest
    written ancestor's (a missing setting is reported where it would be added)."""
    marks = record["_marks"]
    for path in candidate_paths(record["_prefix"], relative):
        written = written_path(marks, path)
        if written is not None:
            mark = marks[written]
            return (written or None), mark[0], mark[1]
    return None, record["_line"], record["_column"]


# A list in a message names this many values, then "… and N more": 5,000 stores
# on one server made every finding name all 5,000 (a 288 MB report). The Spark
# engine's display_sql (engines/spark/sqltext.py) caps alike.
MAX_LISTED = 20
MORE = ", \u2026 and {count} more"


_last_counted: list = [None, 0, 0]  # the list counted last, its length, its values that are set


def _present(values) -> int:
    """How many of ``values`` are set. The findings of a group name the same list
    one after the other: counting it once, not once per finding, keeps a group of
    N linear (counting is O(N), and a finding per member made it quadratic)."""
    if _last_counted[0] is not values or _last_counted[1] != len(values):
        _last_counted[:] = [values, len(values), sum(1 for v in values if v is not None)]
    return _last_counted[2]


def display(value, text=None) -> str:
    """How a value appears in a message."""
    if text is not None:
        value = text
    if value is None:
        return "(not set)"
    if isinstance(value, (list, tuple)):
        # only what is shown is formatted: every store of a group of thousands
        # names the same group (list.count runs in C)
        shown = [display(v) for v in islice((v for v in value if v is not None), MAX_LISTED)]
        text = ", ".join(shown)
        hidden = _present(value) - len(shown)
        if hidden > 0:
            text += MORE.format(count=hidden)
        return text or "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
