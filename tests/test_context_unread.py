"""A file of the config repo read only to resolve references (the files named are
linted, the rest lend their names) that cannot be read is named in a note: its names
would otherwise be reported as undefined elsewhere, with nothing saying why."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from linter import runner
from linter.cli import cli

ORG = ("apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: contoso}\n"
       "spec: {hierarchies: [{name: Public Folders, type: MAPI}], sites: [London],\n"
       "       adminGroups: [{name: AG1, siteFolderServer: EX1}]}\n")
SERVER = ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX1}\n"
          "spec: {version: \"2010\", site: London, adminGroup: AG1, roles: [Mailbox]}\n")
STORE = ("apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB1}\n"
         "spec: {server: EX1, hierarchy: Public Folders, created: 2010-01-01}\n")
FOLDER = ("apiVersion: exlint/v1\nkind: PublicFolder\nmetadata: {name: /A}\n"
          "spec: {hierarchy: Public Folders, tree: IPM_SUBTREE, replicas: [PFDB1]}\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".exlint.yaml").write_text("{}\n")
    for name, text in {"org.yaml": ORG, "server.yaml": SERVER, "store.yaml": STORE, "folder.yaml": FOLDER}.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args):
    return CliRunner().invoke(cli, ["check", *args, "folder.yaml"])


def notes(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "read only to resolve references" in line]


def test_a_readable_repo_needs_no_note(repo):
    done = check("--no-cache")
    assert "REP001" not in done.stdout and notes(done) == [], done.output


@pytest.mark.parametrize("cached", [False, True])
def test_a_context_file_that_is_not_text_is_named_every_run(repo, cached):
    (repo / "store.yaml").write_bytes(STORE.encode() + b"\xff")
    args = () if cached else ("--no-cache",)
    for _ in range(2):  # the second run is not told less by the record cache
        done = check(*args)
        found = notes(done)
        assert len(found) == 1 and found[0].startswith("exlint: note: store.yaml:5:1 ") and "UTF-8" in found[0], \
            done.stderr


def test_a_context_file_that_cannot_be_opened_is_named(repo, monkeypatch):
    load = runner.load_file

    def refuse(path, display):
        if display == "store.yaml":
            raise PermissionError(13, "Permission denied", str(path))
        return load(path, display)

    monkeypatch.setattr(runner, "load_file", refuse)
    done = check("--no-cache")
    assert "REP001" in done.stdout  # PFDB1 could not be read, and the note says why
    found = notes(done)
    assert len(found) == 1 and "store.yaml (read only" in found[0] and "Permission denied" in found[0], done.stderr


def test_a_syntax_error_after_the_name_lends_the_name_and_needs_no_note(repo):
    (repo / "store.yaml").write_text(STORE.replace("created: 2010-01-01}", "created: 2010-01-01"))
    done = check("--no-cache")
    assert "REP001" not in done.stdout and notes(done) == [], done.output
