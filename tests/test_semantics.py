"""The conventions of the rule catalog (shared/spec/rules.md, "Conventions")
that no single rule example can show, each through the real pipeline."""
from __future__ import annotations

from pathlib import Path

import pytest

from linter.findings import Entity
from linter.policy.examples import run_example
from linter.policy.packs import load_rules

RULES = load_rules()


def lint(example) -> list:
    return run_example(example, RULES)


def rules_of(findings) -> list[str]:
    return sorted(f.rule for f in findings)


SERVER = {"apiVersion": "exlint/v1", "kind": "Server"}


def test_references_resolve_with_two_organizations():
    second = {"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "fabrikam"},
              "spec": {"adminGroups": [{"name": "Second Administrative Group", "siteFolderServer": "EX10-LON-01"}]}}
    server = {**SERVER, "metadata": {"name": "EX10-LON-09"},
              "spec": {"version": "2010", "site": "London", "adminGroup": "Third Administrative Group",
                       "roles": ["Mailbox"], "dag": "DAG-1"}}
    found = lint({"add": [second, server]})
    assert [f.entity.name for f in found if f.rule == "EXL008"] == ["contoso", "fabrikam"]
    unresolved = [f for f in found if f.rule == "EXL007"]
    assert [(f.entity, f.path) for f in unresolved] == [(Entity("Server", "EX10-LON-09"), "spec.adminGroup")]
    # an administrative group the second Organization defines resolves
    server["spec"]["adminGroup"] = "Second Administrative Group"
    assert "EXL007" not in rules_of(lint({"add": [second, server]}))


# a second Organization of the base estate's name, repeating its sites and hierarchy and
# listing London twice itself
SAME_NAME_ORG = {"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "Contoso"},
                 "spec": {"sites": [{"name": "London"}, {"name": "Paris"}, {"name": "london"}],
                          "hierarchies": [{"name": "Public Folders", "type": "MAPI"}]}}


def test_two_organizations_of_one_name_are_two_lists_not_one_listed_twice():
    # EXL008 says "merge them"; each document's lists are its own: London repeats only in
    # the second one (before, every site and hierarchy of both was "listed 2 times")
    found = lint({"add": [SAME_NAME_ORG]})
    assert [f.entity.name for f in found if f.rule == "EXL008"] == ["contoso", "Contoso"]
    assert [(f.entity.name, f.path) for f in found if f.rule == "EXL006"] == [
        ("Contoso", "spec.sites[0].name"), ("Contoso", "spec.sites[2].name")], [(f.rule, f.message) for f in found]


# a store whose YAML breaks after its kind and name (a flow list left open)
BROKEN_STORE = {"delete": ["PublicFolderDatabase/PFDB-PAR"],
                "yaml": "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata:\n  name: PFDB-PAR\nspec:\n"
                        "  server: EX10-PAR-01\n  created: [2011-06-01\n"}
BROKEN_ORGANIZATION = {"delete": ["Organization/contoso"],
                       "yaml": "apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: contoso}\nspec:\n"
                               "  sites: [{name: London}\n"}


def test_a_document_whose_yaml_breaks_after_its_name_still_defines_that_name():
    # the store's file fails to parse (EXL001); the folders listing it as a replica got REP001
    # "not defined" in other files for the same typo
    found = lint(BROKEN_STORE)
    assert sorted(f.rule for f in found) == ["EXL001"], [(f.rule, f.file, f.message) for f in found]
    # with nothing read before the error, nothing is named: the replicas are undefined
    unnamed = {**BROKEN_STORE, "yaml": "apiVersion: exlint/v1\nkind: [PublicFolderDatabase\nmetadata: {name: PFDB-PAR}\n"}
    assert "REP001" in rules_of(lint(unnamed))


def test_an_organization_whose_yaml_breaks_is_still_the_estates_organization():
    # EXL008 said the estate has no Organization
    found = lint(BROKEN_ORGANIZATION)
    assert "EXL001" in rules_of(found) and "EXL008" not in rules_of(found), [(f.rule, f.message) for f in found]


MAPI_TYPO = {"Organization/contoso": {"spec": {"hierarchies": [
    {"name": "Public Folders", "type": "mapi"}, {"name": "Projects", "type": "Application"}]}}}


@pytest.mark.parametrize("written", ["mapi", ["MAPI"]])  # (a list: no value to look up at all)
def test_a_hierarchy_type_the_schema_refuses_is_exl003s_alone(written):
    # `type: mapi` is EXL003's ("did you mean 'MAPI'"); HIE007 counted no MAPI hierarchy and
    # said the organization defines none: two findings for one typo
    patch = {"Organization/contoso": {"spec": {"hierarchies": [
        {"name": "Public Folders", "type": written}, {"name": "Projects", "type": "Application"}]}}}
    found = lint({"patch": patch})
    assert [(f.rule, f.path) for f in found] == [("EXL003", "spec.hierarchies[0].type")], \
        [(f.rule, f.message) for f in found]


def test_duplicate_key_names_its_document():
    text = ("apiVersion: exlint/v1\nkind: MailboxDatabase\nmetadata: {name: MBX-LON-02}\nspec:\n"
            "  server: EX10-LON-01\n  registry:\n    Background Cleanup (in msecs): 60000\n"
            "    Background Cleanup (in msecs): 60000\n")
    found = [f for f in lint({"yaml": text}) if f.rule == "EXL002"]
    assert [f.entity for f in found] == [Entity("MailboxDatabase", "MBX-LON-02")]


def test_unknown_api_version_names_its_document():
    text = "apiVersion: exlint/v2\nkind: Server\nmetadata: {name: EX10-LON-09}\nspec: {version: '2010'}\n"
    found = [f for f in lint({"yaml": text}) if f.rule == "EXL004"]
    assert [f.entity for f in found] == [Entity("Server", "EX10-LON-09")]


def test_a_duplicate_key_names_a_document_whose_name_is_a_number():
    # `name: 2010` is EXL003's (names are text), and still the name the finding can be owned by
    found = lint({"yaml": "apiVersion: exlint/v1\nkind: Server\nmetadata: {name: 2010}\n"
                          "spec:\n  site: London\n  site: Paris\n"})
    duplicates = [f for f in found if f.rule == "EXL002"]
    assert duplicates and all(f.entity == Entity("Server", "2010") for f in duplicates), duplicates


def test_a_missing_api_version_is_one_finding_naming_its_document():
    text = "kind: Server\nmetadata: {name: EX10-LON-09}\nspec: {version: '2010'}\n"
    found = [f for f in lint({"yaml": text}) if f.file.endswith("raw.yaml") and f.rule in ("EXL003", "EXL004")]
    assert [(f.rule, f.entity) for f in found] == [("EXL004", Entity("Server", "EX10-LON-09"))]


