"""The estate job reads an inventory as `exlint check` walks a repository: a
link whose real path leaves the inventory directory, or a link to something that
is not a regular file, is an EXL001 finding on the link, and its target is never
read (a secret behind it never reaches the output)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parents[2]
SECRET = "AKIAEXLINTSECRET0001"


def _findings(output: str) -> list[tuple]:
    return sorted((f["rule"], f["file"], f["line"], f["message"]) for f in json.loads(output)["findings"])


def test_links_leaving_the_inventory_are_reported_not_read(spark, tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.yaml").write_text(f"apiVersion: {SECRET}\nkind: Server\n", encoding="utf-8")
    inventory = tmp_path / "inventory"
    shutil.copytree(REPO / "samples" / "estate", inventory)
    (inventory / "stores" / "pfdb.yaml").symlink_to(outside / "victim.yaml")
    os.mkfifo(inventory / "stores" / "pipe.yaml")
    monkeypatch.chdir(tmp_path)
    estate = CliRunner().invoke(cli, ["estate", "inventory", "--format", "json", "--quiet", "--fail-on", "never"])
    assert estate.exit_code == 0, estate.output
    assert SECRET not in estate.output
    found = _findings(estate.stdout)
    refused = {f[1] for f in found if f[0] == "EXL001"}
    assert refused == {"inventory/stores/pfdb.yaml", "inventory/stores/pipe.yaml"}, found
    check = CliRunner().invoke(cli, ["check", "inventory", "--format", "json", "--fail-on", "never", "--no-cache"])
    assert _findings(check.stdout) == found
