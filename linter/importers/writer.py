"""Writing imported documents as YAML, and updating an existing output directory.

New documents go to ``servers/<name>.yaml``, ``stores/<name>.yaml``,
``mailbox-databases/<name>.yaml`` and ``organization.yaml``; each imported value
carries an end-of-line comment naming the file(s) it came from
(``# from GetExchangeServer.xml``).

Documents already in the output directory (any ``*.yaml``/``*.yml`` file under it,
wherever the admin keeps them) are updated in place with ruamel.yaml's round-trip
mode: only values that changed are rewritten, everything else (comments, order,
quoting, fields the importer does not know) is kept, and a file with no change is
not rewritten at all.
"""
from __future__ import annotations

from linter.atomic import read_only, stage
from linter.loading import refusal, walked_folder
from linter.schema import KINDS
from linter.suffixes import YAML_SUFFIXES
from linter.textsafe import printable

import codecs
import datetime
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

import yaml as pyyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, ScalarString
from ruamel.yaml.tokens import CommentToken

from .documents import API_VERSION, EXPECTED, NAME_FIELDS, REQUIRED, Document, Item, Leaf, dotted, normalize_guid
from .errors import Origin, SourceError
from .exchange import TRANSPORT_CONFIG
from .values import duration_ticks

KIND_DIRS = {"Server": "servers", "PublicFolderDatabase": "stores", "MailboxDatabase": "mailbox-databases"}
COMMENT_PREFIX = "from "

# Key order of new content: the input model's order, then the rest sorted.
ORDER: dict[str, list[str]] = {
    "": ["apiVersion", "kind", "metadata", "spec"],
    "metadata": ["name", "labels"],
    "Server": ["version", "servicePack", "site", "adminGroup", "roles", "dag", "cluster", "receiveConnectors", "sendConnectors"],
    "PublicFolderDatabase": ["server", "hierarchy", "guid", "created", "emailAddress", "registry", "replication", "referrals"],
    "MailboxDatabase": ["server", "defaultPublicFolderDatabase", "registry"],
    "Organization": ["hierarchies", "adminGroups", "sites", "siteLinks", "routing", "transportConfig"],
    "routing": ["PFReplicaAgeThreshold", "PFReplicaAgeThresholdHours"],
    "transportConfig": list(TRANSPORT_CONFIG),
    "receiveConnectors": ["name", "ConnectionTimeout", "ConnectionInactivityTimeout"],
    "sendConnectors": ["name", "ConnectionInactivityTimeOut"],
    "sites": ["name"],
    "adminGroups": ["name", "siteFolderServer"],
}
_YAML11 = pyyaml.resolver.Resolver()


MAX_STEM = 100  # file names stay far below NAME_MAX (255 bytes) with atomic_write's temporary prefix


def file_stem(name: str) -> str:
    """A file name for a document named ``name``; a name too long for one (a
    300-character server name) is cut and keeps a hash of the whole name, so two
    long names sharing a start still get files of their own."""
    stem = re.sub(r"[^a-z0-9._-]+", "-", name.casefold()).strip("-.")
    if len(stem) > MAX_STEM:
        digest = hashlib.sha256(name.casefold().encode("utf-8", "surrogatepass")).hexdigest()[:10]
        stem = stem[:MAX_STEM - 11].rstrip("-.") + "-" + digest
    if stem.split(".")[0] in _WINDOWS_RESERVED:  # stores/con.yaml cannot be checked out on Windows
        stem = "_" + stem
    return stem or "unnamed"


_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


def default_path(kind: str, name: str) -> Path:
    if kind == "Organization":
        return Path("organization.yaml")
    return Path(KIND_DIRS.get(kind, kind.lower()), file_stem(name) + ".yaml")


def _order_key(context: str, key: str) -> tuple[int, str]:
    order = ORDER.get(context, [])
    return (order.index(key), "") if key in order else (len(order), str(key).casefold())


def _context(path: tuple, depth: int, kind: str) -> str:
    """Which ORDER list governs the keys of the mapping at ``path[:depth]``."""
    if depth == 0:
        return ""
    if depth == 1:
        return "metadata" if path[0] == "metadata" else kind
    previous = path[depth - 1]
    if isinstance(previous, Item):
        return path[depth - 2]
    return previous


def _path_sort_key(kind: str, path: tuple) -> tuple:
    parts = []
    for depth, step in enumerate(path):
        if isinstance(step, Item):
            parts.append((1, step.key))
        else:
            parts.append(_order_key(_context(path, depth, kind), step))
    return tuple(parts)


