"""`exlint estate` fails like a Unix tool: whatever goes wrong inside Spark is
one line naming the cause and what to do (the trace in a log file), exit 2;
Ctrl-C stops Spark and exits 130 leaving no process and no output behind; and
`--output` never replaces a directory exlint did not write."""
from __future__ import annotations

import hashlib
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.engines.spark.failures import describe, is_spark_failure

REPO = Path(__file__).resolve().parents[2]
INVENTORY = REPO / "samples" / "inventory" / "estate.jsonl"


# -- the one line for each kind of failure (the texts are Spark's own) --------------------------------
@pytest.mark.parametrize("text, expected", [
    ("An error occurred while calling o88.collectToPython.\n: org.apache.spark.SparkException: Job aborted due to "
     "stage failure: Task 0 in stage 3.0 failed 1 times, most recent failure: Lost task 0.0 in stage 3.0 (TID 3) "
     "(127.0.0.1 executor driver): java.lang.OutOfMemoryError: Java heap space\n\tat java.base/...",
     "ran out of memory: give Spark more memory: --conf spark.driver.memory=8g"),
    ("ModuleNotFoundError: No module named 'linter'", "cannot import 'linter'"),
    ("py4j.protocol.Py4JNetworkError: Answer from Java side is empty", "the Spark driver stopped unexpectedly"),
    ("org.apache.spark.SparkException: [FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER] Encountered error while reading "
     "file file:///data/inv/east.parquet. Could not read footer.",
     "a Parquet file of the inventory cannot be read (///data/inv/east.parquet)"),
    ("java.io.IOException: Cannot run program \"python9\": error=2, No such file or directory",
     "cannot start the Python 'python9'"),
    ("Job aborted due to stage failure: Task 1 in stage 7.0 failed 4 times, most recent failure: Lost task 1.3 in "
     "stage 7.0 (TID 9) (10.0.0.5 executor 1): java.io.FileNotFoundException: /tmp/blockmgr-1/0c/shuffle_2_0.data "
     "(No such file or directory)\n\tat java.base/java.io.FileInputStream.open0(Native Method)",
     "java.io.FileNotFoundException: /tmp/blockmgr-1/0c/shuffle_2_0.data (No such file or directory)"),
    # a failure no cause matches, raised by a call into the JVM: what Java said, as a refused start says it
    ("Py4JJavaError: An error occurred while calling o45.collectToPython.\n: org.apache.spark.SparkException: "
     "[INTERNAL_ERROR] The plan cannot be executed\n\tat org.apache.spark.SparkException$.internalError",
     "The plan cannot be executed"),
    # a --conf value refused inside the job (spark-submit's session builds its SQL state late)
    ("IllegalArgumentException: Error while instantiating 'org.apache.spark.sql.internal.SessionStateBuilder':\n\n"
     "JVM stacktrace:\njava.lang.IllegalArgumentException: Error while instantiating\nCaused by: org.apache.spark."
     "SparkIllegalArgumentException: [INVALID_CONF_VALUE.TYPE_MISMATCH] The value 'abc' in the config \"spark.sql."
     "shuffle.partitions\" is invalid. It should be a/an 'int' value. SQLSTATE: 22022\n\t... 22 more",
     "Spark refused a setting: The value 'abc' in the config \"spark.sql.shuffle.partitions\" is invalid. It should "
     "be a/an 'int' value: fix that --conf value or drop it"),
])
def test_a_spark_failure_is_one_line_naming_cause_and_fix(text, expected):
    line = describe(RuntimeError(text))
    assert expected in line, line
    assert "\n" not in line and "\tat " not in line and len(line) < 500


def test_spark_and_py4j_exceptions_are_told_apart_from_exlints_own():
    from py4j.protocol import Py4JNetworkError
    from pyspark.errors import AnalysisException

    assert is_spark_failure(Py4JNetworkError("gone"))
    assert is_spark_failure(AnalysisException(message="x"))
    assert is_spark_failure(ConnectionResetError())
    assert not is_spark_failure(KeyError("x"))