def test_a_finding_no_document_owns_has_no_entity():
    found = [f for f in lint({"yaml": "- just\n- a list\n"}) if f.rule == "EXL003"]
    assert found and all(f.entity is None for f in found)


REPLICATION = "PublicFolderDatabase/PFDB-LON"
OWNED = [
    # (rule, patch of the example estate)
    ("STS005", {REPLICATION: {"spec": {"replication": {"Replication Message Size Limit": -1}}}}),
    ("STS005", {REPLICATION: {"spec": {"replication": {"Replication Message Size Limit": "-1KB"}}}}),
    ("STS005", {REPLICATION: {"spec": {"replication": {"Replication Message Size Limit": 0}}}}),
    ("STS005", {REPLICATION: {"spec": {"replication": {"Replication Message Size Limit": 10**15}}}}),
    ("STS005", {REPLICATION: {"spec": {"replication": {"Replication Folder Count Limit": -1}}}}),
    ("STS005", {REPLICATION: {"spec": {"replication": {"Replication Message Count Limit": 10**12}}}}),
    ("DUP001", {"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": {"Track Duplicates (in hours)": -1}}}}),
    ("DUP001", {"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": {"Track Duplicates (in hours)": 10**12}}}}),
    ("SHD007", {"Organization/contoso": {"spec": {"transportConfig": {"MaxRetriesForLocalSiteShadow": -1}}}}),
    ("SHD007", {"Organization/contoso": {"spec": {"transportConfig": {"MaxRetriesForLocalSiteShadow": 10**12}}}}),
    ("SHD007", {"Organization/contoso": {"spec": {"transportConfig": {"ShadowHeartbeatFrequency": "-5m"}}}}),
    # out of range with LocalOnly: SHD007's, not also SHD001's (which asks for 0)
    ("SHD007", {"Organization/contoso": {"spec": {"transportConfig": {"ShadowMessagePreferenceSetting": "LocalOnly",
                                                                      "MaxRetriesForRemoteSiteShadow": 300}}}}),
    ("SHD007", {"Organization/contoso": {"spec": {"transportConfig": {"ShadowHeartbeatFrequency": "00:00:00"}}}}),
    ("SHD007", {"Organization/contoso": {"spec": {"transportConfig": {"ShadowResubmitTimeSpan": "99999999.00:00:00"}}}}),
    ("CON003", {"Server/EX10-LON-01": {"spec": {"sendConnectors": [{"name": "Internet", "ConnectionInactivityTimeOut": "-00:00:01"}]}}}),
    ("CON003", {"Server/EX10-LON-01": {"spec": {"sendConnectors": [{"name": "Internet", "ConnectionInactivityTimeOut": "0s"}]}}}),
    ("CON003", {"Server/EX10-LON-01": {"spec": {"sendConnectors": [{"name": "Internet", "ConnectionInactivityTimeOut": "99999999.00:00:00"}]}}}),
    ("RTE003", {REPLICATION: {"spec": {"referrals": {"useCustomList": True, "customList": [{"server": "EX10-PAR-01", "cost": -1}]}}}}),
    ("RTE003", {REPLICATION: {"spec": {"referrals": {"useCustomList": True, "customList": [{"server": "EX10-PAR-01", "cost": 0}]}}}}),
    ("RTE007", {"Organization/contoso": {"spec": {"routing": {"PFReplicaAgeThreshold": "-5m"}}}}),
    ("RTE007", {"Organization/contoso": {"spec": {"routing": {"PFReplicaAgeThreshold": "0s"}}}}),
    ("RTE007", {"Organization/contoso": {"spec": {"routing": {"PFReplicaAgeThreshold": None, "PFReplicaAgeThresholdHours": -1}}}}),
    ("RTE007", {"Organization/contoso": {"spec": {"routing": {"PFReplicaAgeThreshold": None, "PFReplicaAgeThresholdHours": 0}}}}),
]


@pytest.mark.parametrize("rule,patch", OWNED, ids=[f"{r}-{i}" for i, (r, _) in enumerate(OWNED)])
def test_an_owned_range_is_the_owning_rules_only(rule, patch):
    assert rules_of(lint({"patch": patch})) == [rule]


def test_a_comment_only_document_after_a_separator_is_skipped():
    text = ("apiVersion: exlint/v1\nkind: MailboxDatabase\nmetadata: {name: MBX-LON-02}\nspec:\n"
            "  server: EX10-LON-01\n---\n# nothing more\n---\n")
    assert lint({"yaml": text}) == []


def test_names_are_displayed_as_written():
    """HIE005 compares sites case-insensitively but names them as the documents do."""
    rule = RULES["HIE005"]
    found = [f for f in lint(rule.examples["bad"][0]) if f.rule == "HIE005"]
    assert found and all("to site London," in f.message and "site Tokyo" in f.message for f in found), found
    assert not any("london" in f.message for f in found)


SUPERSEDED_BY_LOUDER = ("BKF001", "BKF006", "STS001", "CON002", "DUP004")


@pytest.mark.parametrize("seed", [3, 11])
def test_an_info_rule_is_silent_on_a_value_a_louder_rule_reports(tmp_path, seed):
    """The "superseded" convention on generated estates full of planted defects: no
    default-differs finding sits on a value (file and path) that a warning or error
    finding reports."""
    import json

    from click.testing import CliRunner

    from linter.cli import cli
    from linter.generate.core import Settings, generate

    out = tmp_path / "estate"
    generate(Settings(servers=40, seed=seed, defect_rate=0.6, format="yaml", output=str(out)))
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--fail-on", "never", str(out)])
    findings = json.loads(result.stdout)["findings"]
    loud = {(f["file"], f["path"]) for f in findings if f["severity"] in ("error", "warning")
            and f["rule"] not in SUPERSEDED_BY_LOUDER}
    quiet = [f for f in findings if f["rule"] in SUPERSEDED_BY_LOUDER and (f["file"], f["path"]) in loud]
    assert quiet == []
    assert any(f["rule"] in SUPERSEDED_BY_LOUDER for f in findings)  # the estates exercise these rules


BRACED_CONNECTOR = {"Server/EX10-LON-01": {"spec": {"receiveConnectors": [
    {"name": "Relay {server} {name}", "ConnectionTimeout": "00:05:00", "ConnectionInactivityTimeout": "00:05:00"}]}}}


