"""regedit ``.reg`` exports: store registry values of the Information Store.

Formats: "Windows Registry Editor Version 5.00" (regedit writes it as UTF-16 LE
with a BOM; UTF-8 is accepted too) and "REGEDIT4" (ANSI, code page 1252). Values:
``"Name"="string"``, ``dword:0000002a``, ``hex(2):…`` (REG_EXPAND_SZ: UTF-16 LE
bytes in version 5 files, ANSI bytes in REGEDIT4 files), ``hex(b):`` (QWORD),
``hex(1):``/``hex(4):``/``hex(5):``, ``hex:`` (REG_BINARY), lines continued with
a trailing backslash, and ``;`` comments.

Mapped keys: ``HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\MSExchangeIS\\
<server>\\Public-<GUID>`` to the PublicFolderDatabase with that GUID, and
``…\\Private-<GUID>`` to the MailboxDatabase with that GUID, under ``spec.registry``.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from .documents import Collector, Fragment, normalize_guid
from .errors import Origin, SourceError

HEADER_V5 = "Windows Registry Editor Version 5.00"
HEADER_V4 = "REGEDIT4"

_STORE_KEY = re.compile(
    r"^(?:HKEY_LOCAL_MACHINE|HKLM)\\SYSTEM\\(?:CurrentControlSet|ControlSet\d{3})\\Services\\MSExchangeIS\\"
    r"(?P<server>[^\\]+)\\(?P<type>Public|Private)-(?P<guid>\{?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-"
    r"[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}?)$",
    re.IGNORECASE,
)
_HEX = re.compile(r"^hex(?:\((?P<type>[0-9A-Fa-f]+)\))?:(?P<bytes>[0-9A-Fa-f,\s]*)$")
_DWORD = re.compile(r"^dword:(?P<value>[0-9A-Fa-f]{1,8})$", re.IGNORECASE)
_TYPE_NAMES = {0: "REG_NONE", 1: "REG_SZ", 2: "REG_EXPAND_SZ", 3: "REG_BINARY", 4: "REG_DWORD",
               5: "REG_DWORD_BIG_ENDIAN", 7: "REG_MULTI_SZ", 11: "REG_QWORD"}
# Byte count, byte order and the bytes of 42 of each integer type, for the error that names the fix.
_SIZES = {
    4: (4, "least significant first", "hex(4):2a,00,00,00"),
    5: (4, "most significant first", "hex(5):00,00,00,2a"),
    11: (8, "least significant first", "hex(b):2a,00,00,00,00,00,00,00"),
}


@dataclass
class RegValue:
    key: str
    name: str  # "" for the key's default value (@)
    type: str
    value: int | str | bytes | list[str] | None  # None: a deletion ("Name"=-)
    line: int
    column: int


def decode(data: bytes, path: str) -> tuple[str, str]:
    """The text of a .reg file and its format (HEADER_V5 or HEADER_V4)."""
    if data.startswith(codecs.BOM_UTF16_LE):
        text = data[2:].decode("utf-16-le", "replace")
    elif data.startswith(codecs.BOM_UTF16_BE):
        text = data[2:].decode("utf-16-be", "replace")
    elif data.startswith(codecs.BOM_UTF8):
        text = data[3:].decode("utf-8", "replace")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", "replace")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first == HEADER_V5:
        return text, HEADER_V5
    if first == HEADER_V4:
        return text, HEADER_V4
    raise SourceError(path, f"not a regedit export: the first line is not '{HEADER_V5}' or '{HEADER_V4}'")


def _logical_lines(text: str):
    """(line number, column offset, text) of each logical line, continuations joined."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        number, line = index + 1, lines[index]
        index += 1
        if "=hex" not in line.lower():
            yield number, line
            continue
        parts = []  # joined once: growing one string per continuation was quadratic
        while line.rstrip().endswith("\\") and index < len(lines):
            parts.append(line.rstrip()[:-1])
            line = lines[index].strip()
            index += 1
        parts.append(line)
        yield number, "".join(parts)


