"""Running a rule's good and bad examples.

An example is a change to the clean base estate (example_base.yaml):

- ``patch``: ``{"Kind/Name": merge-patch}``; JSON merge patch (RFC 7386):
  mappings merge, ``null`` deletes, anything else replaces. A shorthand lets
  the example itself be the patch when all its keys look like ``Kind/Name``;
- ``add``: whole documents to add;
- ``delete``: ``Kind/Name`` documents to remove;
- ``yaml``: raw text of an extra file (for syntax-level rules).

The example runs through the real pipeline (loader, schema, model, engine), so
positions and messages are exercised too.
"""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from linter.loading.fast_yaml import load_all as _yaml_load_all

from linter.estate import build_estate
from linter.loading import load_text

BASE_FILE = Path(__file__).with_name("example_base.yaml")
EXAMPLE_KEYS = {"patch", "add", "delete", "yaml"}


class ExampleError(ValueError):
    pass


def base_documents() -> list[dict]:
    return [d for d in _yaml_load_all(BASE_FILE.read_text(encoding="utf-8")) if d]


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _normalise(example) -> dict:
    if not isinstance(example, dict):
        raise ExampleError("an example must be a mapping")
    if set(example) <= EXAMPLE_KEYS:
        return example
    if all("/" in str(k) for k in example):
        return {"patch": example}
    raise ExampleError(f"unknown example keys {sorted(set(example) - EXAMPLE_KEYS)}")


def example_documents(example) -> tuple[list[dict], str | None]:
    example = _normalise(example)
    documents = base_documents()
    keyed = {f"{d['kind']}/{d['metadata']['name']}": i for i, d in enumerate(documents)}
    for key, patch in (example.get("patch") or {}).items():
        if key not in keyed:
            raise ExampleError(f"example patches {key!r}, which the base estate does not hold; "
                               f"known: {', '.join(keyed)}")
        documents[keyed[key]] = merge_patch(documents[keyed[key]], patch)
    removed = set(example.get("delete") or [])
    unknown = removed - set(keyed)
    if unknown:
        raise ExampleError(f"example deletes unknown documents {sorted(unknown)}")
    documents = [d for k, d in zip(keyed, documents) if k not in removed] if removed else documents
    documents += copy.deepcopy(example.get("add") or [])
    return documents, example.get("yaml")


def example_files(example):
    """The example as loaded files, each document in a file of its own."""
    documents, raw = example_documents(example)
    files = []
    for index, document in enumerate(documents):
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
        files.append(load_text(text, f"example/{index:02d}.yaml"))
    if raw is not None:
        files.append(load_text(raw, "example/raw.yaml"))
    return files


def run_example(example, rules) -> list:
    from linter.engines.local import LocalEngine
    from linter.findings import sort_findings

    estate = build_estate(example_files(example))
    return sort_findings(list(estate.findings) + LocalEngine(estate, rules).run())


def check_example(rule, kind: str, example, rules) -> str | None:
    """Why an example fails its contract, or None: a bad example raises exactly
    its rule; a good one raises neither it nor any other error or warning."""
    try:
        findings = run_example(example, rules)
    except ExampleError as exc:
        return f"{rule.id} {kind} example: {exc}"
    fired = {f.rule for f in findings}
    described = "; ".join(f"{f.rule} {f.file}:{f.line} {f.message}" for f in findings)
    if kind == "bad" and fired != {rule.id}:
        return f"{rule.id} bad example raised {sorted(fired) or 'nothing'}: {described}"
    if kind == "good":
        if rule.id in fired:
            return f"{rule.id} good example raised {rule.id}: {described}"
        loud = [f for f in findings if f.severity in ("error", "warning")]
        if loud:
            return f"{rule.id} good example raised other problems: {described}"
    return None


def self_test(rules) -> list[str]:
    """Every example, each run against the built-in rules plus the rules of its
    own pack: a user's policy may deliberately overlap a built-in rule (a
    stricter limit), which must not fail the built-in rule's examples."""
    failures = []
    for rule in rules.values():
        scope = {i: r for i, r in rules.items() if r.origin == "builtin" or (r.origin, r.pack) == (rule.origin, rule.pack)}
        for kind in ("bad", "good"):
            for example in rule.examples.get(kind) or []:
                problem = check_example(rule, kind, example, scope)
                if problem:
                    failures.append(problem)
    return failures
