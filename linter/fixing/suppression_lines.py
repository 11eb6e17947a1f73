"""Whether an edit keeps every line suppression on the line it silenced.

A suppression comment on a line of its own silences the *next* line. An edit that
removes that line (or puts a line between) hands the comment to another line, which
it then silences: a `--fix` that deletes a duplicate replica entry under
``# exlint: disable=REP001`` would hide the next entry's REP001 error, unfixed, and
turn the gate green. Such an edit is refused, with the comment's line, so the user
moves or deletes the comment and fixes the rest.
"""
from __future__ import annotations

from difflib import SequenceMatcher

from linter.suppressions import Suppression, parse_suppressions


def _line_origins(old: str, new: str) -> dict[int, int]:
    """Line number in ``new`` -> the line of ``old`` it is (unchanged, or edited in
    place: a block replaced by as many lines), numbered at LF as findings are."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    origins = {}
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                origins[j1 + k + 1] = i1 + k + 1
    return origins


def _own_line(suppressions: list[Suppression]) -> list[Suppression]:
    return [s for s in suppressions if s.applies_to is not None and s.applies_to != s.line]


def has_own_line_suppression(text: str | None, path: str) -> bool:
    return bool(text) and bool(_own_line(parse_suppressions(path, text)))


def moved_suppression(old: str, new: str, path: str) -> Suppression | None:
    """The first suppression of ``old`` (on a line of its own) that ``new`` hands to
    another line than the one it silenced, or None."""
    before = {s.line: s for s in _own_line(parse_suppressions(path, old))}
    if not before:
        return None
    origins = _line_origins(old, new)
    old_end, new_end = old.count("\n") + 1, new.count("\n") + 1
    for suppression in _own_line(parse_suppressions(path, new)):
        was = before.get(origins.get(suppression.line, -1))
        if was is None or (suppression.applies_to > new_end and was.applies_to > old_end):
            continue  # (a comment on the last line silences nothing either way)
        if origins.get(suppression.applies_to) != was.applies_to:
            return was
    return None
