"""JSON Lines: one document per line, the input-model envelope. Both `exlint check`
(load_file) and the estate job's Python path (engines/spark/inventory.py) read a
line here, so a line gives the same document and findings in either. Imported by
load_file only for such a file (it needs this package's Document)."""
from __future__ import annotations

import json
import re

from linter.findings import Finding, format_path
from linter.loading.documents import Document, LoadedFile
from linter.loading.nodes import MAX_DEPTH, MAX_INT_TEXT, OversizedInt


class _JsonObject(dict):
    __slots__ = ("duplicates",)


def _object_pairs(pairs):
    # dict() in C for the usual object; only one that repeats a key is walked in Python
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    marked = _JsonObject(out)
    seen: set = set()
    marked.duplicates = [key for key, _ in pairs if key in seen or seen.add(key)]
    return marked


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# built once: json.loads builds a decoder per call when given a hook
_DECODER = json.JSONDecoder(object_pairs_hook=_object_pairs)
_INT64_LOW, _INT64_HIGH = -(2 ** 63), 2 ** 63 - 1
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs


def _deeper_than(value, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` (measured without recursion:
    json.loads accepts nearly a thousand levels)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return False


def _has_lone_surrogate(value) -> bool:
    if isinstance(value, str):
        return _LONE_SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _int(text: str) -> int:
    return OversizedInt.of(text) if len(text) > MAX_INT_TEXT else int(text)


def _repeated_keys(value, trail: list, duplicates: list) -> None:
    """Collects the paths of the keys repeated under ``value`` (objects that repeat
    one are _JsonObjects)."""
    if isinstance(value, dict):
        duplicates.extend(tuple(trail) + (key,) for key in getattr(value, "duplicates", ()))
        for key, child in value.items():
            trail.append(key)
            _repeated_keys(child, trail, duplicates)
            trail.pop()
    elif isinstance(value, list):
        for index, child in enumerate(value):
            trail.append(index)
            _repeated_keys(child, trail, duplicates)
            trail.pop()


REPEATS, WIDE = 1, 2  # what _mark_paths finds under a value


def _mark_paths(value, dotted: str, marks: dict, position) -> int:
    """Marks every path under ``value`` (dotted as format_path writes it) at
    ``position``, calling itself only for containers (the parse of 100,000 servers
    marks 15 million values); returns REPEATS when an object under it repeats a
    key, WIDE when an integer under it is past 64 bits (validation then looks for it)."""
    found = 0
    if isinstance(value, dict):
        if value.__class__ is _JsonObject:
            found = REPEATS
        pairs = value.items()
        prefix = dotted + "." if dotted else ""
    else:
        pairs = enumerate(value)
        prefix = None
    for key, child in pairs:
        path = prefix + key if prefix is not None else f"{dotted}[{key}]"
        marks[path] = position
        kind = child.__class__
        if kind is dict or kind is list or kind is _JsonObject:
            if child:
                found |= _mark_paths(child, path, marks, position)
        elif kind is not str and isinstance(child, int) and not _INT64_LOW <= child <= _INT64_HIGH:
            found |= WIDE
    return found


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


# what Python's JSON decoder says, and what it means on a line of JSON Lines
_JSON_HINTS = {
    "Extra data": "more text after the end of the document (JSON Lines hold one document per line: "
                  "split the line, or remove what follows the closing brace)",
    "Expecting value": "a value was expected here (a string in double quotes, a number, an object, an array, "
                       "true, false or null)",
    "Expecting property name enclosed in double quotes": "a key in double quotes was expected here "
                                                         "(JSON has no single quotes, comments or trailing commas)",
}


def json_document(text: str, display: str, index: int, line: int):
    """(Document or None, findings) of one JSON text; every value is placed at
    (line, 1): a JSON line has no finer positions worth their cost."""
    try:
        try:
            data = _DECODER.decode(text)
        except ValueError as exc:
            if not isinstance(exc, json.JSONDecodeError) and "integer string conversion" in str(exc):
                # an integer too long for int(): every integer of this line parsed in Python
                data = json.JSONDecoder(object_pairs_hook=_object_pairs, parse_int=_int).decode(text)
            else:
                raise
    except RecursionError:
        return None, [Finding("EXL001", "error", "nesting too deep for a JSON parser", display, line, 1)]
    except ValueError as exc:
        column = getattr(exc, "colno", 1)
        message = getattr(exc, "msg", str(exc))
        return None, [Finding("EXL001", "error", f"invalid JSON: {_JSON_HINTS.get(message, message)}", display, line,
                              column)]
    if text.count("[") + text.count("{") > MAX_DEPTH and _deeper_than(data, MAX_DEPTH):
        return None, [Finding("EXL001", "error", f"nesting deeper than {MAX_DEPTH} levels; "
                              "this is not an exlint document", display, line, 1)]
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        return None, [Finding("EXL001", "error", "a lone UTF-16 surrogate escape (\\uD800-\\uDFFF without its pair) in a JSON "
                              "string is not valid Unicode, so the line is not read; fix the escape or write "
                              "the character",
                              display, line, 1)]
    position = (line, 1)
    marks: dict = {"": position}
    duplicates: list = []
    found = _mark_paths(data, "", marks, position) if isinstance(data, (dict, list)) else 0
    if found & REPEATS:
        _repeated_keys(data, [], duplicates)
    findings = [
        Finding("EXL002", "error",
                f"duplicate key {dup[-1]!r}; JSON readers silently keep only the last one: "
                "remove or merge the duplicates",
                display, line, 1, format_path(tuple(dup)), None)
        for dup in duplicates
    ]
    # only an object that repeats a key is not a plain dict
    return Document(display, index, line, 1, _plain(data) if duplicates else data, marks,
                    wide_ints=bool(found & WIDE)), findings


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")  # what Windows PowerShell 5.1's Out-File writes first


def is_utf16(head: bytes) -> bool:
    """A JSON Lines file in UTF-16 (its byte-order mark first): its lines are not split at
    a b"\n" byte, so it is read whole and re-encoded (as_utf8)."""
    return head.startswith(UTF16_BOMS)


def as_utf8(data: bytes) -> tuple[bytes, str | None]:
    """A UTF-16 file's bytes (BOM first) as UTF-8, or (b"", the error) when they are not UTF-16."""
    try:
        return data.decode("utf-16").encode("utf-8", "surrogatepass"), None
    except UnicodeError as exc:
        return b"", (f"invalid UTF-16 (the file starts with a UTF-16 byte-order mark; {exc.reason} at byte "
                     f"{exc.start}): save it as UTF-8")


def utf16_failure(display: str, error: str) -> Finding:
    return Finding("EXL001", "error", error, display, 1, 1)


def line_item(number: int, raw: bytes):
    """(line number, JSON text or None, error or None) of one line; None for a blank line."""
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return number, None, f"invalid UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"
    if "\x00" in text:
        return number, None, "NUL byte in a JSON line: this is not JSON text"
    return number, text, None


def line_document(number: int, text: str | None, error: str | None, display: str):
    """(Document or None, findings) of a line_item: its error as an EXL001 finding at
    the line, or its JSON text read."""
    if error is not None:
        return None, [Finding("EXL001", "error", error, display, number, 1)]
    return json_document(text, display, number - 1, number)


def load_jsonl(data: bytes, display: str) -> LoadedFile:
    """A LoadedFile of a JSON Lines file's bytes: a document per line, and an EXL001
    finding at its line for a line that is not one (blank lines are skipped)."""
    loaded = LoadedFile(display, None)
    if is_utf16(data):
        data, error = as_utf8(data)
        if error is not None:
            loaded.findings.append(utf16_failure(display, error))
            return loaded
    for number, raw in enumerate(data.split(b"\n"), start=1):
        item = line_item(number, raw)
        if item is None:
            continue
        document, findings = line_document(*item, display)
        loaded.findings.extend(findings)
        if document is not None:
            loaded.documents.append(document)
    return loaded