def test_a_value_that_looks_like_a_placeholder_is_shown_as_written():
    # names are displayed as written: a connector named "Relay {server} {name}" is not filled in
    # turn with its server's name (each placeholder is filled once, in one pass over the message)
    found = [f for f in lint(BRACED_CONNECTOR) if f.rule == "CON001"]
    assert found, "the example no longer raises CON001"
    assert all(f.message.startswith("receive connector Relay {server} {name} on EX10-LON-01:") for f in found), \
        [f.message for f in found]


NOT_ORGANIZATION = ["Server/EX10-LON-01", "Server/EX10-PAR-01", "Server/EX03-LON-01", "PublicFolderDatabase/PFDB-LON",
                    "PublicFolderDatabase/PFDB-PAR", "PublicFolderDatabase/PFDB-EX03",
                    "PublicFolderDatabase/PFDB-PROJ", "PublicFolder//Sales", "PublicFolder//OFFLINE ADDRESS BOOK",
                    "MailboxDatabase/MBX-LON"]
NO_MAPI_NO_SITE_FOLDER_SERVER = {"Organization/contoso": {"spec": {
    "hierarchies": [{"name": "Projects", "type": "Application"}],
    "adminGroups": [{"name": "First Administrative Group"}]}}}


def test_an_organization_alone_is_checked_as_the_catalog_says():
    # no server and no store says nothing about the Exchange versions: HIE006 and HIE007 apply
    found = lint({"delete": NOT_ORGANIZATION, "patch": NO_MAPI_NO_SITE_FOLDER_SERVER})
    assert sorted((f.rule, f.entity.name, f.path) for f in found if f.rule in ("HIE006", "HIE007")) == [
        ("HIE006", "contoso", "spec.adminGroups[0]"), ("HIE007", "contoso", "spec.hierarchies")]


def test_an_estate_of_exchange_2013_and_later_without_public_folder_databases_has_no_mapi_hierarchy_to_define():
    modern = [name for name in NOT_ORGANIZATION if not name.startswith("Server/EX10")]
    patch = {**NO_MAPI_NO_SITE_FOLDER_SERVER, "Server/EX10-LON-01": {"spec": {"version": "2016"}},
             "Server/EX10-PAR-01": {"spec": {"version": "2019"}}}
    found = lint({"delete": modern, "patch": patch})
    assert not [f for f in found if f.rule in ("HIE006", "HIE007")]
    # one server before 2013 in the estate: the hierarchy rules apply again
    patch["Server/EX10-PAR-01"] = {"spec": {"version": "2010"}}
    assert {f.rule for f in lint({"delete": modern, "patch": patch})} >= {"HIE006", "HIE007"}


def _connector(**values):
    return {"Server/EX10-LON-01": {"spec": {"receiveConnectors": [{"name": "R1", **values}]}}}


@pytest.mark.parametrize("values, expected", [
    # one value out of range is CON003's; the other, in range and not the default, is still noted
    ({"ConnectionTimeout": "2.00:00:00", "ConnectionInactivityTimeout": "00:07:00"},
     [("CON002", "spec.receiveConnectors[0].ConnectionInactivityTimeout"),
      ("CON003", "spec.receiveConnectors[0].ConnectionTimeout")]),
    ({"ConnectionTimeout": "00:15:00", "ConnectionInactivityTimeout": "00:00:00"},
     [("CON002", "spec.receiveConnectors[0].ConnectionTimeout"),
      ("CON003", "spec.receiveConnectors[0].ConnectionInactivityTimeout")]),
    # a pair out of order is CON001's: neither value is also noted as non-default
    ({"ConnectionTimeout": "00:04:00", "ConnectionInactivityTimeout": "00:07:00"},
     [("CON001", "spec.receiveConnectors[0].ConnectionInactivityTimeout")]),
    # both in range and in order: each non-default value is noted
    ({"ConnectionTimeout": "00:15:00", "ConnectionInactivityTimeout": "00:07:00"},
     [("CON002", "spec.receiveConnectors[0].ConnectionInactivityTimeout"),
      ("CON002", "spec.receiveConnectors[0].ConnectionTimeout")]),
])
def test_connector_findings_one_problem_one_finding(values, expected):
    found = [f for f in lint(_connector(**values)) if f.rule.startswith("CON")]
    assert sorted((f.rule, f.path) for f in found) == expected


def test_a_store_listed_again_is_one_finding_per_repeat_the_first_entry_kept():
    replicas = ["PFDB-LON", "PFDB-LON", "PFDB-PAR", "pfdb-lon", "PFDB-XX", "pfdb-xx"]
    found = [f for f in lint({"PublicFolder//Sales": {"spec": {"replicas": replicas}}}) if f.rule == "REP005"]
    # entries 1 and 3 repeat entry 0; PFDB-XX names no store (REP001's, not a duplicate of a store)
    assert [f.path for f in found] == ["spec.replicas[1]", "spec.replicas[3]"]


def test_a_single_replica_written_twice_is_said_to_be_one_store():
    # REP004 counts a store written twice once (REP005 reports the repeat); its message quoted
    # the list as if it named two replicas ("a single replica (PFDB-LON, pfdb-lon)")
    found = [f for f in lint({"PublicFolder//Sales": {"spec": {"replicas": ["PFDB-LON", "pfdb-lon"]}}})
             if f.rule in ("REP004", "REP005")]
    assert sorted(f.rule for f in found) == ["REP004", "REP005"]
    assert "its replica list, PFDB-LON, pfdb-lon, names one store" in next(f.message for f in found if f.rule == "REP004")


def test_repeats_needs_a_list_field():
    from linter.forms.errors import PackError
    from linter.model.tables import load_tables
    from linter.policy.packs import _Validator, parse_rule

    rule = {"id": "ZZZ001", "title": "t", "severity": "warning", "summary": "s", "rationale": "r", "fix_hint": "f",
            "source": {"note": "test"}, "examples": {"bad": [{}], "good": [{}]},
            "table": "PublicFolder", "form": "reference", "field": "hierarchy", "target": "Hierarchy",
            "repeats": True, "message": "m"}
    with pytest.raises(PackError, match="`repeats` needs a list field"):
        parse_rule(rule, _Validator(load_tables()), "p.yaml", {})


