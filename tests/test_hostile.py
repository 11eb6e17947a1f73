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


def test_a_folder_link_leaving_the_repository_is_reported_not_dropped(tmp_path):
    # a directory link is never entered; one leading out of the repository dropped every
    # document below it without a word, and the gate passed on what was left
    root = repo(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "victim.yaml").write_text(f"apiVersion: {SECRET}\n" + STORE.format(name="PFDB-X", hours=2000).split("\n", 1)[1])
    (root / "ext").symlink_to(os.path.relpath(outside, root))
    (root / "inner").symlink_to("stores")  # leads inside: its folder is walked by its real path
    completed = run("check", "--format", "json", ".", cwd=root)
    assert SECRET not in (completed.stdout + completed.stderr).decode()
    linked = [f for f in report(completed)["findings"] if f["file"] in ("ext", "inner")]
    assert [(f["file"], f["rule"], f["line"]) for f in linked] == [("ext", "EXL001", 1)]
    assert "folder outside the repository" in linked[0]["message"]
    assert completed.returncode == 1


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
def test_report_path_that_is_a_link_to_a_foreign_file_is_refused_and_both_stay(tmp_path, option):
    # a link is followed to what it names; that file is not a report exlint wrote, so nothing is written
    root = repo(tmp_path)
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=2000))
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    (root / "exlint.out").symlink_to(outside)
    args = ["--format", "sarif", "--output", "exlint.out"] if option == "--output" else ["--write-baseline", "exlint.out"]
    completed = run("check", *args, "stores", cwd=root)
    assert completed.returncode == 2, completed.stderr
    line = one_line_error(completed)
    assert "exlint.out" in line and "not a report exlint wrote" in line
    assert outside.read_text() == "precious\n"
    assert (root / "exlint.out").is_symlink()


# -- crashes: huge numbers, surrogates, undecodable file names -------------------------

@pytest.mark.parametrize("written", ["9" * 5000, "-" + "9" * 5000, "0x" + "f" * 5000, "1" + "0" * 70],
                         ids=["5000-digits", "negative", "hex", "71-digits"])
def test_huge_integers_are_out_of_range_findings(tmp_path, written):
    root = repo(tmp_path)
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=written))
    (root / "stores" / "b.jsonl").write_text(
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX1"}, '
        f'"spec": {{"version": "2010", "servicePack": {written if written[1] != "x" else 5}}}}}\n')
    completed = run("check", "--format", "json", "--select", "EXL003", "stores/a.yaml", "stores/b.jsonl", cwd=root)
    findings = report(completed)["findings"]
    too_large = {(f["file"], f["line"], f["path"]) for f in findings if written[:20] in f["message"]
                 and any(word in f["message"] for word in ("too large", "maximum", "minimum"))}
    expected = {("stores/a.yaml", 9, "spec.registry.Track Duplicates (in hours)")}
    if written[1] != "x":
        expected.add(("stores/b.jsonl", 1, "spec.servicePack"))
    assert too_large == expected


FORMATS = ["text", "json", "sarif", "junit", "github", "html"]


def _check_output(fmt: str, data: bytes) -> str:
    text = data.decode("utf-8")  # strict: valid UTF-8 in every format
    if fmt in ("json", "sarif"):
        json.loads(text)
    elif fmt == "junit":
        import xml.etree.ElementTree as ET

        ET.fromstring(text)
    return text


@pytest.mark.parametrize("fmt", FORMATS)
def test_lone_surrogate_in_a_json_line_is_a_finding_in_every_format(tmp_path, fmt):
    root = repo(tmp_path)
    (root / "stores" / "a.jsonl").write_text(
        '{"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "/F\\ud800"}, "spec": {}}\n')
    completed = run("check", "--format", fmt, "stores/a.jsonl", cwd=root)
    assert completed.returncode == 1, completed.stderr[-2000:]
    _check_output(fmt, completed.stdout)
    if fmt == "json":
        findings = json.loads(completed.stdout)["findings"]
        assert [(f["rule"], f["line"]) for f in findings if f["file"]] == [("EXL001", 1)]
        assert "surrogate" in findings[-1]["message"] or "surrogate" in findings[0]["message"]


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse undecodable names")
@pytest.mark.parametrize("fmt", FORMATS)
def test_undecodable_file_name_in_every_format(tmp_path, fmt):
    root = repo(tmp_path)
    (root / "stores" / os.fsdecode(b"bad\xff.yaml")).write_text(STORE.format(name="PFDB-1", hours=2000))
    completed = run("check", "--format", fmt, "--output", "out", "stores", cwd=root)
    assert completed.returncode == 1, completed.stderr[-2000:]
    text = _check_output(fmt, (root / "out").read_bytes())
    if fmt != "html":  # the HTML report names files in its own way
        assert "bad\ufffd.yaml" in text or "bad%EF%BF%BD.yaml" in text
    stdout = run("check", "--format", fmt, "stores", cwd=root)
    assert stdout.returncode == 1 and _check_output(fmt, stdout.stdout)


