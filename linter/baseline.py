"""Baselines: record today's findings so a legacy repo can adopt exlint and fail
only on new problems. Findings are matched by fingerprint (rule, entity, setting
path), so edits elsewhere in a file do not resurrect them; findings recorded in
the baseline that no longer occur are listed as fixed."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from linter.atomic import atomic_write
from linter.fingerprints import fingerprint
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
            "file": f.file,
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
    remaining = Counter(e.get("fingerprint") for e in entries)
    kept = []
    suppressed = 0
    for finding in findings:
        key = fingerprint(finding)
        if remaining[key] > 0:
            remaining[key] -= 1
            suppressed += 1
        else:
            kept.append(finding)
    fixed = []
    for entry in entries:
        key = entry.get("fingerprint")
        if remaining[key] > 0:
            remaining[key] -= 1
            fixed.append(entry)
    return BaselineOutcome(kept, suppressed, fixed)
