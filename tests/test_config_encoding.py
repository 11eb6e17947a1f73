"""A configuration exlint cannot read is an error, never "every default": a
pyproject.toml that is not UTF-8 (TOML is UTF-8 only) or whose exlint setting
is not a table, on the configuration search path, exits 2 with one line naming
the file; `.exlint.yaml` is decoded as documents are (UTF-16 with a byte order
mark is read) and otherwise says where it breaks and to save it as UTF-8."""
from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

# SHD005 (info) fires on this Organization: whether it is reported says whether the
# configuration, which ignores it, was read
ORG = """apiVersion: exlint/v1
kind: Organization
metadata: {name: contoso}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  transportConfig: {ShadowRedundancyEnabled: false}
"""
IGNORE = '[tool.exlint]\nignore = ["SHD005"]\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "org.yaml").write_text(ORG, encoding="utf-8")
    return root


def check(repo: Path):
    result = CliRunner().invoke(cli, ["check", str(repo)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def one_line_error(result, path: Path) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "Traceback" not in result.stderr, result.stderr
    assert "codec" not in lines[0], lines[0]  # Python's words, not the fix
    return lines[0]


# -- pyproject.toml ------------------------------------------------------------------------------

@pytest.mark.parametrize("data, position, needle", [
    # a latin-1 byte in a comment: the bad byte is placed
    ((IGNORE + "# maintainer: Jos\xe9\n").encode("latin-1"), ":3:18:", "save the file as UTF-8"),
    # saved as UTF-16 by an editor
    (IGNORE.encode("utf-16"), ":1:1:", "TOML files are UTF-8; save it as UTF-8"),
    (codecs.BOM_UTF16_BE + IGNORE.encode("utf-16-be"), ":1:1:", "TOML files are UTF-8; save it as UTF-8"),
    (codecs.BOM_UTF8 + IGNORE.encode(), ":1:1:", "save it as UTF-8 without a BOM"),
], ids=["latin-1", "utf-16", "utf-16-be", "utf-8-bom"])
def test_a_pyproject_that_is_not_utf8_is_an_error_not_the_defaults(repo, data, position, needle):
    pyproject = repo / "pyproject.toml"
    pyproject.write_bytes(data)
    line = one_line_error(check(repo), pyproject)
    assert f"{pyproject}{position}" in line and needle in line, line


@pytest.mark.parametrize("text", ["[tool]\nexlint = 5\n", "tool = {exlint = 'all'}\n"], ids=["number", "string"])
def test_an_exlint_setting_that_is_not_a_table_is_found_and_refused(repo, text):
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(text, encoding="utf-8")
    line = one_line_error(check(repo), pyproject)
    assert "which is not a table" in line and "put exlint's settings under [tool.exlint]" in line, line
    assert "did you mean" not in line, line  # [tool.exlint] is no misspelling of itself


def test_an_inline_exlint_table_under_tool_is_the_configuration(repo):
    (repo / "pyproject.toml").write_text('[tool]\nexlint = {ignore = ["SHD005"]}\n', encoding="utf-8")
    result = check(repo)
    assert result.exit_code == 0 and "SHD005" not in result.output, result.output


def test_a_pyproject_naming_exlint_only_as_a_dependency_is_no_configuration(repo):
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["exlint"]\n', encoding="utf-8")
    result = check(repo)
    assert result.exit_code == 0 and "SHD005" in result.output, result.output


def test_an_undecodable_pyproject_beside_the_exlint_yaml_that_wins_is_not_read(repo):
    (repo / "pyproject.toml").write_bytes(IGNORE.encode("utf-16"))
    (repo / ".exlint.yaml").write_text("ignore: [SHD005]\n", encoding="utf-8")
    result = check(repo)
    assert result.exit_code == 0 and "SHD005" not in result.output, result.output


def test_rules_reads_the_configuration_the_same_way(repo, monkeypatch):
    pyproject = repo / "pyproject.toml"
    pyproject.write_bytes((IGNORE + "# Jos\xe9\n").encode("latin-1"))
    monkeypatch.chdir(repo)
    one_line_error(CliRunner().invoke(cli, ["rules"]), pyproject)


# -- .exlint.yaml --------------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be-bom", "utf-8-sig"])
def test_an_exlint_yaml_with_a_byte_order_mark_is_read_as_documents_are(repo, encoding):
    text = "ignore: [SHD005]\n"
    data = codecs.BOM_UTF16_BE + text.encode("utf-16-be") if encoding == "utf-16-be-bom" else text.encode(encoding)
    (repo / ".exlint.yaml").write_bytes(data)
    result = check(repo)
    assert result.exit_code == 0 and "SHD005" not in result.output, result.output


def test_a_latin1_exlint_yaml_names_the_byte_and_the_fix(repo):
    config = repo / ".exlint.yaml"
    config.write_bytes("# owner: Jos\xe9\nignore: [SHD005]\n".encode("latin-1"))
    line = one_line_error(check(repo), config)
    assert f"{config}:1:13: cannot read configuration: invalid UTF-8 (byte 0xe9); save the file as UTF-8" in line


def test_a_utf16_exlint_yaml_without_a_byte_order_mark_says_to_save_it_as_utf8(repo):
    config = repo / ".exlint.yaml"
    config.write_bytes("ignore: [SHD005]\n".encode("utf-16-le"))
    line = one_line_error(check(repo), config)
    assert f"{config}:1:2:" in line and "U+0000" in line and "save it as UTF-8" in line, line
