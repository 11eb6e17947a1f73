"""Exchange units (linter.model.units): the numbers both engines read from text."""
from linter.model.units import parse_duration, parse_size, version_rank


def test_sizes():
    assert parse_size("300KB") == 300 * 1024
    assert parse_size("10 MB") == 10 * 1024 * 1024
    assert parse_size(307200) == 307200
    # a negative size keeps its sign: STS005 owns the range, not the schema (EXL003)
    assert parse_size(-1) == -1
    assert parse_size("-1KB") == -1024
    assert parse_size(True) is None


def test_sizes_beyond_64_bits():
    assert parse_size(2**70) is None  # an integer no engine holds: EXL003 reports it
    assert parse_size("99999999999GB") == 2**63 - 1  # written with a unit: far above any limit (STS005)


def test_short_durations_keep_their_sign():
    assert parse_duration("-5m") == -300.0
    assert parse_duration("5m") == 300.0


def test_a_size_too_large_for_a_float_is_no_size_rather_than_a_crash():
    # the schema's size pattern accepts any number of digits; float() of 309 digits is inf
    assert parse_size("9" * 400) is None
    assert parse_size("9" * 400 + " GB") is None


def test_durations_and_versions():
    assert parse_duration("1.00:00:00") == 86400.0
    assert parse_duration("-00:01:00") == -60.0
    assert parse_duration("00:00:01.5") == 1.5
    assert parse_duration("15m") == 900.0
    assert parse_duration("24:00:00") is None
    assert version_rank("SE") == 2025 and version_rank(2010) == 2010 and version_rank(True) is None


def test_only_the_digits_0_to_9_are_digits():
    # Python's \d and int() take every Unicode digit; Exchange and JSON Schema take 0-9
    from linter.model.units import parse_duration, parse_size

    for text in ("\u0661\u0660m", "\uff11\uff10m", "\u0660\u0660:\u0661\u0660:\u0660\u0660"):
        assert parse_duration(text) is None, text
    assert parse_size("\uff13\uff10\uff10KB") is None
    assert parse_duration("10m") == 600 and parse_size("300KB") == 300 * 1024
