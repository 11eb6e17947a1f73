"""A walked file skipped as not exlint's (shared/spec/rules.md, "Scope") that looks like
exlint's with a typo is named in a note: a typo must not turn its checks off unnoticed.
Another tool's files (a Kubernetes manifest, a workflow) get no note."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from linter.cli import cli

SERVER = ("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX1}\n"
          "spec: {version: \"2010\", site: London, adminGroup: AG1, roles: [Mailbox]}\n")


def run(tmp_path, name, text, *args):
    (tmp_path / ".exlint.yaml").write_text("{}\n")
    (tmp_path / "server.yaml").write_text(SERVER)
    (tmp_path / name).write_text(text)
    return CliRunner().invoke(cli, ["check", "--no-cache", *args, str(tmp_path)])


def notes(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "skipped as not an exlint document, but" in line]


@pytest.mark.parametrize("text, says", [
    ("kind: Sever\nmetadata: {name: EX2}\nspec: {version: \"2003\"}\n", "kind 'Sever' is not one exlint knows (did you mean 'Server'?)"),
    ("kind: publicfolder\nmetadata: {name: /A}\nspec: {}\n", "did you mean 'PublicFolder'?"),
    ("apiversion: exlint/v1\nKind: Server\nmetadata: {name: EX2}\nspec: {}\n", "key 'apiversion' means 'apiVersion'"),
    ("Kind: Server\nmetadata: {name: EX2}\nspec: {}\n", "key 'Kind' means 'kind'"),
    ("apiVersion: exlnt/v1\nkind: Servr\nmetadata: {name: EX2}\n", "apiVersion 'exlnt/v1' is not exlint's"),
    ("---\nname: x\n---\nkind: Organisation\nmetadata: {name: contoso}\n", "did you mean 'Organization'?"),
])
def test_a_look_alike_is_skipped_with_a_note(tmp_path, text, says):
    done = run(tmp_path, "typo.yaml", text)
    assert "1 file(s) skipped" in done.stdout, done.output
    found = notes(done)
    assert len(found) == 1 and found[0].startswith("exlint: note: ") and "typo.yaml" in found[0] and says in found[0], \
        done.stderr
    assert "exlint check " in found[0]  # how to lint it as it is


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {}\n",
    "name: CI\non: [push]\njobs: {test: {runs-on: ubuntu-latest}}\n",
    "repos:\n- repo: local\n  hooks: []\n",
])
def test_another_tools_file_is_skipped_without_a_note(tmp_path, text):
    done = run(tmp_path, "other.yaml", text)
    assert "1 file(s) skipped" in done.stdout and notes(done) == [], done.output


def test_named_explicitly_the_look_alike_is_linted(tmp_path):
    (tmp_path / "typo.yaml").write_text("kind: Sever\nmetadata: {name: EX2}\nspec: {}\n")
    done = CliRunner().invoke(cli, ["check", "--no-cache", str(tmp_path / "typo.yaml")])
    assert "EXL004" in done.stdout and "Server" in done.stdout and notes(done) == [], done.output
