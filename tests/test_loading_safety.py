"""Walking and loading never traceback, never load a file twice and never drop
an input silently: link loops, dangling links, links to another file of the
repository, files named twice, exlint files that are not readable text, and a
file named on the command line that the configuration's globs exclude
(docs/security.md, "Links that lead nowhere", "Each file is read once",
"Nothing is silently dropped")."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linter.loading import MAX_FILE_BYTES, discover, load_file
from linter.loading.scope import is_own_file
from linter.runner import Options, lint

ROOT = Path(__file__).resolve().parent.parent
ORGANIZATION = """apiVersion: exlint/v1
kind: Organization
metadata:
  name: northwind
spec:
  hierarchies:
    - {name: Public Folders, type: MAPI}
  adminGroups:
    - {name: First Administrative Group, siteFolderServer: EX10-LON-01}
  sites:
    - {name: London}
"""
SERVER = """apiVersion: exlint/v1
kind: Server
metadata:
  name: EX10-LON-01
spec:
  version: "2003"
  servicePack: 2
  site: London
  adminGroup: First Administrative Group
  roles: [Mailbox]
"""
STORE = """apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
  name: PFDB-EX10-LON-01
spec:
  server: EX10-LON-01
  hierarchy: Public Folders
  guid: 1b0c7f52-4d1a-4c55-9f5e-0a7d3c2e9b11
  created: 2004-06-01
  emailAddress: pfdb-ex10-lon-01@northwind.example
  registry:
    Track Duplicates (in hours): 5000
