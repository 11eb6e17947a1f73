"""Baselines: record today's findings so a legacy repo can adopt exlint and fail
only on new problems. Findings are matched by fingerprint (rule, entity, setting
path), so edits elsewhere in a file do not resurrect them; findings recorded in
the baseline that no longer occur are listed as fixed.

A path's list index moves when an entry is added or removed in front of it, so
a finding left over from the fingerprint match gets a second chance: the rule,
entity, path without indexes and message (which names the entry's value) of a
recorded finding (``linter.fingerprints.unindexed``), and a last one with what the
message says in parentheses left out (``aside_free``: a message that shows the
whole list, REP005's, changes with every entry added to it). A baseline file is
unchanged by this: every entry written so far carries those fields."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from linter.atomic import atomic_write
from linter.fingerprints import aside_free, file_identity, fingerprint, unindexed
from linter.loading import read_regular
from linter.textsafe import valid_unicode

FORMAT_VERSION = 1
MAX_BYTES = 512 * 2**20  # about two million findings; anything larger is not a baseline


class BaselineError(ValueError):
    pass


@dataclass
class BaselineOutcome:
    kept: list
    suppressed: int
    fixed: list[dict]


def write_baseline(path: Path, findings) -> None:
    entries = [
        {
            "fingerprint": fingerprint(f),
            "rule": f.rule,
            "entity": f.entity.as_dict() if f.entity else None,
            "path": f.path,
            "file": file_identity(f.file),
            "message": f.message,
        }
        for f in findings
    ]
    entries.sort(key=lambda e: (e["rule"], e["file"] or "", e["fingerprint"]))
    body = {"version": FORMAT_VERSION, "tool": "exlint", "findings": entries}
    # valid_unicode: a file name with undecodable bytes is written with U+FFFD
    # (the fingerprint, which matching uses, was taken from the real name)
    text = valid_unicode(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    # replaces only what it may (the caller checks: linter.reports.ownership); a FIFO or /dev/stdout is written into
    atomic_write(str(path), text.encode("utf-8"), create=True, special=True, follow=True)


def read_baseline(path: Path) -> list[dict]:
    """The findings of a baseline file; BaselineError (exit 2) for anything that is
    not one: missing, not a regular file, over MAX_BYTES, not UTF-8 JSON, nested
    too deep, or of another shape."""
    try:
        text = read_regular(path, MAX_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: cannot read baseline: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}:{exc.colno}: baseline is not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # a number too long, nesting too deep
        reason = "nesting too deep" if isinstance(exc, RecursionError) else str(exc).split(":")[0]
        raise BaselineError(f"{path}: baseline is not an exlint baseline: {reason}") from None
    if not isinstance(body, dict) or body.get("version") != FORMAT_VERSION or not isinstance(body.get("findings"), list):
        raise BaselineError(f"{path}: not an exlint baseline (version {FORMAT_VERSION})")
    for number, entry in enumerate(body["findings"], start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: entry {number} of 'findings' is not a recorded finding "
                                "(an object with a 'fingerprint' string): re-create it with --write-baseline")
    return body["findings"]


def apply_baseline(findings, entries: list[dict]) -> BaselineOutcome:
    """Matching counts copies: a key recorded once matches one finding. The most
    precise key goes first, so a finding that took another's list index does not
    take its entry too: fingerprint and value, then the value (the entry moved in
    its list), then the fingerprint alone (an entry whose message was worded
    otherwise by an earlier exlint, or that has no message), then the value with
    the message's parenthesised context left out (the whole list the entry is in,
    which an entry added elsewhere in it changes)."""
    prints: dict[int, str] = {}

    def printed(finding) -> str:
        if id(finding) not in prints:
            prints[id(finding)] = fingerprint(finding)
        return prints[id(finding)]

    keys = (
        (lambda f: (printed(f), _finding_unindexed(f)), _entry_both),
        (_finding_unindexed, _entry_unindexed),
        (printed, lambda e: e.get("fingerprint")),
        (_finding_aside_free, _entry_aside_free),
    )
    left, suppressed = _Unmatched(list(findings), entries), 0
    for finding_key, entry_key in keys:
        left, matched = _match(left.findings, left.entries, finding_key, entry_key)
        suppressed += matched
    return BaselineOutcome(left.findings, suppressed, left.entries)


@dataclass
class _Unmatched:
    findings: list
    entries: list[dict]


def _match(findings, entries: list[dict], finding_key, entry_key) -> tuple[_Unmatched, int]:
    """(the findings and entries no key pairs, in their order; how many pairs)."""
    entry_keys = [entry_key(e) for e in entries]  # None: the entry lacks a field this key needs
    remaining = Counter(k for k in entry_keys if k is not None)
    unmatched = []
    for finding in findings:
        key = finding_key(finding)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            unmatched.append(finding)
    left = []
    for entry, key in zip(entries, entry_keys):  # the copies of a key no finding took
        if key is None:
            left.append(entry)
        elif remaining[key] > 0:
            remaining[key] -= 1
            left.append(entry)
    return _Unmatched(unmatched, left), len(findings) - len(unmatched)


def _finding_unindexed(finding) -> tuple:
    entity = (finding.entity.kind, finding.entity.name) if finding.entity else None
    return unindexed(finding.rule, entity, file_identity(finding.file), finding.path, finding.message)


def _finding_aside_free(finding) -> tuple:
    return aside_free(_finding_unindexed(finding))


def _entry_aside_free(entry: dict) -> tuple | None:
    key = _entry_unindexed(entry)
    return None if key is None else aside_free(key)


def _entry_both(entry: dict) -> tuple | None:
    unindexed_key = _entry_unindexed(entry)
    return None if unindexed_key is None else (entry.get("fingerprint"), unindexed_key)


def _entry_unindexed(entry: dict) -> tuple | None:
    entity = entry.get("entity")
    if entity is not None:
        if not isinstance(entity, dict) or not all(isinstance(entity.get(k), str) for k in ("kind", "name")):
            return None
        entity = (entity["kind"], entity["name"])
    fields = [entry.get(k) for k in ("rule", "message")]
    optional = [entry.get(k) for k in ("file", "path")]
    if not all(isinstance(v, str) for v in fields) or not all(v is None or isinstance(v, str) for v in optional):
        return None
    return unindexed(entry["rule"], entity, optional[0], optional[1], entry["message"])
