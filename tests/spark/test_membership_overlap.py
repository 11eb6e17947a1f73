"""`any(L, item.<path> in H)` on Spark first asks arrays_overlap: true and false are its
answers, and only its NULL (a missing entry, an unresolved item, H absent or holding a
missing entry) is left to the lambda (compile._membership_overlap).
Both engines must agree on every three-valued corner: missing entries, an item whose
navigation finds nothing, H absent, empty or holding a missing entry, names that
differ in case only."""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from linter.model.tables import load_tables
from linter.policy.packs import PackError, _Validator, parse_rule
from tests.spark.test_differential import FIXED, local_findings, spark_findings

STORES = [
    {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": name},
     "spec": {"server": server, "hierarchy": "Public Folders", "emailAddress": f"{name.lower()}@contoso.com"}}
    for name, server in (("PFDB-A", "EX03-A"), ("PFDB-B", "EX10-B"), ("PFDB-C", "EX99-GONE"))
]
# an entry of a list: a store, a store differing in case, one that does not exist
# (its navigation finds nothing), an empty name, a missing entry
NAMES = ["PFDB-A", "pfdb-a", "PFDB-B", "PFDB-C", "PFDB-GONE", "EX03-A", "EX10-B", "", None]
CONDITIONS = [
    "any(replicas, item in delete_pending)",
    "not any(replicas, item in delete_pending)",
    "any(replicas, item.name in delete_pending)",
    "not any(replicas, item.name in delete_pending)",
    "any(replicas, item.server in delete_pending)",
    "not any(replicas, item.server in delete_pending)",
    "any(replicas, item.server.name in delete_pending) or size(replicas) == 0",
    "all(replicas, not (item.name in delete_pending))",
]
# the condition is compiled as written, not with the guards the pack loader adds
# (a list with a missing entry is EXL003's, and a rule stands down on it)


def _rules() -> dict:
    validator = _Validator(load_tables())
    rules = {}
    for index, condition in enumerate(CONDITIONS):
        rule_id = f"ZMO{index:03d}"
        raw = {"id": rule_id, "title": "overlap", "severity": "warning", "summary": "s", "rationale": "r",
               "source": {"note": "test"}, "table": "PublicFolder", "when": condition, "message": "{name}",
               "checks": [{"table": "PublicFolder"}], "examples": {"bad": [{}], "good": [{}]}}
        try:
            rule = parse_rule(raw, validator, "overlap.yaml", {})
        except PackError as error:  # every condition above must be a valid rule
            raise AssertionError(f"{condition}: {error}") from error
        for check in rule.checks:
            check.where = None
        rules[rule_id] = rule
    return rules


def _entries(draw, most: int):
    return draw(st.lists(st.sampled_from(NAMES), max_size=most))


@st.composite
def folders(draw) -> list[dict]:
    out = []
    for index in range(draw(st.integers(3, 8))):
        spec = {"hierarchy": "Public Folders", "tree": "IPM_SUBTREE", "replicas": _entries(draw, 4)}
        pending = draw(st.sampled_from(["absent", "empty", "listed"]))
        if pending != "absent":
            spec["deletePending"] = [] if pending == "empty" else _entries(draw, 3)
        out.append({"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": f"/F{index}"},
                    "spec": spec})
    return out


def test_membership_uses_arrays_overlap_on_spark(spark, tmp_path):
    # the fast path is really taken, or the comparison below would prove nothing of it
    import yaml

    from linter.config import Config
    from linter.engines.spark import job
    from linter.engines.spark.inventory import InputFile

    documents = FIXED + STORES + [{"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "/F"},
                                    "spec": {"hierarchy": "Public Folders", "replicas": ["PFDB-A"]}}]
    path = tmp_path / "estate.yaml"
    path.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    rules = _rules()
    run = job.run(spark, [InputFile(str(path), "estate.yaml", "yaml", 0)], rules, Config())
    try:
        parts, refused = job.rule_findings(run.model, rules)
    finally:
        run.close()
    assert not refused, refused
    # every condition but the all(... not ...) one asks any(... in ...) (one query: all
    # predicates), each reading the overlap twice: true, then false with no NULL value
    assert sum(part.count("arrays_overlap(") for part in parts) == 2 * (len(CONDITIONS) - 1)


@settings(max_examples=40, deadline=None, derandomize=True, database=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(records=folders())
def test_membership_agrees_with_the_local_engine(spark, tmp_path_factory, records):
    rules = _rules()
    documents = FIXED + STORES + records
    expected = local_findings(documents, rules)
    found = spark_findings(spark, documents, rules, tmp_path_factory.mktemp("overlap"))
    assert found == expected


def test_each_condition_both_holds_and_fails_somewhere(tmp_path_factory):
    # the corpus reaches both answers of every condition (else agreement is cheap)
    rules = _rules()
    records = [
        {"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": f"/G{i}"},
         "spec": {"hierarchy": "Public Folders", "tree": "IPM_SUBTREE", "replicas": replicas,
                  **({"deletePending": pending} if pending is not None else {})}}
        for i, (replicas, pending) in enumerate([
            (["PFDB-A", "PFDB-B"], ["PFDB-A"]), (["PFDB-A"], ["PFDB-B"]), (["PFDB-A"], ["EX03-A"]),
            ([], None), (["PFDB-GONE"], ["PFDB-A"]), (["PFDB-C", None], ["EX99-GONE", None])])]
    found = local_findings(FIXED + STORES + records, rules)
    for rule_id in rules:
        fired = {f for f in found if f[0] == rule_id}
        assert 0 < len(fired) < len(records), (rule_id, CONDITIONS[int(rule_id[3:])], len(fired))

