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

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def encode_like(raw: bytes, text: str) -> bytes:
    """``text`` encoded as the file whose bytes were ``raw`` (same encoding and BOM)."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return bom + text.encode(encoding)
    return text.encode("utf-8")


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of one file, as `git diff` would show it (``a/`` and ``b/`` paths)."""
    shown = path.replace(os.sep, "/")
    out = []
    for line in difflib.unified_diff(_LINE.findall(old), _LINE.findall(new), f"a/{shown}", f"b/{shown}"):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)
