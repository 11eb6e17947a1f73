"""Merging sources, reporting conflicts, and updating an existing output directory in place."""
from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import yaml

from .conftest import FIXTURES, find_document, load_documents, run_import

HEAD = '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">'


def _copy_estate(tmp_path: Path, name: str = "estate") -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / "estate", target)
    return target


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _changed_lines(before: str, after: str) -> list[str]:
    return [l for l in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if l[:1] in "+-" and not l.startswith(("+++", "---"))]


def test_sources_that_disagree_are_reported_and_not_written(tmp_path):
    stale = _copy_estate(tmp_path, "stale")
    _edit(stale / "GetMailboxServer.xml", "Version 14.3 (Build 123.4)", "Version 14.2 (Build 247.5)")
    out = tmp_path / "out"
    result = run_import(FIXTURES / "estate" / "GetExchangeServer.xml", stale / "GetMailboxServer.xml", "--output", out)
    assert result.exit_code == 1
    conflicts = [l for l in result.stderr.splitlines() if ": conflict: " in l]
    assert len(conflicts) == 1  # version and service pack come from one property: one line each
    assert "conflict: Server EX10-PAR-01: spec.servicePack: " in conflicts[0]
    assert " 3 from " in conflicts[0] and " 2 from " in conflicts[0] and " vs " in conflicts[0]
    assert str(stale / "GetMailboxServer.xml") in result.stderr
    assert str(FIXTURES / "estate" / "GetExchangeServer.xml") in result.stderr
    assert "were not written" in result.stderr
    server = find_document(out, "Server", "EX10-PAR-01")
    assert "servicePack" not in server["spec"]  # never chosen silently
    assert server["spec"]["version"] == "2010"  # what both agree on is written
    assert server["spec"]["dag"] == "DAG-PAR"


def test_conflicting_versions_are_reported(tmp_path):
    stale = _copy_estate(tmp_path, "stale")
    _edit(stale / "GetMailboxServer.xml", "Version 14.3 (Build 123.4)", "Version 15.0 (Build 516.32)")
    out = tmp_path / "out"
    result = run_import(FIXTURES / "estate" / "GetExchangeServer.xml", stale / "GetMailboxServer.xml", "--output", out)
    assert result.exit_code == 1
    (version,) = [l for l in result.stderr.splitlines() if "spec.version: " in l]
    assert "'2010' from " in version and "'2013' from " in version
    assert "version" not in find_document(out, "Server", "EX10-PAR-01")["spec"]


