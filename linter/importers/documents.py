"""Input-model documents built from import sources, and how sources are merged.

Every source turns what it read into :class:`Fragment` objects: part of one
document (a kind, a name, values at paths inside it, and where each value came
from). :func:`merge` combines all fragments of one document. Two sources that give
different values for the same path are a :class:`Conflict`: the value is reported
and left out, never chosen silently.
"""
from __future__ import annotations

import datetime
import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from .errors import ImportWarning, Origin
from .values import duration_ticks

API_VERSION = "exlint/v1"

# Fields that hold a name or a reference; names compare case-insensitively.
NAME_FIELDS = {"name", "site", "adminGroup", "dag", "server", "defaultPublicFolderDatabase", "hierarchy"}

# Fields each kind must have (the input model's required fields); a document the
# sources cannot complete is still written, and reported.
REQUIRED = {
    "Server": [("spec", "version")],
    "PublicFolderDatabase": [("spec", "server"), ("spec", "hierarchy")],
    "MailboxDatabase": [("spec", "server")],
    "Organization": [],
}

# Fields the input model does not require but whose absence a rule reports (the captures
# often lack them: Get-PublicFolderDatabase carries no e-mail address): said once per import
EXPECTED = {
    "PublicFolderDatabase": [(("spec", "emailAddress"), "HIE004"), (("spec", "created"), "RTE002")],
}


@dataclass(frozen=True)
class Item:
    """A path step that selects the element of a list of named mappings (connectors) by name."""

    name: str = field(compare=False)
    key: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.name.casefold())

    def __str__(self) -> str:
        return f"[{self.name}]"


Path = tuple  # of str and Item


def dotted(path: Path) -> str:
    text = ""
    for step in path:
        text += str(step) if isinstance(step, Item) else (("." if text else "") + step)
    return text


@dataclass
class Fragment:
    """Part of one document, as one source describes it.

    ``name`` is None for a document identified only by ``guid`` (a registry key)
    and for the Organization (one per estate). ``if_new`` values are used only
    when the fragment creates its document (a registry key no other source or
    existing file names); ``placeholder`` is that new document's name.
    """

    kind: str
    name: str | None
    origin: Origin
    values: list[tuple[Path, Any, Origin]] = field(default_factory=list)
    guid: str | None = None
    if_new: list[tuple[Path, Any, Origin]] = field(default_factory=list)
    placeholder: str | None = None
    mapi_store: bool = False  # a store of the MAPI hierarchy by its version (Get-PublicFolderDatabase)
    # a database's place (its server and storage group), and where its default public folder
    # store is: what tells apart stores of one name (Exchange 2007 names them per storage group)
    server: str | None = None
    storage_group: str | None = None
    default_store_place: tuple[str | None, str | None] = (None, None)

    def set(self, path: Path, value: Any, origin: Origin) -> None:
        if value is not None:
            self.values.append((path, value, origin))


@dataclass
class Leaf:
    value: Any
    origins: list[Origin]

    @property
    def labels(self) -> list[str]:
        """The files a value came from, by name; two files of one name (each server's
        EdgeTransport.exe.config) are told apart by their folders."""
        paths = sorted({origin.path for origin in self.origins})
        names = [os.path.basename(path) for path in paths]
        return sorted({(f"{os.path.basename(os.path.dirname(path))}/{name}".lstrip("/")
                        if names.count(name) > 1 else name) for path, name in zip(paths, names)})


@dataclass
class Document:
    kind: str
    name: str
    values: dict[Path, Leaf] = field(default_factory=dict)
    # the store's GUID as its sources give it (a mailbox database has no spec.guid): how an
    # existing document named by a registry key (SERVER\\Private-<GUID>) is found again
    guid: str | None = None


@dataclass
class Conflict:
    kind: str
    name: str
    path: Path
    candidates: list[Leaf]

    def __str__(self) -> str:
        parts = [
            f"{_show(leaf.value)} from {', '.join(str(o) for o in sorted(leaf.origins))}" for leaf in self.candidates
        ]
        first = min(min(leaf.origins) for leaf in self.candidates)
        return f"{first}: conflict: {self.kind} {self.name}: {dotted(self.path)}: " + " vs ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, datetime.date):
        return value.isoformat()
    return repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


def same_key(path: Path, value: Any) -> Any:
    """What two values are compared by: names case-insensitively, durations by
    length, lists as sets."""
    last = path[-1] if path else None
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(sorted(str(v).casefold() for v in value)))
    if isinstance(value, datetime.date):
        return ("date", value.isoformat())
    if isinstance(value, str):
        if last in NAME_FIELDS:
            return ("str", value.casefold())
        ticks = duration_ticks(value)
        return ("duration", ticks) if ticks is not None else ("str", value)
    return ("other", repr(value))


def normalize_guid(guid: str) -> str:
    return guid.strip().strip("{}").lower()


@dataclass
class Collector:
    """What the sources produced: fragments, warnings and organization names seen."""

    fragments: list[Fragment] = field(default_factory=list)
    warnings: list[ImportWarning] = field(default_factory=list)
    # casefolded name -> (name as first seen, where, the servers the sources place in it,
    # those of them a server capture (Get-ExchangeServer, ...) describes)
    organizations: dict[str, tuple[str, Origin, set[str], set[str]]] = field(default_factory=dict)

    def add(self, fragment: Fragment) -> None:
        if fragment.values or fragment.if_new:
            self.fragments.append(fragment)

    def warn(self, origin: Origin, message: str) -> None:
        self.warnings.append(ImportWarning(origin, message))

    def saw_organization(self, name: str, origin: Origin, server: str | None = None, described: bool = False) -> None:
        entry = self.organizations.setdefault(name.casefold(), (name, origin, set(), set()))
        if server:
            entry[2].add(server.casefold())
            if described:
                entry[3].add(server.casefold())


