"""Where exlint keeps what a driver JVM leaves for the next one: the class-data
archive (driver_jvm) and the SQL parser's corpus (sql_warmup), side by side in
exlint's cache under one name per Java, Spark, Python and exlint version.

A leaf of both: the launcher and the warm-up each name and prune their files here,
so neither imports the other for it.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

ARCHIVE_SUFFIX = ".jsa"
CORPUS_SUFFIX = ".sql.json"


def cache_on() -> bool:
    """Whether exlint keeps the JVM's cache (archive and parser corpus): EXLINT_JVM_CACHE=0 is off."""
    return os.environ.get("EXLINT_JVM_CACHE", "1") != "0"


def archive_path(java: str) -> Path:
    """The archive for this Java, this Spark and this exlint: a name of their
    digest in exlint's cache directory (another combination writes its own)."""
    from linter import __version__
    from linter.cache import cache_dir

    import pyspark

    digest = hashlib.sha256()
    java_path = Path(java).resolve()
    for part in (str(java_path), str(java_path.stat().st_mtime_ns), __version__, pyspark.__version__,
                 sys.version):
        digest.update(part.encode() + b"\0")
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    if jars.is_dir():
        for jar in sorted(jars.iterdir()):
            stat = jar.stat()
            digest.update(f"{jar.name}:{stat.st_size}:{stat.st_mtime_ns}\0".encode())
    return cache_dir() / "jvm" / f"spark-{digest.hexdigest()[:20]}{ARCHIVE_SUFFIX}"


def corpus_path(java: str | None) -> Path | None:
    """Where this Java, Spark and exlint keep the SQL the parser is warmed with
    (sql_warmup): beside the class-data archive, under its name; None with the cache off."""
    if not cache_on() or java is None:
        return None
    try:
        archive = archive_path(java)
    except OSError:
        return None
    return archive.with_name(archive.name[:-len(ARCHIVE_SUFFIX)] + CORPUS_SUFFIX)


def prune_other_versions(kept: Path, suffix: str) -> None:
    """The cache's files of other Java, Spark or exlint versions (archives, or the parser's
    corpora: ``suffix``) removed: one of each is kept, the newest."""
    for other in kept.parent.glob(f"spark-*{suffix}"):
        if other != kept:
            try:
                other.unlink()
            except OSError:
                pass
