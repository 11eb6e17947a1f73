"""Bytes to text, and text to one chunk per YAML document.

A syntax error in one document of a multi-document file must not hide the
documents after it, so files are split at ``---`` markers *before* parsing. A
``---`` at column 0 always starts a new document in YAML (it may not appear
inside a scalar there), so the split is exact.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass


class TextError(Exception):
    """The bytes are not YAML text. Carries a 1-based position."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def _position_of(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def decode(data: bytes) -> str:
    """Decode a YAML file's bytes (UTF-8, with or without BOM, or UTF-16 or UTF-32
    with BOM: the encodings YAML names)."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16: FF FE 00 00 starts FF FE
        try:
            return data.decode("utf-32")
        except UnicodeDecodeError as exc:
            raise TextError(f"invalid UTF-32 text: {exc.reason}; save the file as UTF-8") from None
    if data.startswith(codecs.BOM_UTF16_LE) or data.startswith(codecs.BOM_UTF16_BE):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise TextError(f"invalid UTF-16 text: {exc.reason}") from None
    nul = data.find(b"\x00")
    if nul != -1:
        line, col = _position_of(data, nul)
        raise TextError(
            "this is a binary file, not YAML text (NUL byte found); "
            "pass only YAML files or exclude it in .exlint.yaml",
            line,
            col,
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, col = _position_of(data, exc.start)
        raise TextError(
            f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
            line,
            col,
        ) from None


_MARKER = re.compile(r"^---(?:[ \t]|$)")


@dataclass(frozen=True)
class Chunk:
    text: str
    first_line: int  # 0-based line of the chunk's first line in the file


def split_documents(text: str) -> list[Chunk]:
    lines = text.splitlines(keepends=True)
    chunks: list[Chunk] = []
    start = 0
    pending_directives = 0  # directive/comment lines that belong to the next document
    for number, line in enumerate(lines):
        if _MARKER.match(line) and number > 0:
            cut = number - pending_directives
            if cut > start:
                chunks.append(Chunk("".join(lines[start:cut]), start))
                start = cut
            elif pending_directives == 0 and number > start:
                chunks.append(Chunk("".join(lines[start:number]), start))
                start = number
            pending_directives = 0
        elif line.startswith("%"):
            pending_directives = pending_directives + 1
        elif pending_directives and (not line.strip() or line.lstrip().startswith("#")):
            pending_directives += 1
        else:
            pending_directives = 0
    if start < len(lines):
        chunks.append(Chunk("".join(lines[start:]), start))
    return chunks


# line breaks YAML (1.1, as PyYAML reads it) and str.splitlines count, and git,
# GitHub annotations and the --diff hunks do not: a lone CR, NEL, LS and PS
_ODD_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


def git_positions(text: str):
    """A function mapping a (line, column) as YAML numbers it to the line and
    column git and editors' diff views give (lines end at LF only), or None when
    the text has no other line break, as nearly every file: a U+2028 inside a
    quoted value would otherwise put every later finding a line too low."""
    if not _ODD_BREAKS.search(text):
        return None
    starts: list[tuple[int, int]] = []  # each YAML line: (its LF line, its first column there - 1)
    line, offset = 1, 0
    for piece in text.splitlines(keepends=True):
        starts.append((line, offset))
        if piece.endswith("\n"):
            line, offset = line + 1, 0
        else:
            offset += len(piece)

    def place(yaml_line: int, column: int) -> tuple[int, int]:
        if not 1 <= yaml_line <= len(starts):
            return yaml_line, column
        lf_line, before = starts[yaml_line - 1]
        return lf_line, before + column

    return place
