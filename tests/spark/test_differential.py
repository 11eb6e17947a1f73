"""Differential testing of the two engines' expression semantics: Hypothesis
generates rule expressions over a store's fields (numbers, durations, sizes,
text with unicode, booleans, missing values, navigation to the server and the
organization; comparisons, Kleene logic, arithmetic, `in`, `if`, functions; the
list aggregates over a custom referral list with missing, repeated and
case-variant entries) and
stores whose registry and replication values are drawn at random (written as
Exchange writes them: integers, "00:15:00", "300KB", or left out), and each
expression becomes a rule whose message displays its values. The local
evaluator and the compiled Spark SQL must give the same findings on every
record, messages included.

Each Hypothesis example is a batch of expressions and stores run as one Spark
job (a job per expression would take hours); EXLINT_DIFFERENTIAL_BATCHES
(default 20) batches of 100 expressions are 2,000 expressions per run."""
from __future__ import annotations

import os
from collections import Counter

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyspark", reason="pyspark is an optional extra: pip install 'exlint[spark]'")

from parity import EstateSpec, key, run_spark  # noqa: E402

from linter.engines.local import LocalEngine  # noqa: E402
from linter.estate import build_estate  # noqa: E402
from linter.loading import load_text  # noqa: E402
from linter.model.tables import load_tables  # noqa: E402
from linter.policy.packs import PackError, _Validator, parse_rule  # noqa: E402

BATCHES = int(os.environ.get("EXLINT_DIFFERENTIAL_BATCHES", "20"))
PER_BATCH = 100

TABLE = load_tables()["PublicFolderDatabase"]
NUMERIC = sorted(n for n, f in TABLE.fields.items() if f.type in ("int", "duration", "size"))
TEXT = ["name", "email_address", "preferred_backfill_source", "guid"]
NAVIGATED_NUMERIC = ["server.version", "server.service_pack", "organization.max_retries_remote_site_shadow",
                     "organization.shadow_heartbeat_frequency"]
BOOLEAN = ["use_custom_list", "organization.shadow_redundancy_enabled"]

WORDS = st.sampled_from(["PFDB-A", "pfdb-a", "Straße", "STRASSE", "ünïcødé", "", " ", "a'b", 'q"q', "0", "1.5",
                         "EX10-A", "ex10-a", "🙂", "None",
                         # Spark rewrites ${...} in SQL text before parsing it (variable substitution)
                         "${env:HOME}", "a${x}b", "$", "\\${y}"])
# 2 ** 62 and the 64-bit ends: integer arithmetic past 64 bits is NULL in both engines, never wrapped
NUMBERS = st.one_of(st.integers(-3, 3), st.sampled_from([0, 1, 24, 1176, 1177, 43200, 86400, 307200, 2 ** 31,
                                                         -2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1, -2 ** 63]),
                    st.sampled_from([0.5, 1.5, -2.25, 12345678.5, 1e-3, 3.0, 1e16]))


def _numeric(depth: int) -> st.SearchStrategy[str]:
    atom = st.one_of(st.sampled_from(NUMERIC + NAVIGATED_NUMERIC), NUMBERS.map(repr))
    if depth <= 0:
        return atom
    inner = _numeric(depth - 1)
    return st.one_of(
        atom,
        st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["greatest", "least", "coalesce"]), inner, inner).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(_boolean(depth - 1), inner, inner).map(lambda t: f"({t[1]} if {t[0]} else {t[2]})"),
    )


def _text(depth: int) -> st.SearchStrategy[str]:
    atom = st.one_of(st.sampled_from(TEXT), WORDS.map(repr))
    if depth <= 0:
        return atom
    inner = _text(depth - 1)
    return st.one_of(atom, inner.map(lambda t: f"lower({t})"),
                     st.tuples(inner, st.one_of(inner, _numeric(0))).map(lambda t: f"({t[0]} + {t[1]})"),
                     st.tuples(inner, inner).map(lambda t: f"coalesce({t[0]}, {t[1]})"))


