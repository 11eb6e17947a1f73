"""The catalog's conventions that are not rule examples (tests/test_semantics.py),
in the Spark engine: the same findings as the local engine."""
from __future__ import annotations

import pytest

from linter.policy.packs import load_rules
from parity import EstateSpec, example_spec, local_findings, run_spark
from test_semantics import (BOTH_NAMES_HOURS_MALFORMED, BOTH_NAMES_ONE_MALFORMED, BROKEN_ORGANIZATION, BROKEN_STORE, DAG_ALONE_BESIDE_A_MISSPELT_SITE, GREEK_SITE, MAPI_TYPO, RTM_HUB, NO_MAPI_NO_SITE_FOLDER_SERVER,
                            NOT_ORGANIZATION, SAME_NAME_ORG, UNREADABLE, UNREADABLE_ORGANIZATION)

RULES = load_rules()
SECOND_ORG = {"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "fabrikam"},
              "spec": {"adminGroups": [{"name": "Second Administrative Group", "siteFolderServer": "EX10-LON-01"}]}}
STRAY_SERVER = {"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-LON-09"},
                "spec": {"version": "2010", "site": "London", "adminGroup": "Third Administrative Group",
                         "roles": ["Mailbox"], "dag": "DAG-1"}}
CASES = {
    "two-organizations": {"add": [SECOND_ORG, STRAY_SERVER]},
    "two-organizations-one-name": {"add": [SAME_NAME_ORG]},
    "dag-alone-beside-a-misspelt-site": DAG_ALONE_BESIDE_A_MISSPELT_SITE,
    "names-with-a-final-sigma": GREEK_SITE,
    "service-pack-not-written": RTM_HUB,
    "both-names-one-malformed": BOTH_NAMES_ONE_MALFORMED,
    "both-names-hours-malformed": BOTH_NAMES_HOURS_MALFORMED,
    "a-final-sigma-misspelt": {"patch": {**GREEK_SITE["patch"], "Server/EX10-PAR-01": {"spec": {"site": "Αθηνα"}}}},
    "yaml-broken-after-the-name": BROKEN_STORE,
    "organization-yaml-broken": BROKEN_ORGANIZATION,
    "hierarchy-type-typo": {"patch": MAPI_TYPO},
    "backfill-source-empty-cn": {"patch": {"PublicFolderDatabase/PFDB-LON": {
        "spec": {"registry": {"Preferred Backfill Source": "CN=,OU=Stores,DC=contoso,DC=com"}}}}},
    "duplicate-key": {"yaml": "apiVersion: exlint/v1\nkind: MailboxDatabase\nmetadata: {name: MBX-LON-02}\nspec:\n"
                              "  server: EX10-LON-01\n  server: EX10-PAR-01\n"},
    "unknown-api-version": {"yaml": "apiVersion: exlint/v2\nkind: Server\nmetadata: {name: EX10-LON-09}\nspec: {}\n"},
    "negative-size": {"patch": {"PublicFolderDatabase/PFDB-LON": {
        "spec": {"replication": {"Replication Message Size Limit": "-1KB"}}}}},
    "track-duplicates-negative": {"patch": {"PublicFolderDatabase/PFDB-EX03": {
        "spec": {"registry": {"Track Duplicates (in hours)": -1}}}}},
    # HIE006 and HIE007 stand down only where servers, all 2013 or later, hold no public folder database
    "organization-alone": {"delete": NOT_ORGANIZATION, "patch": NO_MAPI_NO_SITE_FOLDER_SERVER},
    # CON002 still notes the in-range value of a connector whose other value is CON003's
    "connector-one-out-of-range": {"patch": {"Server/EX10-LON-01": {"spec": {"receiveConnectors": [
        {"name": "R1", "ConnectionTimeout": "2.00:00:00", "ConnectionInactivityTimeout": "00:07:00"},
        {"name": "R2", "ConnectionTimeout": "00:04:00", "ConnectionInactivityTimeout": "00:07:00"}]}}}},
    # REP005: one finding per entry repeating an earlier one (the first kept), undefined stores aside
    "replica-repeats": {"patch": {"PublicFolder//Sales": {"spec": {"replicas": [
        "PFDB-LON", "PFDB-LON", "PFDB-PAR", "pfdb-lon", "PFDB-XX", "pfdb-xx"]}}}},
    # a value in a form the schema rejects is EXL003 alone; a cmdlet key in the wrong case is EXL003
    "loose-forms": {"patch": {
        "PublicFolderDatabase/PFDB-LON": {"spec": {"replication": {"Replication Message Size Limit": "1.5KB"}}},
        "Server/EX10-LON-01": {"spec": {"receiveConnectors": [{"name": "R1", "ConnectionTimeout": "15M",
                                                                "connectionInactivityTimeout": "00:07:00"}]}}}},
    # a registry value named in another case: judged, and pointed at as written
    "registry-other-case": {"patch": {"PublicFolderDatabase/PFDB-EX03": {
        "spec": {"registry": {"Track Duplicates (in hours)": None,  # (null removes the key written as known)
                              "track duplicates (IN HOURS)": 5000, "replication send status TIMEOUT": 3600}}}}},
    # DUP005 quotes the window in force: 24 hours past 49 days on Exchange 2003
    "dup005-in-force": {"patch": {"PublicFolderDatabase/PFDB-EX03": {"spec": {"registry": {
        "Track Duplicates (in hours)": 5000, "DeliveredTo Expiration in Hours": 48}}}}},
    # a blank name the schema refuses is EXL003's alone (no HIE006 judging the server left out)
    "blank-site-folder-server": {"patch": {"Organization/contoso": {"spec": {"adminGroups": [
        {"name": "First Administrative Group", "siteFolderServer": "  "}]}}}},
    # a site folder server holding no MAPI store is HIE006's alone (no REP009 beside it)
    "site-folder-server-without-mapi-store": {
        "add": [{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-PAR-09"},
                 "spec": {"version": "2010", "site": "Paris", "adminGroup": "First Administrative Group",
                          "roles": ["Mailbox", "HubTransport"]}}],
        "patch": {"Organization/contoso": {"spec": {"adminGroups": [
            {"name": "First Administrative Group", "siteFolderServer": "EX10-PAR-09"}]}}}},
    # a misspelt site (EXL007) makes no boundary of its own: site boundaries are not judged
    "misspelt-site": {"add": [{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-LON-02"},
                               "spec": {"version": "2010", "site": "Londres", "adminGroup": "First Administrative Group",
                                        "roles": ["Mailbox", "HubTransport"]}}]},
    # a version the schema rejects (`se`) is EXL003 alone: no rule reads it as a release
    "version-lower-case": {"patch": {"Server/EX10-LON-01": {"spec": {"version": "se"}}, "PublicFolderDatabase/PFDB-LON": {
        "spec": {"registry": {"Track Duplicates (in hours)": 24}}}}},
    # a name holding a placeholder's text is shown as written (Check.fill), not filled in turn
    "braced-name": {"patch": {"Server/EX10-LON-01": {"spec": {"receiveConnectors": [
        {"name": "Relay {server} {name}", "ConnectionTimeout": "00:05:00", "ConnectionInactivityTimeout": "00:05:00"}]}}}},
}
# a rule reading a value exlint cannot read stands down (unread(): its __set is NULL in Spark)
CASES.update({f"unreadable-{i}": patch if {"yaml", "add", "patch", "delete"} & set(patch) else {"patch": patch}
              for i, (patch, _, _) in enumerate(UNREADABLE)})
