"""SARIF 2.1.0 for code scanning: rule metadata, physical and logical
locations, and partial fingerprints that survive line shifts."""
from __future__ import annotations

import json
import os
from pathlib import Path

from linter import __version__
from linter.fingerprints import fingerprint

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DOCS_URL = os.environ.get("EXLINT_DOCS_URL", "https://github.com/exlint/exlint/blob/main/docs/rules.md")
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _rule_descriptor(rule) -> dict:
    help_text = f"{rule.rationale}\n\nHow to fix: {rule.fix_hint}" if rule.fix_hint else rule.rationale
    return {
        "id": rule.id,
        "name": "".join(w.capitalize() for w in rule.title.replace("-", " ").split() if w.isalnum()) or rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.summary},
        "help": {"text": help_text, "markdown": f"**{rule.title}**\n\n{help_text}\n\nSource: {rule.source_text()}"},
        "helpUri": f"{DOCS_URL}#{rule.id.lower()}",
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": [rule.family], "fixable": rule.fixable},
    }


def document(result) -> dict:
    rules = list(result.rules.values())
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for finding in result.findings:
        item = {
            "ruleId": finding.rule,
            "level": LEVELS[finding.severity],
            "message": {"text": finding.message},
            "partialFingerprints": {"exlintFingerprint/v1": fingerprint(finding)},
        }
        if finding.rule in index:
            item["ruleIndex"] = index[finding.rule]
        location = {}
        if finding.file:
            region = {"startLine": max(1, finding.line or 1)}
            if finding.column:
                region["startColumn"] = finding.column
            location["physicalLocation"] = {
                "artifactLocation": {"uri": Path(finding.file).as_posix(), "uriBaseId": "%SRCROOT%"},
                "region": region,
            }
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
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "exlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": DOCS_URL,
                "rules": [_rule_descriptor(rule) for rule in rules],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(result, colour: bool = False) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False) + "\n"
