"""Reading, encoding and atomically replacing the files `--fix` edits, and the
unified diff `--diff` prints.

A file is written back in its own encoding (UTF-8, with its BOM if it had one;
UTF-16 with its BOM); line endings are part of the text and never rewritten.
Writes go through ``linter.atomic.atomic_write``.
"""
from __future__ import annotations

import codecs
import difflib
import os
import re

from linter.atomic import READ_ONLY, read_only

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def encode_like(raw: bytes, text: str) -> bytes:
    """``text`` encoded as the file whose bytes were ``raw`` (same encoding and BOM)."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return bom + text.encode(encoding)
    return text.encode("utf-8")


def write_refusal(path: str) -> str | None:
    """Why ``atomic_write`` would refuse to replace the file at ``path``, or None:
    --diff and the ``[*]`` marks promise only what --fix would write."""
    target = os.path.realpath(path)
    try:
        info = os.stat(target)
    except OSError as exc:
        return exc.strerror or str(exc)
    return READ_ONLY if read_only(target, info) else None


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of one file, as `git diff` would show it (``a/`` and ``b/`` paths)."""
    shown = path.replace(os.sep, "/")
    out = []
    for line in difflib.unified_diff(_LINE.findall(old), _LINE.findall(new),
                                     quote_path(f"a/{shown}"), quote_path(f"b/{shown}")):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


_C_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
              0x22: '\\"', 0x5C: "\\\\"}


def quote_path(name: str) -> str:
    """``name`` for a diff header as git writes it (core.quotePath, the default): in
    double quotes with C escapes when it holds a control character, a double quote,
    a backslash or a byte above 0x7f, so that a name holding a line break cannot
    forge lines of the diff (or a CI log's ``::error`` command)."""
    try:
        raw = name.encode("utf-8", "surrogateescape")  # an undecodable name: its own bytes
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "surrogatepass")
    if all(0x20 <= b < 0x7F and b not in (0x22, 0x5C) for b in raw):
        return name
    return '"' + "".join(_C_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in raw) + '"'
