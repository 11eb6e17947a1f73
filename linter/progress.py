"""A progress display for long runs: named stages with counts and elapsed time.

Drawn on standard error, and only when standard error is a terminal (and the
user did not ask for ``--quiet``, and TERM is not ``dumb``); otherwise every
call is a cheap no-op, so pipes, CI logs and pre-commit never see it. A run
that ends within ``delay`` seconds draws nothing at all, so a quick
``exlint check`` on a laptop stays as quiet as before.

Use::

    with Progress(enabled=not quiet) as progress:
        progress.stage("load", total=len(paths), unit="files")
        for path in paths:
            ...
            progress.advance()
        progress.stage("evaluate", total=len(rules), unit="rules")
        ...

The line is redrawn in place (``\\r`` and erase-line) at most every
``interval`` seconds, and, with ``ticker=True``, also by a small background
thread so the elapsed time moves during a long step that reports nothing
(a Spark job). When the run ends, the line is replaced by a one-line summary
of the stages (``load 47 files 0.3s · validate 92 documents 0.1s · …``).

A long job (``exlint estate``) can also ask for a ``heartbeat``: where standard
error is not a terminal (a CI log), a plain status line is printed every
``heartbeat`` seconds, so the log shows the job is alive and where it is. And a
stage whose work happens elsewhere (Spark) can be ``follow``-ed: a function
called at every redraw gives its count, total and what it is on now.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass

ERASE = "\r\x1b[2K"


@dataclass
class _Stage:
    name: str
    total: int | None
    unit: str
    started: float
    count: int = 0
    ended: float | None = None
    follow: object = None  # () -> (count, total, detail) or None, for work done elsewhere
    detail: str = ""


def _seconds(value: float) -> str:
    if value < 60:
        return f"{value:.1f}s"
    minutes, seconds = divmod(int(value), 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """Stages with counts and elapsed time on a terminal; silent otherwise."""

    def __init__(self, enabled: bool = True, stream=None, *, delay: float = 0.5, interval: float = 0.1,
                 ticker: bool = False, clock=time.monotonic, prefix: str = "exlint", heartbeat: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        terminal = _is_terminal(self.stream) and os.environ.get("TERM") != "dumb"
        self.enabled = bool(enabled) and terminal
        # not a terminal: no redrawn line, but a line every `heartbeat` seconds
        self.heartbeat = heartbeat if enabled and heartbeat and not terminal else None
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.prefix = prefix
        self.stages: list[_Stage] = []
        self.started = clock()
        self._drawn = False
        self._last = float("-inf")
        self._lock = threading.Lock()
        self._closed = False
        self._ticker = None
        self._stop = threading.Event()
        if (self.enabled and ticker) or self.heartbeat:
            self._ticker = threading.Thread(target=self._tick if self.enabled else self._beat,
                                            name="exlint-progress", daemon=True)
            self._ticker.start()

    # -- the API the engines call ------------------------------------------------
    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.done(summary=exc_type is None)

    @property
    def current(self) -> _Stage | None:
        return self.stages[-1] if self.stages and self.stages[-1].ended is None else None

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None:
        """End the current stage (if any) and start ``name``; ``total`` when known."""
        if self._closed:
            return
        now = self.clock()
        with self._lock:
            if self.current is not None:
                self.current.ended = now
            self.stages.append(_Stage(name, total, unit, now))
        self._draw(force=True)

    def advance(self, n: int = 1) -> None:
        """``n`` more items of the current stage are done."""
        stage = self.current
        if stage is None or self._closed:
            return
        stage.count += n
        if self.enabled:
            self._draw()

    def follow(self, source) -> None:
        """The current stage's count, total and detail come from ``source()``, which
        returns ``(count, total, detail)`` (an item None: left as it is), or None
        when it has nothing to say."""
        if self.current is not None:
            self.current.follow = source

    def unfollow(self) -> None:
        """Take the followed numbers one last time (the work is done) and stop."""
        stage = self.current
        if stage is not None and stage.follow is not None:
            self._poll(stage)
            stage.follow = None
            stage.detail = ""

    def set_total(self, total: int | None) -> None:
        """The current stage's total, once known."""
        if self.current is not None:
            self.current.total = total
            self._draw(force=True)

    def clear(self) -> None:
        """Erase the line (before other output on standard error); the next update redraws it."""
        if self.enabled and self._drawn and not self._closed:
            with self._lock:
                self._write(ERASE)

    def done(self, summary: bool = True) -> None:
        """End the run: erase the line and, if anything was shown, print the summary."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=1)
        now = self.clock()
        if self.current is not None:
            self.current.ended = now
        if not self.enabled:
            return
        with self._lock:
            if not self._drawn:
                return
            text = ERASE
            if summary and self.stages:
                text += self.summary_line(now) + "\n"
            self._write(text)

    # -- drawing ---------------------------------------------------------------
    def summary_line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        parts = []
        for stage in self.stages:
            elapsed = (stage.ended if stage.ended is not None else now) - stage.started
            count = f" {stage.count}{' ' + stage.unit if stage.unit else ''}" if stage.count or stage.total else ""
            parts.append(f"{stage.name}{count} {_seconds(elapsed)}")
        return f"{self.prefix}: " + " \u00b7 ".join(parts) + f" ({_seconds(now - self.started)} in all)"

    def status_line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        stage = self.current
        if stage is None:
            return f"{self.prefix}: {_seconds(now - self.started)}"
        self._poll(stage)
        number = len(self.stages)
        if stage.total:
            share = min(1.0, stage.count / stage.total)
            filled = int(share * 20)
            bar = "[" + "#" * filled + "-" * (20 - filled) + "]"
            counted = f"{bar} {stage.count}/{stage.total}{' ' + stage.unit if stage.unit else ''} {share:4.0%}"
        else:
            counted = f"{stage.count}{' ' + stage.unit if stage.unit else ''}" if stage.count else "\u2026"
        detail = f" \u00b7 {stage.detail}" if stage.detail else ""
        return (f"{self.prefix}: [{number}] {stage.name} {counted} "
                f"{_seconds(now - stage.started)} ({_seconds(now - self.started)} in all){detail}")

    @staticmethod
    def _poll(stage: _Stage) -> None:
        if stage.follow is None:
            return
        try:
            answer = stage.follow()
        except Exception:  # noqa: BLE001 - a display must never fail the run
            answer = None
        if answer is not None:
            count, total, detail = answer
            stage.count = stage.count if count is None else count
            stage.total = stage.total if total is None else total
            stage.detail = stage.detail if detail is None else detail

    def _draw(self, force: bool = False) -> None:
        if not self.enabled or self._closed:
            return
        now = self.clock()
        if now - self.started < self.delay:
            return
        if not force and now - self._last < self.interval:
            return
        with self._lock:
            if self._closed:
                return
            self._last = now
            self._drawn = True
            self._write(ERASE + self.status_line(now)[: self._width()])

    def _width(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        return max(40, columns - 1) if columns else 119

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal must not fail the run
            self.enabled = False

    def _tick(self) -> None:
        while not self._stop.wait(max(self.interval, 0.25)):
            self._draw(force=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            with self._lock:
                if self._closed:
                    return
                self._write(self.status_line() + "\n")


class _Null(Progress):
    def __init__(self):
        super().__init__(enabled=False)


def null() -> Progress:
    """A progress that shows nothing (the default of library calls)."""
    return _Null()
