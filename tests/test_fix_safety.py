"""Safe and unsafe fixes (as ruff has them): `--fix` applies only the fixes that
keep what Exchange does today, `--unsafe-fixes` the others too; the text report
marks what `--fix` would fix with [*] and counts both kinds."""
from __future__ import annotations


import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.fixing.spec import FixSpecError, parse_fix
from linter.policy.packs import load_rules

from test_fix import estate, place  # noqa: F401 - the sample estate as the working directory

RULES = load_rules()


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def test_every_builtin_fix_declares_its_safety():
    for rule in RULES.values():
        if rule.fixable:
            assert rule.fix.get("safety") in ("safe", "unsafe"), rule.id


@pytest.mark.parametrize("rule,safety", [("DUP001", "safe"), ("BKF001", "unsafe"), ("REP005", "safe"),
                                         ("SHD001", "safe"), ("STS003", "unsafe"), ("EXL005", "unsafe")])
def test_declared_safety(rule, safety):
    assert parse_fix(RULES[rule].fix).safety == safety


def test_unknown_safety_is_a_pack_error():
    with pytest.raises(FixSpecError, match="safety"):
        parse_fix({"delete": True, "safety": "maybe"})
    assert parse_fix({"delete": True}).safety == "unsafe"  # undeclared: never applied by --fix alone


def test_fix_applies_safe_fixes_only(estate):
    store = place(estate, "bkf001", "stores/pfdb-ex03-nyc-01.yaml")
    before = store.read_bytes()
    report = invoke("check", "stores/pfdb-ex03-nyc-01.yaml")
    assert "BKF001 [warning] Preferred" in report.stdout and "[*]" not in report.stdout
    assert report.stdout.rstrip().endswith("0 fixable with --fix (1 more with --unsafe-fixes)")
    result = invoke("check", "--fix", "stores/pfdb-ex03-nyc-01.yaml")
    assert "fixed 0 finding(s) in 0 file(s)" in result.stderr
    assert store.read_bytes() == before
    result = invoke("check", "--fix", "--unsafe-fixes", "stores/pfdb-ex03-nyc-01.yaml")
    assert "fixed 1 finding(s) in 1 file(s)" in result.stderr
    assert b"Preferred Backfill Source" not in store.read_bytes()


def test_dup001_safe_fix_writes_the_window_in_force(estate):
    store = place(estate, "dup001", "stores/pfdb-ex03-lon-01.yaml")
    report = invoke("check", "stores/pfdb-ex03-lon-01.yaml")
    assert "DUP001 [error] [*] Track Duplicates" in report.stdout
    assert report.stdout.rstrip().endswith("\n1 fixable with --fix")
    invoke("check", "--fix", "stores/pfdb-ex03-lon-01.yaml")
    assert b"Track Duplicates (in hours): 24 " in store.read_bytes()
    after = invoke("check", "--format", "json", "--fail-on", "never", "stores/pfdb-ex03-lon-01.yaml").stdout
    assert "DUP001" not in after and "DUP002" not in after  # the old 1176 clamp tripped DUP002


def test_clean_files_show_no_fix_line(estate):
    assert "fixable" not in invoke("check", "stores").stdout


def test_unsafe_fixes_needs_fix_or_diff(estate):
    result = invoke("check", "--unsafe-fixes", "stores")
    assert result.exit_code == 2
    assert "--unsafe-fixes applies with --fix or --diff" in result.output


def test_diff_shows_unsafe_fixes_only_when_asked(estate):
    place(estate, "bkf001", "stores/pfdb-ex03-nyc-01.yaml")
    assert invoke("check", "--diff", "stores/pfdb-ex03-nyc-01.yaml").stdout == ""
    assert "-    Preferred Backfill Source" in invoke("check", "--diff", "--unsafe-fixes",
                                                      "stores/pfdb-ex03-nyc-01.yaml").stdout


@pytest.mark.parametrize("command", ["rules", "explain"])
def test_rules_and_explain_show_fix_safety(command):
    if command == "rules":
        out = invoke("rules").stdout
        rows = {line.split()[0]: line for line in out.splitlines()[1:]}
        assert rows["DUP001"].split()[2] == "safe" and rows["BKF001"].split()[2] == "unsafe"
        assert rows["HIE001"].split()[2] != "safe"
    else:
        assert "Fix: safe fix (--fix)" in invoke("explain", "DUP001").stdout
        assert "Fix: unsafe fix (--unsafe-fixes)" in invoke("explain", "BKF001").stdout
        assert "Fix: no fix" in invoke("explain", "HIE001").stdout


