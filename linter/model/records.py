"""Documents to per-table records: typed values, defaults, display text, positions.

Both engines build records with this module (the Spark engine while parsing), so
a value means the same thing everywhere. A record is a flat dict:

- ``<field>``: the typed value (names lower-cased; durations in seconds),
- ``<field>__text``: the text as written (for messages), for names, durations, sizes,
- ``<field>__set``: whether the user wrote it (False when the default applies;
  None when the value written could not be read: a list field given a scalar, a
  value of the wrong type or form, an integer outside the schema's range.
  EXL003 reports it, and a check reading the
  field stands down for the record: one problem, one finding),
- ``_table``, ``_kind``, ``_entity`` (document name as written), ``_file``,
  ``_doc`` (document index in file), ``_prefix`` (path of a list item inside the
  document, e.g. ``spec.sites[2]``), ``_marks`` (path string -> [line, column]).
"""
from __future__ import annotations

from typing import Any, Iterable

from linter.findings import format_path
from linter.model.tables import FieldSpec, TableSpec, convert, is_dn, load_tables
from linter.model.names import name_key

_MISSING = object()
_UNREADABLE = object()  # the path runs through a value that is not a mapping (`registry: [a]`, `spec:`)


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        if isinstance(data, dict):
            data = data.get(part, _MISSING)
        else:
            return _UNREADABLE
        if data is _MISSING:
            return _MISSING
    return data


def _blank(raw: Any) -> bool:
    """A blank text is read (as no value): rules such as BKF002 judge it themselves."""
    return isinstance(raw, str) and not raw.strip()


def _within(value: int, bounds: tuple) -> bool:
    low, high = bounds
    return (low is None or value >= low) and (high is None or value <= high)


