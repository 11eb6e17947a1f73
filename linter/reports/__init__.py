"""Output formats. Each reporter turns a Result into text."""
from __future__ import annotations


def renderer(name: str):
    """The ``render(result, colour=False)`` of a format (check's ``--format``; estate's
    sarif, junit and github)."""
    import importlib

    module = {"json": "json_report"}.get(name, name)
    return importlib.import_module(f"linter.reports.{module}").render