def test_a_link_out_of_the_repository_is_not_fixed_for_that_reason(estate, tmp_path):
    # it said "the file has a YAML syntax error (line 1)" of a link it never read
    outside = tmp_path / "outside.yaml"
    outside.write_text((estate / "stores" / "pfdb-ex03-nyc-01.yaml").read_text())
    (estate / "stores" / "linked.yaml").symlink_to(outside)
    result = invoke("check", "--fix", ".")
    said = [line for line in result.stderr.splitlines() if "linked.yaml" in line]
    assert said and "syntax error" not in said[0] and "outside the repository" in said[0], result.stderr


def test_a_finding_in_a_document_fix_leaves_alone_is_not_marked_fixable(estate):
    # DUP001 in a document using an alias was marked [*] and counted as fixable, then refused
    store = estate / "stores" / "aliased.yaml"
    store.write_text("apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-ALIAS}\nspec:\n"
                     "  server: EX03-NYC-01\n  hierarchy: Public Folders\n  registry:\n"
                     "    Track Duplicates (in hours): &td 5000\n    Background Cleanup (in msecs): *td\n")
    report = invoke("check", "stores/aliased.yaml")
    line = next(line for line in report.stdout.splitlines() if "DUP001" in line)
    assert "[*]" not in line and "fixable with --fix" not in report.stdout.replace("0 fixable with --fix", ""), \
        report.stdout
    result = invoke("check", "--fix", "stores/aliased.yaml")
    assert "anchors, aliases or merge keys" in result.stderr


STALE_SUPPRESSION = ("apiVersion: exlint/v1\nkind: PublicFolder\nmetadata: {name: /Projects/Suppressed}\nspec:\n"
                     "  hierarchy: Public Folders\n  replicas:\n    - PFDB-EX03-NYC-01\n"
                     "    # exlint: disable=REP001 reason=\"store being built\"\n"
                     "    - PFDB-EX03-NYC-01\n    - PFDB-NOT-BUILT\n")


def test_a_fix_never_hands_a_suppression_to_another_line(estate):
    # deleting the duplicate under the comment made it silence the next entry's REP001 error:
    # the error was hidden, unfixed, and the gate went green
    folder = estate / "folders" / "suppressed.yaml"
    folder.write_text(STALE_SUPPRESSION)
    before = invoke("check", "folders/suppressed.yaml")
    assert "[*]" not in before.stdout and "REP005" in before.stdout, before.stdout  # not offered: --fix refuses it
    result = invoke("check", "--fix", ".")
    assert folder.read_text() == STALE_SUPPRESSION
    assert "suppression comment on line 8" in result.stderr and result.exit_code == 1, result.stderr
    assert "REP001" in invoke("check", "folders/suppressed.yaml").stdout


def test_a_fix_that_leaves_every_suppression_on_its_line_is_made(estate):
    # the same duplicate, the comment on the line it silences: the other duplicate goes
    folder = estate / "folders" / "suppressed.yaml"
    folder.write_text(STALE_SUPPRESSION.replace("    # exlint: disable=REP001 reason=\"store being built\"\n", "")
                      .replace("    - PFDB-NOT-BUILT\n",
                               "    - PFDB-NOT-BUILT  # exlint: disable=REP001 reason=\"store being built\"\n"))
    invoke("check", "--fix", ".")
    text = folder.read_text()
    assert text.count("PFDB-EX03-NYC-01") == 1 and "PFDB-NOT-BUILT  # exlint: disable=REP001" in text, text
    assert "REP001" not in invoke("check", "folders/suppressed.yaml").stdout


def test_a_fix_below_an_own_line_suppression_is_made(estate):
    # the comment's line is kept and so is the line after it: nothing moves
    folder = estate / "folders" / "suppressed.yaml"
    folder.write_text(STALE_SUPPRESSION.replace("    - PFDB-EX03-NYC-01\n    - PFDB-NOT-BUILT\n",
                                                "    - PFDB-NOT-BUILT\n    - PFDB-EX03-NYC-01\n"))
    invoke("check", "--fix", ".")
    text = folder.read_text()
    assert text.endswith("# exlint: disable=REP001 reason=\"store being built\"\n    - PFDB-NOT-BUILT\n"), text
    assert "REP001" not in invoke("check", "folders/suppressed.yaml").stdout
