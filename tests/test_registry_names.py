"""Registry value names in another case. Windows reads registry value names
case-insensitively, so Exchange applies ``track duplicates (in hours)`` as
``Track Duplicates (in hours)``: the rules must judge it (a DUP001 lost there
passed CI), and EXL005 must not claim that Exchange ignores it."""
from __future__ import annotations

import json

from click.testing import CliRunner

from linter.cli import cli
from test_fix import estate  # noqa: F401 - the fixture: a copy of the sample estate, as the working directory
from test_line_breaks import SETTING, STORE


def findings(estate, setting: str) -> list[dict]:
    store = estate / STORE
    store.write_text(store.read_text().replace(SETTING, setting))
    result = CliRunner().invoke(cli, ["check", "--format", "json", "."])
    return [f for f in json.loads(result.stdout)["findings"] if f["file"] == STORE and f["path"]
            and f["path"].lower().endswith("track duplicates (in hours)")]


def test_a_registry_value_in_another_case_is_judged_where_it_is_written(estate):
    found = findings(estate, "    track duplicates (in hours): 5000\n")
    assert sorted(f["rule"] for f in found) == ["DUP001", "EXL005"], found
    line = next(n for n, text in enumerate((estate / STORE).read_text().splitlines(), 1) if "5000" in text)
    assert {(f["rule"], f["line"]) for f in found} == {("DUP001", line), ("EXL005", line)}
    # the path is the key as written: one that a tool resolving it against the YAML finds
    assert {f["path"] for f in found} == {"spec.registry.track duplicates (in hours)"}, found
    exl005 = next(f for f in found if f["rule"] == "EXL005")
    assert "ignores" not in exl005["message"] and "only in case" in exl005["message"]


def test_a_registry_value_written_twice_in_two_cases_is_named_once_more(estate):
    found = findings(estate, "    Track Duplicates (in hours): 24\n    TRACK DUPLICATES (IN HOURS): 5000\n")
    assert [f["rule"] for f in found] == ["EXL005"] and "keep one of them" in found[0]["message"], found


def test_a_value_in_another_case_is_validated_as_its_known_name(estate):
    # the known name's type and range hold for it: text where an integer goes is an
    # EXL003 at the value as written (it was EXL005 alone, the rules standing down unsaid)
    found = findings(estate, '    track duplicates (in hours): "abc"\n')
    assert sorted(f["rule"] for f in found) == ["EXL003", "EXL005"], found
    exl003 = next(f for f in found if f["rule"] == "EXL003")
    assert exl003["path"] == "spec.registry.track duplicates (in hours)", exl003
    assert "must be an integer" in exl003["message"] and "'abc'" in exl003["message"], exl003
    line = next(n for n, text in enumerate((estate / STORE).read_text().splitlines(), 1) if "abc" in text)
    assert exl003["line"] == line and exl003["column"] > 5, exl003


def test_a_valid_value_in_another_case_gets_no_exl003(estate):
    found = findings(estate, "    TRACK DUPLICATES (IN HOURS): 24\n")
    assert [f["rule"] for f in found] == ["EXL005"], found