def needs_quotes(text: str) -> bool:
    """True if a YAML 1.1 reader (PyYAML) would not read ``text`` back as this string
    (``12:00:00`` is a base-60 integer there, ``yes`` a boolean)."""
    return _YAML11.resolve(pyyaml.ScalarNode, text, (True, False)) != "tag:yaml.org,2002:str"


def _yaml_value(value: Any, like: Any = None) -> Any:
    if isinstance(value, list):
        seq = CommentedSeq(value)
        seq.fa.set_flow_style()
        return seq
    if isinstance(value, str):
        if isinstance(like, ScalarString):
            return type(like)(value)  # keep the admin's quoting style
        if needs_quotes(value):
            return DoubleQuotedScalarString(value)
    return value


def same_value(path: tuple, old: Any, new: Any) -> bool:
    """Whether an existing value already says what the import says."""
    if isinstance(new, bool) or isinstance(old, bool):
        return isinstance(old, bool) and isinstance(new, bool) and old == new
    if isinstance(new, int):
        return isinstance(old, int) and old == new
    if isinstance(new, list):
        return isinstance(old, list) and sorted(str(v).casefold() for v in old) == sorted(v.casefold() for v in new)
    if isinstance(new, datetime.date):
        text = old.isoformat() if isinstance(old, (datetime.date, datetime.datetime)) else str(old)
        return text[:10] == new.isoformat()
    if old is None or isinstance(old, (dict, list)):
        return False
    old_text = str(old)
    if old_text == new:
        return True
    if path[-1] in NAME_FIELDS or path[-1] == "guid":
        return old_text.casefold() == new.casefold()
    new_ticks = duration_ticks(new)
    return new_ticks is not None and duration_ticks(old_text) == new_ticks


def _comment_text(leaf: Leaf) -> str:
    # printable: a source file named "x\nspec:\n  key: 1.reg" must stay inside the comment
    return "# " + COMMENT_PREFIX + printable(", ".join(leaf.labels))


def _set_comment(node: Any, key: Any, leaf: Leaf) -> None:
    """Put ``# from …`` after the value of ``key``; an admin's own comment there is kept."""
    entry = node.ca.items.setdefault(key, [None, None, None, None])
    token = entry[2]
    text = _comment_text(leaf)
    if token is None:
        entry[2] = CommentToken(" " + text + "\n", CommentMark(0))
        return
    first, newline, rest = token.value.partition("\n")
    stripped = first.strip()
    if stripped and not stripped.startswith("# " + COMMENT_PREFIX):
        return
    entry[2] = CommentToken(" " + text + newline + rest if newline else " " + text + "\n", CommentMark(0))


_PLACEHOLDER = re.compile(r"\\(?:Public|Private)-\{?([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-"
                          r"[0-9A-Fa-f]{12})\}?$")


