"""regedit .reg exports: both encodings, value types, and where their values go."""
from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings, strategies as st

from linter.importers.errors import SourceError
from linter.importers.regfile import parse_reg

from .conftest import FIXTURES, find_document, load_documents, run_import, schema_errors

UNICODE = FIXTURES / "store-settings-unicode.reg"
ANSI = FIXTURES / "store-settings-ansi.reg"
PF_KEY = r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Services\MSExchangeIS\EX07-LON-01\Public-6F1C2F4E-1F0B-4B4E-9A53-2C1D6A0B7E11"


def _values(path):
    return [(v.key, v.name, v.type, v.value) for v in parse_reg(path, path.read_bytes())]


def test_fixtures_are_what_regedit_writes():
    assert UNICODE.read_bytes().startswith(codecs.BOM_UTF16_LE + "Windows Registry Editor Version 5.00".encode("utf-16-le"))
    assert ANSI.read_bytes().startswith(b"REGEDIT4\r\n")


def test_unicode_and_ansi_exports_hold_the_same_values():
    values = _values(UNICODE)
    assert values == _values(ANSI)
    assert (PF_KEY, "Track Duplicates (in hours)", "REG_DWORD", 24) in values
    assert (PF_KEY, "Background Cleanup (in msecs)", "REG_DWORD", 60000) in values
    assert (PF_KEY, "Preferred Backfill Source", "REG_SZ", "EX10-PAR-01") in values
    assert (PF_KEY, "Backfill Log Path", "REG_EXPAND_SZ", "%SystemRoot%\\Temp") in values  # continued hex(2) line
    assert (PF_KEY, "Opaque", "REG_BINARY", b"\x01\x02\x03") in values


def test_unicode_and_ansi_exports_import_to_identical_documents(tmp_path):
    outputs = []
    for reg in (UNICODE, ANSI):
        out = tmp_path / reg.stem
        result = run_import(FIXTURES / "estate", reg, "--output", out)
        assert result.exit_code == 0, result.stderr
        outputs.append(load_documents(out))
    assert outputs[0] == outputs[1]


@pytest.fixture
def estate(tmp_path):
    out = tmp_path / "out"
    result = run_import(FIXTURES / "estate", UNICODE, "--output", out)
    assert result.exit_code == 0, result.stderr
    return out, result


def test_store_values_go_under_the_store_with_that_guid(estate):
    out, result = estate
    store = find_document(out, "PublicFolderDatabase", "PFDB-LON-01")
    assert store["spec"]["guid"] == "6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11"
    assert store["spec"]["registry"] == {
        "Track Duplicates (in hours)": 24,
        "Background Cleanup (in msecs)": 60000,
        "Preferred Backfill Source": "EX10-PAR-01",
        "Replication Send Status Timeout": 86400,
        "Backfill Log Path": "%SystemRoot%\\Temp",
    }
    assert "Opaque: REG_BINARY values are not in the input model" in result.stderr
    assert "ParametersSystem] skipped" in result.stderr
    text = (out / "stores" / "pfdb-lon-01.yaml").read_text()
    assert "Track Duplicates (in hours): 24  # from store-settings-unicode.reg" in text


def test_private_keys_go_to_the_mailbox_database(estate):
    out, _ = estate
    database = find_document(out, "MailboxDatabase", "MBXDB-LON-01")
    assert database["spec"]["registry"] == {"DeliveredTo Expiration in Hours": 168}
    assert database["spec"]["defaultPublicFolderDatabase"] == "PFDB-LON-01"


def test_unknown_guid_makes_a_document_named_by_server_and_guid(estate):
    out, result = estate
    name = "EX07-LON-01\\Public-11111111-2222-4333-8444-555555555555"
    store = find_document(out, "PublicFolderDatabase", name)
    assert store["spec"] == {
        "server": "EX07-LON-01",
        "guid": "11111111-2222-4333-8444-555555555555",
        "registry": {"Track Duplicates (in hours)": 1},
    }
    assert (out / "stores" / "ex07-lon-01-public-11111111-2222-4333-8444-555555555555.yaml").is_file()
    assert f"PublicFolderDatabase {name}: the sources do not give spec.hierarchy" in result.stderr


def test_registry_output_validates(estate):
    out, result = estate
    tolerated = {("PublicFolderDatabase", n, "hierarchy") for n in
                 ("PFDB-LON-01", "PFDB-PAR-01", "EX07-LON-01\\Public-11111111-2222-4333-8444-555555555555")}
    assert schema_errors(out, tolerated) == []


def test_a_later_reg_import_finds_the_store_by_guid_in_the_output(tmp_path):
    out = tmp_path / "out"
    assert run_import(FIXTURES / "estate" / "GetPublicFolderDatabase.xml", "--output", out).exit_code == 0
    result = run_import(UNICODE, "--output", out)
    assert result.exit_code == 0, result.stderr
    store = find_document(out, "PublicFolderDatabase", "PFDB-LON-01")
    assert store["spec"]["registry"]["Track Duplicates (in hours)"] == 24
    assert "updated: " in result.stdout and "pfdb-lon-01.yaml" in result.stdout


