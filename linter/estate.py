"""The estate: every loaded document, its structural findings, and the model
(tables of records with name indexes and the site graph) that rules run on."""
from __future__ import annotations

from dataclasses import dataclass, field

from linter.findings import Finding
from linter.loading import Document, LoadedFile
from linter.model.records import build_all, build_records
from linter.model.tables import load_tables
from linter.schema import validate_document, with_owner
from linter.topology import SiteGraph, build_site_graph


@dataclass
class Estate:
    files: list[LoadedFile]
    documents: list[Document]
    modelled: list[Document]
    findings: list[Finding]
    tables: dict[str, list[dict]]
    index: dict[str, dict[str, dict]] = field(default_factory=dict)
    organization: dict | None = None
    organization_count: int = 0
    graph: SiteGraph | None = None
    context_documents: int = 0  # documents known only through cached or context records

    @property
    def has_documents(self) -> bool:
        """Whether the estate holds a document, whether or not it could be modelled (an
        unknown kind is still a document: EXL008's "at least one document")."""
        return bool(self.documents) or self.context_documents > 0

    def lookup(self, table: str, name):
        if name is None:
            return None
        return self.index.get(table, {}).get(name)


def record_order(record: dict) -> tuple:
    return (record["_file"], record["_doc"], record["_prefix"])


def default_organization() -> dict:
    """An Organization record holding only documented defaults (no or several orgs)."""
    table = load_tables()["Organization"]

    class _Nowhere:
        file, index, line, column, marks = "", -1, 0, 0, {}

    record = build_records(table, _Nowhere(), {}, "")[0]
    record["_entity"] = None
    return record


def build_model(documents: list[Document], extra: dict[str, list[dict]] | None = None
                ) -> tuple[dict, dict, dict | None, int, SiteGraph]:
    tables = build_all(documents)
    for table, rows in (extra or {}).items():
        tables.setdefault(table, []).extend(rows)
    for rows in tables.values():
        rows.sort(key=record_order)
    index: dict[str, dict[str, dict]] = {}
    for name, rows in tables.items():
        by_name: dict[str, dict] = {}
        for row in rows:
            if row["name"] is not None:
                by_name.setdefault(row["name"], row)  # duplicates: the first wins (EXL006 reports)
        index[name] = by_name
    orgs = tables["Organization"]
    organization = orgs[0] if len(orgs) == 1 else default_organization()
    graph = build_site_graph(
        [row["name"] for row in tables["Site"]],
        [(row["sites"], row["cost"]) for row in tables["SiteLink"]],
    )
    return tables, index, organization, len(orgs), graph


def file_records(loaded: LoadedFile) -> tuple[dict[str, list[dict]], int]:
    """The records of one file's sound documents (for files read only to resolve
    references), and how many documents it holds."""
    sound = [d for d in loaded.documents if validate_document(d)[1]]
    return build_all(sound + named_only(loaded)), len(loaded.documents)


def named_only(loaded: LoadedFile) -> list[Document]:
    """The documents of ``loaded`` whose YAML does not parse but whose kind and name
    were read (Document.partial), as the model knows them: named, every other field
    unread. An Organization is not among them (its lists cannot be read; it still
    counts as the estate's Organization, is_unnamed_organization)."""
    return [d for d in loaded.partial if not is_unnamed_organization(d.data)]


def is_unnamed_organization(data) -> bool:
    """An Organization document that cannot be modelled (no readable name: EXL003's) is
    still the estate's Organization for EXL008, which would otherwise say there is none."""
    return isinstance(data, dict) and data.get("kind") == "Organization"


def build_estate(files: list[LoadedFile], context: dict[str, list[dict]] | None = None,
                 context_documents: int = 0) -> Estate:
    findings: list[Finding] = []
    documents: list[Document] = []
    modelled: list[Document] = []
    unnamed_organizations = 0
    for loaded in files:
        findings.extend(with_owner(f, loaded.documents) if f.rule == "EXL002" else f for f in loaded.findings)
        for document in loaded.documents:
            documents.append(document)
            doc_findings, sound = validate_document(document)
            findings.extend(doc_findings)
            if sound:
                modelled.append(document)
            elif is_unnamed_organization(document.data):
                unnamed_organizations += 1
        modelled.extend(named_only(loaded))
        unnamed_organizations += sum(1 for d in loaded.partial if is_unnamed_organization(d.data))
    tables, index, organization, count, graph = build_model(modelled, context)
    count += unnamed_organizations
    return Estate(files, documents, modelled, findings, tables, index, organization, count, graph,
                  context_documents)