def _boolean(depth: int) -> st.SearchStrategy[str]:
    comparison = st.one_of(
        st.tuples(_numeric(max(depth - 1, 0)), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
                  _numeric(max(depth - 1, 0))).map(" ".join),
        # text with text only: text against a number is refused when a pack loads (linter.policy.expr)
        st.tuples(_text(max(depth - 1, 0)), st.sampled_from(["==", "!=", "<", ">="]), _text(0)).map(" ".join),
        st.tuples(st.one_of(_numeric(0), _text(0)), st.sampled_from(["in", "not in"]),
                  st.lists(st.one_of(NUMBERS, WORDS, st.none()), max_size=4).map(repr)).map(" ".join),
        st.tuples(st.sampled_from(NUMERIC + TEXT + BOOLEAN), st.sampled_from(["is None", "is not None"])).map(
            " ".join),
        st.sampled_from(BOOLEAN),
        st.one_of(_numeric(0), _text(0)).map(lambda t: f"not {t}"),
    )
    if depth <= 0:
        return comparison
    inner = _boolean(depth - 1)
    return st.one_of(
        comparison,
        _list_aggregate(),
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda t: f"not ({t})"),
    )


# a test of one item of the store's custom referral list (``item`` the server
# named; the item's own value, or the record's fields beside it)
ITEM_TESTS = st.one_of(
    st.tuples(st.sampled_from(["item", "lower(item)", "(item + name)"]), st.sampled_from(["==", "!=", "<"]),
              st.one_of(WORDS.map(repr), st.sampled_from(["name", "'EX03-A'", "'ex10-b'"]))).map(" ".join),
    st.sampled_from(["item in ['EX03-A', 'ex10-b', None]", "item is None", "item is not None", "item == name",
                     "(item == 'EX10-B' and use_custom_list)", "(item != 'EX03-A' or folder_count_limit)"]),
)
CUSTOM_LIST_SERVERS = ["EX03-A", "ex03-a", "EX10-B", "EX99-GONE", "Straße", "STRASSE", "", None]


def _list_aggregate() -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(st.sampled_from(["any", "all", "not any", "not all"]), ITEM_TESTS).map(
            lambda t: f"{t[0]}(custom_list_servers, {t[1]})"),
        st.tuples(ITEM_TESTS, st.sampled_from(["==", ">=", "<"]), st.integers(0, 3)).map(
            lambda t: f"count(custom_list_servers, {t[0]}) {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["==", ">="]), st.integers(0, 3)).map(
            lambda t: f"count(custom_list_servers) {t[0]} {t[1]}"),
        st.tuples(st.sampled_from(["item", "lower(item)", "(item + name)", "(item == name)",
                                   "size(custom_list_servers)"]), st.sampled_from(["==", ">="]), st.integers(0, 3)).map(
            lambda t: f"distinct_count(custom_list_servers, {t[0]}) {t[1]} {t[2]}"),
    )


# (condition, the fields the message shows: placeholders are field names, so values
# such as 12345678.5 or a duration are displayed by both engines' own rules)
EXPRESSIONS = st.tuples(_boolean(2), st.lists(st.sampled_from(NUMERIC + TEXT + BOOLEAN + NAVIGATED_NUMERIC),
                                              min_size=1, max_size=3))

REGISTRY = {
    "Track Duplicates (in hours)": st.one_of(st.integers(-5, 5000), st.sampled_from([1176, 1177, 2 ** 31 - 1])),
    "DeliveredTo Expiration in Hours": st.integers(0, 2000),
    "Replication Send Status Timeout": st.integers(0, 200000),
    "Replication Send Status Alignment": st.sampled_from([0, 42300, 43200, 86400]),
    "Preferred Backfill Source": WORDS,
}
REPLICATION = {
    "Replication Send Always": st.sampled_from(["00:15:00", "15m", "1.00:00:00", "0s", "00:00:01.5"]),
    "Replication Timeout": st.sampled_from(["00:05:00", "2h", "00:00:00"]),
    "Replication Message Size Limit": st.sampled_from(["300KB", "1MB", "0", "1024", "2.5MB", "4GB"]),
    "Replication Folder Count Limit": st.integers(0, 100),
}


