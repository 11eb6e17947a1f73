"""Property-based fuzzing: documents generated from the JSON Schemas, then
mutated (wrong types, deleted and duplicated keys, truncated text, random
bytes). Whatever comes in, the linter returns findings, never an exception."""
from __future__ import annotations

import json
import os

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linter.engines.local import LocalEngine
from linter.estate import build_estate
from linter.loading import load_file
from linter.policy.packs import load_rules
from linter.resources import schemas_dir
from linter.schema import KINDS

from pathlib import Path

REPO_ESTATE = Path(__file__).resolve().parent.parent / "samples" / "estate"
EXAMPLES = int(os.environ.get("EXLINT_FUZZ_EXAMPLES", "2000"))
SCHEMAS = {p.name: json.loads(p.read_text()) for p in schemas_dir().glob("*.json")}
COMMON = SCHEMAS["common.json"]["$defs"]
RULES = load_rules()
NAMES = st.sampled_from(["EX10-LON-01", "ex10-lon-01", "PFDB-LON", "London", "Public Folders", "DAG-1", "x"])


def _resolve(schema: dict) -> dict:
    ref = schema.get("$ref")
    if ref:
        name = ref.split("/")[-1]
        merged = {**COMMON[name], **{k: v for k, v in schema.items() if k != "$ref"}}
        return _resolve(merged)
    return schema


def from_schema(schema: dict, depth: int = 0) -> st.SearchStrategy:
    schema = _resolve(schema)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "examples" in schema:
        return st.sampled_from(schema["examples"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, depth + 1) for k in kind])
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        if depth > 6:
            return st.just({})
        return st.fixed_dictionaries(
            {k: from_schema(v, depth + 1) for k, v in properties.items() if k in required},
            optional={k: from_schema(v, depth + 1) for k, v in properties.items() if k not in required},
        )
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), depth + 1), max_size=4)
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum", -5), max_value=min(schema.get("maximum", 200000), 200000))
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        return st.one_of(NAMES, st.text(max_size=12))
    return st.one_of(st.none(), st.integers(), st.text(max_size=8), st.booleans())


DOCUMENT = st.sampled_from(KINDS).flatmap(lambda kind: from_schema(SCHEMAS[kind.lower() + ".json"]))
JUNK = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=6), st.booleans(),
                 st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


@st.composite
def mutated_document(draw):
    document = draw(DOCUMENT)
    for _ in range(draw(st.integers(0, 3))):
        paths = list(_paths(document, ()))
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["retype", "delete"]))
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        if action == "retype":
            parent[path[-1]] = draw(JUNK)
        elif isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
    return document


def _paths(node, path):
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,)
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield path + (index,)
            yield from _paths(value, path + (index,))


