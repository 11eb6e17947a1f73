"""The job's choices made from the inventory's size: whether the estate runs with the small-inventory settings (tests/spark/test_parity.py runs
both settings). No Spark session: these are decisions, made before any query."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("pyspark", reason="pyspark is an optional extra: pip install 'exlint[spark]'")

from linter.engines.spark import job  # noqa: E402
from linter.policy.packs import load_rules  # noqa: E402


def _counts(servers: int) -> dict:
    # the proportions of `exlint generate`: ~10 folders, ~1 store and mailbox database per server
    return {"Server": servers, "PublicFolder": servers * 10, "PublicFolderDatabase": servers,
            "MailboxDatabase": servers, "AdminGroup": max(1, servers // 100), "Organization": 1}


def test_paired_tables_count_once_not_as_their_product():
    rules = load_rules()
    pairs = [c for r in rules.values() for c in r.checks if c.form == "pairs"]
    assert pairs, "the catalog has pairs checks (RTE005, REP009, BKF...)"
    work = {}
    for servers in (1_000, 10_000, 100_000):
        counts = _counts(servers)
        work[servers] = job._work(SimpleNamespace(counts=counts, stats={0: {}}), rules)
        records = sum(counts.values())
        assert records <= work[servers] <= records * (1 + 2 * len(pairs))
    assert work[100_000] <= 11 * work[10_000] <= 121 * work[1_000]  # linear, not quadratic
    assert work[1_000] < job.SMALL_RECORDS <= work[10_000]  # 1,000 servers is a small estate
    assert work[1_000] < job.ONE_PARTITION_RECORDS <= work[10_000]  # ... laid out in one partition, 10,000 not
