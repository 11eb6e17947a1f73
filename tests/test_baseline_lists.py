"""Baselines and list entries: a finding's path holds the entry's index
(``spec.replicas[1]``), which an entry added in front of the list shifts. A
baselined finding must not come back as new (and be called fixed) for that:
it is matched by its value, the index left out (linter/baseline.py)."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from linter.baseline import apply_baseline, read_baseline, write_baseline
from linter.cli import cli
from linter.findings import Entity, Finding
from linter.fingerprints import fingerprint
from test_fix import estate  # noqa: F401 - the fixture: a copy of the sample estate, as the working directory

REPLICAS = "  replicas: [PFDB-EX10-LON-01, PFDB-EX03-NYC-01]\n"  # /Sales in folders/sales.yaml


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def set_replicas(estate: Path, replicas: str) -> None:
    sales = estate / "folders" / "sales.yaml"
    text = sales.read_text()
    line = next(row for row in text.splitlines(keepends=True) if row.startswith("  replicas: [PFDB-EX10-LON-01"))
    sales.write_text(text.replace(line, f"  replicas: [{replicas}]\n", 1))


def baselined(estate: Path) -> Path:
    """A baseline that holds REP001 for PFDB-GONE-01, the last replica of /Sales."""
    assert REPLICAS in (estate / "folders" / "sales.yaml").read_text()
    set_replicas(estate, "PFDB-EX10-LON-01, PFDB-EX03-NYC-01, PFDB-GONE-01")
    baseline = estate.parent / "baseline.json"
    assert invoke("check", "--write-baseline", baseline, ".").exit_code == 0
    recorded = [e for e in json.loads(baseline.read_text())["findings"] if e["rule"] == "REP001"]
    assert [e["path"] for e in recorded] == ["spec.replicas[2]"]
    return baseline


def check(baseline: Path):
    result = invoke("check", "--format", "json", "--baseline", baseline, ".")
    return result, json.loads(result.stdout)


def test_an_entry_added_in_front_does_not_resurrect_a_baselined_finding(estate):
    baseline = baselined(estate)
    set_replicas(estate, "PFDB-EX10-PAR-01, PFDB-EX10-LON-01, PFDB-EX03-NYC-01, PFDB-GONE-01")
    result, body = check(baseline)
    assert [f["rule"] for f in body["findings"] if f["severity"] == "error"] == []
    assert result.exit_code == 0
    assert body["baseline"]["fixed"] == []
    assert "fixed since the baseline" not in result.stderr


def test_a_new_finding_on_an_entry_in_front_is_new(estate):
    baseline = baselined(estate)
    set_replicas(estate, "PFDB-NEW-01, PFDB-EX10-LON-01, PFDB-EX03-NYC-01, PFDB-GONE-01")
    result, body = check(baseline)
    assert [(f["rule"], f["path"]) for f in body["findings"] if f["rule"] == "REP001"] == [("REP001", "spec.replicas[0]")]
    assert "PFDB-NEW-01" in body["findings"][0]["message"]
    assert body["baseline"]["fixed"] == []
    assert result.exit_code == 1


def test_the_entry_removed_is_listed_fixed(estate):
    baseline = baselined(estate)
    set_replicas(estate, "PFDB-EX10-PAR-01, PFDB-EX10-LON-01, PFDB-EX03-NYC-01")
    result, body = check(baseline)
    assert [e["rule"] for e in body["baseline"]["fixed"]] == ["REP001"]
    assert "fixed since the baseline" in result.stderr


def test_an_older_baseline_still_matches_where_the_index_did_not_change(estate):
    """Entries with only their fingerprint, or a message an older exlint worded
    otherwise: matched by the fingerprint, as before."""
    baseline = baselined(estate)
    body = json.loads(baseline.read_text())
    for entry in body["findings"]:
        if entry["rule"] == "REP001":
            entry["message"] = "replica PFDB-GONE-01 is not defined (older wording)"
        else:
            for key in ("rule", "entity", "path", "file", "message"):
                entry.pop(key)
    baseline.write_text(json.dumps(body))
    result, report = check(baseline)
    assert report["findings"] == [] and report["baseline"]["fixed"] == []
    assert result.exit_code == 0


def finding(path: str, message: str) -> Finding:
    # a rule whose fingerprint leaves the message out: two entries at one index look alike
    return Finding("RTE001", "warning", message, "org.yaml", 1, 1, path, Entity("Organization", "contoso"))


def test_an_entry_that_took_the_index_does_not_take_the_baselined_finding(tmp_path):
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, [finding("spec.siteLinks[1].cost", "cost A")])
    moved, new = finding("spec.siteLinks[2].cost", "cost A"), finding("spec.siteLinks[1].cost", "cost C")
    assert fingerprint(new) == read_baseline(baseline)[0]["fingerprint"]
    outcome = apply_baseline([new, moved], read_baseline(baseline))
    assert (outcome.kept, outcome.suppressed, outcome.fixed) == ([new], 1, [])


def test_copies_are_counted(tmp_path):
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, [finding("spec.siteLinks[0].cost", "cost A")] * 2)
    now = [finding("spec.siteLinks[1].cost", "cost A")] * 3
    outcome = apply_baseline(now, read_baseline(baseline))
    assert (len(outcome.kept), outcome.suppressed, outcome.fixed) == (1, 2, [])


def duplicate(replicas: str, index: int, store: str = "PFDB-B") -> Finding:
    # REP005 shows the whole list in parentheses, so an entry added anywhere in it rewords the message
    return Finding("REP005", "warning", f"store {store} appears more than once in the replica list of folder /G "
                   f"({replicas}): a store holds at most one replica of a folder; remove the duplicate entry",
                   "folders.yaml", 9, 5, f"spec.replicas[{index}]", Entity("PublicFolder", "/G"))


def test_a_message_showing_the_whole_list_still_matches_when_the_list_grows(tmp_path):
    baseline = tmp_path / "baseline.json"
    write_baseline(baseline, [duplicate("PFDB-A, PFDB-B, PFDB-B", 2)])
    same = duplicate("PFDB-C, PFDB-A, PFDB-B, PFDB-B", 3)
    outcome = apply_baseline([same], read_baseline(baseline))
    assert (outcome.kept, outcome.suppressed, outcome.fixed) == ([], 1, [])
    # another store duplicated in the same list is a new finding, and the recorded one is fixed
    other = duplicate("PFDB-A, PFDB-C, PFDB-C", 2, store="PFDB-C")
    outcome = apply_baseline([other], read_baseline(baseline))
    assert (outcome.kept, outcome.suppressed, [e["rule"] for e in outcome.fixed]) == ([other], 0, ["REP005"])


def test_rep005_through_the_cli_is_not_resurrected_by_an_entry_added_in_front(estate):
    set_replicas(estate, "PFDB-EX10-LON-01, PFDB-EX03-NYC-01, PFDB-EX03-NYC-01")
    baseline = estate.parent / "baseline.json"
    assert invoke("check", "--write-baseline", baseline, ".").exit_code == 0
    assert [e["rule"] for e in json.loads(baseline.read_text())["findings"]].count("REP005") == 1
    set_replicas(estate, "PFDB-EX10-PAR-01, PFDB-EX10-LON-01, PFDB-EX03-NYC-01, PFDB-EX03-NYC-01")
    result, body = check(baseline)
    assert [f["rule"] for f in body["findings"] if f["rule"] == "REP005"] == []
    assert body["baseline"]["fixed"] == [] and "fixed since the baseline" not in result.stderr


def test_a_finding_with_no_entity_matches_from_any_working_directory(estate, monkeypatch):
    """A syntax error (EXL001) has no entity: its identity is its file, taken
    relative to the config repo root, so a baseline or SARIF alert written from
    the repo's parent still matches from inside it (and the other way round)."""
    (estate / "stores" / "broken.yaml").write_text("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: [\n")
    baseline = estate.parent / "baseline.json"
    monkeypatch.chdir(estate.parent)
    assert invoke("check", "--write-baseline", baseline, estate.name).exit_code == 0
    recorded = [e for e in json.loads(baseline.read_text())["findings"] if e["rule"] == "EXL001"]
    assert [e["file"] for e in recorded] == ["stores/broken.yaml"]
    from_parent = json.loads(invoke("check", "--format", "sarif", estate.name).stdout)
    monkeypatch.chdir(estate / "stores")
    result = invoke("check", "--format", "json", "--baseline", baseline, "..")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["findings"] == []
    from_inside = json.loads(invoke("check", "--format", "sarif", "..").stdout)
    prints = [sorted(list(r["partialFingerprints"].values()) for r in run["results"] if r["ruleId"] == "EXL001")
              for run in (from_parent["runs"][0], from_inside["runs"][0])]
    assert prints[0] == prints[1] and prints[0]
