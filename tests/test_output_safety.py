"""What `exlint check --output/--write-baseline` and `exlint generate` may write
over, and how failures end (product rules: outputs touch only their own files,
atomically, and never destroy what exlint did not write; every failure is one
line and exit 2, 130 on Ctrl-C).

- A report or baseline replaces only a file exlint wrote (recognised by its
  content, any format), an empty file, or no file; never an input, never
  anything else (linter.reports.ownership).
- An existing FIFO, character device or ``/dev/stdout`` is written into, not
  replaced by a regular file; a link to a regular file is written through (the
  link stays).
- Standard output that cannot be written is exit 2 and one line, no trace.
- Ctrl-C is exit 130 and one line; no temporary file is left, and ``generate``
  leaves no partial estate."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter import atomic
from linter.cli import cli
from linter.reports.ownership import written_by_exlint

from test_hostile import ROOT, STORE  # one store document for the hostile-input tests
FORMATS = {"json": "report.json", "sarif": "report.sarif", "junit": "report.xml", "html": "report.html",
           "text": "report.txt", "github": "report.log"}


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "stores").mkdir(parents=True)
    (root / ".exlint.yaml").write_text("{}\n")
    (root / "stores" / "a.yaml").write_text(STORE.format(name="PFDB-1", hours=2000))
    return root


def invoke(*args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, [str(a) for a in args])
    finally:
        os.chdir(old)


def run(*args, cwd: Path, timeout: float = 120, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kwargs.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "linter", *map(str, args)], cwd=cwd, env=env, timeout=timeout,
                          stdin=subprocess.DEVNULL, **kwargs)


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def refused(result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    line = one_line(result.stderr)
    assert line.startswith("exlint: error:")
    return line


def no_temporaries(root: Path) -> None:
    assert not [p for p in root.rglob("*") if ".exlint-" in p.name or p.name.endswith(".tmp")]


# -- 1. an existing file that exlint did not write is never replaced -----------------------------

@pytest.mark.parametrize("option", [("--format", "json", "--output"), ("--format", "sarif", "--output"),
                                    ("--write-baseline",)], ids=["json", "sarif", "baseline"])
def test_an_input_being_linted_is_never_replaced(tmp_path, option):
    root = repo(tmp_path)
    victim = root / "stores" / "a.yaml"
    before = victim.read_bytes()
    line = refused(invoke("check", *option, "stores/a.yaml", ".", cwd=root))
    assert "stores/a.yaml" in line and "choose another" in line
    assert victim.read_bytes() == before
    no_temporaries(root)


def test_an_empty_input_is_refused_too(tmp_path):
    root = repo(tmp_path)
    (root / "stores" / "empty.yaml").write_text("")
    line = refused(invoke("check", "--format", "json", "--output", "stores/empty.yaml", "stores", cwd=root))
    assert "stores/empty.yaml" in line and "inputs" in line
    assert (root / "stores" / "empty.yaml").read_bytes() == b""


def test_the_baseline_read_is_not_replaced_by_a_report(tmp_path):
    root = repo(tmp_path)
    assert invoke("check", "--write-baseline", "known.json", "stores", cwd=root).exit_code == 0
    before = (root / "known.json").read_bytes()
    line = refused(invoke("check", "--baseline", "known.json", "--output", "known.json", "stores", cwd=root))
    assert "known.json" in line
    assert (root / "known.json").read_bytes() == before
    # recording the baseline again over the one read is an update, and allowed
    assert invoke("check", "--baseline", "known.json", "--write-baseline", "known.json", "stores",
                  cwd=root).exit_code == 0


@pytest.mark.parametrize("name, content", [
    (".exlint.yaml", "{}\n"),
    ("notes.json", '{"mine": true}\n'),
    ("notes.txt", "hello\n"),
    ("notes.xml", '<?xml version="1.0"?>\n<testsuites name="pytest"/>\n'),
    ("notes.html", "<!DOCTYPE html><html><head><title>mine</title></head></html>\n"),
    # the line formats are recognised by every line, not by a summary copied at the end
    ("notes.log", "my own notes\nexlint: 0 error(s), 0 warning(s), 0 info\n"),
], ids=["config", "json", "text", "junit", "html", "github-lookalike"])
def test_a_foreign_file_is_refused_with_one_line(tmp_path, name, content):
    root = repo(tmp_path)
    (root / name).write_text(content)
    args = ["--format", "github"] if name.endswith(".log") else ["--format", "json"] if name.endswith(".yaml") else []
    line = refused(invoke("check", *args, "--output", name, "stores", cwd=root))
    assert name in line and "not a report exlint wrote" in line and "choose another --output" in line
    assert (root / name).read_text() == content
    no_temporaries(root)


def test_a_foreign_file_is_refused_before_fix_edits_anything(tmp_path):
    root = repo(tmp_path)
    (root / "notes.json").write_text("{}\n")
    before = (root / "stores" / "a.yaml").read_bytes()
    refused(invoke("check", "--fix", "--unsafe-fixes", "--output", "notes.json", "stores", cwd=root))
    assert (root / "stores" / "a.yaml").read_bytes() == before


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_replaces_its_own_earlier_report(tmp_path, fmt):
    root = repo(tmp_path)
    name = FORMATS[fmt]
    first = invoke("check", "--format", fmt, "--output", name, "stores", cwd=root)
    assert first.exit_code == 1, first.output
    (root / "stores" / "b.yaml").write_text(STORE.format(name="PFDB-2", hours=3000))
    again = invoke("check", "--format", fmt, "--output", name, "stores", cwd=root)
    assert again.exit_code == 1, again.output
    assert "PFDB-2" in (root / name).read_text()
    no_temporaries(root)


def test_an_exlint_report_of_another_format_and_an_empty_file_may_be_replaced(tmp_path):
    root = repo(tmp_path)
    assert invoke("check", "--format", "sarif", "--output", "out.json", "stores", cwd=root).exit_code == 1
    assert invoke("check", "--format", "json", "--output", "out.json", "stores", cwd=root).exit_code == 1
    assert json.loads((root / "out.json").read_text())["tool"]["name"] == "exlint"
    (root / "empty.txt").write_text("")
    assert invoke("check", "--output", "empty.txt", "stores", cwd=root).exit_code == 1
    assert (root / "empty.txt").read_text().strip()


def test_the_same_file_named_twice_is_refused(tmp_path):
    root = repo(tmp_path)
    line = refused(invoke("check", "--output", "r.json", "--format", "sarif", "--output", "./r.json", "stores",
                          cwd=root))
    assert "named twice" in line


def test_the_recognisers_know_every_format_and_nothing_else(tmp_path):
    root = repo(tmp_path)
    for fmt, name in FORMATS.items():
        assert invoke("check", "--format", fmt, "--output", name, "stores", cwd=root).exit_code == 1
        data = (root / name).read_bytes()
        assert written_by_exlint(data), fmt
        assert written_by_exlint(data[:8192], data[-4096:], whole=False), fmt
    assert invoke("check", "--write-baseline", "b.json", "stores", cwd=root).exit_code == 0
    assert written_by_exlint((root / "b.json").read_bytes())
    coloured = run("check", "--color", "always", "stores", cwd=root).stdout
    assert b"\x1b[" in coloured and written_by_exlint(coloured)
    for foreign in [b"", (root / "stores" / "a.yaml").read_bytes(), b'{"version": "1", "tool": {"name": "other"}}',
                    b"path:1:2: X001 [error] looks like a finding\nbut this is not a report\n",
                    (ROOT / "README.md").read_bytes(), (ROOT / "pyproject.toml").read_bytes()]:
        assert not written_by_exlint(foreign), foreign[:80]


# -- 2. FIFOs, devices and links are written into, not replaced -------------------------------------

def test_a_link_to_an_exlint_report_is_written_through_and_stays_a_link(tmp_path):
    root = repo(tmp_path)
    (root / "reports").mkdir()
    assert invoke("check", "--output", "reports/real.json", "stores", cwd=root).exit_code == 1
    os.chmod(root / "reports" / "real.json", 0o640)
    (root / "link.json").symlink_to("reports/real.json")
    (root / "stores" / "b.yaml").write_text(STORE.format(name="PFDB-2", hours=3000))
    assert invoke("check", "--output", "link.json", "stores", cwd=root).exit_code == 1
    assert (root / "link.json").is_symlink()
    assert "PFDB-2" in (root / "reports" / "real.json").read_text()
    assert stat.S_IMODE((root / "reports" / "real.json").stat().st_mode) == 0o640
    no_temporaries(root)


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
def test_a_link_to_a_foreign_file_is_refused_and_both_stay(tmp_path, option):
    root = repo(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    (root / "exlint.out").symlink_to(outside)
    args = ["--format", "sarif", "--output", "exlint.out"] if option == "--output" else \
        ["--write-baseline", "exlint.out"]
    line = refused(invoke("check", *args, "stores", cwd=root))
    assert "exlint.out" in line
    assert outside.read_text() == "precious\n"
    assert (root / "exlint.out").is_symlink()


def test_a_link_to_a_missing_file_is_refused_and_creates_nothing(tmp_path):
    root = repo(tmp_path)
    (root / "r.json").symlink_to(tmp_path / "elsewhere.json")
    line = refused(invoke("check", "--output", "r.json", "stores", cwd=root))
    assert "r.json" in line and "link to a missing file" in line
    assert not (tmp_path / "elsewhere.json").exists() and (root / "r.json").is_symlink()


def test_a_directory_is_refused(tmp_path):
    root = repo(tmp_path)
    (root / "d.json").mkdir()
    result = invoke("check", "--write-baseline", "d.json", "stores", cwd=root)
    assert result.exit_code == 2 and "d.json" in result.stderr and (root / "d.json").is_dir()


def test_a_fifo_is_written_into(tmp_path):
    root = repo(tmp_path)
    fifo = root / "pipe.json"
    os.mkfifo(fifo)
    received = []

    def reader():
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        completed = run("check", "--output", "pipe.json", "stores", cwd=root, timeout=60)
        thread.join(10)
    finally:
        if thread.is_alive():  # exlint never opened it: let the reader see an end of file
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            thread.join(10)
    assert completed.returncode == 1, completed.stderr
    assert json.loads(received[0])["tool"]["name"] == "exlint"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    no_temporaries(root)


def test_a_character_device_is_written_into(tmp_path):
    root = repo(tmp_path)
    null = root / "null.json"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device here: {exc}")
    completed = run("check", "--write-baseline", "null.json", "stores", cwd=root)
    assert completed.returncode == 0, completed.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    completed = run("check", "--output", "null.json", "stores", cwd=root)
    assert completed.returncode == 1, completed.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)


# These tests never name a node of the real /dev on the command line: exlint as it
# was (root in a container) replaced /dev/null, /dev/full and /dev/stdout with
# regular files, and a regression must not break the machine running the tests.

def test_dev_stdout_and_dev_fd_are_exlints_own_descriptors():
    assert atomic.resolve_target("/dev/stdout") == atomic.Target("stream", "/dev/stdout", fd=1)
    assert atomic.resolve_target("/dev/stderr").fd == 2
    assert atomic.resolve_target("/dev/fd/2").fd == 2
    assert atomic.resolve_target(f"/proc/{os.getpid()}/fd/1").kind == "stream"
    assert atomic.resolve_target("/proc/self/fd/1").fd == 1


def _link_to_stdout(root: Path) -> Path:
    if not os.path.exists("/proc/self/fd"):
        pytest.skip("no /proc/self/fd")
    link = root / "stdout.json"
    link.symlink_to("/proc/self/fd/1")  # as /dev/stdout is on Linux
    return link


def test_a_link_to_proc_self_fd_1_writes_to_standard_output(tmp_path):
    root = repo(tmp_path)
    link = _link_to_stdout(root)
    completed = run("check", "--output", "stdout.json", "stores", cwd=root)
    assert completed.returncode == 1, completed.stderr
    assert json.loads(completed.stdout)["tool"]["name"] == "exlint"
    assert os.readlink(link) == "/proc/self/fd/1"


def test_standard_output_redirected_to_a_file_gets_the_report(tmp_path):
    root = repo(tmp_path)
    link = _link_to_stdout(root)
    with open(tmp_path / "captured.json", "wb") as handle:
        completed = run("check", "--format", "json", "--output", "stdout.json", "stores", cwd=root,
                        capture_output=False, stdout=handle, stderr=subprocess.PIPE)
    assert completed.returncode == 1, completed.stderr
    assert json.loads((tmp_path / "captured.json").read_text())["tool"]["name"] == "exlint"
    assert link.is_symlink()


def test_atomic_write_follows_a_link_and_keeps_it(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    atomic.atomic_write(str(tmp_path / "link.json"), b"new", create=True, follow=True)
    assert real.read_text() == "new" and (tmp_path / "link.json").is_symlink()
    # without follow (the record cache, `exlint estate --report`), a link is replaced, never followed
    (tmp_path / "other.json").symlink_to("real.json")
    atomic.atomic_write(str(tmp_path / "other.json"), b"own", create=True)
    assert real.read_text() == "new" and not (tmp_path / "other.json").is_symlink()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):  # only reports (special=True) write into one
        atomic.atomic_write(str(fifo), b"x", create=True, follow=True)


# -- 3. standard output that cannot be written -------------------------------------------------------

@pytest.mark.skipif(not (os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode)),
                    reason="no /dev/full")
@pytest.mark.parametrize("args, needle", [
    (("check", "--format", "json", "stores"), "cannot write the report to standard output: No space left on device"),
    (("rules",), "cannot write to standard output: No space left on device"),
    (("schema",), "cannot write to standard output: No space left on device"),
], ids=["check", "rules", "schema"])
def test_a_full_standard_output_is_one_line_and_exit_2(tmp_path, args, needle):
    root = repo(tmp_path)
    with open("/dev/full", "wb") as full:
        completed = run(*args, cwd=root, capture_output=False, stdout=full, stderr=subprocess.PIPE)
    line = one_line(completed.stderr.decode())
    assert completed.returncode == 2, completed.stderr
    assert line.startswith("exlint: error: ") and needle in line


def test_a_report_file_that_cannot_be_written_is_one_line(tmp_path):
    root = repo(tmp_path)
    try:  # a /dev/full of its own
        os.mknod(root / "full.json", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device here: {exc}")
    completed = run("check", "--format", "json", "--output", "full.json", "stores", cwd=root)
    line = one_line(completed.stderr.decode())
    assert completed.returncode == 2 and "full.json: cannot write report: No space left on device" in line
    assert stat.S_ISCHR(os.lstat(root / "full.json").st_mode)


def test_an_oserror_writing_standard_output_in_process_is_exit_2(tmp_path, monkeypatch):
    root = repo(tmp_path)
    import click

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(click, "echo", lambda *a, **k: full() if not k.get("err") else None)
    result = invoke("check", "--format", "json", "stores", cwd=root)
    assert result.exit_code == 2 and "Traceback" not in result.output


# -- 4. Ctrl-C -----------------------------------------------------------------------------------------

def test_ctrl_c_during_check_is_130_and_one_line(tmp_path, monkeypatch):
    root = repo(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("linter.runner.lint", interrupted)
    result = invoke("check", "stores", cwd=root)
    assert result.exit_code == 130
    line = one_line(result.stderr)
    assert line.startswith("exlint: interrupted (Ctrl-C)") and "Aborted" not in result.output


def test_ctrl_c_while_the_command_starts_is_130_and_one_line():
    # the interrupt lands while the CLI's modules are imported, before any of exlint's
    # handlers exists: it printed Python's traceback (17 of 60 interrupts in the first 60 ms)
    code = ("import sys\n"
            "class Interrupt:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'linter.cli':\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, Interrupt())\n"
            "from linter.entry import main\n"
            "main()\n")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                               cwd=Path(__file__).resolve().parents[1])
    assert completed.returncode == 130, completed.stderr
    assert one_line(completed.stderr).startswith("exlint: interrupted (Ctrl-C)")
    assert "Traceback" not in completed.stderr


def test_the_installed_command_and_python_m_start_at_the_entry_that_handles_an_early_interrupt():
    import tomllib

    from linter.cli import INTERRUPTED
    from linter.entry import INTERRUPTED as EARLY

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["exlint"] == "linter.entry:main"
    assert EARLY == f"exlint: {INTERRUPTED}"
    main_module = (Path(__file__).resolve().parents[1] / "linter" / "__main__.py").read_text()
    assert "from linter.entry import main" in main_module


def test_ctrl_c_while_a_report_is_written_leaves_no_temporary_file(tmp_path, monkeypatch):
    root = repo(tmp_path)
    assert invoke("check", "--output", "r.json", "stores", cwd=root).exit_code == 1
    before = (root / "r.json").read_bytes()

    def interrupted(handle, data):
        handle.write(data[:10])
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic, "_write_temporary", interrupted)
    result = invoke("check", "--output", "r.json", "stores", cwd=root)
    assert result.exit_code == 130, result.output
    assert (root / "r.json").read_bytes() == before
    no_temporaries(root)


@pytest.mark.parametrize("fmt, name", [("yaml", "estate"), ("jsonl", "estate.jsonl")])
def test_ctrl_c_during_generate_leaves_nothing(tmp_path, monkeypatch, fmt, name):
    from linter.generate.core import Generator

    original = Generator._write_site
    calls = []

    def write_site(self, j):
        calls.append(j)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(self, j)

    monkeypatch.setattr(Generator, "_write_site", write_site)
    result = invoke("generate", "--servers", "200", "--format", fmt, "--output", name, cwd=tmp_path)
    assert result.exit_code == 130, result.output
    assert one_line(result.stderr).startswith("exlint: interrupted (Ctrl-C)")
    assert list(tmp_path.iterdir()) == []  # no partial estate, no manifest.json.tmp, no staging


def test_ctrl_c_during_generate_overwrite_keeps_the_earlier_estate(tmp_path, monkeypatch):
    from linter.generate.core import Generator

    assert invoke("generate", "--servers", "60", "--output", "estate", "-q", cwd=tmp_path).exit_code == 0
    before = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "estate").rglob("*") if p.is_file()}

    def write_site(self, j):
        raise KeyboardInterrupt

    monkeypatch.setattr(Generator, "_write_site", write_site)
    result = invoke("generate", "--servers", "60", "--seed", "2", "--output", "estate", "--overwrite", cwd=tmp_path)
    assert result.exit_code == 130
    after = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "estate").rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in (tmp_path / "estate").iterdir() if p.name.startswith(".")] == [".exlint.yaml"]


def test_generate_overwrite_replaces_an_earlier_estate_only(tmp_path):
    assert invoke("generate", "--servers", "60", "--output", "estate", "-q", cwd=tmp_path).exit_code == 0
    result = invoke("generate", "--servers", "60", "--seed", "2", "--output", "estate", "--overwrite", "-q",
                    cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "estate" / "manifest.json").read_text())["seed"] == 2
    mine = tmp_path / "mine"
    (mine / "servers").mkdir(parents=True)
    (mine / "servers" / "notes.yaml").write_text("mine\n")
    result = invoke("generate", "--servers", "60", "--output", "mine", "--overwrite", cwd=tmp_path)
    assert result.exit_code == 2 and "did not write" in result.stderr
    assert (mine / "servers" / "notes.yaml").read_text() == "mine\n"


def test_generate_into_an_empty_directory_fills_it(tmp_path):
    (tmp_path / "estate").mkdir()
    assert invoke("generate", "--servers", "60", "--output", "estate", "-q", cwd=tmp_path).exit_code == 0
    assert (tmp_path / "estate" / "manifest.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["estate"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_real_sigint_to_generate_is_130_and_leaves_no_partial_tree(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "linter", "generate", "--servers", "200000", "--output", "big"],
                               cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        # wait until it writes its staging tree
        while not any(p.name.endswith(".exlint-generate") for p in tmp_path.iterdir()):
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
            time.sleep(0.05)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert one_line(err.decode()).startswith("exlint: interrupted (Ctrl-C)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", ["stores/a.yaml", "notes.html"])
def test_the_estate_report_refuses_an_input_or_a_foreign_file_before_spark_starts(tmp_path, target):
    # `exlint estate --report` is checked as --output is, before any JVM starts (no spark fixture here)
    pytest.importorskip("pyspark")
    root = repo(tmp_path)
    (root / "notes.html").write_text("<html>the team's notes</html>\n")
    before = (root / target).read_bytes()
    line = refused(invoke("estate", ".", "--report", target, "--quiet", cwd=root))
    assert target in line and "--report" in line
    assert (root / target).read_bytes() == before


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
def test_an_output_in_a_missing_folder_is_refused_before_fix_edits_anything(tmp_path, option):
    # the files were fixed, then the report could not be written: exit 2 with the edits made
    root = repo(tmp_path)
    before = (root / "stores" / "a.yaml").read_bytes()
    args = ("--fix",) if option == "--output" else ()
    result = invoke("check", *args, option, "missing/r.json", ".", cwd=root)
    assert result.exit_code == 2 and "does not exist" in result.stderr and "missing" in result.stderr, result.output
    assert (root / "stores" / "a.yaml").read_bytes() == before and not (root / "missing").exists()


def test_a_report_never_replaces_a_baseline_nor_a_baseline_a_report(tmp_path):
    root = repo(tmp_path)
    assert invoke("check", "--write-baseline", "bl.json", ".", cwd=root).exit_code == 0
    baseline = (root / "bl.json").read_bytes()
    result = invoke("check", "--format", "json", "--output", "bl.json", ".", cwd=root)
    assert result.exit_code == 2 and "is a baseline exlint wrote, not a report" in result.stderr
    assert (root / "bl.json").read_bytes() == baseline
    assert invoke("check", "--write-baseline", "bl.json", ".", cwd=root).exit_code == 0  # a baseline replaces one
    assert invoke("check", "--output", "r.html", ".", cwd=root).exit_code == 1
    report = (root / "r.html").read_bytes()
    result = invoke("check", "--write-baseline", "r.html", ".", cwd=root)
    assert result.exit_code == 2 and "is a report exlint wrote, not a baseline" in result.stderr
    assert (root / "r.html").read_bytes() == report


@pytest.mark.parametrize("extra", [["--output", "r.sarif"], ["--compare", "known.json"]])
def test_write_baseline_with_a_report_option_is_refused_not_ignored(tmp_path, extra):
    root = repo(tmp_path)
    (root / "known.json").write_text('{"findings": []}\n')
    result = invoke("check", "--write-baseline", "b.json", *extra, "stores", cwd=root)
    assert result.exit_code == 2 and "writes no report" in result.stderr, result.output
    assert not (root / "b.json").exists() and not (root / "r.sarif").exists()