CAPABLE_IN_LONDON = {"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX10-LON-05"},
                     "spec": {"version": "2010", "servicePack": 3, "site": "London", "roles": ["Mailbox"],
                              "adminGroup": "First Administrative Group"}}
CASES.update({
    # DUP003 only where the store's shadow boundary counts (a fact keyed by the boundary)
    "dup003-boundary-counts": {"add": [CAPABLE_IN_LONDON], "patch": {"PublicFolderDatabase/PFDB-EX03": {
        "spec": {"registry": {"Track Duplicates (in hours)": 2}}}}},
    "dup003-boundary-does-not-count": {"patch": {"PublicFolderDatabase/PFDB-EX03": {
        "spec": {"registry": {"Track Duplicates (in hours)": 2}}}}},
    # one MAPI hierarchy listed twice is still one (HIE007's distinct names, the count field's)
    "mapi-listed-twice": {"patch": {"Organization/contoso": {"spec": {"hierarchies": [
        {"name": "Public Folders", "type": "MAPI"}, {"name": "public folders", "type": "MAPI"},
        {"name": "Projects", "type": "Application"}]}}}},
    # a distinguished name's first CN= wherever it stands
    "dn-first-cn-later": {"patch": {"PublicFolderDatabase/PFDB-LON": {"spec": {"registry": {
        "Preferred Backfill Source": "OU=Stores,CN=PFDB-PAR,CN=EX10-PAR-01,DC=contoso,DC=com"}}}}},
    # a site link whose cost exlint cannot read still links its sites (at 0)
    "site-link-cost-unreadable": {"patch": {"Organization/contoso": {"spec": {"siteLinks": [
        {"name": "LON-PAR", "sites": ["London", "Paris"], "cost": 0}]}}}},
    # a site folder with no copy at all in IPM_SUBTREE is REP003's alone (REP009 stands down)
    "site-folder-no-copy": {"patch": {"PublicFolder//OFFLINE ADDRESS BOOK": {
        "spec": {"tree": "IPM_SUBTREE", "replicas": []}}}},
    # a store in a site no Organization defines: EXL007, and RTE005 stands down
    "rte005-undefined-site": {"patch": {"Server/EX10-PAR-01": {"spec": {"site": "Nowhere"}},
                                        "PublicFolder//Sales": {"spec": {"replicas": ["PFDB-LON"]}}}},
    # a size written null says so as every null does; DUP005 does not quote an unread window
    "size-null": {"yaml": "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-NEW}\n"
                          "spec:\n  server: EX10-LON-01\n  hierarchy: Projects\n"
                          "  replication:\n    Replication Message Size Limit:\n"},
    "dup005-window-unread": {"yaml": "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-NEW}\n"
                                     "spec:\n  server: EX10-LON-01\n  hierarchy: Projects\n  registry:\n"
                                     "    Track Duplicates (in hours): 24\n    DeliveredTo Expiration in Hours:\n"},
})
CASES.update({f"organization-{name}": {"delete": ["Organization/contoso"], "yaml": text}
              for name, text in UNREADABLE_ORGANIZATION.items()})