# -- --output never destroys what exlint did not write (refused before Spark starts) -------------------
def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _estate_refused(cwd: Path, *args) -> subprocess.CompletedProcess:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "linter", "estate", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 60  # refused up front, not after a Spark job
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("target", [".", "data", "../work"])
def test_output_refuses_directories_exlint_did_not_write(tmp_path, target):
    work = tmp_path / "work"
    (work / "data" / "nested").mkdir(parents=True)
    (work / "inventory.jsonl").write_bytes(INVENTORY.read_bytes())
    (work / "data" / "notes.txt").write_text("the user's notes\n", encoding="utf-8")
    (work / "data" / "nested" / "more.bin").write_bytes(bytes(range(256)))
    before = _tree(tmp_path)
    done = _estate_refused(work, "inventory.jsonl", "--output", target)
    assert "give a new" in done.stderr
    assert _tree(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]


def test_output_refuses_the_folder_that_holds_the_inventory(tmp_path):
    (tmp_path / "inv").mkdir()
    (tmp_path / "inv" / "estate.jsonl").write_bytes(INVENTORY.read_bytes())
    before = _tree(tmp_path)
    done = _estate_refused(tmp_path, "inv/estate.jsonl", "--output", "inv")
    assert "holds the inventory" in done.stderr
    assert _tree(tmp_path) == before


