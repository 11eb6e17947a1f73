"""Shared helpers for the importer tests."""
from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from linter.importers.command import import_command

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CSS_EXCHANGE = Path(__file__).resolve().parents[2].parent / "shared" / "real-world" / "css-exchange"
SCHEMAS = REPO / "schemas"


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        return CliRunner()  # click 8.2+: stdout and stderr are always separate


def run_import(*args: str):
    """Invoke ``import_command`` in-process; never lets an exception escape unnoticed."""
    result = runner().invoke(import_command, [str(a) for a in args], catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"import raised {result.exception!r}") from result.exception
    assert "Traceback" not in result.stdout + result.stderr
    return result


def load_documents(root: Path) -> dict[Path, list[dict]]:
    """Every YAML document under ``root``, read the way a YAML 1.1 reader (PyYAML) reads them."""
    out = {}
    for path in sorted(root.rglob("*.yaml")):
        out[path.relative_to(root)] = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    return out


def find_document(root: Path, kind: str, name: str) -> dict:
    for docs in load_documents(root).values():
        for doc in docs:
            if doc.get("kind") == kind and doc["metadata"]["name"].casefold() == name.casefold():
                return doc
    raise AssertionError(f"no {kind} {name} under {root}")


def _as_json(value):
    """YAML dates are read as their text (the input model says so); JSON has no date type."""
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def schema_validators():
    """Validators per kind from schemas/*.json, or None while no schema exists yet."""
    files = sorted(SCHEMAS.glob("*.json")) if SCHEMAS.is_dir() else []
    if not files:
        return None
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    schemas = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
        for schema in schemas
        if "$id" in schema
    )
    validators = {}
    for schema in schemas:
        kind_const = schema.get("properties", {}).get("kind", {}).get("const")
        if kind_const:
            validators[kind_const] = Draft202012Validator(schema, registry=registry)
    return validators or None


def schema_errors(root: Path, tolerated: set[tuple[str, str, str]] = frozenset()) -> list[str]:
    """Schema errors of every document under ``root``; ``tolerated`` holds
    (kind, name, missing required property) the import reported as incomplete."""
    validators = schema_validators()
    if validators is None:
        pytest.skip("schemas/*.json not written yet: schema validation skipped")
    problems = []
    for path, docs in load_documents(root).items():
        for doc in docs:
            validator = validators.get(doc.get("kind"))
            assert validator is not None, f"{path}: no schema for kind {doc.get('kind')}"
            for error in validator.iter_errors(_as_json(doc)):
                if error.validator == "required":
                    missing = set(error.validator_value) - set(error.instance)
                    if all((doc["kind"], doc["metadata"]["name"], m) in tolerated for m in missing):
                        continue
                problems.append(f"{path}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
    return problems


@pytest.fixture
def css_exchange() -> Path:
    if not CSS_EXCHANGE.is_dir():
        pytest.skip(f"real-world captures not found at {CSS_EXCHANGE} (shared/ beside the repository)")
    return CSS_EXCHANGE
