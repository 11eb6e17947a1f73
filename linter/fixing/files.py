"""Reading, encoding and atomically replacing the files `--fix` edits, and the
unified diff `--diff` prints.

A file is written back in its own encoding (UTF-8, with its BOM if it had one;
UTF-16 with its BOM); line endings are part of the text and never rewritten.
Writes go to a temporary file in the same directory, keep the original's
permission bits, and replace the original with ``os.replace``: a failure at any
point leaves the original bytes as they were.
"""
from __future__ import annotations

import codecs
import difflib
import errno
import os
import re
import stat
import tempfile

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def encode_like(raw: bytes, text: str) -> bytes:
    """``text`` encoded as the file whose bytes were ``raw`` (same encoding and BOM)."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return bom + text.encode(encoding)
    return text.encode("utf-8")


def _write_temporary(handle, data: bytes) -> None:
    """Write the new content to the temporary file (a seam for failure tests)."""
    handle.write(data)


def atomic_write(path: str, data: bytes, expected: bytes | None = None) -> None:
    """Replace the file at ``path`` with ``data``, atomically.

    Raises OSError (PermissionError for a read-only file, even when running as
    root: a file without any write permission bit is not replaced). With
    ``expected``, refuses to write when the file no longer holds those bytes.
    """
    target = os.path.realpath(path)
    info = os.stat(target)
    if not info.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only", path)
    if expected is not None:
        with open(target, "rb") as handle:
            if handle.read() != expected:
                raise OSError(errno.EBUSY, "the file changed on disk while exlint was running", path)
    directory, name = os.path.split(target)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".exlint-fix")
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_temporary(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(temporary, info.st_uid, info.st_gid)
            except OSError:
                pass
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of one file, as `git diff` would show it (``a/`` and ``b/`` paths)."""
    shown = path.replace(os.sep, "/")
    out = []
    for line in difflib.unified_diff(_LINE.findall(old), _LINE.findall(new), f"a/{shown}", f"b/{shown}"):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)