def test_a_conflict_leaves_the_existing_value_alone(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    before = (out / "servers" / "ex10-par-01.yaml").read_text()
    stale = _copy_estate(tmp_path, "stale")
    _edit(stale / "GetMailboxServer.xml", "Version 14.3 (Build 123.4)", "Version 14.2 (Build 247.5)")
    result = run_import(FIXTURES / "estate" / "GetExchangeServer.xml", stale / "GetMailboxServer.xml", "--output", out)
    assert result.exit_code == 1
    assert (out / "servers" / "ex10-par-01.yaml").read_text() == before


def test_agreeing_sources_make_one_document(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    server = find_document(out, "Server", "EX10-PAR-01")
    assert server["spec"] == {
        "version": "2010", "servicePack": 3, "site": "Paris",
        "adminGroup": "Exchange Administrative Group (FYDIBOHF23SPDLT)",
        "roles": ["Mailbox", "HubTransport"], "dag": "DAG-PAR",
    }
    text = (out / "servers" / "ex10-par-01.yaml").read_text()
    assert '  version: "2010"  # from GetExchangeServer.xml, GetMailboxServer.xml\n' in text
    assert "  dag: DAG-PAR  # from GetMailboxServer.xml\n" in text


def test_reimport_keeps_admin_comments_and_changes_only_the_changed_value(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    path = out / "servers" / "ex10-par-01.yaml"
    _edit(path, "spec:\n", "  labels: {owner: messaging-team}\nspec:\n")
    _edit(path, "  site: Paris", "  # admin: Paris site moves to Lyon in Q3 (CHG-123)\n  site: Paris")
    _edit(path, "  dag: DAG-PAR  # from GetMailboxServer.xml", "  dag: DAG-PAR  # checked by hand")
    admin_text = path.read_text()

    sources = _copy_estate(tmp_path)
    _edit(sources / "GetExchangeServer.xml", "contoso.com/Configuration/Sites/Paris", "contoso.com/Configuration/Sites/Lyon")
    result = run_import(sources, "--output", out)
    assert result.exit_code == 0, result.stderr
    after = path.read_text()
    assert _changed_lines(admin_text, after) == [
        "-  site: Paris  # from GetExchangeServer.xml",
        "+  site: Lyon  # from GetExchangeServer.xml",
    ]
    assert "# admin: Paris site moves to Lyon in Q3 (CHG-123)" in after
    assert "dag: DAG-PAR  # checked by hand" in after
    assert "updated: " in result.stdout
    # Files with no changed value are not rewritten.
    assert "unchanged: " + str(out / "servers" / "ex07-lon-01.yaml") in result.stdout


def test_admin_comment_on_a_changed_value_is_kept(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    path = out / "servers" / "ex10-par-01.yaml"
    _edit(path, "  site: Paris  # from GetExchangeServer.xml", "  site: Paris   # ask Bob before changing")
    sources = _copy_estate(tmp_path)
    _edit(sources / "GetExchangeServer.xml", "Sites/Paris", "Sites/Lyon")
    assert run_import(sources, "--output", out).exit_code == 0
    assert "  site: Lyon   # ask Bob before changing\n" in path.read_text()


ADMIN_FILE = """\
# Our London estate, kept by hand. Do not reorder.
---
apiVersion: exlint/v1
kind: Server
metadata:
    name: ex07-lon-01      # lower case on purpose
spec:
    version: '2007'
    servicePack: 3
    site: London
    roles:
    - Mailbox
    - HubTransport
    - ClientAccess
    receiveConnectors:
    - name: Default EX07-LON-01
      ConnectionTimeout: 00:10:00     # default
      MaxMessageSize: 10MB
---
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
    name: PFDB-LON-01
spec:
    server: EX07-LON-01
    hierarchy: Public Folders
    guid: 6F1C2F4E-1F0B-4B4E-9A53-2C1D6A0B7E11
    created: 2006-03-14
"""

CONNECTOR = """{head}
  <Obj RefId="0">
    <TN RefId="0"><T>Microsoft.Exchange.Data.Directory.SystemConfiguration.ReceiveConnector</T></TN>
    <Props>
      <S N="Name">Default EX07-LON-01</S>
      <Obj N="ConnectionTimeout" RefId="1"><TN RefId="1"><T>Microsoft.Exchange.Data.EnhancedTimeSpan</T></TN>
        <ToString>{timeout}</ToString></Obj>
      <TS N="ConnectionInactivityTimeout">PT5M</TS>
      <Obj N="Server" RefId="2"><TN RefId="2"><T>Microsoft.Exchange.Data.Directory.ADObjectId</T></TN><ToString>EX07-LON-01</ToString></Obj>
    </Props>
  </Obj>
</Objs>
"""


def test_an_admins_own_layout_is_updated_in_place(tmp_path):
    out = tmp_path / "repo"
    out.mkdir()
    estate = out / "london.yaml"
    estate.write_text(ADMIN_FILE)
    source = tmp_path / "GetReceiveConnector.xml"
    source.write_text(CONNECTOR.format(head=HEAD, timeout="00:15:00"))
    result = run_import(source, FIXTURES / "estate" / "GetPublicFolderDatabase.xml", "--output", out)
    assert result.exit_code == 0, result.stderr
    after = estate.read_text()
    assert _changed_lines(ADMIN_FILE, after) == [
        "-      ConnectionTimeout: 00:10:00     # default",
        "+      ConnectionTimeout: 00:15:00     # default",
        "+      ConnectionInactivityTimeout: 00:05:00  # from GetReceiveConnector.xml",
        # the store's ReplicationPeriod, added in the admin's indentation
        "+    replication:",
        "+        Replication Send Always: 00:15:00  # from GetPublicFolderDatabase.xml",
    ]
    # The store was found by name in the admin's file (not written again elsewhere).
    assert sorted(p.name for p in out.rglob("*.yaml")) == ["london.yaml", "pfdb-par-01.yaml"]


def test_durations_are_quoted_where_yaml_1_1_would_misread_them(tmp_path):
    source = tmp_path / "GetReceiveConnector.xml"
    source.write_text(CONNECTOR.format(head=HEAD, timeout="12:00:00"))
    out = tmp_path / "out"
    assert run_import(source, "--output", out).exit_code == 0
    text = (out / "servers" / "ex07-lon-01.yaml").read_text()
    assert 'ConnectionTimeout: "12:00:00"' in text
    doc = yaml.safe_load(text)  # PyYAML: YAML 1.1, where 12:00:00 unquoted is 43200
    assert doc["spec"]["receiveConnectors"][0]["ConnectionTimeout"] == "12:00:00"


def test_organization_name_option_and_dry_run(tmp_path):
    out = tmp_path / "out"
    result = run_import(FIXTURES / "estate", "--output", out, "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "would be created: " in result.stdout
    assert not out.exists()
    result = run_import(FIXTURES / "estate" / "EdgeTransport.exe.config", "--output", out, "--organization", "Fabrikam")
    assert result.exit_code == 0
    assert find_document(out, "Organization", "Fabrikam")["spec"]["routing"] == {"PFReplicaAgeThreshold": "1.00:00:00"}


def test_organization_name_comes_from_the_directory_names(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    org = find_document(out, "Organization", "Contoso")
    assert org["spec"]["transportConfig"] == {
        "ShadowRedundancyEnabled": True, "RejectMessageOnShadowFailure": False,
        "ShadowMessagePreferenceSetting": "PreferRemote", "MaxRetriesForRemoteSiteShadow": 4,
        "MaxRetriesForLocalSiteShadow": 2, "ShadowHeartbeatFrequency": "00:02:00",
        "ShadowResubmitTimeSpan": "03:00:00", "ShadowMessageAutoDiscardInterval": "2.00:00:00",
        "SafetyNetHoldTime": "2.00:00:00",
    }
    # A later import with no organization in its sources updates the same document.
    config = tmp_path / "EdgeTransport.exe.config"
    config.write_text('<configuration><appSettings><add key="PFReplicaAgeThresholdHours" value="72"/></appSettings></configuration>')
    result = run_import(config, "--output", out)
    assert result.exit_code == 0, result.stderr
    org = find_document(out, "Organization", "Contoso")
    assert org["spec"]["routing"] == {"PFReplicaAgeThreshold": "1.00:00:00", "PFReplicaAgeThresholdHours": 72}
    assert [p.name for p in out.glob("organization*.yaml")] == ["organization.yaml"]


def test_values_the_model_has_no_field_for_are_dropped(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    everything = "".join(p.read_text() for p in out.rglob("*.yaml"))
    for dropped in ("MaxDumpsterSizePerDatabase", "ReplicationPeriod", "Comment", "IsEdgeServer", "UnifiedMessaging"):
        assert dropped not in everything
    assert set(find_document(out, "MailboxDatabase", "MBXDB-LON-01")["spec"]) == {"server", "defaultPublicFolderDatabase"}


def test_edge_config_with_an_unreadable_value_warns(tmp_path):
    config = tmp_path / "EdgeTransport.exe.config"
    config.write_text('<configuration>\n<appSettings>\n<add key="PFReplicaAgeThreshold" value="two days"/>\n</appSettings>\n</configuration>')
    result = run_import(config, "--output", tmp_path / "out")
    assert result.exit_code == 0
    assert f"{config}:3:1: warning: PFReplicaAgeThreshold is 'two days'" in result.stderr
    assert load_documents(tmp_path / "out") == {}


def test_the_organization_lists_the_sites_and_admin_groups_its_servers_name(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    spec = find_document(out, "Organization", "Contoso")["spec"]
    assert spec["sites"] == [{"name": "London"}, {"name": "Paris"}]
    assert spec["adminGroups"] == [
        {"name": "Exchange Administrative Group (FYDIBOHF23SPDLT)"}, {"name": "First Administrative Group"}
    ]


def test_no_organization_document_only_for_sites(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate" / "GetExchangeServer.xml", "--output", out).exit_code == 0
    assert not (out / "organization.yaml").exists()


def test_stores_get_the_organizations_mapi_hierarchy(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    org = out / "organization.yaml"
    _edit(org, "spec:\n", "spec:\n  hierarchies:\n    - {name: Public Folders, type: MAPI}\n    - {name: Projects, type: Application}\n")
    result = run_import(FIXTURES / "estate", "--output", out)
    assert result.exit_code == 0, result.stderr
    assert "spec.hierarchy" not in result.stderr
    for name in ("PFDB-LON-01", "PFDB-PAR-01"):
        assert find_document(out, "PublicFolderDatabase", name)["spec"]["hierarchy"] == "Public Folders"
    assert "  hierarchy: Public Folders  # from organization.yaml\n" in (out / "stores" / "pfdb-lon-01.yaml").read_text()


def test_crlf_and_bom_files_keep_their_bytes_except_the_changed_value(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    original = (
        "\ufeffapiVersion: exlint/v1\r\nkind: Server\r\nmetadata:\r\n  name: EX10-PAR-01\r\nspec:\r\n"
        "  version: '2007'   # typed by hand\r\n  servicePack: 3\r\n  site: \"Paris\"\r\n"
        "  adminGroup: Exchange Administrative Group (FYDIBOHF23SPDLT)\r\n  roles: [HubTransport, Mailbox]\r\n"
    ).encode("utf-8")
    path = out / "paris.yaml"
    path.write_bytes(original)
    result = run_import(FIXTURES / "estate" / "GetExchangeServer.xml", "--output", out)
    assert result.exit_code == 0, result.stderr
    assert path.read_bytes() == original.replace(b"'2007'", b"'2010'")


def test_stores_of_one_name_on_several_servers_are_each_their_own_document(tmp_path):
    # Exchange 2007 names a database per storage group: both servers' "Public Folder Database"
    # were merged into one document whose server, guid and created were left out as conflicts
    out = tmp_path / "out"
    result = run_import(FIXTURES / "e2007-same-names", "--output", out)
    assert result.exit_code == 0, result.stderr
    london = find_document(out, "PublicFolderDatabase", "EX07-LON-01\\Public Folder Database")
    paris = find_document(out, "PublicFolderDatabase", "EX07-PAR-01\\Public Folder Database")
    assert london["spec"]["server"] == "EX07-LON-01" and paris["spec"]["server"] == "EX07-PAR-01"
    assert london["spec"]["guid"] != paris["spec"]["guid"]
    mailbox = {name: find_document(out, "MailboxDatabase", f"{name}\\Mailbox Database")
               for name in ("EX07-LON-01", "EX07-PAR-01")}
    # the default store by its DN (Paris's names London's), else the one on its own server
    assert {name: doc["spec"]["defaultPublicFolderDatabase"] for name, doc in mailbox.items()} == {
        "EX07-LON-01": "EX07-LON-01\\Public Folder Database", "EX07-PAR-01": "EX07-LON-01\\Public Folder Database"}
    assert "2 PublicFolderDatabase stores share the name 'Public Folder Database'" in result.stderr
    again = run_import(FIXTURES / "e2007-same-names", "--output", out)
    assert again.exit_code == 0 and "4 unchanged" in again.stdout


def test_one_store_captured_twice_is_one_document(tmp_path):
    out = tmp_path / "out"
    sources = tmp_path / "src"
    sources.mkdir()
    capture = (FIXTURES / "e2007-same-names" / "GetPublicFolderDatabase.xml").read_bytes()
    (sources / "a.xml").write_bytes(capture)
    (sources / "b.xml").write_bytes(capture)
    result = run_import(sources, "--output", out)
    assert result.exit_code == 0, result.stderr
    assert len(load_documents(out)) == 2  # the two servers' stores, each once


def test_two_sources_of_one_file_name_are_told_apart_in_the_comment(tmp_path):
    # "# from EdgeTransport.exe.config" named one file of two that gave the value
    config = (FIXTURES / "estate" / "EdgeTransport.exe.config").read_bytes()
    for server in ("ex1", "ex2"):
        (tmp_path / server).mkdir()
        (tmp_path / server / "EdgeTransport.exe.config").write_bytes(config)
    out = tmp_path / "out"
    result = run_import(tmp_path / "ex1", tmp_path / "ex2", "--output", out, "--organization", "Contoso")
    assert result.exit_code == 0, result.stderr
    assert "# from ex1/EdgeTransport.exe.config, ex2/EdgeTransport.exe.config" in (out / "organization.yaml").read_text()
