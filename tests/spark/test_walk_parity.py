"""`exlint estate` walks a directory as `exlint check` does (shared/spec/rules.md,
"Scope"): a YAML file none of whose documents is exlint's (a CI workflow, a bare
scalar) is skipped and counted, never linted; a file named explicitly is linted.
Both engines must give the same findings on the same tree."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n"


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "estate"
    shutil.copytree(REPO / "samples" / "estate", tree)
    (tree / "ci").mkdir()
    (tree / "ci" / "workflow.yml").write_text(WORKFLOW, encoding="utf-8")
    (tree / "scalar.yaml").write_text("just a string\n", encoding="utf-8")
    return tree


def _json(*args) -> dict:
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _keys(body: dict) -> list:
    return sorted(json.dumps(f, sort_keys=True) for f in body["findings"])


def test_a_walk_skips_foreign_yaml_in_both_engines(spark, tmp_path):
    tree = _tree(tmp_path)
    checked = _json("check", str(tree))
    estate = _json("estate", str(tree), "--quiet")
    assert checked["summary"]["skipped"] == estate["summary"]["skipped"] == 2
    assert not any(f["file"].endswith(("workflow.yml", "scalar.yaml")) for f in estate["findings"])
    assert _keys(estate) == _keys(checked)


def test_a_foreign_file_named_explicitly_is_linted(spark, tmp_path):
    tree = _tree(tmp_path)
    estate = _json("estate", str(tree / "scalar.yaml"), "--quiet")
    assert {f["rule"] for f in estate["findings"]} >= {"EXL003"} and estate["summary"]["skipped"] == 0


def test_upper_case_suffixes_and_the_configs_excludes_are_walked_alike(spark, tmp_path):
    tree = _tree(tmp_path)
    server = (tree / "servers" / "london" / "ex16-lon-01.yaml").read_text(encoding="utf-8")
    assert "\n  site: London\n" in server
    (tree / "SERVER.YAML").write_text(server.replace("\n  site: London\n", "\n  site: Atlantis\n"), encoding="utf-8")
    (tree / "archive").mkdir()
    (tree / "archive" / "old.yaml").write_text(server.replace("\n  site: London\n", "\n  site: Gone\n"),
                                               encoding="utf-8")
    (tree / ".exlint.yaml").write_text('exclude: ["archive/**"]\n', encoding="utf-8")
    checked = _json("check", str(tree))
    estate = _json("estate", str(tree), "--quiet")  # the configuration found as check finds it
    files = {f["file"] for f in estate["findings"]}
    assert any(f.endswith("SERVER.YAML") for f in files) and not any("archive" in f for f in files)
    assert _keys(estate) == _keys(checked)


def test_a_config_repo_of_its_own_below_the_inventory_is_left_as_check_leaves_it(spark, tmp_path):
    # merged, its documents were second copies of the outer repo's (EXL006, a second Organization)
    tree = _tree(tmp_path)
    shutil.copytree(REPO / "samples" / "estate", tree / "sub")
    (tree / "sub" / ".exlint.yaml").write_text("{}\n", encoding="utf-8")
    checked = _json("check", str(tree))
    result = CliRunner().invoke(cli, ["estate", str(tree), "--quiet", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    assert _keys(json.loads(result.stdout)) == _keys(checked)
    assert "sub not linted: it is a config repo of its own" in result.stderr


def test_a_folder_link_leaving_the_inventory_is_reported_by_both_engines(spark, tmp_path):
    tree = _tree(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "server.yaml").write_text("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: EX03-X}\n"
                                         "spec: {version: '2003'}\n", encoding="utf-8")
    (tree / "ext").symlink_to(outside)
    checked = _json("check", str(tree))
    estate = _json("estate", str(tree), "--quiet")
    linked = [f for f in estate["findings"] if f["file"].endswith("ext")]
    assert [f["rule"] for f in linked] == ["EXL001"]
    assert _keys(estate) == _keys(checked)
