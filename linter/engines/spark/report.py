"""The estate report from aggregates computed in Spark: findings are placed on
servers, sites, versions and stores with joins (a folder by the server of its
first replica's store), counted with groupBy, and only the small results (per
rule, site, version, the top servers and stores, capped new/fixed lists) reach
the driver, where linter.reports.html assembles and renders them. Mirrors
linter.reports.html.EstateLocator and count_findings (the local engine's path).
"""
from __future__ import annotations

import itertools

from linter.engines.spark.model import first_of_each_name
from linter.engines.spark.sqltext import q, string
from linter.model.names import name_key_sql
from linter.reports.html import ORGANIZATION, ROW_LIMIT, TOP, UNKNOWN, assemble

STORE_KINDS = ("PublicFolderDatabase", "MailboxDatabase")


def _F():
    from pyspark.sql import functions

    return functions


# the columns placing reads from each kind's first record of a name
PLACING_COLUMNS = {
    "Site": ("name", "name__text"),
    "Server": ("name", "name__text", "site", "site__text", "version__text"),
    "PublicFolderDatabase": ("name", "name__text", "server"),
    "MailboxDatabase": ("name", "name__text", "server"),
}
# the model tables placing reads (folders are ranked by placed_sql itself)
PLACED_KINDS = (*PLACING_COLUMNS, "PublicFolder")


def placed_sql(findings: str, views: dict[str, str], firsts: dict[str, str] | None = None) -> str:
    """SQL of the findings (view ``findings``) with server, site, version and store
    columns, the model tables read from ``views`` (kind -> view name).

    Of namesakes, the first by file, document and position is the one placed, as the
    engines resolve duplicate names. ``firsts`` (kind -> Model.dedup_view: the first
    record of each name, kept, as rules navigate) saves ranking sites, servers and
    stores again; folders, a million at 100,000 servers, are ranked here, and only
    those the findings name.

    One statement, analysed once: built with DataFrame calls, each a round trip to
    the JVM and an analysis of the plan so far, placing took ~1 s of a fresh run on
    the bundled sample, more than running it."""
    unknown, org = string(UNKNOWN), string(ORGANIZATION)
    firsts = firsts or {}

    def first_by_name(table: str, wanted: str | None = None) -> str:
        columns = PLACING_COLUMNS.get(table)
        if table in firsts and columns:
            return ("SELECT `_k_est` AS `_est`, "
                    + ", ".join(f"`_k_rec`.{q(c)} AS {q(c)}" for c in columns) + f" FROM {q(firsts[table])}")
        if wanted is None:
            return first_of_each_name(q(views[table]))
        return first_of_each_name(f"(SELECT r.* FROM {q(views[table])} AS r LEFT SEMI JOIN {wanted} AS w "
                                  f"ON r.`_est` = w.`_w_est` AND r.`name` = w.`_w_key`)")

    pfdb, _ = STORE_KINDS
    steps = {
        "_want_folders": f"SELECT DISTINCT `_est` AS `_w_est`, {name_key_sql('`entity_name`')} AS `_w_key` "
                         f"FROM {q(findings)} "
                         f"WHERE `entity_kind` = 'PublicFolder'",
        "_folders": f"SELECT `_est`, `name`, filter(`replicas`, x -> x IS NOT NULL)[0] AS `first_replica` "
                    f"FROM ({first_by_name('PublicFolder', '`_want_folders`')})",
        "_sites": f"SELECT `_est`, `name` AS `site_key`, `name__text` AS `site_label` FROM ({first_by_name('Site')})",
        "_servers": f"SELECT s.`_est`, s.`name` AS `server_key`, coalesce(s.`name__text`, s.`name`) AS `server`, "
                    f"coalesce(t.`site_label`, s.`site__text`, {unknown}) AS `site`, "
                    f"coalesce(s.`version__text`, {unknown}) AS `version` "
                    f"FROM ({first_by_name('Server')}) AS s "
                    f"LEFT JOIN `_sites` AS t ON s.`_est` = t.`_est` AND s.`site` = t.`site_key`",
    }
    for kind in STORE_KINDS:
        steps["_placed_" + kind] = (
            f"SELECT d.`_est`, {string(kind)} AS `kind`, d.`name` AS `key`, coalesce(v.`server`, {unknown}) AS `server`, "
            f"coalesce(v.`site`, {unknown}) AS `site`, coalesce(v.`version`, {unknown}) AS `version`, "
            f"coalesce(d.`name__text`, d.`name`) AS `store`, {string(kind)} AS `store_kind`, "
            f"coalesce(v.`server`, {unknown}) AS `store_server` "
            f"FROM ({first_by_name(kind)}) AS d LEFT JOIN `_servers` AS v "
            f"ON d.`_est` = v.`_est` AND d.`server` = v.`server_key`")
    located = [
        "SELECT `_est`, 'Server' AS `kind`, `server_key` AS `key`, `server`, `site`, `version`, "
        "CAST(NULL AS STRING) AS `store`, CAST(NULL AS STRING) AS `store_kind`, "
        "CAST(NULL AS STRING) AS `store_server` FROM `_servers`",
        *[f"SELECT * FROM {q('_placed_' + kind)}" for kind in STORE_KINDS],
        "SELECT f.`_est`, 'PublicFolder' AS `kind`, f.`name` AS `key`, "
        + "".join(f"coalesce(p.`{c}`, {unknown}) AS `{c}`, " for c in ("server", "site", "version"))
        + "p.`store`, p.`store_kind`, p.`store_server` FROM `_folders` AS f "
        f"LEFT JOIN {q('_placed_' + pfdb)} AS p ON f.`_est` = p.`_est` AND f.`first_replica` = p.`key`",
    ]
    steps["_located"] = " UNION ALL ".join(located)

    def label(column: str) -> str:
        return f"CASE WHEN f.`entity_kind` = 'Organization' THEN {org} ELSE coalesce(l.`{column}`, {unknown}) END"

    with_ = ", ".join(f"{q(name)} AS ({sql})" for name, sql in steps.items())
    return (f"WITH {with_} SELECT f.`_est`, f.`rule`, f.`severity`, {label('server')} AS `server`, "
            f"{label('site')} AS `site`, {label('version')} AS `version`, "
            f"CASE WHEN f.`entity_kind` = 'Organization' THEN NULL ELSE l.`store` END AS `store`, "
            f"l.`store_kind`, l.`store_server` FROM {q(findings)} AS f LEFT JOIN `_located` AS l "
            f"ON f.`_est` = l.`_est` AND f.`entity_kind` = l.`kind` AND {name_key_sql('f.`entity_name`')} = l.`key`")


