"""What a change can break outside the files that changed.

When the files a hook passes define names (stores, servers, sites,
hierarchies, admin groups, mailbox databases), or files were deleted or
renamed, unchanged files that reference those names may now be broken (a
replica naming a store that no longer exists). This module finds the names
that changed and the unchanged files that reference them, from the records
already at hand (the record cache), so that only those files are read again.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from linter.estate import file_records
from linter.loading import LoadedFile, load_text


def defined_names(records: dict[str, list[dict]]) -> set[str]:
    """Names (compared case-insensitively, as the model stores them) defined by records."""
    return {row["name"] for rows in records.values() for row in rows
            if isinstance(row.get("name"), str) and row["name"]}


def names_of(loaded: LoadedFile) -> set[str]:
    return defined_names(file_records(loaded)[0])


def _references(row: dict, names: set[str]) -> bool:
    for key, value in row.items():
        if key == "name" or key.startswith("_") or key.endswith("__text"):
            continue
        if isinstance(value, str):
            if value in names:
                return True
        elif isinstance(value, list) and any(isinstance(v, str) and v in names for v in value):
            return True
    return False


def dependent_files(records: dict[str, list[dict]], names: set[str], exclude: set[str]) -> set[str]:
    """Files (display paths) whose records reference any of ``names``."""
    if not names:
        return set()
    found: set[str] = set()
    for rows in records.values():
        for row in rows:
            file = row.get("_file")
            if file in found or file in exclude:
                continue
            if _references(row, names):
                found.add(file)
    return found


def mentions(message: str, names: set[str]) -> bool:
    """Whether a finding's message names one of ``names`` (as a whole word)."""
    lowered = message.lower()
    return any(re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", lowered) for name in names)


class Staged:
    """What the git index says changed against HEAD: files deleted (or renamed
    away) and the committed text of files, for the names they used to define."""

    def __init__(self, start: Path):
        self.top: Path | None = None
        self.deleted: list[Path] = []
        top = _git(start, "rev-parse", "--show-toplevel")
        if top is None:
            return
        self.top = Path(top.strip())
        listing = _git(self.top, "diff", "--cached", "--name-only", "--no-renames", "--diff-filter=D", "-z")
        self.deleted = [self.top / name for name in (listing or "").split("\0") if name]

    def committed_texts(self, paths: list[Path]) -> dict[Path, str]:
        """The HEAD version of each path that has one."""
        if self.top is None or not paths:
            return {}
        specs = []
        for path in paths:
            try:
                specs.append((path, Path(os.path.abspath(path)).relative_to(self.top).as_posix()))
            except ValueError:
                continue
        request = "".join(f"HEAD:{relative}\n" for _, relative in specs).encode("utf-8")
        try:
            out = subprocess.run(["git", "cat-file", "--batch"], cwd=self.top, input=request,
                                 capture_output=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return {}
        texts: dict[Path, str] = {}
        position = 0
        for path, _ in specs:
            end = out.find(b"\n", position)
            if end < 0:
                break
            header = out[position:end].split()
            position = end + 1
            if len(header) != 3 or header[1] != b"blob":
                continue  # "missing": not in HEAD (a new file)
            size = int(header[2])
            texts[path] = out[position:position + size].decode("utf-8", "replace")
            position += size + 1
        return texts


def old_names(texts: dict[Path, str], display) -> set[str]:
    names: set[str] = set()
    for path, text in texts.items():
        names |= names_of(load_text(text, display(path)))
    return names


def _git(cwd: Path, *args: str) -> str | None:
    try:
        process = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return process.stdout if process.returncode == 0 else None