@dataclass
class YamlFile:
    """One YAML file of the output directory and the edits an import makes to it.

    A value that changed in place is patched in the file's text (that line only);
    any other change (a new key, a new connector, a new document) re-emits the
    documents it touches through ruamel.yaml's round-trip emitter, and the file's
    other documents, its leading comments and its first ``---`` (or its absence)
    are copied as they are.
    """

    path: Path  # relative to the output directory
    documents: list[Any]
    text: str | None = None  # None for a new file
    explicit_start: bool = False
    indent: tuple[int, int, int] = (2, 4, 2)
    changed: bool = False
    dirty: set[int] = field(default_factory=set)  # positions of the documents to re-emit
    patches: dict[int, str] = field(default_factory=dict)
    bom: bool = False
    foreign: int = 0  # 1-based position of the first document that is not an exlint document (0: none)
    # The document being updated: edits deep inside it (_set_path) only say "structural",
    # and this says which document that re-emits.
    current: int = 0
    loaded: list[Any] = field(default_factory=list)  # the documents as read, before new ones were added
    # an empty or comment-only file the import writes into: its text (an admin's notes) is kept
    # as it is and the new documents follow it
    comment_only: bool = False

    def structural_change(self) -> None:
        self.changed = True
        self.dirty.add(self.current)

    def replace_value(self, node: Any, key: Any, old: Any, new: Any, comment: str | None) -> None:
        """Replace an existing scalar value (and its ``# from`` comment) in place."""
        node[key] = _yaml_value(new, old)
        self.changed = True
        line_text = self._patchable_line(node, key)
        if line_text is None:
            self.structural_change()
            return
        line, column, text, ending = line_text
        end = _scalar_end(text, column)
        if end is None or not _span_is(text[column:end], old):
            self.structural_change()
            return
        quote = text[column] if text[column] in "'\"" else None
        rest = text[end:]
        if comment is not None:
            rest = _merged_comment(rest, comment)
            if rest is None:
                self.structural_change()
                return
        self.patches[line] = text[:column] + _render_scalar(new, quote) + rest + ending

    def _patchable_line(self, node: Any, key: Any) -> tuple[int, int, str, str] | None:
        if self.text is None or self.current in self.dirty or getattr(node, "fa", None) is None or node.fa.flow_style():
            return None
        try:
            line, column = node.lc.value(key)
        except (AttributeError, KeyError, TypeError):
            return None
        lines = self.text.splitlines(keepends=True)
        if line >= len(lines) or line in self.patches:
            return None
        raw = lines[line]
        text = raw.rstrip("\r\n")
        return line, column, text, raw[len(text):]

    def render(self) -> str:
        text = None
        if self.text is not None:
            lines = self.text.splitlines(keepends=True)
            for line, replacement in self.patches.items():
                lines[line] = replacement
            text = "".join(lines)
        if not self.dirty and text is not None:
            return "\ufeff" * self.bom + text
        spliced = self._spliced(text) if text is not None else None
        return "\ufeff" * self.bom + (spliced if spliced is not None else self._dumped())

    def _spliced(self, text: str) -> str | None:
        """The file's text with only the changed documents re-emitted and new ones
        added at the end (None: a file whose documents this cannot tell apart)."""
        loaded = len(self.loaded)
        if not loaded or len(self.documents) < loaded or any(
            now is not then for now, then in zip(self.documents, self.loaded)
        ):
            return None
        split = _split_documents(text)
        if split is None or len(split[1]) != loaded:
            return None
        preamble, segments = split
        newline = "\r\n" if "\r\n" in text else "\n"
        out = [preamble]
        for position, segment in enumerate(segments):
            if position not in self.dirty:
                out.append(segment)
                continue
            marker, body = _marker_line(segment)
            if body is None or any(_END.match(line) for line in segment.splitlines()):
                return None  # the emitter would drop a "..." that ends the document
            dumped = _without_marker_comment(self._dump([self.documents[position]], False), marker)
            out.append(marker + dumped.replace("\n", newline))
        for document in self.documents[loaded:]:
            if not out[-1].endswith("\n"):
                out[-1] += newline
            out.append(("---\n" + self._dump([document], False)).replace("\n", newline))
        return "".join(out)

    def _dump(self, documents: list[Any], explicit_start: bool) -> str:
        stream = StringIO()
        _yaml(self.indent, explicit_start).dump_all(documents, stream)
        return stream.getvalue()

    def _dumped(self) -> str:
        """The whole file re-emitted (a new file, or one _spliced cannot follow)."""
        if self.comment_only and self.text is not None:
            newline = "\r\n" if "\r\n" in self.text else "\n"
            head = self.text if self.text.endswith("\n") else self.text + newline
            return head + self._dump(self.documents, True).replace("\n", newline)
        dumped = self._dump(self.documents, self.explicit_start or len(self.documents) > 1)
        preamble = _preamble(self.text).replace("\r\n", "\n")
        dumped = dumped if dumped.startswith(preamble) else preamble + dumped
        if self.text and "\r\n" in self.text:
            dumped = dumped.replace("\n", "\r\n")
        return dumped


@dataclass
class FileChange:
    path: Path
    status: str  # created | updated | unchanged
    documents: list[str]


@dataclass
class Incomplete:
    kind: str
    name: str
    path: Path
    missing: list[str]

    @property
    def message(self) -> str:
        return (
            f"{self.kind} {self.name}: the sources do not give {', '.join(self.missing)}, "
            "which the input model requires: fill it in (a re-import keeps it)"
        )