_VIEWS = itertools.count()  # temporary view names of placed_findings


def placed_findings(findings, tables: dict, firsts: dict[str, str] | None = None):
    """The findings with server, site, version and store columns (``placed_sql``);
    ``tables``: kind -> the model table's DataFrame; ``firsts``: as placed_sql's."""
    number = next(_VIEWS)
    views = {kind: f"_exl_place{number}_{kind}" for kind in tables}
    findings_view = f"_exl_place{number}_findings"
    for kind, frame in tables.items():
        frame.createOrReplaceTempView(views[kind])
    findings.createOrReplaceTempView(findings_view)
    spark = findings.sparkSession
    try:
        return spark.sql(placed_sql(findings_view, views, firsts))
    finally:  # the statement is analysed: it holds the views' plans, not their names
        for name in (*views.values(), findings_view):
            spark.catalog.dropTempView(name)


def report_data(findings, tables: dict, rules: dict, *, comparison: dict | None = None, meta: dict | None = None,
                top: int = TOP, firsts: dict[str, str] | None = None) -> dict:
    """ReportData (see linter.reports.html) computed with Spark aggregations;
    ``firsts``: as placed_sql's."""
    F = _F()
    placed = placed_findings(findings, tables, firsts).cache()
    try:
        counts: dict[str, dict] = {}
        for dim in ("rule", "site", "version"):
            rows = placed.groupBy(dim, "severity").count().collect()
            counts[dim] = {(r[dim], r["severity"]): r["count"] for r in rows}
        servers: dict[str, dict] = {}
        for dim in ("server", "store"):
            frame = placed if dim == "server" else placed.filter(F.col("store").isNotNull())
            leaders = (frame.groupBy(dim).count()
                       .orderBy(F.col(dim).isin(ORGANIZATION, UNKNOWN).asc(), F.desc("count"), F.asc(dim))
                       .limit(top + 2).select(dim))
            detail = frame.join(leaders, dim, "inner")
            columns = [dim, "severity", F.first("site").alias("site"), F.first("version").alias("version"),
                       F.first("store_kind").alias("store_kind"), F.first("store_server").alias("store_server")]
            rows = detail.groupBy(dim, "severity").agg(F.count(F.lit(1)).alias("count"), *columns[2:]).collect()
            counts[dim] = {(r[dim], r["severity"]): r["count"] for r in rows}
            if dim == "server":
                for r in rows:
                    special = r["server"] in (ORGANIZATION, UNKNOWN)
                    servers.setdefault(r["server"], {"site": "" if special else r["site"],
                                                     "version": "" if special else r["version"]})
            else:
                stores = {r["store"]: {"kind": r["store_kind"], "server": r["store_server"] or ""} for r in rows}
        return assemble(counts, rules, servers=servers, stores=stores, comparison=comparison, meta=meta or {})
    finally:
        placed.unpersist()