def _quoted(text: str, start: int, path: str, line: int) -> tuple[str, int]:
    """A regedit quoted string starting at ``text[start] == '"'``: (value, index after it)."""
    out = []
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if char == '"':
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise SourceError(path, "unterminated quoted string", line, start + 1)


def _hex_value(kind: int, raw: bytes, ansi: bool):
    if kind in (1, 2):
        text = raw.decode("cp1252" if ansi else "utf-16-le", "replace")
        return text.split("\x00", 1)[0]
    if kind == 7:
        text = raw.decode("cp1252" if ansi else "utf-16-le", "replace")
        return [part for part in text.split("\x00") if part]
    if kind == 4 and len(raw) == 4:
        return int.from_bytes(raw, "little")
    if kind == 5 and len(raw) == 4:
        return int.from_bytes(raw, "big")
    if kind == 11 and len(raw) == 8:
        return int.from_bytes(raw, "little")
    return raw


def _check_size(kind: int, raw: bytes, path: str, line: int, column: int) -> None:
    """A REG_DWORD or REG_QWORD of the wrong length is an error: read as bytes it
    would be skipped as a type the model does not have, and the value would be lost
    without the export being called malformed."""
    if kind not in _SIZES or len(raw) == _SIZES[kind][0]:
        return
    size, order, example = _SIZES[kind]
    raise SourceError(
        path,
        f"{_TYPE_NAMES[kind]} data (hex({kind:x}):) must be exactly {size} bytes, this line has {len(raw)}: "
        f"give all {size} bytes, {order} (42 is {example}), or export the key again with regedit",
        line,
        column,
    )


def _check_text(kind: int, raw: bytes, ansi: bool, path: str, line: int, column: int) -> None:
    """String data (hex(1), hex(2), hex(7)) of a version 5 export is UTF-16 LE: an odd
    number of bytes, or a lone surrogate, is no text regedit wrote; decoded leniently
    it became U+FFFD in the imported value, with no word of it."""
    if ansi or kind not in (1, 2, 7):
        return
    if len(raw) % 2:
        raise SourceError(path, f"{_TYPE_NAMES[kind]} data (hex({kind:x}):) is UTF-16, two bytes a character: this "
                                f"line has {len(raw)} bytes; export the key again with regedit", line, column)
    try:
        raw.decode("utf-16-le")
    except UnicodeDecodeError as exc:
        raise SourceError(path, f"{_TYPE_NAMES[kind]} data (hex({kind:x}):) is not UTF-16 text (byte {exc.start + 1}"
                                f" of {len(raw)}: {exc.reason}); export the key again with regedit", line, column) \
            from None


def parse_reg(path: str | Path, data: bytes) -> list[RegValue]:
    path = str(path)
    text, header = decode(data, path)
    ansi = header == HEADER_V4
    values: list[RegValue] = []
    key: str | None = None
    header_seen = False
    for number, line in _logical_lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if not header_seen:
            header_seen = True  # the header line, checked by decode()
            continue
        column = len(line) - len(line.lstrip()) + 1
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                raise SourceError(path, "key line without a closing ']'", number, column)
            key = stripped[1:-1]
            if key.startswith("-"):  # [-KEY]: regedit deletes the key (and its subkeys)
                values.append(RegValue(key, "", "delete-key", None, number, column))
            continue
        if key is None:
            raise SourceError(path, "value before any [key] line", number, column)
        if stripped.startswith("@="):
            name, rest = "", stripped[2:]
        elif stripped.startswith('"'):
            name, end = _quoted(stripped, 0, path, number)
            if stripped[end : end + 1] != "=":
                raise SourceError(path, "expected '=' after the value name", number, column + end)
            rest = stripped[end + 1 :]
        else:
            raise SourceError(path, f"cannot read this line: '{stripped[:40]}'", number, column)
        rest = rest.strip()
        value_column = column + len(stripped) - len(rest)
        if rest == "-":
            values.append(RegValue(key, name, "delete", None, number, column))
        elif rest.startswith('"'):
            value, end = _quoted(rest, 0, path, number)
            if rest[end:].strip():
                raise SourceError(path, "unexpected text after the string value", number, value_column + end)
            values.append(RegValue(key, name, "REG_SZ", value, number, column))
        elif _DWORD.match(rest):
            values.append(RegValue(key, name, "REG_DWORD", int(_DWORD.match(rest)["value"], 16), number, column))
        elif _HEX.match(rest):
            match = _HEX.match(rest)
            kind = int(match["type"], 16) if match["type"] else 3
            digits = [b for b in re.split(r"[,\s]+", match["bytes"]) if b]
            if any(len(b) != 2 for b in digits):
                raise SourceError(path, "hex data must be comma-separated bytes (two hex digits each)", number, value_column)
            raw = bytes(int(b, 16) for b in digits)
            _check_size(kind, raw, path, number, value_column)
            _check_text(kind, raw, ansi, path, number, value_column)
            values.append(RegValue(key, name, _TYPE_NAMES.get(kind, f"hex({kind:x})"), _hex_value(kind, raw, ansi), number, column))
        else:
            raise SourceError(path, f"unknown value data '{rest[:40]}'", number, value_column)
    return values


