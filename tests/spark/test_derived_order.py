"""The Spark model builds derived fields in tables.derived_plan's order; a derived
field read before it is built is a compile error reported as EXL000 (naming the
field), never a column that quietly reads NULL."""
from __future__ import annotations

from pathlib import Path

from parity import run_spark, tree_spec

from linter.engines.spark import model as spark_model
from linter.findings import RULE_FAILED
from linter.model.tables import derived_plan
from linter.policy.packs import load_rules

ROOT = Path(__file__).resolve().parents[2]


def test_a_derived_field_read_before_it_is_built_is_exl000(spark, monkeypatch, tmp_path):
    def connectors_first(tables):
        plan = derived_plan(tables)
        connectors = [entry for entry in plan if entry[0] == "ReceiveConnector"]
        return connectors + [entry for entry in plan if entry[0] != "ReceiveConnector"]

    monkeypatch.setattr(spark_model, "derived_plan", connectors_first)
    estate = tree_spec("samples", ROOT / "samples" / "broken", ROOT)
    found, _, failures = run_spark(spark, [estate], load_rules(), tmp_path)
    failed = {what for what, _ in failures}
    # the connectors' effective time-outs read server.is_edge, not built yet
    assert {"ReceiveConnector.effective_connection_timeout (derived field)",
            "ReceiveConnector.effective_connection_inactivity_timeout (derived field)"} <= failed
    messages = [f[2] for f in found["samples"] if f[0] == RULE_FAILED]
    assert any("Server.is_edge is not computed at this point" in m for m in messages), messages
