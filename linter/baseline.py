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

FORMAT_VERSION = 1


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
    atomic_write(str(path), (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8"), create=True)


def read_baseline(path: Path) -> list[dict]:
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}:{exc.colno}: baseline is not valid JSON: {exc.msg}") from None
    if not isinstance(body, dict) or body.get("version") != FORMAT_VERSION or not isinstance(body.get("findings"), list):
        raise BaselineError(f"{path}: not an exlint baseline (version {FORMAT_VERSION})")
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
