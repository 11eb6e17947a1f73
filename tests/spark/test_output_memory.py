"""Many findings do not exhaust the driver: the printed findings reach this process
in bounded parts, and a driver JVM out of heap ends the run with exit 2 and the
cause instead of leaving it waiting forever (1.2 million findings at 500 servers,
docs/spark.md "Many findings")."""
from __future__ import annotations

import pytest

from linter.engines.spark import command, session
from linter.engines.spark.failures import DRIVER_CAUSE, DRIVER_OUT_OF_MEMORY, describe, driver_ran_out_of_memory
from linter.engines.spark.records import FINDING, spark_schema
from linter.findings import Entity, Finding, sort_findings
from linter.options import ExitError

ROWS = [
    (0, "RTE005", "error", "folder /b unreachable from PF-2", "b.jsonl", 7, 3, "spec.replicas", "PublicFolder", "/b"),
    (0, "RTE005", "error", "folder /b unreachable from PF-1", "b.jsonl", 7, 3, "spec.replicas", "PublicFolder", "/b"),
    (0, "EXL008", "error", "no Organization", None, None, None, None, None, None),
    (0, "HIE001", "warning", "store", "a.jsonl", 2, 1, None, "PublicFolderDatabase", "PF-1"),
    (0, "DUP001", "error", "window", "a.jsonl", 2, 1, "spec.registry", "PublicFolderDatabase", "PF-1"),
    (0, "REP004", "warning", "one replica", "a.jsonl", 10, 1, "spec.replicas", "PublicFolder", "/c"),
    (0, "BKF001", "info", "non-default", "a.jsonl", 1, 1, None, "PublicFolderDatabase", "PF-0"),
    (0, "RTE005", "error", "folder /a unreachable from PF-9", "b.jsonl", 3, 3, "spec.replicas", "PublicFolder", "/a"),
    (0, "STS001", "info", "value", "c.jsonl", 1, 5, None, None, None),
]


def _expected() -> list[Finding]:
    found = [Finding(r[1], r[2], r[3], r[4], r[5], r[6], r[7], Entity(r[8], r[9]) if r[8] else None) for r in ROWS]
    return sort_findings(found)


def test_printed_findings_come_in_bounded_parts_in_check_order(spark, monkeypatch):
    frame = spark.createDataFrame(ROWS, spark_schema(FINDING)).coalesce(1)
    monkeypatch.setattr(command, "FINDINGS_PER_PART", 2)
    ordered = command.ordered_findings(frame, len(ROWS))
    assert ordered.rdd.getNumPartitions() == 5  # ceil(9 / 2): no part holds them all
    assert list(command._finding_objects(frame, len(ROWS))) == _expected()
    monkeypatch.setattr(command, "FINDINGS_PER_PART", 50_000)
    assert command.ordered_findings(frame, len(ROWS)).rdd.getNumPartitions() == 1
    assert list(command._finding_objects(frame, len(ROWS))) == _expected()


def test_the_driver_jvm_exits_when_out_of_heap(spark):
    """Started by build_session with the flag: its JVM's own arguments say so."""
    arguments = list(spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
                     .getInputArguments())
    assert "-XX:+ExitOnOutOfMemoryError" in arguments


def test_only_the_users_own_out_of_heap_action_replaces_the_exit():
    assert session.exit_on_out_of_memory("-Xss4m").split() == ["-Xss4m", "-XX:+ExitOnOutOfMemoryError"]
    dump = "-XX:+HeapDumpOnOutOfMemoryError"  # a dump alone does not end the JVM
    assert "-XX:+ExitOnOutOfMemoryError" in session.exit_on_out_of_memory(dump).split()
    for own in ("-XX:+CrashOnOutOfMemoryError", "-XX:OnOutOfMemoryError='kill -9 %p'", "-XX:+ExitOnOutOfMemoryError"):
        assert session.exit_on_out_of_memory(own) == own


def test_a_driver_out_of_heap_is_said_as_such(tmp_path, monkeypatch):
    log = tmp_path / "estate.log"
    log.write_text("12:00:00 WARN something\n" * 5000 + "Terminating due to java.lang.OutOfMemoryError: Java heap space\n")
    assert driver_ran_out_of_memory(log)
    other = tmp_path / "other.log"
    other.write_text("12:00:00 WARN something\n")
    assert not driver_ran_out_of_memory(other)
    assert not driver_ran_out_of_memory(tmp_path / "missing.log")

    from py4j.protocol import Py4JNetworkError

    gone = Py4JNetworkError("Answer from Java side is empty")
    monkeypatch.setattr(session, "_JVM_LOG", other)
    assert describe(gone).startswith(DRIVER_CAUSE)
    monkeypatch.setattr(session, "_JVM_LOG", log)
    assert describe(gone).startswith(DRIVER_OUT_OF_MEMORY)
    with pytest.raises(ExitError) as raised:
        command._fail(gone, log, {})
    assert str(raised.value).startswith(DRIVER_OUT_OF_MEMORY), str(raised.value)
    assert "spark.driver.memory" in str(raised.value)