def import_reg(path: str | Path, data: bytes, collector: Collector) -> None:
    """What regedit would leave in the registry, read as it applies the file: keys and
    value names compared case-insensitively, a value written again replacing the
    earlier one, a ``[-KEY]`` line deleting the key with the values written so far."""
    path = str(path)
    fragments: dict[str, Fragment] = {}
    written: dict[str, dict[str, tuple[str, object, Origin]]] = {}  # key -> value name -> (name, value, where)
    skipped_keys: dict[str, Origin] = {}
    shown: dict[str, str] = {}  # key -> the key as first written
    for value in parse_reg(path, data):
        origin = Origin(path, value.line, value.column)
        if value.key.startswith("-"):
            gone = value.key[1:].casefold()
            dropped = [k for k in written if k == gone or k.startswith(gone + "\\")]
            for key in dropped:
                collector.warn(origin, f"[{value.key}] deletes [{shown[key]}] and the values written "
                                       "to it above: they are not imported")
                del written[key]
            if not dropped and "\\msexchangeis" in gone:
                collector.warn(origin, f"[{value.key}] deletes a key: an import adds and updates values, it "
                                       "removes none an earlier import wrote; delete those by hand")
            continue
        match = _STORE_KEY.match(value.key)
        if match is None:
            skipped_keys.setdefault(value.key, origin)
            continue
        label = f"[{value.key}] {value.name or '@'}"
        if value.type == "delete":
            collector.warn(origin, f"{label}: a deletion (=-) is not a setting: skipped")
            continue
        if value.name == "":
            collector.warn(origin, f"{label}: the key's default value is not a store setting: skipped")
            continue
        if not isinstance(value.value, (int, str)):
            collector.warn(origin, f"{label}: {value.type} values are not in the input model (integers and strings only): skipped")
            continue
        key = value.key.casefold()
        if key not in fragments:
            public = match["type"].lower() == "public"
            kind = "PublicFolderDatabase" if public else "MailboxDatabase"
            guid = normalize_guid(match["guid"])
            server = match["server"]
            fragment = Fragment(kind, None, origin, guid=guid, placeholder=f"{server}\\{match['type']}-{guid}")
            fragment.if_new.append((("spec", "server"), server, origin))
            if public:
                fragment.if_new.append((("spec", "guid"), guid, origin))
            shown[key] = value.key
            fragments[key] = fragment
        values = written.setdefault(key, {})
        earlier = values.get(value.name.casefold())
        if earlier is not None:
            collector.warn(earlier[2], f"{label}: written again on line {value.line}; the later value is imported, "
                                       "as regedit applies it")
        # the value keeps the name as first written (regedit updates the existing value)
        values[value.name.casefold()] = (earlier[0] if earlier else value.name, value.value, origin)
    for key, values in written.items():
        fragment = fragments[key]
        for name, data_value, origin in values.values():
            fragment.set(("spec", "registry", name), data_value, origin)
        collector.add(fragment)
    for key, origin in skipped_keys.items():
        collector.warn(origin, f"values under [{key}] skipped: only MSExchangeIS\\<server>\\Public-<GUID> and Private-<GUID> keys are imported")
