"""A small, non-evaluating deserializer of PowerShell CLIXML (``Export-Clixml``).

Why not psrpcore's deserializer: see docs/importers.md ("CLIXML"). In short, it
parses with the standard library's ElementTree (not defusedxml) after cutting the
namespace out of the text, needs a remoting cipher object, pulls in
``cryptography``, rehydrates into its own PS* types, and keeps no positions.

The XML is parsed by :mod:`.xmlsafe` (defusedxml). Elements handled:
``Obj`` (with ``TN``/``TNRef`` type names, ``ToString``, ``Props``, ``MS``,
``LST``/``IE``/``STK``/``QUE``, ``DCT``), ``Ref`` (``RefId``), ``Nil`` and the
primitives ``S C B DT TS By SB U16 I16 U32 I32 U64 I64 Sg Db D BA G URI Version
XD SBK SS``. Script blocks are kept as text and secure strings are not
decrypted; nothing is ever evaluated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .errors import SourceError
from .values import parse_timespan
from .xmlsafe import Node, parse_xml

_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")
# each integer element's .NET type range: a value outside it is no value that type can hold
_INTEGERS = {"I16": (-2**15, 2**15 - 1), "I32": (-2**31, 2**31 - 1), "I64": (-2**63, 2**63 - 1),
             "U16": (0, 2**16 - 1), "U32": (0, 2**32 - 1), "U64": (0, 2**64 - 1), "By": (0, 255), "SB": (-128, 127)}
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOATS = {"Db", "Sg"}
_STRINGS = {"S", "URI", "XD", "SBK", "Version", "G"}
_COLLECTIONS = {"LST", "IE", "STK", "QUE"}


@dataclass(frozen=True)
class TimeSpan:
    """A System.TimeSpan (``<TS>``), in ticks of 100 ns."""

    ticks: int


@dataclass(frozen=True)
class DateTime:
    """A System.DateTime (``<DT>``), as its ISO 8601 text (``2019-12-03T14:44:44-08:00``)."""

    text: str


@dataclass(eq=False)
class PSObject:
    """An ``<Obj>``: type names, ToString, properties (adapted and extended) and content."""

    node: Node
    type_names: list[str] = field(default_factory=list)
    to_string: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    property_nodes: dict[str, Node] = field(default_factory=dict)
    value: Any = None  # an enum's or an extended primitive's own value
    items: list[Any] | None = None  # LST / IE / STK / QUE
    mapping: dict[Any, Any] | None = None  # DCT

    def __str__(self) -> str:
        return self.to_string if self.to_string is not None else ""

    def get(self, name: str, default: Any = None) -> Any:
        return self.properties.get(name, default)

    def position(self, name: str | None = None) -> tuple[int, int]:
        node = self.property_nodes.get(name, self.node) if name else self.node
        return node.line, node.column

    @property
    def short_types(self) -> list[str]:
        """Type names without the ``Deserialized.``/``Selected.`` prefixes PowerShell adds."""
        names = []
        for name in self.type_names:
            for prefix in ("Deserialized.", "Selected."):
                if name.startswith(prefix):
                    name = name[len(prefix) :]
            names.append(name)
        return names


def _same(a: Any, b: Any) -> bool:
    """Two deserialized values alike (objects by what they show: PSObject compares by identity)."""
    if isinstance(a, PSObject) or isinstance(b, PSObject):
        return isinstance(a, PSObject) and isinstance(b, PSObject) and (a is b or (
            a.to_string == b.to_string and a.properties.keys() == b.properties.keys()
            and all(_same(a.properties[k], b.properties[k]) for k in a.properties)
            and a.value == b.value and a.items == b.items and a.mapping == b.mapping))
    return type(a) is type(b) and a == b


def unescape(text: str) -> str:
    """Undo CLIXML's ``_xHHHH_`` escapes (control characters, surrogate halves)."""
    if "_x" not in text:
        return text
    text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class _Deserializer:
    def __init__(self, path: str):
        self.path = path
        self.objects: dict[str, PSObject] = {}
        self.type_names: dict[str, list[str]] = {}

    def error(self, node: Node, message: str) -> SourceError:
        return SourceError(self.path, message, node.line, node.column)

    def value(self, node: Node) -> Any:
        tag, text = node.tag, node.text
        try:
            if tag == "Obj":
                return self.obj(node)
            if tag == "Ref":
                ref = node.get("RefId")
                if ref not in self.objects:
                    raise self.error(node, f"<Ref RefId=\"{ref}\"> refers to no earlier <Obj>")
                return self.objects[ref]
            if tag == "Nil":
                return None
            if tag in _STRINGS:
                return unescape(text)
            if tag == "B":  # System.Boolean is written true or false; anything else is malformed
                word = text.strip().lower()
                if word not in ("true", "false"):
                    raise ValueError(word)
                return word == "true"
            if tag in _INTEGERS:
                low, high = _INTEGERS[tag]
                if not _INTEGER_TEXT.fullmatch(text.strip()) or not low <= int(text.strip()) <= high:
                    raise ValueError(text)
                return int(text.strip())
            if tag in _FLOATS:
                return float(text.strip())
            if tag == "D":
                return Decimal(text.strip())
            if tag == "C":
                return chr(int(text.strip()))
            if tag == "TS":
                ticks = parse_timespan(text)
                if ticks is None:
                    raise self.error(node, f"<TS> holds '{text}', not a duration")
                return TimeSpan(ticks)
            if tag == "DT":
                return DateTime(text.strip())
            if tag == "BA":
                return text.strip()  # base64, never decoded: nothing here needs it
            if tag == "SS":
                return None  # a SecureString is never decrypted
        except (ValueError, InvalidOperation, OverflowError):
            raise self.error(node, f"<{tag}> holds '{text.strip()}', which is not a valid {tag} value") from None
        return unescape(text)  # an element this deserializer does not know: its text

    def obj(self, node: Node) -> PSObject:
        obj = PSObject(node)
        ref = node.get("RefId")
        if ref is not None:
            self.objects[ref] = obj
        written_in: dict[str, str] = {}  # property -> the container it came from (Props or MS)
        for child in node.children:
            tag = child.tag
            if tag == "TN":
                obj.type_names = [unescape(t.text) for t in child.findall("T")]
                if child.get("RefId") is not None:
                    self.type_names[child.get("RefId")] = obj.type_names
            elif tag == "TNRef":
                obj.type_names = self.type_names.get(child.get("RefId"), [])
            elif tag == "ToString":
                obj.to_string = unescape(child.text)
            elif tag in ("Props", "MS"):
                for prop in child.children:
                    name = unescape(prop.get("N", ""))
                    if tag == "MS" and written_in.get(name) == "Props":
                        continue  # an adapted property wins over an extended one
                    value = self.value(prop)
                    if written_in.get(name) == tag and not _same(obj.properties[name], value):
                        # PowerShell writes a property once per object: one of the two was edited in,
                        # and which of them Exchange holds is unknown (never chosen silently)
                        first = obj.property_nodes[name]
                        raise self.error(prop, f"property {name} is written twice in one object (first on line "
                                               f"{first.line}) with different values: PowerShell writes each "
                                               "property once; keep the right one, or export the object again")
                    written_in[name] = tag
                    obj.properties[name] = value
                    obj.property_nodes[name] = prop
            elif tag in _COLLECTIONS:
                obj.items = [self.value(item) for item in child.children]
            elif tag == "DCT":
                obj.mapping = {}
                for entry in child.findall("En"):
                    key = value = None
                    for part in entry.children:
                        if part.get("N") == "Key":
                            key = self.value(part)
                        elif part.get("N") == "Value":
                            value = self.value(part)
                    obj.mapping[key if not isinstance(key, PSObject) else str(key)] = value
            else:
                obj.value = self.value(child)
        return obj


def load_clixml(path: str | Path, data: bytes | None = None, root: Node | None = None) -> list[Any]:
    """The objects of a CLIXML file (an ``<Objs>`` document), in order."""
    root = root or parse_xml(path, data)
    if root.tag != "Objs":
        raise SourceError(str(path), f"not a CLIXML file: the root element is <{root.tag}>, not <Objs>", root.line, root.column)
    deserializer = _Deserializer(str(path))
    return [deserializer.value(child) for child in root.children]
