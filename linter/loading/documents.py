"""What loading produces: documents that remember where each value is written,
and the files they came from. A leaf module: every reader (YAML, JSON Lines)
builds these without importing another reader."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from linter.findings import Finding, format_path


@dataclass
class Document:
    file: str
    index: int  # 0-based position of the document in its file
    line: int
    column: int
    data: Any
    marks: dict[str, tuple[int, int]]  # dotted path ("spec.replicas[1]") -> (line, column)
    key_marks: dict[str, tuple[int, int]] = field(default_factory=dict)  # where mapping keys are written
    # False only when the loader knows no integer in it is past 64 bits (a JSON line
    # without a run of 19 digits): validation then skips its walk looking for one
    wide_ints: bool = True
    aliased: bool = False  # uses YAML aliases or merge keys (--fix does not edit such a document)
    # its YAML does not parse (EXL001), but its kind and name came before the error: the
    # model knows it exists, every other field unread (linter.loading.partial_document)
    partial: bool = False

    def key_position(self, path: tuple) -> tuple[int, int]:
        """Where the key of ``path`` is written (an unknown or misspelt key is reported there)."""
        mark = self.key_marks.get(format_path(path))
        return mark if mark is not None else self.position(path)

    def position(self, path: tuple) -> tuple[int, int]:
        """Where ``path`` is written, or its nearest written ancestor."""
        for cut in range(len(path), -1, -1):
            mark = self.marks.get(format_path(path[:cut]))
            if mark is not None:
                return mark
        return self.line, self.column


@dataclass
class LoadedFile:
    path: str
    text: str | None
    documents: list[Document] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # documents whose YAML does not parse but whose kind and name were read before the error
    # (Document.partial): never validated or linted, only named in the model, so that the
    # references to them elsewhere are not reported as undefined beside the EXL001
    partial: list[Document] = field(default_factory=list)
    # a file whose bytes could not be read as text (not UTF-8, a NUL byte, too
    # large): whether those bytes claim to be exlint's (linter.loading.scope)
    claims: bool | None = None
