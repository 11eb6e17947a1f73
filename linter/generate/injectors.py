"""The defect catalog: one injector per rule (some rules have a few variants).

Each injector changes one object of the clean estate so that exactly its rule
fires, on the entity the manifest names. The rule packs keep one problem to
one finding (BKF006 skips values BKF004/BKF005 report, CON002 skips CON001/
CON003's, STS001 skips STS002-STS004's), so no injector needs a second rule;
where one would (``expect_cascade``), the generator's CASCADES table lists it
and the manifest records both. Levels say which object an injector works on:

- ``org``: the Organization (at most one org-level defect per estate);
- ``region``: a region's administrative group / an isolated lab site;
- ``pair``: a DAG stretched over a pair of sites;
- ``cluster``: a two-node Exchange 2003 cluster;
- ``boundary``: a modern site's shadow boundary (servers outside DAGs);
- ``server``, ``store``, ``mailbox``: one document;
- ``folder``: an IPM folder of the MAPI hierarchy; ``sitefolder``: a site
  folder; ``sysfolder``: the Restrictions or Views folder.

Document-level injectors mutate the document dict (``apply``) and call
``g.expect(rule, kind, name)`` for every finding they cause; structural ones
(org, region, pair, cluster, boundary) are carried out by the generator.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

PFDB = "PublicFolderDatabase"
MBX = "MailboxDatabase"
SERVER = "Server"
FOLDER = "PublicFolder"
ORG = "Organization"


@dataclass(frozen=True)
class Injector:
    id: str
    rule: str
    level: str
    title: str
    applies: Callable | None = None   # (g, obj) -> bool
    apply: Callable | None = None     # (g, obj, doc) -> None
    rarity: int = 0                   # forced injection serves rarer objects first


CATALOG: list[Injector] = []


def injector(id, level, title, applies=None, rule=None, rarity=0):
    def register(fn):
        CATALOG.append(Injector(id, rule or id.split("-")[0], level, title, applies, fn, rarity))
        return fn
    return register


def structural(id, level, title, applies=None, rule=None):
    CATALOG.append(Injector(id, rule or id.split("-")[0], level, title, applies, None))


def _spec(doc):
    return doc["spec"]


def _registry(doc):
    return doc["spec"].setdefault("registry", {})


def _replication(doc):
    return doc["spec"].setdefault("replication", {})


# -- organization ---------------------------------------------------------------
# Carried out when the Organization is written (linter/generate/core.py).
structural("EXL009", "org", "PFReplicaAgeThreshold written under both of its names")
structural("RTE007", "org", "PFReplicaAgeThreshold of zero")
structural("SHD001", "org", "LocalOnly shadow preference with remote-site retries")
structural("SHD003", "org", "RemoteOnly shadow preference while one DAG sits in one site",
           applies=lambda g, obj: g.collapse_target is not None)
structural("SHD005", "org", "shadow redundancy turned off")
structural("SHD007", "org", "ShadowHeartbeatFrequency above one day")
structural("HIE007", "org", "a second MAPI top-level hierarchy")

# -- regions, DAGs, clusters, boundaries ------------------------------------------
structural("HIE005", "region", "a store of a lab hierarchy in an AD site with no site link")
structural("HIE006", "region", "an administrative group without a site folder server",
           applies=lambda g, obj: g.org_defect != "HIE007")
structural("SHD002", "pair", "a DAG left with a single member",
           applies=lambda g, obj: g.shadow_on)
structural("HIE002", "cluster", "two EVSs of an active/active cluster hold the MAPI hierarchy")
structural("HIE003", "cluster", "an Exchange 2003 RTM active/passive cluster with two MAPI stores")
structural("SHD004", "boundary", "an Exchange 2007 hub in a site of Exchange 2010+ servers",
           applies=lambda g, obj: g.shadow_on)


# -- servers --------------------------------------------------------------------
def _has_receive(g, srv):
    return srv.version >= 2007 and "Edge" not in srv.roles and (
        "Mailbox" in srv.roles or "HubTransport" in srv.roles)


@injector("CON001", "server", "receive connector inactivity timeout not below its connection timeout", _has_receive)
def _con001(g, srv, doc):
    connector = _spec(doc)["receiveConnectors"][0]
    connector["ConnectionInactivityTimeout"] = "00:15:00"
    g.expect("CON001", SERVER, srv.name)


@injector("CON002", "server", "receive connector timeout changed from the role default", _has_receive)
def _con002(g, srv, doc):
    _spec(doc)["receiveConnectors"][0]["ConnectionTimeout"] = "00:20:00"
    g.expect("CON002", SERVER, srv.name)


@injector("CON003", "server", "receive connector timeout above one day", _has_receive)
def _con003(g, srv, doc):
    _spec(doc)["receiveConnectors"][-1]["ConnectionTimeout"] = "1.12:00:00"
    g.expect("CON003", SERVER, srv.name)


@injector("RTE001", "server", "an Exchange 2007 RTM hub transport server in a mixed 2003/2007 hierarchy",
          lambda g, srv: srv.version == 2007 and "HubTransport" in srv.roles and g.org_defect != "HIE007")
def _rte001(g, srv, doc):
    _spec(doc)["servicePack"] = 0
    g.expect("RTE001", SERVER, srv.name)


@injector("HIE001", "server", "a second store of the MAPI hierarchy on one server",
          lambda g, srv: srv.mapi and srv.cluster is None)
def _hie001(g, srv, doc):
    g.extra_store(srv)  # the generator writes "PFDB-<server>-B" next to "PFDB-<server>"
    g.expect("HIE001", PFDB, "PFDB-" + srv.name)
    g.expect("HIE001", PFDB, "PFDB-" + srv.name + "-B")


# -- public folder stores ---------------------------------------------------------
def _is_mapi(g, sto):
    return sto.hierarchy == 0


def _is_2003(g, sto):
    return sto.version == 2003


def _shadow_boundary_counts(g, srv) -> bool:
    """The server's shadow boundary holds a server able to hold a shadow copy (DUP003 judges
    only there): a DAG (its members run Exchange 2010 or later with the Mailbox role), or the
    servers of its AD site outside a DAG."""
    if srv is None:
        return False
    if srv.dag:
        return True
    return any(s.dag is None and s.site == srv.site and s.version >= 2010 and "Edge" not in s.roles
               and ("Mailbox" in s.roles or "HubTransport" in s.roles) for s in g.site.servers)


@injector("EXL005", "store", "a misspelt registry value name")
def _exl005(g, sto, doc):
    if sto.version == 2003:
        _registry(doc)["Track Duplicate (in hours)"] = 24
    else:
        _registry(doc)["DeliveredTo Expiration In Hour"] = 168
    g.expect("EXL005", PFDB, sto.name)


@injector("HIE004", "store", "a public folder store without an e-mail address")
def _hie004(g, sto, doc):
    del _spec(doc)["emailAddress"]
    g.expect("HIE004", PFDB, sto.name)


@injector("RTE002", "store", "a public folder store without a creation date")
def _rte002(g, sto, doc):
    del _spec(doc)["created"]
    g.expect("RTE002", PFDB, sto.name)


@injector("BKF001", "store", "Preferred Backfill Source set to another server of the hierarchy", _is_mapi)
def _bkf001(g, sto, doc):
    _registry(doc)["Preferred Backfill Source"] = g.other_mapi_server(sto)
    g.expect("BKF001", PFDB, sto.name)


@injector("BKF002", "store", "Preferred Backfill Source names a decommissioned server", _is_mapi)
def _bkf002(g, sto, doc):
    _registry(doc)["Preferred Backfill Source"] = g.gone_server(sto.site)
    g.expect("BKF002", PFDB, sto.name)


@injector("BKF003", "store", "Preferred Backfill Source names the store's own server", _is_mapi)
def _bkf003(g, sto, doc):
    _registry(doc)["Preferred Backfill Source"] = sto.server
    g.expect("BKF003", PFDB, sto.name)


@injector("BKF004", "store", "short backfill time-out shorter than the short backfill delay")
def _bkf004(g, sto, doc):
    _replication(doc)["Replication Short Backfill Request Timeout"] = "3h"
    g.expect("BKF004", PFDB, sto.name)


@injector("BKF005", "store", "new-replica backfill delay shorter than the replication send interval")
def _bkf005(g, sto, doc):
    _replication(doc)["Replication New Replica Backfill Request Delay"] = "2m"
    g.expect("BKF005", PFDB, sto.name)


@injector("BKF006", "store", "a backfill time-out changed from its default (consistently)")
def _bkf006(g, sto, doc):
    _replication(doc)["Replication Long Backfill Request Timeout Retry"] = "72h"
    g.expect("BKF006", PFDB, sto.name)


@injector("DUP001", "store", "Track Duplicates (in hours) above 49 days", _is_2003, rarity=1)
def _dup001(g, sto, doc):
    _registry(doc)["Track Duplicates (in hours)"] = 5000
    g.expect("DUP001", PFDB, sto.name)


@injector("DUP002", "store", "Track Duplicates (in hours) above the growth threshold", _is_2003, rarity=1)
def _dup002(g, sto, doc):
    _registry(doc)["Track Duplicates (in hours)"] = 336
    g.expect("DUP002", PFDB, sto.name)


@injector("DUP003", "store", "duplicate-tracking window shorter than ShadowResubmitTimeSpan",
          lambda g, sto: g.shadow_on and _shadow_boundary_counts(g, sto.srv))
def _dup003(g, sto, doc):
    name = "Track Duplicates (in hours)" if sto.version == 2003 else "DeliveredTo Expiration in Hours"
    _registry(doc)[name] = 2
    g.expect("DUP003", PFDB, sto.name)


@injector("DUP004", "store", "Background Cleanup (in msecs) changed from 60000")
def _dup004(g, sto, doc):
    _registry(doc)["Background Cleanup (in msecs)"] = 30000
    g.expect("DUP004", PFDB, sto.name)


@injector("DUP005", "store", "a duplicate-tracking value the store's version does not read")
def _dup005(g, sto, doc):
    if sto.version == 2003:
        _registry(doc)["DeliveredTo Expiration in Hours"] = 168
    else:
        _registry(doc)["Track Duplicates (in hours)"] = 24
    g.expect("DUP005", PFDB, sto.name)


@injector("STS001", "store", "Replication Send Status Timeout changed from one day")
def _sts001(g, sto, doc):
    _registry(doc)["Replication Send Status Timeout"] = 172800
    g.expect("STS001", PFDB, sto.name)


@injector("STS002", "store", "status alignment skew not smaller than the alignment")
def _sts002(g, sto, doc):
    _registry(doc)["Replication Send Status Alignment Skew"] = 43200
    g.expect("STS002", PFDB, sto.name)


@injector("STS003", "store", "the 84600-second misprint of one day")
def _sts003(g, sto, doc):
    _registry(doc)["Replication Send Status Timeout"] = 84600
    g.expect("STS003", PFDB, sto.name)


@injector("STS004", "store", "Replication Send Status Timeout below twelve hours")
def _sts004(g, sto, doc):
    _registry(doc)["Replication Send Status Timeout"] = 3600
    g.expect("STS004", PFDB, sto.name)


@injector("STS005", "store", "replication message size limit below 100 KB")
def _sts005(g, sto, doc):
    _replication(doc)["Replication Message Size Limit"] = "50KB"
    g.expect("STS005", PFDB, sto.name)


def _has_custom_list(g, sto):
    return sto.custom_list


@injector("RTE003", "store", "a custom referral cost above 100 on an Exchange 2007 store", _has_custom_list, rarity=2)
def _rte003(g, sto, doc):
    _spec(doc)["referrals"]["customList"][0]["cost"] = 150
    g.expect("RTE003", PFDB, sto.name)


@injector("RTE004", "store", "a custom referral cost of 100 meant to exclude a server", _has_custom_list, rarity=2)
def _rte004(g, sto, doc):
    _spec(doc)["referrals"]["customList"][-1]["cost"] = 100
    g.expect("RTE004", PFDB, sto.name)


# -- mailbox databases -----------------------------------------------------------
@injector("EXL001", "mailbox", "a YAML syntax error (unclosed flow mapping / truncated line)")
def _exl001(g, mbx, doc):
    g.text_fault = "syntax"
    g.expect("EXL001", MBX, mbx.name)


@injector("EXL002", "mailbox", "the server key written twice")
def _exl002(g, mbx, doc):
    g.text_fault = "duplicate-server"
    g.expect("EXL002", MBX, mbx.name)


@injector("EXL003", "mailbox", "a label with a number value")
def _exl003(g, mbx, doc):
    doc["metadata"]["labels"]["costCentre"] = 4410
    g.expect("EXL003", MBX, mbx.name)


@injector("EXL004", "mailbox", "a misspelt kind")
def _exl004(g, mbx, doc):
    doc["kind"] = "MailboxDatabse"
    g.expect("EXL004", MBX, mbx.name)


@injector("EXL006", "mailbox", "two mailbox databases with one name (different case)")
def _exl006(g, mbx, doc):
    g.duplicate_document = mbx.name.lower()
    g.expect("EXL006", MBX, mbx.name)


@injector("EXL007", "mailbox", "a default public folder database name with a typo")
def _exl007(g, mbx, doc):
    name = _spec(doc)["defaultPublicFolderDatabase"]
    _spec(doc)["defaultPublicFolderDatabase"] = name[:-2] + name[-1] if name[-2] == "0" else name + "-OLD"
    g.expect("EXL007", MBX, mbx.name)


@injector("RTE006", "mailbox", "default public folder database on Exchange 2003")
def _rte006(g, mbx, doc):
    _spec(doc)["defaultPublicFolderDatabase"] = g.legacy_store_for(mbx.site)
    g.expect("RTE006", MBX, mbx.name)


@injector("DUP003-mailbox", "mailbox", "mailbox database window shorter than ShadowResubmitTimeSpan",
          lambda g, mbx: g.shadow_on and _shadow_boundary_counts(g, mbx.srv))
def _dup003_mbx(g, mbx, doc):
    _spec(doc).setdefault("registry", {})["DeliveredTo Expiration in Hours"] = 2
    g.expect("DUP003", MBX, mbx.name)


@injector("DUP005-mailbox", "mailbox", "Track Duplicates (in hours) on an Exchange 2007+ mailbox database")
def _dup005_mbx(g, mbx, doc):
    _spec(doc).setdefault("registry", {})["Track Duplicates (in hours)"] = 24
    g.expect("DUP005", MBX, mbx.name)


# -- folders ----------------------------------------------------------------------
# Every MAPI folder keeps its region hub replica (custom referral lists name the
# region hubs), except RTE005's, which is the point.
@injector("REP001", "folder", "a replica on a store that no longer exists")
def _rep001(g, fol, doc):
    _spec(doc)["replicas"].append(g.gone_store(fol.site))
    g.expect("REP001", FOLDER, fol.name)


@injector("REP002", "folder", "a replica on a store of an application hierarchy")
def _rep002(g, fol, doc):
    _spec(doc)["replicas"].append(g.app_store_near(fol.site))
    g.expect("REP002", FOLDER, fol.name)


@injector("REP003", "folder", "an IPM folder with no replica")
def _rep003(g, fol, doc):
    _spec(doc)["replicas"] = []
    g.expect("REP003", FOLDER, fol.name)
    g.expect_cascade("REP003", FOLDER, fol.name)


@injector("REP004", "folder", "a folder with a single replica")
def _rep004(g, fol, doc):
    _spec(doc)["replicas"] = [fol.hub_store]
    g.expect("REP004", FOLDER, fol.name)


@injector("REP005", "folder", "a store listed twice in a replica list")
def _rep005(g, fol, doc):
    replicas = _spec(doc)["replicas"]
    replicas.append(replicas[0])
    g.expect("REP005", FOLDER, fol.name)


@injector("REP006", "folder", "only delete-pending replicas")
def _rep006(g, fol, doc):
    spec = _spec(doc)
    spec["deletePending"] = spec["replicas"]
    spec["replicas"] = []
    g.expect("REP006", FOLDER, fol.name)
    g.expect_cascade("REP006", FOLDER, fol.name)


@injector("REP007", "folder", "a store both active replica and delete pending")
def _rep007(g, fol, doc):
    spec = _spec(doc)
    spec["deletePending"] = [spec["replicas"][0]]
    g.expect("REP007", FOLDER, fol.name)


@injector("REP010", "folder", "every replica in one AD site")
def _rep010(g, fol, doc):
    _spec(doc)["replicas"] = [fol.hub_store, g.hub_site_second_store(fol.site)]
    g.expect("REP010", FOLDER, fol.name)


@injector("RTE005", "folder", "no replica on a server that custom referral lists name",
          lambda g, fol: g.rte005_replicas(fol) is not None)
def _rte005(g, fol, doc):
    _spec(doc)["replicas"] = g.rte005_replicas(fol)
    # one finding per store that cannot refer to the folder: every store keeping a custom
    # list (it names only the region hubs, and the replicas are on none of them)
    for _ in g.custom_lists:
        g.expect("RTE005", FOLDER, fol.name)


@injector("REP009", "sitefolder", "a site folder without a replica on its site folder server")
def _rep009(g, fol, doc):
    _spec(doc)["replicas"] = g.away_from_sfs(fol)
    g.expect("REP009", FOLDER, fol.name)


@injector("REP004-sitefolder", "sitefolder", "a site folder with a single replica")
def _rep004_site(g, fol, doc):
    _spec(doc)["replicas"] = [fol.hub_store]
    g.expect("REP004", FOLDER, fol.name)


@injector("REP008", "sysfolder", "Restrictions/Views folder with a second replica")
def _rep008(g, fol, doc):
    _spec(doc)["replicas"].append(g.topo.default_store(1))
    g.expect("REP008", FOLDER, fol.name)


BY_ID = {inj.id: inj for inj in CATALOG}
LEVELS: dict[str, list[Injector]] = {}
for _inj in CATALOG:
    LEVELS.setdefault(_inj.level, []).append(_inj)


def rules_covered() -> list[str]:
    return sorted({inj.rule for inj in CATALOG})
