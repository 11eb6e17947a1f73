"""JSON documents (JSON Lines, Parquet) parsed, validated and modelled in Spark SQL.

The Python path (inventory.py: ``json.loads``, ``validate_document``,
``build_records``) is the reference: it explains every error with its message.
This module proves, in SQL, that a line needs none of that explaining (valid
JSON, no duplicate key, no value of the wrong type, every schema constraint
met, nothing the Python conversions would read differently) and builds its
records in SQL, the same values the Python would build. A line it cannot prove
clean goes to the Python path, so the result is the same either way; only the
cost differs. Most lines of a real inventory are clean.

How a line is proven clean:

- *Exact.* The line is parsed twice: as a VARIANT (which keeps every value's
  JSON type and rejects duplicate keys) and with ``from_json`` into the kind's
  typed schema (derived from schemas/*.json, fields in sorted order so that
  ``to_json`` writes them as the variant does). If both render to the same JSON
  text, the typed parse dropped nothing (unknown key), changed nothing (a number
  read into a string field) and saw no null. Jackson ignores text after the
  first value, so two wrappers prove there is none (see ``_ONE_VALUE``).
- *Valid.* The schema's constraints (required, enum, const, pattern, minimum,
  maximum, minItems, minLength, array items not null, anyOf over variant
  types) compiled to one predicate per kind (``_Validity``). A keyword it does not
  know makes the predicate false: such documents take the Python path.
- *Read the same.* Python and the JVM differ in places: Unicode ``\\d``,
  lower-casing outside Latin-1 and Latin Extended-A (final sigma, dotted I, a
  Turkish default locale), ``str.strip`` versus ``trim``, float parsing of very
  long digit strings. Values that could meet one of those differences are not
  proven clean (``_lower_ok``, ``_pattern``, ``_fast_line``), nor are lines with control characters,
  escapes of them or of surrogates, invalid UTF-8 or a byte order mark.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from linter.engines.spark import records as rows
from linter.engines.spark.sqltext import q, string
from linter.model.tables import LIST_TYPES, TableSpec, load_tables
from linter.schema import API_VERSION, KINDS, _dereference, _schemas, schema_file

# Java's $ also matches before a final \r, \u0085, \u2028 or \u2029, Python's only
# before a final \n (which no value here holds): every expression ends with \z
END = "\\z"
_SKIP = {"description", "default", "examples", "title", "$schema", "$id", "$comment"}
# Characters whose lower case and whitespace-ness Python and Java agree on.
_LATIN = "\\x20-\\x7e\\u00a1-\\u012f\\u0132-\\u017f"
_ASCII_PRINTABLE = "^[\\x20-\\x7e]*\\z"
_ASCII_AHEAD = "^(?=[\\x20-\\x7e]*\\z)"  # an anchored pattern, on ASCII text only
# the default locale of a JVM can be Turkish: non-ASCII text is lower-cased by
# Java with that locale ('I' -> dotless i), ASCII text is not
_EDGE = "[\\x21-\\x7e\\u00a1-\\u012f\\u0132-\\u017f]"
_DN_FORM = f"^{_EDGE}([{_LATIN}]*{_EDGE})?\\z"
_DN_SPLIT, _DN_COMMA = "(?<!\\\\),", "\\,"  # convert(): re.split(r"(?<!\\),", ...), replace("\\,", ",")
_LOWERABLE = f"^(?:[\\x20-\\x7e]*|[{_LATIN}&&[^I]]*)\\z"
_NON_BLANK = "(?U)\\S"  # Python's str.strip() != '' (no control characters here)
_MAX_DIGITS = 15
ITEMS_PER_DOCUMENT = 1 << 16  # list items of one document the SQL path takes (row ids)  # longer digit strings: Python and Java may round them differently
# regular expressions (Java): control characters (a JSON line may hold none but
# whitespace; tabs and the like are sent to Python too), a byte order mark, and
# escapes of control characters or surrogates (their decoded forms differ)
_CONTROL = "[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ufeff]"
_ESCAPES = "\\\\(u00[01]|u007[fF]|u[dD][89a-fA-F]|[bfnrt])"


def _fast_line(text: str) -> str:
    """SQL: the line ``text`` has nothing the cheap tests can see that only Python reads."""
    return f"(is_valid_utf8({text}) AND NOT {text} RLIKE {string(_CONTROL)} AND NOT {text} RLIKE {string(_ESCAPES)})"


def kind_schema(kind: str) -> dict:
    schemas = _schemas()
    return _dereference(schemas[schema_file(kind)], schemas["common.json"]["$defs"])


# -- the typed schema -----------------------------------------------------------------
@dataclass
class Node:
    """A schema node as the typed parse sees it."""
    spark: str  # Spark type (DDL)
    shape: str  # struct | array | string | bigint | boolean | double | variant
    schema: dict
    fields: dict | None = None  # struct: name -> Node (sorted)
    item: "Node | None" = None  # array


def typed(schema: dict) -> Node:
    if "anyOf" in schema or "oneOf" in schema:
        return Node("variant", "variant", schema)
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties") or {}
        if not props:
            return Node("variant", "variant", schema)  # free-form mapping (labels)
        fields = {name: typed(props[name]) for name in sorted(props)}
        ddl = ", ".join(f"{q(name)}: {node.spark}" for name, node in fields.items())
        return Node(f"struct<{ddl}>", "struct", schema, fields=fields)
    if kind == "array":
        item = typed(schema.get("items") or {})
        return Node(f"array<{item.spark}>", "array", schema, item=item)
    simple = {"string": "string", "integer": "bigint", "boolean": "boolean", "number": "double"}
    if kind in simple:
        return Node(simple[kind], simple[kind], schema)
    # (null, where an enum allows it, never reaches the validity test: the exact
    # parse sends written nulls to Python)
    values = [v for v in schema.get("enum", []) + ([schema["const"]] if "const" in schema else []) if v is not None]
    if kind is None and values and all(isinstance(v, str) for v in values):
        return Node("string", "string", schema)
    return Node("variant", "variant", schema)


# -- validity -----------------------------------------------------------------------
class Unsupported(Exception):
    """A schema keyword or a field conversion the SQL does not reproduce."""


def _pattern(pattern: str, expr: str) -> str:
    if "$" in pattern[:-1]:
        raise Unsupported(f"pattern {pattern!r}")
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + END
    if pattern == "\\S":
        return f"{expr} RLIKE {string(_NON_BLANK)}"
    # Python's \\d and \\s are Unicode-wide, Java's are ASCII: only ASCII text is proven
    if pattern.startswith("^"):
        return f"{expr} RLIKE {string(_ASCII_AHEAD + pattern[1:])}"
    return f"({expr} RLIKE {string(_ASCII_PRINTABLE)} AND {expr} RLIKE {string(pattern)})"


def _bounds(schema: dict, expr: str) -> list[str]:
    out = []
    if "minimum" in schema:
        out.append(f"{expr} >= {schema['minimum']}")
    if "maximum" in schema:
        out.append(f"{expr} <= {schema['maximum']}")
    return out


class _Validity:
    """SQL that is true only when the Python validator finds nothing."""

    def __init__(self):
        self.counter = 0

    def var(self) -> str:
        self.counter += 1
        return f"x{self.counter}"

    def check(self, node: Node, expr: str) -> list[str]:
        """Conditions on a present (non-null) value."""
        schema = node.schema
        known = {"type", "properties", "required", "additionalProperties", "items", "enum", "const",
                 "pattern", "minimum", "maximum", "minItems", "minLength", "anyOf"}
        unknown = set(schema) - known - _SKIP
        if unknown:
            raise Unsupported(f"schema keywords {sorted(unknown)}")
        out: list[str] = []
        if node.shape == "variant":
            return self._variant(node, expr)
        if "enum" in schema or "const" in schema:
            values = [v for v in schema.get("enum", []) + ([schema["const"]] if "const" in schema else [])
                      if v is not None]
            if node.shape != "string" or not all(isinstance(v, str) for v in values):
                raise Unsupported("enum of non-strings")
            out.append(f"{expr} IN ({', '.join(string(v) for v in values)})")
        if "pattern" in schema:
            out.append(_pattern(schema["pattern"], expr))
        if "minLength" in schema:
            out.append(f"char_length({expr}) >= {int(schema['minLength'])}")
        out += _bounds(schema, expr)
        if "minItems" in schema:
            out.append(f"size({expr}) >= {int(schema['minItems'])}")
        if node.shape == "struct":
            required = set(schema.get("required", []))
            extra = schema.get("additionalProperties", True)
            if extra not in (False, True) and not isinstance(extra, dict):
                raise Unsupported("additionalProperties")
            # unknown keys never reach here: the exact-parse test sends them to Python
            for name, child in node.fields.items():
                value = f"{expr}.{q(name)}"
                if name in required:
                    out.append(f"{value} IS NOT NULL")
                conditions = self.check(child, value)
                if conditions:
                    out.append(f"({value} IS NULL OR ({' AND '.join(conditions)}))")
        elif node.shape == "array":
            x = self.var()
            conditions = [f"{x} IS NOT NULL"] + self.check(node.item, x)
            out.append(f"forall({expr}, {x} -> {' AND '.join(conditions)})")
        return out

    def _variant(self, node: Node, expr: str) -> list[str]:
        schema = node.schema
        kind = f"schema_of_variant({expr})"
        if schema.get("type") == "object" and not schema.get("properties"):
            extra = schema.get("additionalProperties")
            if extra != {"type": "string"}:
                raise Unsupported("free-form mapping of non-strings")
            # every value a string: the schema text names no other type (a key that
            # looks like one only sends the line to Python)
            return [f"startswith({kind}, 'OBJECT<')", f"NOT {kind} RLIKE {string(': (?!STRING(, |>' + END + '))')}"]
        branches = []
        for branch in schema.get("anyOf") or []:
            if set(branch) - {"type", "pattern", "enum", "minimum", "maximum"} - _SKIP:
                raise Unsupported("anyOf branch")
            if branch.get("type") == "string":
                value = f"variant_get({expr}, '$', 'string')"
                conds = [f"{kind} = 'STRING'"] + self.check(Node("string", "string", branch), value)
            elif branch.get("type") == "integer":
                value = f"variant_get({expr}, '$', 'bigint')"
                conds = [f"{kind} = 'BIGINT'"]
                if "enum" in branch:
                    conds.append(f"{value} IN ({', '.join(str(int(v)) for v in branch['enum'])})")
                conds += _bounds(branch, value)
            else:
                raise Unsupported("anyOf branch type")
            branches.append("(" + " AND ".join(conds) + ")")
        if not branches:
            raise Unsupported("a value of any type")
        return ["(" + " OR ".join(branches) + ")"]


# -- records ----------------------------------------------------------------------------
def _join(prefix: str, name: str) -> str:
    """SQL of the dotted path ``prefix.name`` (prefix is SQL; '' at the root)."""
    if prefix == "''":
        return string(name)
    return f"concat({prefix}, {string('.' + name)})"


def paths(node: Node, expr: str, path: str, counter: list) -> str:
    """SQL array of the dotted paths written under ``expr`` (its own included), as
    the Python path marks them (inventory._walk)."""
    if node.shape == "struct":
        children = [paths(child, f"{expr}.{q(name)}", _join(path, name), counter)
                    for name, child in node.fields.items()]
        body = f"concat(array({path}), {', '.join(children)})" if children else f"array({path})"
    elif node.shape == "array":
        counter[0] += 1
        x, i = f"p{counter[0]}", f"i{counter[0]}"
        item = paths(node.item, x, f"concat({path}, '[', CAST({i} AS STRING), ']')", counter)
        body = f"concat(array({path}), flatten(transform({expr}, ({x}, {i}) -> {item})))"
    elif node.shape == "variant" and node.schema.get("type") == "object":
        counter[0] += 1
        k = f"k{counter[0]}"
        keys = f"map_keys(variant_get({expr}, '$', 'map<string,string>'))"
        body = f"concat(array({path}), transform({keys}, {k} -> concat({path}, '.', {k})))"
    else:
        body = f"array({path})"
    return f"CASE WHEN {expr} IS NULL THEN CAST(array() AS array<string>) ELSE {body} END"


def _node_at(node: Node, path: tuple) -> Node | None:
    for part in path:
        if node is None or node.shape != "struct" or part not in node.fields:
            return None
        node = node.fields[part]
    return node


def _nav(expr: str, path: tuple) -> str:
    return expr + "".join(f".{q(p)}" for p in path)


def _lower_ok(expr: str) -> str:
    """``expr`` is text that Python and Java lower-case alike. A JVM's default
    locale may be Turkish, which Java applies to non-ASCII text ('I' -> dotless i),
    so non-ASCII text with an 'I' is left to Python. One regular expression: they
    are most of the SQL path's cost."""
    return f"{expr} RLIKE {string(_LOWERABLE)}"


