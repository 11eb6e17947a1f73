"""`exlint generate`: synthetic estates are deterministic, the two formats
describe the same estate, the clean part is clean, and the local engine finds
exactly the defects the manifest lists (recall and precision)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from linter.cli import cli
from linter.generate.core import GenerateError, Settings, generate
from linter.generate.injectors import CATALOG
from linter.policy.packs import load_rules
from linter.runner import Options, lint

FAMILIES = ("EXL", "HIE", "REP", "BKF", "DUP", "STS", "RTE", "SHD", "CON")
# Rules no injector can trigger locally: EXL008 (the estate's Organization count),
# EXL010 (an unused suppression comment: YAML-only, not part of the estate's data),
# SHD006 (needs an estate with no DAG at all).
NOT_INJECTED = {"EXL008", "EXL010", "SHD006"}
LOCAL = [i.id for i in CATALOG if i.level != "org"]
ORG = [i.id for i in CATALOG if i.level == "org"]


def make(tmp_path: Path, servers=60, seed=1, rate=0.05, fmt="yaml", force=(), name=None) -> tuple[Path, dict]:
    out = tmp_path / (name or f"estate-{servers}-{seed}-{rate}-{fmt}{'.jsonl' if fmt == 'jsonl' else ''}")
    summary = generate(Settings(servers, seed, rate, fmt, str(out), tuple(force)))
    return out, json.loads(Path(summary["manifest"]).read_text(encoding="utf-8"))


def matches(entry: dict, finding) -> bool:
    if finding.rule != entry["rule"]:
        return False
    if finding.entity is not None and (finding.entity.kind == entry["entity"]["kind"]
                                       and finding.entity.name.lower() == entry["entity"]["name"].lower()):
        return True
    if finding.entity is not None and finding.rule not in ("EXL001", "EXL002", "EXL004"):
        return False
    # syntax-level findings (EXL001, EXL002, EXL004) name the document as written (a misspelt
    # kind: its misspelling) or no entity at all: match the document's lines
    return bool(finding.file) and Path(finding.file).as_posix().endswith(entry["file"]) and (
        entry["line"] <= (finding.line or 0) <= entry["endLine"])


def by_entity(entry: dict, finding) -> bool:
    return finding.rule == entry["rule"] and finding.entity is not None and (
        finding.entity.kind == entry["entity"]["kind"]
        and finding.entity.name.lower() == entry["entity"]["name"].lower())


def check_against_manifest(out: Path, manifest: dict) -> list:
    """Every manifest entry is one finding and every error or warning is one entry.
    One to one, not "some finding matches": a defect that raises two findings (HIE007's
    two MAPI hierarchies, RTE005's referring stores) must be listed twice, as the
    manifest's count is what `generate --help` promises check finds."""
    findings = lint(Options(paths=[str(out)])).findings
    entries = manifest["defects"]
    used: set[int] = set()  # findings, by index
    found: set[int] = set()  # entries, by index
    # entries that name their entity first, so that an entry placed by its lines alone
    # (a syntax-level finding) cannot take a finding another entry names
    for test in (by_entity, matches):
        for e, entry in enumerate(entries):
            if e in found:
                continue
            chosen = next((n for n, f in enumerate(findings) if n not in used and test(entry, f)), None)
            if chosen is not None:
                used.add(chosen)
                found.add(e)
    missed = [f"{e['rule']} {e['entity']} ({e['injector']})" for n, e in enumerate(entries) if n not in found]
    unexplained = [f"{f.rule} [{f.severity}] {f.entity} {f.file}:{f.line} {f.message}"
                   for n, f in enumerate(findings) if n not in used and f.severity in ("error", "warning")]
    assert not missed, "manifest entries the engine did not report:\n" + "\n".join(missed)
    assert not unexplained, "findings the manifest does not explain:\n" + "\n".join(unexplained)
    return findings


def tree_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# -- determinism and formats -------------------------------------------------------------

def test_same_seed_gives_the_same_bytes(tmp_path):
    a, _ = make(tmp_path, 200, 7, 0.1, "jsonl", name="a.jsonl")
    b, _ = make(tmp_path, 200, 7, 0.1, "jsonl", name="b.jsonl")
    c, _ = make(tmp_path, 200, 8, 0.1, "jsonl", name="c.jsonl")
    assert a.read_bytes() == b.read_bytes()
    manifest_a = Path(f"{a}.manifest.json").read_text(encoding="utf-8")
    manifest_b = Path(f"{b}.manifest.json").read_text(encoding="utf-8")
    assert manifest_a.replace("a.jsonl", "b.jsonl") == manifest_b
    assert a.read_bytes() != c.read_bytes()
    y1, _ = make(tmp_path, 60, 7, 0.1, name="y1")
    y2, _ = make(tmp_path, 60, 7, 0.1, name="y2")
    assert tree_digest(y1) == tree_digest(y2)


def _canonical(value):
    """Scalars as text, as YAML's base loader reads them (JSON: true -> "true")."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _yaml_documents(root: Path) -> list:
    docs = []
    for path in sorted(root.rglob("*.yaml")):
        if path.name == ".exlint.yaml":
            continue
        for chunk in path.read_text(encoding="utf-8").split("\n---\n")[1:]:
            try:
                docs.append(_canonical(yaml.load(chunk, Loader=yaml.BaseLoader)))
            except yaml.YAMLError:
                docs.append("<broken>")
    return docs


def _jsonl_documents(path: Path) -> list:
    docs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            docs.append(_canonical(json.loads(line)))
        except json.JSONDecodeError:
            docs.append("<broken>")
    return docs


def test_yaml_and_jsonl_describe_the_same_estate(tmp_path):
    y, manifest_y = make(tmp_path, 60, 3, 0.1, "yaml")
    j, manifest_j = make(tmp_path, 60, 3, 0.1, "jsonl")
    key = lambda d: json.dumps(d, sort_keys=True)  # noqa: E731
    yaml_docs = sorted(_yaml_documents(y), key=key)
    json_docs = sorted(_jsonl_documents(j), key=key)
    assert len(json_docs) == sum(manifest_j["summary"]["documents"].values())
    assert yaml_docs == json_docs
    strip = lambda m: [(e["defect"], e["injector"], e["rule"], e["entity"]) for e in m["defects"]]  # noqa: E731
    assert strip(manifest_y) == strip(manifest_j)


def test_jsonl_manifest_lines_point_at_the_entity(tmp_path):
    out, manifest = make(tmp_path, 120, 5, 0.1, "jsonl")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert manifest["defects"]
    for entry in manifest["defects"]:
        assert entry["file"] == out.name and entry["line"] == entry["endLine"]
        line = lines[entry["line"] - 1]
        assert json.dumps(entry["entity"]["name"]) in line, entry


# -- the local engine agrees with the manifest ---------------------------------------------

def test_clean_estate_raises_no_error_or_warning(tmp_path):
    out, manifest = make(tmp_path, 60, 11, 0.0)
    assert manifest["defects"] == []
    findings = lint(Options(paths=[str(out)])).findings
    loud = [f"{f.rule} {f.entity} {f.message}" for f in findings if f.severity in ("error", "warning")]
    assert loud == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_defect_is_found_and_every_finding_explained(tmp_path, seed):
    out, manifest = make(tmp_path, 60, seed, 0.05)
    assert len(manifest["defects"]) >= 10
    check_against_manifest(out, manifest)


@pytest.mark.parametrize("seed", [3, 5, 8])
def test_every_local_injector_is_found_when_forced(tmp_path, seed):
    out, manifest = make(tmp_path, 60, seed, 0.0, force=LOCAL)
    assert manifest["summary"]["unusedForced"] == []
    assert {e["injector"] for e in manifest["defects"]} == set(LOCAL)
    check_against_manifest(out, manifest)


@pytest.mark.parametrize("seed", [2, 4])
@pytest.mark.parametrize("injector", ORG)
def test_every_organization_injector_is_found(tmp_path, injector, seed):
    # with the shadow-dependent injectors alongside: SHD005 (shadow off) must suppress them
    out, manifest = make(tmp_path, 30, seed, 0.0, force=(injector, "SHD002", "SHD004", "DUP003"))
    assert manifest["organizationDefect"] == injector
    assert injector in {e["injector"] for e in manifest["defects"]}
    check_against_manifest(out, manifest)


@pytest.mark.parametrize("injector", ["HIE007", "RTE005"])
def test_a_defect_raising_several_findings_lists_each(tmp_path, injector):
    # HIE007 reports each MAPI hierarchy, RTE005 each store that cannot refer to the folder:
    # the manifest counts the findings check raises, not the defects
    out, manifest = make(tmp_path, 30, 1, 0.0, force=(injector,))
    raised = [f for f in lint(Options(paths=[str(out)])).findings if f.rule == injector]
    assert len(raised) >= 2
    assert manifest["summary"]["expectedFindings"] == manifest["summary"]["byRule"][injector] == len(raised)


def test_every_rule_family_appears_in_a_larger_estate(tmp_path):
    _, manifest = make(tmp_path, 300, 7, 0.1, "jsonl")
    rules = {e["rule"] for e in manifest["defects"]}
    assert {r[:3] for r in rules} >= set(FAMILIES), sorted(rules)


def test_the_catalog_covers_every_locally_triggered_rule():
    covered = {i.rule for i in CATALOG}
    assert covered >= set(load_rules()) - NOT_INJECTED
    assert not covered & NOT_INJECTED


# -- command line ----------------------------------------------------------------------------

def test_generate_command(tmp_path):
    runner = CliRunner()
    out = tmp_path / "inv.jsonl"
    result = runner.invoke(cli, ["generate", "--servers", "30", "--seed", "4", "--defect-rate", "0.1",
                                 "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "expected findings" in result.output
    manifest = json.loads(Path(f"{out}.manifest.json").read_text(encoding="utf-8"))
    assert manifest["format"] == "jsonl" and manifest["seed"] == 4
    again = runner.invoke(cli, ["generate", "--servers", "30", "--output", str(out)])
    assert again.exit_code == 2 and "--overwrite" in again.output
    listing = runner.invoke(cli, ["generate", "--list-injectors"])
    assert listing.exit_code == 0
    assert all(i.id in listing.output for i in CATALOG)


def test_bad_settings_are_errors_not_tracebacks(tmp_path):
    with pytest.raises(GenerateError):
        generate(Settings(60, 1, 0.0, "yaml", str(tmp_path / "x"), ("NOPE123",)))
    with pytest.raises(GenerateError):
        generate(Settings(60, 1, 0.0, "yaml", str(tmp_path / "y"), ("SHD001", "RTE007")))


def test_bundled_inventory_is_current(tmp_path):
    """samples/inventory is exactly what its recorded arguments generate."""
    bundled = Path(__file__).resolve().parent.parent / "samples" / "inventory"
    manifest = json.loads((bundled / "estate.jsonl.manifest.json").read_text(encoding="utf-8"))
    out = tmp_path / "estate.jsonl"
    generate(Settings(manifest["servers"], manifest["seed"], manifest["defectRate"], "jsonl", str(out),
                      tuple(manifest["forced"])))
    assert out.read_bytes() == (bundled / "estate.jsonl").read_bytes()
    assert Path(f"{out}.manifest.json").read_text(encoding="utf-8") == (
        bundled / "estate.jsonl.manifest.json").read_text(encoding="utf-8")
    assert (bundled / "estate.jsonl").stat().st_size < 5_000_000
