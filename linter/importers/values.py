"""Value conversions shared by the importers: .NET TimeSpans and dates."""
from __future__ import annotations

import re

TICKS_PER_SECOND = 10_000_000
_TICKS_PER_DAY = 86_400 * TICKS_PER_SECOND

# .NET TimeSpan "c" (constant) format, which is what TimeSpan.ToString(),
# EnhancedTimeSpan.ToString() and the .config files use: [-][d.]hh:mm:ss[.fffffff].
_DOTNET = re.compile(
    r"^(?P<sign>-)?(?:(?P<days>\d{1,8})\.)?(?P<hours>\d{1,2}):(?P<minutes>\d{1,2})"
    r"(?::(?P<seconds>\d{1,2})(?:\.(?P<fraction>\d{1,7}))?)?$"
)
# xs:duration, which CLIXML uses for System.TimeSpan (<TS>PT10M</TS>).
_ISO = re.compile(
    r"^(?P<sign>-)?P(?:(?P<days>\d+)D)?(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?"
    r"(?:(?P<seconds>\d+)(?:\.(?P<fraction>\d+))?S)?)?$"
)
_SHORT = re.compile(r"^(?P<n>\d+)(?P<unit>[smhd])$")
_SHORT_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _ticks(match: re.Match[str]) -> int:
    parts = match.groupdict()
    seconds = (
        int(parts["days"] or 0) * 86400
        + int(parts["hours"] or 0) * 3600
        + int(parts["minutes"] or 0) * 60
        + int(parts["seconds"] or 0)
    )
    fraction = (parts["fraction"] or "")[:7].ljust(7, "0")
    ticks = seconds * TICKS_PER_SECOND + int(fraction)
    return -ticks if parts["sign"] else ticks


def parse_timespan(text: str) -> int | None:
    """Ticks (100 ns) of a .NET TimeSpan text or an xs:duration; None if it is neither.

    Like .NET, the hh:mm:ss form takes hours 0-23 and minutes and seconds 0-59.
    """
    text = text.strip()
    match = _DOTNET.match(text)
    if match:
        if int(match["hours"]) > 23 or int(match["minutes"]) > 59 or int(match["seconds"] or 0) > 59:
            return None
        return _ticks(match)
    match = _ISO.match(text)
    if match and text not in ("P", "-P") and not text.endswith("T"):
        return _ticks(match)
    return None


def format_timespan(ticks: int) -> str:
    """The .NET "c" form of a TimeSpan: ``00:10:00``, ``1.00:00:00``, ``00:00:00.5000000``."""
    sign = "-" if ticks < 0 else ""
    ticks = abs(ticks)
    days, rest = divmod(ticks, _TICKS_PER_DAY)
    seconds, fraction = divmod(rest, TICKS_PER_SECOND)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    text = f"{sign}{days}." if days else sign
    text += f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    if fraction:
        text += f".{fraction:07d}"
    return text


def normalize_timespan(text: str) -> str | None:
    """A TimeSpan text in the canonical .NET form, or None if it is not one."""
    ticks = parse_timespan(text)
    return None if ticks is None else format_timespan(ticks)


def duration_ticks(value: object) -> int | None:
    """Ticks of an input-model duration (TimeSpan form or short form ``15m``), else None."""
    if not isinstance(value, str):
        return None
    match = _SHORT.match(value.strip())
    if match:
        return int(match["n"]) * _SHORT_UNITS[match["unit"]] * TICKS_PER_SECOND
    return parse_timespan(value)
