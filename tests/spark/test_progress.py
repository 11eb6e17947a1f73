"""The progress display of `exlint estate` on a real terminal (a pseudo-terminal
as its standard error): the stages load, validate, evaluate and write, each with
its count and elapsed time; silent with --quiet and when standard error is not a
terminal."""
from __future__ import annotations

import os
import pty
import re
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
ESTATE = REPO / "samples" / "estate"


class Terminal:
    """A pseudo-terminal: ``stream`` is the program's side, ``text`` what appeared on the screen."""

    def __init__(self):
        self.master, slave = pty.openpty()
        self.stream = os.fdopen(slave, "w", buffering=1, encoding="utf-8")
        self.chunks: list[bytes] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the program's side was closed
                return
            if not data:
                return
            self.chunks.append(data)

    def close(self) -> str:
        self.stream.flush()
        self.stream.close()
        self.reader.join(timeout=10)
        os.close(self.master)
        return b"".join(self.chunks).decode("utf-8", "replace")


def _estate_on_terminal(spark, monkeypatch, capsys, *args) -> tuple[str, str]:
    terminal = Terminal()
    assert terminal.stream.isatty()
    monkeypatch.setattr(sys, "stderr", terminal.stream)
    monkeypatch.setenv("TERM", "xterm")
    with pytest.raises(SystemExit) as exited:
        cli.main(["estate", str(ESTATE), "--fail-on", "never", *args], prog_name="exlint", standalone_mode=False)
    assert exited.value.code == 0
    screen = terminal.close()
    return screen, capsys.readouterr().out


def test_progress_on_a_terminal_shows_every_stage_with_counts_and_time(spark, monkeypatch, capsys):
    screen, out = _estate_on_terminal(spark, monkeypatch, capsys)
    assert "\r\x1b[2K" in screen  # drawn in place, then erased
    assert re.search(r"exlint: \[\d\] (load|validate|evaluate|write) ", screen), screen[-2000:]
    summary = screen.rsplit("\x1b[2K", 1)[-1].strip()
    files = len([p for p in ESTATE.rglob("*.yaml") if not p.name.startswith(".")])
    records = re.search(r"(\d+) record\(s\) in", out).group(1)
    errors, warnings, infos = map(int, re.search(r"findings: (\d+) error\(s\), (\d+) warning\(s\), (\d+) info",
                                                 out).groups())
    rules = len(load_rules())
    expected = (rf"^exlint: load {files} files [\d.]+s \u00b7 start Spark [\d.ms]+ \u00b7 validate {records} records "
                rf"[\d.ms]+ \u00b7 evaluate [1-9]\d* Spark stages \({rules} rules\) [\d.ms]+ \u00b7 "
                rf"write( {errors + warnings + infos} findings)? [\d.]+s \([\dhms.]+ in all\)$")
    assert re.match(expected, summary), summary
    # the evaluate stage moves as Spark's stages complete, never backwards, rather than jumping at the end
    counts = [int(n) for n in re.findall(r"evaluate (\d+) Spark stages", screen)]
    assert len(set(counts)) >= 3 and counts == sorted(counts), counts


def test_quiet_draws_nothing_even_on_a_terminal(spark, monkeypatch, capsys):
    screen, out = _estate_on_terminal(spark, monkeypatch, capsys, "--quiet")
    assert screen == ""
    assert "findings:" in out


def test_a_log_gets_a_plain_line_every_heartbeat_and_no_redrawn_line(spark, monkeypatch):
    from linter.engines.spark import command

    # often enough for a few lines even when the warm test session runs the job in ~2 s
    monkeypatch.setattr(command, "HEARTBEAT", 0.25)
    done = CliRunner().invoke(cli, ["estate", str(ESTATE), "--fail-on", "never"])
    assert done.exit_code == 0, done.output
    assert "\x1b[" not in done.stderr and "\r" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) >= 3, done.stderr
    assert all(re.match(r"exlint: \[\d\] [a-zS ]+ .* \([\dhms.]+ in all\)", line) for line in lines), lines
    assert any(" evaluate " in line for line in lines), lines


def test_quiet_writes_no_progress_line_to_a_log(spark):
    done = CliRunner().invoke(cli, ["estate", str(ESTATE), "--fail-on", "never", "--quiet"])
    assert done.exit_code == 0, done.output
    assert done.stderr == ""
