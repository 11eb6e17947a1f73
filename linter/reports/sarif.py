"""SARIF 2.1.0 for code scanning: rule metadata, physical locations (relative
to ``%SRCROOT%``, percent-encoded, with the line as a snippet and a context
region), logical locations, version control provenance, and partial
fingerprints that survive line shifts.

``helpUri`` and ``informationUri`` are written only when a documentation
address is configured (``docs_url`` in .exlint.yaml, or ``EXLINT_DOCS_URL``):
this project claims no public address of its own.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import quote

from linter import __version__
from linter.fingerprints import distinct_fingerprints
from linter.textsafe import valid_unicode, visible

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
CONTEXT_LINES = 2


def docs_url(result) -> str | None:
    config = getattr(result, "config", None)
    return getattr(config, "docs_url", None) or os.environ.get("EXLINT_DOCS_URL") or None


def pascal_case(title: str, fallback: str) -> str:
    """A rule's friendly name: ``YAML syntax error`` -> ``YamlSyntaxError``,
    ``names the store's own server`` -> ``NamesTheStoreOwnServer`` (no two
    capitals in a row, as SARIF viewers expect of a Pascal identifier)."""
    text = re.sub(r"['’]s\b", "", title).replace("-", "")
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", text)
    words = [w for w in words if len(w) > 1 or w.isdigit()]  # "a", "A": two capitals in a row
    name = "".join(w[0].upper() + w[1:].lower() for w in words)
    return name if name[:1].isalpha() else fallback


def _rule_descriptor(rule, docs: str | None) -> dict:
    help_text = f"{rule.rationale}\n\nHow to fix: {rule.fix_hint}" if rule.fix_hint else rule.rationale
    descriptor = {
        "id": rule.id,
        "name": pascal_case(rule.title, rule.id),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.summary},
        "help": {"text": help_text, "markdown": f"**{rule.title}**\n\n{help_text}\n\nSource: {rule.source_text()}"},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": [rule.family], "fixable": rule.fixable},
    }
    if docs:
        descriptor["helpUri"] = f"{docs}#{rule.id.lower()}"
    return descriptor


def _git(cwd: Path, *args: str) -> str | None:
    try:
        process = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return process.stdout.strip() if process.returncode == 0 and process.stdout.strip() else None


class _Sources:
    """Where artifact URIs are relative to, and the text of the files linted."""

    def __init__(self, result):
        root = getattr(result, "root", None)
        start = Path(root) if root else _common_base(result)
        top = _git(start, "rev-parse", "--show-toplevel") if start.is_dir() else None
        self.git_top = Path(top) if top else None
        self.base = (self.git_top or start).resolve()
        self.texts = {lf.path: lf.text for lf in getattr(result, "loaded", ()) if lf.text is not None}
        self._lines: dict[str, list[str]] = {}

    def artifact(self, file: str) -> dict:
        absolute = Path(os.path.abspath(file))
        absolute = absolute.parent.resolve() / absolute.name  # as the base is resolved; the file itself may be a link
        try:
            relative = absolute.relative_to(self.base).as_posix()
        except ValueError:
            return {"uri": absolute.as_uri()}
        return {"uri": quote(valid_unicode(relative), safe="/"), "uriBaseId": "%SRCROOT%"}

    def lines(self, file: str) -> list[str]:
        if file not in self._lines:
            # lines end at LF only, as findings number them (linter.loading.text.git_positions)
            text = self.texts.get(file) or ""
            self._lines[file] = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")] if text else []
        return self._lines[file]

    def regions(self, file: str, line: int, column: int | None) -> tuple[dict, dict | None]:
        region: dict = {"startLine": line}
        if column:
            region["startColumn"] = column
        lines = self.lines(file)
        if not 1 <= line <= len(lines):
            return region, None
        region["snippet"] = {"text": lines[line - 1]}
        first, last = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
        context = {"startLine": first, "endLine": last, "snippet": {"text": "\n".join(lines[first - 1:last]) + "\n"}}
        return region, context

    def provenance(self) -> list[dict]:
        if self.git_top is None:
            return []
        revision = _git(self.git_top, "rev-parse", "HEAD")
        if revision is None:
            return []
        remote = _git(self.git_top, "remote", "get-url", "origin")
        entry = {"repositoryUri": _repository_uri(remote) or self.git_top.as_uri(), "revisionId": revision,
                 "mappedTo": {"uriBaseId": "%SRCROOT%"}}
        branch = _git(self.git_top, "symbolic-ref", "--short", "-q", "HEAD")
        if branch:
            entry["branch"] = branch
        return [entry]


def _common_base(result) -> Path:
    """The working directory, or the deepest folder holding every file linted
    when some lie outside it (so that no URI is absolute)."""
    cwd = Path.cwd()
    files = [os.path.abspath(f) for f in getattr(result, "reported_files", ()) or ()]
    if not files or all(f.startswith(str(cwd) + os.sep) for f in files):
        return cwd
    return Path(os.path.commonpath([os.path.dirname(f) for f in files]))


def _repository_uri(remote: str | None) -> str | None:
    """An absolute URI for a git remote (``git@host:org/repo.git`` included), without credentials."""
    if not remote:
        return None
    match = re.match(r"^[\w.-]+@([\w.-]+):(.+)$", remote)
    if match:
        return f"ssh://{match.group(1)}/{match.group(2)}"
    if "://" in remote:
        return re.sub(r"://[^/@]*@", "://", remote)
    return Path(remote).resolve().as_uri() if Path(remote).exists() else None


def _anchor(result, finding) -> tuple[str, int] | None:
    """Where a finding that no file owns is shown (EXL008): the Organization
    documents, else the configuration file, else the first file linted."""
    estate = getattr(result, "estate", None)
    for document in getattr(estate, "documents", None) or ():
        if isinstance(document.data, dict) and document.data.get("kind") == "Organization":
            return document.file, document.line
    discovery = getattr(result, "discovery", None)
    if discovery is not None and discovery.config is not None:
        return str(discovery.config), 1
    files = sorted(getattr(result, "reported_files", ()) or ())
    return (files[0], 1) if files else None


def document(result) -> dict:
    rules = list(result.rules.values())
    index = {rule.id: i for i, rule in enumerate(rules)}
    sources = _Sources(result)
    docs = docs_url(result)
    results = []
    for finding, print_ in zip(result.findings, distinct_fingerprints(result.findings)):
        item = {
            "ruleId": finding.rule,
            "level": LEVELS[finding.severity],
            "message": {"text": visible(finding.message)},  # readers see an invisible character escaped
            "partialFingerprints": {"exlintFingerprint/v1": print_},
        }
        if finding.rule in index:
            item["ruleIndex"] = index[finding.rule]
        location = {}
        where = (finding.file, max(1, finding.line or 1)) if finding.file else _anchor(result, finding)
        if where is not None:
            region, context = sources.regions(where[0], where[1], finding.column if finding.file else None)
            physical = {"artifactLocation": sources.artifact(where[0]), "region": region}
            if context:
                physical["contextRegion"] = context
            location["physicalLocation"] = physical
        if finding.entity is not None:
            location["logicalLocations"] = [{
                "name": finding.entity.name,
                "fullyQualifiedName": f"{finding.entity.kind}/{finding.entity.name}"
                                      + (f"/{finding.path}" if finding.path else ""),
                "kind": "object",
            }]
        if location:
            item["locations"] = [location]
        results.append(item)
    driver = {"name": "exlint", "version": __version__, "semanticVersion": __version__,
              "rules": [_rule_descriptor(rule, docs) for rule in rules]}
    if docs:
        driver["informationUri"] = docs
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": sources.base.as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    provenance = sources.provenance()
    if provenance:
        run["versionControlProvenance"] = provenance
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render(result, colour: bool = False) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False) + "\n"