@dataclass
class WriteResult:
    changes: list[FileChange] = field(default_factory=list)
    incomplete: list[Incomplete] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _guess_indent(text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) indentation of an existing file, for ruamel.yaml:
    the first nested mapping and the first block sequence under a key decide."""
    mapping = sequence = offset = None
    previous: tuple[int, str] | None = None
    for line in text.splitlines():
        content = line.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        indent = len(line) - len(content)
        if previous is not None and previous[1].endswith(":"):
            dash = re.match(r"-( +)\S", content)
            if dash and sequence is None:
                offset = indent - previous[0]
                sequence = offset + 1 + len(dash.group(1))
            elif not content.startswith("-") and indent > previous[0] and mapping is None:
                mapping = indent - previous[0]
        previous = (indent, content.split(" #")[0].rstrip())
    if sequence is None:
        return mapping or 2, 4, 2
    return mapping or 2, max(sequence, offset + 2), max(offset, 0)


def _yaml(indent: tuple[int, int, int] = (2, 4, 2), explicit_start: bool = False) -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    y.explicit_start = explicit_start
    return y


class OutputTree:
    """The output directory: its existing documents, and the changes an import makes."""

    KINDS = ("Organization", "Server", "PublicFolderDatabase", "MailboxDatabase", "PublicFolder")

    def __init__(self, root: Path):
        self.root = root
        self.files: dict[Path, YamlFile] = {}
        self.index: dict[tuple[str, str], tuple[YamlFile, int]] = {}
        self.guids: dict[tuple[str, str], str] = {}
        self.organization: tuple[YamlFile, int] | None = None

    @classmethod
    def load(cls, root: Path) -> "OutputTree":
        tree = cls(root)
        if not root.exists():
            return tree
        if not root.is_dir():
            raise SourceError(str(root), "the output path exists and is not a directory")
        paths = []
        for directory, dirnames, filenames in os.walk(root):
            # as every walk of exlint's: a virtualenv's or node_modules' YAML is not the estate's
            # (a project venv holds exlint's own example Organization, which import would update)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and walked_folder(os.path.join(directory, d)))
            paths += [Path(directory, f) for f in filenames if f.endswith(YAML_SUFFIXES) and not f.startswith(".")]
        for path in sorted(paths):
            tree._load_file(path)
        return tree

    def _load_file(self, path: Path) -> None:
        reason = refusal(path, self.root)  # a link out of the output directory, a FIFO, a device
        if reason is not None:
            raise SourceError(str(path), f"cannot update this existing file: {reason}")
        try:
            data = path.read_bytes()
            bom = data.startswith(codecs.BOM_UTF8)
            text = data[len(codecs.BOM_UTF8) if bom else 0 :].decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SourceError(str(path), f"cannot read existing output file: {exc}") from None
        try:
            # ruamel.yaml keeps the "\r" of a CRLF line in the comments it reads, and a
            # re-emitted file would then end such lines in "\r\r\n"
            documents = list(_yaml().load_all(text.replace("\r\n", "\n")))
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            raise SourceError(str(path), f"cannot update this existing YAML file: {exc.problem or exc}", line, column) from None
        except YAMLError as exc:
            raise SourceError(str(path), f"cannot update this existing YAML file: {exc}") from None
        first = next((l.strip() for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")), "")
        relative = path.relative_to(self.root)
        foreign = next((n for n, doc in enumerate(documents, start=1)
                        if doc is not None and not _exlint_document(doc)), 0)
        yaml_file = YamlFile(relative, documents, text, first.startswith("---"), _guess_indent(text), bom=bom,
                             foreign=foreign, loaded=list(documents))
        self.files[relative] = yaml_file
        for position, doc in enumerate(documents):
            if not isinstance(doc, dict) or doc.get("kind") not in self.KINDS:
                continue
            metadata = doc.get("metadata")
            name = metadata.get("name") if isinstance(metadata, dict) else None
            if doc["kind"] == "Organization" and self.organization is None:
                self.organization = (yaml_file, position)
            if not isinstance(name, str):
                continue
            self.index.setdefault((doc["kind"], name.casefold()), (yaml_file, position))
            spec = doc.get("spec")
            guid = spec.get("guid") if isinstance(spec, dict) else None
            if isinstance(guid, str):
                self.guids.setdefault((doc["kind"], normalize_guid(guid)), name)
            # a store an earlier import named after its registry key (no capture yet) holds
            # its GUID in its name: the capture that comes later finds it there
            placeholder = _PLACEHOLDER.search(name)
            if placeholder:
                self.guids.setdefault((doc["kind"], normalize_guid(placeholder.group(1))), name)

    @property
    def organization_name(self) -> str | None:
        if self.organization is None:
            return None
        yaml_file, position = self.organization
        metadata = yaml_file.documents[position].get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        return name if isinstance(name, str) else None

    def mapi_hierarchies(self) -> list[tuple[str, "Origin"]]:
        """Names (and positions) of the MAPI hierarchies of the existing Organization."""
        if self.organization is None:
            return []
        yaml_file, position = self.organization
        spec = yaml_file.documents[position].get("spec")
        hierarchies = spec.get("hierarchies") if isinstance(spec, dict) else None
        found = []
        for item in hierarchies if isinstance(hierarchies, list) else []:
            if isinstance(item, dict) and str(item.get("type", "")).upper() == "MAPI" and isinstance(item.get("name"), str):
                try:
                    line, column = item.lc.line + 1, item.lc.col + 1
                except AttributeError:
                    line, column = 1, 1
                found.append((str(item["name"]), Origin(str(self.root / yaml_file.path), line, column)))
        return found

    # Applying documents ---------------------------------------------------------

    def _find(self, doc: Document) -> tuple[YamlFile, int] | None:
        if doc.kind == "Organization":
            return self.organization
        found = self.index.get((doc.kind, doc.name.casefold()))
        if found is None:
            guid = next((leaf.value for path, leaf in doc.values.items() if path == ("spec", "guid")), doc.guid)
            other = self.guids.get((doc.kind, normalize_guid(guid))) if isinstance(guid, str) else None
            if other is not None:
                found = self.index.get((doc.kind, other.casefold()))
        return found

    def apply(self, documents: list[Document], result: WriteResult) -> None:
        touched: dict[Path, list[str]] = {}
        for doc in documents:
            found = self._find(doc)
            if found is None:
                data = self._render(doc)
                path = default_path(doc.kind, doc.name)
                yaml_file = self.files.get(path)
                if yaml_file is None:
                    yaml_file = self.files[path] = YamlFile(path, [])
                if all(existing is None for existing in yaml_file.documents):
                    yaml_file.documents.clear()  # an empty or comment-only file
                    yaml_file.comment_only = bool(yaml_file.text and yaml_file.text.strip())
                yaml_file.documents.append(data)
                yaml_file.current = len(yaml_file.documents) - 1
                yaml_file.structural_change()
                if len(yaml_file.documents) > 1:
                    yaml_file.explicit_start = True  # a file with several documents
            else:
                yaml_file, position = found
                data = yaml_file.documents[position]
                yaml_file.current = position
                self._update(data, doc, result, yaml_file)
            touched.setdefault(yaml_file.path, []).append(f"{doc.kind} {doc.name}")
            missing = [dotted(p) for p in REQUIRED.get(doc.kind, []) if _lookup(data, p) is None]
            if missing:
                result.incomplete.append(Incomplete(doc.kind, doc.name, yaml_file.path, missing))
            unstated = [(dotted(p), rule) for p, rule in EXPECTED.get(doc.kind, []) if _lookup(data, p) is None]
            if unstated:
                result.warnings.append(
                    f"{self.root / yaml_file.path}: warning: {doc.kind} {doc.name}: the sources do not give "
                    + ", ".join(f"{field} ({rule} reports it missing)" for field, rule in unstated)
                    + ": fill it in (a re-import keeps it)")
        for path in sorted(touched):
            yaml_file = self.files[path]
            status = "unchanged" if not yaml_file.changed else "created" if yaml_file.text is None else "updated"
            result.changes.append(FileChange(path, status, touched[path]))
        self.check_targets()

    def check_targets(self) -> None:
        """SourceError, before anything is written, when a file the import would
        write must not be written: an existing file holding YAML that is not
        exlint's (an import writes only into exlint documents), a folder or other
        non-file in the way, a folder leading out of the output directory."""
        real_root = os.path.realpath(self.root)
        for yaml_file in self.files.values():
            if not yaml_file.changed:
                continue
            target = self.root / yaml_file.path
            if yaml_file.foreign:
                raise SourceError(str(target), f"holds YAML that is not an exlint document (document "
                                  f"{yaml_file.foreign} has no apiVersion exlint/... and no kind exlint knows), and "
                                  "the import would write into this file: move it aside, or import into another "
                                  "directory; nothing was written")
            for parent in reversed(target.parents):
                if parent == self.root or self.root not in parent.parents:
                    continue
                if (parent.exists() or parent.is_symlink()) and not parent.is_dir():
                    raise SourceError(str(parent), "is in the way of a folder the import writes into: move it "
                                      "aside, or import into another directory; nothing was written")
            real_parent = os.path.realpath(target.parent)
            if real_parent != real_root and not real_parent.startswith(real_root.rstrip(os.sep) + os.sep):
                raise SourceError(str(target.parent), "leads out of the output directory (a link): the import "
                                  "writes only inside it; remove the link, or import into another directory; "
                                  "nothing was written")
            if target.is_symlink() or target.exists():
                if target.is_dir():
                    raise SourceError(str(target), "a directory is in the way of the file the import writes: "
                                      "move it aside, or import into another directory; nothing was written")
                if yaml_file.text is None:  # not there when the directory was read
                    raise SourceError(str(target), "appeared while importing, or is not a regular file: move it "
                                      "aside, or import into another directory; nothing was written")
                # atomic_write refuses a read-only file: found here, not after other files were written
                if read_only(str(target), os.stat(target)):
                    raise SourceError(str(target), "cannot write: the file is read-only; make it writable "
                                      "(chmod u+w), or import into another directory; nothing was written")

    def write(self) -> None:
        self.check_targets()
        # every file is rendered before the first is written: a failure to render
        # one must not leave the others half imported
        rendered = [(self.root / yaml_file.path, yaml_file.render().encode("utf-8"))
                    for yaml_file in self.files.values() if yaml_file.changed]
        # all or none: every file is staged beside its target before the first replaces
        # one, so a folder exlint may not write leaves nothing half imported
        created: list[Path] = []  # folders made for the import, removed again if it fails
        staged = []
        try:
            for target, data in rendered:
                for folder in reversed(target.parents):
                    if not folder.exists() and not folder.is_symlink():
                        folder.mkdir()
                        created.append(folder)
                staged.append(stage(str(target), data, create=True, follow=True))  # links checked: inside the output
        except BaseException:
            for done in staged:
                done.discard()
            for folder in reversed(created):
                try:
                    folder.rmdir()
                except OSError:
                    pass
            raise
        for index, done in enumerate(staged):
            try:
                done.commit()
            except OSError as exc:  # a rename in a folder just written to: the files before it are replaced
                for rest in staged[index + 1:]:
                    rest.discard()
                exc.written = index
                raise

    # New documents ----------------------------------------------------------------

    def _render(self, doc: Document) -> CommentedMap:
        data = CommentedMap()
        data["apiVersion"] = API_VERSION
        data["kind"] = doc.kind
        data["metadata"] = CommentedMap(name=_yaml_value(doc.name))
        data["spec"] = CommentedMap()
        for path in sorted(doc.values, key=lambda p: _path_sort_key(doc.kind, p)):
            _set_path(data, path, doc.values[path], doc.kind, fresh=True)
        return data

    # Existing documents -----------------------------------------------------------

    def _update(self, data: Any, doc: Document, result: WriteResult, yaml_file: YamlFile) -> None:
        metadata = data.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("name"), str):
            if metadata["name"].casefold() != doc.name.casefold():  # renamed (--organization, a store found by GUID)
                yaml_file.replace_value(metadata, "name", metadata["name"], doc.name, None)
        if not isinstance(data.get("spec"), dict):
            if data.get("spec") is not None:
                result.warnings.append(f"{yaml_file.path}: warning: {doc.kind} {doc.name}: spec is not a mapping: not updated")
                return
            data["spec"] = CommentedMap()
            yaml_file.structural_change()
        for path in sorted(doc.values, key=lambda p: _path_sort_key(doc.kind, p)):
            try:
                _set_path(data, path, doc.values[path], doc.kind, fresh=False, yaml_file=yaml_file)
            except _NotAMapping as exc:
                result.warnings.append(
                    f"{yaml_file.path}: warning: {doc.kind} {doc.name}: {exc} is not a mapping or list: "
                    f"{dotted(path)} not updated"
                )


class _NotAMapping(Exception):
    pass


def _exlint_document(doc: Any) -> bool:
    """An exlint document, as ``exlint check`` tells them (linter.loading.scope):
    an ``apiVersion`` of ``exlint/…`` or a kind exlint knows."""
    if not isinstance(doc, dict):
        return False
    api = doc.get("apiVersion")
    return (isinstance(api, str) and api.startswith("exlint/")) or doc.get("kind") in KINDS


def _lookup(data: Any, path: tuple) -> Any:
    node = data
    for step in path:
        if not isinstance(node, dict):
            return None
        node = node.get(step)
    return node


def _find_key(node: dict, key: str) -> Any:
    """The key of ``node`` that is ``key``, exactly or else case-insensitively
    (registry value names are case-insensitive in Windows)."""
    if key in node:
        return key
    folded = key.casefold()
    return next((k for k in node if isinstance(k, str) and k.casefold() == folded), None)


def _insert_ordered(node: CommentedMap, key: str, value: Any, context: str) -> None:
    rank = _order_key(context, key)
    for position, existing in enumerate(node):
        if isinstance(existing, str) and _order_key(context, existing) > rank:
            node.insert(position, key, value)
            return
    node[key] = value


def _set_path(data: CommentedMap, path: tuple, leaf: Leaf, kind: str, fresh: bool, yaml_file: YamlFile | None = None) -> None:
    """Set one imported value in a document (a new one, or one of ``yaml_file``)."""
    node: Any = data
    chain: list = [data]  # the collections from the document down to the one set

    def structural() -> None:
        if yaml_file is not None:
            yaml_file.structural_change()
        _block_style(chain)

    for depth, step in enumerate(path[:-1]):
        following = path[depth + 1]
        if isinstance(step, Item):
            match = next(
                (item for item in node if isinstance(item, dict) and str(item.get("name", "")).casefold() == step.key),
                None,
            )
            if match is None:
                match = CommentedMap()
                node.append(match)
                fresh = True
                structural()
            node = match
            chain.append(node)
            continue
        key = _find_key(node, step)
        child = node.get(key) if key is not None else None
        wanted = CommentedSeq if isinstance(following, Item) else CommentedMap
        if child is None:
            child = wanted()
            if key is None:
                _insert_ordered(node, step, child, _context(path, depth, kind))
            else:
                node[key] = child
            fresh = True
            structural()
        elif not isinstance(child, list if wanted is CommentedSeq else dict):
            raise _NotAMapping(dotted(path[: depth + 1]))
        node = child
        chain.append(node)
    last = path[-1]
    key = _find_key(node, last)
    if key is not None and node.get(key) is not None:
        old = node[key]
        if same_value(path, old, leaf.value):
            if fresh:  # under a collection made here: structural() already wrote the chain in block style
                _set_comment(node, key, leaf)
            return
        if _block_style(chain):  # a flow collection holds no comment: written as a block now
            structural()
        _set_comment(node, key, leaf)
        if yaml_file is None:
            node[key] = _yaml_value(leaf.value, old)
        elif isinstance(leaf.value, list) and isinstance(old, CommentedSeq) and not old.fa.flow_style():
            _update_list(old, leaf.value)  # a block list keeps its layout and the comments on its items
            structural()
        elif isinstance(leaf.value, list) or isinstance(old, (dict, list)):
            node[key] = _yaml_value(leaf.value, old)
            structural()
        else:
            yaml_file.replace_value(node, key, old, leaf.value, _comment_text(leaf))
        return
    value = _yaml_value(leaf.value)
    if key is not None:
        node[key] = value
    else:
        _insert_ordered(node, last, value, _context(path, len(path) - 1, kind))
        key = last
    _set_comment(node, key, leaf)
    structural()


def _block_style(chain: list) -> bool:
    """Write every flow collection of ``chain`` (a document's collections down to one
    being changed) in block style; whether one was. A value import adds or changes
    carries its ``# from SOURCE`` comment, which a flow collection cannot hold: its
    lines came out broken, a comma or a bracket first (``, RejectMessageOnShadowFailure:
    false``), and the admin's comments inside it were lost."""
    changed = False
    for node in chain:
        attributes = getattr(node, "fa", None)
        if attributes is not None and attributes.flow_style():
            attributes.set_block_style()
            changed = True
    return changed