@st.composite
def stores(draw) -> list[dict]:
    out = []
    for index in range(draw(st.integers(2, 4))):
        spec = {"server": draw(st.sampled_from(["EX03-A", "EX10-B", "EX99-GONE"])), "hierarchy": "Public Folders",
                "emailAddress": draw(WORDS) + "@contoso.com"}
        if draw(st.booleans()):
            spec["guid"] = draw(WORDS)
        registry = {k: draw(v) for k, v in REGISTRY.items() if draw(st.booleans())}
        replication = {k: draw(v) for k, v in REPLICATION.items() if draw(st.booleans())}
        if registry:
            spec["registry"] = registry
        if replication:
            spec["replication"] = replication
        if draw(st.booleans()):
            spec["referrals"] = {"useCustomList": draw(st.booleans())}
            if draw(st.booleans()):  # entries repeated, missing (no server), differing in case only
                servers = draw(st.lists(st.sampled_from(CUSTOM_LIST_SERVERS), max_size=5))
                spec["referrals"]["customList"] = [{"cost": 1} if server is None else {"server": server, "cost": 1}
                                                   for server in servers]
        out.append({"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase",
                    "metadata": {"name": f"PFDB-{index}"}, "spec": spec})
    return out


FIXED = [
    {"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "contoso"},
     "spec": {"hierarchies": [{"name": "Public Folders", "type": "MAPI"}],
              "adminGroups": [{"name": "AG1", "siteFolderServer": "EX03-A"}], "sites": [{"name": "London"}],
              "transportConfig": {"ShadowHeartbeatFrequency": "00:00:30"}}},
    {"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX03-A"},
     "spec": {"version": "2003", "servicePack": 2, "site": "London", "adminGroup": "AG1", "roles": ["Mailbox"]}},
    {"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-B"},
     "spec": {"version": "2010", "site": "London", "adminGroup": "AG1", "roles": ["Mailbox"], "dag": "D1"}},
]


def raw_rule(rule_id: str, condition: str, message: str) -> dict:
    """A rule on the stores, as a pack writes it (its examples are not run here)."""
    return {"id": rule_id, "title": "differential", "severity": "warning", "summary": "s", "rationale": "r",
            "source": {"note": "test"}, "table": "PublicFolderDatabase", "when": condition, "message": message,
            "checks": [{"table": "PublicFolderDatabase"}], "examples": {"bad": [{}], "good": [{}]}}


def rules_for(expressions: list[tuple[str, str]]) -> dict:
    validator = _Validator(load_tables())
    rules = {}
    for index, (condition, shown) in enumerate(expressions):
        rule_id = f"ZDF{index:03d}"
        raw = raw_rule(rule_id, condition, "{name}: " + " ".join("{" + field + "}" for field in shown))
        try:
            rules[rule_id] = parse_rule(raw, validator, "differential.yaml", {})
        except PackError:
            continue  # an expression the pack validator refuses (both engines never see it)
    assert len(rules) >= len(expressions) * 9 // 10, "the generator should write valid expressions"
    return rules


def local_findings(documents: list[dict], rules) -> Counter:
    text = yaml.safe_dump_all(documents, allow_unicode=True, sort_keys=False)
    estate = build_estate([load_text(text, "estate.yaml")])
    # one problem, one finding: the runner drops repeats as the Spark job does
    return Counter({key(f.as_dict()) for f in list(estate.findings) + LocalEngine(estate, rules).run()})


def spark_findings(spark, documents: list[dict], rules, directory) -> Counter:
    text = yaml.safe_dump_all(documents, allow_unicode=True, sort_keys=False).encode("utf-8")
    found, _, failures = run_spark(spark, [EstateSpec("e", [("estate.yaml", text)])], rules, directory)
    assert not failures, failures
    return Counter(found["e"])


