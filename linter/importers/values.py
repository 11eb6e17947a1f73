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


# .NET's TimeSpan.Parse (what the transport service applies to EdgeTransport.exe.config
# values), for the invariant culture. Microsoft documents "[ws][-]{ d | [d.]hh:mm[:ss[.ff]] }[ws]";
# the parser (System.Globalization.TimeSpanParse) also takes the culture's own pattern,
# "d:h:mm:ss.FFFFFFF" for the invariant culture, so the day may end in ":" too. It cuts the
# text into numbers and the separators between them and tries, in this order, the patterns
# below for 1 to 5 numbers: the first whose separators match and whose numbers fit wins.
_DOTNET_SHAPES: dict[int, list[tuple[str, ...]]] = {
    1: [("d",)],
    2: [("h", "m")],
    3: [("h", "m", "s"), ("d", "h", "m"), ("h", "m", "f")],
    4: [("h", "m", "s", "f"), ("d", "h", "m", "s"), ("d", "h", "m", "f")],
    5: [("d", "h", "m", "s", "f")],
}
_SEPARATORS = {("d", "h"): "{day}", ("h", "m"): ":", ("m", "s"): ":", ("s", "f"): ".", ("m", "f"): ":."}
_LIMITS = {"d": 10_675_199, "h": 23, "m": 59, "s": 59}
_DIGITS = "0123456789"
_MAX_NUMBER = 0x0FFF_FFFF  # a longer number is an OverflowException in the tokenizer
MAX_TICKS = 2**63 - 1  # TimeSpan.MaxValue, 10675199.02:48:05.4775807


def _fraction_ticks(digits: str) -> int | None:
    """Ticks of the digits after the seconds' "."; .NET rounds more than seven digits
    only when they start with a zero (".12345678" is an overflow, ".01234567" is not)."""
    value = int(digits)
    if value == 0:
        return 0
    if not digits.startswith("0") and value > 9_999_999:
        return None
    if len(digits) <= 7:
        return value * 10 ** (7 - len(digits))
    scale = 10 ** (len(digits) - 7)
    return (value * 2 + scale) // (2 * scale)  # half away from zero


def _shape_ticks(shape: tuple[str, ...], numbers: list[str]) -> int | None:
    parts = dict(zip(shape, numbers))
    if any(int(parts.get(unit, "0")) > limit for unit, limit in _LIMITS.items()):
        return None
    fraction = _fraction_ticks(parts["f"]) if "f" in parts else 0
    if fraction is None:
        return None
    seconds = int(parts.get("d", "0")) * 86400 + int(parts.get("h", "0")) * 3600
    seconds += int(parts.get("m", "0")) * 60 + int(parts.get("s", "0"))
    return seconds * TICKS_PER_SECOND + fraction


def parse_dotnet_timespan(text: str) -> int | None:
    """Ticks of ``text`` as .NET's ``TimeSpan.Parse(text, CultureInfo.InvariantCulture)``
    reads it, or None where it throws: ``2`` is two days, ``1:30`` 90 minutes,
    ``1.02:03:04.5`` and ``1:02:03:04.5`` the same; ``24:00:00`` is 24 days (hours
    stop at 23, so .NET reads the day form); ``P2D`` and ``2d`` are not TimeSpans."""
    tokens = re.findall(r"[0-9]+|[^0-9]+", text.strip())
    if not tokens:
        return None
    # numbers and separators alternate, a separator (maybe empty) at each end
    tokens = [""] * (tokens[0][0] in _DIGITS) + tokens + [""] * (tokens[-1][0] in _DIGITS)
    separators, numbers = tokens[0::2], tokens[1::2]
    if any(int(n) > _MAX_NUMBER for n in numbers):
        return None
    for sign in ("", "-"):
        for day in (".", ":"):
            for shape in _DOTNET_SHAPES.get(len(numbers), []):
                expected = [sign] + [_SEPARATORS[pair].format(day=day) for pair in zip(shape, shape[1:])] + [""]
                if separators != expected:
                    continue
                ticks = _shape_ticks(shape, numbers)
                if ticks is not None and ticks <= MAX_TICKS + (sign == "-"):
                    return -ticks if sign else ticks
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
