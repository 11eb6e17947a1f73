"""The parser warm-up (engines/spark/sql_warmup.py): a run keeps its rule queries as a
corpus beside the class-data archive, and the next run whose JVM it launches parses them
on a thread of its own while the SparkContext starts. The corpus is exlint's own file:
written atomically, cut at its cap, not rewritten when unchanged, other versions' corpora
removed, a damaged one ignored; a text the parser refuses is skipped."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linter.engines.spark import sql_warmup

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"


@pytest.fixture(autouse=True)
def _no_corpus_after():
    yield
    sql_warmup.use_corpus(None)  # the tests' shared session must not write one


def test_remember_writes_the_corpus_then_leaves_an_unchanged_one(tmp_path):
    corpus = tmp_path / "jvm" / f"spark-abc{sql_warmup.CORPUS_SUFFIX}"
    sql_warmup.use_corpus(corpus)
    sql_warmup.remember(["SELECT 1", "SELECT 2"])
    assert json.loads(corpus.read_text()) == ["SELECT 1", "SELECT 2"]
    assert not [p for p in corpus.parent.iterdir() if p != corpus], "no temporary file left"
    os.utime(corpus, (1, 1))
    sql_warmup.remember(["SELECT 1", "SELECT 2"])
    assert corpus.stat().st_mtime == 1, "an unchanged corpus is not rewritten"
    # a later process reads it, and does not rewrite it either
    sql_warmup.use_corpus(corpus)
    assert sql_warmup.read_corpus(corpus) == ["SELECT 1", "SELECT 2"]
    sql_warmup.remember(["SELECT 1", "SELECT 2"])
    assert corpus.stat().st_mtime == 1
    sql_warmup.remember(["SELECT 3"])
    assert json.loads(corpus.read_text()) == ["SELECT 3"]


def test_remember_cuts_at_the_cap_and_removes_other_versions(tmp_path, monkeypatch):
    monkeypatch.setattr(sql_warmup, "MAX_CORPUS_BYTES", 25)
    other = tmp_path / f"spark-old{sql_warmup.CORPUS_SUFFIX}"
    other.write_text("[]")
    archive = tmp_path / "spark-old.jsa"
    archive.write_bytes(b"not a corpus")
    corpus = tmp_path / f"spark-new{sql_warmup.CORPUS_SUFFIX}"
    sql_warmup.use_corpus(corpus)
    sql_warmup.remember(["SELECT 10", "SELECT 20", "SELECT 30"])
    assert json.loads(corpus.read_text()) == ["SELECT 10", "SELECT 20"]
    assert not other.exists() and archive.exists(), "only corpora are the warm-up's to remove"


def test_nothing_written_without_a_corpus(tmp_path):
    sql_warmup.use_corpus(None)
    sql_warmup.remember(["SELECT 1"])
    sql_warmup.start(gateway=None)  # no corpus: no thread, the gateway is never touched
    assert sql_warmup.WARMUP.thread is None
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"a": 1}', b'["SELECT 1", 2]', b"\xff\xfe"])
def test_a_damaged_corpus_is_ignored(tmp_path, content):
    corpus = tmp_path / f"spark-x{sql_warmup.CORPUS_SUFFIX}"
    corpus.write_bytes(content)
    sql_warmup.use_corpus(corpus)
    assert sql_warmup.read_corpus(corpus) == []
    sql_warmup.start(gateway=None)
    assert sql_warmup.WARMUP.thread is None
    sql_warmup.remember(["SELECT 1"])
    assert json.loads(corpus.read_text()) == ["SELECT 1"], "the next run replaces it"


def test_an_unwritable_cache_costs_nothing_but_the_warm_up(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory would be")
    sql_warmup.use_corpus(blocker / f"spark-x{sql_warmup.CORPUS_SUFFIX}")
    sql_warmup.remember(["SELECT 1"])  # no error: a slower next run, never a failed one
    assert blocker.read_text().startswith("a file")


def test_the_thread_parses_the_corpus_and_skips_what_the_parser_refuses(spark, tmp_path):
    corpus = tmp_path / f"spark-x{sql_warmup.CORPUS_SUFFIX}"
    corpus.write_text(json.dumps(["SELECT a FROM missing_view WHERE b > 1", "SELEC nothing (", "SELECT 2"]))
    sql_warmup.use_corpus(corpus)
    sql_warmup.start(spark.sparkContext._gateway)
    thread = sql_warmup.WARMUP.thread
    assert thread is not None and thread.daemon
    thread.join(60)
    assert not thread.is_alive()
    # parsed, never analysed: the missing view is no error; the broken text is skipped
    assert sql_warmup.WARMUP.parsed == 2
    sql_warmup.stop()
    assert spark.sql("SELECT 1 AS one").collect()[0].one == 1


def test_stop_ends_the_thread_between_statements(spark, tmp_path):
    corpus = tmp_path / f"spark-x{sql_warmup.CORPUS_SUFFIX}"
    corpus.write_text(json.dumps(["SELECT 1"] * 5000))
    sql_warmup.use_corpus(corpus)
    sql_warmup.start(spark.sparkContext._gateway)
    sql_warmup.stop()
    assert not sql_warmup.WARMUP.thread.is_alive()
    assert sql_warmup.WARMUP.parsed < 5000


def _estate(tmp: Path, cache: bool):
    env = {**os.environ, "EXLINT_CACHE_DIR": str(tmp / "cache"), "EXLINT_JVM_CACHE": "1" if cache else "0"}
    done = subprocess.run([sys.executable, "-m", "linter", "estate", str(SAMPLE), "--format", "json"],
                          cwd=tmp, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    return sorted(json.dumps(f, sort_keys=True) for f in json.loads(done.stdout)["findings"])


def test_a_run_keeps_its_queries_beside_the_archive_and_the_next_finds_the_same(tmp_path):
    pytest.importorskip("pyspark")
    first = _estate(tmp_path, cache=True)
    jvm = tmp_path / "cache" / "jvm"
    corpora = list(jvm.glob(f"spark-*{sql_warmup.CORPUS_SUFFIX}"))
    assert len(corpora) == 1
    assert (jvm / corpora[0].name.replace(sql_warmup.CORPUS_SUFFIX, ".jsa")).exists(), "named as the archive"
    texts = json.loads(corpora[0].read_text())
    assert len(texts) > 10 and all(text.startswith("SELECT ") for text in texts)
    # the next run, warmed with them, finds the same
    assert _estate(tmp_path, cache=True) == first


def test_no_corpus_with_the_cache_off(tmp_path):
    pytest.importorskip("pyspark")
    _estate(tmp_path, cache=False)
    assert not list((tmp_path / "cache").rglob(f"*{sql_warmup.CORPUS_SUFFIX}"))
