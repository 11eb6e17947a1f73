"""Reading YAML files and directories into documents that remember positions."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from linter.findings import Finding, format_path
from linter.loading.nodes import MAX_DEPTH, ConstructError, construct
from linter.loading.text import TextError, decode, split_documents

YAML_SUFFIXES = (".yaml", ".yml")
JSONL_SUFFIXES = (".jsonl", ".ndjson")  # read a document per line (linter.loading.jsonl)

try:  # the C loader is several times faster; fall back for exotic builds
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader


class InputError(Exception):
    """A path that cannot be read at all (exit code 2)."""


@dataclass
class Document:
    file: str
    index: int  # 0-based position of the document in its file
    line: int
    column: int
    data: Any
    marks: dict[str, tuple[int, int]]  # dotted path ("spec.replicas[1]") -> (line, column)
    key_marks: dict[str, tuple[int, int]] = field(default_factory=dict)  # where mapping keys are written

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


def _syntax_finding(path: str, rule: str, message: str, line: int, column: int) -> Finding:
    return Finding(rule, "error", message, path, line, column, None, None)


def load_text(text: str, path: str) -> LoadedFile:
    loaded = LoadedFile(path, text)
    index = 0
    for chunk in split_documents(text):
        try:
            for root in yaml.compose_all(chunk.text, Loader=_Loader):
                if root is None:
                    continue
                try:
                    built = construct(root, chunk.first_line, "*" in chunk.text)
                except ConstructError as exc:
                    loaded.findings.append(_syntax_finding(path, exc.rule, exc.message, exc.line, exc.column))
                    index += 1
                    continue
                except RecursionError:
                    line = root.start_mark.line + 1 + chunk.first_line
                    loaded.findings.append(
                        _syntax_finding(path, "EXL001", f"nesting deeper than {MAX_DEPTH} levels", line, 1)
                    )
                    index += 1
                    continue
                line = root.start_mark.line + 1 + chunk.first_line
                column = root.start_mark.column + 1
                for dup in built.duplicates:
                    where = ".".join(str(p) for p in dup.path + (dup.key,))
                    loaded.findings.append(
                        Finding(
                            "EXL002",
                            "error",
                            f"duplicate key {dup.key!r} (first written on line {dup.first_line}); "
                            "YAML silently keeps only the last one: remove or merge the duplicates",
                            path,
                            dup.line,
                            dup.column,
                            where,
                            None,
                        )
                    )
                loaded.documents.append(Document(path, index, line, column, built.data, built.marks,
                                                 built.key_marks))
                index += 1
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = (mark.line + 1 + chunk.first_line) if mark else chunk.first_line + 1
            column = (mark.column + 1) if mark else 1
            last_line = chunk.first_line + max(1, chunk.text.count("\n"))
            if line > last_line:  # "unexpected end": point at the end of the document
                line, column = last_line, 1
            problem = exc.problem or exc.context or "invalid YAML"
            if exc.context and exc.problem:
                problem = f"{problem} ({exc.context})"
            loaded.findings.append(_syntax_finding(path, "EXL001", f"YAML syntax error: {problem}", line, column))
        except yaml.YAMLError as exc:  # reader errors carry a position too
            line, column = chunk.first_line + 1, 1
            mark = getattr(exc, "position", None)
            message = str(exc).splitlines()[0]
            if hasattr(exc, "character"):
                line, column = _offset_to_position(chunk.text, exc.position, chunk.first_line)
                message = f"character {exc.character!r} is not allowed in YAML ({exc.reason})"
            loaded.findings.append(_syntax_finding(path, "EXL001", f"YAML syntax error: {message}", line, column))
        except RecursionError:
            loaded.findings.append(
                _syntax_finding(path, "EXL001", "nesting too deep for a YAML parser", chunk.first_line + 1, 1)
            )
    return loaded


def _offset_to_position(text: str, offset: int, first_line: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return first_line + line + 1, offset - start + 1


def load_file(path: Path, display: str | None = None) -> LoadedFile:
    display = display or str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{display}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{display}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{display}: cannot read: {exc.strerror or exc}") from None
    if path.name.lower().endswith(JSONL_SUFFIXES):
        from linter.loading.jsonl import load_jsonl

        return load_jsonl(data, display)
    try:
        text = decode(data)
    except TextError as exc:
        loaded = LoadedFile(display, None)
        loaded.findings.append(_syntax_finding(display, "EXL001", exc.message, exc.line, exc.column))
        return loaded
    return load_text(text, display)


def _unreadable(error: OSError) -> None:
    """A folder that cannot be listed is an error, never silently skipped."""
    raise InputError(f"{error.filename}: cannot read directory: {error.strerror or error}; "
                     "fix its permissions or exclude it (exclude: in .exlint.yaml)")


def walk_files(directory: Path):
    """Every file below ``directory``, in a stable sorted order, hidden
    directories (``.git``) skipped: how both engines search an inventory."""
    for root, dirs, files in os.walk(directory, onerror=_unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            yield Path(root) / name


def discover(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Files to lint: files as given; directories searched for *.yaml / *.yml.

    Hidden directories (``.git``) and hidden files (``.pre-commit-config.yaml``)
    are skipped when walking; the order is sorted and stable.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for candidate in walk_files(path):
                name = candidate.name
                if name.endswith(YAML_SUFFIXES) and not name.startswith(".") and candidate not in seen:
                    seen.add(candidate)
                    found.append(candidate)
        elif path.exists() or path.is_symlink():
            if path.name == ".exlint.yaml":
                continue  # the configuration file, validated as such
            if path not in seen:
                seen.add(path)
                found.append(path)
        else:
            raise InputError(f"{raw}: no such file or directory")
    return found