class Fields:
    """The SQL of one table's record values, and the conditions under which the
    SQL computes what the Python would."""

    def __init__(self):
        self.guards: list[str] = []  # conditions for the line to be proven clean

    def guard(self, condition: str) -> None:
        self.guards.append(condition)

    def lowerable(self, raw: str) -> None:
        self.guard(f"({raw} IS NULL OR {_lower_ok(raw)})")

    def name(self, raw: str) -> tuple[str, str]:
        """(value, text) of a name: lower-cased; None unless a non-blank string."""
        self.lowerable(raw)
        text = f"CASE WHEN {raw} RLIKE {string(_NON_BLANK)} THEN {raw} END"
        return f"lower({text})", text

    def value(self, spec, node: Node | None, raw: str) -> dict[str, str]:
        """Column -> SQL for one field (records.table_columns order is applied later)."""
        kind = spec.type
        shape = node.shape if node is not None else None
        present = f"({raw} IS NOT NULL)"
        out: dict[str, str] = {}
        default, default_text = spec.default, spec.default_text

        def with_default(value: str, spark: str) -> str:
            if default is None:
                return value
            return f"CASE WHEN {present} THEN {value} ELSE {_literal(default, spark)} END"

        def text_default(text: str) -> str:
            literal = string(default_text) if default_text is not None else "CAST(NULL AS STRING)"
            return f"CASE WHEN {present} THEN {text} ELSE {literal} END"

        if node is None:  # a path the schema does not define: never written in a clean line
            raw = "NULL"
            present = "false"
        if kind == "count":
            if node is None:
                out[spec.name] = "CAST(0 AS BIGINT)"
                return out
            if shape != "array" or (spec.where and node.item.shape != "struct"):
                raise Unsupported(f"count over {shape}")
            x = "c"
            conds = [f"{x}.{q(k)} = {string(v)}" if isinstance(v, str) else None for k, v in (spec.where or {}).items()]
            if any(c is None for c in conds) or any(k not in node.item.fields for k in (spec.where or {})):
                raise Unsupported("count where")
            body = f"filter({raw}, {x} -> {' AND '.join(conds)})" if conds else raw
            # (size(NULL) is -1)
            out[spec.name] = f"CAST(CASE WHEN {raw} IS NULL THEN 0 ELSE size({body}) END AS BIGINT)"
            return out
        if kind in LIST_TYPES:
            if node is None:
                texts = "CAST(array() AS array<string>)"
            elif shape != "array":
                raise Unsupported(f"list field over {shape}")
            elif spec.item:
                if node.item.shape != "struct" or spec.item not in node.item.fields \
                        or node.item.fields[spec.item].shape != "string":
                    raise Unsupported("list item")
                texts = f"transform({raw}, e -> e.{q(spec.item)})"
            elif node.item.shape == "string":
                texts = raw
            else:
                raise Unsupported("list of non-strings")
            texts = f"coalesce({texts}, CAST(array() AS array<string>))"
            if kind == "names":
                self.guard(f"forall({texts}, e -> e IS NULL OR {_lower_ok('e')})")
                value = f"transform({texts}, e -> lower(e))"
            else:
                value = texts
            out[spec.name] = value
            out[spec.name + "__text"] = texts
            out[spec.name + "__set"] = present
            return out
        if node is not None and shape != {"name": "string", "text": "string", "enum": "string", "date": "string",
                                          "dn_name": "string", "int": "bigint", "bool": "boolean",
                                          "duration": "string", "size": "variant", "version": "variant"}[kind]:
            raise Unsupported(f"{kind} field over {shape}")
        spark = rows.value_type(kind)
        if kind == "name":
            value, _ = self.name(raw)
            out[spec.name] = with_default(value, spark)
            out[spec.name + "__text"] = text_default(raw)
        elif kind in ("text", "enum", "date", "int", "bool"):
            out[spec.name] = with_default(raw, spark)
        elif kind == "dn_name":
            out[spec.name] = with_default(self.dn_name(raw), spark)
        elif kind == "duration":
            out[spec.name] = with_default(self.duration(raw), spark)
            out[spec.name + "__text"] = text_default(raw)
        elif kind == "size":
            value, text = self.size(raw)
            out[spec.name] = with_default(value, spark)
            out[spec.name + "__text"] = text_default(text)
        elif kind == "version":
            value, text = self.version(raw)
            out[spec.name] = with_default(value, spark)
            out[spec.name + "__text"] = text_default(text)
        else:
            raise Unsupported(kind)
        out[spec.name + "__set"] = present
        return out

    def dn_name(self, raw: str) -> str:
        # no whitespace at the ends but spaces inside: Python's strip() is then trim()
        self.guard(f"({raw} IS NULL OR ({raw} RLIKE {string(_DN_FORM)} AND {_lower_ok(raw)}))")
        first = f"trim(replace(split(substr({raw}, 4), {string(_DN_SPLIT)}, 2)[0], {string(_DN_COMMA)}, ','))"
        text = f"CASE WHEN lower(substr({raw}, 1, 3)) = 'cn=' THEN {first} ELSE {raw} END"
        return f"nullif(lower({text}), '')"

    def duration(self, raw: str) -> str:
        span = "^(-?)(?:([0-9]{1,8})\\.)?([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\\.([0-9]{1,7}))?\\z"
        short = f"^([0-9]{{1,{_MAX_DIGITS}}})([smhd])\\z"
        self.guard(f"({raw} IS NULL OR {raw} RLIKE {string(span)} OR {raw} RLIKE {string(short)})")

        def group(pattern: str, index: int) -> str:
            return f"regexp_extract({raw}, {string(pattern)}, {index})"

        whole = (f"(CAST(coalesce(nullif({group(span, 2)}, ''), '0') AS BIGINT) * 86400 + "
                 f"CAST({group(span, 3)} AS BIGINT) * 3600 + CAST({group(span, 4)} AS BIGINT) * 60 + "
                 f"CAST({group(span, 5)} AS BIGINT))")
        fraction = group(span, 6)
        total = (f"(CAST({whole} AS DOUBLE) + CASE WHEN {fraction} = '' THEN CAST(0 AS DOUBLE) "
                 f"ELSE CAST(concat('0.', {fraction}) AS DOUBLE) END)")
        signed = f"CASE WHEN {group(span, 1)} = '-' THEN -{total} ELSE {total} END"
        units = "CASE {u} WHEN 's' THEN 1 WHEN 'm' THEN 60 WHEN 'h' THEN 3600 ELSE 86400 END".format(
            u=group(short, 2))
        short_value = f"CAST({group(short, 1)} AS DOUBLE) * {units}"
        return f"CASE WHEN {raw} RLIKE {string(span)} THEN {signed} WHEN {raw} RLIKE {string(short)} THEN {short_value} END"

    def size(self, raw: str) -> tuple[str, str]:
        kind = f"schema_of_variant({raw})"
        text = f"variant_get({raw}, '$', 'string')"
        form = f"^([0-9]{{1,{_MAX_DIGITS}}}) ?([bB]|[kK][bB]|[mM][bB]|[gG][bB])\\z"
        unit = (f"CASE lower(regexp_extract({text}, {string(form)}, 2)) WHEN 'b' THEN 1 WHEN 'kb' THEN 1024 "
                f"WHEN 'mb' THEN 1048576 ELSE 1073741824 END")
        scaled = f"(CAST(regexp_extract({text}, {string(form)}, 1) AS DOUBLE) * {unit})"
        # int(float(digits) * unit) in Python; out of the 64-bit range is None there and
        # saturated here: such values are not proven
        self.guard(f"({raw} IS NULL OR {kind} = 'BIGINT' OR ({kind} = 'STRING' AND {text} RLIKE {string(form)} "
                   f"AND {scaled} < 9.0E18))")
        value = (f"CASE WHEN {kind} = 'BIGINT' THEN variant_get({raw}, '$', 'bigint') "
                 f"WHEN {kind} = 'STRING' THEN CAST({scaled} AS BIGINT) END")
        shown = f"CASE WHEN {kind} = 'BIGINT' THEN CAST(variant_get({raw}, '$', 'bigint') AS STRING) ELSE {text} END"
        return value, shown

    def version(self, raw: str) -> tuple[str, str]:
        kind = f"schema_of_variant({raw})"
        text = (f"CASE WHEN {kind} = 'BIGINT' THEN CAST(variant_get({raw}, '$', 'bigint') AS STRING) "
                f"WHEN {kind} = 'STRING' THEN variant_get({raw}, '$', 'string') END")
        from linter.model.units import VERSION_RANK

        # the schema allows only these texts (no spaces to strip)
        self.guard(f"({raw} IS NULL OR lower({text}) IN ({', '.join(string(k) for k in VERSION_RANK)}))")
        cases = " ".join(f"WHEN {string(k)} THEN {v}" for k, v in VERSION_RANK.items())
        return f"CAST(CASE lower({text}) {cases} END AS BIGINT)", text


