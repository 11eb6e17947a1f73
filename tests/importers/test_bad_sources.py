"""Hostile, broken, unreadable and unknown sources: one positioned line, exit code 2, no traceback."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import CSS_EXCHANGE, FIXTURES, run_import

POSITIONED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.+)$")

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">
  <Obj RefId="0"><Props><S N="Name">&lol9;</S></Props></Obj>
</Objs>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE Objs [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">
  <Obj RefId="0">
    <TN RefId="0"><T>Microsoft.Exchange.Data.Directory.Management.ExchangeServer</T></TN>
    <Props><S N="Name">&xxe;</S><S N="AdminDisplayVersion">Version 15.2 (Build 1118.7)</S></Props>
  </Obj>
</Objs>
"""

EXTERNAL_CONFIG = """<?xml version="1.0"?>
<!DOCTYPE configuration [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<configuration><appSettings><add key="PFReplicaAgeThreshold" value="&xxe;"/></appSettings></configuration>
"""


def _one_error(result, path: Path) -> re.Match:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if ": error: " in line and line.startswith(str(path))]
    assert len(lines) == 1, result.stderr
    match = POSITIONED.match(lines[0])
    assert match, lines[0]
    return match


def _nothing_written(out: Path) -> None:
    assert not out.exists() or not any(out.rglob("*.yaml"))


@pytest.mark.parametrize(
    "name, text, words",
    [
        ("billion-laughs.xml", BILLION_LAUGHS, ("hostile XML", "entity")),
        ("xxe.xml", EXTERNAL_ENTITY, ("hostile XML", "file:///etc/passwd")),
        ("EdgeTransport.exe.config", EXTERNAL_CONFIG, ("hostile XML", "external entity")),
    ],
)
def test_hostile_xml_is_refused(tmp_path, name, text, words):
    source = tmp_path / name
    source.write_text(text)
    out = tmp_path / "out"
    match = _one_error(run_import(source, "--output", out), source)
    for word in words:
        assert word in match["message"]
    assert int(match["line"]) >= 2
    _nothing_written(out)


def test_hostile_xml_never_leaks_the_referenced_file(tmp_path):
    source = tmp_path / "xxe.xml"
    source.write_text(EXTERNAL_ENTITY)
    result = run_import(source, "--output", tmp_path / "out")
    assert "root:" not in result.stdout + result.stderr


