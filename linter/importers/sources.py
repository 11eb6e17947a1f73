"""Finding import sources and telling their kinds apart.

A file named on the command line is always read; its kind comes from its
content: a regedit header makes a ``.reg`` export, an XML root ``<Objs>`` a
CLIXML capture, an XML root ``<configuration>`` an ``EdgeTransport.exe.config``.
Anything else is an error. In a directory, files are taken by extension
(``.xml``, ``.clixml``, ``.config``, ``.reg``) and the rest (READMEs, licences)
is passed over, as is well-formed XML of another kind (a report); hidden files
and directories are skipped.
"""
from __future__ import annotations

import codecs
import os
from pathlib import Path

from linter.loading import read_regular, walked_folder

from .documents import Collector
from .edge_config import import_edge_config
from .errors import Origin, SourceError
from .exchange import import_clixml
from .regfile import HEADER_V4, HEADER_V5, import_reg
from .xmlsafe import parse_xml

EXTENSIONS = {".xml", ".clixml", ".config", ".reg"}


def discover(sources: list[str], named: set[Path] | None = None) -> tuple[list[Path], list[SourceError]]:
    """Files to import, sorted and without duplicates, and errors for missing paths.
    ``named`` (when given) receives the files named themselves, not found in a directory."""
    files: set[Path] = set()
    errors: list[SourceError] = []
    for source in sources:
        path = Path(source)
        if path.is_file() and named is not None:
            named.add(path)
        if path.is_dir():
            for directory, dirnames, filenames in os.walk(path):
                # as every walk of exlint's: no hidden folder, version control, node_modules or virtualenv
                dirnames[:] = [d for d in dirnames if not d.startswith(".") and walked_folder(os.path.join(directory, d))]
                for filename in filenames:
                    candidate = Path(directory, filename)
                    if not filename.startswith(".") and candidate.suffix.lower() in EXTENSIONS:
                        files.add(candidate)
        elif path.exists():
            files.add(path)
        else:
            errors.append(SourceError(source, "no such file or directory"))
    # one capture named twice (./a.xml and its absolute path, or a link to it) is read once:
    # the path that is not a link is kept, else the first in order
    chosen: dict[str, Path] = {}
    for candidate in sorted(files, key=lambda p: (os.path.islink(p), str(p))):
        chosen.setdefault(os.path.realpath(candidate), candidate)
    if named is not None:
        named &= set(chosen.values())
    return sorted(chosen.values(), key=lambda p: str(p)), errors


def _is_reg(data: bytes) -> bool:
    head = data[:200]
    if head.startswith(codecs.BOM_UTF16_LE):
        text = head[2:].decode("utf-16-le", "ignore")
    elif head.startswith(codecs.BOM_UTF16_BE):
        text = head[2:].decode("utf-16-be", "ignore")
    else:
        text = head.removeprefix(codecs.BOM_UTF8).decode("latin-1")
    text = text.lstrip()
    return text.startswith(HEADER_V5) or text.startswith(HEADER_V4)


def read_source(path: Path, collector: Collector, walked: bool = False) -> None:
    """Import one file into ``collector``; raises SourceError. ``walked``: found in a
    directory given as a source (not named itself)."""
    try:
        data = read_regular(path)  # a FIFO or /dev/zero among the sources is refused, not read
    except OSError as exc:
        raise SourceError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    if _is_reg(data):
        import_reg(path, data, collector)
        return
    if not data.strip(b"\x00\t\r\n \xef\xbb\xbf\xff\xfe"):
        raise SourceError(str(path), "empty file")
    stripped = data.lstrip(b"\xef\xbb\xbf\xff\xfe\x00\t\r\n ")
    if not stripped.startswith(b"<"):
        raise SourceError(
            str(path),
            "unknown file type: not XML (CLIXML or EdgeTransport.exe.config) nor a regedit .reg export",
        )
    root = parse_xml(path, data)
    if root.tag == "Objs":
        import_clixml(path, data, collector, root)
    elif root.tag == "configuration":
        import_edge_config(path, data, collector, root)
    elif walked:
        # another tool's XML next to the captures (a HealthChecker report): passed over as a
        # README is; named on the command line it is an error
        collector.warn(Origin(str(path), root.line, root.column),
                       f"not a capture exlint imports (root element <{root.tag}>, neither a CLIXML <Objs> nor a "
                       ".config <configuration>): skipped")
    else:
        raise SourceError(
            str(path),
            f"unknown XML file: root element <{root.tag}> is neither a CLIXML <Objs> nor a .config <configuration>; "
            "capture the cmdlet's output with Export-Clixml, or leave the file out",
            root.line,
            root.column,
        )
