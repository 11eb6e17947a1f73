"""Hostile repositories and inputs (issue #20): a config repo is untrusted input
in CI. Nothing outside the repository is read or written, nothing hangs or
crashes, and every answer is a positioned finding or one line on exit 2.

Commands run in a subprocess (``sys.executable -m linter``) where a crash would
kill the interpreter (a C-level stack overflow) or a hang must be cut by a
timeout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STORE = """apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
  name: {name}
spec:
  server: EX10-LON-01
  hierarchy: Public Folders
  registry:
    Track Duplicates (in hours): {hours}
"""


def run(*args, cwd: Path, timeout: float = 120, stdin=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "linter", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def report(completed) -> dict:
    assert completed.returncode in (0, 1), completed.stderr.decode(errors="replace")[-2000:]
    return json.loads(completed.stdout)


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "stores").mkdir(parents=True)
    (root / ".exlint.yaml").write_text("{}\n")
    return root


def one_line_error(completed) -> str:
    assert completed.returncode == 2, (completed.returncode, completed.stderr[-2000:])
    err = completed.stderr.decode()
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("exlint: error:"), err[-2000:]
    return lines[0]


# -- nesting and alias bombs: bounded before composing --------------------------------

DEEP = "x: " + "[" * 50_000 + "\n"


def test_deep_flow_nesting_is_a_finding_not_a_segfault(tmp_path):
    root = repo(tmp_path)
    (root / "stores" / "deep.yaml").write_text(DEEP)
    findings = report(run("check", "--format", "json", "stores/deep.yaml", cwd=root))["findings"]
    assert [(f["rule"], f["line"]) for f in findings] == [("EXL001", 1)]
    assert "nesting deeper than" in findings[0]["message"]


def test_deep_block_nesting_is_a_finding(tmp_path):
    root = repo(tmp_path)
    (root / "stores" / "deep.yaml").write_text("x:\n" + "".join(" " * i + "- \n" for i in range(1, 3000)))
    findings = report(run("check", "--format", "json", "stores/deep.yaml", cwd=root))["findings"]
    assert [f["rule"] for f in findings] == ["EXL001"]
    assert "nesting deeper than" in findings[0]["message"]


def test_deep_nesting_in_config_is_exit_2(tmp_path):
    root = repo(tmp_path)
    (root / ".exlint.yaml").write_text(DEEP)
    line = one_line_error(run("check", "stores", cwd=root))
    assert ".exlint.yaml" in line and "nesting" in line


def test_deep_nesting_in_rule_pack_is_exit_2(tmp_path):
    root = repo(tmp_path)
    (root / "packs").mkdir()
    (root / "packs" / "deep.yaml").write_text(DEEP)
    (root / ".exlint.yaml").write_text("rule_dirs: [packs]\n")
    line = one_line_error(run("check", "stores", cwd=root))
    assert "deep.yaml" in line and "nesting" in line


LAUGHS = "".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 12))


def test_alias_bomb_in_rule_pack_is_exit_2(tmp_path):
    root = repo(tmp_path)
    (root / "packs").mkdir()
    anchors = "".join("  " + line + "\n" for line in ("l0: &l0 [lol]\n" + LAUGHS).splitlines())
    pack = ("defs:\n" + anchors + "rules:\n- id: ZZZ001\n  title: t\n  severity: error\n"
            "  summary: s\n  rationale: r\n  tags: *l11\n")
    (root / "packs" / "bomb.yaml").write_text(pack)
    (root / ".exlint.yaml").write_text("rule_dirs: [packs]\n")
    line = one_line_error(run("check", "stores", cwd=root, timeout=60))
    assert "bomb.yaml" in line and "aliases" in line


def test_alias_bomb_in_config_is_exit_2(tmp_path):
    root = repo(tmp_path)
    (root / ".exlint.yaml").write_text("l0: &l0 [lol]\n" + LAUGHS)
    line = one_line_error(run("check", "stores", cwd=root, timeout=60))
    assert ".exlint.yaml" in line and "aliases" in line


# -- files outside the repository, and files that are not regular files ---------------

SECRET = "AKIAEXAMPLESECRETKEY"


def _outside_link(tmp_path: Path) -> tuple[Path, Path]:
    root = repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.yaml"
    victim.write_text(f"apiVersion: {SECRET}\n" + STORE.format(name="PFDB-X", hours=2000).split("\n", 1)[1])
    (root / "stores" / "pfdb.yaml").symlink_to(os.path.relpath(victim, root / "stores"))
    (root / "stores" / "ok.yaml").write_text(STORE.format(name="PFDB-OK", hours=2000))
    return root, victim


@pytest.mark.parametrize("target", [".", "stores", "stores/pfdb.yaml"])
def test_link_leaving_the_repository_is_reported_not_read(tmp_path, target):
    root, _ = _outside_link(tmp_path)
    completed = run("check", "--format", "json", target, cwd=root)
    assert SECRET not in (completed.stdout + completed.stderr).decode()
    findings = report(completed)["findings"]
    linked = [f for f in findings if (f["file"] or "").endswith("pfdb.yaml")]
    assert [(f["rule"], f["line"]) for f in linked] == [("EXL001", 1)]
    assert "outside" in linked[0]["message"]


def test_fix_never_writes_through_a_link_leaving_the_repository(tmp_path):
    root, victim = _outside_link(tmp_path)
    before = victim.read_bytes()
    completed = run("check", "--fix", "--format", "json", ".", cwd=root)
    assert completed.returncode in (0, 1), completed.stderr
    assert victim.read_bytes() == before
    assert (root / "stores" / "pfdb.yaml").is_symlink()
    assert SECRET not in (completed.stdout + completed.stderr).decode()


def test_link_inside_the_repository_is_read(tmp_path):
    root = repo(tmp_path)
    (root / "shared").mkdir()
    (root / "shared" / "pfdb.yaml").write_text(STORE.format(name="PFDB-1", hours="'many'"))
    (root / "stores" / "pfdb.yaml").symlink_to("../shared/pfdb.yaml")
    findings = report(run("check", "--format", "json", "stores", cwd=root))["findings"]
    assert any(f["rule"] == "EXL003" and f["file"] == "stores/pfdb.yaml" for f in findings)


@pytest.mark.parametrize("kind", ["devzero", "fifo"])
def test_only_regular_files_are_read_while_walking(tmp_path, kind):
    root = repo(tmp_path)
    special = root / "stores" / "special.yaml"
    if kind == "devzero":
        special.symlink_to("/dev/zero")
    else:
        os.mkfifo(special)
    (root / "stores" / "ok.yaml").write_text(STORE.format(name="PFDB-OK", hours=1))
    for target in ("stores", "stores/special.yaml"):
        findings = report(run("check", "--format", "json", target, cwd=root, timeout=60))["findings"]
        flagged = [f for f in findings if (f["file"] or "").endswith("special.yaml")]
        assert [f["rule"] for f in flagged] == ["EXL001"]
        assert "not a regular file" in flagged[0]["message"]


def test_rule_pack_that_is_a_fifo_is_exit_2(tmp_path):
    root = repo(tmp_path)
    (root / "packs").mkdir()
    os.mkfifo(root / "packs" / "pipe.yaml")
    (root / ".exlint.yaml").write_text("rule_dirs: [packs]\n")
    line = one_line_error(run("check", "stores", cwd=root, timeout=60))
    assert "pipe.yaml" in line and "not a regular file" in line


def test_config_that_is_a_fifo_is_exit_2(tmp_path):
    root = repo(tmp_path)
    os.mkfifo(root / "pipe.yaml")
    line = one_line_error(run("check", "--config", "pipe.yaml", "stores", cwd=root, timeout=60))
    assert "pipe.yaml" in line and "not a regular file" in line


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
def test_report_path_that_is_a_link_replaces_the_link(tmp_path, option):
    root = repo(tmp_path)
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=2000))
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    (root / "exlint.out").symlink_to(outside)
    args = ["--format", "sarif", "--output", "exlint.out"] if option == "--output" else ["--write-baseline", "exlint.out"]
    completed = run("check", *args, "stores", cwd=root)
    assert completed.returncode in (0, 1), completed.stderr
    assert outside.read_text() == "precious\n"
    assert not (root / "exlint.out").is_symlink()
    assert json.loads((root / "exlint.out").read_text())
