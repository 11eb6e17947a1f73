#!/usr/bin/env python3
"""Sanity statistics for an inventory written by gen.py (not a linter; a rough
self-check of shape and of how often a few estate-wide rules would fire)."""
import heapq
import json
import re
import sys
from collections import Counter, defaultdict

VR = {v: i for i, v in enumerate(["2000", "2003", "2007", "2010", "2013", "2016", "2019", "SE"])}


def secs(v):
    if isinstance(v, (int, float)):
        return v
    m = re.fullmatch(r"(-?)(?:(\d+)\.)?(\d+):(\d+):(\d+)", v)
    if m:
        s = int(m[2] or 0) * 86400 + int(m[3]) * 3600 + int(m[4]) * 60 + int(m[5])
        return -s if m[1] else s
    m = re.fullmatch(r"(\d+)([smhd])", v)
    return int(m[1]) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m[2]]


def main(path):
    bad = 0
    size = 0
    kinds = Counter()
    with open(path, encoding="utf-8") as f:
        for ln in f:
            size += len(ln.encode())
            try:
                d = json.loads(ln)
                assert isinstance(d, dict) and {"apiVersion", "kind", "metadata", "spec"} <= set(d)
                assert isinstance(d["metadata"].get("name"), str)
            except Exception:
                bad += 1
                continue
            kinds[d["kind"]] += 1

    def iter_docs(skip_folders=False):
        with open(path, encoding="utf-8") as f:
            for ln in f:
                if skip_folders and '"kind":"PublicFolder"' in ln:
                    continue
                yield json.loads(ln)
    docs = list(iter_docs(True))
    print("lines", sum(kinds.values()) + bad, "invalid", bad, "bytes", size)
    print("kinds", dict(kinds))
    org = [d for d in docs if d["kind"] == "Organization"][0]["spec"]
    sites = {s["name"].lower(): s["name"] for s in org["sites"]}
    adj = defaultdict(list)
    undefined_link_sites = 0
    for ln in org["siteLinks"]:
        ss = [x.lower() for x in ln["sites"]]
        undefined_link_sites += sum(1 for x in ss if x not in sites)
        for a in ss:
            for b in ss:
                if a != b:
                    adj[a].append((b, ln["cost"]))
    comp = {}
    for s in sites:
        if s in comp:
            continue
        stack = [s]
        comp[s] = s
        while stack:
            x = stack.pop()
            for y, _ in adj[x]:
                if y not in comp:
                    comp[y] = s
                    stack.append(y)
    csize = Counter(comp[s] for s in sites)
    print("sites", len(sites), "links", len(org["siteLinks"]), "undefined link sites", undefined_link_sites,
          "components", len(csize), "largest", max(csize.values()),
          "unlinked", sum(1 for s in sites if not adj[s]),
          "far links(>500)", sum(1 for l in org["siteLinks"] if l["cost"] > 500),
          "multi-site links", sum(1 for l in org["siteLinks"] if len(l["sites"]) > 2))

    def dijkstra(src):
        dist = {src: 0}
        pq = [(0, src)]
        while pq:
            d0, x = heapq.heappop(pq)
            if d0 > dist.get(x, 1e18) or d0 > 500:
                continue
            for y, c in adj[x]:
                nd = d0 + c
                if nd < dist.get(y, 1e18):
                    dist[y] = nd
                    heapq.heappush(pq, (nd, y))
        return {k for k, v in dist.items() if v <= 500}

    ball = {}
    servers = {}
    flagged = defaultdict(set)
    names = defaultdict(Counter)
    for d in iter_docs():
        names[d["kind"]][d["metadata"]["name"].lower()] += 1
    for k, c in names.items():
        for n, m in c.items():
            if m > 1:
                flagged["EXL006"].add((k, n))
    for d in docs:
        if d["kind"] == "Server":
            s = d["spec"]
            servers[d["metadata"]["name"].lower()] = s
            if str(s.get("site", "")).lower() not in sites:
                flagged["EXL007/site"].add(("Server", d["metadata"]["name"]))
    # shadow boundaries
    bound = defaultdict(list)
    for n, s in servers.items():
        v = str(s.get("version"))
        if v not in VR:
            continue
        key = ("dag", s["dag"].lower()) if s.get("dag") else ("site", str(s.get("site", "")).lower())
        bound[key].append((n, v, s.get("roles", [])))
    for key, mem in bound.items():
        cap = [m for m in mem if VR[m[1]] >= 3 and "Edge" not in m[2] and ("Mailbox" in m[2] or "HubTransport" in m[2])]
        old = [m for m in mem if VR[m[1]] < 3 and ("Mailbox" in m[2] or "HubTransport" in m[2])]
        if cap and len(cap) < 2:
            for m in cap:
                flagged["SHD002"].add(("Server", m[0]))
        if cap and old:
            for m in old:
                flagged["SHD004"].add(("Server", m[0]))
    stores = {}
    h_stores = defaultdict(list)
    hie001 = Counter()
    for d in docs:
        if d["kind"] == "PublicFolderDatabase":
            s = d["spec"]
            n = d["metadata"]["name"].lower()
            stores[n] = s
            h = str(s.get("hierarchy", "")).lower()
            h_stores[h].append(n)
            hie001[(str(s.get("server", "")).lower(), h)] += 1
            srv = servers.get(str(s.get("server", "")).lower())
            if not s.get("emailAddress"):
                flagged["HIE004"].add(("PFDB", n))
            if srv is None:
                flagged["EXL007/server"].add(("PFDB", n))
            reg = s.get("registry") or {}
            v = str(srv.get("version")) if srv else "2010"
            if v in VR:
                win = reg.get("Track Duplicates (in hours)", 1) if VR[v] <= 1 else reg.get("DeliveredTo Expiration in Hours", 168)
                if isinstance(win, int) and win < 3:
                    flagged["DUP003"].add(("PFDB", n))
                if VR[v] <= 1 and isinstance(win, int) and win > 1176:
                    flagged["DUP001"].add(("PFDB", n))
    for (sv, h), c in hie001.items():
        if c > 1:
            flagged["HIE001"].add((sv, h))
    # HIE005: stores outside the largest connected group of their hierarchy
    for h, lst in h_stores.items():
        groups = Counter()
        for n in lst:
            srv = servers.get(str(stores[n].get("server", "")).lower())
            site = str(srv.get("site", "")).lower() if srv else ""
            groups[comp.get(site, "?" + site)] += 1
        if groups:
            big = groups.most_common(1)[0][0]
            for n in lst:
                srv = servers.get(str(stores[n].get("server", "")).lower())
                site = str(srv.get("site", "")).lower() if srv else ""
                if comp.get(site, "?" + site) != big:
                    flagged["HIE005"].add(("PFDB", n))
    # folders
    nrep = 0
    store_site = {}
    for n, s in stores.items():
        srv = servers.get(str(s.get("server", "")).lower())
        store_site[n] = str(srv.get("site", "")).lower() if srv else ""
    h_sites = {}
    h_custom = {}
    for h, lst in h_stores.items():
        ss = set()
        cust = []
        for n in lst:
            ref = stores[n].get("referrals") or {}
            if ref.get("useCustomList"):
                cust.append((n, {c["server"].lower() for c in ref.get("customList", [])}))
            else:
                ss.add(store_site[n])
        h_sites[h] = ss
        h_custom[h] = cust
    rep_counts = Counter()
    for d in iter_docs():
        if d["kind"] != "PublicFolder":
            continue
        s = d["spec"]
        n = d["metadata"]["name"]
        reps = s.get("replicas") or []
        nrep += len(reps)
        rep_counts[min(len(reps), 60)] += 1
        low = [r.lower() for r in reps]
        h = str(s.get("hierarchy", "")).lower()
        if any(r not in stores for r in low):
            flagged["REP001"].add(n)
        if any(r in stores and str(stores[r].get("hierarchy", "")).lower() != h for r in low):
            flagged["REP002"].add(n)
        if len(set(low)) != len(low):
            flagged["REP005"].add(n)
        if len(reps) == 1 and s.get("systemFolder") in (None, "SiteFolder"):
            flagged["REP004"].add(n)
        if s.get("tree") == "IPM_SUBTREE" and s.get("systemFolder") is None and reps:
            rsites = {store_site[r] for r in low if r in stores}
            rservers = {str(stores[r].get("server", "")).lower() for r in low if r in stores}
            covered = set()
            for rs in rsites:
                if rs not in ball:
                    ball[rs] = dijkstra(rs) if rs in sites else set()
                covered |= ball[rs]
            miss = h_sites.get(h, set()) - covered
            if miss:
                flagged["RTE005"].add(n)
                flagged["RTE005/dist"].add(n)
            else:
                for cn, cl in h_custom.get(h, []):
                    if cn not in low and not (cl & rservers):
                        flagged["RTE005"].add(n)
                        flagged["RTE005/custom"].add(n)
                        break
    print("replica entries", nrep, "folders", kinds.get("PublicFolder"))
    print("replica count histogram (1,2-5,6-10,11-20,21-40,41-60):",
          rep_counts[1], sum(rep_counts[k] for k in range(2, 6)), sum(rep_counts[k] for k in range(6, 11)),
          sum(rep_counts[k] for k in range(11, 21)), sum(rep_counts[k] for k in range(21, 41)),
          sum(rep_counts[k] for k in range(41, 61)))
    for k in sorted(flagged):
        print(f"  {k:16s} {len(flagged[k])}")


if __name__ == "__main__":
    main(sys.argv[1])
