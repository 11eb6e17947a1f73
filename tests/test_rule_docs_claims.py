"""What the rules' documentation and messages say: the facts of the rule catalog
cited by ID, a message for each case a rule distinguishes, and the catalog
conventions that a displayed example no longer shows."""
from __future__ import annotations

import re

import pytest

from linter.docs import explain_text, rules_markdown
from linter.policy.examples import run_example
from linter.policy.packs import load_rules

RULES = load_rules()

# the catalog's source column: the facts each rule rests on ("cite the ID in a rule's docs")
FACTS = {
    "DUP001": ["F1", "F2"], "DUP002": ["F1", "F2"], "DUP004": ["F3"], "DUP005": ["F1", "F2"],
    "STS002": ["F5", "F6"], "STS003": ["F4", "F5"], "STS005": ["F11", "F14"],
    "RTE003": ["F13"], "RTE007": ["F26"], "EXL009": ["F26"],
    "SHD007": ["F18-F22"], "CON001": ["F25"], "CON003": ["F24", "F25"],
}


@pytest.mark.parametrize("rule_id,facts", FACTS.items())
def test_explain_cites_the_facts_by_id(rule_id, facts):
    text = explain_text(RULES[rule_id])
    for fact in facts:
        assert re.search(rf"\b{fact}\b", text), (rule_id, fact)


def messages(example, rule_id):
    return [f.message for f in run_example(example, RULES) if f.rule == rule_id]


STATUS = "PublicFolderDatabase/PFDB-LON"


def test_sts002_asks_to_raise_an_alignment_no_skew_fits():
    # the skew is not written (default 0) and the alignment is 0
    [message] = messages({STATUS: {"spec": {"registry": {"Replication Send Status Alignment": 0}}}}, "STS002")
    assert "Raise Replication Send Status Alignment" in message and "default 0" in message
    assert "Set the skew below" not in message
    both = {"Replication Send Status Alignment": 0, "Replication Send Status Alignment Skew": 0}
    [message] = messages({STATUS: {"spec": {"registry": both}}}, "STS002")
    assert "Raise Replication Send Status Alignment" in message and "Set the skew below" not in message
    [message] = messages({STATUS: {"spec": {"registry": {"Replication Send Status Alignment Skew": 43200}}}},
                         "STS002")
    assert "Set the skew below the alignment" in message


def test_shd001_says_when_the_retries_are_the_default():
    local_only = {"ShadowMessagePreferenceSetting": "LocalOnly"}
    [message] = messages({"Organization/contoso": {"spec": {"transportConfig": local_only}}}, "SHD001")
    assert "is 4 (the default)" in message
    written = {**local_only, "MaxRetriesForRemoteSiteShadow": 4}
    [message] = messages({"Organization/contoso": {"spec": {"transportConfig": written}}}, "SHD001")
    assert "is 4:" in message and "default" not in message


def test_hie003_does_not_print_sp0():
    example = RULES["HIE003"].examples["bad"][0]
    found = messages(example, "HIE003")
    assert found and not any("SP0" in m for m in found)
    assert all("servicePack 0 is RTM" in m for m in found)


def test_dup001_does_not_claim_zero_is_honoured():
    [message] = messages({"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": {"Track Duplicates (in hours)": 5000}}}},
                         "DUP001")
    assert "up to 1176 (49 days)" in message and "0 to 1176" not in message


def test_a_custom_list_entry_counts_whatever_its_cost():
    """RTE005's good example shows an ordinary cost; the convention that a server listed
    in a custom list counts as listed whatever its cost (even above 500) is kept here."""
    example = {"PublicFolder//Sales": {"spec": {"replicas": ["PFDB-PAR", "PFDB-EX03"]}},
               "PublicFolderDatabase/PFDB-LON": {"spec": {"referrals": {"useCustomList": True, "customList": [
                   {"server": "EX10-LON-01", "cost": 1}, {"server": "EX10-PAR-01", "cost": 600}]}}}}
    assert messages(example, "RTE005") == []
    shown = explain_text(RULES["RTE005"])
    assert "cost: 600" not in shown


def test_generated_docs_do_not_call_bkf001_an_info_rule():
    text = rules_markdown(RULES)
    assert "An info rule that reports a value differing from its default (BKF001" not in text
    assert "(the warning BKF001," in text


@pytest.mark.parametrize("rule_id", ["HIE006", "HIE007"])
def test_the_exchange_2013_exception_is_stated(rule_id):
    summary = RULES[rule_id].summary
    assert "Exchange 2013 and later keep public folders in mailboxes" in summary
    assert "rule catalog" in summary


def test_shd001_source_is_the_readers_comment():
    source = RULES["SHD001"].source
    assert "comment" in source["title"].lower() and source["date"] == "2014-06-03"
