"""Numbers as the user wrote them. YAML 1.1 reads a leading zero as octal
(``0170`` is 120); no one writing a registry value or a count means that, and
YAML 1.2 and PowerShell read it as decimal. exlint reads the text written, in
decimal, so no rule judges or prints a number the user never wrote."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.loading import load_text
from test_fix import estate  # noqa: F401 - the fixture: a copy of the sample estate, as the working directory
from test_line_breaks import SETTING, STORE


def value(text: str):
    loaded = load_text(f"apiVersion: exlint/v1\nkind: Server\nmetadata: {{name: X}}\nspec:\n  n: {text}\n", "f.yaml")
    assert not loaded.findings
    return loaded.documents[0].data["spec"]["n"]


@pytest.mark.parametrize("text, expected", [("0170", 170), ("02000", 2000), ("-010", -10), ("+07", 7),
                                            ("0168", 168), ("0", 0), ("00", 0), ("0x1F", 31), ("1_000", 1000), ("170", 170)])
def test_an_integer_is_read_as_written(text, expected):
    assert value(text) == expected


def test_a_leading_zero_value_is_judged_and_shown_as_written(estate):
    store = estate / STORE
    store.write_text(store.read_text().replace(SETTING, "    Track Duplicates (in hours): 02000\n"))
    result = CliRunner().invoke(cli, ["check", "--format", "json", "."])
    found = [f for f in json.loads(result.stdout)["findings"] if f["path"].endswith("Track Duplicates (in hours)")]
    assert [f["rule"] for f in found] == ["DUP001"] and "2000" in found[0]["message"], found
