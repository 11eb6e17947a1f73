"""Line numbers as git counts them. YAML 1.1 (and str.splitlines) also ends a
line at a lone CR, NEL (U+0085), LS (U+2028) and PS (U+2029); git, GitHub's
annotations, editors' diff views and exlint's own --diff do not. A finding
after such a character must name the line the user sees
(linter.loading.text.git_positions)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.loading import load_text
from test_fix import estate  # noqa: F401 - the fixture: a copy of the sample estate, as the working directory

STORE = "stores/engarch-ex03-lon-01.yaml"
SETTING = "    Track Duplicates (in hours): 24\n"


def dup001(estate: Path, text: str) -> list[dict]:
    (estate / STORE).write_bytes(text.encode("utf-8"))
    result = CliRunner().invoke(cli, ["check", "--format", "sarif", "."])
    assert result.exit_code == 1, result.output
    found = [r for r in json.loads(result.stdout)["runs"][0]["results"] if r["ruleId"] == "DUP001"]
    assert len(found) == 1, found
    return found


@pytest.mark.parametrize("odd", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_inside_a_quoted_value_does_not_shift_later_findings(estate, odd):
    text = (estate / STORE).read_text()
    text = text.replace("  labels: {owner: messaging-emea,", f'  labels: {{note: "a{odd}b", owner: messaging-emea,')
    text = text.replace(SETTING, "    Track Duplicates (in hours): 5000\n")
    region = dup001(estate, text)[0]["locations"][0]["physicalLocation"]["region"]
    lines = text.split("\n")
    assert lines[region["startLine"] - 1].startswith("    Track Duplicates (in hours): 5000")
    assert region["snippet"]["text"] == "    Track Duplicates (in hours): 5000"


def test_a_file_with_lone_carriage_returns_is_one_line_as_git_sees_it(estate):
    text = (estate / STORE).read_text().replace(SETTING, "    Track Duplicates (in hours): 5000\n")
    text = text.replace("\n", "\r")
    region = dup001(estate, text)[0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 1
    assert text[region["startColumn"] - 1:].startswith("5000")


def test_a_suppression_after_a_line_separator_still_applies(estate):
    text = (estate / STORE).read_text()
    text = text.replace("  labels: {owner: messaging-emea,", '  labels: {note: "a\u2028b", owner: messaging-emea,')
    text = text.replace(SETTING, "    Track Duplicates (in hours): 5000  # exlint: disable=DUP001 reason=\"CHG-1\"\n")
    (estate / STORE).write_bytes(text.encode("utf-8"))
    result = CliRunner().invoke(cli, ["check", "--format", "json", "."])
    assert [f for f in json.loads(result.stdout)["findings"] if f["rule"] in ("DUP001", "EXL010")] == []


def test_a_duplicate_key_names_the_first_line_as_git_counts_it():
    text = 'apiVersion: exlint/v1\nkind: Server\nmetadata: {name: "a\u2028b"}\nspec:\n  site: X\n  site: Y\n'
    finding = load_text(text, "f.yaml").findings[0]
    assert (finding.rule, finding.line, finding.column) == ("EXL002", 6, 3)
    assert "first written on line 5" in finding.message