def test_undecodable_file_name_in_a_baseline(tmp_path):
    root = repo(tmp_path)
    (root / "stores" / os.fsdecode(b"bad\xff.yaml")).write_text(STORE.format(name="PFDB-1", hours=2000))
    (root / "stores" / os.fsdecode(b"bad\xfe.yaml")).write_text("x: [\n")
    completed = run("check", "--write-baseline", "base.json", "stores", cwd=root)
    assert completed.returncode == 0, completed.stderr[-2000:]
    json.loads((root / "base.json").read_bytes().decode("utf-8"))
    again = run("check", "--baseline", "base.json", "stores", cwd=root)
    assert again.returncode == 0, again.stdout + again.stderr


# -- --baseline and --compare files of the wrong shape, deep or huge ------------------

BAD_FINDINGS_FILES = {
    "list": "[]",
    "items-not-objects": '{"version": 1, "tool": "exlint", "findings": [1, "x", null]}',
    "fingerprint-not-text": '{"version": 1, "tool": "exlint", "findings": [{"fingerprint": [1], "rule": "X"}]}',
    "deep": "[" * 200_000,
    "deep-findings": '{"version": 1, "findings": [' + "{\"a\": " * 100_000 + "1" + "}" * 100_000 + "]}",
    "huge-number": '{"version": 1, "findings": [{"rule": "X", "line": ' + "9" * 5000 + "}]}",
    "not-utf8": b'{"version": 1, "findings": []}\xff',
}


# an empty list, or findings whose fingerprint is not text, are fine to compare with
COMPARE_CASES = sorted(set(BAD_FINDINGS_FILES) - {"list", "fingerprint-not-text"})


@pytest.mark.parametrize("option, name", [("--baseline", name) for name in sorted(BAD_FINDINGS_FILES)]
                         + [("--compare", name) for name in COMPARE_CASES])
def test_wrong_findings_files_are_exit_2(tmp_path, option, name):
    root = repo(tmp_path)
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=2000))
    content = BAD_FINDINGS_FILES[name]
    path = root / "earlier.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    args = ["--format", "html", "--output", "r.html"] if option == "--compare" else []
    line = one_line_error(run("check", *args, option, "earlier.json", "stores", cwd=root))
    assert "earlier.json" in line


@pytest.mark.parametrize("option", ["--baseline", "--compare"])
def test_findings_file_that_is_a_fifo_is_exit_2(tmp_path, option):
    root = repo(tmp_path)
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=2000))
    os.mkfifo(root / "earlier.json")
    args = ["--format", "html", "--output", "r.html"] if option == "--compare" else []
    line = one_line_error(run("check", *args, option, "earlier.json", "stores", cwd=root, timeout=60))
    assert "not a regular file" in line


def test_huge_baseline_is_exit_2(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from linter import baseline
    from linter.cli import cli

    root = repo(tmp_path)
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=2000))
    (root / "base.json").write_text('{"version": 1, "tool": "exlint", "findings": []}' + " " * 4096)
    monkeypatch.setattr(baseline, "MAX_BYTES", 4096)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["check", "--baseline", "base.json", "stores"])
    assert result.exit_code == 2 and "larger than" in result.output


# -- output injection ------------------------------------------------------------------

INJECTED = ('apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: "P\\x01\\x0b\\e[31mX\\u202e"}\n'
            'spec: {server: "EX\\n::error file=evil.yaml::X", hierarchy: "H\\e]0;t\\a"}\n')


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_control_characters_are_escaped_in_printed_findings(tmp_path, fmt):
    root = repo(tmp_path)
    (root / "stores" / "inj.yaml").write_text(INJECTED)
    completed = run("check", "--format", fmt, "stores/inj.yaml", cwd=root)
    out = completed.stdout.decode()
    for char in "\x01\x0b\x1b\x07\u202e":
        assert char not in out
    finding_lines = [line for line in out.splitlines() if "inj.yaml" in line]
    assert finding_lines and all(("EXL" in line or "HIE" in line or "RTE" in line) for line in finding_lines)
    assert not any(line.startswith("::error file=evil.yaml") for line in out.splitlines())
    assert "\\x1b[31mX" in out


