"""`exlint check` on a JSON Lines file reads a document per line, as the estate
job does (linter/loading/jsonl.py serves both): a bad line is a finding at its
line, the other lines are linted, and --fix leaves the file as it is."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli
from linter.generate.core import Settings, generate

GOOD = '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-A"}, "spec": {"version": "2010"}}'


def _check(*args):
    done = CliRunner().invoke(cli, ["check", *map(str, args), "--format", "json"])
    assert done.exit_code in (0, 1), done.output
    return json.loads(done.stdout)["findings"]


def test_each_line_is_a_document_and_a_bad_line_a_finding_at_its_line(tmp_path):
    path = tmp_path / "inventory.jsonl"
    lines = [GOOD.encode(), b"", b"not json", b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-\xff"}}',
             GOOD.encode(), b'["a", "list"]']
    path.write_bytes(b"\n".join(lines) + b"\n")
    findings = _check(path)
    by_line = {}
    for finding in findings:
        by_line.setdefault(finding["line"], set()).add(finding["rule"])
    assert "EXL001" in by_line[3]  # not JSON, at its own line (a YAML reader stopped at line 2)
    assert "EXL001" in by_line[4]  # invalid UTF-8
    assert "EXL003" in by_line[6]  # a list, not a document
    messages = " ".join(f["message"] for f in findings)
    assert "YAML" not in messages
    # lines 1 and 5 are both read: two Servers named EX-A, each reported at its line
    assert "EXL006" in by_line[1] and "EXL006" in by_line[5]


def test_generated_inventory_is_linted_and_not_fixed_in_place(tmp_path):
    path = tmp_path / "estate.jsonl"
    generate(Settings(servers=20, seed=5, defect_rate=0.3, format="jsonl", output=str(path)))
    findings = _check(path)
    rules = {f["rule"] for f in findings}
    assert len(findings) > 20 and {"REP001", "RTE005"} <= rules
    assert not [f for f in findings if f["rule"] == "EXL001"]
    before = path.read_bytes()
    done = CliRunner().invoke(cli, ["check", str(path), "--fix"])
    assert "JSON Lines files are not edited in place" in done.output
    assert path.read_bytes() == before


def test_the_json_decoders_terse_messages_say_what_to_do(tmp_path):
    from linter.loading.jsonl import json_document

    cases = {'{"a": 1} {"b": 2}': "more text after the end of the document",
             '{"a": }': "a value was expected here",
             "{'a': 1}": "a key in double quotes was expected here"}
    for text, expected in cases.items():
        document, findings = json_document(text, "x.jsonl", 0, 3)
        assert document is None and len(findings) == 1
        assert findings[0].line == 3 and expected in findings[0].message, findings[0].message


def utf16_inventory(tmp_path, codec: str = "utf-16") -> Path:
    # what Windows PowerShell 5.1's Out-File writes: UTF-16 with a byte-order mark, CRLF
    path = tmp_path / "inventory.jsonl"
    bad = '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-Ω"}, "spec": {"version": 5}}'
    path.write_bytes((GOOD + "\r\n" + bad + "\r\n" + GOOD + "\r\n").encode(codec))
    if codec != "utf-16":
        path.write_bytes((b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff") + path.read_bytes())
    return path


def test_a_utf16_json_lines_file_is_read_as_its_utf8_twin(tmp_path):
    # it was one "invalid UTF-8" or "NUL byte" error per line
    for codec in ("utf-16-le", "utf-16-be"):
        twin = tmp_path / codec / "twin.jsonl"
        twin.parent.mkdir()
        inventory = utf16_inventory(twin.parent, codec)
        twin.write_bytes(inventory.read_bytes().decode("utf-16").encode())
        placed = [(f["rule"], f["line"], f["column"], f["message"]) for f in _check(inventory)]
        assert placed == [(f["rule"], f["line"], f["column"], f["message"]) for f in _check(twin)]
        assert {rule for rule, *_ in placed} >= {"EXL003", "EXL006"} and "EXL001" not in {r for r, *_ in placed}


def test_a_file_with_a_utf16_mark_that_is_not_utf16_is_one_finding(tmp_path):
    path = tmp_path / "inventory.jsonl"
    path.write_bytes(b"\xff\xfe" + GOOD.encode("utf-16-le") + b"\x00")  # an odd byte at the end
    [finding] = _check(path)
    assert finding["rule"] == "EXL001" and finding["line"] == 1 and "invalid UTF-16" in finding["message"]