def test_local_and_spark_agree_on_generated_expressions(spark, tmp_path_factory):
    mixed_batches = []  # batches where some expressions held and some did not

    # Hypothesis's first example can be the minimal one (one expression a hundred
    # times), so that the generator writes both kinds is checked over the run
    @settings(max_examples=BATCHES, deadline=None, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.large_base_example])
    @given(expressions=st.lists(EXPRESSIONS, min_size=PER_BATCH, max_size=PER_BATCH), records=stores())
    def batch(expressions, records):
        rules = rules_for(expressions)
        documents = FIXED + records
        expected = local_findings(documents, rules)
        found = spark_findings(spark, documents, rules, tmp_path_factory.mktemp("differential"))
        fired = {f[0] for f in expected if f[0].startswith("ZDF")}
        if 0 < len(fired) < len(rules):
            mixed_batches.append(len(fired))
        missing, extra = expected - found, found - expected
        if missing or extra:
            by_rule = {rid: expressions[int(rid[3:])] for rid in {f[0] for f in list(missing) + list(extra)}}
            pytest.fail(f"local only: {sorted(missing)[:5]}\nspark only: {sorted(extra)[:5]}\nexpressions: {by_rule}")

    batch()
    assert len(mixed_batches) >= max(1, BATCHES // 2), \
        f"only {len(mixed_batches)} of {BATCHES} batches held expressions that hold and that do not"


def test_dollar_braces_in_rule_text_stay_as_written(spark, tmp_path_factory, monkeypatch):
    # Spark substitutes ${...} in SQL text before parsing it (an unknown name by
    # nothing, ${env:X} by the environment's X): a rule's literals reach the SQL as
    # string literals, which must come out as the local engine reads them
    monkeypatch.setenv("EXLINT_TEST_SECRET", "leaked")
    raw = raw_rule("ZDS001", "'a${x}b' != 'ab' and '${env:EXLINT_TEST_SECRET}' != 'leaked' and name != '$'",
                   "{name}: $ $1 ${name}")  # (braces in a message are placeholders, $word an option)
    rules = {"ZDS001": parse_rule(raw, _Validator(load_tables()), "dollars.yaml", {})}
    store = {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PFDB-A"},
             "spec": {"server": "EX10-B", "hierarchy": "Public Folders"}}
    documents = FIXED + [store]
    expected = local_findings(documents, rules)
    messages = [f for f in expected if f[0] == "ZDS001"]
    assert len(messages) == 1 and "PFDB-A: $ $1 $PFDB-A" in messages[0]
    assert spark_findings(spark, documents, rules, tmp_path_factory.mktemp("dollars")) == expected


@pytest.mark.parametrize("condition", [
    "not any(custom_list_servers, item == 'ex10-b')",
    "all(custom_list_servers, item == 'ex03-a')",
    "count(custom_list_servers, item != 'ex10-b') == 2",
    "count(custom_list_servers) == 2",
    "distinct_count(custom_list_servers, size(custom_list_servers)) == 1",
    "distinct_count(custom_list_servers, item) == 1",
])
def test_list_aggregates_skip_missing_items(spark, tmp_path_factory, condition):
    # an entry without a server is a missing item, which no aggregate counts or tests. (Such a
    # list is unread, EXL003's, and the pack loader makes a record-level rule stand down on it:
    # that guard is taken off here, to compare what group and unique checks still evaluate.)
    store = {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PFDB-A"},
             "spec": {"server": "EX10-B", "hierarchy": "Public Folders",
                      "referrals": {"useCustomList": True, "customList": [{"cost": 1}, {"server": "EX03-A", "cost": 1},
                                                                         {"server": "EX03-A", "cost": 2}]}}}
    rule = parse_rule(raw_rule("ZDL001", condition, "{name}"), _Validator(load_tables()), "l.yaml", {})
    for check in rule.checks:
        assert "unread" in repr(check.where)  # the guard the loader adds
        check.where = None
    rules = {"ZDL001": rule}
    documents = FIXED + [store]
    expected = local_findings(documents, rules)
    assert [f for f in expected if f[0] == "ZDL001"], "the condition holds for the local engine"
    assert spark_findings(spark, documents, rules, tmp_path_factory.mktemp("aggregates")) == expected


@pytest.mark.parametrize("condition, fires", [
    ("(status_timeout * status_alignment) is None", True),  # 4294967295 squared is past 64 bits
    ("status_timeout * status_alignment > 0", False),  # wrapped around, Spark said it was negative
    ("(status_timeout * 2) > 0", True),
    ("(status_timeout * status_alignment * 0) == 0", False),
])
def test_integer_arithmetic_past_64_bits_is_no_value_in_both_engines(spark, tmp_path_factory, condition, fires):
    store = {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PFDB-A"},
             "spec": {"server": "EX10-B", "hierarchy": "Public Folders",
                      "registry": {"Replication Send Status Timeout": 4294967295,
                                   "Replication Send Status Alignment": 4294967295}}}
    rules = {"ZDO001": parse_rule(raw_rule("ZDO001", condition, "{name}"), _Validator(load_tables()), "o.yaml", {})}
    documents = FIXED + [store]
    expected = local_findings(documents, rules)
    assert bool([f for f in expected if f[0] == "ZDO001"]) is fires
    assert spark_findings(spark, documents, rules, tmp_path_factory.mktemp("overflow")) == expected