INVISIBLE = ('apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: "PFDB-Z"}\n'
             'spec: {server: "EX03-A\\u200b", hierarchy: "Public\\u00a0Folders\\ufeff"}\n')


@pytest.mark.parametrize("fmt", ["text", "github", "sarif", "html"])
def test_characters_no_reader_can_see_are_escaped_in_findings(tmp_path, fmt):
    # "server EX03-A is not defined" with a zero-width space in the name: the reader cannot see
    # why it matches no server; escaped, they can (a no-break space, a BOM alike)
    root = repo(tmp_path)
    (root / "stores" / "inv.yaml").write_text(INVISIBLE)
    args = ["check", "--format", fmt, "stores/inv.yaml"] if fmt != "html" else \
        ["check", "--output", "r.html", "stores/inv.yaml"]
    completed = run(*args, cwd=root)
    out = completed.stdout.decode() if fmt != "html" else (root / "r.html").read_text(encoding="utf-8")
    if fmt == "sarif":  # the findings' messages (the rules' quoted sources may hold a no-break space)
        out = "\n".join(r["message"]["text"] for r in json.loads(out)["runs"][0]["results"])
    for char in ("\u200b\ufeff" if fmt == "html" else "\u200b\u00a0\ufeff"):
        assert char not in out, (fmt, char)
    # (the HTML report sets its numbers apart with narrow no-break spaces: spaces stay there)
    assert "EX03-A\\u200b" in out and ("Public\\xa0Folders" in out or fmt == "html")
    # the JSON report is data: the name as written
    data = report(run("check", "--format", "json", "stores/inv.yaml", cwd=root))
    assert any("EX03-A\u200b" in f["message"] for f in data["findings"])


def test_control_characters_are_escaped_in_diagnostics(tmp_path):
    root = repo(tmp_path)
    line = one_line_error(run("check", "no\n::error file=evil.yaml::forged\x1b[2J", cwd=root))
    assert "\\n::error" in line and "\\x1b[2J" in line


def test_junit_is_well_formed_with_control_characters_in_names(tmp_path):
    import xml.etree.ElementTree as ET

    root = repo(tmp_path)
    (root / "stores" / "inj.yaml").write_text(INJECTED)
    name = "we\x01ird\x1b.yaml"
    (root / "stores" / name).write_text(INJECTED)
    completed = run("check", "--format", "junit", "stores", cwd=root)
    tree = ET.fromstring(completed.stdout.decode())
    text = ET.tostring(tree, encoding="unicode")
    assert "\\x01" in text and "\\x1b" in text and "we\\x01ird\\x1b.yaml" in text


# -- hostile rule-pack expressions -----------------------------------------------------

PACK = """- id: ACM001
  title: t
  severity: warning
  summary: s
  rationale: r
  fix_hint: f
  source: {note: test}
  table: PublicFolderDatabase
  when: WHEN
  field: name
  message: "store {name}"
  examples:
    bad: [{PublicFolderDatabase/PFDB-LON: {spec: {replication: {Replication Message Size Limit: 8MB}}}}]
    good: [{PublicFolderDatabase/PFDB-LON: {spec: {replication: {Replication Message Size Limit: 300KB}}}}]
"""
HOSTILE_WHEN = {
    "bytes-literal": "name in [b'x']",
    "complex-literal": "name in [1j, 'x']",
    "deep-not": "not " * 2_000 + "name is None",
    "deep-not-50k": "not " * 50_000 + "name is None",
    "if-chain": " else ".join(["1 if name is None"] * 3_000) + " else 2",
    "sum-50k": " + ".join(["message_size_limit"] * 50_000) + " > 0",
    "sum-deep": "1" + " + 1" * 2_000 + " > message_size_limit",
    "digits-5000": "message_size_limit > " + "9" * 5_000,
    "digits-30": "message_size_limit > " + "9" * 30,
}


@pytest.mark.parametrize("name", sorted(HOSTILE_WHEN))
def test_hostile_rule_pack_expressions_are_pack_errors(tmp_path, name):
    root = repo(tmp_path)
    (root / "packs").mkdir()
    when = json.dumps(HOSTILE_WHEN[name])  # a YAML double-quoted scalar
    (root / "packs" / "acme.yaml").write_text(PACK.replace("WHEN", when))
    (root / ".exlint.yaml").write_text("rule_dirs: [packs]\n")
    line = one_line_error(run("check", "--no-cache", "stores", cwd=root, timeout=60))
    assert "ACM001" in line and len(line) < 400


