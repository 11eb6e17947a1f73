"""Whether a report file may be replaced: ``--output`` and ``--write-baseline``
overwrite only what exlint wrote (an earlier report or baseline, of any
format), an empty file, or no file; never one of the files being linted,
never anything else (a YAML file of the repository, someone's notes). An
existing FIFO, character device or ``/dev/stdout`` is written into, not
replaced (linter.atomic).

What exlint wrote is told by content, each format by the marks it always
writes at its start (and, for the line formats, at its end), so nothing is
added that a consumer of the format would have to skip:

- json: ``{"version": "1", "tool": {"name": "exlint", …`` (the JSON contract);
- a baseline: ``{"version": 1, "tool": "exlint", …``;
- sarif: ``runs[0].tool.driver.name`` is ``exlint``, near the start;
- junit: ``<testsuites name="exlint"``;
- html: ``<meta name="generator" content="exlint …">`` in the head;
- text: every line a finding (``path:line:col: ID [severity] …``) up to the
  summary (``N file(s), N document(s): N error(s), …``) and the line of fixes;
- github: workflow commands (``::error …``) up to ``exlint: N error(s), …``.
"""
from __future__ import annotations

import os
import re
import stat

from linter.atomic import resolve_target

HEAD = 8192  # the marks of every format are within the first bytes
TAIL = 4096

_JSON = re.compile(rb'\A\{\s*"version"\s*:\s*"1"\s*,\s*"tool"\s*:\s*\{\s*"name"\s*:\s*"exlint"\s*[,}]')
_BASELINE = re.compile(rb'\A\{\s*"version"\s*:\s*\d+\s*,\s*"tool"\s*:\s*"exlint"\s*[,}]')
_SARIF = re.compile(rb'\A\{\s*"\$schema"\s*:\s*"[^"]*sarif[^"]*"\s*,\s*"version"\s*:\s*"2\.1\.0"\s*,\s*"runs"\s*:\s*\['
                    rb'\s*\{\s*"tool"\s*:\s*\{\s*"driver"\s*:\s*\{\s*"name"\s*:\s*"exlint"\s*[,}]')
_JUNIT = re.compile(rb'\A<\?xml [^>]*\?>\s*<testsuites name="exlint"[ >]')
_HTML = re.compile(rb'\A<!DOCTYPE html>.{0,2000}?<meta name="generator" content="exlint[ "]', re.DOTALL | re.IGNORECASE)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # a text report captured with --color always
_SEVERITY = r"\[(?:error|warning|info)\]"
_TEXT_FINDING = re.compile(rf"(?:.+:\d+:\d+|<estate>): \S+ {_SEVERITY} .*")
_TEXT_SUMMARY = re.compile(r"\d+ file\(s\), \d+ document\(s\): \d+ error\(s\), \d+ warning\(s\), \d+ info"
                           r"(?:; \d+ file\(s\) skipped: not exlint documents)?")
_TEXT_FIXES = re.compile(r"\d+ fixable with --fix(?: \(\d+ more with --unsafe-fixes\))?")
_GITHUB_FINDING = re.compile(r"::(?:error|warning|notice) [^\n]*::.*")
_GITHUB_SUMMARY = re.compile(r"exlint: \d+ error\(s\), \d+ warning\(s\), \d+ info")


class OutputRefused(ValueError):
    """A report path exlint must not write; the message names it and the way out."""


def _line_report(head: bytes, tail: bytes, whole: bool) -> bool:
    """A text or github report: findings (of the format) up to its summary."""
    def decode(data: bytes) -> list[str]:
        return _ANSI.sub("", data.decode("utf-8", "replace")).split("\n")

    first = decode(head) if whole else decode(head)[:-1]  # the head's last line may be cut
    last = first if whole else decode(tail)[1:]  # and the tail's first
    last = list(last)
    while last and not last[-1]:
        last.pop()
    if not first or not last:
        return False
    if _TEXT_SUMMARY.fullmatch(last[-1]) or (
            len(last) > 1 and _TEXT_FIXES.fullmatch(last[-1]) and _TEXT_SUMMARY.fullmatch(last[-2])):
        ours = (_TEXT_FINDING, _TEXT_SUMMARY, _TEXT_FIXES)
    elif _GITHUB_SUMMARY.fullmatch(last[-1]):
        ours = (_GITHUB_FINDING, _GITHUB_SUMMARY)
    else:
        return False
    return all(any(pattern.fullmatch(line) for pattern in ours) for line in first if line)


