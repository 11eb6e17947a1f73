"""Structural validation: envelope (EXL004), JSON Schema (EXL003), unknown
registry value and replication setting names (EXL005).

The schemas in ``schemas/`` are the single source of truth: the known registry
and replication names are read from their ``properties``.
"""
from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from typing import Any

from linter.findings import Entity, Finding, format_path
from linter.loading.nodes import OversizedInt
from linter.resources import schemas_dir

API_VERSION = "exlint/v1"
KINDS = ("Organization", "Server", "PublicFolderDatabase", "PublicFolder", "MailboxDatabase")
_BASE = "https://exlint.dev/schemas/"
# Mappings whose keys are Exchange names rather than structure: unknown keys there
# are EXL005 warnings (with a suggestion), not schema errors.
NAMED_SETTINGS = (("spec", "registry"), ("spec", "replication"))


def schema_file(kind: str) -> str:
    return kind.lower() + ".json"


@lru_cache(maxsize=1)
def _schemas() -> dict[str, dict]:
    out = {}
    for path in sorted(schemas_dir().glob("*.json")):
        out[path.name] = json.loads(path.read_text(encoding="utf-8"))
    return out


def _dereference(node, defs):
    """The schema with every reference to common.json replaced by its
    definition: our schemas are not recursive, and resolving ``$ref`` through
    the registry on every value costs more than half of validation time."""
    if isinstance(node, dict):
        if "$ref" in node:
            target = _dereference(defs[node["$ref"].split("/")[-1]], defs)
            rest = {k: _dereference(v, defs) for k, v in node.items() if k != "$ref"}
            return {**target, **rest}
        return {k: _dereference(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_dereference(v, defs) for v in node]
    return node


@lru_cache(maxsize=None)
def validator(kind: str):
    from jsonschema import Draft202012Validator

    schemas = _schemas()
    return Draft202012Validator(_dereference(schemas[schema_file(kind)], schemas["common.json"]["$defs"]))


def _without_defaults(node, names: bool = False):
    """fastjsonschema writes ``default`` values into the data it checks; the
    model must see only what the user wrote. (``names``: a ``properties``
    mapping, whose keys are field names, not keywords.)"""
    if isinstance(node, dict):
        return {
            k: _without_defaults(v, names=(k == "properties" and not names))
            for k, v in node.items()
            if names or k != "default"
        }
    if isinstance(node, list):
        return [_without_defaults(v) for v in node]
    return node


def fast_schema(kind: str) -> dict:
    """The kind's schema as fastjsonschema compiles it: dereferenced, without
    defaults (fastjsonschema writes them into the data) or documentation."""
    schemas = _schemas()
    schema = _dereference(schemas[schema_file(kind)], schemas["common.json"]["$defs"])
    schema = _without_defaults({k: v for k, v in schema.items() if k not in ("$schema", "$id")})
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return schema


def schemas_digest() -> str:
    """A change detector for the schema files (whether the generated validators
    are current): CRC-32 of their names and bytes, cheap enough for every run
    (hashlib's import alone costs a one-file run more than the check)."""
    import zlib

    digest = 0
    for path in sorted(schemas_dir().glob("*.json")):
        digest = zlib.crc32(path.read_bytes(), zlib.crc32(path.name.encode(), digest))
    return f"crc32-{digest:08x}"


@lru_cache(maxsize=None)
def fast_check(kind: str):
    """A compiled validity check (fastjsonschema): most documents are valid, and
    this answers "valid?" several times faster than jsonschema. Invalid
    documents are re-validated with jsonschema, which explains every error.
    Our schemas use only keywords that draft 7 shares with 2020-12.

    The validators are generated ahead of time into linter/schema_validators/
    (``python -m linter.schema_validators``) so that a one-file run does not pay
    for code generation; when the schemas changed since, they are compiled here."""
    import importlib

    compiled, errors = None, ValueError  # both exceptions of fastjsonschema and of the generated code's are ValueErrors
    try:
        package = importlib.import_module("linter.schema_validators")
        if package.SCHEMAS_DIGEST == schemas_digest():
            compiled = importlib.import_module(f"linter.schema_validators.{kind.lower()}").validate
    except (ImportError, AttributeError):
        compiled = None
    if compiled is None:
        import fastjsonschema

        compiled = fastjsonschema.compile(fast_schema(kind), use_formats=False)

    def is_valid(data) -> bool:
        try:
            compiled(data)
        except errors:
            return False
        return True

    return is_valid


def kind_schema(kind: str) -> dict:
    return _schemas()[schema_file(kind)]


def bundled_schema(kind: str | None = None) -> dict:
    """A self-contained schema (common definitions inlined) for editors.

    Without a kind: one schema accepting any exlint document, chosen by ``kind``.
    """
    common = _schemas()["common.json"]

    def inline(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith("common.json#/$defs/"):
                    out[key] = "#/$defs/" + value.split("/")[-1]
                elif key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                    out[key] = value
                else:
                    out[key] = inline(value)
            return out
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    defs = {name: inline(body) for name, body in common["$defs"].items()}
    if kind is not None:
        body = inline(kind_schema(kind))
        body["$defs"] = {**defs, **body.get("$defs", {})}
        return body
    branches = []
    for each in KINDS:
        body = inline(kind_schema(each))
        body.pop("$schema", None)
        body.pop("$id", None)
        defs.update(body.pop("$defs", {}))
        branches.append({"if": {"properties": {"kind": {"const": each}}, "required": ["kind"]}, "then": body})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": _BASE + "exlint.json",
        "title": "exlint document",
        "description": "Any exlint input document (Organization, Server, PublicFolderDatabase, PublicFolder, MailboxDatabase).",
        "type": "object",
        "required": ["apiVersion", "kind"],
        "properties": {"apiVersion": {"const": API_VERSION}, "kind": {"enum": list(KINDS)}},
        "allOf": branches,
        "$defs": defs,
    }


@lru_cache(maxsize=None)
def _open_mappings(kind: str) -> tuple[tuple[tuple, tuple[str, ...]], ...]:
    """(schema path, known names) of each mapping of ``kind`` that lists its names
    yet accepts others (a cmdlet's output: transportConfig, a connector; ``[]`` in a
    path stands for every item of a list), registry and replication aside (EXL005's).
    Found once per kind, so that a document's check visits these mappings only."""
    out = []
    pending = [((), kind_schema(kind))]
    while pending:
        path, schema = pending.pop()
        if isinstance(schema.get("items"), dict):
            pending.append((path + ("[]",), schema["items"]))
        properties = schema.get("properties")
        if not isinstance(properties, dict) or path[-1:] in (("registry",), ("replication",)):
            continue
        if schema.get("additionalProperties", True) is not False:
            out.append((path, tuple(properties)))
        pending.extend((path + (name,), child) for name, child in properties.items() if isinstance(child, dict))
    return tuple(out)


def _near_miss_keys(kind: str, data):
    """(path, key, known name) of each key of an open mapping (``_open_mappings``)
    that is not a known name but nearly one: the same but for case
    (ConnectionTimeOut), or a typo. Accepted as they are, such keys would silently
    turn a check off."""
    for schema_path, names in _open_mappings(kind):
        found = [((), data)]
        for part in schema_path:  # the mapping's instances in this document, with their paths
            if part == "[]":
                found = [(at + (i,), item) for at, value in found if isinstance(value, list)
                         for i, item in enumerate(value)]
            else:
                found = [(at + (part,), value[part]) for at, value in found
                         if isinstance(value, dict) and part in value]
        for at, mapping in found:
            if isinstance(mapping, dict):
                for key in mapping:
                    if key not in names and isinstance(key, str):
                        known = _near_name(key, names)
                        if known is not None:
                            yield at, key, known


@lru_cache(maxsize=4096)
def _near_name(key: str, names: tuple[str, ...]) -> str | None:
    import difflib  # for messages about mistakes only

    lowered = key.lower()
    for name in names:
        if name.lower() == lowered:
            return name
    close = difflib.get_close_matches(lowered, [name.lower() for name in names], n=1, cutoff=0.9)
    if close:
        return next((name for name in names if name.lower() == close[0]), None)
    # a name cut short or run on, which a ratio of 0.9 misses: ShadowMessagePreference for
    # ShadowMessagePreferenceSetting (the spelling of the seed SHD006 quotes), ShadowRedundancy,
    # SafetyNetHoldTimeSpan. The shorter must start the longer and be most of it; no parameter
    # name in the real captures (shared/real-world) meets that against another known name
    for name in names:
        short, longer = sorted((lowered, name.lower()), key=len)
        if len(short) >= 12 and longer.startswith(short) and len(short) >= 0.6 * len(longer):
            return name
    return None


@lru_cache(maxsize=None)
def known_names(kind: str, mapping: str) -> tuple[str, ...]:
    spec = kind_schema(kind).get("properties", {}).get("spec", {})
    props = spec.get("properties", {}).get(mapping, {}).get("properties", {})
    return tuple(props)


@lru_cache(maxsize=None)
def _node_at(kind: str, path: tuple[str, ...]):
    """The schema node of ``path`` in a kind's document (list items stepped through), or None."""
    schemas = _schemas()
    node = _dereference(schemas[schema_file(kind)], schemas["common.json"]["$defs"])
    for part in path:
        if not isinstance(node, dict):
            return None
        if node.get("type") == "array":
            node = node.get("items") or {}
        node = (node.get("properties") or {}).get(part)
        if node is None:
            return None
    return node if isinstance(node, dict) else None


def accepts_null(kind: str, path: tuple[str, ...]) -> bool:
    """Whether the schema lets ``path`` be written as null (``systemFolder: null``, an
    ordinary folder): such a null is the field's default, not an unreadable value."""
    node = _node_at(kind, path)
    if node is None:
        return False
    kinds = node.get("type")
    return (None in (node.get("enum") or ()) or kinds == "null"
            or (isinstance(kinds, list) and "null" in kinds))


def rejects_blank(kind: str, path: tuple[str, ...]) -> bool:
    """Whether the schema refuses a blank text at ``path`` (a name: ``siteFolderServer:
    ""``). Such a value is EXL003's; the model reads it as unreadable, not as absent,
    so that no rule also judges the setting missing (one problem, one finding)."""
    node = _node_at(kind, path)
    return node is not None and node.get("type") == "string" and (
        (node.get("minLength") or 0) >= 1 or node.get("pattern") == "\\S")


def enum_values(kind: str, path: tuple[str, ...]) -> frozenset | None:
    """The schema's ``enum`` strings at ``path``, or None. Any other value is EXL003's;
    the model reads it as unreadable, as it does an integer out of bounds."""
    node = _node_at(kind, path)
    values = node.get("enum") if node is not None else None
    return frozenset(v for v in values if isinstance(v, str)) if values else None


def integer_bounds(kind: str, path: tuple[str, ...]) -> tuple[int | None, int | None] | None:
    """The schema's ``minimum``/``maximum`` of the integer at ``path`` (list items are
    stepped through), or None. A value outside them is EXL003's; the model reads it as
    unreadable so that no other rule reports the same value again."""
    node = _node_at(kind, path)
    if node is None or node.get("type") != "integer":
        return None
    bounds = (node.get("minimum"), node.get("maximum"))
    return None if bounds == (None, None) else bounds


@lru_cache(maxsize=None)
def date_paths(kind: str) -> tuple[tuple[str, ...], ...]:
    """Paths of a kind's ISO dates (``$ref`` to common.json's isoDate): the schema's
    pattern bounds each part (month 01-12, day 01-31) but cannot know that February
    has no 30th; ``_impossible_dates`` does."""
    out = []

    def walk(node, path):
        if not isinstance(node, dict):
            return
        if str(node.get("$ref", "")).endswith("/isoDate"):
            out.append(path)
        for key, child in (node.get("properties") or {}).items():
            walk(child, path + (key,))

    walk(kind_schema(kind), ())
    return tuple(out)


def _impossible_dates(kind: str, data: dict):
    """(path, text, why) of each date the schema's pattern accepts that no calendar has."""
    import datetime

    for path in date_paths(kind):
        value = data
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if not isinstance(value, str) or len(value) < 10 or not value[:4].isdigit():
            continue
        try:
            datetime.date(int(value[:4]), int(value[5:7]), int(value[8:10]))
        except ValueError as exc:
            yield path, value, str(exc)


def _suggest(word: str, candidates) -> str | None:
    lowered = {c.lower(): c for c in candidates}
    import difflib  # for messages about mistakes only

    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[match[0]] if match else None


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "mapping"


def _short(value: Any) -> str:
    if isinstance(value, OversizedInt):  # json.dumps would print its stand-in value
        return str(value)
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _unknown_fields(error, path: tuple) -> list[tuple[tuple, str]]:
    """(path, message) of every key an additionalProperties error names: reporting
    only the first hid the others (a misspelt reference among them) until a rerun."""
    known = error.schema.get("properties", {})
    where = format_path(path) or "the document"
    out = []
    for key in [k for k in error.instance if k not in known] or ["?"]:
        suggestion = _suggest(key, known)
        hint = f"; did you mean {suggestion!r}?" if suggestion else "; remove it or check the spelling"
        out.append((path + (key,), f"unknown field {key!r} in {where}{hint}"))
    return out


def _describe(error, document_kind: str) -> tuple[tuple, str]:
    """A path and a message an Exchange admin understands."""
    path = tuple(error.absolute_path)
    validator_name = error.validator
    where = format_path(path) or "the document"
    if validator_name == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return path, f"missing required field {missing!r} in {where}"
    if validator_name == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        got = _type_name(error.instance)
        hint = ""
        if expected == "string" and _is_duration(error.schema):
            hint = " (a duration is a TimeSpan [d.]hh:mm:ss such as 00:10:00, or 90s, 15m, 6h, 2d)"
        elif got == "boolean" and expected == "string":
            hint = " (YAML reads unquoted yes/no/on/off/true/false as booleans: quote the value)"
        elif got in ("integer", "number") and expected == "string":
            hint = " (quote the value)"
        if error.instance is None:  # "null null" said nothing twice
            return path, f"{where} must be {_article(expected)}, not null (leave the field out when it has no value)"
        return path, f"{where} must be {_article(expected)}, not {got} {_short(error.instance)}{hint}"
    if validator_name in ("enum", "const"):
        allowed = error.validator_value if validator_name == "enum" else [error.validator_value]
        suggestion = _suggest(str(error.instance), [str(a) for a in allowed])
        hint = f"; did you mean {suggestion!r}?" if suggestion and suggestion != str(error.instance) else ""
        shown = ", ".join("null" if value is None else str(value) for value in allowed)  # YAML's word, not Python's
        return path, f"{where} is {_short(error.instance)}; allowed: {shown}{hint}"
    if validator_name == "pattern" or validator_name == "anyOf":
        description = error.schema.get("description") or ""
        if error.instance is None:  # said as the type check says it: null is no "wrong form"
            branches = error.validator_value if validator_name == "anyOf" else []
            kinds = [b["type"] for b in branches if isinstance(b, dict) and isinstance(b.get("type"), str)]
            expected = " or ".join(dict.fromkeys(kinds)) if kinds else "a value"
            expected = expected if expected == "a value" else _article(expected)
            return path, f"{where} must be {expected}, not null (leave the field out when it has no value)"
        if _is_duration(error.schema):
            return path, (f"{where} is {_short(error.instance)}, not a duration: write a TimeSpan "
                          "[d.]hh:mm:ss (00:10:00, 1.00:00:00) or 90s, 15m, 6h, 2d")
        if "byte size" in description.lower():
            return path, f"{where} is {_short(error.instance)}, not a size: write 300KB, 10MB or a number of bytes"
        if "exchange release" in description.lower():
            return path, (f"{where} is {_short(error.instance)}; allowed versions: "
                          "2000, 2003, 2007, 2010, 2013, 2016, 2019, SE")
        return path, f"{where} is {_short(error.instance)}, which has the wrong form: {description or error.message}"
    if validator_name in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return path, f"{where} is {_short(error.instance)}; {error.message.split(' is ', 1)[-1]}"
    if validator_name in ("minItems", "maxItems", "minLength", "uniqueItems"):
        return path, f"{where}: {error.message}"
    return path, f"{where}: {error.message}"


_DURATION_FORMS = "[smhd]"  # the short form's units, in a duration's pattern (and no other)


def _is_duration(schema) -> bool:
    """Whether ``schema`` is a duration's (a TimeSpan or 90s/15m/6h/2d), by its pattern or words."""
    text = str(schema)
    return _DURATION_FORMS in text or "duration" in text.lower() or "timespan" in text.lower().replace(" ", "")


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


_INT64 = 2**63


def _oversized_integers(node, path):
    """Integers no engine can hold (Spark columns are 64-bit)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _oversized_integers(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _oversized_integers(value, path + (index,))
    elif isinstance(node, int) and not isinstance(node, bool) and not -_INT64 <= node < _INT64:
        yield path, node


def _recased_errors(kind: str, data, renames: list[tuple[tuple, str, str]]) -> list[tuple[tuple, str]]:
    """EXL003 (path, message) of registry values written in another case than their
    known name, that name itself not written (``renames``: mapping, key as written,
    known name). Exchange applies them (Windows reads registry names in any case) and
    the rules judge them as the known name (linter.model.records), so each value is
    checked against the known name's schema and reported at the key as written."""
    copy = dict(data)
    containers = {}
    for mapping, key, same in renames:
        parent = copy
        for depth, part in enumerate(mapping):  # copy only the mappings on the way down
            trail = mapping[:depth + 1]
            if trail not in containers:
                containers[trail] = dict(parent[part])
                parent[part] = containers[trail]
            parent = containers[trail]
        parent[same] = parent.pop(key)
    written = {mapping + (same,): mapping + (key,) for mapping, key, same in renames}
    out = []
    for error in validator(kind).iter_errors(copy):
        at = tuple(error.absolute_path)
        head = next((h for h in written if at[:len(h)] == h), None)
        if head is None:
            continue
        path, message = _describe(error, kind)
        actual = written[head] + path[len(head):]
        out.append((actual, message.replace(format_path(path), format_path(actual), 1)))
    return out


def readable_entity(data) -> Entity | None:
    """The document's kind and name when both can be read (whatever the kind:
    an EXL004 on an unknown kind still names the document it is about)."""
    if not isinstance(data, dict):
        return None
    kind, metadata = data.get("kind"), data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, int) and not isinstance(name, bool):
        name = str(name)  # `name: 2010` is EXL003's (a name is text), and still tells which document it is
    if isinstance(kind, str) and kind.strip() and isinstance(name, str) and name.strip():
        return Entity(kind, name)
    return None


