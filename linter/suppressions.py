"""Inline suppressions in YAML comments.

``# exlint: disable=DUP002,BKF001 reason="approved change CHG-123"`` silences
those rules on its line (or, on a line of its own, on the next line);
``# exlint: disable-file=BKF006`` anywhere silences them in the whole file.
A suppression that silences nothing is reported (EXL010) so stale ones get
cleaned up. Only a comment counts: the same text inside a value (a block
scalar's lines, a quoted string) is data, found by the YAML scanner's tokens.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from linter.findings import Finding
from linter.loading.text import git_positions

UNUSED_RULE = "EXL010"  # the rule of a suppression that silences nothing
UNUSED_MESSAGE = "unused suppression of {rule}: nothing here raises it any more; remove it from the comment"
# Matched in pieces, each linear: one regex for the whole comment backtracked
# quadratically on a long run of spaces before a non-matching tail.
_HEAD = re.compile(r"#\s*exlint:\s*(disable|disable-file)\s*=", re.IGNORECASE)
_IDS = re.compile(r"[A-Za-z0-9_, ]+")
_REASON_KEY = re.compile(r"\sreason\s*=\s*$", re.IGNORECASE)
# a comment addressed to exlint that does not parse (``# exlint: disable STS004``,
# ``because="why"``): reported, never a suppression that silently silences nothing
_ADDRESSED = re.compile(r"#\s*exlint\s*:", re.IGNORECASE)
NOT_UNDERSTOOD = "<comment>"  # the rule of such a comment: no rule ID starts with "<"
NOT_UNDERSTOOD_MESSAGE = ("suppression comment not understood, so it silences nothing: write "
                          "# exlint: disable=RULE reason=\"why\" (or disable-file=RULE), rule IDs separated by commas")


def _ids_and_reason(rest: str) -> tuple[str, str | None] | None:
    """``DUP002,BKF001 reason="why"`` (what follows ``disable=``) split, or None."""
    rest = rest.strip()
    if rest[-1:] in ('"', "'") and len(rest) > 1:  # reason="why" or reason='why'
        opening = rest.rfind(rest[-1], 0, len(rest) - 1)
        if opening != -1:
            key = _REASON_KEY.search(rest, 0, opening)
            if key is not None and _IDS.fullmatch(rest, 0, key.start()):
                return rest[:key.start()], rest[opening + 1:-1]
    if rest and _IDS.fullmatch(rest):
        return rest, None
    return None


def _parse_comment(line: str):
    """(kind, ids, reason, column offset) of the suppression comment on ``line``, or None."""
    for head in _HEAD.finditer(line):
        parsed = _ids_and_reason(line[head.end():])
        if parsed is not None:
            return head.group(1).lower(), parsed[0], parsed[1], head.start()
    addressed = _ADDRESSED.search(line)
    if addressed is not None:
        return "not-understood", NOT_UNDERSTOOD, None, addressed.start()
    return None


@dataclass
class Suppression:
    file: str
    line: int  # line the comment is on
    column: int
    applies_to: int | None  # line it silences; None for the whole file
    rules: tuple[str, ...]
    reason: str | None
    used: set

    def matches(self, finding: Finding) -> str | None:
        if finding.file != self.file:
            return None
        if self.applies_to is not None and finding.line != self.applies_to:
            return None
        for rule in self.rules:
            if finding.rule.startswith(rule):
                return rule
        return None


def parse_suppressions(path: str, text: str | None) -> list[Suppression]:
    # every comment to exlint matches _ADDRESSED (a suppression's head too); "exlint" alone
    # is in every document's apiVersion, so it cannot say a file has none
    if not text or _ADDRESSED.search(text) is None:
        return []
    found = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        at, offset = offset, offset + len(line)
        if _ADDRESSED.search(line) is None:
            continue
        parsed = _parse_comment(line)
        if parsed is not None:
            found.append((number, line, at, parsed))
    if not found:
        return []
    inside = _inside_values(text, [at + parsed[3] for _, _, at, parsed in found])
    # lines as findings number them: at LF only (linter.loading.text.git_positions)
    place = git_positions(text) or (lambda line, column: (line, column))
    out = []
    for number, line, at, (kind, ids, reason, start) in found:
        if at + start in inside:
            continue
        rules = (NOT_UNDERSTOOD,) if ids == NOT_UNDERSTOOD else \
            tuple(sorted({r.strip().upper() for r in ids.split(",") if r.strip()}))
        own_line = line[:start].strip() == ""
        applies = None if kind == "disable-file" else place(number + 1 if own_line else number, 1)[0]
        written, column = place(number, start + 1)
        out.append(Suppression(path, written, column, applies, rules, reason, set()))
    return out


def _inside_values(text: str, positions: list[int]) -> set[int]:
    """The ``positions`` (indexes into ``text``) that lie inside a scalar (a value or
    key as written, a block scalar's lines included) rather than in a comment. A
    file the scanner cannot read to its end has no known values past the error: a
    ``#`` there counts as a comment, as it would on a line-by-line reading."""
    import bisect

    import yaml

    try:
        loader = yaml.CSafeLoader
    except AttributeError:  # PyYAML without libyaml
        loader = yaml.SafeLoader
    # libyaml counts from after a byte-order mark
    shift = 1 if text.startswith("\ufeff") else 0
    starts: list[int] = []
    ends: list[int] = []
    last = max(positions) - shift
    try:
        for token in yaml.scan(text[shift:], Loader=loader):
            if token.start_mark.index > last:
                break
            if isinstance(token, yaml.ScalarToken):
                starts.append(token.start_mark.index + shift)
                ends.append(token.end_mark.index + shift)
    except yaml.YAMLError:
        pass
    inside = set()
    for position in positions:
        index = bisect.bisect_right(starts, position) - 1
        if index >= 0 and position < ends[index]:
            inside.add(position)
    return inside


def apply_suppressions(findings: list[Finding], suppressions: list[Suppression]) -> list[Finding]:
    by_file: dict[str, list[Suppression]] = {}
    for suppression in suppressions:
        by_file.setdefault(suppression.file, []).append(suppression)
    kept = []
    for finding in findings:
        silenced = False
        for suppression in by_file.get(finding.file or "", ()):
            rule = suppression.matches(finding)
            if rule:
                suppression.used.add(rule)
                silenced = True
        if not silenced:
            kept.append(finding)
    return kept


UNKNOWN_MESSAGE = "unknown rule {rule} in suppression{hint}: it silences nothing; fix the rule ID"


def unknown_rule_message(rule: str, known) -> str | None:
    """A message when ``rule`` (an ID or prefix) names no rule in ``known``."""
    if rule == NOT_UNDERSTOOD:
        return NOT_UNDERSTOOD_MESSAGE
    if known is None or any(rule_id.startswith(rule) for rule_id in known):
        return None
    import difflib

    close = difflib.get_close_matches(rule, sorted(known), n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return UNKNOWN_MESSAGE.format(rule=rule, hint=hint)


def unused_suppressions(suppressions: list[Suppression], known=None, ran=None) -> list[Finding]:
    """EXL010 for each rule a suppression names that silenced nothing, or that
    is no rule at all (a typo must not pass as merely unused). ``ran(rule)`` says
    whether the rule (an ID or prefix) was evaluated in this run: a suppression of a
    rule --select or --ignore left out is not unused, it was not asked."""
    out = []
    for suppression in suppressions:
        for rule in suppression.rules:
            unknown = unknown_rule_message(rule, known)
            if unknown:
                out.append(Finding(UNUSED_RULE, "warning", unknown, suppression.file, suppression.line,
                                   suppression.column, None, None))
            elif rule not in suppression.used and (ran is None or ran(rule)):
                out.append(Finding(
                    UNUSED_RULE, "warning",
                    UNUSED_MESSAGE.format(rule=rule),
                    suppression.file, suppression.line, suppression.column, None, None,
                ))
    return out
