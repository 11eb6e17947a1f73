"""One identity per finding that survives unrelated edits: rule, entity and the
setting's path, never line numbers. Used by baselines and SARIF.

A path holds list indexes (``spec.replicas[1]``), which an entry added in front
of the list shifts; ``unindexed`` is the identity without them, a baseline's
second way of matching (``linter.baseline``)."""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

_INDEX = re.compile(r"\[\d+\]")
_ASIDE = re.compile(r"\([^()]*\)")


def fingerprint(finding) -> str:
    import hashlib  # imported when used: a plain check never fingerprints

    if finding.entity is not None:
        parts = [finding.rule, finding.entity.kind, finding.entity.name.lower(), finding.path or ""]
        # several findings of one rule on one setting differ by what they name
        if finding.rule in ("EXL006", "REP001", "REP002", "REP005", "REP007", "RTE005", "EXL007", "EXL005"):
            parts.append(finding.message)
    else:
        parts = [finding.rule, file_identity(finding.file), finding.path or "", finding.message]
    # surrogatepass: a file name with undecodable bytes still has an identity
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def file_identity(file: str | None) -> str:
    """A file as a finding with no entity is known by: its path relative to its config
    repo root (``linter.config.discover_root``), the same from wherever exlint runs,
    so that a baseline, a ``--compare`` or a SARIF alert written from the repo's parent
    still matches from inside it. A file with no root is known by the path given."""
    if not file:
        return ""
    folder, name = os.path.split(os.path.abspath(file))
    root = _root_of(folder)
    if root is None:
        return file
    relative = os.path.relpath(os.path.join(os.path.realpath(folder), name), root)
    return file if relative.startswith(os.pardir) else Path(relative).as_posix()


@functools.lru_cache(maxsize=1024)
def _root_of(folder: str) -> str | None:
    from linter.config import find_root  # imported when used: config imports the checks

    if not os.path.isdir(folder):
        return None
    root = find_root(Path(folder))
    return os.path.realpath(root) if root is not None else None


def distinct_fingerprints(findings) -> list[str]:
    """``fingerprint`` of each finding, told apart by its message where two findings of
    the run share one (BKF004 can say a delay is longer than two other values: one
    setting, two findings, which a code scanning service would merge into one alert).
    A finding alone on its setting keeps the plain fingerprint, so one fixed leaves the
    other's identity as it was before the second appeared."""
    import hashlib
    from collections import Counter

    plain = [fingerprint(f) for f in findings]
    shared = Counter(plain)
    return [p if shared[p] == 1 else
            hashlib.sha256(f"{p}\x1f{f.message}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
            for f, p in zip(findings, plain)]


def unindexed(rule: str, entity: tuple[str, str] | None, file: str | None, path: str | None,
              message: str) -> tuple:
    """A finding's identity with the list indexes of its path and message left out
    (``spec.replicas[1]`` -> ``spec.replicas[]``). What tells findings on two entries
    of one list apart is then the message, which names the entry's value (``replica
    PFDB-GONE-01 of folder /Sales ...``). Plain values, so a baseline entry (file and
    message written as valid Unicode) and a finding compare."""
    from linter.textsafe import valid_unicode

    where = (entity[0], entity[1].lower()) if entity is not None else (valid_unicode(file or ""),)
    return (rule, *where, _INDEX.sub("[]", path or ""), _INDEX.sub("[]", valid_unicode(message)))



def aside_free(key: tuple) -> tuple:
    """An ``unindexed`` key with what its message says in parentheses left out too:
    there a message shows context that an edit elsewhere changes, most often the whole
    list the entry is in (REP005's ``store PFDB-B appears more than once in the replica
    list of folder /G (PFDB-A, PFDB-B, PFDB-B)``, RTE005's replicas), while the entry
    itself is named outside them. A baseline's last way of matching (``linter.baseline``)."""
    return key[:-1] + (_ASIDE.sub("(...)", key[-1]),)
