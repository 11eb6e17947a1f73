"""Where the shipped data (rule packs, schemas) lives.

In a built wheel the data is copied into ``linter/_data``; in a source checkout or an
editable install it is read from the repository's top-level folders.
"""
from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    bundled = _PACKAGE_DIR / "_data" / name
    if bundled.is_dir():
        return bundled
    return _PACKAGE_DIR.parent / name


def rules_dir() -> Path:
    return data_dir("rules")


def schemas_dir() -> Path:
    return data_dir("schemas")


def model_tables_file() -> Path:
    """The model's tables (linter/model/tables.yaml): the fields every engine reads."""
    return _PACKAGE_DIR / "model" / "tables.yaml"
