"""The JSON contract of product.md."""
from __future__ import annotations

import json

from linter import __version__


def document(result) -> dict:
    counts = result.counts()
    body = {
        "version": "1",
        "tool": {"name": "exlint", "version": __version__},
        "findings": [f.as_dict() for f in result.findings],
        "summary": {"files": result.files, "documents": result.documents, **counts,
                    # walked YAML files that are not exlint documents (not linted)
                    "skipped": len(getattr(result, "skipped", ()) or ())},
    }
    if getattr(result, "baseline_suppressed", 0) or getattr(result, "baseline_fixed", None):
        body["baseline"] = {"suppressed": result.baseline_suppressed, "fixed": result.baseline_fixed}
    return body


def render(result, colour: bool = False) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False) + "\n"
