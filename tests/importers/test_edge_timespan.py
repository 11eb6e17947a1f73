"""EdgeTransport.exe.config TimeSpans are read the way .NET's TimeSpan.Parse reads them
(invariant culture): Microsoft documents "[ws][-]{ d | [d.]hh:mm[:ss[.ff]] }[ws]"."""
from __future__ import annotations

import pytest

from linter.importers.values import format_timespan, parse_dotnet_timespan

from .conftest import find_document, load_documents, run_import


@pytest.mark.parametrize(
    "text, expected",
    [
        # Microsoft's TimeSpan.Parse examples (invariant culture)
        ("6", "6.00:00:00"), ("6:12", "06:12:00"), ("6:12:14", "06:12:14"), ("6:12:14:45", "6.12:14:45"),
        ("6.12:14:45", "6.12:14:45"), ("6:12:14:45.3448", "6.12:14:45.3448000"),
        ("6:12:14:45,3448", None), ("6:34:14:45", None),
        # a bare number is days; white space around is ignored
        ("2", "2.00:00:00"), (" -2 ", "-2.00:00:00"), ("2.00:00:00", "2.00:00:00"), ("1:2:.5", "01:02:00.5000000"),
        # hours stop at 23: .NET then reads the day form d:hh:mm
        ("24:00:00", "24.00:00:00"), ("24:00", None), ("00:60:00", None), ("00:00:60", None),
        # the range of a TimeSpan
        ("10675199.02:48:05.4775807", "10675199.02:48:05.4775807"), ("10675199.02:48:05.4775808", None),
        ("-10675199.02:48:05.4775808", "-10675199.02:48:05.4775808"), ("10675200", None),
        ("99999999.00:00:00", None),
        # seven fraction digits; more only when they start with a zero (rounded)
        ("00:00:00.12345678", None), ("00:00:00.01234567", "00:00:00.0123457"),
        # not .NET TimeSpans
        ("P2D", None), ("PT10M", None), ("2d", None), ("two days", None), ("", None), ("1.2", None), ("2.", None),
    ],
)
def test_timespans_are_read_as_dotnet_reads_them(text, expected):
    ticks = parse_dotnet_timespan(text)
    assert (None if ticks is None else format_timespan(ticks)) == expected


def _config(tmp_path, value):
    config = tmp_path / "EdgeTransport.exe.config"
    config.write_text(f'<configuration>\n<appSettings>\n<add key="PFReplicaAgeThreshold" value="{value}"/>\n'
                      "</appSettings>\n</configuration>\n")
    return config


def test_a_bare_number_of_days_is_imported(tmp_path):
    out = tmp_path / "out"
    result = run_import(_config(tmp_path, "2"), "--output", out, "--organization", "Contoso")
    assert result.exit_code == 0, result.stderr
    assert find_document(out, "Organization", "Contoso")["spec"]["routing"] == {"PFReplicaAgeThreshold": "2.00:00:00"}


@pytest.mark.parametrize("value", ["P2D", "99999999.00:00:00"])
def test_what_dotnet_cannot_read_is_not_imported(tmp_path, value):
    config = _config(tmp_path, value)
    result = run_import(config, "--output", tmp_path / "out", "--organization", "Contoso")
    assert result.exit_code == 0
    assert f"{config}:3:1: warning: PFReplicaAgeThreshold is '{value}', which the transport service cannot read: " \
           "not imported" in result.stderr
    assert load_documents(tmp_path / "out") == {}


def _settings(tmp_path, lines: str):
    config = tmp_path / "EdgeTransport.exe.config"
    config.write_text(f"<configuration>\n<appSettings>\n{lines}\n</appSettings>\n</configuration>\n")
    return config


@pytest.mark.parametrize("value, expected", [("-1", -1), (" 48 ", 48), ("+6", 6)])
def test_hours_are_read_as_int32_parse_reads_them(tmp_path, value, expected):
    # "-1" was "not imported", so RTE007 never saw the negative value it exists to report
    out = tmp_path / "out"
    config = _settings(tmp_path, f'<add key="PFReplicaAgeThresholdHours" value="{value}"/>')
    assert run_import(config, "--output", out, "--organization", "Contoso").exit_code == 0
    assert find_document(out, "Organization", "Contoso")["spec"]["routing"] == {"PFReplicaAgeThresholdHours": expected}