"""


def run(*args, cwd: Path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "linter", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL)


def one_line_error(completed) -> str:
    err = completed.stderr.decode()
    assert completed.returncode == 2, (completed.returncode, err[-2000:])
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("exlint: error:"), err[-2000:]
    return lines[0]


def estate(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for folder in ("servers", "stores"):
        (root / folder).mkdir(parents=True)
    (root / ".exlint.yaml").write_text("{}\n")
    (root / "organization.yaml").write_text(ORGANIZATION)
    (root / "servers" / "ex10-lon-01.yaml").write_text(SERVER)
    (root / "stores" / "pfdb.yaml").write_text(STORE)
    return root


def check(root: Path, *paths, monkeypatch, **options):
    monkeypatch.chdir(root)
    return lint(Options(paths=[str(p) for p in paths] or ["."], use_cache=False, **options))


def by_file(result) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in result.findings:
        out.setdefault(finding.file, []).append(f"{finding.rule} {finding.message}")
    return out


# -- 1. link loops ------------------------------------------------------------------------

def test_a_link_loop_in_a_walked_folder_is_a_note_and_the_rest_is_linted(tmp_path, monkeypatch):
    root = estate(tmp_path)
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    result = check(root, monkeypatch=monkeypatch)
    assert result.files == 3
    assert any(f.rule == "DUP001" for f in result.findings)
    assert any(note.startswith("loop-a not read: it is a symbolic link loop") for note in result.notes)


def test_a_yaml_link_loop_in_a_walked_folder_is_an_exl001_finding(tmp_path, monkeypatch):
    root = estate(tmp_path)
    os.symlink("b.yaml", root / "stores" / "a.yaml")
    os.symlink("a.yaml", root / "stores" / "b.yaml")
    found = by_file(check(root, monkeypatch=monkeypatch))
    assert found["stores/a.yaml"] == ["EXL001 a symbolic link loop (it points to b.yaml, which leads back to "
                                      "itself): not read; remove the link or point it at a file"]
    assert "stores/b.yaml" in found and any(m.startswith("DUP001") for m in found["stores/pfdb.yaml"])


def test_a_link_loop_never_tracebacks_on_the_command_line(tmp_path):
    root = estate(tmp_path)
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    walked = run("check", "--format", "json", ".", cwd=root)
    assert walked.returncode == 1 and b"Traceback" not in walked.stderr
    assert b"loop-a not read: it is a symbolic link loop" in walked.stderr
    named = one_line_error(run("check", "loop-a", cwd=root))
    assert named == ("exlint: error: loop-a: a symbolic link loop (it points to loop-b, which leads back to "
                     "itself): not read; remove the link or point it at a file")
    one_line_error(run("check", "--root", "loop-a", "stores", cwd=root))


# -- 8. dangling links ----------------------------------------------------------------------

def test_a_dangling_link_in_a_walked_folder_is_reported_and_the_rest_linted(tmp_path, monkeypatch):
    root = estate(tmp_path)
    os.symlink("gone.yaml", root / "stores" / "x.yaml")
    result = check(root, monkeypatch=monkeypatch)
    found = by_file(result)
    assert found["stores/x.yaml"] == ["EXL001 a dangling symbolic link to gone.yaml: not read; "
                                      "remove it or fix its target"]
    assert any(m.startswith("DUP001") for m in found["stores/pfdb.yaml"])
    named = one_line_error(run("check", "stores/x.yaml", cwd=root))
    assert "stores/x.yaml: a dangling symbolic link to gone.yaml" in named and "fix its target" in named


def test_a_dangling_link_with_include_globs_is_reported(tmp_path, monkeypatch):
    root = estate(tmp_path)
    (root / ".exlint.yaml").write_text("exclude: [archive/**]\n")
    os.symlink("nowhere/gone.yaml", root / "stores" / "x.yaml")
    os.symlink("y.yaml", root / "stores" / "z.yaml")
    os.symlink("z.yaml", root / "stores" / "y.yaml")
    found = by_file(check(root, monkeypatch=monkeypatch))
    assert found["stores/x.yaml"][0].startswith("EXL001 a dangling symbolic link to nowhere/gone.yaml")
    assert found["stores/y.yaml"][0].startswith("EXL001 a symbolic link loop")


# -- 3. each real file once ----------------------------------------------------------------

def _linked(tmp_path: Path) -> Path:
    root = estate(tmp_path)
    (root / "real").mkdir()
    (root / "stores" / "pfdb.yaml").rename(root / "real" / "pfdb.yaml")
    os.symlink("../real/pfdb.yaml", root / "stores" / "pfdb.yaml")
    return root


def test_a_link_to_another_file_of_the_repository_is_loaded_once(tmp_path, monkeypatch):
    root = _linked(tmp_path)
    result = check(root, monkeypatch=monkeypatch)
    assert result.files == 3 and result.documents == 3
    assert [f.rule for f in result.findings] == ["DUP001"]
    assert result.findings[0].file == "real/pfdb.yaml"  # the path that is not a link


def test_the_link_is_kept_when_it_comes_first_only_if_no_real_path_is_walked(tmp_path, monkeypatch):
    root = estate(tmp_path)
    (root / "zz").mkdir()
    (root / "stores" / "pfdb.yaml").rename(root / "zz" / "pfdb.yaml")
    os.symlink("../zz/pfdb.yaml", root / "stores" / "pfdb.yaml")  # the link is walked first
    result = check(root, monkeypatch=monkeypatch)
    assert [(f.rule, f.file) for f in result.findings] == [("DUP001", "zz/pfdb.yaml")]
    named = check(root, "stores/pfdb.yaml", monkeypatch=monkeypatch)  # only the link named: it is reported
    assert [(f.rule, f.file) for f in named.findings] == [("DUP001", "stores/pfdb.yaml")]


def test_a_file_named_twice_or_named_and_walked_is_loaded_once(tmp_path, monkeypatch):
    root = _linked(tmp_path)
    result = check(root, "real/pfdb.yaml", "./real/pfdb.yaml", root / "real" / "pfdb.yaml", "stores/pfdb.yaml",
                   "real", monkeypatch=monkeypatch)
    assert result.files == 1 and [f.rule for f in result.findings] == ["DUP001"]
    monkeypatch.chdir(root)
    assert [str(p) for p in discover(["real/pfdb.yaml", str(root / "real" / "pfdb.yaml")])] == ["real/pfdb.yaml"]


def test_fix_through_a_linked_file_edits_it_once(tmp_path):
    root = _linked(tmp_path)
    fixed = run("check", "--fix", ".", cwd=root)
    err = fixed.stderr.decode()
    assert "changed on disk" not in err and "Traceback" not in err, err
    assert fixed.returncode in (0, 1), err
    assert os.path.islink(root / "stores" / "pfdb.yaml")
    assert "5000" not in (root / "real" / "pfdb.yaml").read_text()
    assert "fixed 1 finding(s) in 1 file(s)" in err


# -- 2. exlint files that are not readable text, in a walk ------------------------------------

def test_walked_exlint_files_that_are_not_text_are_reported_not_skipped(tmp_path, monkeypatch):
    root = estate(tmp_path)
    (root / "servers" / "latin1.yaml").write_bytes(SERVER.replace("EX10-LON-01", "EX10-M\xdcN-01").encode("cp1252"))
    (root / "servers" / "nul.yaml").write_bytes(SERVER.encode() + b"# \x00\n")
    (root / "servers" / "utf16.yaml").write_bytes(SERVER.encode("utf-16-le"))  # no byte order mark
    result = check(root, monkeypatch=monkeypatch)
    found = by_file(result)
    assert found["servers/latin1.yaml"] == ["EXL001 invalid UTF-8 (byte 0xdc); save the file as UTF-8"]
    assert found["servers/nul.yaml"][0].startswith("EXL001 this is a binary file")
    assert found["servers/utf16.yaml"][0].startswith("EXL001 this is a binary file")
    assert result.skipped == []


def test_a_walked_exlint_file_too_large_to_read_is_reported(tmp_path, monkeypatch):
    root = estate(tmp_path)
    big = root / "servers" / "huge.yaml"
    with open(big, "wb") as handle:
        handle.write(SERVER.encode())
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: cheap to write
    result = check(root, monkeypatch=monkeypatch)
    assert by_file(result)["servers/huge.yaml"][0].startswith("EXL001 larger than 32 MB: not read")
    assert result.skipped == []


def test_walked_files_that_are_not_text_and_not_exlints_are_still_skipped(tmp_path, monkeypatch):
    root = estate(tmp_path)
    (root / "servers" / "other.yaml").write_bytes("owner: M\xfcller\nkind: Deployment\n".encode("cp1252"))
    (root / "servers" / "blob.yaml").write_bytes(b"\x00\x01\x02binary")
    result = check(root, monkeypatch=monkeypatch)
    assert sorted(result.skipped) == ["servers/blob.yaml", "servers/other.yaml"]
    assert "servers/other.yaml" not in by_file(result)
    loaded = load_file(root / "servers" / "other.yaml")
    assert loaded.claims is False and not is_own_file(loaded)


# -- 7. a file named on the command line is always linted ---------------------------------------

def test_a_named_file_is_linted_even_when_the_configuration_excludes_it(tmp_path, monkeypatch):
    root = estate(tmp_path)
    (root / ".exlint.yaml").write_text('exclude: ["stores/**"]\n')
    named = check(root, "stores/pfdb.yaml", monkeypatch=monkeypatch)
    assert [(f.rule, f.file) for f in named.findings] == [("DUP001", "stores/pfdb.yaml")]
    walked = check(root, monkeypatch=monkeypatch)  # walking, the globs still apply
    assert "stores/pfdb.yaml" not in by_file(walked)
    assert walked.files == 2


@pytest.mark.parametrize("globs, linted", [
    # `**/` matches no folder too: the root's own files (the Organization) are YAML files as well
    ('include: ["**/*.yaml"]', {"organization.yaml", "servers/ex10-lon-01.yaml", "stores/pfdb.yaml"}),
    ('exclude: ["**/organization.yaml"]', {"servers/ex10-lon-01.yaml", "stores/pfdb.yaml"}),
    ('exclude: ["./stores/**"]', {"organization.yaml", "servers/ex10-lon-01.yaml"}),
    ('exclude: ["/servers/"]', {"organization.yaml", "stores/pfdb.yaml"}),
    ('include: ["servers/**/*.yaml", "organization.yaml"]', {"organization.yaml", "servers/ex10-lon-01.yaml"}),
    ('exclude: ["archive/**"]', {"organization.yaml", "servers/ex10-lon-01.yaml", "stores/pfdb.yaml"}),
])
def test_globs_match_as_gitignore_and_globstar_do(tmp_path, monkeypatch, globs, linted):
    root = estate(tmp_path)
    (root / ".exlint.yaml").write_text(globs + "\n")
    result = check(root, monkeypatch=monkeypatch)
    assert {loaded.path for loaded in result.loaded} == linted


def test_inventory_files_in_a_walked_folder_are_noted_never_dropped_silently(tmp_path, monkeypatch):
    # `exlint estate` reads JSON Lines and Parquet files in a walk; check reads JSON Lines only named
    root = estate(tmp_path)
    line = json.dumps({"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-LON-02"},
                       "spec": {"version": "2010", "site": "London"}})
    (root / "servers" / "more.jsonl").write_text(line + "\n")
    (root / "servers" / "export.parquet").write_bytes(b"PAR1")
    (root / "servers" / "_SUCCESS").write_text("")
    (root / "findings").mkdir()  # an `exlint estate --output` folder: its findings, not inventory
    (root / "findings" / "_EXLINT_FINDINGS").write_text("{}")
    (root / "findings" / "part-0.parquet").write_bytes(b"PAR1")
    walked = check(root, monkeypatch=monkeypatch)
    assert "servers/more.jsonl" not in {loaded.path for loaded in walked.loaded}
    assert [note for note in walked.notes if "inventor" in note] == [
        "servers/export.parquet not linted: check does not read Parquet inventories; "
        "lint it with exlint estate servers/export.parquet",
        "servers/more.jsonl not linted: check does not walk into JSON Lines inventories (exlint estate does); "
        "name it to lint it with the rest: exlint check . servers/more.jsonl"]
    named = check(root, ".", "servers/more.jsonl", monkeypatch=monkeypatch)
    assert "servers/more.jsonl" in {loaded.path for loaded in named.loaded}
    assert [note for note in named.notes if "JSON Lines" in note] == []
    (root / ".exlint.yaml").write_text('exclude: ["servers/**"]\n')  # the globs choose among them too
    assert [note for note in check(root, monkeypatch=monkeypatch).notes if "inventor" in note] == []
    # a folder of inventories only: an error that says how to lint them
    only = tmp_path / "only"
    only.mkdir()
    (only / "a.jsonl").write_text(line + "\n")
    completed = run("check", str(only), cwd=tmp_path)
    assert completed.returncode == 2
    assert "only inventories" in completed.stderr.decode() and "exlint estate" in completed.stderr.decode()


def test_another_tools_json_lines_in_a_walk_is_skipped_and_counted_not_noted(tmp_path, monkeypatch):
    # as a walked CI workflow is: a log export beside the estate is no inventory of exlint's
    root = estate(tmp_path)
    (root / "servers" / "app-log.jsonl").write_text('{"ts": 1, "msg": "started", "kind": "event"}\n{"ts": 2}\n')
    walked = check(root, monkeypatch=monkeypatch)
    assert [note for note in walked.notes if "app-log" in note] == []
    assert walked.skipped == ["servers/app-log.jsonl"]
    completed = run("check", ".", cwd=root)
    assert "1 file(s) skipped: not exlint documents" in completed.stdout.decode(), completed.stdout.decode()
    # named, it is always read: each line a document, so EXL004 says what it lacks
    named = run("check", "--format", "json", "servers/app-log.jsonl", cwd=root)
    rules = [f["rule"] for f in json.loads(named.stdout)["findings"]]
    assert rules and set(rules) == {"EXL004"}, rules  # the repo holds the Organization
    # a folder of another tool's JSON Lines only: nothing to lint, said so
    only = tmp_path / "only"
    only.mkdir()
    (only / "events.ndjson").write_text('{"event": "x"}\n')
    completed = run("check", str(only), cwd=tmp_path)
    assert completed.returncode == 2 and "1 file(s) skipped" in completed.stderr.decode(), completed.stderr


def test_the_json_report_of_a_walk_with_a_dangling_link_holds_every_file(tmp_path):
    root = estate(tmp_path)
    os.symlink("gone.yaml", root / "stores" / "x.yaml")
    completed = run("check", "--format", "json", ".", cwd=root)
    assert completed.returncode == 1, completed.stderr.decode()[-2000:]
    data = json.loads(completed.stdout)
    assert data["summary"]["files"] == 4
    assert {f["file"] for f in data["findings"] if f["rule"] == "EXL001"} == {"stores/x.yaml"}
