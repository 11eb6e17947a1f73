"""The job's choices made from the inventory's size: its layout (tests/spark/test_parity.py runs each) and
the driver's heap. No Spark session: these are decisions, made before any query."""
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


# The tables' rows of inventories whose layouts were measured against each other (fresh
# `exlint estate`, 2 cores; docs/spark.md, "Which layout, measured again"), and the layout
# that was faster: "interpreted" (one partition, no generated code), "compiled" (one
# partition, generated code, broadcast lookups) or "many" (many partitions).
MEASURED = {
    "bundled sample": ({"Organization": 1, "Hierarchy": 5, "Site": 9, "AdminGroup": 3, "SiteLink": 10, "Server": 201,
                        "ReceiveConnector": 315, "SendConnector": 11, "PublicFolderDatabase": 78, "ReferralEntry": 2,
                        "PublicFolder": 2006, "MailboxDatabase": 288, "BackfillSource": 78}, "interpreted"),
    "independent 1,000": ({"Organization": 1, "Hierarchy": 39, "Site": 144, "AdminGroup": 8, "SiteLink": 128,
                           "Server": 1000, "ReceiveConnector": 915, "SendConnector": 190, "PublicFolderDatabase": 10508,
                           "ReferralEntry": 2082, "PublicFolder": 7198, "MailboxDatabase": 1502,
                           "BackfillSource": 10508}, "interpreted"),
    "independent 2,000": ({"Organization": 1, "Hierarchy": 39, "Site": 288, "AdminGroup": 16, "SiteLink": 256,
                           "Server": 2000, "ReceiveConnector": 1962, "SendConnector": 479,
                           "PublicFolderDatabase": 20744, "ReferralEntry": 3848, "PublicFolder": 14400,
                           "MailboxDatabase": 3003, "BackfillSource": 20744}, "compiled"),
    "generated 3,000": ({"Organization": 1, "Hierarchy": 4, "Site": 120, "AdminGroup": 7, "SiteLink": 137,
                         "Server": 3000, "ReceiveConnector": 4594, "SendConnector": 176, "PublicFolderDatabase": 1052,
                         "ReferralEntry": 24, "PublicFolder": 30016, "MailboxDatabase": 3956, "BackfillSource": 1052},
                        "interpreted"),
    "generated 5,000": ({"Organization": 1, "Hierarchy": 4, "Site": 200, "AdminGroup": 11, "SiteLink": 233,
                         "Server": 5000, "ReceiveConnector": 7609, "SendConnector": 323, "PublicFolderDatabase": 1786,
                         "ReferralEntry": 40, "PublicFolder": 50024, "MailboxDatabase": 6547, "BackfillSource": 1786},
                        "interpreted"),
    "independent 10,000": ({"Organization": 1, "Hierarchy": 39, "Site": 1440, "AdminGroup": 80, "SiteLink": 1280,
                            "Server": 10000, "ReceiveConnector": 10467, "SendConnector": 2541,
                            "PublicFolderDatabase": 105618, "ReferralEntry": 22302, "PublicFolder": 71990,
                            "MailboxDatabase": 15244, "BackfillSource": 105618}, "compiled"),
    "independent 20,000": ({"Organization": 1, "Hierarchy": 39, "Site": 2880, "AdminGroup": 160, "SiteLink": 2560,
                            "Server": 20000, "ReceiveConnector": 20274, "SendConnector": 4996,
                            "PublicFolderDatabase": 213879, "ReferralEntry": 42119, "PublicFolder": 143984,
                            "MailboxDatabase": 29726, "BackfillSource": 213879}, "compiled"),
    "generated 100,000": ({"Organization": 1, "Hierarchy": 4, "Site": 1000, "AdminGroup": 51, "SiteLink": 1163,
                           "Server": 100000, "ReceiveConnector": 144031, "SendConnector": 8049,
                           "PublicFolderDatabase": 30646, "ReferralEntry": 200, "PublicFolder": 1000104,
                           "MailboxDatabase": 118975, "BackfillSource": 30646}, "many"),
}


@pytest.mark.parametrize("name", list(MEASURED))
def test_each_measured_inventory_gets_the_layout_that_was_faster_on_two_cores(name):
    counts, faster = MEASURED[name]
    rules = load_rules()
    assert job.layout(SimpleNamespace(counts=counts, stats={0: {}}), rules, cores=2) == faster