# -- import: hostile source file names and document names ------------------------------

IMPORT_FIXTURES = ROOT / "tests" / "importers" / "fixtures"


def _import_sources(tmp_path: Path, server: str, reg_name: str) -> Path:
    import shutil

    sources = tmp_path / "src"
    shutil.copytree(IMPORT_FIXTURES / "estate", sources)
    reg = (IMPORT_FIXTURES / "store-settings-ansi.reg").read_text(encoding="cp1252")
    (sources / reg_name).write_text(reg.replace("EX07-LON-01", server), encoding="cp1252")
    for xml in sources.glob("*.xml"):
        xml.write_text(xml.read_text(encoding="utf-8-sig").replace("EX07-LON-01", server), encoding="utf-8")
    return sources


def _imported_documents(out: Path) -> list:
    import yaml

    return [doc for path in sorted(out.rglob("*.yaml")) for doc in yaml.safe_load_all(path.read_text())]


def test_source_file_name_with_newlines_cannot_inject_yaml(tmp_path):
    sources = _import_sources(tmp_path, "EX07-LON-01", "evil\nspec:\n  injected: 1\n.reg")
    completed = run("import", sources, "--output", tmp_path / "out", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr.decode()[-2000:]
    documents = _imported_documents(tmp_path / "out")
    assert documents and not any("injected" in json.dumps(doc, default=str) for doc in documents)
    assert "# from evil\\nspec:\\n  injected: 1\\n.reg" in (tmp_path / "out" / "stores" / "pfdb-lon-01.yaml").read_text()


def test_very_long_server_name_imports_completely(tmp_path):
    long_name = "EX" + "X" * 298
    sources = _import_sources(tmp_path, long_name, "store.reg")
    completed = run("import", sources, "--output", tmp_path / "out", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr.decode()[-2000:]
    documents = _imported_documents(tmp_path / "out")
    names = {(doc["kind"], doc["metadata"]["name"]) for doc in documents}
    assert ("Server", long_name) in names
    assert any(kind == "PublicFolderDatabase" and long_name.lower() in name.lower() for kind, name in names)
    assert all(len(path.name) < 120 for path in (tmp_path / "out").rglob("*"))


def test_import_source_that_is_a_fifo_is_an_error_not_a_hang(tmp_path):
    sources = _import_sources(tmp_path, "EX07-LON-01", "store.reg")
    os.mkfifo(sources / "pipe.xml")
    completed = run("import", sources, "--output", tmp_path / "out", cwd=tmp_path, timeout=60)
    assert completed.returncode == 2
    assert "pipe.xml" in completed.stderr.decode() and "not a regular file" in completed.stderr.decode()


# -- the record cache ------------------------------------------------------------------

def test_cache_sees_new_content_with_the_same_size_and_modification_time(tmp_path, monkeypatch):
    """``cp -p``, tar or a reused CI workspace: equal size and mtime, other content."""
    from test_cache import SERVER, check, make

    monkeypatch.setenv("EXLINT_CACHE_DIR", str(tmp_path / "cache"))
    repo = make(tmp_path / "repo")
    before = (repo / "a.yaml").stat()
    assert check(repo / "store.yaml")[0] == 0  # fills the cache
    renamed = SERVER.format(name="EX10-Z")  # as long as "EX10-A": the same size
    assert len(renamed) == before.st_size
    (repo / "a.yaml").write_text(renamed)
    os.utime(repo / "a.yaml", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (repo / "a.yaml").stat().st_mtime_ns == before.st_mtime_ns
    code, body = check(repo / "store.yaml")
    assert code == 1 and [f["rule"] for f in body["findings"]] == ["EXL007"]


def test_old_record_caches_are_evicted(tmp_path, monkeypatch):
    from test_cache import check, make

    from linter.cache import KEEP_RECORD_CACHES

    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("EXLINT_CACHE_DIR", str(cache))
    for number in range(KEEP_RECORD_CACHES + 5):  # other workspaces' caches, older
        old = cache / f"records-{number:016x}.marshal"
        old.write_text("{}")
        os.utime(old, (1_000_000 + number, 1_000_000 + number))
    repo = make(tmp_path / "repo")
    assert check(repo / "store.yaml")[0] == 0
    left = sorted(p.name for p in cache.glob("records-*"))
    assert len(left) == KEEP_RECORD_CACHES
    newest_old = {f"records-{n:016x}.marshal" for n in range(5 + 1, KEEP_RECORD_CACHES + 5)}
    assert newest_old < set(left)  # the most recently used ones stay, this repo's among them


def test_deep_json_line_is_a_finding(tmp_path):
    """Found by the fuzz: json.loads accepts ~1,000 levels, which every recursive
    walk after it did not."""
    root = repo(tmp_path)
    (root / "stores" / "a.jsonl").write_text('{"apiVersion": "exlint/v1", "x": ' + "[" * 900 + "]" * 900 + "}\n")
    findings = report(run("check", "--format", "json", "stores/a.jsonl", cwd=root))["findings"]
    assert [(f["rule"], f["line"]) for f in findings if f["file"]] == [("EXL001", 1)]
    assert "nesting deeper than" in findings[-1]["message"] or "nesting deeper than" in findings[0]["message"]


def test_file_over_the_size_limit_is_a_finding(tmp_path, monkeypatch):
    from linter import loading

    path = tmp_path / "big.yaml"
    path.write_text(STORE.format(name="PFDB-1", hours=1) * 4)
    monkeypatch.setattr(loading, "MAX_FILE_BYTES", 100)
    loaded = loading.load_file(path, "big.yaml")
    assert loaded.documents == [] and [(f.rule, f.line) for f in loaded.findings] == [("EXL001", 1)]
    assert "larger than" in loaded.findings[0].message
    monkeypatch.setattr(loading, "MAX_FILE_BYTES", 10_000)
    assert len(loading.load_file(path, "big.yaml").documents) == 1


@pytest.mark.parametrize("kind", ["outside", "fifo"])
def test_import_never_reads_outside_or_special_files_of_the_output(tmp_path, kind):
    sources = _import_sources(tmp_path, "EX07-LON-01", "store.reg")
    out = tmp_path / "out"
    (out / "stores").mkdir(parents=True)
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"apiVersion: exlint/v1\nkind: Server\nmetadata: {{name: {SECRET}}}\n")
    if kind == "outside":
        (out / "stores" / "linked.yaml").symlink_to(secret)
    else:
        os.mkfifo(out / "stores" / "linked.yaml")
    completed = run("import", sources, "--output", out, cwd=tmp_path, timeout=60)
    assert completed.returncode == 2
    err = completed.stderr.decode()
    assert "linked.yaml" in err and SECRET not in err + completed.stdout.decode()
    assert secret.read_text().startswith("apiVersion")


def test_import_diagnostics_escape_control_characters(tmp_path):
    sources = _import_sources(tmp_path, "EX07-LON-01", "store.reg")
    (sources / "bad\n::error file=x::forged\x1b[2J.reg").write_text("not a registry export\n")
    completed = run("import", sources, "--output", tmp_path / "out", cwd=tmp_path)
    err = completed.stderr.decode()
    assert completed.returncode == 2 and "\x1b" not in err
    assert not any(line.startswith("::error") for line in err.splitlines())
    assert "bad\\n::error file=x::forged\\x1b[2J.reg" in err


# -- the site graph: links as hubs give the costs of links as member cliques -----------

def _reference_graph(sites, links):
    """Floyd-Warshall over every pair of members of every link (the old, cubic model). A cost
    exlint cannot read (None, negative) links its sites at 0, the least it can be."""
    nodes = sorted({s for s in sites if s} | {s for members, cost in links
                                              if len({m for m in members if m}) > 1
                                              for s in members if s})
    far = float("inf")
    dist = {(a, b): (0 if a == b else far) for a in nodes for b in nodes}
    for members, cost in links:
        members = [m for m in members if m]
        if cost is None or cost < 0:
            cost = 0
        for a in members:
            for b in members:
                if a != b and cost < dist[(a, b)]:
                    dist[(a, b)] = cost
    for k in nodes:
        for a in nodes:
            for b in nodes:
                if dist[(a, k)] + dist[(k, b)] < dist[(a, b)]:
                    dist[(a, b)] = dist[(a, k)] + dist[(k, b)]
    return {(a, b): d for (a, b), d in dist.items() if a != b and d != far}


def test_site_graph_costs_match_a_reference():
    import random

    from linter.topology import build_site_graph

    rng = random.Random(20)
    for _ in range(300):
        sites = [f"s{i}" for i in range(rng.randint(0, 9))]
        pool = sites + ["x1", "x2", None]
        links = [([rng.choice(pool) for _ in range(rng.randint(0, 5))], rng.choice([None, -1, 0, 1, 5, 10, 100]))
                 for _ in range(rng.randint(0, 7))]
        graph = build_site_graph(sites, links)
        assert graph.cost == _reference_graph(sites, links), (sites, links)
        for (a, b) in graph.cost:
            assert graph.site_group(a) == graph.site_group(b)
