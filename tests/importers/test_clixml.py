"""The CLIXML deserializer and the mapping of Exchange objects."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from linter.importers.clixml import DateTime, PSObject, TimeSpan, load_clixml, unescape
from linter.importers.errors import SourceError
from linter.importers.exchange import exchange_version, leaf_name, parse_admin_display_version, timespan_text, _Reader
from linter.importers.values import format_timespan, normalize_timespan, parse_timespan
from .conftest import FIXTURES, find_document, run_import

HEAD = '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">'


def _load(body: str):
    return load_clixml("t.xml", (HEAD + body + "</Objs>").encode())


def test_primitives():
    values = _load(
        '<S>a_x000A_b</S><I32>-7</I32><I64>9000000000</I64><B>true</B><B>false</B><Nil/>'
        "<TS>PT1H30M</TS><DT>2019-12-03T14:44:44-08:00</DT><G>3C5EBDAF-1885-4f22-8f60-0e8c1667abed</G>"
        "<Db>0.5</Db><C>65</C><SBK>Remove-Item C:\\ -Recurse</SBK><S />"
    )
    assert values == [
        "a\nb", -7, 9000000000, True, False, None, TimeSpan(54_000_000_000),
        DateTime("2019-12-03T14:44:44-08:00"), "3C5EBDAF-1885-4f22-8f60-0e8c1667abed", 0.5, "A",
        "Remove-Item C:\\ -Recurse", "",
    ]


def test_objects_type_name_refs_and_object_refs():
    first, second, again = _load(
        '<Obj RefId="0"><TN RefId="0"><T>Deserialized.A.B.ExchangeServer</T><T>System.Object</T></TN>'
        '<ToString>X</ToString><Props><S N="Name">X</S><Obj N="Site" RefId="1"><TN RefId="1"><T>Id</T></TN>'
        "<ToString>c.com/Configuration/Sites/London</ToString></Obj></Props>"
        '<MS><S N="Name">ignored: adapted wins</S><S N="PSComputerName">pc</S></MS></Obj>'
        '<Obj RefId="2"><TNRef RefId="0"/><LST><I32>1</I32><Ref RefId="1"/></LST></Obj>'
        '<Ref RefId="0"/>'
    )
    assert isinstance(first, PSObject)
    assert first.short_types == ["A.B.ExchangeServer", "System.Object"]
    assert first.get("Name") == "X" and first.get("PSComputerName") == "pc"
    assert str(first.get("Site")) == "c.com/Configuration/Sites/London"
    assert second.type_names == first.type_names
    assert second.items == [1, first.get("Site")]
    assert again is first


def test_dictionaries_and_enums():
    (obj,) = _load(
        '<Obj RefId="0"><TN RefId="0"><T>System.Collections.Hashtable</T></TN><DCT>'
        '<En><S N="Key">a</S><I32 N="Value">1</I32></En><En><S N="Key">b</S><Nil N="Value"/></En></DCT></Obj>'
    )
    assert obj.mapping == {"a": 1, "b": None}
    (enum,) = _load('<Obj RefId="0"><TN RefId="0"><T>X.ServerRole</T><T>System.Enum</T></TN><ToString>Mailbox</ToString><I32>2</I32></Obj>')
    assert enum.value == 2 and str(enum) == "Mailbox"


def test_dangling_ref_is_a_positioned_error():
    with pytest.raises(SourceError) as caught:
        _load('\n<Ref RefId="9"/>')
    assert (caught.value.line, caught.value.column) == (2, 1)


def test_a_property_written_twice_with_two_values_is_a_positioned_error():
    # the last one won silently: an edited file named another server
    with pytest.raises(SourceError) as caught:
        _load('<Obj RefId="0"><TN RefId="0"><T>X.ExchangeServer</T></TN><Props>\n<S N="Name">SOLO</S>\n'
              '<S N="Name">EVIL</S></Props></Obj>')
    assert (caught.value.line, caught.value.column) == (3, 1)
    assert "Name is written twice in one object (first on line 2)" in caught.value.message


def test_a_property_written_twice_alike_or_extended_beside_adapted_is_read():
    (obj,) = _load('<Obj RefId="0"><TN RefId="0"><T>X.ExchangeServer</T></TN><Props><S N="Name">SOLO</S>'
                   '<S N="Name">SOLO</S></Props><MS><S N="Name">other</S></MS></Obj>')
    assert obj.get("Name") == "SOLO"


def test_bad_number_is_a_positioned_error():
    with pytest.raises(SourceError) as caught:
        _load('<I32>twelve</I32>')
    assert "not a valid I32" in caught.value.message


@pytest.mark.parametrize("element", [
    "<B>maybe</B>", "<B></B>", "<I64>99999999999999999999</I64>", "<I32>2147483648</I32>", "<By>256</By>",
    "<U32>-1</U32>", "<SB>-129</SB>", "<I32>1_000</I32>",
])
def test_a_value_its_type_cannot_hold_is_a_positioned_error(element):
    # was imported: <B>maybe</B> as false, a 20-digit I64 as written (exlint check then refused it)
    with pytest.raises(SourceError) as caught:
        _load(element)
    assert "which is not a valid" in caught.value.message


@pytest.mark.parametrize("element, value", [
    ("<B> True </B>", True), ("<B>false</B>", False), ("<I64>-9223372036854775808</I64>", -2**63),
    ("<U64>18446744073709551615</U64>", 2**64 - 1), ("<By>255</By>", 255), ("<I32>+7</I32>", 7),
])
def test_every_value_its_type_holds_is_read(element, value):
    assert _load(element) == [value]


def test_not_clixml_root():
    with pytest.raises(SourceError, match="not a CLIXML file"):
        load_clixml("t.xml", b"<configuration/>")


def test_utf16_capture(tmp_path):
    text = HEAD + "<S>caf\u00e9</S></Objs>"
    assert load_clixml("t.xml", b"\xff\xfe" + text.encode("utf-16-le")) == ["caf\u00e9"]


def test_unescape_surrogate_pairs():
    assert unescape("_xD83D__xDE00_") == "\U0001F600"
    assert unescape("no escapes") == "no escapes"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Version 15.2 (Build 1118.7)", ("2019", 0)),
        ("Version 15.2 (Build 2562.17)", ("SE", 0)),
        ("Version 15.1 (Build 2375.7)", ("2016", 0)),
        ("Version 15.0 (Build 1497.2)", ("2013", 1)),
        ("Version 15.0 (Build 516.32)", ("2013", 0)),
        ("Version 14.3 (Build 123.4)", ("2010", 3)),
        ("Version 14.0 (Build 639.21)", ("2010", 0)),
        ("Version 8.3 (Build 83.6)", ("2007", 3)),
        ("Version 8.1 (Build 240.6)", ("2007", 1)),
        ("Version 6.5 (Build 7638.2: Service Pack 2)", ("2003", 2)),
        ("Version 6.5 (Build 6944.4)", ("2003", 0)),
        ("Version 6.0 (Build 6249.4: Service Pack 3)", ("2000", 3)),
    ],
)
def test_exchange_versions(text, expected):
    assert exchange_version(*parse_admin_display_version(text)) == expected


def test_unknown_version():
    assert exchange_version(16, 0) is None
    assert parse_admin_display_version("garbage") is None


@pytest.mark.parametrize(
    "role, release, expected",
    [
        ("Mailbox, ClientAccess, UnifiedMessaging, HubTransport", "2010", ["Mailbox", "HubTransport", "ClientAccess"]),
        ("Mailbox", "2019", ["Mailbox", "HubTransport", "ClientAccess"]),
        ("Mailbox", "2016", ["Mailbox", "HubTransport", "ClientAccess"]),
        ("Mailbox, ClientAccess", "2013", ["Mailbox", "HubTransport", "ClientAccess"]),
        ("Mailbox", "2013", ["Mailbox", "HubTransport"]),
        ("Mailbox", "2007", ["Mailbox"]),
        ("Edge", "2019", ["Edge"]),
        ("UnifiedMessaging", "2010", []),
        ("None", "2003", []),
    ],
)
def test_roles(role, release, expected):
    assert _Reader.roles(role, release) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("contoso.com/Configuration/Sites/Default-First-Site-Name", "Default-First-Site-Name"),
        ("CN=London,CN=Sites,CN=Configuration,DC=contoso,DC=com", "London"),
        ("CN=Smith\\, John,OU=x", "Smith, John"),
        ("EX01\\Default EX01", "Default EX01"),
        ("Paris", "Paris"),
        ("", None),
        (None, None),
    ],
)
def test_leaf_names(value, expected):
    assert leaf_name(value) == expected


def test_timespans_from_objects():
    enhanced = PSObject(node=None, to_string="1.00:00:00", properties={"Ticks": 864_000_000_000})
    assert timespan_text(enhanced) == "1.00:00:00"
    assert timespan_text(PSObject(node=None, to_string="00:05:00")) == "00:05:00"
    assert timespan_text(PSObject(node=None, to_string="Unlimited")) is None
    assert timespan_text(TimeSpan(6_000_000_000)) == "00:10:00"


@pytest.mark.parametrize(
    "text, expected",
    [("00:10:00", "00:10:00"), ("1.00:00:00", "1.00:00:00"), ("PT10M", "00:10:00"), ("P2D", "2.00:00:00"),
     ("1:00:00", "01:00:00"), ("00:00:00.5", "00:00:00.5000000"), ("-PT5S", "-00:00:05"),
     ("48:00:00", None), ("00:60:00", None), ("10m", None), ("PT", None)],
)
def test_timespan_texts(text, expected):
    assert normalize_timespan(text) == expected


@given(st.integers(min_value=-(10**17), max_value=10**17))
def test_timespan_format_parse_round_trip(ticks):
    assert parse_timespan(format_timespan(ticks)) == ticks


def test_a_stores_replication_settings_are_imported(tmp_path):
    # ReplicationMessageSize (50 KB, which STS005 reports) and ReplicationPeriod were dropped
    out = tmp_path / "out"
    result = run_import(FIXTURES / "replication-settings", "--output", out)
    assert result.exit_code == 0, result.stderr
    store = find_document(out, "PublicFolderDatabase", "PFDB-LON-01")
    assert store["spec"]["replication"] == {"Replication Message Size Limit": "50KB",
                                            "Replication Send Always": "00:15:00"}


def test_an_import_says_which_values_a_rule_will_miss(tmp_path):
    # every imported store got HIE004 (no e-mail address) from check, and the import said nothing
    result = run_import(FIXTURES / "replication-settings", "--output", tmp_path / "out")
    assert result.exit_code == 0
    assert "PFDB-LON-01: the sources do not give spec.emailAddress (HIE004 reports it missing), " \
           "spec.created (RTE002 reports it missing)" in result.stderr
