"""Text from a config repository printed safely. Names, values and file names are
untrusted: a name ``"/Sales\\n::error file=evil.yaml::X"`` must not forge a
finding line or a GitHub workflow command, an ESC or OSC sequence must not
reach the terminal, and a file name with undecodable bytes (which Python holds
as lone surrogates) must not make a report invalid UTF-8 or crash its writer.
"""
from __future__ import annotations

import re

# What a reader cannot see, or that moves what they see: the bidirectional overrides and
# isolates ("Trojan Source"), characters of no width (U+200B-U+200F, the word joiner and
# invisible operators, a byte order mark inside a text, the soft hyphen) and spaces that are
# not U+0020 (a no-break space). A name "EX03-A\u200b" or "Public\u00a0Folders" matches no
# other name while looking like one: a finding shows it escaped, so the reader sees why.
_NO_WIDTH = "\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_INVISIBLE = _NO_WIDTH + "\u00a0\u2000-\u200a\u202f\u205f"  # and the spaces that are not U+0020
# C0 controls and DEL, C1 controls, the Unicode line and paragraph separators, and the
# invisible characters above. Tab is kept.
_CONTROL = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")
_CONTROL_BUT_LINES = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")
_INVISIBLE_ONLY = re.compile(f"[{_INVISIBLE}]")
_NO_WIDTH_ONLY = re.compile(f"[{_NO_WIDTH}]")
_NAMED = {"\n": "\\n", "\r": "\\r"}
_SURROGATE = re.compile("[\ud800-\udfff]")
# Characters XML 1.0 cannot carry at all, even as character references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def valid_unicode(text: str) -> str:
    """``text`` with every lone surrogate (an undecodable byte of a file name,
    a ``\\ud800`` escape) replaced by U+FFFD, so it encodes as UTF-8."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def printable(text, keep_line_breaks: bool = False) -> str:
    """One line of plain text: control characters shown as ``\\n``, ``\\x1b``,
    ``\\u202e``; valid Unicode. For text reports and diagnostics.
    ``keep_line_breaks``: leave ``\\n`` and ``\\r`` to a format that encodes
    them itself (GitHub's ``%0A``)."""
    text = valid_unicode(str(text))
    pattern = _CONTROL_BUT_LINES if keep_line_breaks else _CONTROL
    return pattern.sub(_escape, text) if pattern.search(text) else text


def visible(text, spaces: bool = True) -> str:
    """``text`` with only the invisible characters (``_INVISIBLE``) shown as escapes,
    line breaks and the rest as they are: for a format that escapes its own markup.
    ``spaces=False`` leaves the spaces that are not U+0020 alone (the HTML report
    sets its numbers apart with narrow no-break spaces: 12 345)."""
    text = str(text)
    pattern = _INVISIBLE_ONLY if spaces else _NO_WIDTH_ONLY
    return pattern.sub(_escape, text) if pattern.search(text) else text


def xml_text(text) -> str:
    """``text`` with what XML 1.0 cannot hold shown as escapes (``\\x01``)."""
    text = valid_unicode(str(text))
    return _NOT_XML.sub(_escape, text) if _NOT_XML.search(text) else text