@pytest.mark.parametrize("patch, path", [
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"replication": {"Replication Message Size Limit": "1.5KB"}}}},
     "spec.replication.Replication Message Size Limit"),
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"replication": {"Replication Short Backfill Request Delay": "1.5h"}}}},
     "spec.replication.Replication Short Backfill Request Delay"),
    (_connector(ConnectionTimeout="15M"), "spec.receiveConnectors[0].ConnectionTimeout"),
    (_connector(ConnectionTimeout="15 m"), "spec.receiveConnectors[0].ConnectionTimeout"),
    # digits other than 0-9 (Arabic-Indic, fullwidth): Exchange reads none of them, and JSON
    # Schema's \d (ECMA 262) is 0-9 alone, where Python's re took every Unicode digit
    (_connector(ConnectionTimeout="\u0661\u0660m"), "spec.receiveConnectors[0].ConnectionTimeout"),
    (_connector(ConnectionTimeout="\u0660\u0665m"), "spec.receiveConnectors[0].ConnectionTimeout"),
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"replication": {"Replication Message Size Limit": "\uff13\uff10\uff10KB"}}}},
     "spec.replication.Replication Message Size Limit"),
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"created": "\u0662\u0660\u0661\u0660-01-01"}}}, "spec.created"),
])
def test_a_value_in_a_form_the_schema_rejects_is_one_finding(patch, path):
    # EXL003 says the form is wrong; no rule also reports a number read loosely from it
    found = [f for f in lint(patch) if f.path == path]
    assert [f.rule for f in found] == ["EXL003"], [(f.rule, f.message) for f in found]


@pytest.mark.parametrize("value", ["se", " 2010", "2010 ", "Se"])
def test_a_version_the_schema_rejects_is_no_release_to_the_rules(value):
    # EXL003 says how to write it; no rule reads `se` as SE or " 2010" as 2010 beside it
    # a 2010 store writing Track Duplicates is DUP005's: only while its server's version is read
    store = {"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"Track Duplicates (in hours)": 24}}}}
    unreadable = lint({"Server/EX10-LON-01": {"spec": {"version": "Exchange 2010"}}, **store})
    found = lint({"Server/EX10-LON-01": {"spec": {"version": value}}, **store})
    assert [f.rule for f in found if f.path == "spec.version"] == ["EXL003"], found

    def others(findings):
        return sorted((f.rule, f.path, f.entity) for f in findings if f.rule != "EXL003")
    assert others(found) == others(unreadable)


@pytest.mark.parametrize("patch, path, known", [
    (_connector(connectionTimeout="00:15:00"), "spec.receiveConnectors[0].connectionTimeout", "ConnectionTimeout"),
    ({"Server/EX10-LON-01": {"spec": {"sendConnectors": [{"name": "S1", "ConnectionInactivityTimeout": "2.00:00:00"}]}}},
     "spec.sendConnectors[0].ConnectionInactivityTimeout", "ConnectionInactivityTimeOut"),
    ({"Organization/contoso": {"spec": {"transportConfig": {"ShadowRedundancyEnable": False}}}},
     "spec.transportConfig.ShadowRedundancyEnable", "ShadowRedundancyEnabled"),
    # cut short or run on, which a close-match ratio misses (ShadowMessagePreference is how
    # the seed SHD006 quotes spells it): each would turn its checks off unnoticed
    ({"Organization/contoso": {"spec": {"transportConfig": {"ShadowMessagePreference": "LocalOnly"}}}},
     "spec.transportConfig.ShadowMessagePreference", "ShadowMessagePreferenceSetting"),
    ({"Organization/contoso": {"spec": {"transportConfig": {"ShadowRedundancy": False}}}},
     "spec.transportConfig.ShadowRedundancy", "ShadowRedundancyEnabled"),
    ({"Organization/contoso": {"spec": {"transportConfig": {"SafetyNetHoldTimeSpan": "2.00:00:00"}}}},
     "spec.transportConfig.SafetyNetHoldTimeSpan", "SafetyNetHoldTime"),
    ({"Organization/contoso": {"spec": {"transportConfig": {"ShadowHeartbeatFrequencySetting": "00:02:00"}}}},
     "spec.transportConfig.ShadowHeartbeatFrequencySetting", "ShadowHeartbeatFrequency"),
])
def test_a_cmdlet_parameter_in_the_wrong_case_or_misspelt_is_reported_not_ignored(patch, path, known):
    found = [f for f in lint(patch) if f.path == path]
    assert [f.rule for f in found] == ["EXL003"] and f"did you mean {known!r}" in found[0].message


def test_a_cmdlet_parameter_exlint_does_not_model_is_accepted():
    patch = {"Organization/contoso": {"spec": {"transportConfig": {"ShadowRedundancyPromotionEnabled": True,
                                                                   "MaxDumpsterTime": "7.00:00:00"}}}}
    assert not [f for f in lint(patch) if f.rule == "EXL003"]


def test_no_parameter_of_the_real_captures_is_taken_for_a_misspelling():
    # the near-miss rule (a close match, or a name cut short or run on) against every
    # parameter name of the real cmdlet captures: none is one of a known name but itself
    import re

    from linter.schema import KINDS, _near_name, _open_mappings

    # the CSS-Exchange captures beside the checkout when they are there, the importers' always
    real = Path(__file__).resolve().parents[1].parent / "shared" / "real-world"
    fixtures = Path(__file__).parent / "importers" / "fixtures"
    names = set()
    for folder in (real, fixtures):
        for path in folder.rglob("*.xml"):
            names |= set(re.findall(r'N="([A-Za-z]+)"', path.read_text(encoding="utf-8", errors="replace")))
    assert len(names) > 20, "no captures found"
    for kind in KINDS:
        for _, known in _open_mappings(kind):
            lowered = {n.lower() for n in known}
            taken = [(n, _near_name(n, known)) for n in sorted(names)
                     if n.lower() not in lowered and _near_name(n, known) is not None]
            assert not taken, (kind, taken)


def test_a_number_where_a_duration_goes_says_how_to_write_a_duration():
    found = [f for f in lint(_connector(ConnectionTimeout=600)) if f.rule == "EXL003"]
    assert len(found) == 1 and "00:10:00" in found[0].message and "quote the value" not in found[0].message


def test_an_enum_error_lists_null_as_yaml_writes_it():
    found = [f for f in lint({"PublicFolder//Sales": {"spec": {"systemFolder": "Bogus"}}}) if f.rule == "EXL003"]
    assert len(found) == 1 and "allowed: null, SiteFolder" in found[0].message and "None" not in found[0].message


def test_null_where_a_size_goes_says_leave_it_out_as_every_null_does():
    # a size is "a string or integer" (anyOf): null was said to have "the wrong form"
    found = [f for f in lint({"yaml": "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-NEW}\n"
                                      "spec:\n  server: EX10-LON-01\n  hierarchy: Projects\n"
                                      "  replication:\n    Replication Message Size Limit:\n"})
             if f.rule == "EXL003"]
    assert [f.message for f in found] == [
        "spec.replication.Replication Message Size Limit must be a string or integer, not null "
        "(leave the field out when it has no value)"]


def test_a_window_in_force_exlint_cannot_read_is_not_quoted():
    # DUP005 quoted the window in force as "(in force: (not set))" when it was EXL003's
    found = lint({"yaml": "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-NEW}\n"
                          "spec:\n  server: EX10-LON-01\n  hierarchy: Projects\n  registry:\n"
                          "    Track Duplicates (in hours): 24\n    DeliveredTo Expiration in Hours:\n"})
    dup005 = [f.message for f in found if f.rule == "DUP005"]
    assert len(dup005) == 1 and "in force" not in dup005[0] and "(not set)" not in dup005[0], dup005
    assert "DeliveredTo Expiration in Hours" in [f.path.rsplit(".", 1)[-1] for f in found if f.rule == "EXL003"]


@pytest.mark.parametrize("registry", [
    {"Preferred Backfill Source": 12345},  # BKF002 said 'is "(not set)"'
    {"Track Duplicates (in hours)": "24h"},  # on Exchange 2003; DUP003 judged a number it could not know
    {"DeliveredTo Expiration in Hours": "168"},  # DUP005 said 'is set to (not set)'
])
def test_a_value_of_the_wrong_type_is_one_finding(registry):
    found = [f for f in lint({"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": registry}}})
             if f.entity and f.entity.name == "PFDB-EX03"]
    assert [f.rule for f in found] == ["EXL003"], [(f.rule, f.message) for f in found]


