"""Exchange units: TimeSpans and short durations, sizes, versions.

Shared by both engines (they run at load time, in Python, for every record) so
that the same text always means the same number.
"""
from __future__ import annotations

import math
import re

# Exactly the forms the schemas accept (schemas/*.json: a duration's and a size's pattern): a
# value EXL003 rejects ("1.5h", "15M", "1.5KB", "15 m") is read as absent, as any value of the
# wrong type is, so that no rule also reports a number read loosely from it (one problem, one
# finding). A sign is kept (not rejected) so that the rule owning the range reports "-5m".
_TIMESPAN = re.compile(r"^(-)?(?:(\d{1,8})\.)?([01]?\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,7}))?$", re.ASCII)
_SHORT = re.compile(r"^(-)?(\d+)([smhd])$", re.ASCII)
_SIZE = re.compile(r"^(-)?(\d+) ?(B|KB|MB|GB)$", re.IGNORECASE | re.ASCII)
_SHORT_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_INT64 = 2**63
_SIZE_UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}

VERSION_RANK = {"2000": 2000, "2003": 2003, "2007": 2007, "2010": 2010, "2013": 2013,
                "2016": 2016, "2019": 2019, "SE": 2025}


def parse_duration(value) -> float | None:
    """Seconds of a TimeSpan (``1.00:00:00``) or short form (``15m``); None if invalid."""
    if not isinstance(value, str):
        return None
    match = _TIMESPAN.match(value)
    if match:
        sign, days, hours, minutes, seconds, fraction = match.groups()  # minutes, seconds 00-59 by the pattern
        total = int(days or 0) * 86400 + int(hours) * 3600 + int(minutes) * 60 + int(seconds)
        total = total + (float("0." + fraction) if fraction else 0)
        return float(-total if sign else total)
    match = _SHORT.match(value)
    if match:
        sign, number, unit = match.groups()
        return (-1 if sign else 1) * float(number) * _SHORT_UNITS[unit]
    return None


def format_duration(seconds: float) -> str:
    """TimeSpan text for a number of seconds (``1.00:00:00``)."""
    sign = "-" if seconds < 0 else ""
    whole = int(abs(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{sign}{days}.{text}" if days else sign + text


def parse_size(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):  # beyond 64 bits: EXL003 reports it (no engine holds it)
        return value if -_INT64 <= value < _INT64 else None
    if not isinstance(value, str):
        return None
    match = _SIZE.match(value)
    if not match:
        return None
    sign, digits, unit = match.groups()
    number = (-1 if sign else 1) * float(digits) * _SIZE_UNITS[unit.lower()]
    if not math.isfinite(number):
        return None  # 309 digits and more: no size
    # a size written with a unit may exceed 64 bits: it is still far above any limit
    return max(-_INT64, min(_INT64 - 1, int(number)))


def version_rank(value) -> int | None:
    """The release rank of a version written as the schema takes it (``2010``, ``"2010"``,
    ``SE``); None for anything else, which EXL003 reports (``se``, ``" 2010"``): the
    rules then stand down on it rather than read it as a release (one problem, one
    finding)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return VERSION_RANK.get(str(value))