def _display(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def document_name(data: Any) -> str | None:
    name = _get(data, ("metadata", "name"))
    return name if isinstance(name, str) and name.strip() else None


def _fill_value(record: dict, spec: FieldSpec, raw: Any) -> None:
    """``spec``'s columns of ``record`` from the value written (``_MISSING``: not
    written; ``_UNREADABLE``: the path runs through a value that is not a mapping)."""
    if raw is None and spec.nullable:  # null is how the schema writes this field's default
        raw = _MISSING
    # null written (`replicas:` with nothing after it) is EXL003's ("leave the field out"), as
    # is a path through a value that is not a mapping: unreadable, not absent
    unreadable = raw is None or raw is _UNREADABLE
    present = raw is not _MISSING and not unreadable
    key = spec.name
    if spec.type == "count":
        items = raw if isinstance(raw, list) else []
        where = spec.where or {}
        if unreadable or (present and not isinstance(raw, list)) or any(
                not isinstance(item, dict) or any(item.get(k) is None for k in where)
                or any(not isinstance(item.get(k), str) or item.get(k) not in values
                       for k, values in spec.where_choices) for item in items):
            # a list (or an entry, or the key a count asks about) EXL003 reports: not a count of
            # what was meant, so no count at all (HIE007 said "no MAPI hierarchy" of `hierarchies:`)
            record[key] = None
            return
        matching = [item for item in items
                    if isinstance(item, dict) and all(item.get(k) == v for k, v in where.items())]
        if spec.item:  # distinct names (case-insensitive); an entry without one counts alone
            names = [item.get(spec.item) for item in matching]
            named = {n.strip().casefold() for n in names if isinstance(n, str) and n.strip()}
            record[key] = len(named) + sum(1 for n in names if not (isinstance(n, str) and n.strip()))
        else:
            record[key] = len(matching)
        return
    if spec.is_list:
        items = raw if present and isinstance(raw, list) else []
        if spec.item:
            items = [item.get(spec.item) if isinstance(item, dict) else None for item in items]
        # an entry that is no name (`5`, `""`, a null) is EXL003's: it is left out, and the
        # list as a whole is unreadable (REP004 must not count `[PF-LON, 5]` as one replica)
        texts = [item if isinstance(item, str) and item.strip() else None for item in items]
        record[key] = [name_key(t) if (t is not None and spec.type == "names") else t for t in texts]
        record[key + "__text"] = texts
        whole = present and isinstance(raw, list) and None not in texts
        record[key + "__set"] = None if unreadable or (present and not whole) else present
        return
    value = convert(spec.type, raw) if present else None
    if spec.type == "text" and _blank(raw):
        value = ""  # whitespace alone is no text: HIE004 judges `emailAddress: "   "` as it does ""
    if value is not None and spec.bounds is not None and not _within(value, spec.bounds):
        value = None
    if present and spec.choices is not None and not (isinstance(raw, str) and raw in spec.choices):
        unreadable, value = True, None  # `""` too: no value of the enum
    elif present and spec.no_blank and _blank(raw):
        unreadable, value = True, None  # `siteFolderServer: ""`: EXL003's, not a server left out
    # `CN=` (a distinguished name whose first CN= is empty) is read, and names nothing, as `""` does
    unread_value = present and value is None and not (
        _blank(raw) or (spec.type == "dn_name" and isinstance(raw, str) and is_dn(raw)))
    record[key + "__set"] = None if unreadable or unread_value else present
    if not present and not unreadable:
        value = spec.default
    record[key] = value
    if spec.type in ("name", "duration", "size", "version"):
        if present:
            record[key + "__text"] = _display(raw)
        else:
            record[key + "__text"] = None if unreadable else spec.default_text


def _marks_for(document, prefix: str) -> dict:
    """Positions of every path under ``prefix`` (dotted path -> (line, column))."""
    if not prefix:
        return document.marks  # shared, never mutated
    bracket = prefix.rfind("[")
    if bracket == -1 or not prefix.endswith("]"):
        return _marks_under(document.marks, prefix)
    # A list item: the marks of all the list's items are split in one pass and
    # kept on the document (filtering every mark for every item was quadratic:
    # a server with 8,000 receive connectors took 30 s).
    by_item = getattr(document, "_marks_by_item", None)
    if by_item is None:
        by_item = document._marks_by_item = {}
    items = by_item.get(prefix[:bracket])
    if items is None:
        items = by_item[prefix[:bracket]] = _split_items(document.marks, prefix[:bracket])
    return items.get(prefix, {})


def _marks_under(marks: dict, prefix: str) -> dict:
    dotted, indexed = prefix + ".", prefix + "["
    return {
        path: mark for path, mark in marks.items()
        if path == prefix or path.startswith(dotted) or path.startswith(indexed)
    }


def _split_items(marks: dict, list_path: str) -> dict[str, dict]:
    """``list_path[i]`` -> the marks under that item, for every item of the list."""
    opening = list_path + "["
    start = len(opening)
    out: dict[str, dict] = {}
    for path, mark in marks.items():
        if not path.startswith(opening):
            continue
        close = path.find("]", start)
        if close == -1:
            continue
        item = path[:close + 1]
        rest = path[close + 1:]
        if rest and rest[0] not in ".[":
            continue
        out.setdefault(item, {})[path] = mark
    return out


def build_records(table: TableSpec, document, data: dict, entity_name: str) -> list[dict]:
    """Records of one table from one document (several for list tables)."""
    if table.each is None:
        items = [((), data)]
    else:
        raw = _get(data, table.each)
        items = [(table.each + (i,), item) for i, item in enumerate(raw)] if isinstance(raw, list) else []
    out = []
    for prefix, item in items:
        if not isinstance(item, dict):
            continue
        name_raw = _get(item, table.name_path)
        name = name_raw if isinstance(name_raw, str) and name_raw.strip() else None
        record: dict[str, Any] = {
            "_table": table.name,
            "_kind": table.document,
            "_entity": entity_name,
            "_file": document.file,
            "_doc": document.index,
            "_prefix": format_path(prefix),
            "_line": document.line,
            "_column": document.column,
            "_marks": _marks_for(document, format_path(prefix)),
            "name": name_key(name) if name else None,
            "name__text": name,
        }
        if table.parent:
            record[table.parent] = name_key(entity_name)
            record[table.parent + "__text"] = entity_name
            record[table.parent_document] = f"{document.file}#{document.index}"
        _fill_fields(record, item, _plan(table))
        out.append(record)
    return out


class _Group:
    """The fields read from one mapping of a record's item (``spec``, ``spec.registry``),
    with what each field's columns are when the mapping does not hold it."""

    def __init__(self, container: tuple, specs: list[FieldSpec]):
        self.container = container
        self.registry = bool(container) and container[-1] == "registry"
        self.fields = []
        for spec in specs:
            absent: dict = {}
            _fill_value(absent, spec, _MISSING)
            # a list's columns are fresh lists per record (a record's value is never shared)
            fresh = tuple(k for k, v in absent.items() if isinstance(v, list))
            self.fields.append((spec, spec.path[-1], absent, fresh))


_PLANS: dict[int, tuple] = {}


def _plan(table: TableSpec) -> list[_Group]:
    """``table``'s fields in runs of those held by one mapping, in declaration order
    (a record's columns keep that order); made once per table. Each record then reads
    each run's mapping once and fills an absent field from its precomputed columns
    (most fields of a record are not written; tests/test_record_fields.py holds this
    to a field-by-field reading)."""
    held = _PLANS.get(id(table))
    if held is not None and held[0] is table:
        return held[1]
    runs: list[tuple[tuple, list[FieldSpec]]] = []
    for spec in table.fields.values():
        if runs and runs[-1][0] == spec.path[:-1]:
            runs[-1][1].append(spec)
        else:
            runs.append((spec.path[:-1], [spec]))
    groups = [_Group(container, specs) for container, specs in runs]
    _PLANS[id(table)] = (table, groups)
    return groups


def _fill_fields(record: dict, item: dict, groups: list[_Group]) -> None:
    for group in groups:
        holder = _get(item, group.container) if group.container else item
        if not isinstance(holder, dict):
            # every field of the group is absent (_MISSING) or unreadable (through a
            # value that is not a mapping: `spec: [a]`, `registry:`)
            raw = _MISSING if holder is _MISSING else _UNREADABLE
            for field in group.fields:
                _fill_planned(record, field, raw)
            continue
        folded = None
        for field in group.fields:
            key = field[1]
            raw = holder.get(key, _MISSING)
            if raw is _MISSING and group.registry and holder:
                # a registry value written under its name in another case (`track duplicates
                # (in hours)`): Windows reads registry value names case-insensitively, so
                # Exchange reads it and the rules judge it (EXL005 asks for the name as exlint
                # knows it); findings point at the key as written (policy.locate.written_path)
                if folded is None:
                    folded = {}
                    for written in holder:  # the first key written in another case wins
                        if isinstance(written, str):
                            folded.setdefault(written.casefold(), written)
                written = folded.get(key.casefold())
                if written is not None:
                    raw = holder[written]
            _fill_planned(record, field, raw)


def _fill_planned(record: dict, field: tuple, raw: Any) -> None:
    spec, _, absent, fresh = field
    if raw is _MISSING:
        record.update(absent)
        for name in fresh:
            record[name] = []
    else:
        _fill_value(record, spec, raw)


def build_all(documents: Iterable) -> dict[str, list[dict]]:
    """All tables from valid-enough documents (see linter.estate for which those are)."""
    tables = load_tables()
    by_kind: dict[str, list[TableSpec]] = {}
    for table in tables.values():
        by_kind.setdefault(table.document, []).append(table)
    result: dict[str, list[dict]] = {name: [] for name in tables}
    for document in documents:
        data = document.data
        name = document_name(data)
        for table in by_kind.get(data.get("kind"), []):
            result[table.name].extend(build_records(table, document, data, name))
    return result
