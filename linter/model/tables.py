"""The table declarations (tables.yaml) as typed objects."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import re


from linter.loading.fast_yaml import load as _yaml_load

from linter.model import units
from linter.resources import model_tables_file
from linter.schema import accepts_null, enum_values, integer_bounds, rejects_blank
from linter.model.names import name_key


SCALAR_TYPES = {"name", "text", "enum", "int", "bool", "duration", "size", "version", "date", "count", "dn_name"}
LIST_TYPES = {"names", "enums"}
DISPLAY_TYPES = {"name", "duration", "size", "version", "names"}  # keep the text as written


@dataclass(frozen=True)
class FieldSpec:
    name: str
    path: tuple[str, ...]
    type: str
    default: Any = None  # already converted to the field's unit
    default_text: str | None = None
    ref: str | None = None
    item: str | None = None  # for lists of mappings: the key holding the name
    where: dict | None = None  # for count fields
    # an int's (minimum, maximum) from the schema: outside them the value is EXL003's, unread
    bounds: tuple[int | None, int | None] | None = None
    # the schema accepts null here (`systemFolder: null`): a null is the default, not unreadable
    nullable: bool = False
    # an enum's values from the schema: any other is EXL003's, unread (one problem, one finding)
    choices: frozenset | None = None
    # the schema refuses a blank text here (a name): `""` is EXL003's, unread, not absent
    no_blank: bool = False
    # a count's `where` keys that are enums: key -> the schema's values (`type: mapi` is
    # EXL003's, so the count of MAPI hierarchies is unknown, not one less)
    where_choices: tuple = ()

    @property
    def is_list(self) -> bool:
        return self.type in LIST_TYPES


@dataclass(frozen=True)
class TableSpec:
    name: str
    document: str
    each: tuple[str, ...] | None
    parent: str | None
    name_path: tuple[str, ...]
    fields: dict[str, FieldSpec]
    derived: dict[str, str] = field(default_factory=dict)
    # name -> (table counted, condition, `by`: the counted record's expression naming this
    # record, or None for an estate-wide count, `key`: this record's field that `by` is
    # compared with, None for its name)
    facts: dict[str, tuple[str, str, str | None, str | None]] = field(default_factory=dict)

    @property
    def parent_document(self) -> str | None:
        """The field naming the parent document itself (its file and place in it): two
        Organization documents of one name are two lists, not one (EXL006 keys on it)."""
        return self.parent + "_document" if self.parent else None

    def target(self, name: str) -> str | None:
        """The table that the path segment ``name`` leads to from this table's
        records: a reference field's table, or the parent document's."""
        spec = self.fields.get(name)
        if spec is not None and spec.ref:
            return spec.ref
        return self.document if name == self.parent else None

    def field_type(self, name: str) -> str | None:
        if name in self.fields:
            return self.fields[name].type
        if name == "name" or name == self.parent:
            return "name"
        if name == self.parent_document and name is not None:
            return "text"
        return None


_WHOLE_FLOAT_TYPES = ("int", "size", "version")


_RDN = re.compile(r"^[A-Za-z][A-Za-z0-9-]*\s*=")  # CN=..., OU=..., DC=...


_HEX = frozenset("0123456789abcdefABCDEF")


def dn_attributes(dn: str) -> list[tuple[str, str]]:
    """(type, value) of each attribute of a distinguished name, in order, its value
    unescaped as RFC 4514 writes it: ``\\,`` ``\\+`` ``\\\\`` and the other specials
    behind a backslash, ``\\2C`` a byte in hex (UTF-8), a value in double quotes (RFC
    1779). RDNs end at an unescaped ``,`` (or ``;``), multi-valued ones join at ``+``."""
    out: list[tuple[str, str]] = []
    attribute, value, in_value, quoted, i = [], bytearray(), False, False, 0
    while i <= len(dn):
        char = dn[i] if i < len(dn) else None
        if char is None or (not quoted and char in ",;+"):
            if in_value:
                out.append(("".join(attribute).strip(), value.decode("utf-8", "replace")))
            attribute, value, in_value = [], bytearray(), False
        elif not in_value:
            if char == "=":
                in_value = True
            else:
                attribute.append(char)
        elif char == "\\" and i + 1 < len(dn):
            pair = dn[i + 1:i + 3]
            if len(pair) == 2 and set(pair) <= _HEX:
                value.append(int(pair, 16))
                i += 2
            else:
                value.extend(dn[i + 1].encode("utf-8"))
                i += 1
        elif char == '"' and not value.strip():
            quoted = True
        elif char == '"' and quoted:
            quoted = False
        else:
            value.extend(char.encode("utf-8"))
        i += 1
    return out


def is_dn(text: str) -> bool:
    """Whether a text is written as a distinguished name (``CN=...``, ``OU=x``)."""
    return bool(_RDN.match(text.strip()))


def convert(type_: str, raw: Any) -> Any:
    """The typed value of a raw YAML/JSON value, or None when it does not fit the type."""
    if raw is None:
        return None
    if isinstance(raw, float) and raw.is_integer() and type_ in _WHOLE_FLOAT_TYPES:
        # 5000.0 is how JSON exports (and Parquet's doubles) write a whole number, and JSON
        # Schema's "integer" accepts it: read as the integer, not as a value of no type
        raw = int(raw)
    if type_ == "name":
        return name_key(raw) if isinstance(raw, str) and raw.strip() else None
    if type_ == "dn_name":  # a name, or a distinguished name whose first CN= is the name
        if not isinstance(raw, str) or not raw.strip():
            return None
        text = raw.strip()
        if _RDN.match(text):  # a distinguished name: its first CN= names it, wherever it stands
            for attribute, value in dn_attributes(text):
                if attribute.lower() == "cn":
                    return name_key(value.strip()) or None
        return name_key(text) or None
    if type_ in ("text", "enum", "date"):
        return raw if isinstance(raw, str) else None
    if type_ == "int":
        if isinstance(raw, int) and not isinstance(raw, bool) and -(2**63) <= raw < 2**63:
            return raw
        return None
    if type_ == "bool":
        return raw if isinstance(raw, bool) else None
    if type_ == "duration":
        return units.parse_duration(raw)
    if type_ == "size":
        return units.parse_size(raw)
    if type_ == "version":
        return units.version_rank(raw)
    raise ValueError(type_)


def _split(path: str) -> tuple[str, ...]:
    return tuple(path.split(".")) if path else ()


@lru_cache(maxsize=1)
def load_tables() -> dict[str, TableSpec]:
    from linter.cache import parsed_file_cache

    cache = parsed_file_cache("tables")
    tables_file = model_tables_file()
    raw = cache.get(tables_file)
    if raw is None:
        raw = _yaml_load(tables_file.read_text(encoding="utf-8"))
        cache.put(tables_file, raw)
        cache.save()
    tables: dict[str, TableSpec] = {}
    for table_name, body in raw.items():
        fields: dict[str, FieldSpec] = {}
        for field_name, spec in (body.get("fields") or {}).items():
            type_ = spec["type"]
            default = spec.get("default")
            default_text = None
            if default is not None:
                default_text = str(default).lower() if isinstance(default, bool) else str(default)
                default = convert(type_, default)
                if default is None:
                    raise ValueError(f"{table_name}.{field_name}: default does not fit {type_}")
            each = body.get("each")
            fields[field_name] = FieldSpec(
                field_name, _split(spec["path"]), type_, default, default_text,
                spec.get("ref"), spec.get("item"), spec.get("where"),
                integer_bounds(body["document"], _split(each or "") + _split(spec["path"]))
                if type_ == "int" else None,
                accepts_null(body["document"], _split(each or "") + _split(spec["path"])),
                enum_values(body["document"], _split(each or "") + _split(spec["path"]))
                if type_ == "enum" else None,
                rejects_blank(body["document"], _split(each or "") + _split(spec["path"])),
                tuple((key, values) for key in (spec.get("where") or {})
                      if (values := enum_values(body["document"],
                                                _split(each or "") + _split(spec["path"]) + (key,))) is not None),
            )
        each = body.get("each")
        tables[table_name] = TableSpec(
            name=table_name,
            document=body["document"],
            each=_split(each) if each else None,
            parent=body.get("parent"),
            name_path=_split(body.get("name", "name" if each else "metadata.name")),
            fields=fields,
            derived=dict(body.get("derived") or {}),
            facts={name: (spec["table"], spec["count"], spec.get("by"), spec.get("key"))
                   for name, spec in (body.get("facts") or {}).items()},
        )
    return tables


# -- derived fields: which read which ----------------------------------------------------------
def _navigate(tables: dict[str, TableSpec], table: TableSpec, segment: str) -> TableSpec | None:
    """The table a path segment leads to from ``table`` (as the evaluators navigate)."""
    target = "Organization" if segment == "organization" else table.target(segment)
    return tables.get(target) if target else None


def derived_reads(tables: dict[str, TableSpec], table: TableSpec) -> dict[str, set[tuple[str, str]]]:
    """For each derived field of ``table``: the derived fields (table, field) its
    expression reads, on its own record or through navigation."""
    from linter.policy.expr import field_paths, parse

    reads = {}
    for name, text in table.derived.items():
        found = set()
        for path in field_paths(parse(text)):
            current: TableSpec | None = table
            for segment in path[:-1]:
                current = _navigate(tables, current, segment)
                if current is None:
                    break
            if current is not None and path and path[-1] in current.derived:
                found.add((current.name, path[-1]))
        reads[name] = found
    return reads


def _topological(nodes: list, edges: dict, what) -> list:
    """``nodes`` each after the nodes it needs (``edges[n]``), else in the given order;
    a cycle is a ValueError (``what(cycle)`` says it)."""
    order, state = [], {}

    def visit(node, trail):
        if state.get(node) == "done":
            return
        if state.get(node) == "active":
            raise ValueError(what(trail[trail.index(node):] + [node]))
        state[node] = "active"
        for needed in sorted(edges.get(node, ()), key=nodes.index):
            visit(needed, trail + [node])
        state[node] = "done"
        order.append(node)

    for node in nodes:
        visit(node, [])
    return order


def derived_plan(tables: dict[str, TableSpec]) -> list[tuple[str, list[str]]]:
    """Every table with its derived fields (tables without any first, in file
    order), ordered so that each derived field comes after every derived field it
    reads: a table after the tables it reads, its fields after its own fields they
    read. An engine that computes them in this order never reads a column that
    does not exist yet (the Spark model; the local engine computes on first read).
    A cycle is a ValueError naming it."""
    reads = {name: derived_reads(tables, table) for name, table in tables.items()}
    derived = [name for name, table in tables.items() if table.derived]
    needs = {name: {other for found in reads[name].values() for other, _ in found if other != name}
             for name in derived}
    order = _topological(derived, needs, lambda cycle: (
        "derived fields of " + " and ".join(cycle[:-1]) + " read each other: a table's derived fields are "
        "computed together, so compute them in one table or drop one of the reads"))
    plan = []
    for name in order:
        fields = list(tables[name].derived)
        own = {field: {f for table, f in found if table == name} for field, found in reads[name].items()}
        plan.append((name, _topological(fields, own, lambda cycle, name=name: (
            "derived fields read each other in a cycle: " + " -> ".join(f"{name}.{f}" for f in cycle)))))
    return [(name, []) for name in tables if name not in needs] + plan