@pytest.mark.parametrize(
    "line, column, message",
    [
        ('"Track Duplicates (in hours)"=dwrd:1', 31, "unknown value data"),
        ('"Unterminated=dword:1', 1, "unterminated"),
        ('"Bad"=hex:1,2,3', 7, "two hex digits"),
        ("Track=1", 1, "cannot read this line"),
    ],
)
def test_malformed_lines_are_positioned_errors(line, column, message):
    data = f"Windows Registry Editor Version 5.00\r\n\r\n[{PF_KEY}]\r\n{line}\r\n".encode()
    with pytest.raises(SourceError) as caught:
        parse_reg("x.reg", data)
    assert (caught.value.line, caught.value.column) == (4, column)
    assert message in caught.value.message


@pytest.mark.parametrize(
    "data, words",
    [
        ("hex(4):18,00,00", "REG_DWORD data (hex(4):) must be exactly 4 bytes, this line has 3"),
        ("hex(5):00,18", "REG_DWORD_BIG_ENDIAN data (hex(5):) must be exactly 4 bytes, this line has 2"),
        ("hex(b):60,ea", "REG_QWORD data (hex(b):) must be exactly 8 bytes, this line has 2"),
        ("hex(b):", "REG_QWORD data (hex(b):) must be exactly 8 bytes, this line has 0"),
    ],
)
def test_an_integer_of_the_wrong_length_is_a_positioned_error(tmp_path, data, words):
    reg = tmp_path / "store.reg"
    reg.write_bytes(f'Windows Registry Editor Version 5.00\r\n\r\n[{PF_KEY}]\r\n"Size"={data}\r\n'.encode())
    out = tmp_path / "out"
    result = run_import(reg, "--output", out)
    assert result.exit_code == 2
    assert f"{reg}:4:8: error: {words}: give all " in result.stderr
    assert "or export the key again with regedit" in result.stderr
    assert "not in the input model" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("data, words", [
    ("hex(2):41,00,42", "REG_EXPAND_SZ data (hex(2):) is UTF-16, two bytes a character: this line has 3 bytes"),
    ("hex(7):41,00,00", "REG_MULTI_SZ data (hex(7):) is UTF-16, two bytes a character: this line has 3 bytes"),
    ("hex(1):00,d8,41,00", "REG_SZ data (hex(1):) is not UTF-16 text"),  # a lone high surrogate
])
def test_text_that_is_not_utf16_is_a_positioned_error(data, words):
    # decoded leniently, it became U+FFFD in the imported value with no word of it
    text = f'Windows Registry Editor Version 5.00\r\n\r\n[{PF_KEY}]\r\n"Odd"={data}\r\n'.encode()
    with pytest.raises(SourceError) as caught:
        parse_reg("x.reg", text)
    assert words in caught.value.message and (caught.value.line, caught.value.column) == (4, 7)


def test_integers_of_the_right_length_in_hex_are_read():
    data = (f'Windows Registry Editor Version 5.00\r\n\r\n[{PF_KEY}]\r\n"A"=hex(4):2a,00,00,00\r\n'
            '"B"=hex(5):00,00,00,2a\r\n"C"=hex(b):2a,00,00,00,00,00,00,00\r\n').encode()
    assert [(v.name, v.value) for v in parse_reg("x.reg", data)] == [("A", 42), ("B", 42), ("C", 42)]


def test_not_a_reg_file():
    with pytest.raises(SourceError, match="not a regedit export"):
        parse_reg("x.reg", b"[HKEY_LOCAL_MACHINE\\X]\n")


def test_deletions_and_default_values_are_skipped_with_a_warning(tmp_path):
    reg = tmp_path / "x.reg"
    reg.write_bytes(
        f'Windows Registry Editor Version 5.00\r\n\r\n[{PF_KEY}]\r\n"Gone"=-\r\n@="default"\r\n'
        f'"Kept"=dword:00000001\r\n"Big"=hex(b):00,00,00,00,01,00,00,00\r\n'.encode("utf-8")
    )
    out = tmp_path / "out"
    result = run_import(reg, "--output", out)
    assert result.exit_code == 0, result.stderr
    assert "a deletion (=-) is not a setting" in result.stderr
    assert "default value is not a store setting" in result.stderr
    (docs,) = load_documents(out).values()
    assert docs[0]["spec"]["registry"] == {"Kept": 1, "Big": 2**32}


