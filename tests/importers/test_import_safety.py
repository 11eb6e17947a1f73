"""`exlint import --output DIR` writes only into exlint's own documents: a file
at a target path holding the admin's own YAML, a folder in the way of a file, a
file in the way of a folder or a folder leading out of the output directory is
refused with one line naming the real path and the way out, before anything is
written (every target is checked before the first is written)."""
from __future__ import annotations

import pytest

import os
from pathlib import Path

from .conftest import FIXTURES, run_import

SOURCES = FIXTURES / "estate"
REPO_POLICY = Path(__file__).resolve().parents[2] / "linter" / "policy" / "example_base.yaml"
# what an import of SOURCES into an empty directory creates
CREATED = {"organization.yaml", "servers/ex03-lon.yaml", "servers/ex07-lon-01.yaml", "servers/ex10-par-01.yaml",
           "stores/pfdb-lon-01.yaml", "stores/pfdb-par-01.yaml", "mailbox-databases/mbxdb-lon-01.yaml"}


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _one_line(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert ".exlint-fix" not in lines[0]  # the real target, never atomic_write's temporary file
    return lines[0]


def test_the_fixture_import_creates_what_these_tests_expect(tmp_path):
    result = run_import(SOURCES, "--output", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    assert set(_tree(tmp_path / "out")) == CREATED


def test_a_file_of_the_admins_own_yaml_at_a_target_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "out"
    (out / "servers").mkdir(parents=True)
    foreign = out / "servers" / "ex07-lon-01.yaml"
    foreign.write_text("# my notes about ex07\nowner: bob\nnotes: keep this\n")
    before = _tree(out)
    line = _one_line(run_import(SOURCES, "--output", out))
    assert str(foreign) in line and "not an exlint document" in line
    assert "move it aside" in line and "nothing was written" in line
    assert _tree(out) == before  # the foreign file as it was, and no other file written (organization.yaml)
    assert not list(out.rglob(".*exlint*"))


def test_the_refusal_is_reported_by_a_dry_run_too(tmp_path):
    out = tmp_path / "out"
    (out / "servers").mkdir(parents=True)
    (out / "servers" / "ex07-lon-01.yaml").write_text("owner: bob\n")
    line = _one_line(run_import(SOURCES, "--output", out, "--dry-run"))
    assert "ex07-lon-01.yaml" in line


def test_an_exlint_file_that_also_holds_foreign_documents_is_not_updated(tmp_path):
    out = tmp_path / "out"
    assert run_import(SOURCES, "--output", out).exit_code == 0
    server = out / "servers" / "ex07-lon-01.yaml"
    mixed = server.read_text().replace("version:", "version: 0  # changed\n  was:", 1)
    server.write_text(mixed + "---\nsomething: else\n")
    before = _tree(out)
    line = _one_line(run_import(SOURCES, "--output", out))
    assert str(server) in line and "document 2" in line
    assert _tree(out) == before


def test_a_directory_at_a_target_path_is_named_and_nothing_is_written(tmp_path):
    out = tmp_path / "out"
    in_the_way = out / "servers" / "ex07-lon-01.yaml"
    in_the_way.mkdir(parents=True)
    line = _one_line(run_import(SOURCES, "--output", out))
    assert str(in_the_way) in line and "directory is in the way" in line
    assert _tree(out) == {}  # organization.yaml (sorted first) was not written either
    assert in_the_way.is_dir()


def test_a_file_where_a_folder_goes_is_refused_before_writing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "stores").write_text("not a folder\n")
    line = _one_line(run_import(SOURCES, "--output", out))
    assert str(out / "stores") in line and "in the way of a folder" in line
    assert _tree(out) == {"stores": b"not a folder\n"}


def test_a_folder_link_leading_out_of_the_output_directory_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "servers").symlink_to(elsewhere)
    line = _one_line(run_import(SOURCES, "--output", out))
    assert "leads out of the output directory" in line
    assert not list(elsewhere.iterdir()) and not (out / "organization.yaml").exists()


def test_a_comment_only_file_at_a_target_keeps_its_comments(tmp_path):
    out = tmp_path / "out"
    (out / "servers").mkdir(parents=True)
    placeholder = out / "servers" / "ex07-lon-01.yaml"
    placeholder.write_text("# EX07-LON-01: to be imported\n\n# owner: messaging team\n")
    result = run_import(SOURCES, "--output", out)
    assert result.exit_code == 0, result.stderr
    text = placeholder.read_text()
    assert text.startswith("# EX07-LON-01: to be imported\n\n# owner: messaging team\n")
    assert "kind: Server" in text and "name: EX07-LON-01" in text


@pytest.mark.parametrize("notes", [
    "---\n# keep me: hierarchies pending CHG-42\n---\n# second\n",  # comments after a "---" were dropped
    "# a note\r\n---\r\n# another\r\n",
    "---\n# no newline at the end",
])
def test_comments_in_empty_documents_at_a_target_are_kept(tmp_path, notes):
    out = tmp_path / "out"
    (out / "servers").mkdir(parents=True)
    placeholder = out / "servers" / "ex07-lon-01.yaml"
    placeholder.write_bytes(notes.encode())
    result = run_import(SOURCES, "--output", out)
    assert result.exit_code == 0, result.stderr
    text = placeholder.read_bytes().decode()
    assert text.startswith(notes), text
    assert "kind: Server" in text and "name: EX07-LON-01" in text
    again = run_import(SOURCES, "--output", out)  # the notes and the document: nothing to change
    assert again.exit_code == 0 and placeholder.read_bytes().decode() == text