# A value written in a form exlint cannot read (a scalar for a list, a number for a date)
# is EXL003's; a rule reading that field stands down for the record rather than judging it
# as absent (REP003 said the folder had no replica, RTE002 that the store had no date).
UNREADABLE = [
    ({"PublicFolder//Sales": {"spec": {"replicas": "PFDB-LON"}}}, "spec.replicas", "REP003"),
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"created": 20080211}}}, "spec.created", "RTE002"),
    ({"PublicFolder//Sales": {"spec": {"replicas": [], "deletePending": "PFDB-PAR"}}}, "spec.deletePending", "REP003"),
    # outside the schema's range (F2: minimum 1; a REG_DWORD is never negative): EXL003's alone
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"DeliveredTo Expiration in Hours": 0}}}},
     "spec.registry.DeliveredTo Expiration in Hours", "DUP003"),
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"Background Cleanup (in msecs)": -1}}}},
     "spec.registry.Background Cleanup (in msecs)", "DUP004"),
    # an entry that is no name makes the list unreadable: REP004 saw `[PFDB-LON, 5]` as one
    # replica, REP001 reported `""` as an undefined store
    ({"PublicFolder//Sales": {"spec": {"replicas": ["PFDB-LON", 5]}}}, "spec.replicas[1]", "REP004"),
    ({"PublicFolder//Sales": {"spec": {"replicas": ["PFDB-LON", ""]}}}, "spec.replicas[1]", "REP001"),
    # a server whose version exlint cannot read might be the DAG's second shadow server (SHD002,
    # a group check, stands down for the boundary), and a store whose server it cannot read
    # might be the site folder server's MAPI store (HIE006)
    ({"Server/EX10-PAR-01": {"spec": {"version": ["2010"]}}}, "spec.version", "SHD002"),
    ({"PublicFolderDatabase/PFDB-LON": {"spec": {"server": ["EX10-LON-01"]}}}, "spec.server", "HIE006"),
    # ... as might a server whose site (outside a DAG) or DAG it cannot read: it falls in no
    # boundary, and SHD002 fired on the other server of its site (a server in no DAG might
    # belong to any site's boundary, and only to those: both servers of DAG-1 leave it)
    ({"patch": {"Server/EX10-PAR-01": {"spec": {"dag": None}}, "Server/EX10-LON-01": {"spec": {"dag": None}}},
      "add": [dict(SERVER, metadata={"name": "EX10-PAR-02"},
                   spec={"version": "2010", "site": ["Paris"], "roles": ["Mailbox"]})]},
     "spec.site", "SHD002"),
    ({"patch": {"Server/EX10-PAR-01": {"spec": {"dag": None}}},
      "add": [dict(SERVER, metadata={"name": "EX10-PAR-02"},
                   spec={"version": "2010", "site": "Paris", "roles": ["Mailbox"], "dag": 7})]},
     "spec.dag", "SHD002"),
    # a site link whose sites exlint cannot read might join any two sites (HIE005: Paris was
    # said to be unconnected), and a custom referral list with an entry it cannot read might
    # name a replica's server (RTE005)
    ({"Organization/contoso": {"spec": {"siteLinks": [{"name": "LON-PAR", "sites": ["London", 5], "cost": 10}]}}},
     "spec.siteLinks[0].sites[1]", "HIE005"),
    ({"Organization/contoso": {"spec": {"siteLinks": ["LON-PAR"]}}},
     "spec.siteLinks[0]", "HIE005"),
    ({"PublicFolder//Sales": {"spec": {"replicas": ["PFDB-PAR"]}},
      "PublicFolderDatabase/PFDB-LON": {"spec": {"referrals": {"useCustomList": True, "customList": [{"server": None, "cost": 1}]}}}},
     "spec.referrals.customList[0].server", "RTE005"),
    ({"yaml": "apiVersion: exlint/v1\nkind: PublicFolder\nmetadata: {name: /Null}\nspec:\n"
              "  hierarchy: Public Folders\n  replicas:\n"}, "spec.replicas", "REP003"),
    ({"yaml": "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-NEW}\nspec:\n"
              "  server: EX10-LON-01\n  hierarchy: Projects\n  emailAddress:\n  created: 2010-01-01\n"},
     "spec.emailAddress", "HIE004"),
]


@pytest.mark.parametrize("patch, path, silenced", UNREADABLE, ids=[r for _, _, r in UNREADABLE])
def test_a_rule_reading_an_unreadable_value_stands_down(patch, path, silenced):
    found = lint(patch)
    assert [f.rule for f in found if f.path == path] == ["EXL003"], [(f.rule, f.path, f.message) for f in found]
    assert silenced not in rules_of(found)


def test_a_value_under_a_mapping_that_is_not_one_is_unreadable():
    # `registry: [a]` (EXL003) left every registry value at its default: DUP003 judged them
    from linter.model.records import build_records
    from linter.model.tables import load_tables

    class Nowhere:
        file, index, line, column, marks = "x.yaml", 0, 1, 1, {}

    table = load_tables()["PublicFolderDatabase"]
    for registry in (["a"], None, "text"):
        data = {"metadata": {"name": "PF1"}, "spec": {"server": "EX1", "registry": registry}}
        record = build_records(table, Nowhere(), data, "PF1")[0]
        assert record["track_duplicates_hours__set"] is None and record["track_duplicates_hours"] is None
        assert record["deliveredto_expiration_hours__set"] is None
    record = build_records(table, Nowhere(), {"spec": {"server": "EX1"}}, "PF1")[0]
    assert record["track_duplicates_hours__set"] is False and record["track_duplicates_hours"] == 1  # the default


