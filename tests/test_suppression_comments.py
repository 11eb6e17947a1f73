"""An inline suppression is a YAML comment: the same text inside a value (a block
scalar's lines, a quoted string spanning lines) is data and silences nothing."""
from __future__ import annotations

from test_cli import STORE, report, repo, write  # noqa: F401 - repo is a fixture

from linter.suppressions import parse_suppressions


def test_a_suppression_inside_a_block_scalar_silences_nothing(repo):  # noqa: F811
    bad = STORE.format(name="PFDB-A", server="EX10-NOPE")
    noted = bad.replace("metadata: {name: PFDB-A}", "metadata:\n  name: PFDB-A\n  labels:\n    note: |\n"
                        "      # exlint: disable-file=EXL007 reason=\"data\"\n", 1)
    assert "labels:" in noted
    write(repo / "stores" / "a.yaml", noted)
    code, data = report(repo)
    assert code == 1 and "EXL007" in {f["rule"] for f in data["findings"]}
    # the same text as a comment silences it
    write(repo / "stores" / "a.yaml", "# exlint: disable-file=EXL007 reason=\"CHG-3\"\n" + bad)
    assert report(repo)[0] == 0


def test_only_comments_are_suppressions_wherever_values_span_lines():
    text = ("\ufeffa: ünïcødé # exlint: disable=A1\n"
            "b: |\n  # exlint: disable-file=B1\n  more\n"
            "c: 'x # exlint: disable=C1'\n"
            "# exlint: disable=D1\n"
            "d: 1 # exlint: disable=E1\n"
            "e: \"q\n  # exlint: disable=F1\"\n"
            "f: plain#exlint: disable=G1\n")
    found = {s.rules[0]: (s.line, s.column, s.applies_to) for s in parse_suppressions("f.yaml", text)}
    assert found == {"A1": (1, 13, 1), "D1": (6, 1, 7), "E1": (7, 6, 7)}


def test_a_file_the_scanner_cannot_finish_keeps_its_comments():
    # past a syntax error nothing is known to be a value: a comment there still counts
    text = "a: [1,\n# exlint: disable=Q1\nb: {\n"
    assert [(s.line, s.rules) for s in parse_suppressions("f.yaml", text)] == [(2, ("Q1",))]


def test_a_comment_to_exlint_that_is_not_a_suppression_is_reported(repo):  # noqa: F811
    bad = STORE.format(name="PFDB-A", server="EX10-NOPE")
    for comment in ("# exlint: disable EXL007", "# exlint: disable=EXL007 because=\"x\"", "#exlint : off"):
        write(repo / "stores" / "a.yaml", bad.replace("server: EX10-NOPE", f"server: EX10-NOPE  {comment}"))
        code, data = report(repo)
        found = sorted((f["rule"], f["line"]) for f in data["findings"] if f["rule"] in ("EXL007", "EXL010"))
        assert code == 1 and found == [("EXL007", 5), ("EXL010", 5)], (comment, found)
        assert "not understood" in next(f["message"] for f in data["findings"] if f["rule"] == "EXL010")


def test_a_suppression_in_capitals_or_with_a_single_quoted_reason_silences(repo):  # noqa: F811
    bad = STORE.format(name="PFDB-A", server="EX10-NOPE")
    for comment in ("# EXLINT: DISABLE=exl007 reason=\"CHG-4\"", "# exlint: disable=EXL007 reason='CHG-5'"):
        write(repo / "stores" / "a.yaml", bad.replace("server: EX10-NOPE", f"server: EX10-NOPE  {comment}"))
        code, data = report(repo)
        assert not [f for f in data["findings"] if f["rule"] in ("EXL007", "EXL010")], (comment, data["findings"])


def test_a_comment_to_exlint_inside_a_value_is_data():
    text = "a: 'x # exlint: disable STS004'\nb: |\n  # exlint: nonsense\n"
    assert parse_suppressions("f.yaml", text) == []


def test_a_suppression_of_a_rule_not_selected_is_not_unused(repo):  # noqa: F811
    # `--select EXL0,REP` or `--ignore EXL007` did not run EXL007: its suppression was not
    # "unused", and following that advice brought the finding back in a full run
    bad = STORE.format(name="PFDB-A", server="EX10-NOPE")
    write(repo / "stores" / "a.yaml", bad.replace("server: EX10-NOPE", "server: EX10-NOPE  # exlint: disable=EXL007 reason=\"CHG-6\""))
    for narrowed in (("--select", "REP"), ("--ignore", "EXL007"), ("--select", "EXL00")):
        code, data = report(repo, *narrowed)
        assert not [f for f in data["findings"] if f["rule"] == "EXL010"], (narrowed, data["findings"])
    # a rule that ran and raised nothing there: unused
    write(repo / "stores" / "a.yaml", bad.replace("server: EX10-NOPE", "server: EX10-A  # exlint: disable=EXL007 reason=\"CHG-6\""))
    code, data = report(repo, "--select", "EXL")
    assert [f["rule"] for f in data["findings"] if f["rule"] == "EXL010"] == ["EXL010"]


def test_a_value_through_an_alias_is_placed_where_the_alias_is_written(repo):  # noqa: F811
    # the finding was placed at the anchor's line, so a suppression on the alias's line was
    # "unused" and the finding stayed; a merge key's values are placed at the `<<`
    store = STORE.format(name="PFDB-A", server="EX10-A") + (
        "  replication: &base\n    Replication Message Size Limit: 1KB\n"
        "  registry:\n    Track Duplicates (in hours): &td 5000\n"
        "    Background Cleanup (in msecs): *td\n    <<: *base\n")
    write(repo / "stores" / "a.yaml", store)
    code, data = report(repo, "--select", "DUP004,EXL005,STS005")
    lines = store.splitlines()
    placed = {f["rule"]: lines[f["line"] - 1].strip() for f in data["findings"]}
    assert placed == {"DUP004": "Background Cleanup (in msecs): *td", "EXL005": "<<: *base",
                      "STS005": "Replication Message Size Limit: 1KB"}, placed
    write(repo / "stores" / "a.yaml", store.replace("msecs): *td", "msecs): *td  # exlint: disable=DUP004 reason=\"x\""))
    code, data = report(repo, "--select", "DUP004,EXL010")
    assert data["findings"] == [], data["findings"]
