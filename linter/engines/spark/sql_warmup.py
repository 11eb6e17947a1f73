"""Spark's SQL parser, warmed while the driver JVM starts.

A fresh JVM parses the rules' SQL slowly: ANTLR's prediction caches (static, shared by
every parser in the JVM) start empty, and its code runs interpreted until C1 compiles
it. The bundled sample's rule queries (49 statements, 273 KB) took 3.7 s to parse in a
fresh JVM and 0.4-0.7 s in a warm one, and a fresh run parses them on its critical path
(docs/spark.md, "Session 55: the parser warmed while the JVM starts"). Meanwhile a core is idle: the
JVM's main thread starts the SparkContext, then the driver parses the inventory in
Python.

So a run whose driver JVM this process launched parses, on a thread of its own, as soon
as the gateway answers, the rule queries the previous such run on this machine compiled:
a corpus kept in exlint's cache beside the class-data archive, under the archive's name
(another Java, Spark or exlint version keeps its own). The statements are only parsed,
never analysed or run, so another estate's queries (their views do not exist here) warm
the parser as well as this one's. Nothing of it can change a finding: a statement the
parser refuses is skipped, a damaged corpus is ignored, and the thread is stopped before
the JVM ends. ``EXLINT_JVM_CACHE=0`` turns it off with the archive.
"""
from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from linter.engines.spark.jvm_cache import CORPUS_SUFFIX, prune_other_versions

# a corpus past this is cut: the sample's rule queries are 273 KB, an estate's do not grow
# with its size, and a thread parsing for longer than the JVM takes to start gains nothing
MAX_CORPUS_BYTES = 2 * 1024 * 1024


class _Warmup:
    """This process's warm-up: where its corpus is, the thread parsing it, and what the
    corpus held when it was read (so an unchanged one is not written again)."""

    def __init__(self) -> None:
        self.corpus: Path | None = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.read_digest: str | None = None
        self.parsed = 0  # statements the thread parsed (tests read it)


WARMUP = _Warmup()


def use_corpus(path: Path | None) -> None:
    """Set (or clear) the corpus this process reads and writes: driver_jvm.prepare sets it
    when this process launches the driver JVM with exlint's cache on."""
    global WARMUP
    stop()
    WARMUP = _Warmup()
    WARMUP.corpus = path


def read_corpus(path: Path) -> list[str]:
    """The statements of a corpus; none when it is missing, damaged or not a list of texts."""
    try:
        data = path.read_bytes()
        texts = json.loads(data)
    except (OSError, ValueError):
        return []
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        return []
    WARMUP.read_digest = hashlib.sha256(data).hexdigest()
    return texts


def start(gateway) -> None:
    """Start parsing the corpus on a daemon thread through ``gateway`` (the JVM's py4j
    gateway, before any SparkContext exists: the parser needs none)."""
    warmup = WARMUP
    if warmup.corpus is None or warmup.thread is not None:
        return
    texts = read_corpus(warmup.corpus)
    if not texts:
        return

    def parse() -> None:
        try:
            package = gateway.jvm.org.apache.spark.sql.catalyst.parser
            parser = getattr(getattr(package, "CatalystSqlParser$"), "MODULE$")
            for text in texts:
                if warmup.stopping.is_set():
                    return
                try:
                    parser.parsePlan(text)
                except Exception as exc:  # noqa: BLE001 - a text this Spark refuses: the next one
                    if _gone(exc):
                        return
                    continue
                warmup.parsed += 1
        except Exception:  # noqa: BLE001 - no warm-up is a slower run, never a failed one
            return

    warmup.thread = threading.Thread(target=parse, name="exlint-sql-warmup", daemon=True)
    warmup.thread.start()


def _gone(exc: Exception) -> bool:
    """Whether the JVM stopped answering (the thread ends) rather than refusing a text."""
    return type(exc).__name__ in ("Py4JNetworkError", "ConnectionError", "BrokenPipeError", "EOFError")


def stop(timeout: float = 10.0) -> None:
    """Stop the thread between two statements and wait for it: before the JVM is killed,
    so that no call is left waiting on a closed connection."""
    thread = WARMUP.thread
    if thread is None:
        return
    WARMUP.stopping.set()
    thread.join(timeout)


def remember(texts: list[str]) -> None:
    """Keep ``texts`` (this run's rule queries) as the corpus the next run warms its
    parser with, atomically, cut to MAX_CORPUS_BYTES; not rewritten when unchanged.
    Corpora of other versions are removed, as driver_jvm prunes archives."""
    corpus = WARMUP.corpus
    if corpus is None or not texts:
        return
    kept, size = [], 0
    for text in texts:
        size += len(text)
        if size > MAX_CORPUS_BYTES:
            break
        kept.append(text)
    data = json.dumps(kept).encode()
    digest = hashlib.sha256(data).hexdigest()
    if digest == WARMUP.read_digest:
        return
    from linter.atomic import atomic_write

    try:
        corpus.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(str(corpus), data, create=True)
    except (OSError, ValueError):
        return
    WARMUP.read_digest = digest
    prune_other_versions(corpus, CORPUS_SUFFIX)