def fingerprint_column():
    """linter.fingerprints.fingerprint as a Spark column (sha-256 of the parts)."""
    F = _F()
    with_message = ("EXL006", "REP001", "REP002", "REP005", "REP007", "RTE005", "EXL007", "EXL005")
    sep = "\x1f"
    entity = F.concat_ws(sep, F.col("rule"), F.col("entity_kind"), F.lower(F.col("entity_name")),
                         F.coalesce(F.col("path"), F.lit("")))
    entity = F.when(F.col("rule").isin(*with_message), F.concat_ws(sep, entity, F.col("message"))).otherwise(entity)
    loose = F.concat_ws(sep, F.col("rule"), F.coalesce(F.col("file"), F.lit("")), F.coalesce(F.col("path"), F.lit("")),
                        F.col("message"))
    text = F.when(F.col("entity_kind").isNotNull() & F.col("entity_name").isNotNull(), entity).otherwise(loose)
    return F.substring(F.sha2(text, 256), 1, 32)


def compare_frames(current, previous, *, label: str = "", limit: int = ROW_LIMIT) -> dict:
    """linter.reports.html.compare in Spark: new and fixed findings by fingerprint,
    as multisets; only counts and capped lists reach the driver."""
    from pyspark.sql import Window

    F = _F()
    columns = ["rule", "severity", "message", "file", "line", "column", "path", "entity_kind", "entity_name"]

    def numbered(frame):
        window = Window.partitionBy("_fp").orderBy(*columns)
        return (frame.select(*columns).withColumn("_fp", fingerprint_column())
                .withColumn("_n", F.row_number().over(window)))

    now, before = numbered(current).cache(), numbered(previous).cache()
    try:
        new = now.join(before.select("_fp", "_n"), ["_fp", "_n"], "left_anti")
        fixed = before.join(now.select("_fp", "_n"), ["_fp", "_n"], "left_anti")
        totals = {"current": now.count(), "previous": before.count(), "new": new.count(), "fixed": fixed.count()}
        per_rule: dict[str, dict[str, int]] = {}
        for kind, frame in (("new", new), ("fixed", fixed)):
            for row in frame.groupBy("rule").count().collect():
                per_rule.setdefault(row["rule"], {"new": 0, "fixed": 0})[kind] = row["count"]
        by_rule = [{"label": rule, **n} for rule, n in per_rule.items()]
        by_rule.sort(key=lambda r: (-(r["new"] + r["fixed"]), r["label"]))

        def listed(frame):
            rows = frame.orderBy("file", "line", "column", "rule").limit(limit).collect()
            return [{"rule": r["rule"], "severity": r["severity"], "message": r["message"], "file": r["file"],
                     "line": r["line"], "column": r["column"], "path": r["path"],
                     "entity": {"kind": r["entity_kind"], "name": r["entity_name"]} if r["entity_kind"] else None}
                    for r in rows]

        return {
            "previous": label, "previous_total": totals["previous"], "current_total": totals["current"],
            "new_count": totals["new"], "fixed_count": totals["fixed"],
            "unchanged_count": totals["current"] - totals["new"], "limit": limit, "by_rule": by_rule,
            "new": listed(new), "fixed": listed(fixed),
        }
    finally:
        now.unpersist()
        before.unpersist()
