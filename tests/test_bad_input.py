"""Hostile and broken input: every case is a positioned finding or a clear
error, never a traceback, and the rest of the input is still linted."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

CORPUS = Path(__file__).parent / "corpus" / "bad-input"
STRUCTURAL = "EXL001,EXL002,EXL003,EXL004,EXL005"

# file -> expected (rule, line) findings, and the number of documents linted
EXPECTED = {
    "syntax-error.yaml": ({("EXL001", 8)}, 0),
    "duplicate-key.yaml": ({("EXL002", 7)}, 1),
    "wrong-type.yaml": ({("EXL003", 5)}, 1),
    "unknown-apiversion.yaml": ({("EXL004", 1)}, 1),
    "unknown-kind.yaml": ({("EXL004", 2)}, 1),
    "null-apiversion-kind.yaml": ({("EXL004", 2), ("EXL004", 8)}, 2),
    "empty.yaml": (set(), 0),
    "comment-only.yaml": (set(), 0),
    "python-tag.yaml": ({("EXL001", 4)}, 0),
    "invalid-utf8.yaml": ({("EXL001", 4)}, 0),
    "bom.yaml": ({("EXL003", 6)}, 1),
    "crlf.yaml": ({("EXL003", 6)}, 1),
    "nul-byte.yaml": ({("EXL001", 6)}, 0),
    "broken-middle.yaml": ({("EXL001", 9), ("EXL003", 14)}, 2),
    "not-a-mapping.yaml": ({("EXL003", 1)}, 1),
    "huge-integer.yaml": ({("EXL003", 4)}, 1),
    "flow-then-junk.yaml": ({("EXL001", 6)}, 2),
}


def run_json(*args):
    result = CliRunner().invoke(cli, ["check", "--format", "json", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip().startswith("{") else None


def test_corpus_covers_every_file():
    assert set(EXPECTED) == {p.name for p in CORPUS.iterdir()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_input_gives_positioned_findings(name):
    expected, documents = EXPECTED[name]
    code, report = run_json("--select", STRUCTURAL, CORPUS / name)
    got = {(f["rule"], f["line"]) for f in report["findings"]}
    assert got == expected
    assert report["summary"]["documents"] == documents
    for finding in report["findings"]:
        assert finding["file"].endswith(name) and finding["column"] >= 1
    assert code == (1 if expected else 0)


def test_a_null_apiversion_or_kind_is_said_to_be_empty_not_missing():
    _, report = run_json("--select", STRUCTURAL, CORPUS / "null-apiversion-kind.yaml")
    messages = {f["line"]: f["message"] for f in report["findings"]}
    assert messages[2].startswith("apiVersion is empty (null)") and "missing" not in messages[2]
    assert messages[8].startswith("kind is empty (null)") and "missing" not in messages[8]


def test_crlf_and_bom_positions_match_an_lf_file():
    _, crlf = run_json("--select", STRUCTURAL, CORPUS / "crlf.yaml")
    assert crlf["findings"][0]["column"] == 16


def test_whole_corpus_in_one_run_has_no_traceback():
    process = subprocess.run([sys.executable, "-m", "linter", "check", str(CORPUS)],
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 1
    assert "Traceback" not in process.stdout + process.stderr


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_alias_bomb_is_refused_quickly(tmp_path):
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        refs = ",".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    path = _write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n")
    code, report = run_json(path)
    assert code == 1
    assert [f["rule"] for f in report["findings"]] == ["EXL001"]
    assert "billion laughs" in report["findings"][0]["message"]


def test_deep_nesting(tmp_path):
    path = _write(tmp_path, "deep.yaml", "a: " + "[" * 5000 + "]" * 5000 + "\n")
    code, report = run_json(path)
    assert code == 1
    assert report["findings"][0]["rule"] == "EXL001" and "nesting" in report["findings"][0]["message"]


def test_deep_block_nesting(tmp_path):
    text = "".join(" " * i + f"k{i}:\n" for i in range(5000)) + " " * 5000 + "v\n"
    code, report = run_json(_write(tmp_path, "deep-block.yaml", text))
    assert code == 1 and report["findings"][0]["rule"] == "EXL001"


def test_very_long_line(tmp_path):
    text = ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX-LONG}\n"
            "spec: {version: '2010', site: '" + "x" * 2_000_000 + "', bogus: 1}\n")
    code, report = run_json("--select", STRUCTURAL, _write(tmp_path, "long.yaml", text))
    assert code == 1
    assert {(f["rule"], f["line"]) for f in report["findings"]} == {("EXL003", 4)}


def test_binary_file_passed_by_mistake(tmp_path):
    data = bytes(range(256)) * 64
    code, report = run_json(_write(tmp_path, "image.yaml", data))
    assert code == 1 and report["findings"][0]["rule"] == "EXL001"


def test_utf16_with_bom_is_read(tmp_path):
    text = "apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX-16}\nspec: {version: '2010', oops: 1}\n"
    path = _write(tmp_path, "utf16.yaml", b"\xff\xfe" + text.encode("utf-16-le"))
    code, report = run_json("--select", STRUCTURAL, path)
    assert {(f["rule"], f["line"]) for f in report["findings"]} == {("EXL003", 4)}


def test_missing_path_is_exit_2_with_the_path(tmp_path):
    missing = tmp_path / "gone.yaml"
    result = CliRunner().invoke(cli, ["check", str(missing)])
    assert result.exit_code == 2
    assert str(missing) in result.stderr and "Traceback" not in result.output


def test_dangling_symlink_is_exit_2(tmp_path):
    link = tmp_path / "link.yaml"
    os.symlink(tmp_path / "nowhere.yaml", link)
    result = CliRunner().invoke(cli, ["check", str(link)])
    assert result.exit_code == 2
    assert "link.yaml" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_exit_2(tmp_path):
    path = _write(tmp_path, "secret.yaml", "a: 1\n")
    path.chmod(0)
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 2 and "secret.yaml" in result.stderr


def test_directory_as_file_argument_is_walked(tmp_path):
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", "a.yml", "# nothing\n")
    code, report = run_json(tmp_path)
    assert code == 0 and report["summary"]["files"] == 1


@pytest.mark.parametrize("text, position, words", [
    # libyaml's messages name neither the character nor the alias: the finding does, with the fix
    ("apiVersion: exlint/v1\nkind: Server\nmetadata:\n\tname: X\n", (4, 1), ("a tab character", "spaces")),
    ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: *srv}\n", (3, 18), ("*srv", "&srv", "define the anchor")),
    ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: @x}\n", (3, 18), ("'@'", "quotes")),
    # an unclosed quote: where it opens, not the end of the file
    ('apiVersion: exlint/v1\nkind: Server\nmetadata: {name: "EX10\nspec: {}\n', (3, 18), ("never closed",)),
    # a flow list or mapping the document ends inside: where it opens, not the line after it
    ("apiVersion: exlint/v1\nkind: PublicFolder\nmetadata: {name: /M}\nspec:\n  replicas: [PFDB-A, PFDB-C\n"
     "---\nkind: Server\n", (5, 13), ("flow list ('[')", "never closed", "close it with ']'")),
    ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX01\n", (3, 11), ("flow mapping ('{')", "'}'")),
    # one the parser stops inside, not at the document's end: where it stopped, as libyaml says
    ("a: [1, 2\nb: 3\n", (2, 2), ("did not find expected ',' or ']'",)),
], ids=["tab", "undefined-alias", "reserved-character", "unclosed-quote", "unclosed-list", "unclosed-mapping",
        "list-broken-inside"])
def test_a_yaml_error_names_what_is_wrong_where_and_the_fix(tmp_path, text, position, words):
    from linter.loading import load_text

    finding = next(f for f in load_text(text, "x.yaml").findings if f.rule == "EXL001")
    assert (finding.line, finding.column) == position, finding
    for word in words:
        assert word in finding.message, finding.message


def test_a_broken_documents_name_is_placed_as_git_numbers_lines():
    # a lone CR is a line break to YAML, not to git: the partly read document's positions are
    # renumbered as every other document's (GitHub annotations and --diff count git's lines)
    from linter.loading import load_text

    text = "# a\r# b\napiVersion: exlint/v1\nkind: Server\nmetadata: {name: A}\nspec: {version: [\n"
    partial = load_text(text, "x.yaml").partial[0]
    assert partial.marks["metadata.name"] == (4, 18)
    assert (partial.line, partial.column) == (2, 1)


def test_a_document_with_neither_apiversion_nor_kind_is_one_finding_naming_both(tmp_path):
    # beside an exlint document in the same file: the file is exlint's, the stray document is one problem
    (tmp_path / "mixed.yaml").write_text("apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: Contoso}\n"
                                         "---\nmetadata: {name: Stray}\nspec: {}\n")
    _, report = run_json("--select", "EXL004", tmp_path / "mixed.yaml")
    [finding] = report["findings"]
    assert finding["line"] == 5 and finding["message"].startswith("missing apiVersion and kind")
    assert "apiVersion: exlint/v1" in finding["message"]


@pytest.mark.parametrize("text", [
    # a flow mapping read whole, then junk on its line: the document once, and the junk
    "apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: C}\nspec: {}\n---\n"
    "{kind: Server, apiVersion: exlint/v1, metadata: {name: EX10-B}, spec: {version: 2010}} trailing\n",
    # JSON Lines saved as .yaml: the first line is a document, the second breaks the file
    '{"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "C"}, "spec": {}}\n'
    '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-A"}, "spec": {}}\n',
])
def test_a_document_read_whole_before_a_syntax_error_is_counted_once(tmp_path, text):
    # it was also read again as the broken document's partial: "2 Server documents are named
    # EX10-B", "the estate has 2 Organization documents"
    (tmp_path / "one.yaml").write_text(text)
    _, report = run_json("--select", "EXL", tmp_path / "one.yaml")
    assert [f["rule"] for f in report["findings"]] == ["EXL001"], report["findings"]


def test_a_value_under_a_duplicated_key_is_placed_in_the_value_in_force(tmp_path):
    # YAML keeps the last `replicas`; REP005 pointed into the first list (line 6), which has no such store
    import shutil

    shutil.copytree(Path(__file__).parent.parent / "samples" / "estate", tmp_path / "estate")
    folder = tmp_path / "estate" / "folders" / "twice.yaml"
    folder.write_text(
        "apiVersion: exlint/v1\nkind: PublicFolder\nmetadata: {name: /H1}\nspec:\n  hierarchy: Engineering Archive\n"
        "  replicas: [ENGARCH-EX03-LON-01, ENGARCH-EX03-LON-01]\n"
        "  replicas: [ENGARCH-EX03-PAR-01, ENGARCH-EX03-PAR-01, ENGARCH-EX03-LON-01]\n")
    _, report = run_json("--select", "REP005,EXL002", folder)
    placed = {(f["rule"], f["line"], f["column"]) for f in report["findings"]}
    assert placed == {("EXL002", 7, 3), ("REP005", 7, 35)}, report["findings"]


def test_a_duplicate_key_in_a_list_item_has_the_path_every_finding_writes():
    # the JSON contract's path: list indices in brackets (spec.receiveConnectors[0].x), as
    # CON002 writes the same value's; EXL002 wrote spec.receiveConnectors.0.x
    from linter.loading import load_text

    text = ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX1}\nspec:\n  receiveConnectors:\n"
            "    - {name: R, ConnectionTimeout: '00:10:00', ConnectionTimeout: '00:20:00'}\n")
    found = [f for f in load_text(text, "x.yaml").findings if f.rule == "EXL002"]
    assert [f.path for f in found] == ["spec.receiveConnectors[0].ConnectionTimeout"], found


ORGANIZATION_HEAD = ("apiVersion: exlint/v1\nkind: Organization\nmetadata:\n  name: contoso\nspec:\n"
                     "  sites:\n    - {name: London}\n")


@pytest.mark.parametrize("tail, words", [
    ("  transportConfig:\n    SafetyNetHoldTime: !duration 2.00:00:00\n", "unsupported tag '!duration'"),
    ("  transportConfig:\n    x: " + "[" * 80 + "]" * 80 + "\n", "nesting deeper than"),
    ("  transportConfig: {x: 1\n", "YAML syntax error"),
], ids=["tag", "too-deep", "syntax"])
def test_a_broken_organization_is_its_one_finding_not_also_no_organization(tmp_path, tail, words):
    # what the broken document says of itself (kind and name, before the error) is kept as
    # for a syntax error: EXL008 said "add an Organization" beside the EXL001 of the one there
    (tmp_path / ".exlint.yaml").write_text("")
    (tmp_path / "org.yaml").write_text(ORGANIZATION_HEAD + tail)
    (tmp_path / "server.yaml").write_text("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX1}\n"
                                          "spec: {version: '2010', site: London, roles: [Mailbox]}\n")
    _, report = run_json(tmp_path)
    rules = [f["rule"] for f in report["findings"]]
    assert "EXL001" in rules and "EXL008" not in rules, report["findings"]
    assert words in next(f["message"] for f in report["findings"] if f["rule"] == "EXL001")
