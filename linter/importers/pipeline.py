"""The import as a whole: read every source, merge, update the output directory."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .documents import Collector, Conflict, Fragment, Item, merge
from .errors import ImportWarning, Origin, SourceError
from .sources import discover, read_source
from .writer import FileChange, Incomplete, OutputTree, WriteResult


@dataclass
class ImportResult:
    errors: list[SourceError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    incomplete: list[Incomplete] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    write_started: bool = False

    @property
    def exit_code(self) -> int:
        """2: a source or the output could not be read (nothing written);
        1: conflicts (everything else written); 0: imported."""
        if self.errors:
            return 2
        return 1 if self.conflicts else 0


def _organization_name(explicit: str | None, tree: OutputTree, collector: Collector,
                       output: Path) -> tuple[str, str | None]:
    """The Organization document's name, and a warning when the sources did not
    settle it. Several organizations: the one most servers of the sources belong
    to, first those a server capture describes (a connector capture may come from
    another lab), then any (ties: alphabetical). None at all: the output
    directory's name."""
    if explicit:
        return explicit, None
    existing = tree.organization_name
    if existing:
        return existing, None
    seen = sorted(collector.organizations.values(), key=lambda item: (-len(item[3]), -len(item[2]), item[0].casefold()))
    if len(seen) == 1:
        return seen[0][0], None
    if seen:
        counts = ", ".join(f"{name} ({len(servers)} server(s))" for name, _, servers, _ in seen)
        return seen[0][0], f"the sources name several organizations: {counts}; the one most servers belong to"
    name = output.resolve().name or "exchange"
    return name, "no source names the organization (only a Get-* capture's DistinguishedName does); the output directory's name"


def _organization_lists(collector: Collector, tree: OutputTree) -> None:
    """When an Organization document is written anyway, list in it the AD sites and
    administrative groups the servers name (the references the linter resolves)."""
    if tree.organization is None and not any(f.kind == "Organization" for f in collector.fragments):
        return
    fragment = Fragment("Organization", None, Origin(str(tree.root / "organization.yaml")))
    for server in [f for f in collector.fragments if f.kind == "Server"]:
        for path, value, origin in server.values:
            if path in (("spec", "site"), ("spec", "adminGroup")):
                field = "sites" if path[1] == "site" else "adminGroups"
                fragment.set(("spec", field, Item(value), "name"), value, origin)
    collector.add(fragment)


def _mapi_hierarchy(collector: Collector, tree: OutputTree) -> None:
    """Exchange 2007 and 2010 public folder databases (Get-PublicFolderDatabase) hold
    the MAPI hierarchy only: name it from the Organization in the output directory,
    when that defines exactly one."""
    found = tree.mapi_hierarchies()
    if len(found) != 1:
        return
    name, origin = found[0]
    for fragment in collector.fragments:
        if fragment.mapi_store:
            fragment.set(("spec", "hierarchy"), name, origin)


def run_import(sources: list[str], output: Path, organization: str | None = None, dry_run: bool = False) -> ImportResult:
    result = ImportResult()
    named: set[Path] = set()
    files, result.errors = discover(sources, named)
    result.sources = files
    if not files and not result.errors:
        result.errors.append(SourceError(", ".join(sources) or ".", "no import sources found (.xml, .clixml, .config or .reg files)"))
    collector = Collector()
    for path in files:
        try:
            read_source(path, collector, walked=path not in named)
        except SourceError as exc:
            result.errors.append(exc)
    try:
        tree = OutputTree.load(output)
    except SourceError as exc:
        result.errors.append(exc)
        return result
    if result.errors:
        return result

    _organization_lists(collector, tree)
    _mapi_hierarchy(collector, tree)
    org_name, why = _organization_name(organization, tree, collector, output)
    merged = merge(collector.fragments, org_name, tree.guids)
    renames: dict[tuple[str, str], list] = {}
    for kind, old, new, origin in merged.renamed:
        renames.setdefault((kind, old), []).append((new, origin))
    for (kind, old), news in renames.items():
        collector.warnings.append(ImportWarning(
            min(origin for _, origin in news),
            f"{len(news)} {kind} stores share the name '{old}' (Exchange 2007 names databases per server and "
            f"storage group): imported as {', '.join(f'{new!s}' for new, _ in news)}, one document each; other "
            "documents (replica lists) must name them so"))
    if why and any(doc.kind == "Organization" for doc in merged.documents):
        collector.warnings.append(
            ImportWarning(Origin(str(output / "organization.yaml")), f"{why}: the Organization is named '{org_name}'; use --organization NAME to choose another")
        )
    written = WriteResult()
    tree.apply(merged.documents, written)
    if not dry_run:
        result.write_started = True
        try:
            tree.write()
        except OSError as exc:
            replaced = getattr(exc, "written", 0)  # files already replaced (tree.write stages all first)
            outcome = (f"{replaced} other file(s) were written: run the import again once it can write"
                       if replaced else "nothing was written: make the folder writable, or import into another "
                       "directory")
            result.errors.append(SourceError(str(exc.filename or output),
                                             f"cannot write: {exc.strerror or exc}; {outcome}"))
            result.write_started = bool(replaced)
    result.warnings = [str(w) for w in collector.warnings] + written.warnings
    result.conflicts = merged.conflicts
    result.incomplete = written.incomplete
    result.changes = written.changes
    return result
