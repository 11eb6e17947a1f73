"""The estate report: one self-contained HTML file with server-side SVG charts.

Two steps, so that both engines can use it:

1. **aggregate**: findings -> ``ReportData``, a small plain dict (JSON-able)
   whose size depends on the number of rules, sites, versions and the row caps,
   never on the number of findings. The local engine calls :func:`aggregate`
   on a :class:`linter.runner.Result`. The Spark engine computes the same
   counts with ``groupBy(dimension, severity).count()`` and hands them to
   :func:`assemble`, which builds ``ReportData`` from counts alone.
2. **render**: :func:`render_html` turns a ``ReportData`` into the page. It
   does no counting of findings.

``ReportData`` (every key present; lists sorted as shown)::

    {
      "schema": 1,
      "meta": {"title": str, "generated": "2024-05-01T12:00:00Z",
               "tool": {"name": "exlint", "version": str},
               "engine": "check" | "estate",
               "scope": {"files": int, "documents": int, "paths": [str]}},
      "totals": {"findings": int, "error": int, "warning": int, "info": int},
      # one entry per rule that fired, most findings first, then by rule ID
      "by_rule":    [{"label": "DUP001", "title": str, "family": "DUP",
                      "severity": "error",          # the rule's default severity
                      "count": int, "error": int, "warning": int, "info": int}],
      "by_family":  [{"label": "DUP", "name": "duplicates",   # rule pack file stem, or ""
                      "rules": int, "count", "error", "warning", "info"}],
      # label: AD site name as written / "(organization)" / "(unknown)"; most findings
      # first, the two special buckets last
      "by_site":    [{"label": str, "count", "error", "warning", "info"}],
      # label: Exchange version as written ("2010"); ascending version, then the
      # "(organization)" and "(unknown)" buckets
      "by_version": [{"label": str, "count", "error", "warning", "info"}],
      # at most TOP (20) each, most findings first; never "(organization)"/"(unknown)"
      "top_servers": [{"label": "EX10-LON-01", "site": str, "version": str,
                       "count", "error", "warning", "info"}],
      "top_stores":  [{"label": "PFDB-LON-01", "kind": "PublicFolderDatabase",
                       "server": str, "count", "error", "warning", "info"}],
      # every rule that fired, same order as by_rule, with its documentation
      "rules": [{"id", "title", "severity", "family", "count", "summary",
                 "rationale", "source", "fix_hint"}],
      # None unless an earlier run was given (--compare)
      "comparison": None | {
          "previous": str,                  # what was compared with (a path)
          "previous_total": int, "current_total": int,
          "new_count": int, "fixed_count": int, "unchanged_count": int,
          "limit": int,                     # row cap of "new" and "fixed"
          "by_rule": [{"label": "DUP001", "new": int, "fixed": int}],
          "new":   [finding, ...],          # at most limit rows each, in finding order
          "fixed": [finding, ...]},
      # exlint check: the findings themselves, at most FINDINGS_LIMIT rows in finding
      # order (listed by file, filterable); None from counts alone (exlint estate)
      "findings": None | [finding, ...],
      "findings_total": int,
    }

A ``finding`` row is the JSON contract's finding object: ``{"rule",
"severity", "message", "file", "line", "column", "path", "entity": {"kind",
"name"} | None}``.

Each finding is located on a server, a site and a version through its entity:
a ``Server`` directly; a ``PublicFolderDatabase`` or ``MailboxDatabase`` via
its ``server``; a ``PublicFolder`` via the server of its first replica store
(that store is also the folder's store for "top stores"). ``Organization``
entities go to ``(organization)``; no entity, or a name that resolves to
nothing, to ``(unknown)``. Store counts include the findings of the store
itself and of the folders whose first replica it is.

The page has no external resource: inline CSS, inline SVG, and a few lines
of inline JavaScript (sortable and filterable tables; the page reads fine
without it). Every chart is ``<svg data-chart="by-rule">`` (by-severity,
by-family, by-rule, by-site, by-version); each bar is ``<rect class="bar"
data-label=… data-value=…>`` (at most MAX_BARS per chart; the tail is merged
into one ``(N more)`` bar).
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from html import escape
from pathlib import Path

from linter.model.names import name_key
from typing import Any, Iterable, Mapping

from linter import __version__
from linter.findings import SEVERITIES, Entity, Finding
from linter.suffixes import JSONL_SUFFIXES, PARQUET_SUFFIXES
from linter.textsafe import visible

ROW_LIMIT = 500
FINDINGS_LIMIT = 5000  # rows of the findings list; the rest is counted, not listed
TOP = 20
MAX_BARS = 40
ORGANIZATION = "(organization)"
UNKNOWN = "(unknown)"
DIMENSIONS = ("rule", "site", "version", "server", "store")
SPECIAL_LABELS = (ORGANIZATION, UNKNOWN)


# --------------------------------------------------------------------------- locating

@dataclass(frozen=True)
class Location:
    server: str
    site: str
    version: str
    store: str | None = None
    store_kind: str | None = None
    store_server: str | None = None


_ORG = Location(ORGANIZATION, ORGANIZATION, ORGANIZATION)
_NOWHERE = Location(UNKNOWN, UNKNOWN, UNKNOWN)


class EstateLocator:
    """Entity -> Location through the estate's name indexes (the local engine)."""

    def __init__(self, estate):
        self._index = getattr(estate, "index", None) or {}
        self._cache: dict[tuple[str, str], Location] = {}
        self._sites = {name: row.get("name__text") or name for name, row in self._index.get("Site", {}).items()}

    def _get(self, table: str, name) -> dict | None:
        if not isinstance(name, str):
            return None
        return self._index.get(table, {}).get(name_key(name))

    def _server(self, name) -> Location:
        row = self._get("Server", name)
        if row is None:
            return _NOWHERE
        site = row.get("site")
        site_label = self._sites.get(site) or row.get("site__text") or UNKNOWN
        return Location(row.get("name__text") or row["name"], site_label, row.get("version__text") or UNKNOWN)

    def _store(self, table: str, name) -> Location:
        row = self._get(table, name)
        if row is None:
            return _NOWHERE
        server = self._server(row.get("server"))
        return Location(server.server, server.site, server.version,
                        row.get("name__text") or row["name"], table, server.server)

    def locate(self, entity) -> Location:
        if entity is None:
            return _NOWHERE
        kind, name = entity.kind, entity.name
        key = (kind, name)
        found = self._cache.get(key)
        if found is not None:
            return found
        if kind == "Organization":
            found = _ORG
        elif kind == "Server":
            found = self._server(name)
        elif kind in ("PublicFolderDatabase", "MailboxDatabase"):
            found = self._store(kind, name)
        elif kind == "PublicFolder":
            row = self._get("PublicFolder", name)
            replicas = [r for r in (row or {}).get("replicas") or [] if r]
            found = self._store("PublicFolderDatabase", replicas[0]) if replicas else _NOWHERE
        else:
            found = _NOWHERE
        self._cache[key] = found
        return found


