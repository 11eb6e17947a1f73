"""Inline suppressions in YAML comments.

``# exlint: disable=DUP002,BKF001 reason="approved change CHG-123"`` silences
those rules on its line (or, on a line of its own, on the next line);
``# exlint: disable-file=BKF006`` anywhere silences them in the whole file.
A suppression that silences nothing is reported (EXL010) so stale ones get
cleaned up.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from linter.findings import Finding

UNUSED_MESSAGE = "unused suppression of {rule}: nothing here raises it any more; remove it from the comment"
_COMMENT = re.compile(
    r"#\s*exlint:\s*(disable|disable-file)\s*=\s*([A-Za-z0-9_, ]+?)(?:\s+reason\s*=\s*\"([^\"]*)\")?\s*$"
)


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
    if not text or "exlint:" not in text:
        return []
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "exlint:" not in line:
            continue
        match = _COMMENT.search(line)
        if not match:
            continue
        kind, ids, reason = match.groups()
        rules = tuple(sorted({r.strip().upper() for r in ids.split(",") if r.strip()}))
        own_line = line[: match.start()].strip() == ""
        applies = None if kind == "disable-file" else (number + 1 if own_line else number)
        out.append(Suppression(path, number, match.start() + 1, applies, rules, reason, set()))
    return out


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


def _unknown(rule: str, known) -> str | None:
    """A message when ``rule`` (an ID or prefix) names no rule in ``known``."""
    if known is None or any(rule_id.startswith(rule) for rule_id in known):
        return None
    import difflib

    close = difflib.get_close_matches(rule, sorted(known), n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return UNKNOWN_MESSAGE.format(rule=rule, hint=hint)


def unused_suppressions(suppressions: list[Suppression], known=None) -> list[Finding]:
    """EXL010 for each rule a suppression names that silenced nothing, or that
    is no rule at all (a typo must not pass as merely unused)."""
    out = []
    for suppression in suppressions:
        for rule in suppression.rules:
            unknown = _unknown(rule, known)
            if unknown:
                out.append(Finding("EXL010", "warning", unknown, suppression.file, suppression.line,
                                   suppression.column, None, None))
            elif rule not in suppression.used:
                out.append(Finding(
                    "EXL010", "warning",
                    UNUSED_MESSAGE.format(rule=rule),
                    suppression.file, suppression.line, suppression.column, None, None,
                ))
    return out
