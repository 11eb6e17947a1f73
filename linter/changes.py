"""What a change can break outside the files that changed.

When a commit renames a name that files define (stores, servers, sites,
hierarchies, admin groups, mailbox databases) or deletes a file, unchanged
files that reference the old name are now broken (a replica naming a store
that no longer exists). This module finds the names that vanished (defined in
git's HEAD version of the changed and deleted files, defined nowhere now) and
the unchanged files whose reference fields (tables.yaml ``ref``) name them,
from the records already at hand (the record cache), so that only those
files are read again.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from linter.estate import file_records
from linter.loading import LoadedFile, load_text


def defined_names(records: dict[str, list[dict]]) -> dict[str, set[str]]:
    """Table -> names (compared case-insensitively, as the model stores them)."""
    out: dict[str, set[str]] = {}
    for table, rows in records.items():
        names = {row["name"] for row in rows if isinstance(row.get("name"), str) and row["name"]}
        if names:
            out.setdefault(table, set()).update(names)
    return out


def names_of(loaded: LoadedFile) -> dict[str, set[str]]:
    return defined_names(file_records(loaded)[0])


def merge(into: dict[str, set[str]], more: dict[str, set[str]]) -> dict[str, set[str]]:
    for table, names in more.items():
        into.setdefault(table, set()).update(names)
    return into


def vanished(before: dict[str, set[str]], now: dict[str, set[str]]) -> dict[str, set[str]]:
    """Names defined before and nowhere now (renamed or deleted)."""
    gone = {table: names - now.get(table, set()) for table, names in before.items()}
    return {table: names for table, names in gone.items() if names}


def _reference_fields() -> dict[str, list[tuple[str, str]]]:
    """Table -> (field, table it names): the model's reference fields (tables.yaml ``ref``)."""
    from linter.model.tables import load_tables

    return {name: [(field, spec.ref) for field, spec in table.fields.items() if spec.ref]
            for name, table in load_tables().items()}


def dependent_files(records: dict[str, list[dict]], gone: dict[str, set[str]], exclude: set[str]) -> set[str]:
    """Files (display paths) whose records reference a name in ``gone``."""
    if not gone:
        return set()
    found: set[str] = set()
    for table, fields in _reference_fields().items():
        watched = [(field, gone[target]) for field, target in fields if target in gone]
        if not watched:
            continue
        for row in records.get(table, ()):
            file = row.get("_file")
            if file in found or file in exclude:
                continue
            for field, names in watched:
                value = row.get(field)
                if (value in names if isinstance(value, str)
                        else isinstance(value, list) and any(isinstance(v, str) and v in names for v in value)):
                    found.add(file)
                    break
    return found


def mentions(message: str, gone: dict[str, set[str]]) -> bool:
    """Whether a finding's message names one of the vanished names (as a whole word)."""
    lowered = message.lower()
    return any(re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", lowered)
               for names in gone.values() for name in names)


class Staged:
    """What the git index says changed against HEAD below ``root``: files deleted
    (or renamed away), and the committed text of files, for the names they used
    to define. Paths are relative to ``root`` (``--relative``, ``HEAD:./path``),
    so no call asks git where the work tree starts."""

    def __init__(self, root: Path):
        self.root = root
        listing = _git(root, "diff", "--cached", "--name-only", "--no-renames", "--diff-filter=D",
                       "--relative", "-z")
        self.in_git = listing is not None
        self.deleted = [root / name for name in (listing or "").split("\0") if name]

    def committed_texts(self, paths: list[Path]) -> dict[Path, str]:
        """The HEAD version of each path that has one."""
        if not self.in_git or not paths:
            return {}
        base = Path(self.root).resolve()
        specs = []
        for path in paths:
            absolute = Path(os.path.abspath(path))
            try:  # the folder resolved as the root is; the file itself may be a link
                specs.append((path, (absolute.parent.resolve() / absolute.name).relative_to(base).as_posix()))
            except ValueError:
                continue
        request = "".join(f"HEAD:./{relative}\n" for _, relative in specs).encode("utf-8")
        try:
            out = subprocess.run(["git", "cat-file", "--batch"], cwd=self.root, input=request,
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


def old_names(texts: dict[Path, str], display) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for path, text in texts.items():
        merge(names, names_of(load_text(text, display(path))))
    return names


def _git(cwd: Path, *args: str) -> str | None:
    try:
        process = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return process.stdout if process.returncode == 0 else None
