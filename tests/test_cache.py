"""The record cache for context files: used while a file is unchanged, never
stale, never in the repository, harmless when corrupt."""
from __future__ import annotations

import json
import marshal
import os
import time
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

ORG = """apiVersion: exlint/v1
kind: Organization
metadata: {name: contoso}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG1, siteFolderServer: EX10-A}]
  sites: [{name: London}, {name: Paris}]
  siteLinks: [{name: L, sites: [London, Paris], cost: 10}]
"""
SERVER = """apiVersion: exlint/v1
kind: Server
metadata: {{name: {name}}}
spec: {{version: "2010", site: London, adminGroup: AG1, roles: [Mailbox], dag: D1}}
"""
STORE = """apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata: {{name: PFDB-A}}
spec: {{server: {server}, hierarchy: Public Folders, created: 2010-01-01, emailAddress: a@contoso.com}}
"""


def check(*args):
    result = CliRunner().invoke(cli, ["check", "--format", "json", *map(str, args)])
    return result.exit_code, json.loads(result.stdout)


def make(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / ".exlint.yaml").write_text("{}\n")
    (tmp_path / "org.yaml").write_text(ORG)
    (tmp_path / "a.yaml").write_text(SERVER.format(name="EX10-A"))
    (tmp_path / "b.yaml").write_text(SERVER.format(name="EX10-B"))
    (tmp_path / "store.yaml").write_text(STORE.format(server="EX10-A"))
    return tmp_path


def test_cache_is_written_outside_the_repo_and_reused(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(cache))
    repo = make(tmp_path / "repo")
    assert check(repo / "store.yaml")[0] == 0
    files = list(cache.glob("records-*.marshal"))
    assert len(files) == 1
    assert not any(p.name.startswith("records-") for p in repo.rglob("*"))
    entries = marshal.loads(files[0].read_bytes())["files"]
    assert {Path(k).name for k in entries} == {"org.yaml", "a.yaml", "b.yaml"}
    assert check(repo / "store.yaml")[0] == 0


def test_a_changed_context_file_is_reread(tmp_path, monkeypatch):
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path / "cache"))
    repo = make(tmp_path / "repo")
    assert check(repo / "store.yaml")[0] == 0
    # rename the server the store points at, in a file that is not being checked
    (repo / "a.yaml").write_text(SERVER.format(name="EX10-RENAMED") + "# changed\n")
    stat = (repo / "a.yaml").stat()
    os.utime(repo / "a.yaml", ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    code, body = check(repo / "store.yaml")
    assert code == 1 and [f["rule"] for f in body["findings"]] == ["EXL007"]


def test_corrupt_cache_is_ignored(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(cache))
    repo = make(tmp_path / "repo")
    check(repo / "store.yaml")
    (file,) = cache.glob("records-*.marshal")
    file.write_text("{definitely not marshal")
    assert check(repo / "store.yaml")[0] == 0
    file.write_bytes(marshal.dumps({"stamp": "other", "files": {"x": 1}}))
    assert check(repo / "store.yaml")[0] == 0
    file.write_bytes(marshal.dumps(["a list, not the cache's mapping"]))
    assert check(repo / "store.yaml")[0] == 0
    file.write_bytes(marshal.dumps({"stamp": "x"})[:-3])  # cut short
    assert check(repo / "store.yaml")[0] == 0


def test_no_cache_option(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(cache))
    repo = make(tmp_path / "repo")
    assert check("--no-cache", repo / "store.yaml")[0] == 0
    assert not cache.exists()


def test_cached_and_uncached_findings_agree(tmp_path, monkeypatch):
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path / "cache"))
    estate = Path(__file__).resolve().parent.parent / "samples" / "broken"
    target = estate / "folders" / "sales.yaml"
    first = check("--no-cache", target)
    check(target)  # fills the cache
    second = check(target)
    assert first == second and first[1]["findings"]