def test_a_link_to_an_exlint_file_inside_the_output_is_updated_through(tmp_path):
    out = tmp_path / "out"
    assert run_import(SOURCES, "--output", out).exit_code == 0
    server = out / "servers" / "ex07-lon-01.yaml"
    kept = out / ".kept" / "ex07.yaml"  # a hidden folder: not read as a document of its own
    kept.parent.mkdir()
    os.replace(server, kept)
    server.symlink_to(os.path.relpath(kept, server.parent))
    kept.write_text(kept.read_text().replace("site:", "site: Elsewhere\n  oldSite:", 1))
    result = run_import(SOURCES, "--output", out)
    assert result.exit_code in (0, 1), result.stderr
    assert server.is_symlink()  # the admin's link stays; the file it points to is updated
    assert "site: London" in kept.read_text()
    assert not list(out.rglob(".*.exlint-fix"))


def test_a_read_only_target_is_refused_before_any_file_is_written(tmp_path):
    # organization.yaml was rewritten, then the read-only server file failed: half an import
    out = tmp_path / "out"
    assert run_import(SOURCES, "--output", out).exit_code == 0
    for name in ("organization.yaml", "servers/ex07-lon-01.yaml", "servers/ex10-par-01.yaml"):
        path = out / name
        path.write_text(path.read_text().replace("apiVersion: exlint/v1", "apiVersion: exlint/v1\n# edited", 1)
                        .replace("site: London", "site: Elsewhere").replace("site: Paris", "site: Elsewhere"))
    locked = out / "servers" / "ex10-par-01.yaml"
    locked.chmod(0o444)
    before = _tree(out)
    line = _one_line(run_import(SOURCES, "--output", out))
    assert str(locked) in line and "read-only" in line and "nothing was written" in line
    assert _tree(out) == before


def test_a_virtualenv_and_node_modules_in_the_output_are_never_read_nor_updated(tmp_path):
    # a project venv holds exlint's own example estate (an Organization): import updated it
    out = tmp_path / "out"
    packaged = out / "venv" / "lib" / "python3.11" / "site-packages" / "linter" / "policy"
    packaged.mkdir(parents=True)
    (out / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    example = REPO_POLICY.read_bytes()
    (packaged / "example_base.yaml").write_bytes(example)
    (out / "node_modules" / "pkg").mkdir(parents=True)
    (out / "node_modules" / "pkg" / "broken.yml").write_text("a: [\n")  # unreadable YAML, never exlint's
    result = run_import(SOURCES, "--output", out)
    assert result.exit_code == 0, result.stderr
    assert (packaged / "example_base.yaml").read_bytes() == example
    assert {p for p in _tree(out) if not p.startswith(("venv/", "node_modules/"))} == CREATED


def test_sources_in_a_virtualenv_are_not_imported_and_one_named_twice_is_read_once(tmp_path):
    from linter.importers.sources import discover

    sources = tmp_path / "sources"
    (sources / ".venv").mkdir(parents=True)
    (sources / ".venv" / "pyvenv.cfg").write_text("")
    (sources / "env").mkdir()
    (sources / "env" / "pyvenv.cfg").write_text("")
    (sources / "env" / "junk.xml").write_text("<x/>")
    capture = sources / "GetTransportConfig.xml"
    capture.write_bytes((SOURCES / "GetTransportConfig.xml").read_bytes())
    os.symlink(capture.name, sources / "link.xml")
    named: set = set()
    files, errors = discover([str(capture), str(capture.resolve()), str(sources / "link.xml"), str(sources)], named)
    assert errors == [] and [p.name for p in files] == ["GetTransportConfig.xml"]


def test_a_file_that_cannot_be_written_means_none_is_written(tmp_path, monkeypatch):
    # organization.yaml was written before a folder that refused the next file: half an import
    from linter import atomic

    out = tmp_path / "out"
    assert run_import(SOURCES, "--output", out).exit_code == 0
    first = _tree(out)
    (out / "servers" / "ex07-lon-01.yaml").unlink()  # the next import writes it (and only it, and new stores)
    before = _tree(out)
    real = atomic._write_temporary

    def refuse_stores(handle, data):
        written = os.readlink(f"/proc/self/fd/{handle.fileno()}")  # the temporary file, beside its target
        if f"{os.sep}servers{os.sep}" in written:
            raise PermissionError(13, "Permission denied")
        real(handle, data)

    monkeypatch.setattr(atomic, "_write_temporary", refuse_stores)
    line = _one_line(run_import(SOURCES, "--output", out))
    assert "ex07-lon-01.yaml" in line and "Permission denied" in line
    assert _tree(out) == before and not list(out.rglob(".*exlint*"))
    monkeypatch.undo()
    assert run_import(SOURCES, "--output", out).exit_code == 0 and _tree(out) == first


def test_a_failed_import_leaves_no_folder_it_made(tmp_path, monkeypatch):
    from linter import atomic

    def refuse(handle, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(atomic, "_write_temporary", refuse)
    out = tmp_path / "out"
    out.mkdir()
    _one_line(run_import(SOURCES, "--output", out))
    assert list(out.iterdir()) == []