def test_truncated_capture_gives_a_positioned_error(tmp_path):
    capture = CSS_EXCHANGE / "E19" / "GetReceiveConnector.xml"
    if not capture.is_file():
        pytest.skip(f"real-world captures not found at {CSS_EXCHANGE}")
    data = capture.read_bytes()
    cut = data[: len(data) * 3 // 5]
    source = tmp_path / "GetReceiveConnector.xml"
    source.write_bytes(cut)
    match = _one_error(run_import(source, "--output", tmp_path / "out"), source)
    assert "truncated XML" in match["message"]
    last_line = cut.count(b"\n") + 1
    assert int(match["line"]) == last_line
    assert int(match["col"]) >= 1
    _nothing_written(tmp_path / "out")


def test_malformed_xml_gives_a_positioned_error(tmp_path):
    source = tmp_path / "broken.xml"
    source.write_text('<Objs xmlns="http://schemas.microsoft.com/powershell/2004/04">\n  <Obj RefId="0">\n  </Objx>\n</Objs>\n')
    match = _one_error(run_import(source, "--output", tmp_path / "out"), source)
    assert match["line"] == "3"
    assert "malformed XML" in match["message"]


def test_unknown_file_type_is_an_error(tmp_path):
    source = tmp_path / "notes.txt"
    source.write_text("just some notes\n")
    match = _one_error(run_import(source, "--output", tmp_path / "out"), source)
    assert "unknown file type" in match["message"]


def test_unknown_xml_is_an_error(tmp_path):
    source = tmp_path / "other.xml"
    source.write_text("<html><body/></html>")
    match = _one_error(run_import(source, "--output", tmp_path / "out"), source)
    assert "<html>" in match["message"]


def test_missing_source_is_an_error(tmp_path):
    source = tmp_path / "nope.xml"
    match = _one_error(run_import(source, "--output", tmp_path / "out"), source)
    assert "no such file" in match["message"]


def test_unreadable_file_is_an_error(tmp_path, monkeypatch):
    source = tmp_path / "GetExchangeServer.xml"
    source.write_text("<Objs/>")
    import linter.importers.sources as sources

    real = sources.read_regular  # sources are read as regular files only (issue #20)

    def deny(path, *args):
        if Path(path) == source:
            raise PermissionError(13, "Permission denied")
        return real(path, *args)

    monkeypatch.setattr(sources, "read_regular", deny)
    match = _one_error(run_import(source, "--output", tmp_path / "out"), source)
    assert "Permission denied" in match["message"]


def test_one_bad_source_means_nothing_is_written(tmp_path):
    bad = tmp_path / "xxe.xml"
    bad.write_text(EXTERNAL_ENTITY)
    out = tmp_path / "out"
    result = run_import(FIXTURES / "estate", bad, "--output", out)
    assert result.exit_code == 2
    _nothing_written(out)


def test_bad_yaml_in_the_output_directory_is_an_error(tmp_path):
    out = tmp_path / "out"
    (out / "servers").mkdir(parents=True)
    broken = out / "servers" / "broken.yaml"
    broken.write_text("kind: Server\nmetadata: {name: X\n")
    match = _one_error(run_import(FIXTURES / "estate", "--output", out), broken)
    assert match["line"] != "0"
    assert broken.read_text() == "kind: Server\nmetadata: {name: X\n"


def test_sources_are_required(tmp_path):
    result = run_import("--output", tmp_path)
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


def test_output_is_required(tmp_path):
    result = run_import(FIXTURES / "estate")
    assert result.exit_code == 2
    assert "--output" in result.stderr


def test_output_that_is_a_file_is_an_error(tmp_path):
    output = tmp_path / "out.yaml"
    output.write_text("not a directory\n")
    result = run_import(FIXTURES / "estate", "--output", output)
    assert result.exit_code == 2
    assert "is not a directory" in result.stderr or "Directory" in result.stderr


def test_the_main_cli_has_the_import_command(tmp_path):
    cli = pytest.importorskip("linter.cli").cli
    from .conftest import runner

    result = runner().invoke(cli, ["import", str(FIXTURES / "estate"), "--output", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "servers" / "ex07-lon-01.yaml").is_file()


def test_xml_in_another_encoding_than_it_declares_says_so():
    from linter.importers.errors import SourceError
    from linter.importers.xmlsafe import parse_xml

    data = '<?xml version="1.0"?><Objs><Obj><S>Zürich</S></Obj></Objs>'.encode("latin-1")
    with pytest.raises(SourceError) as caught:
        parse_xml("latin1.xml", data)
    assert "not in the encoding it declares" in str(caught.value) and ":1:37:" in str(caught.value)
    with pytest.raises(SourceError) as caught:  # a real syntax error gets no such hint
        parse_xml("tags.xml", b"<a><b>\xc3\xbc</a>")
    assert "encoding" not in str(caught.value)


def test_another_tools_xml_next_to_the_captures_is_passed_over(tmp_path):
    # a HealthChecker report beside the captures aborted the whole import
    sources = tmp_path / "src"
    sources.mkdir()
    (sources / "GetPublicFolderDatabase.xml").write_bytes(
        (FIXTURES / "replication-settings" / "GetPublicFolderDatabase.xml").read_bytes())
    report = sources / "HealthChecker-Report.xml"
    report.write_text('<?xml version="1.0"?>\n<Report><Server>EX1</Server></Report>\n')
    out = tmp_path / "out"
    result = run_import(sources, "--output", out)
    assert result.exit_code == 0, result.stderr
    assert f"{report}:2:1: warning: not a capture exlint imports (root element <Report>" in result.stderr
    assert (out / "stores" / "pfdb-lon-01.yaml").is_file()
    named = run_import(report, "--output", tmp_path / "other")  # named on the command line: an error
    assert named.exit_code == 2 and "unknown XML file" in named.stderr and "Export-Clixml" in named.stderr


def test_an_empty_capture_is_said_to_be(tmp_path):
    empty = tmp_path / "GetPublicFolderDatabase.xml"
    empty.write_text('<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04"></Objs>')
    result = run_import(empty, "--output", tmp_path / "out")
    assert result.exit_code == 0 and "the capture holds no objects" in result.stderr


def test_a_name_windows_reserves_gets_a_file_windows_can_hold():
    from linter.importers.writer import file_stem

    assert [file_stem(n) for n in ("CON", "nul.db", "LPT1", "Console", "PFDB-LON")] == \
        ["_con", "_nul.db", "_lpt1", "console", "pfdb-lon"]


_EMPTY_OBJS = '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04"></Objs>'
_EMPTY_CONFIG = '<configuration><appSettings><add key="PFReplicaAgeThreshold" value="1"/></appSettings></configuration>'


@pytest.mark.parametrize("name, data, words", [
    # an encoding name Python has no codec for: expat asked for it and raised LookupError,
    # which reached the importer's internal-error line (naming the output, not the file)
    ("capture.xml", f'<?xml version="1.0" encoding="klingon"?>\n{_EMPTY_OBJS}'.encode(),
     ("'klingon'", "re-save it as UTF-8")),
    ("EdgeTransport.exe.config", f'<?xml version="1.0" encoding="klingon"?>\n{_EMPTY_CONFIG}'.encode(),
     ("'klingon'",)),
    # PowerShell's name for UTF-16, behind a UTF-16 byte-order mark
    ("capture.xml", b"\xff\xfe" + f'<?xml version="1.0" encoding="unicode"?>\n{_EMPTY_OBJS}'.encode("utf-16-le"),
     ("'unicode'", 'declare encoding="utf-16"')),
    # a UTF-16 file whose declaration still says utf-8 (re-saved as Unicode)
    ("capture.xml", b"\xff\xfe" + f'<?xml version="1.0" encoding="utf-8"?>\n{_EMPTY_OBJS}'.encode("utf-16-le"),
     ("byte-order mark and its XML declaration name different encodings",)),
    ("capture.xml", b"\xff\xfe\x00\x00" + f'<?xml version="1.0"?>\n{_EMPTY_OBJS}'.encode("utf-32-le"),
     ("UTF-32", "re-save it as UTF-8 or UTF-16")),
], ids=["unknown-encoding", "unknown-encoding-edge-config", "powershell-unicode", "mark-against-declaration", "utf-32"])
def test_an_encoding_xml_cannot_read_is_a_positioned_error_with_its_fix(tmp_path, name, data, words):
    source = tmp_path / name
    source.write_bytes(data)
    out = tmp_path / "out"
    match = _one_error(run_import(source, "--output", out), source)
    assert match["line"] == "1"
    for word in words:
        assert word in match["message"], match["message"]
    _nothing_written(out)


_CAPTURE = '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">\n{}\n</Objs>\n'
_TRANSPORT = ('<Obj RefId="{ref}"><TN RefId="{ref}"><T>Microsoft.Exchange.Data.TransportConfigContainer</T></TN>'
              '<Props>{props}</Props></Obj>')
_PF_DATABASE = ('<Obj RefId="{ref}"><TN RefId="{ref}"><T>Microsoft.Exchange.Data.Directory.SystemConfiguration.'
                'PublicFolderDatabase</T></TN><Props>{props}</Props></Obj>')


def _imported(tmp_path, objects: str):
    source = tmp_path / "capture.xml"
    source.write_text(_CAPTURE.format(objects))
    out = tmp_path / "out"
    result = run_import(source, "--output", out, "--organization", "contoso")
    return result, out


@pytest.mark.parametrize("props, expected", [
    # the cmdlet's values in another case or padded: the model's spelling (check's EXL003 otherwise)
    ('<S N="ShadowMessagePreferenceSetting">  localonly </S>', {"ShadowMessagePreferenceSetting": "LocalOnly"}),
    # text where a boolean or a number goes (a Select-Object or a CSV made it text): read
    ('<S N="ShadowRedundancyEnabled">False</S><S N="MaxRetriesForRemoteSiteShadow"> 4 </S>',
     {"ShadowRedundancyEnabled": False, "MaxRetriesForRemoteSiteShadow": 4}),
])
def test_transport_settings_are_imported_as_the_input_model_writes_them(tmp_path, props, expected):
    from .conftest import find_document

    result, out = _imported(tmp_path, _TRANSPORT.format(ref=0, props=props))
    assert result.exit_code == 0, result.stderr
    assert find_document(out, "Organization", "contoso")["spec"]["transportConfig"] == expected


@pytest.mark.parametrize("props, words", [
    ('<S N="ShadowMessagePreferenceSetting">Sometimes</S>', ("'Sometimes'", "PreferRemote, LocalOnly, RemoteOnly")),
    ('<I32 N="ShadowMessagePreferenceSetting">1</I32>', ("'1'", "not one of")),
])
def test_a_transport_value_outside_the_model_is_a_warning_not_a_value_check_refuses(tmp_path, props, words):
    result, out = _imported(tmp_path, _TRANSPORT.format(ref=0, props=props))
    assert result.exit_code == 0, result.stderr
    warning = next(line for line in result.stderr.splitlines() if "ShadowMessagePreferenceSetting" in line)
    assert ": warning: " in warning and "not imported" in warning
    for word in words:
        assert word in warning, warning
    assert not any("ShadowMessagePreferenceSetting" in p.read_text() for p in out.rglob("*.yaml"))


def test_a_store_guid_that_is_no_guid_is_a_warning_not_written(tmp_path):
    from .conftest import find_document

    props = '<S N="Name">PF-A</S><S N="Server">EX10-A</S><G N="Guid">not-a-guid</G>'
    result, out = _imported(tmp_path, _PF_DATABASE.format(ref=0, props=props))
    assert "Guid is 'not-a-guid', not a GUID" in result.stderr
    assert "guid" not in find_document(out, "PublicFolderDatabase", "PF-A")["spec"]


def test_a_store_without_a_server_or_any_value_is_skipped_with_a_warning(tmp_path):
    props = '<S N="Name">PF-NIL</S><Nil N="Server"/>'
    result, out = _imported(tmp_path, _PF_DATABASE.format(ref=0, props=props))
    line = next(line for line in result.stderr.splitlines() if "PF-NIL" in line)
    assert ":3:" in line or ":2:" in line, line  # where the object is
    assert ": warning: " in line and "skipped" in line and "Server" in line
    assert not any("PF-NIL" in p.read_text() for p in out.rglob("*.yaml"))
