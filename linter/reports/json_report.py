"""The JSON contract of product.md."""
from __future__ import annotations

import json

from linter import __version__


def document(result) -> dict:
    counts = result.counts()
    return {
        "version": "1",
        "tool": {"name": "exlint", "version": __version__},
        "findings": [f.as_dict() for f in result.findings],
        "summary": {"files": result.files, "documents": result.documents, **counts},
    }


def render(result, colour: bool = False) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False) + "\n"
