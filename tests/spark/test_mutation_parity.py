"""The bundled estate with values broken at random (null, a number where a name goes,
a junk list entry, a key deleted, a value out of range), as YAML files and as one
JSON Lines inventory: the Spark engine gives the local engine's findings on every
one (multisets), and each mutated estate is linted, none dropped. The rule examples
and the bad-input corpus are hand-picked; this finds the combinations nobody
wrote down (an unreadable value beside a rule that reads another)."""
from __future__ import annotations

import copy
import datetime
import json
import random
from pathlib import Path

import pytest
import yaml

from linter.engines.local import LocalEngine
from linter.estate import build_estate
from linter.loading.jsonl import load_jsonl
from linter.policy.packs import load_rules
from parity import EstateSpec, key, local_findings, run_spark
from test_fuzz import _paths as paths_below  # every key and list index below a document

RULES = load_rules()
SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "estate"
ESTATES = 40  # per format: one Spark job for all of them
# what a hand-written or independently generated estate gets wrong
VALUES = [None, 5, 0, -1, "", "  ", "x", [], {}, ["a", 5], [None], 10**12, True, False, "00:00:00",
          "2010", "SE", "LocalOnly", "London", "EX10-LON-01", "Public Folders", 3.5, "CN=x,DC=y",
          "300KB", [{"name": None}]]


def _documents() -> list[dict]:
    documents = []
    for path in sorted(SAMPLES.rglob("*.yaml")):
        documents += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]
    return documents


def _mutate(document: dict, rng: random.Random) -> None:
    places = list(paths_below(document, ()))
    if not places:  # a value an earlier mutation emptied
        return
    place = rng.choice(places)
    parent = document
    for step in place[:-1]:
        parent = parent[step]
    if isinstance(parent, dict) and rng.random() < 0.15:
        del parent[place[-1]]
    else:
        parent[place[-1]] = copy.deepcopy(rng.choice(VALUES))


def _estates(seed: int) -> list[list[dict]]:
    rng = random.Random(seed)
    base = _documents()
    estates = []
    for _ in range(ESTATES):
        documents = copy.deepcopy(base)
        for _ in range(rng.randint(1, 3)):
            _mutate(rng.choice(documents), rng)
        estates.append(documents)
    return estates


def _as_yaml(name: str, documents: list[dict]) -> EstateSpec:
    return EstateSpec(name, [(f"{name}/{i:03d}.yaml", yaml.safe_dump(d, sort_keys=False, allow_unicode=True).encode())
                             for i, d in enumerate(documents)])


def _json_default(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    raise TypeError(type(value))


def _as_jsonl(name: str, documents: list[dict]) -> EstateSpec:
    lines = "".join(json.dumps(d, ensure_ascii=False, default=_json_default) + "\n" for d in documents)
    return EstateSpec(name, [(f"{name}/inventory.jsonl", lines.encode())], "jsonl")


def _local(spec: EstateSpec) -> set[tuple]:
    if spec.format != "jsonl":
        return local_findings(spec, RULES)
    display, data = spec.files[0]
    estate = build_estate([load_jsonl(data, display)])
    return {key(f.as_dict()) for f in list(estate.findings) + LocalEngine(estate, RULES).run()}


@pytest.fixture(scope="module")
def batch(spark, tmp_path_factory):
    specs = [_as_yaml(f"yaml-{i}", docs) for i, docs in enumerate(_estates(1))]
    specs += [_as_jsonl(f"jsonl-{i}", docs) for i, docs in enumerate(_estates(2))]
    found, stats, failures = run_spark(spark, specs, RULES, tmp_path_factory.mktemp("mutated"))
    assert failures == []
    return specs, found, stats


@pytest.mark.parametrize("fmt", ["yaml", "jsonl"])
def test_mutated_estates_give_the_same_findings_in_both_engines(batch, fmt):
    specs, found, stats = batch
    differ = []
    for spec in (s for s in specs if s.format == fmt):
        expected, got = _local(spec), found[spec.name]
        if expected != got:
            differ.append(f"{spec.name}:\n  only local: {sorted(expected - got, key=str)[:4]}\n"
                          f"  only Spark: {sorted(got - expected, key=str)[:4]}")
    assert not differ, "\n".join(differ[:5])


def test_every_mutated_document_is_counted(batch):
    # every document is linted or reported: what the job read is what was written
    specs, _, stats = batch
    for spec in specs:
        if spec.format == "jsonl":
            assert stats[spec.name]["records_in"] == spec.files[0][1].count(b"\n"), spec.name