# --------------------------------------------------------------------------- aggregate

def _empty() -> dict[str, int]:
    return {"count": 0, "error": 0, "warning": 0, "info": 0}


def _rollup(counts: Mapping[tuple[str, str], int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (label, severity), n in counts.items():
        entry = out.setdefault(label, _empty())
        entry["count"] += n
        if severity in SEVERITIES:
            entry[severity] += n
    return out


def _by_count(rows: Mapping[str, dict]) -> list[dict]:
    items = [{"label": label, **row} for label, row in rows.items()]
    items.sort(key=lambda r: (r["label"] in SPECIAL_LABELS, -r["count"], label_sort(r["label"])))
    return items


def label_sort(label: str) -> tuple:
    """Special buckets last; numbers by value; otherwise case-insensitive."""
    special = SPECIAL_LABELS.index(label) + 1 if label in SPECIAL_LABELS else 0
    return (special, _natural(label))


def _natural(text: str) -> tuple:
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", str(text)) if part)


def assemble(counts: Mapping[str, Mapping[tuple[str, str], int]], rules: Mapping[str, Any], *,
             servers: Mapping[str, Mapping[str, str]] | None = None,
             stores: Mapping[str, Mapping[str, str]] | None = None,
             comparison: dict | None = None, meta: Mapping[str, Any] | None = None) -> dict:
    """ReportData from counts alone (what the Spark engine computes with groupBy).

    ``counts[dim][(label, severity)] = n`` for each dimension of DIMENSIONS
    (``rule`` labels are rule IDs; ``store`` has no entry for findings with no
    store). ``servers[label] = {"site", "version"}`` and ``stores[label] =
    {"kind", "server"}`` describe (at least) the top servers and stores.
    ``rules`` maps rule IDs to ``linter.policy.packs.Rule`` objects.
    """
    servers = servers or {}
    stores = stores or {}
    by_rule_rows = _rollup(counts.get("rule", {}))
    totals = {"findings": 0, "error": 0, "warning": 0, "info": 0}
    for row in by_rule_rows.values():
        totals["findings"] += row["count"]
        for severity in SEVERITIES:
            totals[severity] += row[severity]

    by_rule = _by_count(by_rule_rows)
    families: dict[str, dict[str, int]] = {}
    for row in by_rule:
        rule = rules.get(row["label"])
        row["family"] = _family(row["label"])
        row["title"] = getattr(rule, "title", "") or ""
        row["severity"] = getattr(rule, "severity", None) or _worst(row)
        family = families.setdefault(row["family"], {"name": _pack_name(rule), "rules": 0, **_empty()})
        family["rules"] += 1
        for key in ("count", *SEVERITIES):
            family[key] += row[key]
    by_rule = [{"label": r["label"], "title": r["title"], "family": r["family"], "severity": r["severity"],
                "count": r["count"], "error": r["error"], "warning": r["warning"], "info": r["info"]}
               for r in by_rule]

    by_version = [{"label": label, **row} for label, row in _rollup(counts.get("version", {})).items()]
    by_version.sort(key=lambda r: label_sort(r["label"]))

    top_servers = []
    for row in [r for r in _by_count(_rollup(counts.get("server", {}))) if r["label"] not in SPECIAL_LABELS][:TOP]:
        info = servers.get(row["label"], {})
        top_servers.append({"label": row["label"], "site": info.get("site") or "", "version": info.get("version") or "",
                            **{k: row[k] for k in ("count", *SEVERITIES)}})
    top_stores = []
    for row in _by_count(_rollup(counts.get("store", {})))[:TOP]:
        info = stores.get(row["label"], {})
        top_stores.append({"label": row["label"], "kind": info.get("kind") or "", "server": info.get("server") or "",
                           **{k: row[k] for k in ("count", *SEVERITIES)}})

    fired = []
    for row in by_rule:
        rule = rules.get(row["label"])
        fired.append({
            "id": row["label"],
            "title": row["title"],
            "severity": row["severity"],
            "family": row["family"],
            "count": row["count"],
            "summary": getattr(rule, "summary", "") or "",
            "rationale": getattr(rule, "rationale", "") or "",
            "source": rule.source_text() if rule is not None and hasattr(rule, "source_text") else "",
            "fix_hint": getattr(rule, "fix_hint", "") or "",
        })

    meta = dict(meta or {})
    return {
        "schema": 1,
        "meta": {
            "title": meta.get("title") or "exlint report",
            "generated": meta.get("generated") or _now(),
            "tool": meta.get("tool") or {"name": "exlint", "version": __version__},
            "engine": meta.get("engine") or "check",
            "scope": meta.get("scope") or {"files": 0, "documents": 0, "paths": []},
        },
        "totals": totals,
        "by_rule": by_rule,
        "by_family": _by_count(families),
        "by_site": _by_count(_rollup(counts.get("site", {}))),
        "by_version": by_version,
        "top_servers": top_servers,
        "top_stores": top_stores,
        "rules": fired,
        "comparison": comparison,
        # the findings themselves (exlint check): at most FINDINGS_LIMIT rows, in
        # finding order; None when only counts are known (the Spark engine)
        "findings": None,
        "findings_total": totals["findings"],
    }


def _pack_name(rule) -> str:
    pack = getattr(rule, "pack", "") or ""
    return Path(pack).stem if pack else ""


def _family(rule_id: str) -> str:
    match = re.match(r"[A-Za-z]+", rule_id or "")
    return match.group(0).upper() if match else rule_id


def _worst(row: Mapping[str, int]) -> str:
    return next((s for s in SEVERITIES if row.get(s)), "info")


def _now() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (_dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch and epoch.isdigit()
              else _dt.datetime.now(_dt.timezone.utc))
    return moment.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def count_findings(findings: Iterable[Finding], locate) -> tuple[dict, dict, dict]:
    """The per-dimension counts of :func:`assemble`, and server/store descriptions."""
    counts: dict[str, Counter] = {dim: Counter() for dim in DIMENSIONS}
    servers: dict[str, dict] = {}
    stores: dict[str, dict] = {}
    for finding in findings:
        where = locate(finding.entity)
        severity = finding.severity
        counts["rule"][(finding.rule, severity)] += 1
        counts["site"][(where.site, severity)] += 1
        counts["version"][(where.version, severity)] += 1
        counts["server"][(where.server, severity)] += 1
        if where.server not in servers:
            servers[where.server] = {"site": where.site if where.server not in SPECIAL_LABELS else "",
                                     "version": where.version if where.server not in SPECIAL_LABELS else ""}
        if where.store:
            counts["store"][(where.store, severity)] += 1
            stores.setdefault(where.store, {"kind": where.store_kind, "server": where.store_server or ""})
    return counts, servers, stores


def aggregate(result, previous: Iterable[Finding] | None = None, *, previous_label: str = "",
              meta: Mapping[str, Any] | None = None, limit: int = ROW_LIMIT) -> dict:
    """ReportData of a ``linter.runner.Result`` (and of an earlier run's findings)."""
    locator = EstateLocator(getattr(result, "estate", None))
    counts, servers, stores = count_findings(result.findings, locator.locate)
    comparison = None
    if previous is not None:
        comparison = compare(result.findings, previous, label=previous_label, limit=limit)
    scope = {
        "files": getattr(result, "files", 0),
        "documents": getattr(result, "documents", 0),
        "paths": list(getattr(result, "report_paths", None) or []),
    }
    data = assemble(counts, getattr(result, "rules", {}) or {}, servers=servers, stores=stores,
                    comparison=comparison, meta={"scope": scope, **dict(meta or {})})
    data["findings"] = [f.as_dict() for f in result.findings[:FINDINGS_LIMIT]]
    return data


# --------------------------------------------------------------------------- comparison

def compare(current: Iterable[Finding], previous: Iterable[Finding], *, label: str = "",
            limit: int = ROW_LIMIT) -> dict:
    """New and fixed findings by fingerprint (a multiset: two equal fingerprints
    now and one before make one new finding)."""
    from linter.fingerprints import fingerprint

    current = list(current)
    previous = list(previous)
    before = Counter(fingerprint(f) for f in previous)
    now = Counter()
    new: list[Finding] = []
    for finding in current:
        key = fingerprint(finding)
        now[key] += 1
        if now[key] > before[key]:
            new.append(finding)
    seen = Counter()
    fixed: list[Finding] = []
    for finding in previous:
        key = fingerprint(finding)
        seen[key] += 1
        if seen[key] > now[key]:
            fixed.append(finding)
    per_rule: dict[str, dict[str, int]] = {}
    for kind, items in (("new", new), ("fixed", fixed)):
        for finding in items:
            per_rule.setdefault(finding.rule, {"new": 0, "fixed": 0})[kind] += 1
    by_rule = [{"label": rule, **n} for rule, n in per_rule.items()]
    by_rule.sort(key=lambda r: (-(r["new"] + r["fixed"]), r["label"]))
    return {
        "previous": label,
        "previous_total": len(previous),
        "current_total": len(current),
        "new_count": len(new),
        "fixed_count": len(fixed),
        "unchanged_count": len(current) - len(new),
        "limit": limit,
        "by_rule": by_rule,
        "new": [f.as_dict() for f in new[:limit]],
        "fixed": [f.as_dict() for f in fixed[:limit]],
    }


class CompareError(ValueError):
    """An earlier run's findings cannot be read."""


def finding_from_dict(item: Mapping[str, Any]) -> Finding:
    """The finding a record of an earlier run holds; CompareError naming the field
    whose value is of the wrong kind (a path as a list, a line of 1e999), which
    would otherwise fail deep inside the comparison."""
    for key in ("rule", "severity", "message", "file", "path", "entity_kind", "entity_name"):
        _text(item, key)
    entity = item.get("entity")
    if entity is not None and not isinstance(entity, Mapping):
        raise CompareError(f"its 'entity' is {_json_kind(entity)}, not an object with 'kind' and 'name'")
    if isinstance(entity, Mapping):
        for key in ("kind", "name"):
            _text(entity, key, "entity.")
    if isinstance(entity, Mapping) and entity.get("kind") and entity.get("name") is not None:
        entity = Entity(entity["kind"], entity["name"])
    elif item.get("entity_kind") and item.get("entity_name") is not None:  # flattened (Parquet, CSV-like)
        entity = Entity(item["entity_kind"], item["entity_name"])
    else:
        entity = None
    severity = (item.get("severity") or "info").lower()
    return Finding(
        rule=item.get("rule") or "",
        severity=severity if severity in SEVERITIES else "info",
        message=item.get("message") or "",
        file=item.get("file") or None,
        line=_int(item, "line"),
        column=_int(item, "column"),
        path=item.get("path") or None,
        entity=entity,
    )


def _text(item: Mapping[str, Any], key: str, prefix: str = "") -> None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise CompareError(f"its '{prefix}{key}' is {_json_kind(value)}, not text")


def _int(item: Mapping[str, Any], key: str) -> int | None:
    value = item.get(key)
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise TypeError(key)
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e999 is read as infinity
        raise CompareError(f"its '{key}' is {_json_kind(value)}, not a {key} number") from None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and not math.isfinite(value):
        return "a number out of range"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return {list: "a list", dict: "an object"}.get(type(value), f"a {type(value).__name__}")


_JSONL = (*JSONL_SUFFIXES, ".json")  # a --format json file too
_PARQUET = PARQUET_SUFFIXES


def findings_files(path: str | os.PathLike) -> list[Path]:
    """The files :func:`load_findings` reads: ``path`` itself, or the findings
    files below a directory (CompareError when there are none, or no such path)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*")
                       if p.is_file() and not p.name.startswith(("_", "."))
                       and p.suffix.lower() in _JSONL + _PARQUET)
        if not files:
            raise CompareError(f"{path}: no findings files (*.json, *.jsonl, *.parquet) in this directory; "
                               "give the directory an earlier `exlint estate --output` wrote, "
                               "or a --format json file")
        return files
    if path.exists():  # a FIFO or device is refused by _read_json, never waited on
        return [path]
    raise CompareError(f"{path}: no such file or directory")


def _unescape_partition(value: str) -> str:
    """A Hive/Spark partition value as written in a directory name: ``%XX`` decoded
    (as Spark's ExternalCatalogUtils.unescapePathName does)."""
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), value)


def _partition_rule(file: Path, top: Path) -> str | None:
    """The rule of a file in a ``rule=ID/`` directory (``exlint estate --output``
    partitions by rule, so its files carry no ``rule`` column), between ``top``
    and the file; a file named by itself: its own directory."""
    folders = file.parent.relative_to(top).parts if top != file else (file.parent.name,)
    rule = None
    for folder in folders:
        key, sep, value = folder.partition("=")
        if sep and key == "rule" and value:
            rule = _unescape_partition(value)  # the innermost rule=ID wins
    return rule


def load_findings(path: str | os.PathLike) -> list[Finding]:
    """Findings of an earlier run: a ``--format json`` file, a JSON Lines file,
    a Parquet file, or a directory of them (as ``exlint estate --output`` writes;
    searched recursively, ``_``/``.`` files such as ``_SUCCESS`` skipped; a record
    without a ``rule`` takes it from its ``rule=ID/`` partition directory)."""
    path = Path(path)
    files = findings_files(path)
    findings: list[Finding] = []
    for file in files:
        rule = _partition_rule(file, path)
        items = _read_parquet(file) if file.suffix.lower() in _PARQUET else _read_json(file, rule)
        for number, item in enumerate(items, 1):
            if isinstance(item, Mapping) and not item.get("rule") and rule:
                item = {**item, "rule": rule}
            if not isinstance(item, Mapping) or not item.get("rule"):
                raise CompareError(f"{file}: record {number} is not a finding (no 'rule')")
            try:
                findings.append(finding_from_dict(item))
            except CompareError as exc:
                raise CompareError(f"{file}: record {number} is not a finding: {exc}; compare with the "
                                   "findings an exlint run wrote (--format json, or estate --output)") from None
    return findings


def _read_json(file: Path, rule: str | None = None) -> list:
    from linter.baseline import MAX_BYTES
    from linter.loading import read_regular

    try:
        text = read_regular(file, MAX_BYTES).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompareError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    stripped = text.strip()
    if not stripped:
        return []
    try:
        whole = json.loads(stripped)
    except json.JSONDecodeError:
        whole = None
    except (RecursionError, ValueError) as exc:  # nesting too deep, a number too long
        raise CompareError(f"{file}: not exlint findings: {_json_failure(exc)}") from None
    if isinstance(whole, Mapping):
        if isinstance(whole.get("findings"), list):
            return whole["findings"]
        if "rule" in whole or rule:  # one finding (in a rule=ID/ partition: its rule from the directory)
            return [whole]
        raise CompareError(f"{file}: not exlint JSON output (no 'findings' list)")
    if isinstance(whole, list):
        return whole
    items = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CompareError(f"{file}:{number}: not JSON: {exc.msg}") from None
        except (RecursionError, ValueError) as exc:
            raise CompareError(f"{file}:{number}: not exlint findings: {_json_failure(exc)}") from None
    return items


def _json_failure(exc: Exception) -> str:
    return "nesting too deep" if isinstance(exc, RecursionError) else str(exc).split(":")[0]


def _read_parquet(file: Path) -> list:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CompareError(f"{file}: reading Parquet needs pyarrow (pip install pyarrow), or compare with "
                           "JSON Lines findings (exlint estate --output DIR --output-format jsonl)") from None
    try:
        return pq.read_table(file).to_pylist()
    except Exception as exc:  # pyarrow raises several types for a bad file
        raise CompareError(f"{file}: cannot read Parquet: {exc}") from None


# --------------------------------------------------------------------------- render

COLOURS = {"error": "#c62828", "warning": "#d97706", "info": "#2563eb"}
NEUTRAL = "#64748b"
HALF_WIDTH = 540
FULL_WIDTH = 1100
LABEL_WIDTH = 150
VALUE_WIDTH = 70
ROW_HEIGHT = 24
BAR_HEIGHT = 15


def _e(value: Any) -> str:
    # a bidirectional override must not reorder the page, nor a zero-width character hide
    return escape(visible("" if value is None else value, spaces=False), quote=True)


def _short(text: str, width: int = 32) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def _fmt(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")  # thin space: 12 345


def _chart_rows(rows: list[dict], max_bars: int) -> list[dict]:
    if len(rows) <= max_bars:
        return rows
    head, tail = rows[: max_bars - 1], rows[max_bars - 1:]
    merged = {"label": f"({len(tail)} more)", **_empty()}
    for row in tail:
        for key in ("count", *SEVERITIES):
            merged[key] += row.get(key, 0)
    return head + [merged]


def bar_chart(chart: str, title: str, rows: list[dict], *, subtitle: str = "", max_bars: int = MAX_BARS,
              width: int = HALF_WIDTH, label_width: int = LABEL_WIDTH) -> str:
    """A horizontal bar chart, each bar stacked by severity, its total written after it.

    A row's text is its ``display`` (else its ``label``); ``data-label`` is always the label."""
    rows = _chart_rows(rows, max_bars)
    top = 8
    height = top + max(1, len(rows)) * ROW_HEIGHT + 8
    area = width - label_width - VALUE_WIDTH
    chars = max(8, int((label_width - 14) / 6.6))
    peak = max((r["count"] for r in rows), default=0) or 1
    parts = [f'<figure class="chart"><figcaption><span class="chart-title">{_e(title)}</span>'
             + (f' <span class="muted">{_e(subtitle)}</span>' if subtitle else "") + "</figcaption>",
             f'<svg xmlns="http://www.w3.org/2000/svg" data-chart="{_e(chart)}" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="{_e(title)}">']
    if not rows:
        parts.append(f'<text x="{label_width}" y="{top + 16}" class="empty">No findings</text>')
    for i, row in enumerate(rows):
        y = top + i * ROW_HEIGHT
        bar_y = y + (ROW_HEIGHT - BAR_HEIGHT) / 2
        label = str(row["label"])
        shown = str(row.get("display") or label)
        total = int(row["count"])
        length = area * total / peak
        parts.append(f'<g class="row"><text class="label" x="{label_width - 10}" y="{y + ROW_HEIGHT / 2}" '
                     f'text-anchor="end" dominant-baseline="central">{_e(_short(shown, chars))}<title>{_e(shown)}</title></text>')
        x = label_width
        for severity in SEVERITIES:
            n = int(row.get(severity, 0))
            if not n:
                continue
            w = area * n / peak
            parts.append(f'<rect class="seg" data-severity="{severity}" x="{x:.1f}" y="{bar_y:.1f}" '
                         f'width="{w:.1f}" height="{BAR_HEIGHT}" fill="{COLOURS[severity]}"/>')
            x += w
        breakdown = ", ".join(f"{row.get(s, 0)} {s}" for s in SEVERITIES if row.get(s))
        parts.append(f'<rect class="bar" data-label="{_e(label)}" data-value="{total}" x="{label_width}" '
                     f'y="{bar_y:.1f}" width="{length:.1f}" height="{BAR_HEIGHT}" fill="transparent">'
                     f'<title>{_e(label)}: {total}{" (" + _e(breakdown) + ")" if breakdown else ""}</title></rect>')
        parts.append(f'<text class="value" x="{label_width + length + 6:.1f}" y="{y + ROW_HEIGHT / 2}" '
                     f'dominant-baseline="central">{_fmt(total)}</text></g>')
    parts.append(f'<line x1="{label_width}" y1="{top - 2}" x2="{label_width}" y2="{height - 6}" class="axis"/>')
    parts.append("</svg></figure>")
    return "".join(parts)


def severity_chart(totals: Mapping[str, int]) -> str:
    rows = [{"label": s, "count": totals.get(s, 0), s: totals.get(s, 0)} for s in SEVERITIES]
    return bar_chart("by-severity", "Findings by severity", rows)


def _badge(severity: str) -> str:
    severity = severity if severity in SEVERITIES else "info"
    return f'<span class="badge sev-{severity}">{_e(severity)}</span>'


def _counts_cells(row: Mapping[str, int]) -> str:
    cells = [f'<td class="num" data-sort="{row["count"]}"><strong>{_fmt(row["count"])}</strong></td>']
    for severity in SEVERITIES:
        n = row.get(severity, 0)
        cells.append(f'<td class="num{" zero" if not n else ""}" data-sort="{n}">{_fmt(n)}</td>')
    return "".join(cells)


def _table(name: str, head: list[tuple[str, str]], body: list[str], *, filter_label: str = "",
           empty: str = "Nothing to show.", cls: str = "") -> str:
    out = []
    if filter_label and body:
        out.append(f'<input type="search" class="filter" data-filter="{_e(name)}" placeholder="{_e(filter_label)}" '
                   f'aria-label="{_e(filter_label)}">')
    if not body:
        out.append(f'<p class="muted empty-table" data-table="{_e(name)}">{_e(empty)}</p>')
        return "".join(out)
    out.append(f'<div class="table-wrap"><table class="sortable{" " + cls if cls else ""}" data-table="{_e(name)}"><thead><tr>')
    for label, cls in head:
        out.append(f'<th class="{cls}" scope="col">{_e(label)}</th>')
    out.append("</tr></thead><tbody>")
    out.extend(body)
    out.append("</tbody></table></div>")
    return "".join(out)


def _location(finding: Mapping[str, Any]) -> str:
    file = finding.get("file")
    if not file:
        return "&lt;estate&gt;"
    line = finding.get("line")
    return _e(f"{file}:{line}" if line else file)


def _entity(finding: Mapping[str, Any]) -> str:
    entity = finding.get("entity")
    if not entity:
        return '<span class="muted">\u2014</span>'
    return f'<span class="kind">{_e(entity.get("kind"))}</span> {_e(entity.get("name"))}'


def _finding_rows(findings: list[Mapping[str, Any]]) -> list[str]:
    rows = []
    for f in findings:
        rows.append(f'<tr><td><a href="#rule-{_e(str(f.get("rule", "")).lower())}">{_e(f.get("rule"))}</a></td>'
                    f'<td data-sort="{SEVERITIES.index(f.get("severity")) if f.get("severity") in SEVERITIES else 3}">'
                    f'{_badge(f.get("severity", "info"))}</td>'
                    f'<td>{_entity(f)}</td><td class="mono">{_location(f)}</td><td>{_e(f.get("message"))}</td></tr>')
    return rows


FINDING_HEAD = [("Rule", ""), ("Severity", ""), ("Entity", ""), ("Location", ""), ("Message", "")]
COUNT_HEAD = [("Findings", "num"), ("Errors", "num"), ("Warnings", "num"), ("Info", "num")]


def _comparison(comp: Mapping[str, Any]) -> str:
    limit = comp.get("limit", ROW_LIMIT)
    out = ['<section id="comparison" class="section"><h2>Since the earlier run</h2>',
           f'<p class="muted">Compared with <span class="mono">{_e(comp.get("previous") or "an earlier run")}</span>: '
           f'{_fmt(comp.get("previous_total", 0))} finding(s) then, {_fmt(comp.get("current_total", 0))} now. '
           'Findings are matched by fingerprint (rule, entity and setting; not line numbers).</p>',
           '<div class="cards">',
           _card("new", "New", comp.get("new_count", 0), "delta-new"),
           _card("fixed", "Fixed", comp.get("fixed_count", 0), "delta-fixed"),
           _card("unchanged", "Unchanged", comp.get("unchanged_count", 0), "delta-same"),
           "</div>"]
    by_rule = comp.get("by_rule") or []
    if by_rule:
        rows = [f'<tr><td><a href="#rule-{_e(r["label"].lower())}">{_e(r["label"])}</a></td>'
                f'<td class="num" data-sort="{r["new"]}">{_signed(r["new"], "+")}</td>'
                f'<td class="num" data-sort="{r["fixed"]}">{_signed(r["fixed"], MINUS)}</td></tr>'
                for r in by_rule]
        out.append("<h3>By rule</h3>")
        out.append(_table("delta-by-rule", [("Rule", ""), ("New", "num"), ("Fixed", "num")], rows, cls="compact"))
    for kind, title in (("new", "New findings"), ("fixed", "Fixed findings")):
        items = comp.get(kind) or []
        total = comp.get(f"{kind}_count", len(items))
        note = f" (first {_fmt(len(items))} of {_fmt(total)})" if total > len(items) else ""
        out.append(f'<h3 id="{kind}">{title} <span class="muted">{_fmt(total)}{note}</span></h3>')
        out.append(_table(f"{kind}-findings", FINDING_HEAD, _finding_rows(items),
                          filter_label=f"Filter {kind} findings", empty=f"No {kind} findings."))
    if comp.get("new_count", 0) > limit or comp.get("fixed_count", 0) > limit:
        out.append(f'<p class="muted">Lists are capped at {_fmt(limit)} rows; the JSON output has every finding.</p>')
    out.append("</section>")
    return "".join(out)


MINUS = "\u2212"


def _signed(n: int, sign: str) -> str:
    return sign + _fmt(n) if n else "0"


def _card(key: str, label: str, value: int, cls: str) -> str:
    return (f'<div class="card {cls}" data-total="{_e(key)}"><div class="card-label">{_e(label)}</div>'
            f'<div class="card-value" data-value="{int(value)}">{_fmt(int(value))}</div></div>')


def _prose(text: str) -> str:
    """Escaped text with `code` spans (the rule packs' only markup)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _rule_rows(rules: list[Mapping[str, Any]]) -> list[str]:
    rows = []
    for rule in rules:
        rid = str(rule.get("id", ""))
        text = [f'<div class="rule-title">{_e(rule.get("title") or rid)}</div>']
        if rule.get("summary"):
            text.append(f'<p>{_prose(rule["summary"])}</p>')
        if rule.get("rationale"):
            text.append(f'<p class="rationale"><span class="term">Why:</span> {_prose(rule["rationale"])}</p>')
        if rule.get("fix_hint"):
            text.append(f'<p class="rationale"><span class="term">Fix:</span> {_prose(rule["fix_hint"])}</p>')
        severity = rule.get("severity", "info")
        rows.append(f'<tr id="rule-{_e(rid.lower())}"><td class="mono"><strong>{_e(rid)}</strong></td>'
                    f'<td data-sort="{SEVERITIES.index(severity) if severity in SEVERITIES else 3}">{_badge(severity)}</td>'
                    f'<td class="num" data-sort="{rule.get("count", 0)}"><strong>{_fmt(rule.get("count", 0))}</strong></td>'
                    f'<td class="explain">{"".join(text)}</td>'
                    f'<td class="source">{_e(rule.get("source") or "")}</td></tr>')
    return rows


CSS = """
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#ffffff;--panel:#f8fafc;--accent:#0f4c81;
--error:#c62828;--warning:#d97706;--info:#2563eb;--warning-text:#92400e}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 32px 48px}
header.top{border-bottom:3px solid var(--accent);padding-bottom:14px;margin-bottom:20px}
h1{font-size:26px;margin:0 0 4px;letter-spacing:-.01em}
h2{font-size:19px;margin:0 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:18px 0 8px}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
.muted{color:var(--muted);font-weight:normal}
.mono,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
.meta{color:var(--muted);margin:0}
.meta span+span:before{content:"\\00b7";margin:0 8px}
nav.toc{margin:10px 0 0;font-size:13px}
nav.toc a{margin-right:14px}
.section{margin:28px 0;break-inside:avoid-page}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:4px 0 8px}
.card{flex:1 1 150px;border:1px solid var(--line);border-left:5px solid var(--muted);border-radius:6px;
padding:10px 14px;background:var(--panel)}
.card-label{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.card-value{font-size:28px;font-weight:650;line-height:1.2;font-variant-numeric:tabular-nums}
.card.sev-error{border-left-color:var(--error)}.card.sev-error .card-value{color:var(--error)}
.card.sev-warning{border-left-color:var(--warning)}.card.sev-warning .card-value{color:var(--warning-text)}
.card.sev-info{border-left-color:var(--info)}.card.sev-info .card-value{color:var(--info)}
.card.total{border-left-color:var(--accent)}
.card.delta-new{border-left-color:var(--error)}.card.delta-fixed{border-left-color:#15803d}
.card.delta-fixed .card-value{color:#15803d}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:8px 28px}
@media (max-width:900px){.grid{grid-template-columns:1fr}}
figure.chart{margin:0 0 16px}
figure.chart svg{display:block;max-width:100%;height:auto}
figcaption{margin:0 0 4px}
.chart-title{font-weight:600}
svg text{font:12px -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;fill:#374151}
svg text.value{font-weight:600;font-variant-numeric:tabular-nums}
svg text.empty{fill:var(--muted)}
svg .axis{stroke:#9ca3af;stroke-width:1}
svg g.row:hover text.label{fill:#000;font-weight:600}
.legend{display:flex;gap:16px;font-size:12px;color:var(--muted);margin:0 0 10px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.table-wrap{overflow-x:auto}
table.compact{width:auto;min-width:320px}
.kind{display:block;color:var(--muted);font-size:11.5px}
code{background:#f1f5f9;border-radius:3px;padding:0 3px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:6px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--panel);font-weight:600;white-space:nowrap;border-bottom:2px solid #cbd5e1;
position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]:after{content:" \\25B2";font-size:10px}
table.sortable th[aria-sort=descending]:after{content:" \\25BC";font-size:10px}
tbody tr:nth-child(even){background:#fbfcfd}
tbody tr:hover{background:#f1f5f9}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.zero{color:#c0c6ce}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;font-weight:600;color:#fff;
text-transform:uppercase;letter-spacing:.03em}
.badge.sev-error{background:var(--error)}.badge.sev-warning{background:var(--warning)}
.badge.sev-info{background:var(--info)}
td.explain{max-width:560px}
td.explain p{margin:3px 0}
.rule-title{font-weight:600}
.rationale{color:#4b5563;font-size:12.5px}
.term{font-weight:600;color:#374151}
td.source{color:#4b5563;font-size:12.5px;max-width:300px}
tr.group th{text-align:left;background:#f1f5f9;padding-top:10px}
input.filter{margin:0 0 8px;padding:6px 10px;width:min(360px,100%);border:1px solid #cbd5e1;border-radius:5px;font:inherit}
footer{margin-top:36px;padding-top:10px;border-top:1px solid var(--line);color:var(--muted);font-size:12px}
@media print{
 @page{margin:14mm}
 body{font-size:11px}
 main{max-width:none;padding:0}
 input.filter,nav.toc{display:none}
 .grid{grid-template-columns:1fr 1fr}
 figure.chart,tr,.card{break-inside:avoid}
 thead th{position:static}
 a{color:inherit}
 *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
"""

JS = """
(function(){
function key(td){var v=td.getAttribute('data-sort');if(v===null)v=td.textContent.trim();
var n=parseFloat(v.replace(/[\\s\\u202f,]/g,''));return isNaN(n)||!/^[-+\\u2212]?[\\d\\s\\u202f,.]+$/.test(v)?v.toLowerCase():n;}
document.querySelectorAll('table.sortable:not(.grouped)').forEach(function(t){
t.querySelectorAll('thead th').forEach(function(th,i){th.addEventListener('click',function(){
var asc=th.getAttribute('aria-sort')!=='ascending';
t.querySelectorAll('thead th').forEach(function(o){o.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');
var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);
rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);
var r=(typeof a===typeof c)?(a<c?-1:a>c?1:0):(typeof a==='number'?-1:1);return asc?r:-r;});
rows.forEach(function(r){b.appendChild(r);});});});});
document.querySelectorAll('input.filter').forEach(function(inp){
var t=document.querySelector('table[data-table="'+inp.getAttribute('data-filter')+'"]');
inp.addEventListener('input',function(){var q=inp.value.toLowerCase(),head=null,any=false;
function close(){if(head)head.style.display=any?'':'none';}
Array.prototype.forEach.call(t.tBodies[0].rows,function(r){
if(r.classList.contains('group')){close();head=r;any=false;return;}
var show=r.textContent.toLowerCase().indexOf(q)>=0;r.style.display=show?'':'none';if(show)any=true;});
close();});});
document.documentElement.setAttribute('data-ready','1');
})();
"""


def render_html(data: Mapping[str, Any]) -> str:
    """The page of a ReportData (see the module docstring)."""
    meta = data.get("meta") or {}
    totals = data.get("totals") or {}
    tool = meta.get("tool") or {}
    scope = meta.get("scope") or {}
    title = meta.get("title") or "exlint report"
    comparison = data.get("comparison")
    engine = {"check": "exlint check", "estate": "exlint estate"}.get(meta.get("engine"), meta.get("engine") or "")

    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f'<meta name="generator" content="exlint {_e(tool.get("version", ""))}">',
           f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>"]

    scope_bits = []
    if scope.get("files"):
        scope_bits.append(f"{_fmt(scope['files'])} file(s)")
    if scope.get("documents"):
        scope_bits.append(f"{_fmt(scope['documents'])} document(s)")
    if scope.get("records_in") is not None:  # as `exlint estate` prints it
        linted = scope.get("linted", scope["records_in"])
        scope_bits.append(f"{_fmt(scope['records_in'])} record(s) in = {_fmt(linted)} linted + "
                          f"{_fmt(scope['records_in'] - linted)} reported as malformed")
    paths = scope.get("paths") or []
    if paths:
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        scope_bits.append(shown)
    toc = [("summary", "Summary"), ("charts", "Charts"), ("offenders", "Top offenders"), ("rules", "Rules")]
    if data.get("findings") is not None:
        toc.insert(1, ("findings", "Findings"))
    if comparison is not None:
        toc.insert(1, ("comparison", "New and fixed"))
    out.append('<header class="top">'
               f"<h1>{_e(title)}</h1>"
               '<p class="meta">'
               f'<span>Generated {_e(meta.get("generated", ""))}</span>'
               f'<span>{_e(engine)} {_e(tool.get("version", ""))}</span>'
               + "".join(f"<span>{_e(bit)}</span>" for bit in scope_bits)
               + "</p><nav class=\"toc\">"
               + "".join(f'<a href="#{key}">{label}</a>' for key, label in toc)
               + "</nav></header>")

    # summary
    out.append('<section id="summary" class="section"><h2>Summary</h2><div class="cards">')
    out.append(_card("findings", "Findings", totals.get("findings", 0), "total"))
    for severity, label in (("error", "Errors"), ("warning", "Warnings"), ("info", "Info")):
        out.append(_card(severity, label, totals.get(severity, 0), f"sev-{severity}"))
    out.append("</div>")
    rules_fired = data.get("rules") or []
    families = data.get("by_family") or []
    if totals.get("findings"):
        out.append(f'<p class="muted">{_fmt(len(rules_fired))} rule(s) in {_fmt(len(families))} famil'
                   f'{"y" if len(families) == 1 else "ies"} fired.</p>')
    else:
        out.append('<p class="muted">No findings: every rule passed.</p>')
    out.append("</section>")

    if data.get("findings") is not None:
        out.append(_findings_section(data["findings"], data.get("findings_total", len(data["findings"]))))

    if comparison is not None:
        out.append(_comparison(comparison))

    # charts
    legend = ('<div class="legend">' + "".join(f'<span><i style="background:{COLOURS[s]}"></i>{s}</span>'
                                              for s in SEVERITIES) + "</div>")
    by_rule = data.get("by_rule") or []
    out.append('<section id="charts" class="section"><h2>Where the findings are</h2>' + legend)
    out.append('<div class="grid">')
    out.append(severity_chart(totals))
    family_rows = [{**r, "display": f"{r['label']} {r['name']}" if r.get("name") else r["label"]} for r in families]
    out.append(bar_chart("by-family", "By rule family", family_rows,
                         subtitle=f"{len(families)} famil{'y' if len(families) == 1 else 'ies'}"))
    out.append("</div>")
    rule_rows = [{**r, "display": f"{r['label']}  {r['title']}" if r.get("title") else r["label"]} for r in by_rule]
    out.append(bar_chart("by-rule", "By rule", rule_rows, subtitle=f"{len(by_rule)} rule(s)",
                         width=FULL_WIDTH, label_width=400))
    out.append('<div class="grid">')
    sites = data.get("by_site") or []
    out.append(bar_chart("by-site", "By AD site", sites, subtitle=f"{len(sites)} site(s)"))
    versions = data.get("by_version") or []
    out.append(bar_chart("by-version", "By Exchange version", versions, subtitle="of the server involved"))
    out.append("</div></section>")

    # offenders
    out.append('<section id="offenders" class="section"><h2>Most affected servers and stores</h2>')
    servers = data.get("top_servers") or []
    out.append(f'<h3>Top {len(servers)} server(s)</h3>' if servers else "<h3>Servers</h3>")
    rows = [f'<tr><td><strong>{_e(s["label"])}</strong></td><td>{_e(s.get("site"))}</td>'
            f'<td data-sort="{_e(s.get("version"))}">{_e(s.get("version"))}</td>{_counts_cells(s)}</tr>'
            for s in servers]
    out.append(_table("top-servers", [("Server", ""), ("Site", ""), ("Version", "")] + COUNT_HEAD, rows,
                      empty="No finding involves a server."))
    stores = data.get("top_stores") or []
    out.append(f'<h3>Top {len(stores)} store(s)</h3>' if stores else "<h3>Stores</h3>")
    rows = [f'<tr><td><strong>{_e(s["label"])}</strong></td><td>{_e(_kind_label(s.get("kind")))}</td>'
            f'<td>{_e(s.get("server"))}</td>{_counts_cells(s)}</tr>' for s in stores]
    out.append(_table("top-stores", [("Store", ""), ("Kind", ""), ("Server", "")] + COUNT_HEAD, rows,
                      empty="No finding involves a public folder or mailbox database."))
    out.append('<p class="muted">Findings on a store count for its server; findings on a public folder count '
               "for the store of its first replica and that store's server.</p></section>")

    # rules
    out.append('<section id="rules" class="section"><h2>Rules that fired</h2>')
    out.append(_table("rules", [("Rule", ""), ("Severity", ""), ("Findings", "num"), ("What and why", ""),
                                ("Source", "")], _rule_rows(rules_fired),
                      filter_label="Filter rules", empty="No rule fired."))
    out.append("</section>")

    out.append(f'<footer>exlint {_e(tool.get("version", ""))}: Exchange public-folder and transport configuration '
               "linter. This file is self-contained: it can be mailed, archived and printed as is.</footer>")
    out.append(f"</main><script>{JS}</script></body></html>")
    return "".join(out) + "\n"


def _findings_section(findings: list[Mapping[str, Any]], total: int) -> str:
    """Every finding, grouped by file (a header row per file), in a table the
    filter box narrows by any text: a rule ID, a severity, a file, a name."""
    out = ['<section id="findings" class="section"><h2>Findings</h2>']
    if len(findings) < total:
        out.append(f'<p class="muted">The first {_fmt(len(findings))} of {_fmt(total)} findings, by file and line; '
                   "the text or JSON report lists them all.</p>")
    rows, current = [], object()
    per_file = Counter(f.get("file") or "<estate>" for f in findings)
    for f in findings:
        file = f.get("file") or "<estate>"
        if file != current:
            current = file
            count = per_file[file]
            rows.append(f'<tr class="group"><th colspan="5" scope="rowgroup" class="mono">{_e(file)} '
                        f'<span class="muted">({_fmt(count)})</span></th></tr>')
        rows.append(f'<tr class="finding sev-{_e(f.get("severity"))}"><td class="mono">{_location(f)}</td>'
                    f'<td><a href="#rule-{_e(str(f.get("rule", "")).lower())}">{_e(f.get("rule"))}</a></td>'
                    f'<td>{_badge(f.get("severity", "info"))}</td><td>{_e(f.get("message"))}</td>'
                    f'<td>{_entity(f)}</td></tr>')
    out.append(_table("findings", [("Location", ""), ("Rule", ""), ("Severity", ""), ("Message", ""),
                                   ("Entity", "")], rows, filter_label="Filter findings (rule, severity, file, text)",
                      empty="No findings.", cls="grouped"))
    out.append("</section>")
    return "".join(out)


def _kind_label(kind: str | None) -> str:
    return {"PublicFolderDatabase": "Public folder store", "MailboxDatabase": "Mailbox database"}.get(kind or "", kind or "")


def render(result, colour: bool = False) -> str:
    """The reporter interface: ``--compare`` findings come as ``result.compare_findings``."""
    previous = getattr(result, "compare_findings", None)
    data = aggregate(result, previous, previous_label=getattr(result, "compare_label", "") or "")
    return render_html(data)