@dataclass
class MergeResult:
    documents: list[Document]
    conflicts: list[Conflict]
    renamed: list[tuple[str, str, str, Origin]] = field(default_factory=list)  # (kind, name, new name, where)


def merge(
    fragments: Iterable[Fragment],
    organization_name: str,
    known_guids: dict[tuple[str, str], str] | None = None,
) -> MergeResult:
    """Combine fragments into documents; values two sources disagree on become conflicts.

    ``known_guids`` maps (kind, GUID) to the name of a document that already has
    that GUID (in the output directory), for fragments identified by GUID alone.
    """
    fragments = list(fragments)
    known_guids = dict(known_guids or {})
    renamed = _name_stores_apart(fragments)
    documents: dict[tuple[str, str], Document] = {}
    candidates: dict[tuple[str, str], dict[Path, dict[Any, Leaf]]] = {}

    def document(kind: str, name: str) -> tuple[str, str]:
        key = (kind, name.casefold())
        if key not in documents:
            documents[key] = Document(kind, name)
            candidates[key] = {}
        return key

    def add_values(key: tuple[str, str], values: list[tuple[Path, Any, Origin]]) -> None:
        for path, value, origin in values:
            groups = candidates[key].setdefault(path, {})
            leaf = groups.setdefault(same_key(path, value), Leaf(value, []))
            leaf.origins.append(origin)

    # 1. Documents named by their sources; remember their GUIDs.
    for fragment in fragments:
        if fragment.kind == "Organization":
            key = document("Organization", organization_name)
        elif fragment.name is not None:
            key = document(fragment.kind, fragment.name)
            if fragment.guid:
                known_guids.setdefault((fragment.kind, normalize_guid(fragment.guid)), fragment.name)
                documents[key].guid = documents[key].guid or normalize_guid(fragment.guid)
        else:
            continue
        add_values(key, fragment.values)

    # 2. Documents identified by GUID alone (registry keys).
    for fragment in fragments:
        if fragment.name is not None or fragment.kind == "Organization":
            continue
        name = known_guids.get((fragment.kind, normalize_guid(fragment.guid or "")))
        if name is None:
            name = fragment.placeholder or normalize_guid(fragment.guid or "")
            known_guids[(fragment.kind, normalize_guid(fragment.guid or ""))] = name
            key = document(fragment.kind, name)
            add_values(key, fragment.if_new)
        else:
            key = document(fragment.kind, name)
        add_values(key, fragment.values)

    conflicts: list[Conflict] = []
    for key, doc in documents.items():
        for path, groups in candidates[key].items():
            leaves = list(groups.values())
            if len(leaves) == 1:
                doc.values[path] = leaves[0]
            else:
                conflicts.append(Conflict(doc.kind, doc.name, path, leaves))
    ordered = sorted(documents.values(), key=lambda d: (d.kind, d.name.casefold()))
    conflicts.sort(key=lambda c: (c.kind, c.name.casefold(), dotted(c.path)))
    return MergeResult(ordered, conflicts, renamed)


STORE_KINDS = ("PublicFolderDatabase", "MailboxDatabase")


def _name_stores_apart(fragments: list[Fragment]) -> list[tuple[str, str, str, Origin]]:
    """Stores of one kind and name with different GUIDs are different stores (Exchange
    2007 names databases per storage group: every server has its "Public Folder
    Database"), and names are unique per kind in the estate: each such store is named
    ``SERVER\\name`` (``SERVER\\storage group\\name`` if that still repeats), as
    Exchange's Identity names it. A mailbox database's default public folder store of
    such a name follows the store it means (its DN's server, else the store on the
    mailbox database's own server). Returns (kind, old name, new name, where) of each rename."""
    by_name: dict[tuple[str, str], list[Fragment]] = {}
    for fragment in fragments:
        if fragment.kind in STORE_KINDS and fragment.name is not None:
            by_name.setdefault((fragment.kind, fragment.name.casefold()), []).append(fragment)
    renamed: list[tuple[str, str, str, Origin]] = []
    new_names: dict[tuple[str, str], dict[str, str]] = {}  # (kind, name) -> server -> new name
    for (kind, _), group in by_name.items():
        guids = {normalize_guid(f.guid) for f in group if f.guid}
        if len(guids) < 2 or any(not f.server for f in group):
            continue
        short = {}
        for fragment in group:
            short.setdefault((fragment.server.casefold(), fragment.name.casefold()), set()).add(
                normalize_guid(fragment.guid or ""))
        for fragment in group:
            old = fragment.name
            if len(short[(fragment.server.casefold(), old.casefold())]) > 1 and fragment.storage_group:
                fragment.name = f"{fragment.server}\\{fragment.storage_group}\\{old}"
            else:
                fragment.name = f"{fragment.server}\\{old}"
            new_names.setdefault((kind, old.casefold()), {})[fragment.server.casefold()] = fragment.name
            if not any(r[:3] == (kind, old, fragment.name) for r in renamed):
                renamed.append((kind, old, fragment.name, fragment.origin))
    if not new_names:
        return renamed
    for fragment in fragments:
        if fragment.kind != "MailboxDatabase":
            continue
        for position, (path, value, origin) in enumerate(fragment.values):
            if path != ("spec", "defaultPublicFolderDatabase") or not isinstance(value, str):
                continue
            choices = new_names.get(("PublicFolderDatabase", value.casefold()))
            if not choices:
                continue
            server = fragment.default_store_place[0] or fragment.server
            chosen = choices.get(server.casefold()) if server else None
            if chosen:
                fragment.values[position] = (path, chosen, origin)
    return renamed
