"""A cache of the model records of files that are loaded only to resolve
references (the rest of the config repo when a hook passes three changed
files), so that a pre-commit run does not re-parse thousands of unchanged files.

It lives in the user's cache directory (``$EXLINT_CACHE_DIR``, else
``$XDG_CACHE_HOME/exlint`` or ``~/.cache/exlint``), never in the repository, and
holds JSON only. An entry is used only while the file's identity is unchanged
(device, inode, size, modification and change times: ``cp -p``, tar or a reused
CI workspace can restore a size and an mtime with other content, but writing a
file always moves its change time, which no tool can set back) and the exlint
version, schemas and model tables are the ones that wrote it. Records are
stored with marshal (plain data: dicts, lists, strings, numbers; read 2.5x
faster than the same JSON, which a pre-commit hook on thousands of files
feels), keyed to the Python version that wrote them. Findings are never
cached: files being reported are always read. Only the KEEP_RECORD_CACHES most
recently used repositories' caches are kept (a CI runner checks out a new
workspace path every run, each with a cache of its own).
"""
from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path

from linter import __version__
from linter.resources import model_tables_file, schemas_dir

# 2: signatures with device, inode and change time; 3: records in marshal; 4: versions the schema
# rejects and blank names read as unreadable; 5: the parent document of a list item
# (`org_document`); 6: an empty CN= read as naming nothing, digits 0-9 alone (records built by
# older code are not reused)
FORMAT = 6
KEEP_RECORD_CACHES = 8


def cache_dir() -> Path:
    explicit = os.environ.get("EXLINT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "exlint"


def _store(path: Path, body) -> None:
    from linter.atomic import atomic_write

    try:
        data = marshal.dumps(body)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(str(path), data, create=True)
    except (OSError, ValueError, TypeError):
        pass  # a cache that cannot be written (or holds what cannot be stored) only costs time


def _fingerprint() -> str:
    import hashlib  # only runs that resolve references need it: a one-file run starts without it

    digest = hashlib.sha256(f"{FORMAT}|{__version__}|{sys.version}|{marshal.version}".encode())
    for path in [model_tables_file(), *sorted(schemas_dir().glob("*.json"))]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class RecordCache:
    def __init__(self, root: Path):
        import hashlib

        key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
        self.path = cache_dir() / f"records-{key}.marshal"
        self.stamp = _fingerprint()
        self.entries: dict[str, dict] = {}
        self.dirty = False
        try:
            with open(self.path, "rb") as handle:
                body = marshal.loads(handle.read())
            if isinstance(body, dict) and body.get("stamp") == self.stamp and isinstance(body.get("files"), dict):
                self.entries = body["files"]
        except (OSError, ValueError, EOFError, TypeError):
            pass  # absent, damaged or from another Python: rebuilt

    @staticmethod
    def _signature(path: Path) -> list[int] | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]

    def get(self, path: Path, display: str):
        entry = self.entries.get(display)
        if entry is None or entry.get("signature") != self._signature(path):
            return None
        return entry["records"], entry["documents"]

    def put(self, path: Path, display: str, records: dict[str, list[dict]], documents: int) -> None:
        signature = self._signature(path)
        if signature is None:
            return
        # Context records are never reported, so their positions are dropped here,
        # in place: a cold run then holds what a warm one holds (the marks of
        # 10,000 context files were half of a hook run's memory).
        for rows in records.values():
            for record in rows:
                record["_marks"] = {}
        slim = {table: rows for table, rows in records.items() if rows}
        self.entries[display] = {"signature": signature, "records": slim, "documents": documents}
        self.dirty = True

    def prune(self, keep: set[str]) -> None:
        for name in set(self.entries) - keep:
            del self.entries[name]
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            _store(self.path, {"stamp": self.stamp, "files": self.entries})
            self.dirty = False
        else:
            _touch(self.path)  # used: the eviction keeps the most recently used
        _evict(self.path.parent, "records-*", KEEP_RECORD_CACHES)


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _evict(directory: Path, pattern: str, keep: int) -> None:
    """Delete all but the ``keep`` most recently used files matching ``pattern``."""
    try:
        found = [(p.stat().st_mtime, p) for p in directory.glob(pattern)]
    except OSError:
        return
    for _, stale in sorted(found, reverse=True)[keep:]:
        try:
            stale.unlink()
        except OSError:
            pass


class ParsedFileCache:
    """Parsed YAML data of small, often-read files (rule packs, model tables),
    for the start-up of a one-file hook run. Each entry holds its data as marshal
    bytes, so every ``get`` returns fresh objects (callers may change them);
    dates, which marshal cannot hold, are tagged, and only entries that hold
    some pay for the walk that restores them."""

    def __init__(self, name: str):
        self.name = name
        self.path = cache_dir() / f"{name}-{FORMAT}-{__version__}.marshal"
        self.entries: dict = {}
        self.dirty = False
        try:
            with open(self.path, "rb") as handle:
                body = marshal.loads(handle.read())
            if isinstance(body, dict) and body.get("stamp") == _python_stamp():
                self.entries = body.get("entries") if isinstance(body.get("entries"), dict) else {}
        except (OSError, ValueError, EOFError, TypeError):
            pass

    def get(self, path: Path):
        entry = self.entries.get(str(path.resolve()))
        if not isinstance(entry, dict) or entry.get("signature") != RecordCache._signature(path):
            return None
        try:
            data = marshal.loads(entry["data"])
            return _decode(data) if entry.get("tagged") else data
        except (TypeError, ValueError, KeyError, EOFError):
            return None

    def put(self, path: Path, data) -> None:
        try:
            tagged = _has_dates(data)
            stored = marshal.dumps(_encode(data) if tagged else data)
        except (TypeError, ValueError, KeyError, RecursionError):
            return  # not plain data: simply not cached
        signature = RecordCache._signature(path)
        if signature is not None:
            self.entries[str(path.resolve())] = {"signature": signature, "data": stored, "tagged": tagged}
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            _store(self.path, {"stamp": _python_stamp(), "entries": self.entries})
            self.dirty = False
            _evict(self.path.parent, f"{self.name}-*", 1)  # what other exlint versions and formats wrote


def _python_stamp() -> str:
    """marshal's format is the interpreter's: an entry is read only by the Python that wrote it."""
    return f"{sys.version}|{marshal.version}"


def _has_dates(value) -> bool:
    import datetime

    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, (datetime.date, datetime.datetime)):
            return True
    return False


_PAIRS, _DATE = "\u0000pairs", "\u0000date"


def _encode(value):
    """JSON for YAML data: mappings with non-string keys and dates are tagged."""
    import datetime

    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {_PAIRS: [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {_DATE: value.isoformat(), "datetime": isinstance(value, datetime.datetime)}
    return value


def _decode(value):
    import datetime

    if isinstance(value, dict):
        if _PAIRS in value:
            return {_decode(k): _decode(v) for k, v in value[_PAIRS]}
        if _DATE in value:
            kind = datetime.datetime if value["datetime"] else datetime.date
            return kind.fromisoformat(value[_DATE])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


_parsed: dict[str, ParsedFileCache] = {}


def parsed_file_cache(name: str) -> ParsedFileCache:
    if name not in _parsed:
        _parsed[name] = ParsedFileCache(name)
    return _parsed[name]
