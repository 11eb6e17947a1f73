"""The Spark engine and the local engine give identical findings (sets of
Finding.as_dict() tuples): for every rule's bad and good examples, the sample
estate, the bad-input corpus and a generated 50-server estate. JSON Lines and
Parquet inventories give the same findings as the YAML tree, and malformed
lines become findings with file and line.

All estates run in one Spark job, each under its own estate id (Spark's cost
is per job, not per estate); every comparison is its own test."""
from __future__ import annotations

from pathlib import Path

import pytest

from linter.policy.packs import load_rules
from parity import EstateSpec, as_format, example_spec, local_findings, position_free, run_spark, tree_spec

REPO = Path(__file__).resolve().parents[2]
RULES = load_rules()
EXAMPLES = [
    (f"{rule.id}-{kind}{index}", example)
    for rule in RULES.values()
    for kind in ("bad", "good")
    for index, example in enumerate(rule.examples.get(kind) or [])
]
MALFORMED = (
    b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-A"}, "spec": {"version": "2010"}}\n'
    b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-B"}, "spec": {"version": \n'
    b"\n"
    b"not json at all\n"
    b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-C"}, "spec": {"version": "2013", '
    b'"version": "2016"}}\n'
    b'["a", "list"]\n'
    b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-\xff"}}\n'
)

# an estate whose one document is of a kind exlint does not know: it still holds a document
UNKNOWN_KIND = b"apiVersion: exlint/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {}\n"
UNKNOWN_KIND_LINE = b'{"apiVersion": "exlint/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {}}\n'


def _generated(tmp: Path) -> EstateSpec | None:
    try:
        from linter.generate.core import Settings, generate
    except ImportError:
        return None
    out = tmp / "generated"
    generate(Settings(servers=50, seed=7, defect_rate=0.3, format="yaml", output=str(out)))
    return tree_spec("generated-50", out, tmp)


@pytest.fixture(scope="module")
def batch(spark, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("parity")
    specs = [example_spec(name, example) for name, example in EXAMPLES]
    samples = tree_spec("samples", REPO / "samples" / "estate", REPO)
    specs += [samples, tree_spec("corpus", REPO / "tests" / "corpus" / "bad-input", REPO)]
    specs += [as_format(samples, "jsonl", "inventory.jsonl"), as_format(samples, "parquet", "inventory.parquet"),
              as_format(samples, "parquet-columns", "columns.parquet")]
    specs.append(EstateSpec("malformed", [("broken.jsonl", MALFORMED)], "jsonl"))
    specs.append(EstateSpec("unknown-kind-only", [("widget.yaml", UNKNOWN_KIND)], "yaml"))
    specs.append(EstateSpec("unknown-kind-only as jsonl", [("widget.jsonl", UNKNOWN_KIND_LINE)], "jsonl"))
    generated = _generated(tmp)
    if generated is not None:
        specs.append(generated)
    found, stats, failures = run_spark(spark, specs, RULES, tmp / "inputs")
    return {spec.name: spec for spec in specs}, found, stats, failures


def _compare(batch, name):
    specs, found, _, _ = batch
    expected = local_findings(specs[name], RULES)
    got = found[name]
    missing = sorted(expected - got, key=str)
    extra = sorted(got - expected, key=str)
    assert not missing and not extra, f"{name}:\n  only local: {missing}\n  only Spark: {extra}"
    return expected


def test_every_check_compiles_for_spark(batch):
    assert batch[3] == []


@pytest.mark.parametrize("name", [name for name, _ in EXAMPLES])
def test_rule_example_parity(batch, name):
    findings = _compare(batch, name)
    if "-bad" in name:
        assert any(f[0] == name.split("-")[0] for f in findings)


@pytest.mark.parametrize("name", ["samples", "corpus"])
def test_repository_estates_parity(batch, name):
    _compare(batch, name)


def test_generated_estate_parity(batch):
    if "generated-50" not in batch[0]:
        pytest.skip("linter.generate is not available")
    findings = _compare(batch, "generated-50")
    assert len(findings) > 10  # the defects were injected and found


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "parquet-columns"])
def test_jsonl_and_parquet_inventories_give_the_yaml_findings(batch, fmt):
    _, found, stats, _ = batch
    assert position_free(found[f"samples as {fmt}"]) == position_free(found["samples"])
    assert stats[f"samples as {fmt}"]["linted"] == stats["samples"]["linted"]


def test_jsonl_findings_point_at_the_line(batch):
    _, found, _, _ = batch
    lines = {f[4] for f in found["malformed"] if f[3] == "broken.jsonl"}
    assert lines and all(isinstance(line, int) and line >= 1 for line in lines)


def test_malformed_jsonl_lines_are_findings_and_the_counts_add_up(batch):
    _, found, stats, _ = batch
    by_line = {}
    for finding in found["malformed"]:
        if finding[0] == "EXL008":  # no Organization: an estate-level finding, no file
            assert finding[3] is None
            continue
        by_line.setdefault(finding[4], set()).add(finding[0])
        assert finding[3] == "broken.jsonl"
    assert "EXL001" in by_line[2]  # cut-off JSON
    assert "EXL001" in by_line[4]  # not JSON
    assert "EXL002" in by_line[5]  # duplicate key
    assert "EXL003" in by_line[6]  # not a mapping
    assert "EXL001" in by_line[7]  # invalid UTF-8
    counts = stats["malformed"]
    assert counts["records_in"] == 6  # the blank line is not a record
    assert counts["linted"] == 2  # EX-A and EX-C
    assert counts["records_in"] - counts["linted"] == 4


@pytest.mark.parametrize("layout", ["many partitions", "one partition with broadcast lookups"])
def test_large_inventory_settings_give_the_same_findings(spark, tmp_path, monkeypatch, layout):
    """Estates above SMALL_RECORDS and ONE_PARTITION_MAX_RECORDS run with generated code, the default shuffle
    partitions, broadcast lookups and the findings' union coalesced to a few tasks
    per core; past INTERPRETED_CHECKED_ROWS checked rows and under ONE_PARTITION_MAX_RECORDS
    rows of work, in one partition with generated code and broadcast lookups; the batch above is small,
    so it runs in one partition with none of that (test_one_partition.py). Every
    rule example, each way: the same findings."""
    from linter.engines.spark import job

    specs = [example_spec(name, example) for name, example in EXAMPLES]
    specs += [tree_spec("samples", REPO / "samples" / "estate", REPO),
              tree_spec("corpus", REPO / "tests" / "corpus" / "bad-input", REPO)]
    generated = _generated(tmp_path)
    if generated is not None:
        specs.append(generated)
    monkeypatch.setattr(job, "SMALL_RECORDS", 0)
    monkeypatch.setattr(job, "INTERPRETED_CHECKED_ROWS", 0)
    if layout == "many partitions":
        monkeypatch.setattr(job, "ONE_PARTITION_MAX_RECORDS", 0)
    found, _, failures = run_spark(spark, specs, RULES, tmp_path / "inputs")
    assert failures == []
    for spec in specs:
        expected = local_findings(spec, RULES)
        assert found[spec.name] == expected, spec.name


def test_an_estate_of_one_unknown_kind_document_has_no_organization(batch):
    # rules.md: EXL008 fires when the estate holds at least one document but no Organization
    findings = _compare(batch, "unknown-kind-only")
    assert sorted(f[0] for f in findings) == ["EXL004", "EXL008"], findings
    # (the local side reads files as YAML: a JSON Lines estate is compared by its rules)
    assert sorted(f[0] for f in batch[1]["unknown-kind-only as jsonl"]) == ["EXL004", "EXL008"]