def with_owner(finding: Finding, documents) -> Finding:
    """A parse-level finding (EXL002) with the entity of the document holding its
    line, when that document's kind and name can be read."""
    if finding.entity is not None or finding.line is None:
        return finding
    holding = [d for d in documents if d.line <= finding.line]
    owner = readable_entity(max(holding, key=lambda d: d.line).data) if holding else None
    return replace(finding, entity=owner) if owner else finding


def validate_document(document) -> tuple[list[Finding], bool]:
    """Findings for one document, and whether it is sound enough to model.

    A document without a known kind, or without a name, cannot be modelled;
    other schema violations are reported and the document is still linted
    (fields that do not fit their type are treated as absent).
    """
    data = document.data
    file = document.file

    def at(path, rule, message, severity="error", entity=None, on_key=False):
        line, column = document.key_position(path) if on_key else document.position(path)
        return Finding(rule, severity, message, file, line, column, format_path(path) or None, entity)

    if not isinstance(data, dict):
        return [at((), "EXL003", f"a document must be a mapping with apiVersion, kind, metadata and spec, "
                                 f"not {_article(_type_name(data))}")], False
    findings: list[Finding] = []
    api = data.get("apiVersion")
    kind = data.get("kind")
    readable = readable_entity(data)
    if "apiVersion" not in data and "kind" not in data:  # one problem (not a document of exlint's), one finding
        return [at((), "EXL004", f"missing apiVersion and kind: add 'apiVersion: {API_VERSION}' and a kind, one of "
                                 f"{', '.join(KINDS)} (or move this document out of the file, if it is not exlint's)",
                   entity=readable)], False
    if api != API_VERSION:
        if api is None and "apiVersion" in data:
            findings.append(at(("apiVersion",), "EXL004", f"apiVersion is empty (null): write 'apiVersion: {API_VERSION}'",
                               entity=readable))
        elif api is None:
            findings.append(at((), "EXL004", f"missing apiVersion: add 'apiVersion: {API_VERSION}'", entity=readable))
        else:
            findings.append(at(("apiVersion",), "EXL004", f"unknown apiVersion {_short(api)}; exlint reads {API_VERSION}",
                               entity=readable))
    if kind not in KINDS:
        if kind is None and "kind" in data:
            findings.append(at(("kind",), "EXL004", f"kind is empty (null): write one of {', '.join(KINDS)}",
                               entity=readable))
        elif kind is None:
            findings.append(at((), "EXL004", f"missing kind: one of {', '.join(KINDS)}", entity=readable))
        else:
            suggestion = _suggest(str(kind), KINDS)
            hint = f"; did you mean {suggestion!r}?" if suggestion else ""
            findings.append(at(("kind",), "EXL004", f"unknown kind {_short(kind)}; known kinds: {', '.join(KINDS)}{hint}",
                               entity=readable))
        return findings, False
    name = (data.get("metadata") or {}).get("name") if isinstance(data.get("metadata"), dict) else None
    entity = Entity(kind, name) if isinstance(name, str) and name.strip() else None
    seen_paths = set()
    errors = () if fast_check(kind)(data) else validator(kind).iter_errors(data)
    for error in errors:
        if error.validator == "const" and tuple(error.absolute_path) == ("apiVersion",):
            continue  # reported above as EXL004
        if error.validator == "required" and not error.absolute_path and api is None \
                and error.message.startswith("'apiVersion'"):
            continue  # a missing apiVersion too: one problem, one finding
        unknown = error.validator == "additionalProperties"
        for path, message in _unknown_fields(error, tuple(error.absolute_path)) if unknown \
                else [_describe(error, kind)]:
            if path in seen_paths:
                continue
            seen_paths.add(path)
            findings.append(at(path, "EXL003", message, entity=entity, on_key=unknown))
    for path, value, why in _impossible_dates(kind, data):
        if path not in seen_paths:
            findings.append(at(path, "EXL003", f"{format_path(path)} is {_short(value)}, which is no calendar date "
                                               f"({why}); write a date that exists", entity=entity))
    for path, value in _oversized_integers(data, ()) if document.wide_ints else ():
        if path not in seen_paths:
            findings.append(at(path, "EXL003", f"{format_path(path)} is {str(value)[:24]}..., an integer too large "
                                               "for any Exchange setting (64-bit limit)", entity=entity))
    for path, key, known in _near_miss_keys(kind, data):
        if path + (key,) not in seen_paths:
            findings.append(at(path + (key,), "EXL003",
                               f"unknown field {key!r} in {format_path(path)}; did you mean {known!r}? exlint reads "
                               f"a cmdlet parameter by its exact name, so this value is not checked",
                               entity=entity, on_key=True))
    renames = []  # registry values in another case: validated as their known name's below
    for mapping in NAMED_SETTINGS:
        values = data
        for part in mapping:
            values = values.get(part) if isinstance(values, dict) else None
        if not isinstance(values, dict):
            continue
        known = known_names(kind, mapping[-1])
        if not known:
            continue
        other = "replication" if mapping[-1] == "registry" else "registry"
        elsewhere = {name.lower(): name for name in known_names(kind, other)}
        # Windows reads registry value names case-insensitively (linter.model.records)
        cased = {name.casefold(): name for name in known} if mapping[-1] == "registry" else {}
        for key in values:
            if key in known:
                continue
            label = "registry value" if mapping[-1] == "registry" else "replication setting"
            moved = elsewhere.get(key.lower()) if isinstance(key, str) else None
            same = cased.get(key.casefold()) if isinstance(key, str) else None
            if same is not None:
                if same in values:
                    message = (f"registry value name {key!r} names the same value as {same!r} (Windows reads "
                               f"registry names in any case), which is also written: keep one of them")
                else:
                    renames.append((mapping, key, same))
                    message = (f"registry value name {key!r} differs from {same!r} only in case: Windows reads "
                               f"registry names in any case, so Exchange applies it and exlint checks it as "
                               f"{same!r}; write the name as {same!r}")
                findings.append(Finding("EXL005", "warning", message, file, *document.key_position(mapping + (key,)),
                                        format_path(mapping + (key,)), entity,
                                        extra=() if same in values else (("suggestion", same),)))
                continue
            if moved is not None:  # in the wrong mapping: a move, not a rename (no suggestion to apply)
                suggestion = None
                hint = (f"; {moved!r} is a {'registry value' if other == 'registry' else 'replication setting'}: "
                        f"move it under {format_path(mapping[:-1] + (other,))}")
            else:
                suggestion = _suggest(key, known)
                hint = f"; did you mean {suggestion!r}?" if suggestion else ""
            findings.append(
                Finding("EXL005", "warning", f"unknown {label} name {key!r}: Exchange ignores it{hint}",
                        file, *document.key_position(mapping + (key,)), format_path(mapping + (key,)), entity,
                        extra=(("suggestion", suggestion),) if suggestion else ())
            )
    for path, message in _recased_errors(kind, data, renames) if renames else ():
        if path not in seen_paths:
            findings.append(at(path, "EXL003", message, entity=entity))
    return findings, entity is not None
