"""Parse XML sources safely (defusedxml) into a small tree that keeps positions.

Every import source that is XML (CLIXML captures, ``EdgeTransport.exe.config``)
goes through :func:`parse_xml`. defusedxml refuses entity declarations (the
"billion laughs" expansion) and external entities / references (``SYSTEM
"file:///etc/passwd"``); nothing in the document is ever evaluated. Errors are
:class:`SourceError` with a 1-based line and column.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import ParseError
from xml.parsers import expat

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from .errors import SourceError

MAX_DEPTH = 256
_CHUNK = 1 << 16
_TRUNCATION_CODES = {
    expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS],
    expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_TOKEN],
    expat.errors.codes[expat.errors.XML_ERROR_PARTIAL_CHAR],
}


@dataclass(eq=False)
class Node:
    """An XML element: local tag name (namespace dropped), attributes, children, text."""

    tag: str
    attrib: dict[str, str]
    line: int
    column: int
    children: list["Node"] = field(default_factory=list)
    text: str = ""

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attrib.get(name, default)

    def find(self, tag: str) -> "Node | None":
        for child in self.children:
            if child.tag == tag:
                return child
        return None

    def findall(self, tag: str) -> list["Node"]:
        return [child for child in self.children if child.tag == tag]


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


class _Builder:
    """The parser's target: builds :class:`Node` objects and records their positions."""

    def __init__(self, path: str):
        self.path = path
        self.expat = None  # set once the parser exists
        self.stack: list[Node] = []
        self.root: Node | None = None
        self._text: list[str] = []

    def start(self, tag, attrib):
        node = Node(
            _local(tag),
            {_local(k): v for k, v in attrib.items()},
            self.expat.CurrentLineNumber,
            self.expat.CurrentColumnNumber + 1,
        )
        if len(self.stack) >= MAX_DEPTH:
            raise SourceError(self.path, f"XML nested deeper than {MAX_DEPTH} elements", node.line, node.column)
        if self.stack:
            self.stack[-1].children.append(node)
        elif self.root is None:
            self.root = node
        self.stack.append(node)
        self._text = []
        return node

    def data(self, text):
        self._text.append(text)

    def end(self, tag):
        node = self.stack.pop()
        if not node.children:
            node.text = "".join(self._text)
        self._text = []
        return node

    def close(self):
        return self.root


def _refusal(exc: DefusedXmlException) -> str:
    why = "import sources may not declare or reference entities"
    if isinstance(exc, EntitiesForbidden):
        if exc.sysid or exc.pubid:
            target = exc.sysid or exc.pubid
            return f"refusing hostile XML: external entity '{exc.name}' ({target}): {why}"
        return f"refusing hostile XML: entity declaration '{exc.name}' (entity expansion, e.g. 'billion laughs'): {why}"
    if isinstance(exc, ExternalReferenceForbidden):
        return f"refusing hostile XML: external reference to '{exc.sysid or exc.pubid}': {why}"
    if isinstance(exc, DTDForbidden):
        return "refusing XML with a document type declaration"
    return f"refusing hostile XML: {exc}"


def _not_its_encoding(data: bytes) -> bool:
    """Whether XML bytes fail to decode in the encoding they declare (UTF-8 by default;
    a byte-order mark decides first): a Latin-1 file saved over a CLIXML export."""
    import codecs
    import re

    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF8)):
        return False  # expat reads the mark itself
    declared = re.match(rb"<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)[\"']", data[:200])
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        data.decode(encoding)
    except (LookupError, UnicodeDecodeError):
        return True
    return False


def _unknown_encoding(data: bytes) -> tuple[str, int, int]:
    """(message, line, column) for an XML declaration naming an encoding no reader knows
    (``encoding="unicode"``, as PowerShell calls UTF-16): where it is named, and the fix."""
    import re

    for bom, codec, name in ((codecs.BOM_UTF8, "utf-8", "UTF-8"), (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
                             (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16")):
        if data.startswith(bom):
            head, saved = data[len(bom):len(bom) + 800].decode(codec, "replace"), name
            break
    else:
        head, saved = data[:400].decode("latin-1"), None
    found = re.search(r"""encoding\s*=\s*["']([^"']*)["']""", head)
    declared = found.group(1) if found else "?"
    column = found.start(1) + 1 if found else 1
    fix = (f"the file is saved as {saved} (its byte-order mark says so): declare encoding=\"{saved.lower()}\""
           if saved else "declare the encoding the file is saved in (utf-8 or utf-16), or re-save it as UTF-8")
    return f"the XML declaration names an encoding XML readers do not know ('{declared}'): {fix}", 1, column


def parse_xml(path: str | Path, data: bytes | None = None) -> Node:
    """Parse an XML file (or its bytes) into a :class:`Node` tree."""
    path = str(path)
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise SourceError(path, f"cannot read file: {exc.strerror or exc}") from None
    builder = _Builder(path)
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    builder.expat = parser.parser
    try:
        for start in range(0, len(data), _CHUNK):
            parser.feed(data[start : start + _CHUNK])
        root = parser.close()
    except DefusedXmlException as exc:
        raise SourceError(
            path, _refusal(exc), parser.parser.CurrentLineNumber, parser.parser.CurrentColumnNumber + 1
        ) from None
    except LookupError:  # expat asks Python for the declared encoding, which has none of that name
        raise SourceError(path, *_unknown_encoding(data)) from None
    except ParseError as exc:
        line, column = exc.position
        message = expat.ErrorString(exc.code) if exc.code else str(exc)
        if builder.stack and exc.code in _TRUNCATION_CODES:
            open_node = builder.stack[-1]
            message = (
                f"truncated XML: the file ends inside <{open_node.tag}> opened at line {open_node.line}, "
                f"column {open_node.column} ({message}): the export or the copy did not finish; export it again"
            )
        elif exc.code in _TRUNCATION_CODES and line <= 1:
            message = f"empty or truncated XML ({message})"
        else:
            message = f"malformed XML: {message}"
            if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
                message += "; the file is UTF-32, which XML readers need not read: re-save it as UTF-8 or UTF-16"
            elif exc.code == expat.errors.codes[expat.errors.XML_ERROR_INCORRECT_ENCODING]:
                message += ("; its byte-order mark and its XML declaration name different encodings (a file "
                            "re-saved as Unicode keeps encoding=\"utf-8\"): make the declaration say the "
                            "encoding the file is saved in, or re-save it as UTF-8")
            elif exc.code == expat.errors.codes[expat.errors.XML_ERROR_INVALID_TOKEN] and _not_its_encoding(data):
                message += ("; the file's bytes are not in the encoding it declares (UTF-8 unless its XML "
                            "declaration says otherwise): export it again with Export-Clixml, or re-save it as UTF-8")
        raise SourceError(path, message, line, column + 1) from None
    if root is None:
        raise SourceError(path, "no XML element found")
    return root
