"""Re-emitting an existing output file after an import adds to it: what the import
does not change stays byte for byte (line ends, other documents, leading comments,
block lists and the comments on their items)."""
from __future__ import annotations

from .conftest import FIXTURES, find_document, run_import

SERVERS = FIXTURES / "estate" / "GetExchangeServer.xml"
MAILBOX_SERVERS = FIXTURES / "estate" / "GetMailboxServer.xml"


def test_a_crlf_file_keeps_crlf_on_commented_lines_over_repeated_imports(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "paris.yaml"
    path.write_bytes(
        b"apiVersion: exlint/v1\r\nkind: Server\r\nmetadata:\r\n  name: EX10-PAR-01  # my comment\r\n"
        b"spec:\r\n  version: \"2010\"\r\n"
    )
    assert run_import(SERVERS, "--output", out).exit_code == 0  # adds site, roles...: the file is re-emitted
    first = path.read_bytes()
    assert b"\r\r" not in first
    assert b"  name: EX10-PAR-01  # my comment\r\n" in first
    assert b"  site: Paris  # from GetExchangeServer.xml\r\n" in first
    assert first.count(b"\n") == first.count(b"\r\n")

    assert run_import(MAILBOX_SERVERS, "--output", out).exit_code == 0  # adds the DAG: re-emitted again
    second = path.read_bytes()
    assert b"  dag: DAG-PAR  # from GetMailboxServer.xml\r\n" in second
    assert b"\r\r" not in second
    assert second.count(b"\n") == second.count(b"\r\n")
    assert second.replace(b"  dag: DAG-PAR  # from GetMailboxServer.xml\r\n", b"") == first


def test_a_changed_block_list_keeps_its_style_and_the_comments_of_its_items(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "paris.yaml"
    path.write_text(
        "apiVersion: exlint/v1\nkind: Server\nmetadata:\n  name: EX10-PAR-01\nspec:\n  version: \"2010\"\n"
        "  servicePack: 3\n  site: Paris\n  adminGroup: Exchange Administrative Group (FYDIBOHF23SPDLT)\n"
        "  roles:\n    - Mailbox   # mbx since 2010 CHG-2\n    - Edge  # not any more\n  # the DAG, by hand\n"
        "  dag: DAG-PAR  # keep\n"
    )
    result = run_import(SERVERS, "--output", out)  # the capture says Mailbox, HubTransport
    assert result.exit_code == 0, result.stderr
    assert path.read_text() == (
        "apiVersion: exlint/v1\nkind: Server\nmetadata:\n  name: EX10-PAR-01\nspec:\n  version: \"2010\"\n"
        "  servicePack: 3\n  site: Paris\n  adminGroup: Exchange Administrative Group (FYDIBOHF23SPDLT)\n"
        "  roles:  # from GetExchangeServer.xml\n    - Mailbox   # mbx since 2010 CHG-2\n    - HubTransport\n"
        "  # the DAG, by hand\n  dag: DAG-PAR  # keep\n"
    )
    assert find_document(out, "Server", "EX10-PAR-01")["spec"]["roles"] == ["Mailbox", "HubTransport"]


ESTATE = """\
# Estate file kept by hand
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
  name: PFDB-1
spec:
  server: EX10-PAR-01
  hierarchy: Public Folders
  created: 2004-03-22
  registry:
    Preferred Backfill Source: ~
    Quoted:   'x'   # odd spacing, kept
---
apiVersion: exlint/v1
kind: Server
metadata:
  name: EX10-PAR-01
spec:
  version: "2010"
  site: Paris
"""


def _split(text: str) -> tuple[str, str]:
    head, _, tail = text.partition("\n---\n")
    return head, tail


def test_a_document_the_import_does_not_change_is_copied_as_it_is(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "estate.yaml"
    path.write_text(ESTATE)
    result = run_import(SERVERS, "--output", out)  # adds keys to the Server document only
    assert result.exit_code == 0, result.stderr
    after = path.read_text()
    assert _split(after)[0] == _split(ESTATE)[0]  # the leading comment, no "---" above it, the "~"
    assert "  servicePack: 3  # from GetExchangeServer.xml\n" in _split(after)[1]
    assert find_document(out, "Server", "EX10-PAR-01")["spec"]["adminGroup"]


def test_the_leading_comment_and_the_first_marker_are_kept_when_the_first_document_changes(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "estate.yaml"
    second, first = _split(ESTATE)
    second = second.replace("# Estate file kept by hand\n", "")
    original = "# Estate file kept by hand\n---  # servers first\n" + first + "---\n" + second + "\n"
    path.write_text(original)
    assert run_import(SERVERS, "--output", out).exit_code == 0
    after = path.read_text()
    assert after.startswith("# Estate file kept by hand\n---  # servers first\napiVersion: exlint/v1\n")
    assert after.count("# servers first") == 1
    assert after.endswith("---\n" + second + "\n")  # the store, untouched
    assert "  roles: [Mailbox, HubTransport]  # from GetExchangeServer.xml\n" in after


def test_flow_collections_import_adds_to_are_written_in_block_style(tmp_path):
    # a `# from SOURCE` comment cannot stand inside a flow collection: the lines came out
    # starting with a comma or a bracket, less indented than their block parent
    import yaml

    out = tmp_path / "out"
    out.mkdir()
    path = out / "organization.yaml"
    path.write_text(
        "apiVersion: exlint/v1\nkind: Organization\nmetadata: {name: Contoso}\nspec:\n"
        "  hierarchies: [{name: Public Folders, type: MAPI}]   # one MAPI\n"
        "  sites: [{name: London}]   # only London so far\n"
        "  transportConfig: {ShadowRedundancyEnabled: false}\n")
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    text = path.read_text()
    for line in text.splitlines():
        assert not line.lstrip().startswith((",", "]", "}")), text
    assert "  hierarchies: [{name: Public Folders, type: MAPI}]   # one MAPI\n" in text  # untouched: as written
    assert "    ShadowRedundancyEnabled: true  # from GetTransportConfig.xml\n" in text
    assert "    - name: Paris  # from GetExchangeServer.xml\n" in text
    spec = yaml.safe_load(text)["spec"]
    assert [site["name"] for site in spec["sites"]] == ["London", "Paris"]
    before = path.read_bytes()
    assert run_import(FIXTURES / "estate", "--output", out).exit_code == 0
    assert path.read_bytes() == before  # imported again: unchanged
