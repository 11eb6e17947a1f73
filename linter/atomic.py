"""Atomic file replacement, shared by everything exlint writes (fixed files,
imported documents, reports, baselines): the data goes to a temporary file in
the same directory, which then replaces the target with ``os.replace``; a
failure at any point (an interrupt too) leaves the original bytes (or no file)
as they were, and no temporary file behind. Existing files keep their
permission bits and owner.

What exlint creates (``create=True``: a report, a baseline, an imported
document, a cache entry) replaces a symbolic link at its path, unless the
caller has checked what the link points to and asks to ``follow`` it (reports
and baselines, linter.reports.ownership; imported documents, whose links were
checked to stay inside the output directory): then the regular file the link
points to is replaced, and the link stays. With ``special=True`` (reports and
baselines, where the user names the path), an existing file that is not a
regular file (a FIFO, ``/dev/null``, a terminal) is written into directly, and
``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` (or a link to
``/proc/self/fd/N``) write to that descriptor of exlint's own.
"""
from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass


def _write_temporary(handle, data: bytes) -> None:
    """Write the new content to the temporary file (a seam for failure tests)."""
    handle.write(data)


@dataclass(frozen=True)
class Target:
    """Where a write to a path really goes.

    ``kind``: ``"file"`` (a regular file, or none yet: replaced atomically),
    ``"special"`` (an existing FIFO, character device or socket: written into)
    or ``"stream"`` (a descriptor of this process, ``fd``)."""

    kind: str
    path: str  # the real path (``"file"``, ``"special"``) or the name given (``"stream"``)
    info: os.stat_result | None = None  # the existing file's status (None: it does not exist yet)
    fd: int | None = None


_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2}
_FD = re.compile(r"/(?:dev/fd|proc/(?:self|thread-self|(\d+))/fd)/(\d+)")


def _stream_fd(path: str) -> int | None:
    if path in _STREAMS:
        return _STREAMS[path]
    match = _FD.fullmatch(path)
    if match is None or (match.group(1) is not None and int(match.group(1)) != os.getpid()):
        return None
    return int(match.group(2))


def resolve_target(path: str) -> Target:
    """Where writing ``path`` goes (see :class:`Target`), following symbolic
    links. OSError for a directory, a block device, a link to a missing file, a
    link loop."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit of links in a row
        fd = _stream_fd(current)
        if fd is not None:
            return Target("stream", path, fd=fd)
        try:
            link = os.readlink(current)
        except OSError:
            break  # not a link (or missing)
        current = os.path.normpath(os.path.join(os.path.dirname(current), link))
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
    except FileNotFoundError:
        if os.path.islink(path):
            raise OSError(errno.ENOENT, f"it is a symbolic link to a missing file ({os.readlink(path)}): "
                                        "remove the link or choose another path", path) from None
        return Target("file", real)
    if stat.S_ISREG(info.st_mode):
        return Target("file", real, info)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "it is a directory: name a file", path)
    if stat.S_ISBLK(info.st_mode):
        raise OSError(errno.EPERM, "it is a block device (a disk): exlint writes no report onto one; "
                                   "name a file", path)
    return Target("special", real, info)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_into(target: Target, data: bytes) -> None:
    """A stream or an existing special file: written into, never replaced."""
    if target.kind == "stream":
        import sys

        for stream in (sys.stdout, sys.stderr):  # what exlint already printed comes first
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        _write_all(target.fd, data)
        return
    fd = os.open(target.path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))  # never O_CREAT: it exists
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


READ_ONLY = "the file is read-only"  # why a file is not replaced (also said by --diff: linter.fixing.files)


def read_only(path: str, info: os.stat_result) -> bool:
    """A file no write bit allows writing (refused even when running as root), or one
    this process may not write."""
    return not info.st_mode & 0o222 or not os.access(path, os.W_OK)


def atomic_write(path: str, data: bytes, expected: bytes | None = None, create: bool = False,
                 special: bool = False, follow: bool = False) -> None:
    """Replace the file at ``path`` with ``data``, atomically.

    Raises OSError (PermissionError for a read-only file, even when running as
    root: a file without any write permission bit is not replaced). With
    ``expected``, refuses to write when the file no longer holds those bytes.
    With ``create`` (a report, baseline or imported document: a file exlint owns),
    a missing file is created (mode from the umask), and a symbolic link at
    ``path`` is itself replaced, never the file it points to (a committed
    ``exlint.sarif -> ../../elsewhere`` must not make exlint write elsewhere),
    unless ``follow``: then the regular file it points to is replaced and the
    link stays (a link to a missing file is an error, never a file created
    elsewhere; whether the file may be replaced at all is the caller's to
    decide, see linter.reports.ownership). With ``follow`` or ``special``, a
    path that is not a regular file is an error unless ``special`` (see the
    module's docstring). Without ``create`` (``--fix``), the file a link inside
    the repository points to is edited; links leaving the repository are never
    loaded (linter.loading).
    """
    if create and special:  # a stream or a FIFO is written into; stage() takes every other path
        resolved = resolve_target(path)
        if resolved.kind != "file":
            _write_into(resolved, data)
            return
    staged = stage(path, data, create, follow, expected)
    staged.commit()


@dataclass
class Staged:
    """A write prepared and not yet made (``stage``): the new bytes are on disk
    beside the target, which ``commit`` replaces and ``discard`` leaves as it was."""

    temporary: str
    target: str

    def commit(self) -> None:
        try:
            os.replace(self.temporary, self.target)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        try:
            os.unlink(self.temporary)
        except OSError:
            pass


def stage(path: str, data: bytes, create: bool = True, follow: bool = False,
          expected: bytes | None = None) -> Staged:
    """atomic_write in two steps, for a set of files written all or none (an
    import): every file is staged (its checks made, its bytes written beside it)
    before the first is committed, so a failure to write one writes none. The
    options are atomic_write's (a path that is not a regular file is an error)."""
    if create and follow:
        resolved = resolve_target(path)
        if resolved.kind != "file":
            raise OSError(errno.EINVAL, "it is not a regular file", path)
        target, info = resolved.path, resolved.info
    elif create:
        target = os.path.abspath(path)
        try:
            info = os.stat(target) if not os.path.islink(target) else None
        except FileNotFoundError:
            info = None
    else:
        target = os.path.realpath(path)
        info = os.stat(target)
    if info is not None and read_only(target, info):
        raise PermissionError(errno.EACCES, READ_ONLY, path)
    if expected is not None:
        with open(target, "rb") as handle:
            if handle.read() != expected:
                raise OSError(errno.EBUSY, "the file changed on disk while exlint was running", path)
    return Staged(_staged_copy(path, target, info, data), target)


def _staged_copy(path: str, target: str, info: os.stat_result | None, data: bytes) -> str:
    """A temporary file beside ``target`` holding ``data``, flushed to disk, with the
    original's permission bits and owner: what replaces ``target``. An error names
    ``path`` (the file asked for), never the temporary file."""
    directory, name = os.path.split(target)
    temporary = None
    try:  # an interrupt (Ctrl-C) from here on leaves no temporary file behind
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".exlint-fix")
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
        return temporary
    except BaseException as exc:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        if isinstance(exc, OSError) and exc.filename != path:
            raise OSError(exc.errno, exc.strerror or str(exc), path) from exc
        raise
