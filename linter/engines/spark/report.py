"""The estate report from aggregates computed in Spark: findings are placed on
servers, sites, versions and stores with joins (a folder by the server of its
first replica's store), counted with groupBy, and only the small results (per
rule, site, version, the top servers and stores, capped new/fixed lists) reach
the driver, where linter.reports.html assembles and renders them. Mirrors
linter.reports.html.EstateLocator and count_findings (the local engine's path).
"""
from __future__ import annotations

from linter.reports.html import ORGANIZATION, ROW_LIMIT, TOP, UNKNOWN, assemble

STORE_KINDS = ("PublicFolderDatabase", "MailboxDatabase")


def _F():
    from pyspark.sql import functions

    return functions


def _first_by_name(frame):
    """One record per (estate, name): the first by file, document and position,
    as the engines resolve duplicate names."""
    from pyspark.sql import Window

    F = _F()
    window = Window.partitionBy("_est", "name").orderBy("_file", "_doc", "_prefix")
    return (frame.filter(F.col("name").isNotNull())
            .withColumn("_n", F.row_number().over(window)).filter("_n = 1").drop("_n"))


def _wanted(named, kind: str):
    """(_w_est, _w_key) of the entities of ``kind`` the findings name."""
    F = _F()
    return named.filter(F.col("entity_kind") == kind).select(F.col("_est").alias("_w_est"),
                                                             F.col("_key").alias("_w_key"))


def _only(frame, keys):
    """The records of ``frame`` named by ``keys`` (None: every record); every
    namesake stays, so that the first of them is the one placed."""
    if keys is None:
        return frame
    return frame.join(keys, (frame["_est"] == keys["_w_est"]) & (frame["name"] == keys["_w_key"]), "left_semi")


def locations(tables: dict, named=None):
    """(_est, kind, key, server, site, version, store, store_kind, store_server) for
    every entity that can be placed; ``key`` is the lower-cased entity name.

    ``named``: (_est, entity_kind, _key) of the entities to place: then only those
    are placed, with what placing them reads (the stores of the named folders' first
    replicas, the servers of the stores placed). At 100,000 servers that is some
    tens of thousands of records instead of a million folders, 100,000 servers and
    their stores, each ranked among its namesakes and joined."""
    F = _F()

    def keys(kind, *more):
        if named is None:
            return None
        out = _wanted(named, kind)
        for extra in more:
            out = out.unionByName(extra)
        return out

    folders = (_first_by_name(_only(tables["PublicFolder"], keys("PublicFolder")))
               .select("_est", "name", F.expr("filter(replicas, x -> x IS NOT NULL)[0]").alias("first_replica")))
    replicas = folders.select(F.col("_est").alias("_w_est"), F.col("first_replica").alias("_w_key"))
    also_wanted = {"PublicFolderDatabase": [replicas]}  # stores holding a named folder's first replica
    records = {kind: _first_by_name(_only(tables[kind], keys(kind, *also_wanted.get(kind, []))))
               for kind in STORE_KINDS}
    store_servers = [records[kind].select(F.col("_est").alias("_w_est"), F.col("server").alias("_w_key"))
                     for kind in STORE_KINDS]
    sites = _first_by_name(tables["Site"]).select("_est", F.col("name").alias("site_key"),
                                                  F.col("name__text").alias("site_label"))
    servers = (_first_by_name(_only(tables["Server"], keys("Server", *store_servers))).alias("s")
               .join(sites.alias("t"), (F.col("s._est") == F.col("t._est")) & (F.col("s.site") == F.col("t.site_key")),
                     "left")
               .select(F.col("s._est").alias("_est"), F.col("s.name").alias("server_key"),
                       F.coalesce(F.col("s.name__text"), F.col("s.name")).alias("server"),
                       F.coalesce(F.col("t.site_label"), F.col("s.site__text"), F.lit(UNKNOWN)).alias("site"),
                       F.coalesce(F.col("s.version__text"), F.lit(UNKNOWN)).alias("version")))
    parts = [servers.select("_est", F.lit("Server").alias("kind"), F.col("server_key").alias("key"), "server",
                            "site", "version", F.lit(None).cast("string").alias("store"),
                            F.lit(None).cast("string").alias("store_kind"),
                            F.lit(None).cast("string").alias("store_server"))]
    stores = {}
    for kind in STORE_KINDS:
        placed = (records[kind].alias("d")
                  .join(servers.alias("v"), (F.col("d._est") == F.col("v._est"))
                        & (F.col("d.server") == F.col("v.server_key")), "left")
                  .select(F.col("d._est").alias("_est"), F.lit(kind).alias("kind"), F.col("d.name").alias("key"),
                          F.coalesce(F.col("v.server"), F.lit(UNKNOWN)).alias("server"),
                          F.coalesce(F.col("v.site"), F.lit(UNKNOWN)).alias("site"),
                          F.coalesce(F.col("v.version"), F.lit(UNKNOWN)).alias("version"),
                          F.coalesce(F.col("d.name__text"), F.col("d.name")).alias("store"),
                          F.lit(kind).alias("store_kind"),
                          F.coalesce(F.col("v.server"), F.lit(UNKNOWN)).alias("store_server")))
        stores[kind] = placed
        parts.append(placed)
    pfdb = stores["PublicFolderDatabase"].alias("p")
    parts.append(folders.alias("f")
                 .join(pfdb, (F.col("f._est") == F.col("p._est")) & (F.col("f.first_replica") == F.col("p.key")),
                       "left")
                 .select(F.col("f._est").alias("_est"), F.lit("PublicFolder").alias("kind"),
                         F.col("f.name").alias("key"),
                         *[F.coalesce(F.col(f"p.{c}"), F.lit(UNKNOWN)).alias(c) for c in ("server", "site", "version")],
                         F.col("p.store"), F.col("p.store_kind"), F.col("p.store_server")))
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return out


def placed_findings(findings, tables: dict):
    """The findings with server, site, version and store columns."""
    F = _F()
    f = findings.withColumn("_key", F.lower(F.col("entity_name")))
    where = locations(tables, f.select("_est", "entity_kind", "_key")).alias("l")
    f = f.alias("f")
    joined = f.join(where, (F.col("f._est") == F.col("l._est")) & (F.col("f.entity_kind") == F.col("l.kind"))
                    & (F.col("f._key") == F.col("l.key")), "left")
    org = F.col("f.entity_kind") == "Organization"

    def label(column):
        return F.when(org, F.lit(ORGANIZATION)).otherwise(F.coalesce(F.col(f"l.{column}"), F.lit(UNKNOWN)))

    return joined.select(
        F.col("f._est").alias("_est"), F.col("f.rule").alias("rule"), F.col("f.severity").alias("severity"),
        label("server").alias("server"), label("site").alias("site"), label("version").alias("version"),
        F.when(org, F.lit(None)).otherwise(F.col("l.store")).alias("store"),
        F.col("l.store_kind").alias("store_kind"), F.col("l.store_server").alias("store_server"))


def report_data(findings, tables: dict, rules: dict, *, comparison: dict | None = None, meta: dict | None = None,
                top: int = TOP) -> dict:
    """ReportData (see linter.reports.html) computed with Spark aggregations."""
    F = _F()
    placed = placed_findings(findings, tables).cache()
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