def _literal(value, spark: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return string(value)
    if spark == "double":
        return f"CAST({float(value)!r} AS DOUBLE)"
    return f"CAST({int(value)} AS {spark.upper()})"


@dataclass
class KindPlan:
    kind: str
    root: Node
    valid: str  # SQL predicate over `d` (the typed document)
    tables: list  # (TableSpec, SQL array of record structs)


def _records(table: TableSpec, root: Node, fields: Fields, doc: str, root_marks: str) -> str:
    """SQL array<struct> of the table's records from the typed document `d`,
    with the meta columns the Python gives (records.build_records)."""
    columns = rows.table_columns(table)
    entity = f"{doc}.`metadata`.`name`"
    entity_text = f"CASE WHEN {entity} RLIKE {string(_NON_BLANK)} THEN {entity} END"
    if table.each is None:
        item_node, item, prefix = root, doc, "''"
        index = None
        item_guards = fields
    else:
        list_node = _node_at(root, table.each)
        if list_node is None:
            return f"CAST(array() AS array<struct<{rows.ddl(columns)}>>)"
        if list_node.shape != "array" or list_node.item.shape != "struct":
            raise Unsupported(f"{table.name}: each over {list_node.shape}")
        item_node, item, index = list_node.item, "it", "ix"
        item_guards = Fields()  # conditions on each item: checked for all items at once
        prefix = f"concat({string('.'.join(table.each))}, '[', CAST(ix AS STRING), ']')"
    name_node = _node_at(item_node, table.name_path)
    if name_node is None:
        name_value, name_text = "CAST(NULL AS STRING)", "CAST(NULL AS STRING)"
    elif name_node.shape != "string":
        raise Unsupported(f"{table.name}: name of type {name_node.shape}")
    else:
        name_value, name_text = item_guards.name(_nav(item, table.name_path))
    values = {
        "_est": "_est", "_rid": f"_rid_base + {index if index is not None else 0}",
        "_table": string(table.name), "_kind": string(table.document), "_entity": entity_text,
        "_file": "_display", "_doc": "_line - 1",
        "_prefix": prefix, "_line": "_line", "_column": "CAST(1 AS BIGINT)",
        "name": name_value, "name__text": name_text,
    }
    marks = root_marks if table.each is None else paths(item_node, item, prefix, [0])
    values["_marks"] = (f"map_from_arrays({marks}, array_repeat(array(_line, CAST(1 AS BIGINT)), "
                        f"size({marks})))")
    if table.parent:
        fields.lowerable(entity)
        values[table.parent] = f"lower({entity_text})"
        values[table.parent + "__text"] = entity_text
    for spec in table.fields.values():
        node = _node_at(item_node, spec.path)
        values.update(item_guards.value(spec, node, _nav(item, spec.path)))
    parts = []
    for column, spark in columns:
        parts.append(f"{string(column)}, CAST({values.get(column, 'NULL')} AS {spark})")
    record = f"named_struct({', '.join(parts)})"
    if table.each is None:
        return f"array({record})"
    listed = _nav(doc, table.each)
    fields.guard(f"coalesce(size({listed}), 0) < {ITEMS_PER_DOCUMENT}")  # row ids: see native_rows
    if item_guards.guards:
        fields.guard(f"forall(coalesce({listed}, array()), it -> {' AND '.join(item_guards.guards)})")
    return f"transform(coalesce({listed}, array()), (it, ix) -> {record})"


def kind_plan(kind: str, doc: str, root_marks: str) -> KindPlan:
    """The plan of one kind over the typed document ``doc`` (SQL), whose marks
    (``paths`` of the whole document) are the column ``root_marks``."""
    schema = kind_schema(kind)
    root = typed(schema)
    validity = _Validity()
    conditions = validity.check(root, doc)
    conditions.append(f"{doc}.`apiVersion` = {string(API_VERSION)}")
    fields = Fields()
    tables = [(table, _records(table, root, fields, doc, root_marks))
              for table in load_tables().values() if table.document == kind]
    valid = " AND ".join(f"({c})" for c in conditions + fields.guards)
    return KindPlan(kind, root, valid, tables)


def plans() -> dict[str, KindPlan]:
    """The kinds the SQL path handles (a kind whose schema it cannot compile is
    left to Python entirely), each over its column `d_<kind>`."""
    out = {}
    for kind in KINDS:
        try:
            out[kind] = kind_plan(kind, q("d_" + kind), q("m_" + kind))
        except Unsupported:
            continue
    return out


# -- reading ---------------------------------------------------------------------------
LINE_TAG = "L"  # a line the SQL could not prove clean, for the Python path
# jsonl: a JSON Lines line (read as inventory.line_item does), else a Parquet row's text
LINE = [("_est", "long"), ("file", "string"), ("line", "long"), ("raw", "binary"), ("jsonl", "boolean")]
# row ids of SQL-built records: above every id the Python path gives
# (inventory: partition index < 2^22, shifted by 36), then line ordinal and item
RID_BASE = 1 << 58
_BLANK = "^[ \\t\\r\\x0b\\x0c]*\\z"  # bytes.strip() of such a line is empty: not a record


def _null(spark_type: str) -> str:
    return f"CAST(NULL AS {spark_type})"


def _element(union: list[tuple[str, str]], tag: str, column: str | None, value: str | None) -> str:
    parts = []
    for name, spark_type in union:
        if name == "_t":
            parts.append(f"'_t', {string(tag)}")
        elif name == column:
            parts.append(f"{string(name)}, {value}")
        else:
            parts.append(f"{string(name)}, {_null(spark_type)}")
    return f"named_struct({', '.join(parts)})"


_HADOOP_SPECIAL = set("{}[]*?\\:")  # glob characters, and ':' (not in a Hadoop path name)


def spark_can_read(path: str) -> bool:
    """Whether ``spark.read.text`` reads exactly this file: it expands glob
    characters and rejects a ':' in a file name. Other files take the Python path."""
    return not (_HADOOP_SPECIAL & set(path))


def line_frame(spark, inputs, files: dict, estate: int, ordinal: int = 0):
    """(est, display, line number, text) of the non-blank lines of one estate's
    JSON Lines files. Numbering: each file split is read by one task in order, so
    a line's number is the lines of the file's earlier splits plus its place in
    its split (``monotonically_increasing_id`` counts up by one within a task). The
    splits' counts are collected (one row per split) and joined back."""
    from pyspark.sql import functions as F

    text = (spark.read.option("lineSep", "\n").text([i.path for i in inputs])
            .select(F.col("_metadata.file_path").alias("_path"), F.col("_metadata.file_block_start").alias("_block"),
                    F.monotonically_increasing_id().alias("_mid"), F.col("value")))
    splits = text.groupBy("_path", "_block").agg(F.min("_mid").alias("_first"), F.count(F.lit(1)).alias("_n")).collect()
    by_file: dict = {}
    for row in splits:
        by_file.setdefault(row["_path"], []).append((row["_block"], row["_first"], row["_n"]))
    table = []
    for path in sorted(by_file):
        from linter.engines.spark.inventory import _local_path

        display = files.get(_local_path(path), path)
        offset = 0
        for block, first, count in sorted(by_file[path]):
            table.append((path, block, first, offset, ordinal, display))
            offset += count
            ordinal += count
    blocks = spark.createDataFrame(table, "_path string, _block long, _first long, _offset long, _ordinal long, "
                                          "_display string")
    numbered = text.join(F.broadcast(blocks), ["_path", "_block"])
    place = F.col("_mid") - F.col("_first")
    frame = (numbered.select(F.lit(estate).cast("long").alias("_est"), "_display",
                             (F.col("_offset") + place + 1).alias("_line"),
                             (F.col("_ordinal") + place).alias("_ordinal"), "value", F.lit(True).alias("_jsonl"))
             .where(~F.col("value").rlike(_BLANK)))
    return frame, ordinal


_SIMPLE = "^[\\x20-\\x21\\x23-\\x5b\\x5d-\\x7e]*\\z"  # json.dumps() is the text in quotes


def parquet_line_frame(spark, frame, columns: list[str], files: dict, ordinals: dict):
    """(lines, rest): the Parquet rows as ``line_frame`` rows, their text the JSON text
    inventory._parquet_document writes (line = row number in the file), and the rows
    whose text only Python writes (apiVersion or kind with characters json.dumps
    escapes), for inventory._parquet_partition. ``files``: local path -> (estate,
    display); ``ordinals``: estate -> first free line ordinal (updated)."""
    from pyspark.sql import functions as F

    from linter.engines.spark.inventory import _local_path

    def quoted(name: str) -> str:
        return f"concat({string(json.dumps(name) + ': ')}, '\"', {q(name)}, '\"')"

    parts = []
    for name in ("apiVersion", "kind", "metadata", "spec"):
        if name in columns:
            text = quoted(name) if name in ("apiVersion", "kind") else f"concat({string(json.dumps(name) + ': ')}, {q(name)})"
            parts.append(f"CASE WHEN {q(name)} IS NOT NULL THEN {text} END")
    built = f"concat('{{', concat_ws(', ', {', '.join(parts)}), '}}')" if parts else "'{}'"
    simple = " AND ".join(f"({q(n)} IS NULL OR {q(n)} RLIKE {string(_SIMPLE)})"
                          for n in ("apiVersion", "kind") if n in columns) or "true"
    if "document" in columns:
        value = f"CASE WHEN `document` IS NOT NULL THEN `document` ELSE {built} END"
        simple = f"(`document` IS NOT NULL OR ({simple}))"
    else:
        value = built
    marked = frame.selectExpr("*", f"{simple} AS `_simple`")
    counts = marked.groupBy("_file_path").agg(F.count(F.lit(1)).alias("n")).collect()
    table = []
    for row in sorted(counts, key=lambda r: r["_file_path"]):
        estate, display = files.get(_local_path(row["_file_path"]), (0, row["_file_path"]))
        table.append((row["_file_path"], estate, display, ordinals.get(estate, 0)))
        ordinals[estate] = ordinals.get(estate, 0) + row["n"]
    origins = spark.createDataFrame(table, "_file_path string, _est long, _display string, _base long")
    joined = marked.join(F.broadcast(origins), ["_file_path"])
    lines = joined.where("`_simple`").selectExpr(
        "`_est`", "`_display`", "`_row_index` + 1 AS `_line`", "`_base` + `_row_index` AS `_ordinal`",
        f"{value} AS `value`", "false AS `_jsonl`")
    rest = marked.where("NOT `_simple`").drop("_simple")
    return lines, rest


def native_rows(lines, union: list[tuple[str, str]]):
    """The union rows (inventory.union_columns, plus ``L``) of the lines: records and
    a stats row for every line proven clean, an ``L`` row for every other line."""
    kinds = plans()
    text = f"regexp_replace(`value`, {string(chr(13) + '$')}, '')"  # a CRLF file's line ends
    stage = lines.selectExpr(
        "*", f"{text} AS `_s`")
    stage = stage.selectExpr(
        "*", f"{_fast_line('`_s`')} AS `_pre`")
    stage = stage.selectExpr(
        "*", "CASE WHEN `_pre` THEN variant_get(try_parse_json(concat('{\"k\":', `_s`, '}')), '$.k') END AS `_v`",
        "CASE WHEN `_pre` THEN json_array_length(concat('[', `_s`, ',0]')) = 2 END AS `_one`")
    stage = stage.selectExpr("*", "try_variant_get(`_v`, '$.kind', 'string') AS `_kind`",
                             "to_json(`_v`) AS `_canon`")
    parsed = ["*"]
    for kind, plan in kinds.items():
        schema = plan.root.spark
        parsed.append(f"from_json(CASE WHEN `_one` AND `_kind` = {string(kind)} THEN `_s` END, "
                      f"{string(schema)}) AS {q('d_' + kind)}")
    stage = stage.selectExpr(*parsed)
    checks, marks = ["*"], ["*"]  # marks read the checks' columns: a select of their own
    for kind, plan in kinds.items():
        doc, ok = q("d_" + kind), q("ok_" + kind)
        checks.append(f"coalesce({doc} IS NOT NULL AND to_json({doc}) = `_canon` AND ({plan.valid}), false) AS {ok}")
        marks.append(f"CASE WHEN {ok} THEN {paths(plan.root, doc, chr(39) * 2, [0])} END AS {q('m_' + kind)}")
    stage = stage.selectExpr(*checks)
    marks.append(f"CAST({RID_BASE} AS BIGINT) + `_ordinal` * {ITEMS_PER_DOCUMENT} AS `_rid_base`")
    stage = stage.selectExpr(*marks)
    full = union + [(LINE_TAG, f"struct<{rows.ddl(LINE)}>")]
    stats_type = dict(full)[rows_stats_tag()]
    stats = f"CAST(named_struct('_est', `_est`, 'files', 0, 'documents', 1, 'records_in', 1, 'linted', 1, 'native', 1) AS {stats_type})"
    line = (f"named_struct('_est', `_est`, 'file', `_display`, 'line', `_line`, 'raw', CAST(`value` AS BINARY), "
            f"'jsonl', `_jsonl`)")
    element_type = "struct<" + ", ".join(f"{q(n)}: {t}" for n, t in full) + ">"
    branches = []
    for kind, plan in kinds.items():
        arrays = [f"array({_element(full, rows_stats_tag(), rows_stats_tag(), stats)})"]
        for table, records in plan.tables:
            arrays.append(f"transform({records}, r -> {_element(full, table.name, table.name, 'r')})")
        branches.append(f"WHEN {q('ok_' + kind)} THEN concat({', '.join(arrays)})")
    slow = f"array({_element(full, LINE_TAG, LINE_TAG, line)})"
    everything = f"CAST(CASE {' '.join(branches)} ELSE {slow} END AS array<{element_type}>)"
    out = stage.selectExpr(f"explode({everything}) AS `_u`").selectExpr("`_u`.*")
    return out


def rows_stats_tag() -> str:
    from linter.engines.spark.inventory import STATS_TAG

    return STATS_TAG