def written_by_exlint(head: bytes, tail: bytes = b"", whole: bool = True) -> bool:
    """Whether a file starting with ``head`` (and ending with ``tail``; ``whole``:
    ``head`` is the whole file) is a report or baseline exlint wrote."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if any(pattern.match(head) for pattern in (_JSON, _BASELINE, _SARIF, _JUNIT, _HTML)):
        return True
    return _line_report(head, tail, whole)


def _read_ends(path: str, size: int) -> tuple[bytes, bytes, bool]:
    with open(path, "rb") as handle:
        head = handle.read(HEAD)
        if size <= HEAD:
            return head, b"", True
        handle.seek(max(HEAD, size - TAIL))
        return head, handle.read(), False


def _same_file(info: os.stat_result, other: str) -> bool:
    try:
        known = os.stat(other)
    except OSError:
        return False
    return (known.st_dev, known.st_ino) == (info.st_dev, info.st_ino)


def _check_folder(path: str, target: str, option: str) -> None:
    """OutputRefused when the folder a new file would go into is missing or not
    writable: found before the run, not after it (and after --fix edited files)."""
    what = "the baseline" if option == "--write-baseline" else "a report"
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise OutputRefused(f"{path}: cannot write {what} there: the folder {folder} does not exist; "
                            f"create it or choose another {option} path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputRefused(f"{path}: cannot write {what} there: the folder {folder} is not writable; "
                            f"choose another {option} path")


def check_output(path: str, option: str = "--output", inputs=()) -> None:
    """OutputRefused when writing a report (or baseline) to ``path`` could destroy
    what exlint did not write: ``path`` is one of ``inputs`` (the files being
    linted, the configuration, the baseline read), or holds something other than
    an exlint report. A path that does not exist yet, an empty file, a FIFO or a
    character device are fine. OSError when ``path`` cannot be examined."""
    target = resolve_target(path)
    if target.kind == "file" and target.info is None:
        _check_folder(path, target.path, option)
    if target.kind != "file" or target.info is None:
        return
    for other in inputs:
        if _same_file(target.info, str(other)):
            raise OutputRefused(f"{path}: is one of exlint's inputs ({other}); writing the report there would "
                                f"replace it: choose another {option} path")
    if not stat.S_ISREG(target.info.st_mode) or target.info.st_size == 0:
        return
    try:
        head, tail, whole = _read_ends(target.path, target.info.st_size)
    except OSError as exc:
        raise OutputRefused(f"{path}: exists and cannot be read to tell whether exlint wrote it "
                            f"({exc.strerror or exc}); choose another {option} path") from None
    if not written_by_exlint(head, tail, whole):
        raise OutputRefused(f"{path}: exists and is not a report exlint wrote; choose another {option} path, "
                            "or move the file aside first")
    # a baseline is not a report, nor a report a baseline: one must not replace the other
    # (`--output bl.json` made the next `--baseline bl.json` fail, its findings gone)
    stripped = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    is_baseline = bool(_BASELINE.match(stripped))
    if option == "--write-baseline" and not is_baseline:
        raise OutputRefused(f"{path}: is a report exlint wrote, not a baseline; choose another --write-baseline "
                            "path (a baseline replaces only a baseline)")
    if option != "--write-baseline" and is_baseline:
        raise OutputRefused(f"{path}: is a baseline exlint wrote, not a report; choose another {option} path "
                            "(a report replaces only a report)")