@st.composite
def mutated_text(draw):
    documents = draw(st.lists(mutated_document(), min_size=1, max_size=4))
    text = "---\n".join(yaml.safe_dump(d, sort_keys=False, allow_unicode=True) for d in documents)
    data = text.encode("utf-8")
    for _ in range(draw(st.integers(0, 2))):
        action = draw(st.sampled_from(["truncate", "bytes", "duplicate-line", "none"]))
        lines = data.split(b"\n")
        if action == "truncate" and data:
            data = data[: draw(st.integers(0, len(data)))]
        elif action == "bytes":
            at = draw(st.integers(0, len(data)))
            data = data[:at] + draw(st.binary(max_size=6)) + data[at:]
        elif action == "duplicate-line" and lines:
            index = draw(st.integers(0, len(lines) - 1))
            lines.insert(index, lines[index])
            data = b"\n".join(lines)
    return data


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(mutated_text())
def test_mutated_estates_never_crash(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "estate.yaml"
    path.write_bytes(data)
    loaded = load_file(path, "estate.yaml")
    estate = build_estate([loaded])
    findings = list(estate.findings) + LocalEngine(estate, RULES).run()
    assert not [f for f in findings if f.rule == "EXL000"], findings
    for finding in findings:
        if finding.file is not None:
            assert finding.line >= 1 and finding.column >= 1, finding


@settings(max_examples=max(200, EXAMPLES // 4), deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(st.sampled_from(KINDS).flatmap(lambda kind: st.tuples(st.just(kind), mutated_document())))
def test_fast_validity_check_agrees_with_jsonschema(pair):
    from linter.schema import fast_check, validator

    _, document = pair
    kind = document.get("kind") if isinstance(document.get("kind"), str) else None
    if kind not in KINDS:
        return
    document = json.loads(json.dumps(document, default=str))
    assert fast_check(kind)(document) == validator(kind).is_valid(document)


def test_validation_never_changes_the_document():
    import copy

    from linter.loading import load_text
    from linter.schema import validate_document

    text = (REPO_ESTATE / "organization.yaml").read_text()
    document = load_text(text, "organization.yaml").documents[0]
    before = copy.deepcopy(document.data)
    validate_document(document)
    assert document.data == before


def test_generated_validators_are_current():
    import linter.schema_validators as generated
    from linter.schema import schemas_digest

    assert generated.SCHEMAS_DIGEST == schemas_digest(), "run: python -m linter.schema_validators"


# -- hostile values in every field (issue #20) ----------------------------------------
# A value or key anywhere in a document is replaced by raw hostile text: nesting
# past every limit (and past what a recursive C composer survives), integers of
# thousands of digits, hexadecimal ones, control characters, line separators,
# bidirectional overrides and lone surrogates. The document goes through the
# loader (YAML, and JSON Lines), the model, the rules and every report format:
# no exception, each report encodes as UTF-8, text reports keep one finding a line.

_PLACEHOLDER = "hostile-placeholder-value"
_NASTY_CHARS = st.one_of(st.characters(min_codepoint=0, max_codepoint=0x9F),
                         st.sampled_from(["\u2028", "\u2029", "\u202e", "\u2066", "\ud800", "\udcff", "\ufeff"]),
                         st.characters())
HOSTILE_RAW = st.one_of(
    st.integers(20, 5000).map(lambda n: "9" * n),
    st.integers(20, 5000).map(lambda n: "-" + "9" * n),
    st.integers(17, 3000).map(lambda n: "0x" + "f" * n),
    st.integers(2, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(2, 3000).map(lambda n: "{a: " * n + "1" + "}" * n),
    st.integers(2, 3000).map(lambda n: "[" * n),
    st.text(_NASTY_CHARS, min_size=1, max_size=24).map(json.dumps),  # a double-quoted string, escapes and all
)


@st.composite
def hostile_document(draw):
    document = draw(DOCUMENT)
    paths = list(_paths(document, ()))
    if paths:
        path = draw(st.sampled_from(paths))
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, dict) and draw(st.booleans()):
            parent[_PLACEHOLDER] = parent.pop(path[-1])  # a hostile key
        else:
            parent[path[-1]] = _PLACEHOLDER
    return document, draw(HOSTILE_RAW), draw(st.sampled_from(["yaml", "jsonl"]))


def _render_everywhere(loaded, estate, findings):
    from linter.reports import renderer
    from linter.config import Config
    from linter.runner import Result
    from linter.textsafe import valid_unicode

    result = Result(findings, 1, len(loaded.documents), Config(), RULES, estate, None, [loaded], {loaded.path})
    for fmt in ("text", "github", "json", "sarif", "junit"):
        rendered = valid_unicode(renderer(fmt)(result, colour=False))
        rendered.encode("utf-8")
        if fmt == "json":
            json.loads(rendered)
        if fmt == "junit":
            import xml.etree.ElementTree as ET

            ET.fromstring(rendered)
        if fmt == "text":
            # one line per finding, the summary, and the fixable count when something is fixable
            lines = [line for line in rendered.splitlines() if line and " fixable with --fix" not in line]
            assert len(lines) == len(findings) + 1, rendered
            assert not any(c in rendered for c in "\x1b\x00\r\u2028\u202e")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(hostile_document())
def test_hostile_values_in_every_field_never_crash(tmp_path_factory, case):
    document, raw, fmt = case
    if fmt == "jsonl":
        raw_json = raw if not raw.startswith(("0x", "{a")) else json.dumps(raw)
        text = json.dumps(document, default=str).replace(json.dumps(_PLACEHOLDER), raw_json) + "\n"
    else:
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1 << 20)
        text = text.replace(_PLACEHOLDER, raw)
    path = tmp_path_factory.mktemp("hostile") / f"estate.{fmt}"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    loaded = load_file(path, path.name)
    estate = build_estate([loaded])
    findings = list(estate.findings) + LocalEngine(estate, RULES).run()
    assert not [f for f in findings if f.rule == "EXL000"], findings
    for finding in findings:
        if finding.file is not None:
            assert finding.line >= 1 and finding.column >= 1, finding
    _render_everywhere(loaded, estate, findings)