DUPLICATE_LINE = (b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX-C"}, '
                  b'"spec": {"version": "2013", "version": "2016"}}\n')


@pytest.fixture(scope="module")
def batch(spark, tmp_path_factory):
    specs = [example_spec(name, example) for name, example in CASES.items()]
    specs.append(EstateSpec("jsonl-duplicate", [("dup.jsonl", DUPLICATE_LINE)], "jsonl"))
    found, _, failures = run_spark(spark, specs, RULES, tmp_path_factory.mktemp("semantics"))
    assert failures == []
    return {spec.name: spec for spec in specs}, found


@pytest.mark.parametrize("name", list(CASES))
def test_convention_parity(batch, name):
    specs, found = batch
    assert found[name] == local_findings(specs[name], RULES)


def test_a_braced_name_is_shown_as_written_in_spark(batch):
    _, found = batch
    messages = [f[2] for f in found["braced-name"] if f[0] == "CON001"]
    assert messages and all(m.startswith("receive connector Relay {server} {name} on EX10-LON-01:") for m in messages)


def test_two_organizations_still_resolve_references_in_spark(batch):
    _, found = batch
    rules = {f[0] for f in found["two-organizations"]}
    assert {"EXL007", "EXL008"} <= rules  # (and HIE007: fabrikam defines no MAPI hierarchy)
    assert [f[7:] for f in found["two-organizations"] if f[0] == "EXL007"] == [("Server", "EX10-LON-09")]


def test_jsonl_duplicate_key_names_its_document_in_spark(batch):
    _, found = batch
    duplicates = [f for f in found["jsonl-duplicate"] if f[0] == "EXL002"]
    assert duplicates and all(f[7:] == ("Server", "EX-C") for f in duplicates)


def test_a_registry_value_in_another_case_is_pointed_at_as_written_in_spark(batch):
    _, found = batch
    paths = {f[0]: f[6] for f in found["registry-other-case"] if f[0] in ("DUP001", "STS004")}
    assert paths == {"DUP001": "spec.registry.track duplicates (IN HOURS)",
                     "STS004": "spec.registry.replication send status TIMEOUT"}, found["registry-other-case"]
