"""Rendering generated documents: a small, fast YAML emitter in the style of the
sample estate (block mappings, flow lists, list items as flow mappings) and
JSON Lines. Both render the same dict, so the two formats describe the same
estate by construction; a few defects are textual (a syntax error, a
duplicate key) and are applied to the rendered text."""
from __future__ import annotations

import json
import re

# Plain (unquoted) YAML scalars: names, paths, e-mail addresses. Anything else is
# double-quoted with JSON escapes (valid YAML). Durations, dates and short
# durations/sizes stay plain, the way admins paste them: exlint reads the text.
_SAFE = re.compile(r"[A-Za-z/][A-Za-z0-9 ._/()+\-@]*\Z")
_DURATION = re.compile(r"(?:\d+\.)?\d\d:\d\d:\d\d\Z")
_DATE = re.compile(r"\d{4}-\d\d-\d\d\Z")
_SHORT = re.compile(r"\d+(?:[smhd]|KB|MB|GB)\Z")
_GUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
_RESERVED = frozenset(
    "y n yes no on off true false null ~".split()
)


_CACHE: dict = {}


def scalar(value) -> str:
    """The YAML text of a scalar (memoized: keys and most values repeat)."""
    if value.__class__ is bool:       # True == 1: never share a cache slot
        return "true" if value else "false"
    try:
        return _CACHE[value]
    except (KeyError, TypeError):
        pass
    text = _scalar(value)
    if len(_CACHE) > 50000:
        _CACHE.clear()
    _CACHE[value] = text
    return text


def _scalar(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _SAFE.match(text):
        if text[-1] != " " and text.lower() not in _RESERVED:
            return text
    elif _DURATION.match(text) or _DATE.match(text) or _SHORT.match(text) or _GUID.match(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def flow(mapping: dict) -> str:
    parts = []
    for key, value in mapping.items():
        if isinstance(value, list):
            parts.append(f"{scalar(key)}: [{', '.join(scalar(v) for v in value)}]")
        else:
            parts.append(f"{scalar(key)}: {scalar(value)}")
    return "{" + ", ".join(parts) + "}"


FLOW_KEYS = frozenset({"labels"})


def _block(mapping: dict, indent: int, out: list) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        name = scalar(key)
        if isinstance(value, dict):
            if not value:
                out.append(f"{pad}{name}: {{}}")
            elif key in FLOW_KEYS:
                out.append(f"{pad}{name}: {flow(value)}")
            else:
                out.append(f"{pad}{name}:")
                _block(value, indent + 2, out)
        elif isinstance(value, list):
            if value and isinstance(value[0], dict):
                out.append(f"{pad}{name}:")
                for item in value:
                    out.append(f"{pad}  - {flow(item)}")
            else:
                out.append(f"{pad}{name}: [{', '.join(scalar(v) for v in value)}]")
        else:
            out.append(f"{pad}{name}: {scalar(value)}")


def to_yaml(doc: dict) -> str:
    out: list[str] = []
    _block(doc, 0, out)
    out.append("")
    return "\n".join(out)


def to_json(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False)


# -- textual defects ------------------------------------------------------------

def duplicate_key_yaml(text: str, key: str) -> str:
    """Write ``spec.<key>`` twice (same value): EXL002."""
    marker = f"\n  {key}: "
    start = text.index(marker) + 1
    end = text.index("\n", start) + 1
    line = text[start:end]
    return text[:end] + line + text[end:]


def duplicate_key_json(text: str, key: str, value) -> str:
    pair = f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
    return text.replace(pair, f"{pair}, {pair}", 1)


def syntax_error_yaml(text: str) -> str:
    """An unclosed flow mapping (a hand edit gone wrong): EXL001."""
    return text.replace("metadata:\n  name: ", "metadata: {name: ", 1)


def syntax_error_json(text: str) -> str:
    """A truncated export line: EXL001."""
    return text[: text.index('"spec"')].rstrip()