def test_output_replaces_an_earlier_exlint_output_and_only_that(spark, tmp_path):
    out = tmp_path / "findings"
    first = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--quiet", "--output", str(out),
                                     "--output-format", "jsonl", "--fail-on", "never"])
    assert first.exit_code == 0, first.output
    assert (out / "_EXLINT_FINDINGS").is_file()
    again = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--quiet", "--output", str(out),
                                     "--fail-on", "never"])
    assert again.exit_code == 0, again.output
    assert list(out.rglob("*.parquet")) and not list(out.rglob("*.json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings"]  # no staging or old copy left
    # a note put beside the findings since is not deleted with them: the output is refused
    for added in (out / "NOTES.md", out / "analysis" / "q1.csv", out / "rule=REP001" / "mine.txt"):
        added.parent.mkdir(exist_ok=True)
        added.write_text("the user's\n")
        before = _tree(tmp_path)
        refused = CliRunner().invoke(cli, ["estate", str(INVENTORY), "--quiet", "--output", str(out)])
        assert refused.exit_code == 2 and "which exlint did not write" in refused.stderr, refused.output
        assert _tree(tmp_path) == before
        added.unlink()


# -- an executor-side failure ---------------------------------------------------------------------------
def test_a_malformed_parquet_file_is_one_line_and_exit_2(spark, tmp_path):
    broken = tmp_path / "east.parquet"
    broken.write_bytes(b"PAR1" + b"\x00" * 64 + b"not a footer" + b"PAR1")
    done = CliRunner().invoke(cli, ["estate", str(broken), "--quiet"])
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Parquet file" in lines[0] and "east.parquet" in lines[0] and "details:" in lines[0]
    assert "Traceback" not in done.output


def test_a_failing_thread_of_the_run_goes_to_the_log_not_the_terminal(tmp_path, capfd, monkeypatch):
    # Ctrl-C or a lost driver while the rules are planned in threads: their py4j calls fail
    import logging
    import threading

    from linter.engines.spark.command import _log_py4j_to

    root = logging.getLogger()
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    log = tmp_path / "run.log"
    _log_py4j_to(log)

    def planning():
        raise ConnectionError("Answer from Java side is empty")

    thread = threading.Thread(target=planning, name="planner")
    thread.start()
    thread.join()
    for handler in root.handlers:
        handler.close()
    assert capfd.readouterr().err == ""
    text = log.read_text(encoding="utf-8")
    assert "thread planner" in text and "Traceback" in text and "Answer from Java side is empty" in text


# -- Ctrl-C and a lost driver, on a terminal ---------------------------------------------------------------
def _session_processes(sid: int) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != sid:
            try:
                fields = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
                if int(fields[4]) == sid and fields[0] != b"Z":
                    found.append(Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200])
            except (OSError, IndexError, ValueError):
                continue
    return found


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _on_terminal(tmp_path, act, until: str):
    """Run estate on a pseudo-terminal in a session of its own; once the screen shows
    ``until``, ``act(pid)``; return (exit code, screen, the session's processes left)."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    process = subprocess.Popen([sys.executable, "-m", "linter", "estate", str(INVENTORY), "--output",
                                str(tmp_path / "findings")], cwd=tmp_path, stdin=slave, stdout=slave, stderr=slave,
                               env=env, start_new_session=True)
    os.close(slave)
    screen, acted, deadline = b"", False, time.monotonic() + 600
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data and process.poll() is not None:
                break
            screen += data
        if not acted and until.encode() in screen:
            time.sleep(2)
            act(process.pid)
            acted = True
        if process.poll() is not None and not ready:
            break
    process.wait(timeout=120)
    os.close(master)
    assert acted, screen.decode(errors="replace")[-2000:]
    time.sleep(2)
    return process.returncode, screen.decode(errors="replace"), _session_processes(process.pid)


def _last_lines(screen: str) -> list[str]:
    # the progress line is redrawn in place (\r, erase-line): what remains after the last erase
    text = re.sub(r"\r\x1b\[2K[^\r\n]*(?=\r\x1b\[2K)", "", screen).replace("\r\x1b[2K", "")
    return [line.strip("\r") for line in text.splitlines() if line.strip("\r")]


@pytest.mark.slow
def test_ctrl_c_exits_130_with_one_line_and_leaves_nothing_behind(tmp_path):
    # mid-run: the rules' stage (parsing a small inventory is now over in about a second)
    code, screen, left = _on_terminal(tmp_path, lambda pid: os.killpg(pid, signal.SIGINT), until="evaluate")
    assert code == 130, screen[-2000:]
    assert "Traceback" not in screen and "py4j" not in screen.lower(), screen[-3000:]
    lines = _last_lines(screen)
    assert lines[-1] == "exlint: interrupted: Spark stopped, nothing written", lines
    assert all(line.startswith("exlint: ") for line in lines), lines
    assert left == [], left
    assert not (tmp_path / "findings").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".findings")]


@pytest.mark.slow
def test_a_lost_driver_is_one_line_and_exit_2(tmp_path):
    def kill_the_jvm(pid):
        for child in _children(pid):
            if b"java" in Path(f"/proc/{child}/cmdline").read_bytes():
                os.kill(child, signal.SIGKILL)

    code, screen, left = _on_terminal(tmp_path, kill_the_jvm, until="evaluate")
    assert code == 2, screen[-2000:]
    assert "Traceback" not in screen, screen[-3000:]
    last = _last_lines(screen)[-1]
    assert last.startswith("exlint: error: the Spark driver stopped unexpectedly") and "details: " in last, last
    log = Path(last.rsplit("details: ", 1)[1].rstrip(")"))
    assert log.is_file() and "Traceback" in log.read_text(encoding="utf-8", errors="replace")
    assert left == [], left
    assert not (tmp_path / "findings").exists()


# -- a Spark that cannot start says why, at once ---------------------------------------------------
def test_an_unreachable_master_is_refused_at_once_with_its_cause(tmp_path):
    # Spark itself retries for about a minute and then names no cause
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _estate_refused(tmp_path, INVENTORY, "--master", f"spark://127.0.0.1:{port}")
    assert f"cannot reach the Spark master spark://127.0.0.1:{port}: connection refused" in done.stderr, done.stderr
    assert "--master" in done.stderr


def test_a_jvm_that_cannot_start_names_its_own_cause(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(scratch)}
    done = subprocess.run([sys.executable, "-m", "linter", "estate", str(INVENTORY), "--conf",
                           "spark.driver.memory=1k"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    # what the JVM said (not Spark's "Java gateway process exited"), and where its log is
    assert "the Java VM did not start: Too small maximum heap" in done.stderr, done.stderr
    assert "JAVA_GATEWAY_EXITED" not in done.stderr
    assert str(tmp_path / "cache") in done.stderr
    assert list(scratch.iterdir()) == []  # its scratch directory was left behind


@pytest.mark.parametrize("conf, said", [
    ("spark.sql.shuffle.partitions=abc", "The value 'abc' in the config \"spark.sql.shuffle.partitions\" is invalid"),
    ("spark.sql.ansi.enabled=maybe", "The value 'maybe' in the config \"spark.sql.ansi.enabled\" is invalid"),
])
def test_a_conf_value_spark_refuses_is_named_before_the_job(tmp_path, conf, said):
    # it was "Spark failed: IllegalArgumentException: Error while instantiating
    # 'org.apache.spark.sql.internal.SessionStateBuilder'" from the job's first query, the cause only in the log
    done = _estate_refused(tmp_path, INVENTORY, "--conf", conf, "-q")
    assert done.stderr.startswith(f"exlint: error: cannot start Spark: {said}"), done.stderr  # at the start, named
    assert "fix that --conf value or drop it" in done.stderr and "SessionStateBuilder" not in done.stderr


def test_a_master_url_spark_cannot_use_is_told_to_check_master(tmp_path):
    done = _estate_refused(tmp_path, INVENTORY, "--master", "bogus://x", "-q")
    assert "Master must either be yarn or start with spark, k8s, or local" in done.stderr, done.stderr
    assert done.stderr.rstrip().endswith("check --master (local[*], spark://HOST:7077, yarn or k8s://https://HOST:PORT)")
    assert "JAVA_HOME" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.5])
def test_ctrl_c_while_the_jvm_starts_leaves_no_jvm_and_no_scratch(tmp_path, delay):
    # PySpark keeps the JVM's process to itself while it starts: a Ctrl-C then left a JVM
    # running for hours (its connection file removed under it) and its scratch directory
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(scratch)}
    process = subprocess.Popen([sys.executable, "-m", "linter", "estate", str(INVENTORY), "-q"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not _java_below(process.pid):  # the JVM's launcher has started
        time.sleep(0.02)
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    time.sleep(2)
    assert process.returncode == 130, err
    assert _session_processes(process.pid) == []
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("exlint-spark-")]


def _descendants(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        children = []
        for parent in pending:
            try:
                children += _children(parent)
            except OSError:
                continue
        found += children
        pending = children
    return [p for p in found if Path(f"/proc/{p}").exists()]


def _java_below(pid: int) -> bool:
    for child in _descendants(pid):
        try:
            if b"java" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_a_refused_start_names_what_java_said():
    # Py4J's own first line names only the call ("An error occurred while calling None.org....")
    from linter.engines.spark.session import _first_line

    said = RuntimeError("An error occurred while calling None.org.apache.spark.api.java.JavaSparkContext.\n"
                        ": org.apache.spark.SparkException: Asked to run locally with 0 threads\n"
                        "\tat org.apache.spark.SparkContext$.error(SparkContext.scala:3000)\n")
    assert _first_line(said) == "Asked to run locally with 0 threads"
    assert _first_line(RuntimeError("no JVM\nmore")) == "no JVM"


def test_an_error_raised_while_ctrl_c_was_handled_is_an_interruption():
    from linter.engines.spark.threads import was_interrupted

    def raised_in_the_handler():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("Gateway must be connected to send cancel cmd.")

    try:
        raised_in_the_handler()
    except RuntimeError as exc:
        assert was_interrupted(exc)
    assert not was_interrupted(RuntimeError("a Spark failure"))
    looped = RuntimeError("a")
    looped.__context__ = ValueError("b")
    looped.__context__.__context__ = looped
    assert not was_interrupted(looped), "a cycle in the chain ends the search"