@pytest.mark.parametrize("value", ["\u00b2", "\u0664\u0668", "99999999999", "4.5"])
def test_hours_dotnet_cannot_read_are_not_imported(tmp_path, value):
    # "²" was an internal error naming no file; Arabic-Indic digits were imported as 48
    config = _settings(tmp_path, f'<add key="PFReplicaAgeThresholdHours" value="{value}"/>')
    result = run_import(config, "--output", tmp_path / "out", "--organization", "Contoso")
    assert result.exit_code == 0, result.stderr
    assert f"{config}:3:1: warning: PFReplicaAgeThresholdHours is '{value}', which the transport service " \
           "cannot read: not imported" in result.stderr


@pytest.mark.parametrize("lines, expected", [
    # appSettings: keys compared case-insensitively, the last <add> wins, <remove> and <clear/> take away
    ('<add key="PFReplicaAgeThreshold" value="1.00:00:00"/>\n<add key="PFReplicaAgeThreshold" value="3.00:00:00"/>',
     {"PFReplicaAgeThreshold": "3.00:00:00"}),
    ('<add key="pfreplicaagethreshold" value="1.00:00:00"/>', {"PFReplicaAgeThreshold": "1.00:00:00"}),
    ('<add key="PFReplicaAgeThreshold" value="1.00:00:00"/>\n<remove key="PFReplicaAgeThreshold"/>\n'
     '<add key="PFReplicaAgeThresholdHours" value="6"/>', {"PFReplicaAgeThresholdHours": 6}),
    ('<add key="PFReplicaAgeThreshold" value="1.00:00:00"/>\n<clear/>\n<add key="PFReplicaAgeThresholdHours" value="6"/>',
     {"PFReplicaAgeThresholdHours": 6}),
])
def test_app_settings_are_read_as_dotnet_holds_them(tmp_path, lines, expected):
    out = tmp_path / "out"
    result = run_import(_settings(tmp_path, lines), "--output", out, "--organization", "Contoso")
    assert result.exit_code == 0, result.stderr
    assert find_document(out, "Organization", "Contoso")["spec"]["routing"] == expected


def test_a_key_removed_again_is_said_to_be_so(tmp_path):
    config = _settings(tmp_path, '<add key="PFReplicaAgeThreshold" value="1.00:00:00"/>\n<clear/>')
    result = run_import(config, "--output", tmp_path / "out", "--organization", "Contoso")
    assert result.exit_code == 0 and "removed again" in result.stderr
    assert load_documents(tmp_path / "out") == {}


def test_a_key_with_spaces_around_it_is_not_the_key_the_service_reads(tmp_path):
    config = _settings(tmp_path, '<add key=" PFReplicaAgeThreshold " value="2.00:00:00"/>')
    result = run_import(config, "--output", tmp_path / "out", "--organization", "Contoso")
    assert result.exit_code == 0
    assert "has spaces around PFReplicaAgeThreshold" in result.stderr and "not imported" in result.stderr
    assert load_documents(tmp_path / "out") == {}


def test_an_add_without_a_key_is_a_warning(tmp_path):
    config = _settings(tmp_path, '<add value="3"/>\n<add key="PFReplicaAgeThreshold" value="1.00:00:00"/>')
    result = run_import(config, "--output", tmp_path / "out", "--organization", "Contoso")
    assert result.exit_code == 0 and "without a key attribute" in result.stderr
    assert find_document(tmp_path / "out", "Organization", "Contoso")["spec"]["routing"] == {
        "PFReplicaAgeThreshold": "1.00:00:00"}


def test_two_app_settings_sections_are_an_error_as_dotnet_refuses_them(tmp_path):
    config = tmp_path / "EdgeTransport.exe.config"
    config.write_text('<configuration>\n<appSettings><add key="PFReplicaAgeThreshold" value="1"/></appSettings>\n'
                      '<appSettings><add key="PFReplicaAgeThreshold" value="2"/></appSettings>\n</configuration>\n')
    result = run_import(config, "--output", tmp_path / "out", "--organization", "Contoso")
    assert result.exit_code == 2
    assert f"{config}:3:1: error: a second <appSettings>" in result.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.yaml"))
