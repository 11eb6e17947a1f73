"""Atomic file replacement, shared by everything exlint writes (fixed files,
imported documents, reports, baselines): the data goes to a temporary file in
the same directory, which then replaces the target with ``os.replace``; a
failure at any point leaves the original bytes (or no file) as they were.
Existing files keep their permission bits and owner.
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile


def _write_temporary(handle, data: bytes) -> None:
    """Write the new content to the temporary file (a seam for failure tests)."""
    handle.write(data)


def atomic_write(path: str, data: bytes, expected: bytes | None = None, create: bool = False) -> None:
    """Replace the file at ``path`` with ``data``, atomically.

    Raises OSError (PermissionError for a read-only file, even when running as
    root: a file without any write permission bit is not replaced). With
    ``expected``, refuses to write when the file no longer holds those bytes.
    With ``create`` (a report, baseline or imported document: a file exlint owns),
    a missing file is created (mode from the umask), and a symbolic link at
    ``path`` is itself replaced, never the file it points to (a committed
    ``exlint.sarif -> ../../elsewhere`` must not make exlint write elsewhere).
    Without it (``--fix``), the file a link inside the repository points to is
    edited; links leaving the repository are never loaded (linter.loading).
    """
    target = os.path.abspath(path) if create else os.path.realpath(path)
    try:
        info = os.stat(target) if not create or not os.path.islink(target) else None
    except FileNotFoundError:
        if not create:
            raise
        info = None
    if info is not None and (not info.st_mode & 0o222 or not os.access(target, os.W_OK)):
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
        if info is None:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        else:
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
        if info is not None and hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
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