def _update_list(seq: CommentedSeq, new: list) -> None:
    """Make the block list ``seq`` hold the items of ``new`` (compared
    case-insensitively) where it is: an item that stays keeps its place, its text
    and its comment; one that goes takes its comment along; a new one comes after
    the item it follows in ``new``."""
    wanted = {str(value).casefold() for value in new}
    entries = [(item, seq.ca.items.get(i)) for i, item in enumerate(seq) if str(item).casefold() in wanted]
    present = {str(item).casefold() for item, _ in entries}
    for position, value in enumerate(new):
        if value.casefold() in present:
            continue
        before = {str(v).casefold() for v in new[:position]}
        at = max((i + 1 for i, (item, _) in enumerate(entries) if str(item).casefold() in before), default=0)
        entries.insert(at, (_yaml_value(value), None))
        present.add(value.casefold())
    tail = _list_tail(seq)
    del seq[:]
    seq.ca.items.clear()
    for position, (item, comments) in enumerate(entries):
        seq.append(item)
        if comments is not None:
            seq.ca.items[position] = comments
    if tail is not None and entries:
        _put_list_tail(seq, tail)


def _list_tail(seq: CommentedSeq) -> CommentToken | None:
    """The comment lines below a block list, which ruamel.yaml keeps in the comment
    of its last item: taken off it, they go back under the list's new last item."""
    comments = seq.ca.items.get(len(seq) - 1)
    token = comments[0] if comments else None
    if token is None or "\n" not in token.value.rstrip("\n"):
        return None
    first, _, tail = token.value.partition("\n")
    comments[0] = CommentToken(first + "\n", token.start_mark) if first.strip() else None
    return CommentToken(tail, token.start_mark)