def test_a_distinguished_name_is_named_by_its_first_cn_wherever_it_stands():
    source = "OU=Stores,CN=PFDB-PAR,CN=EX10-PAR-01,DC=contoso,DC=com"
    found = lint({"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"Preferred Backfill Source": source}}}})
    assert "BKF001" in rules_of(found) and "BKF002" not in rules_of(found), [(f.rule, f.message) for f in found]


@pytest.mark.parametrize("store, source", [
    ("Store, One", r"CN=Store\2C One,CN=First Storage Group,DC=contoso,DC=com"),  # RFC 4514: a byte in hex
    ("Store, One", r"CN=Store\, One,DC=contoso,DC=com"),
    ("PFDB+PAR", r"CN=PFDB\+PAR,OU=Stores,DC=contoso,DC=com"),
    ("Store, One", 'CN="Store, One",DC=contoso,DC=com'),  # RFC 1779's quotes
    ("Café", r"CN=Caf\C3\A9,DC=contoso,DC=com"),  # UTF-8 bytes in hex
])
def test_a_distinguished_name_is_read_with_its_escapes(store, source):
    # an escaped first CN names the store it unescapes to: BKF002 said no such store
    added = {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": store},
             "spec": {"server": "EX10-PAR-01", "hierarchy": "Public Folders", "emailAddress": "x@contoso.com"}}
    found = lint({"add": [added], "patch": {
        "PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"Preferred Backfill Source": source}}}}})
    mine = [f.rule for f in found if f.entity and f.entity.name == "PFDB-LON"]
    assert "BKF001" in mine and "BKF002" not in mine, [(f.rule, f.message) for f in found]


@pytest.mark.parametrize("source", ["CN=", "cn= ", "CN=,OU=Stores,DC=contoso,DC=com", ""])
def test_a_distinguished_name_with_an_empty_cn_names_nothing_as_an_empty_value_does(source):
    # `CN=` was read as unreadable (no name came of it), so every check stood down, unsaid:
    # the schema accepts the text, and BKF002's message names the case ("an empty CN=")
    found = lint({"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"Preferred Backfill Source": source}}}})
    mine = [(f.rule, f.path) for f in found if f.entity and f.entity.name == "PFDB-LON" and f.rule.startswith("BKF")]
    assert mine == [("BKF002", "spec.registry.Preferred Backfill Source")], [(f.rule, f.message) for f in found]


@pytest.mark.parametrize("written, in_force", [(5000, 24), (1177, 24), (-1, 24), (1176, 1176), (2, 2)])
def test_dup005_quotes_the_window_in_force(written, in_force):
    # past 49 days (or negative) Exchange 2000/2003 track for 24 hours, as DUP001 says beside it
    found = lint({"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": {
        "Track Duplicates (in hours)": written, "DeliveredTo Expiration in Hours": 48}}}})
    messages = [f.message for f in found if f.rule == "DUP005"]
    assert len(messages) == 1 and f"(in force: {in_force})" in messages[0], messages


@pytest.mark.parametrize("blank", ["", "   "])
@pytest.mark.parametrize("patch, path", [
    (lambda b: {"Organization/contoso": {"spec": {"adminGroups": [
        {"name": "First Administrative Group", "siteFolderServer": b}]}}}, "spec.adminGroups[0].siteFolderServer"),
    (lambda b: {"PublicFolderDatabase/PFDB-LON": {"spec": {"server": b}}}, "spec.server"),
    (lambda b: {"Server/EX10-LON-01": {"spec": {"site": b}}}, "spec.site"),
])
def test_a_blank_name_the_schema_refuses_is_one_finding(patch, path, blank):
    # `siteFolderServer: ""` is EXL003's alone: no HIE006 beside it judging the server left out
    found = lint(patch(blank))
    at = [f.rule for f in found if f.path == path]
    assert at == ["EXL003"], [(f.rule, f.path, f.message) for f in found]
    unset = lint({"Organization/contoso": {"spec": {"adminGroups": [{"name": "First Administrative Group"}]}}})
    assert "HIE006" in rules_of(unset)  # left out, the server is missing: HIE006's


SITE_FOLDER_SERVER_WITHOUT_MAPI_STORE = {
    "add": [{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-PAR-09"},
             "spec": {"version": "2010", "site": "Paris", "adminGroup": "First Administrative Group",
                      "roles": ["Mailbox", "HubTransport"]}}],
    "patch": {"Organization/contoso": {"spec": {"adminGroups": [
        {"name": "First Administrative Group", "siteFolderServer": "EX10-PAR-09"}]}}}}


def test_a_site_folder_server_without_a_mapi_store_is_hie006s_alone():
    # REP009 asked for a replica on "the Public Folders store of EX10-PAR-09", which it has not
    found = rules_of(lint(SITE_FOLDER_SERVER_WITHOUT_MAPI_STORE))
    assert "HIE006" in found and "REP009" not in found, found


LONDON_PAIR_ONE_MISSPELT = {
    "add": [{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-LON-02"},
             "spec": {"version": "2010", "site": "Londres", "adminGroup": "First Administrative Group",
                      "roles": ["Mailbox", "HubTransport"]}}]}


def test_a_misspelt_site_is_exl007s_not_two_shadow_boundaries():
    # EX10-LON-02 meant London: its boundary is unknown, so no site boundary is judged
    found = lint(LONDON_PAIR_ONE_MISSPELT)
    assert "EXL007" in rules_of(found) and "SHD002" not in rules_of(found), [(f.rule, f.message) for f in found]


# EX10-PAR-01 leaves DAG-1 (EX10-LON-01 its one member) for a site that is not defined: it might
# belong to any AD site's boundary, never to DAG-1's, which SHD002 still judges
DAG_ALONE_BESIDE_A_MISSPELT_SITE = {"patch": {"Server/EX10-PAR-01": {"spec": {"dag": None, "site": "Pariss"}}}}


def test_a_misspelt_site_does_not_silence_shd002_in_a_dag():
    found = lint(DAG_ALONE_BESIDE_A_MISSPELT_SITE)
    shadow = [(f.entity.name, f.path) for f in found if f.rule == "SHD002"]
    assert shadow == [("EX10-LON-01", "spec.dag")], [(f.rule, f.message) for f in found]
    assert "EXL007" in rules_of(found)


def test_an_empty_list_written_is_read_not_unreadable():
    # the guard is for values exlint cannot read: an empty list is a list, and REP003's
    assert "REP003" in rules_of(lint({"PublicFolder//Sales": {"spec": {"replicas": []}}}))


@pytest.mark.parametrize("replicas, rule", [(["PFDB-LON"], "REP004"), (["PFDB-LON", "PFDB-EX03"], "REP010")])
def test_a_null_the_schema_accepts_is_the_default_not_unreadable(replicas, rule):
    # `systemFolder: null` is how the input model writes an ordinary folder (its default):
    # the folder rules judge it as one, as they judge a folder without the key
    # (added whole: in a patch, null removes the key)
    for spec in ({"systemFolder": None}, {}):
        folder = {"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "/Null"},
                  "spec": {"hierarchy": "Public Folders", "tree": "IPM_SUBTREE", "replicas": replicas, **spec}}
        found = [f for f in lint({"add": [folder]}) if f.entity and f.entity.name == "/Null"]
        assert rule in rules_of(found) and "EXL003" not in rules_of(found), [(f.rule, f.message) for f in found]


def test_a_backfill_source_naming_a_server_with_two_stores_of_the_hierarchy_is_one_finding():
    # the server holding two stores of the hierarchy is HIE001's problem; the one setting is one BKF001
    second = {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PFDB-PAR-2"},
              "spec": {"server": "EX10-PAR-01", "hierarchy": "Public Folders", "emailAddress": "p2@contoso.com",
                       "created": "2010-01-01"}}
    found = lint({"patch": {"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {"Preferred Backfill Source": "EX10-PAR-01"}}}},
                  "add": [second]})
    assert rules_of(found).count("BKF001") == 1 and "HIE001" in rules_of(found), [(f.rule, f.message) for f in found]


def test_one_mapi_hierarchy_listed_twice_is_still_one():
    # EXL006 reports the repeat; HIE007 said "one of 2 MAPI hierarchies", and HIE006's MAPI part
    # (exactly one MAPI hierarchy) stood down
    twice = [{"name": "Public Folders", "type": "MAPI"}, {"name": "public folders", "type": "MAPI"},
             {"name": "Projects", "type": "Application"}]
    proj_only = {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PROJ-LON-02"},
                 "spec": {"server": "EX10-LON-02", "hierarchy": "Projects", "emailAddress": "p@contoso.com",
                          "created": "2010-01-01"}}
    server = {**SERVER, "metadata": {"name": "EX10-LON-02"},
              "spec": {"version": "2010", "servicePack": 3, "site": "London", "roles": ["Mailbox"], "dag": "DAG-1",
                       "adminGroup": "First Administrative Group"}}
    groups = [{"name": "First Administrative Group", "siteFolderServer": "EX10-LON-02"}]
    for hierarchies in (twice, twice[::2]):
        found = lint({"patch": {"Organization/contoso": {"spec": {"hierarchies": hierarchies, "adminGroups": groups}}},
                      "add": [server, proj_only]})
        assert "HIE007" not in rules_of(found)
        assert [f.path for f in found if f.rule == "HIE006"] == ["spec.adminGroups[0].siteFolderServer"], \
            [(f.rule, f.message) for f in found]


def test_dup003_judges_a_store_only_in_a_shadow_boundary_that_counts():
    # "Shadow boundaries (SHD002-SHD004, DUP003) ... A boundary counts only if it holds at least
    # one such server": EX03-LON-01 is alone in site London outside the DAG
    window = {"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": {"Track Duplicates (in hours)": 2}}}}
    assert "DUP003" not in rules_of(lint(window))
    capable = {**SERVER, "metadata": {"name": "EX10-LON-05"},
               "spec": {"version": "2010", "servicePack": 3, "site": "London", "roles": ["Mailbox"],
                        "adminGroup": "First Administrative Group"}}
    found = lint({"patch": window, "add": [capable]})
    assert [(f.entity.name, f.path) for f in found if f.rule == "DUP003"] == \
        [("PFDB-EX03", "spec.registry.Track Duplicates (in hours)")], [(f.rule, f.message) for f in found]
    # the 2003 default of one hour is judged too, there
    mailbox = {"apiVersion": "exlint/v1", "kind": "MailboxDatabase", "metadata": {"name": "MBX-EX03"},
               "spec": {"server": "EX03-LON-01", "defaultPublicFolderDatabase": "PFDB-LON"}}
    assert "DUP003" not in rules_of(lint({"add": [mailbox]}))
    assert [f.entity.name for f in lint({"add": [capable, mailbox]}) if f.rule == "DUP003"] == ["MBX-EX03"]


@pytest.mark.parametrize("mapping, name, home", [
    ("registry", "Replication Send Always", "spec.replication"),
    ("replication", "Track Duplicates (in hours)", "spec.registry"),
    ("replication", "track duplicates (in hours)", "spec.registry"),
])
def test_a_name_in_the_wrong_mapping_is_told_to_move_not_renamed(mapping, name, home):
    # it said "did you mean 'Replication Send Status Alignment'" (a rename --fix would apply)
    found = [f for f in lint({"PublicFolderDatabase/PFDB-LON": {"spec": {mapping: {name: 24}}}})
             if f.rule == "EXL005"]
    assert len(found) == 1 and found[0].message.endswith(f"move it under {home}"), [f.message for f in found]
    assert "did you mean" not in found[0].message and dict(found[0].extra).get("suggestion") is None


def test_a_site_folder_with_no_copy_at_all_is_rep003s_alone():
    # REP003 (no replica, no delete-pending copy, IPM_SUBTREE) and REP009 (none on the site
    # folder server) both fired on the one problem
    found = lint({"PublicFolder//OFFLINE ADDRESS BOOK": {"spec": {"tree": "IPM_SUBTREE", "replicas": []}}})
    assert rules_of(found) == ["REP003"], [(f.rule, f.message) for f in found]
    # outside IPM_SUBTREE REP003 does not apply, and REP009 still says it
    found = lint({"PublicFolder//OFFLINE ADDRESS BOOK": {"spec": {"replicas": []}}})
    assert rules_of(found) == ["REP009"], [(f.rule, f.message) for f in found]


ORG_TEXT = ("apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: contoso}\nspec:\n"
            "  hierarchies:\n    - {name: Public Folders, type: MAPI}\n    - {name: Projects, type: Application}\n"
            "  adminGroups:\n    - {name: First Administrative Group, siteFolderServer: EX10-LON-01}\n"
            "  sites:\n    - {name: London}\n    - {name: Paris}\n"
            "  siteLinks:\n    - {name: LON-PAR, sites: [London, Paris], cost: 10}\n")
UNREADABLE_ORGANIZATION = {
    # EXL008 said the estate had no Organization
    "name-null": ORG_TEXT.replace("metadata: {name: contoso}", "metadata: {name: }"),
    # HIE007 said "no MAPI hierarchy", EXL007 "not defined" for every store and folder
    "hierarchies-null": ORG_TEXT.replace("    - {name: Public Folders, type: MAPI}\n"
                                         "    - {name: Projects, type: Application}\n", ""),
    "hierarchy-type-null": ORG_TEXT.replace("type: MAPI}", "type: }"),
    # EXL007 "site ... is not defined" for every server and the site link
    "sites-null": ORG_TEXT.replace("    - {name: London}\n    - {name: Paris}\n", ""),
    "spec-null": ORG_TEXT.split("spec:")[0] + "spec:\n",
}


@pytest.mark.parametrize("name", list(UNREADABLE_ORGANIZATION))
def test_an_organization_exlint_cannot_read_is_exl003s_alone(name):
    assert rules_of(lint({"delete": ["Organization/contoso"], "yaml": ORG_TEXT})) == []
    found = lint({"delete": ["Organization/contoso"], "yaml": UNREADABLE_ORGANIZATION[name]})
    assert {f.rule for f in found} == {"EXL003"}, [(f.rule, f.file, f.message) for f in found]


@pytest.mark.parametrize("written", ["preferremote", "Local", '""'])
def test_an_enum_value_outside_the_schema_is_exl003s_alone(written, tmp_path, monkeypatch):
    # one problem, one finding: SHD006 ("... is preferremote but no server is in a DAG")
    # judged a value EXL003 already rejects, and printed "is  but" for ""
    import json

    from click.testing import CliRunner

    from linter.cli import cli

    (tmp_path / ".exlint.yaml").write_text("")
    (tmp_path / "org.yaml").write_text(
        "apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: contoso}\nspec:\n"
        "  hierarchies: [{name: Public Folders, type: MAPI}]\n"
        f"  transportConfig:\n    ShadowMessagePreferenceSetting: {written}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "--format", "json", "."])
    found = [f for f in json.loads(result.stdout)["findings"]
             if f["path"] == "spec.transportConfig.ShadowMessagePreferenceSetting"]
    assert [f["rule"] for f in found] == ["EXL003"], found


def test_every_unknown_field_of_a_mapping_is_reported():
    # only the first was: a misspelt reference after it surfaced only after a fix and a rerun
    patch = {"Server/EX10-LON-01": {"spec": {"foo": 1, "defaultPublicFolderDatabse": "PFDB-NOPE", "bar": 2}}}
    found = sorted(f.path for f in lint(patch) if f.rule == "EXL003")
    assert found == ["spec.bar", "spec.defaultPublicFolderDatabse", "spec.foo"], found


@pytest.mark.parametrize("written", [[], {"a": 1}, 5])
def test_an_enum_written_as_another_type_is_exl003s(written):
    patch = {"Organization/contoso": {"spec": {"transportConfig": {"ShadowMessagePreferenceSetting": written}}}}
    found = [f for f in lint(patch) if f.path == "spec.transportConfig.ShadowMessagePreferenceSetting"]
    assert [f.rule for f in found] == ["EXL003"], [(f.rule, f.message) for f in found]


# Names compare case-insensitively in every script: lower() alone gives a word-final capital
# sigma the final form (ΑΘΗΝΑΣ -> αθηνας) and leaves a typed σ, so Αθηνασ was "not defined"
GREEK_SITE = {"patch": {
    "Organization/contoso": {"spec": {"sites": [{"name": "London"}, {"name": "ΑΘΗΝΑΣ"}],
                                      "siteLinks": [{"name": "LON-ATH", "sites": ["London", "αθηνασ"], "cost": 10}]}},
    "Server/EX10-PAR-01": {"spec": {"site": "Αθηνασ"}}}}


def test_names_with_a_final_sigma_match_whatever_their_case():
    assert lint(GREEK_SITE) == []
    misspelt = {"patch": {**GREEK_SITE["patch"], "Server/EX10-PAR-01": {"spec": {"site": "Αθηνα"}}}}
    assert "EXL007" in rules_of(lint(misspelt))  # (the case tells apart only what differs in case)


# servicePack has no documented default: a 2007 hub that does not write it is not taken for RTM
RTM_HUB = {"add": [
    {"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX07-LON-01"},
     "spec": {"version": "2007", "site": "London", "adminGroup": "First Administrative Group",
              "roles": ["Mailbox", "HubTransport", "ClientAccess"]}},
    {"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PFDB-EX07"},
     "spec": {"server": "EX07-LON-01", "hierarchy": "Public Folders", "created": "2008-02-11",
              "emailAddress": "pfdb-ex07@contoso.com"}}],
    "patch": {"PublicFolder//Sales": {"spec": {"replicas": ["PFDB-LON", "PFDB-PAR", "PFDB-EX07", "PFDB-EX03"]}}}}


def test_a_service_pack_not_written_is_not_taken_for_rtm():
    assert "RTE001" not in rules_of(lint(RTM_HUB))
    written = {**RTM_HUB, "add": [{**RTM_HUB["add"][0], "spec": {**RTM_HUB["add"][0]["spec"], "servicePack": 0}},
                                  RTM_HUB["add"][1]]}
    assert "RTE001" in rules_of(lint(written))


# a setting written under both names is EXL009's even when one value is malformed (EXL003's):
# the check asks unread() of both, so the automatic stand-down leaves them to it
BOTH_NAMES_ONE_MALFORMED = {"patch": {"Organization/contoso": {"spec": {"routing": {
    "PFReplicaAgeThreshold": "two days", "PFReplicaAgeThresholdHours": 48}}}}}
BOTH_NAMES_HOURS_MALFORMED = {"patch": {"Organization/contoso": {"spec": {"routing": {
    "PFReplicaAgeThreshold": "2.00:00:00", "PFReplicaAgeThresholdHours": "many"}}}}}


@pytest.mark.parametrize("example", [BOTH_NAMES_ONE_MALFORMED, BOTH_NAMES_HOURS_MALFORMED])
def test_both_names_are_reported_when_one_value_is_malformed(example):
    found = rules_of(lint(example))
    assert found.count("EXL009") == 1 and "EXL003" in found, found
    one_name = {"patch": {"Organization/contoso": {"spec": {"routing": {"PFReplicaAgeThreshold": "two days"}}}}}
    assert rules_of(lint(one_name)) == ["EXL003"]  # one name, malformed: EXL003's alone
