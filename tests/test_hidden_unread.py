"""A document exlint cannot read (EXL001, EXL004) whose finding the run hides (--select,
--ignore, the configuration, a suppression) is still reported: a note names it, so no
input document vanishes without a word."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from linter.cli import cli

SERVER = ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX1}\n"
          "spec: {version: \"2010\", site: London, adminGroup: AG1, roles: [Mailbox]}\n")
BROKEN = "apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX2\nspec: {}\n"
UNKNOWN_KIND = "apiVersion: exlint/v1\nkind: Serverr\nmetadata: {name: EX3}\nspec: {}\n"


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".exlint.yaml").write_text("{}\n")
    (tmp_path / "server.yaml").write_text(SERVER)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    (tmp_path / "unknown.yaml").write_text(UNKNOWN_KIND)
    return tmp_path


def run(repo, *args):
    return CliRunner().invoke(cli, ["check", "--no-cache", *args, str(repo)])


def notes(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "is not linted" in line]


@pytest.mark.parametrize("args", [["--select", "DUP"], ["--ignore", "EXL"], ["--ignore", "EXL001", "--ignore", "EXL004"]])
def test_hidden_by_the_selection_each_unread_document_is_named(repo, args):
    done = run(repo, *args)
    assert "EXL001" not in done.stdout and "EXL004" not in done.stdout
    found = notes(done)
    assert len(found) == 2, done.stderr
    assert any("broken.yaml:" in n and "EXL001 is hidden by --select/--ignore" in n for n in found)
    assert any("unknown.yaml:" in n and "EXL004" in n and "Serverr" in n for n in found)


def test_hidden_by_the_configuration(repo):
    (repo / ".exlint.yaml").write_text("ignore: [EXL001]\n")
    found = notes(run(repo))
    assert len(found) == 1 and "broken.yaml" in found[0] and "or the configuration" in found[0]


def test_hidden_by_a_suppression_comment(repo):
    (repo / "broken.yaml").write_text("# exlint: disable-file=EXL001\n" + BROKEN)
    done = run(repo)
    assert "EXL001" not in done.stdout
    found = notes(done)
    assert len(found) == 1 and "broken.yaml" in found[0] and "a suppression comment" in found[0], done.stderr


def test_reported_or_re_levelled_they_need_no_note(repo):
    assert notes(run(repo)) == []
    (repo / ".exlint.yaml").write_text("severity: {EXL001: warning}\n")
    done = run(repo)
    assert "EXL001 [warning]" in done.stdout and notes(done) == []