def test_more_cores_than_two_leave_one_partition_sooner():
    independent_20k = SimpleNamespace(counts=MEASURED["independent 20,000"][0], stats={0: {}})
    rules = load_rules()
    assert job.layout(independent_20k, rules, cores=1) == job.layout(independent_20k, rules, cores=2) == "compiled"
    assert job.layout(independent_20k, rules, cores=8) == "many"  # eight cores: many partitions use them all


# -- the embedded JVM's heap ---------------------------------------------------------------
GIB = 1 << 30


def _bytes(setting: str) -> int:
    assert setting.endswith("m"), setting
    return int(setting[:-1]) << 20


def test_the_local_heap_grows_with_the_inventory_within_the_machines_memory():
    from linter.engines.spark.session import LOCAL_MEMORY_FLOOR, local_driver_memory

    machine = 24 * GIB
    assert _bytes(local_driver_memory(0, machine)) == LOCAL_MEMORY_FLOOR  # the bundled sample: as before
    assert _bytes(local_driver_memory(600_000, machine)) < LOCAL_MEMORY_FLOOR + 16 * (1 << 20)
    hundred_k = _bytes(local_driver_memory(365_000_000, machine))  # 100,000 servers of JSON Lines
    assert 9 * GIB <= hundred_k <= 10 * GIB
    assert _bytes(local_driver_memory(10 * GIB, machine)) == int(0.6 * machine) >> 20 << 20  # capped
    assert _bytes(local_driver_memory(10 * GIB, 2 * GIB)) == LOCAL_MEMORY_FLOOR  # never below the old default
    assert _bytes(local_driver_memory(365_000_000, None)) >= LOCAL_MEMORY_FLOOR  # this machine, whatever it has


def test_a_machine_whose_memory_cannot_be_read_gets_at_most_twice_the_floor(monkeypatch):
    from linter.engines.spark import session

    monkeypatch.setattr(session, "physical_memory", lambda: None)
    assert _bytes(session.local_driver_memory(10 * GIB)) == 2 * session.LOCAL_MEMORY_FLOOR
    assert _bytes(session.local_driver_memory(0)) == session.LOCAL_MEMORY_FLOOR


def test_a_container_limit_below_the_machines_memory_caps_the_heap(monkeypatch, tmp_path):
    from linter.engines.spark import session

    v2, v1 = tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"
    monkeypatch.setattr(session, "CGROUP_MEMORY_LIMITS", (str(v2), str(v1)))
    machine = session.physical_memory()
    assert machine and machine > GIB
    v2.write_text("max\n")  # cgroup v2 without a limit
    v1.write_text(f"{2**63 - 4096}\n")  # cgroup v1's "no limit"
    assert session.physical_memory() == machine
    v2.write_text(f"{GIB}\n")
    assert session.physical_memory() == GIB


def test_the_session_starts_with_the_sized_heap_and_the_users_setting_wins():
    from linter.engines.spark.session import SessionOptions, launch_conf, local_driver_memory

    big = SessionOptions(input_bytes=365_000_000)
    assert launch_conf(big, "local[*]")["spark.driver.memory"] == local_driver_memory(365_000_000)
    # a cluster's driver holds no tables: the fixed default
    assert launch_conf(big, "spark://127.0.0.1:7077")["spark.driver.memory"] == "4g"
    chosen = SessionOptions(input_bytes=365_000_000, conf={"spark.driver.memory": "2g"})
    assert launch_conf(chosen, "local[*]")["spark.driver.memory"] == "2g"


def test_exlint_estate_sizes_the_session_by_its_inventory(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from linter.cli import cli
    from linter.engines.spark import inventory as inventory_module, session

    seen = []

    def refuse(options):
        seen.append(options.input_bytes)
        raise session.SessionError("no Spark in this test")

    monkeypatch.setattr(session, "build_session", refuse)
    inventory = tmp_path / "estate.jsonl"
    inventory.write_text('{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "a"}, "spec": {}}\n' * 50)
    result = CliRunner().invoke(cli, ["estate", str(inventory), "--quiet"])
    assert result.exit_code == 2, result.output
    assert "no Spark in this test" in result.output
    assert seen == [inventory.stat().st_size]
    # Parquet is compressed: it counts as the text it holds, about nine times its size
    columnar = tmp_path / "estate.parquet"
    columnar.write_bytes(b"PAR1" + b"\0" * 1000 + b"PAR1")
    seen.clear()
    result = CliRunner().invoke(cli, ["estate", str(inventory), str(columnar), "--quiet"])
    assert result.exit_code == 2, result.output
    assert seen == [inventory.stat().st_size + inventory_module.PARQUET_TEXT_RATIO * columnar.stat().st_size]
