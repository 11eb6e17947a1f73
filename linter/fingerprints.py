"""One identity per finding that survives unrelated edits: rule, entity and the
setting's path, never line numbers. Used by baselines and SARIF."""
from __future__ import annotations

def fingerprint(finding) -> str:
    import hashlib  # imported when used: a plain check never fingerprints

    if finding.entity is not None:
        parts = [finding.rule, finding.entity.kind, finding.entity.name.lower(), finding.path or ""]
        # several findings of one rule on one setting differ by what they name
        if finding.rule in ("EXL006", "REP001", "REP002", "REP005", "REP007", "RTE005", "EXL007", "EXL005"):
            parts.append(finding.message)
    else:
        parts = [finding.rule, finding.file or "", finding.path or "", finding.message]
    # surrogatepass: a file name with undecodable bytes still has an identity
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]
