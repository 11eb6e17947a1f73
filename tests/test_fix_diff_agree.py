"""--fix and --diff agree: --diff reports the files on disk, says what --fix
would refuse and exits as --fix would, quotes file names in its headers as git
does; "fixed N" counts only findings that were reported."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.fixing.files import quote_path, unified_diff
from test_fix import FIXTURES, estate, place  # noqa: F401 - estate: a copy of the sample estate

STORE = "stores/pfdb-ex03-lon-01.yaml"


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def findings(*args) -> list[dict]:
    return json.loads(invoke("check", "--format", "json", "--fail-on", "never", *args).stdout)["findings"]


# -- the --diff report is of the files on disk ------------------------------------------------

def backfill_then_window(estate: Path) -> Path:
    """A store whose unsafe fix (BKF001 deletes a line) moves the DUP002 below it up a line."""
    store = estate / "stores" / "pfdb-ex03-nyc-01.yaml"
    text = (FIXTURES / "bkf001" / "pfdb-ex03-nyc-01.yaml").read_text()
    text = text.replace(
        '    Track Duplicates (in hours): 24\n'
        '    Preferred Backfill Source: "PFDB-EX03-LON-01"   # PSS case 110052233 (2012), backfill storm\n',
        '    Preferred Backfill Source: "PFDB-EX03-LON-01"   # PSS case 110052233 (2012), backfill storm\n'
        '    Track Duplicates (in hours): 500\n')
    assert "Track Duplicates (in hours): 500" in text
    store.write_text(text)
    return store


def test_diff_reports_the_positions_and_snippets_of_the_files_on_disk(estate):
    store = backfill_then_window(estate)
    on_disk = findings("stores")
    assert {f["rule"] for f in on_disk} == {"BKF001", "DUP002"}
    before = store.read_bytes()
    result = invoke("check", "--diff", "--unsafe-fixes", "--output", "r.json", "--output", "r.sarif", "stores")
    assert "-    Preferred Backfill Source" in result.stdout
    assert store.read_bytes() == before
    assert json.loads((estate / "r.json").read_text())["findings"] == on_disk
    lines = before.decode().split("\n")
    results = json.loads((estate / "r.sarif").read_text())["runs"][0]["results"]
    assert len(results) == 2
    for item in results:
        region = item["locations"][0]["physicalLocation"]["region"]
        assert region["snippet"]["text"] == lines[region["startLine"] - 1]


def test_diff_exit_code_is_what_fix_would_leave_while_the_report_is_of_the_disk(estate):
    backfill_then_window(estate)
    shutil.copyfile(FIXTURES / "dup001" / "pfdb-ex03-lon-01.yaml", estate / STORE)  # an error a safe fix removes
    result = invoke("check", "--diff", "--output", "r.txt", "stores")
    assert result.exit_code == 0  # --fix would leave warnings only
    report = (estate / "r.txt").read_text()
    assert "DUP001 [error] [*]" in report and "1 fixable with --fix (1 more with --unsafe-fixes)" in report


def test_diff_exit_code_follows_the_baseline_too(estate):
    backfill_then_window(estate)
    assert invoke("check", "--write-baseline", "base.json", "stores").exit_code == 0
    result = invoke("check", "--diff", "--unsafe-fixes", "--fail-on", "warning", "--baseline", "base.json",
                    "--output", "r.json", "stores")
    assert result.exit_code == 0
    assert json.loads((estate / "r.json").read_text())["findings"] == []


# -- a file --fix would refuse ------------------------------------------------------------------

def test_diff_says_what_fix_would_refuse_and_exits_as_fix_does(estate):
    store = place(estate, "dup001", STORE)
    place(estate, "rep005", "folders/sales.yaml")
    os.chmod(store, 0o444)  # refused even as root: no write permission bit at all
    refusal = f"exlint: error: {STORE}: cannot write: the file is read-only; the file is unchanged"
    diff = invoke("check", "--diff", "--output", "r.txt", ".")
    assert refusal in diff.stderr
    assert "--fix would fix 2 finding(s) in 1 file(s); nothing was written" in diff.stderr
    assert "--- a/folders/sales.yaml" in diff.stdout and STORE not in diff.stdout
    report = (estate / "r.txt").read_text()
    assert "DUP001 [error] Track" in report  # not marked [*]: --fix would not fix it
    assert "2 fixable with --fix" in report  # the two REP005 repeats of sales.yaml
    fixed = invoke("check", "--fix", ".")
    assert refusal in fixed.stderr and "fixed 2 finding(s) in 1 file(s)" in fixed.stderr
    assert diff.exit_code == fixed.exit_code == 2


def test_check_does_not_mark_a_finding_of_a_read_only_file_fixable(estate):
    store = place(estate, "dup001", STORE)
    assert "DUP001 [error] [*]" in invoke("check", STORE).stdout
    os.chmod(store, 0o444)
    text = invoke("check", STORE).stdout
    assert "DUP001 [error] Track" in text and "fixable with --fix" not in text


# -- what "fixed N" counts -------------------------------------------------------------------------

def misspelt(estate: Path) -> None:
    """Three misspelt names (EXL005) whose renames reveal three misprints (DUP001, STS003 twice)."""
    store = estate / STORE
    store.write_text(store.read_text().replace(
        "    Track Duplicates (in hours): 24",
        "    Track Duplicates (in hour): 5000\n"
        "    Replication Send Status Timout: 84600\n"
        "    Replication Send Status Alignmnet: 42300"))


def test_fix_counts_only_the_findings_that_were_reported(estate):
    misspelt(estate)
    assert [f["rule"] for f in findings(".")] == ["EXL005"] * 3
    diff = invoke("check", "--diff", "--unsafe-fixes", ".")
    assert "--fix would fix 3 finding(s) in 1 file(s)" in diff.stderr
    result = invoke("check", "--fix", "--unsafe-fixes", ".")
    assert "exlint: fixed 3 finding(s) in 1 file(s)" in result.stderr
    assert findings(".") == []


def test_a_safe_fix_can_bring_up_the_finding_its_value_kept_out_of_view(estate):
    """docs/autofix.md: the DUP001 fix keeps the 24 hours in force, and DUP002 then
    says 24 is above a threshold of 12, as it was already true of Exchange."""
    place(estate, "dup001", STORE)
    (estate / ".exlint.yaml").write_text("thresholds: {DUP002: 12}\n")
    assert [f["rule"] for f in findings("--select", "DUP", STORE)] == ["DUP001"]
    assert "fixed 1 finding(s)" in invoke("check", "--fix", "--select", "DUP", STORE).stderr
    assert "Track Duplicates (in hours): 24" in (estate / STORE).read_text()
    assert [f["rule"] for f in findings("--select", "DUP", STORE)] == ["DUP002"]


# -- file names in the diff's headers -------------------------------------------------------------

@pytest.mark.parametrize("name,quoted", [
    ("a/stores/x.yaml", "a/stores/x.yaml"),
    ("a/stores/x y.yaml", "a/stores/x y.yaml"),
    ("a/stores/a\n::error file=x::forged.yaml", '"a/stores/a\\n::error file=x::forged.yaml"'),
    ('a/q"b\\c\t\x7f\x07\x1b', '"a/q\\"b\\\\c\\t\\177\\a\\033"'),
    ("a/Zürich.yaml", '"a/Z\\303\\274rich.yaml"'),
    ("a/\udcff.yaml", '"a/\\377.yaml"'),  # an undecodable byte of the name, as Python holds it
])
def test_names_are_quoted_as_git_quotes_them(name, quoted):
    assert quote_path(name) == quoted


def test_a_name_holding_a_line_break_forges_no_line_and_git_applies_the_diff(estate, tmp_path):
    name = "stores/a\n::error file=x::forged.yaml"
    text = (estate / "stores" / "pfdb-ex03-par-01.yaml").read_text()
    (estate / "stores" / "pfdb-ex03-par-01.yaml").unlink()
    (estate / name).write_text(text.replace("Track Duplicates (in hours): 24", "Track Duplicates (in hours): 5000"))
    result = invoke("check", "--diff", ".")
    assert "Track Duplicates (in hours): 24" in result.stdout
    assert not any(line.startswith("::") for line in result.stdout.splitlines())
    assert result.stdout.startswith('--- "a/stores/a\\n::error file=x::forged.yaml"\n'
                                    '+++ "b/stores/a\\n::error file=x::forged.yaml"\n')
    if shutil.which("git") is None:
        return
    applied = subprocess.run(["git", "apply", "--check", "-"], input=result.stdout, text=True, cwd=estate,
                             capture_output=True)
    assert applied.returncode == 0, applied.stderr


def test_a_plain_name_is_unchanged():
    assert unified_diff("stores/x.yaml", "a: 1\n", "a: 2\n").startswith("--- a/stores/x.yaml\n+++ b/stores/x.yaml\n")
