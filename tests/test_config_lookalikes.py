"""A configuration file whose name has a typo (.exlint.yml, exlint.yaml, .Exlint.yaml) is
never read: its settings would be off unnoticed (a gate that passes). It is named in a
note with the fix, in `check` and `estate` alike."""
from __future__ import annotations

import subprocess

import pytest
from click.testing import CliRunner

from linter.cli import cli

SERVER = ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX10-A}\n"
          "spec: {version: \"2010\", servicePack: 3, site: London, roles: [Mailbox]}\n")


def repo(tmp_path, config_name: str):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / config_name).write_text("fail_on: warning\n")
    (tmp_path / "server.yaml").write_text(SERVER)
    return tmp_path


@pytest.mark.parametrize("name", [".exlint.yml", "exlint.yaml", ".Exlint.yaml", ".exlintrc"])
def test_a_misnamed_configuration_is_named_in_a_note(tmp_path, monkeypatch, name):
    monkeypatch.chdir(repo(tmp_path, name))
    result = CliRunner().invoke(cli, ["check", "."])
    notes = [line for line in result.stderr.splitlines() if "is not read" in line]
    assert notes == [f"exlint: note: {name} is not read: exlint's configuration is a file named .exlint.yaml "
                     "(or [tool.exlint] in pyproject.toml); rename it to .exlint.yaml, or name it with --config"], \
        result.stderr


def test_a_look_alike_beside_the_real_configuration_is_named_too(tmp_path, monkeypatch):
    monkeypatch.chdir(repo(tmp_path, ".exlint.yml"))
    (tmp_path / ".exlint.yaml").write_text("{}\n")
    assert ".exlint.yml is not read" in CliRunner().invoke(cli, ["check", "."]).stderr


def test_no_note_for_the_configuration_itself_or_with_config_given(tmp_path, monkeypatch):
    monkeypatch.chdir(repo(tmp_path, ".exlint.yaml"))
    assert "is not read" not in CliRunner().invoke(cli, ["check", "."]).stderr
    (tmp_path / "exlint.yml").write_text("{}\n")
    given = CliRunner().invoke(cli, ["check", "--config", "exlint.yml", "."])
    assert "is not read" not in given.stderr, given.stderr


def test_estate_names_a_misnamed_configuration_before_spark_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(repo(tmp_path, ".exlint.yml"))
    result = CliRunner().invoke(cli, ["estate", ".", "--select", "NOPE999"])  # refused before Spark starts
    assert result.exit_code == 2
    assert "exlint: note: .exlint.yml is not read" in result.stderr, result.stderr


def test_an_include_pattern_that_matches_no_file_is_named_in_a_note(tmp_path, monkeypatch):
    # `store/**` for `stores/**`: the stores were left out, unnoticed
    monkeypatch.chdir(repo(tmp_path, ".exlint.yaml"))
    (tmp_path / ".exlint.yaml").write_text('include: ["server.yaml", "store/**"]\n')
    result = CliRunner().invoke(cli, ["check", "."])
    notes = [line for line in result.stderr.splitlines() if "matches no file" in line]
    assert len(notes) == 1 and "'store/**'" in notes[0] and ".exlint.yaml:1:26" in notes[0], result.stderr
    (tmp_path / ".exlint.yaml").write_text('include: ["server.yaml"]\n')
    assert "matches no file" not in CliRunner().invoke(cli, ["check", "."]).stderr


def _estate_until_spark(*args) -> "object":
    """estate up to the start of Spark: a master nothing listens at is refused right after
    the inventory is found, so the notes of discovery are seen without a Spark job."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return CliRunner().invoke(cli, ["estate", *args, "--master", f"spark://127.0.0.1:{port}"])


def test_estate_names_an_include_pattern_that_matches_no_file_as_check_does(tmp_path, monkeypatch):
    monkeypatch.chdir(repo(tmp_path, ".exlint.yaml"))
    (tmp_path / "servers").mkdir()
    (tmp_path / "server.yaml").rename(tmp_path / "servers" / "server.yaml")
    (tmp_path / "stores").mkdir()
    (tmp_path / "stores" / "inv.jsonl").write_text("")
    (tmp_path / ".exlint.yaml").write_text('include: ["servers/**", "store/**", "stores/*.jsonl"]\n')
    check = [line for line in CliRunner().invoke(cli, ["check", "."]).stderr.splitlines() if "matches no file" in line]
    result = _estate_until_spark(".")
    assert result.exit_code == 2 and "cannot reach the Spark master" in result.stderr, result.stderr
    notes = [line for line in result.stderr.splitlines() if "matches no file" in line]
    assert len(notes) == 1 and "'store/**'" in notes[0] and ".exlint.yaml:1:25" in notes[0], result.stderr
    assert notes == check
    # a pattern for a folder this run does not walk still matches a file of the repository: no note
    result = _estate_until_spark("servers")
    assert [line for line in result.stderr.splitlines() if "matches no file" in line] == notes
    (tmp_path / ".exlint.yaml").write_text('include: ["servers/**", "stores/*.jsonl"]\n')
    assert "matches no file" not in _estate_until_spark("servers").stderr
