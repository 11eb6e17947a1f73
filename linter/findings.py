"""The finding value object shared by every engine, reporter, baseline and test."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}
# A rule that could not run (an error in a user's pack, an expression a Spark
# version cannot analyse): its own finding, so the other rules' findings still
# stand, and never hidden by selection, configuration or suppression (a check
# silently not running is what a linter must not do).
RULE_FAILED = "EXL000"
# problems that keep a document from being read (both engines): a run that hides them
# (--select, --ignore, the configuration, a suppression) still says which documents it did
# not lint, since every input document is linted or reported
UNREAD_HIDDEN = ("EXL001", "EXL004")
HIDDEN_UNREAD_NOTE = ("{where}: {rule} is hidden by {by}, so this document is not linted: {message}; fix it, "
                      "or leave the file out with `exclude` in .exlint.yaml")


def rule_failed_message(rule_id: str, reason: str) -> str:
    return f"rule {rule_id} failed: {reason}"


@dataclass(frozen=True)
class Entity:
    kind: str
    name: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name}


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: str | None = None
    entity: Entity | None = None
    # Extra facts for reporters (e.g. a fix suggestion); never part of identity.
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False, hash=False)

    def sort_key(self) -> tuple:
        return (
            self.file or "",
            self.line or 0,
            self.column or 0,
            self.rule,
            self.path or "",
            self.entity.kind if self.entity else "",
            self.entity.name if self.entity else "",
            self.message,
        )

    def with_severity(self, severity: str) -> "Finding":
        return replace(self, severity=severity)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "entity": self.entity.as_dict() if self.entity else None,
        }


def severity_counts(findings) -> dict[str, int]:
    """How many findings of each severity (the summary lines and reports count them)."""
    counts = {"error": 0, "warning": 0, "info": 0}
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def sort_findings(findings) -> list[Finding]:
    return sorted(set(findings), key=Finding.sort_key)


def format_path(path: tuple) -> str:
    """Dotted path as the JSON contract shows it: ``spec.replicas[1]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