_names = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=30).filter(lambda s: s.strip())
_strings = st.text(st.sampled_from(list("abcXYZ019 \\\"%;[]=-_.é")), max_size=40)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_names, st.one_of(st.integers(0, 2**32 - 1), _strings), min_size=1, max_size=8))
def test_any_values_read_the_same_from_both_encodings(values):
    lines = [f"[{PF_KEY}]"]
    for name, value in values.items():
        data = f"dword:{value:08x}" if isinstance(value, int) else f'"{_escape(value)}"'
        lines.append(f'"{_escape(name)}"={data}')
    body = "\r\n".join(lines) + "\r\n"
    v5 = codecs.BOM_UTF16_LE + ("Windows Registry Editor Version 5.00\r\n\r\n" + body).encode("utf-16-le")
    v4 = ("REGEDIT4\r\n\r\n" + body).encode("cp1252")
    expected = [(PF_KEY, name, "REG_DWORD" if isinstance(v, int) else "REG_SZ", v) for name, v in values.items()]
    assert [(v.key, v.name, v.type, v.value) for v in parse_reg("a.reg", v5)] == expected
    assert [(v.key, v.name, v.type, v.value) for v in parse_reg("b.reg", v4)] == expected


def test_a_placeholder_store_is_renamed_when_its_capture_arrives(tmp_path):
    out = tmp_path / "out"
    assert run_import(UNICODE, "--output", out).exit_code == 0
    placeholder = out / "stores" / "ex07-lon-01-public-6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11.yaml"
    assert find_document(out, "PublicFolderDatabase", "EX07-LON-01\\Public-6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11")
    result = run_import(FIXTURES / "estate" / "GetPublicFolderDatabase.xml", "--output", out)
    assert result.exit_code == 0, result.stderr
    store = find_document(out, "PublicFolderDatabase", "PFDB-LON-01")
    assert store["spec"]["registry"]["Track Duplicates (in hours)"] == 24
    assert store["spec"]["created"].isoformat() == "2006-03-14"
    assert "name: PFDB-LON-01" in placeholder.read_text()
    assert not (out / "stores" / "pfdb-lon-01.yaml").exists()


def test_a_placeholder_mailbox_database_is_renamed_when_its_capture_arrives(tmp_path):
    # a mailbox database has no spec.guid: the capture that came later made a second document
    out = tmp_path / "out"
    assert run_import(ANSI, "--output", out).exit_code == 0
    name = "EX07-LON-01\\Private-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    assert find_document(out, "MailboxDatabase", name)
    result = run_import(FIXTURES / "estate" / "GetMailboxDatabase.xml", "--output", out)
    assert result.exit_code == 0, result.stderr
    databases = [d for docs in load_documents(out).values() for d in docs if d["kind"] == "MailboxDatabase"]
    assert [d["metadata"]["name"] for d in databases] == ["MBXDB-LON-01"], databases
    assert databases[0]["spec"]["registry"]  # the values the registry key gave are kept


def _reg_file(tmp_path, body: str):
    path = tmp_path / "store.reg"
    path.write_bytes(("REGEDIT4\r\n\r\n" + body.replace("\n", "\r\n")).encode("cp1252"))
    return path


@pytest.mark.parametrize("body, expected", [
    # a value written twice (in any case) keeps the later value under its first name, as regedit
    # applies the file (the same name twice was a conflict, another case silently a second value)
    (f'[{PF_KEY}]\n"Track Duplicates (in hours)"=dword:00000001\n"track duplicates (in hours)"=dword:00000002\n',
     {"Track Duplicates (in hours)": 2}),
    (f'[{PF_KEY}]\n"Track Duplicates (in hours)"=dword:00000001\n[{PF_KEY.lower()}]\n'
     '"Track Duplicates (in hours)"=dword:00000003\n', {"Track Duplicates (in hours)": 3}),
    # [-KEY] deletes the values written above it
    (f'[{PF_KEY}]\n"Track Duplicates (in hours)"=dword:00000001\n[-{PF_KEY}]\n[{PF_KEY}]\n'
     '"Background Cleanup (in msecs)"=dword:00000064\n', {"Background Cleanup (in msecs)": 100}),
])
def test_a_reg_file_is_read_as_regedit_applies_it(tmp_path, body, expected):
    out = tmp_path / "out"
    result = run_import(_reg_file(tmp_path, body), "--output", out)
    assert result.exit_code == 0, result.stderr
    (store,) = [d for docs in load_documents(out).values() for d in docs if d["kind"] == "PublicFolderDatabase"]
    assert store["spec"]["registry"] == expected


def test_a_deleted_key_is_said_to_be(tmp_path):
    result = run_import(_reg_file(tmp_path, f'[{PF_KEY}]\n"Track Duplicates (in hours)"=dword:00000001\n[-{PF_KEY}]\n'),
                        "--output", tmp_path / "out")
    assert result.exit_code == 0 and "and the values written to it above: they are not imported" in result.stderr
    assert not [d for docs in load_documents(tmp_path / "out").values() for d in docs
                if d["kind"] == "PublicFolderDatabase"]