def _put_list_tail(seq: CommentedSeq, tail: CommentToken) -> None:
    comments = seq.ca.items.setdefault(len(seq) - 1, [None, None, None, None])
    token = comments[0]
    text = token.value if token is not None else "\n"
    comments[0] = CommentToken(text + tail.value, token.start_mark if token is not None else tail.start_mark)


# Text patches ---------------------------------------------------------------------

_SAFE = YAML(typ="safe", pure=True)


def _scalar_end(text: str, column: int) -> int | None:
    """Where the scalar starting at ``column`` ends on its line (None: not a one-line scalar)."""
    if column >= len(text):
        return None
    quote = text[column]
    if quote == "'":
        i = column + 1
        while i < len(text):
            if text[i] == "'":
                if text[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        return None
    if quote == '"':
        i = column + 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == '"':
                return i + 1
            i += 1
        return None
    if quote in "|>[{&*!":
        return None
    comment = text.find(" #", column)
    end = comment if comment != -1 else len(text)
    return column + len(text[column:end].rstrip())


def _span_is(span: str, old: Any) -> bool:
    """Whether the text at the value's position really is the whole old value."""
    try:
        return _SAFE.load(span) == old
    except YAMLError:
        return False


def _render_scalar(value: Any, quote: str | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str):
        return str(value)
    if quote == "'":
        return "'" + value.replace("'", "''") + "'"
    if quote == '"' or needs_quotes(value):
        return json.dumps(value, ensure_ascii=False)
    stream = StringIO()
    _yaml().dump({"k": value}, stream)
    rendered = stream.getvalue().rstrip("\n")[3:]
    return rendered if "\n" not in rendered else json.dumps(value, ensure_ascii=False)


def _merged_comment(rest: str, comment: str) -> str | None:
    """The text after a patched value: an importer comment updated, an admin's kept."""
    match = re.match(r"^(\s*)(#.*)?$", rest)
    if match is None:
        return None
    spaces, existing = match.groups()
    if existing is None:
        return "  " + comment
    if existing.startswith("# " + COMMENT_PREFIX):
        return spaces + comment
    return rest


def _preamble(text: str | None) -> str:
    """Comment lines before a file's first ``---``, which ruamel.yaml does not keep."""
    if not text:
        return ""
    lines = []
    for line in text.splitlines(keepends=True):
        if re.match(r"^---(\s|$)", line):
            return "".join(lines)
        if line.strip() and not line.lstrip().startswith("#"):
            return ""
        lines.append(line)
    # a comment-only file: its comments stay above the document the import adds
    kept = "".join(lines).rstrip("\r\n")
    return kept + "\n" if kept.strip() else ""


# Re-emitting only the documents that changed --------------------------------------

_MARKER = re.compile(r"---(?=[ \t\r\n]|$)")
_END = re.compile(r"\.\.\.(?=[ \t\r\n]|$)")


def _split_documents(text: str) -> tuple[str, list[str]] | None:
    """A file's text cut into what comes before its first document (comments,
    directives) and the text of each document, from its ``---`` to the next one;
    None when a document follows a ``...`` without a ``---`` of its own (the cut
    would not follow the parser)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    ended = False
    for line in lines:
        if _MARKER.match(line):
            ended = False
        elif _END.match(line):
            ended = True
        elif ended and line.strip() and not line.lstrip().startswith(("#", "%")):
            return None
    starts = [number for number, line in enumerate(lines) if _MARKER.match(line)]
    head = lines[: starts[0]] if starts else lines
    if any(line.strip() and not line.lstrip().startswith(("#", "%")) for line in head):
        starts.insert(0, 0)  # the first document has no "---"
    if not starts:
        return None
    segments = ["".join(lines[start:end]) for start, end in zip(starts, starts[1:] + [len(lines)])]
    return "".join(lines[: starts[0]]), segments


def _marker_line(segment: str) -> tuple[str, str | None]:
    """(the ``---`` line of a document's text, with its line end; the rest), or
    ("", segment) without one; the rest is None when the document starts on the
    ``---`` line itself (``--- {a: 1}``, ``--- !tag``): it cannot be kept apart."""
    if not _MARKER.match(segment):
        return "", segment
    line, newline, rest = segment.partition("\n")
    after = line[3:].strip()
    if after and not after.startswith("#"):
        return "", None
    return line + newline, rest


def _without_marker_comment(dumped: str, marker: str) -> str:
    """ruamel.yaml moves a comment on a ``---`` line to a line of its own below
    it; the original ``---`` line is kept, so that copy goes."""
    comment = marker[3:].strip()
    first, newline, rest = dumped.partition("\n")
    if comment and newline and first.strip() == comment:
        return rest
    return dumped
