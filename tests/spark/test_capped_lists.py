"""A list in a message is capped alike in both engines (issue #20): 30 stores of
one hierarchy on one server give HIE001 findings naming 20 stores "… and 10
more", and the Spark engine says exactly what the local engine says."""
from __future__ import annotations

import sys
from pathlib import Path

from parity import EstateSpec, local_findings, run_spark

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_hostile import ORGANIZATION, SERVER_HEAD, STORE  # noqa: E402


def test_capped_name_lists_match_the_local_engine(spark, tmp_path):
    from linter.policy.packs import load_rules

    rules = {"HIE001": load_rules()["HIE001"]}
    server = SERVER_HEAD.replace("  receiveConnectors:\n", "")
    text = ORGANIZATION + "---\n" + server + "".join(STORE.format(index=i) for i in range(30))
    spec = EstateSpec("many", [("many/estate.yaml", text.encode())])
    expected = local_findings(spec, rules)
    messages = {f[2] for f in expected if f[0] == "HIE001"}
    assert len([f for f in expected if f[0] == "HIE001"]) == 30
    listed = {m[m.index("("):m.index(")")] for m in messages}
    assert len(listed) == 1 and "PFDB-00019, \u2026 and 10 more" in listed.pop()
    spark_findings, _, failures = run_spark(spark, [spec], rules, tmp_path / "spark")
    assert not failures
    assert spark_findings["many"] == expected
