#!/usr/bin/env python3
"""Independent synthetic Exchange estate inventory generator (JSON Lines).

Written from the public spec only (input-model.md, rules.md).  Usage:

    python3 gen.py --servers N --seed S --out FILE.jsonl [--manifest FILE]
                   [--defect-rate 0.04]

Writes one exlint/v1 document per line (envelope apiVersion/kind/metadata/spec):
one Organization (hierarchies, admin groups, AD sites, site links, routing,
transport config), N Server documents, PublicFolderDatabase, MailboxDatabase
and PublicFolder documents.  Everything scales linearly with N (the number of
top-level hierarchies is capped at 39).  Deterministic for a given seed:
one random.Random stream, no set/dict-hash iteration order is relied upon.

A small share of documents carries an injected defect that a linter should
flag; --manifest writes one JSON line per injected defect.
Standard library only (Python 3.11).
"""
import argparse
import json
import math
import random
import re
import sys
import uuid
from bisect import bisect_left
from itertools import accumulate

API = "exlint/v1"

# --------------------------------------------------------------------------
# Static vocabulary
# --------------------------------------------------------------------------
# (site token as written, ascii token, 3-letter code)
REGIONS = [
    ("NorthAmerica", "na", 0.30, [
        ("NewYork", "NewYork", "NYC"), ("Chicago", "Chicago", "CHI"), ("Dallas", "Dallas", "DAL"),
        ("Seattle", "Seattle", "SEA"), ("Toronto", "Toronto", "YYZ"), ("Montréal", "Montreal", "YUL"),
        ("Atlanta", "Atlanta", "ATL"), ("Denver", "Denver", "DEN"), ("Boston", "Boston", "BOS"),
        ("Phoenix", "Phoenix", "PHX"), ("SanJose", "SanJose", "SJC"), ("Houston", "Houston", "HOU"),
        ("Miami", "Miami", "MIA"), ("Québec", "Quebec", "YQB"), ("Vancouver", "Vancouver", "YVR"),
        ("Minneapolis", "Minneapolis", "MSP"), ("Charlotte", "Charlotte", "CLT"), ("Detroit", "Detroit", "DTW"),
    ]),
    ("Europe", "emea", 0.32, [
        ("London", "London", "LON"), ("Paris", "Paris", "PAR"), ("Frankfurt", "Frankfurt", "FRA"),
        ("München", "Muenchen", "MUC"), ("Zürich", "Zurich", "ZRH"), ("Madrid", "Madrid", "MAD"),
        ("Milano", "Milano", "MIL"), ("Amsterdam", "Amsterdam", "AMS"), ("Stockholm", "Stockholm", "STO"),
        ("København", "Kobenhavn", "CPH"), ("Warszawa", "Warszawa", "WAW"), ("Praha", "Praha", "PRG"),
        ("Wien", "Wien", "VIE"), ("Dublin", "Dublin", "DUB"), ("Bruxelles", "Bruxelles", "BRU"),
        ("Lisboa", "Lisboa", "LIS"), ("Genève", "Geneve", "GVA"), ("Düsseldorf", "Duesseldorf", "DUS"),
        ("Kraków", "Krakow", "KRK"), ("Göteborg", "Goteborg", "GOT"), ("Oslo", "Oslo", "OSL"),
        ("Helsinki", "Helsinki", "HEL"), ("Manchester", "Manchester", "MAN"), ("Lyon", "Lyon", "LYS"),
    ]),
    ("AsiaPacific", "apac", 0.20, [
        ("Tokyo", "Tokyo", "TYO"), ("Singapore", "Singapore", "SIN"), ("Sydney", "Sydney", "SYD"),
        ("Mumbai", "Mumbai", "BOM"), ("Bangalore", "Bangalore", "BLR"), ("Shanghai", "Shanghai", "SHA"),
        ("HongKong", "HongKong", "HKG"), ("Seoul", "Seoul", "SEL"), ("Melbourne", "Melbourne", "MEL"),
        ("Auckland", "Auckland", "AKL"), ("Osaka", "Osaka", "OSA"), ("Taipei", "Taipei", "TPE"),
        ("KualaLumpur", "KualaLumpur", "KUL"), ("Manila", "Manila", "MNL"), ("Chennai", "Chennai", "MAA"),
    ]),
    ("LatinAmerica", "latam", 0.10, [
        ("SãoPaulo", "SaoPaulo", "SAO"), ("CiudadDeMéxico", "CiudadDeMexico", "MEX"),
        ("Bogotá", "Bogota", "BOG"), ("BuenosAires", "BuenosAires", "BUE"), ("Santiago", "Santiago", "SCL"),
        ("Lima", "Lima", "LIM"), ("Medellín", "Medellin", "MDE"), ("RioDeJaneiro", "RioDeJaneiro", "RIO"),
        ("Monterrey", "Monterrey", "MTY"),
    ]),
    ("MiddleEastAfrica", "mea", 0.08, [
        ("Dubai", "Dubai", "DXB"), ("Johannesburg", "Johannesburg", "JNB"), ("Cairo", "Cairo", "CAI"),
        ("Riyadh", "Riyadh", "RUH"), ("Nairobi", "Nairobi", "NBO"), ("Lagos", "Lagos", "LOS"),
        ("TelAviv", "TelAviv", "TLV"), ("İstanbul", "Istanbul", "IST"), ("Casablanca", "Casablanca", "CMN"),
    ]),
]

SITE_TAGS = [("DC", 3), ("BR", 10), ("OFC", 5), ("CAMPUS", 1), ("LAB", 1), ("DMZ", 1), ("Site", 3)]

ORG_NAMES = ["contoso", "fabrikam", "adatum", "litwareinc", "northwindtraders",
             "woodgrovebank", "tailspintoys", "wingtiptoys", "proseware", "treyresearch"]

VERSIONS = ["2000", "2003", "2007", "2010", "2013", "2016", "2019", "SE"]
VRANK = {v: i for i, v in enumerate(VERSIONS)}
LEGACY_W = [("2000", 0.07), ("2003", 0.41), ("2007", 0.52)]
MODERN_W = [("2010", 0.565), ("2013", 0.22), ("2016", 0.15), ("2019", 0.055), ("SE", 0.01)]
VCODE = {"2000": "EX2K", "2003": "EX03", "2007": "EX07", "2010": "EX10",
         "2013": "EX13", "2016": "EX16", "2019": "EX19", "SE": "EXSE"}
SP_W = {"2000": [(0, .05), (1, .1), (2, .15), (3, .4), (4, .3)],
        "2003": [(0, .06), (1, .24), (2, .7)],
        "2007": [(0, .03), (1, .22), (2, .25), (3, .5)],
        "2010": [(0, .05), (1, .15), (2, .3), (3, .5)],
        "2013": [(0, .6), (1, .4)],
        "2016": [(0, 1.0)], "2019": [(0, 1.0)], "SE": [(0, 1.0)]}
ROLES_W = {
    "2000": [(["Mailbox"], .88), (["ClientAccess"], .08), (["HubTransport"], .04)],
    "2003": [(["Mailbox"], .84), (["ClientAccess"], .10), (["HubTransport"], .06)],
    "2007": [(["Mailbox"], .45), (["Mailbox", "HubTransport", "ClientAccess"], .15),
             (["HubTransport", "ClientAccess"], .15), (["HubTransport"], .10),
             (["ClientAccess"], .08), (["Edge"], .05), (["Mailbox", "HubTransport"], .02)],
    "2010": [(["Mailbox"], .40), (["Mailbox", "HubTransport", "ClientAccess"], .25),
             (["HubTransport", "ClientAccess"], .15), (["HubTransport"], .08),
             (["ClientAccess"], .07), (["Edge"], .05)],
    "2013": [(["Mailbox", "ClientAccess"], .60), (["Mailbox"], .25), (["ClientAccess"], .10), (["Edge"], .05)],
    "2016": [(["Mailbox"], .92), (["Edge"], .08)],
    "2019": [(["Mailbox"], .92), (["Edge"], .08)],
    "SE": [(["Mailbox"], .95), (["Edge"], .05)],
}

MODERN_AG = "Exchange Administrative Group (FYDIBOHF23SPDLT)"

APP_HIERARCHIES = [
    "Projects", "Archive", "Engineering Docs", "Legal Hold", "HR Forms", "Workflow",
    "CRM Tracking", "Customer Files", "Öffentliche Projekte", "Product Catalog",
    "Quality Records", "Proyectos Compartidos", "Finance Reports", "Marketing Assets",
    "Support Cases", "Manufacturing", "Research", "Compliance", "Facilities",
    "Training", "Procurement", "Field Service", "Sales Ops", "IT Knowledge Base",
    "Document Library", "Plant Operations", "Regulatory Submissions", "共有アプリケーション",
    "Logistics", "Contracts", "Executive Briefings", "Partner Exchange", "Dossiers Clients",
    "Clinical Trials", "Release Management", "Safety Records", "Audit Trail",
    "Media Library", "Legacy Apps", "Intranet Feeds", "Help Desk",
]

DEPARTMENTS = [
    "Sales", "Marketing", "Engineering", "Finance", "Human Resources", "Legal", "IT",
    "Operations", "Support", "Facilities", "Procurement", "R&D", "Executive Office",
    "Communications", "Customer Service", "Logistics", "Manufacturing", "Quality",
    "Vertrieb", "Comptabilité", "Recursos Humanos", "営業部", "Département Juridique",
    "Ingeniería", "Produktion", "Logística", "Qualitätssicherung", "Бухгалтерия",
    "Treasury", "Internal Audit", "Security", "Product Management", "Public Relations",
    "Training", "Investor Relations", "Corporate Strategy", "Field Service", "Health & Safety",
    "Company Events", "All Staff", "Announcements", "Shared Calendars", "Shared Contacts",
]
TOPICS = [
    "Contracts", "Templates", "Minutes", "Customer Files", "Forms", "Drafts", "Old",
    "Invoices", "Reports", "Presentations", "Policies", "Procedures", "Projects",
    "Proposals", "Budgets", "Calendar", "Contacts", "Tasks", "Discussions", "Archive",
    "Incoming", "Outgoing", "Team", "Suppliers", "Partners", "Tenders", "Correspondence",
    "Meeting Notes", "Specifications", "Drawings", "Approvals", "Requests", "Schedules",
    "Travel", "Press", "Newsletters", "Onboarding", "Offboarding", "Benefits", "Payroll",
    "Escalations", "Knowledge Base", "FAQ", "Releases", "Change Requests", "Incidents",
    "Protokolle", "Verträge", "Réunions", "Devis", "Presupuestos", "Informes", "議事録",
    "Документы", "Faturas", "Relatórios", "Ärenden",
]
REGION_FOLDERS = ["EMEA", "Americas", "APAC", "LATAM", "MEA", "Nordics", "DACH", "Benelux",
                  "Iberia", "UK&I", "France", "Italia", "Japan", "ANZ", "India", "Greater China"]
CUSTOMERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell",
             "Cyberdyne", "Soylent", "Vandelay", "Wonka", "Müller AG", "Société Générale Démo",
             "Ñandú SA", "Åkerlund", "Østergaard", "Zhōngguó Trading", "Yamada 株式会社"]

DISPLAY_TEMPLATES = [
    "Public folder store {city}", "Öffentlicher Ordnerspeicher {city}",
    "Banque de dossiers publics – {city}", "Almacén de carpetas públicas {city}",
    "パブリック フォルダー ストア {city}", "Хранилище общих папок {city}",
    "Armazenamento de pastas públicas {city}", "公共文件夹存储 {city}",
]
SERVER_DISPLAY = ["Mail server {city}", "Serveur de messagerie – {city}", "Mailserver {city}",
                  "Servidor de correo {city}", "メールサーバー {city}", "Почтовый сервер {city}"]

REPL_DEFAULTS = [  # name, default seconds (or int count / size), kind
    ("Replication Send Always", 900, "dur"),
    ("Replication Send Folder Tree", 300, "dur"),
    ("Replication Timeout", 300, "dur"),
    ("Replication Expiry", 86400, "dur"),
    ("Replication New Replica Backfill Request Delay", 900, "dur"),
    ("Replication Short Backfill Request Delay", 6 * 3600, "dur"),
    ("Replication Long Backfill Request Delay", 12 * 3600, "dur"),
    ("Replication Short Backfill Request Timeout", 12 * 3600, "dur"),
    ("Replication Long Backfill Request Timeout", 24 * 3600, "dur"),
    ("Replication Short Backfill Request Timeout Retry", 24 * 3600, "dur"),
    ("Replication Long Backfill Request Timeout Retry", 48 * 3600, "dur"),
    ("Replication Folder Count Limit", 20, "int"),
    ("Replication Deleted Folder Count Limit", 500, "int"),
    ("Replication Message Count Limit", 100, "int"),
    ("Replication Message Size Limit", 307200, "size"),
]
BACKFILL_KEYS = [k for k, _, _ in REPL_DEFAULTS if "Backfill" in k]

REG_TYPOS = {
    "Track Duplicates (in hours)": ["Track Duplicate (in hours)", "Track Duplicates (in hour)",
                                    "Track Duplicates(in hours)"],
    "DeliveredTo Expiration in Hours": ["DeliveredTo Expiration In Hour", "Delivered To Expiration in Hours"],
    "Background Cleanup (in msecs)": ["Background Clean-up (in msecs)", "Background Cleanup (in ms)"],
    "Replication Send Status Timeout": ["Replication Send Status Timout", "Replication Status Send Timeout"],
    "Replication Send Status Alignment": ["Replication Send Status Allignment"],
}
REPL_TYPOS = {
    "Replication Message Size Limit": "Replication Message Size Limt",
    "Replication Send Always": "Replication Send Allways",
    "Replication Expiry": "Replication Expiration",
    "Replication Short Backfill Request Delay": "Replication Short Backfill Delay",
}


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------
def wchoice(rng, pairs):
    """Weighted choice from [(value, weight), ...]."""
    tot = sum(w for _, w in pairs)
    x = rng.random() * tot
    acc = 0.0
    for v, w in pairs:
        acc += w
        if x < acc:
            return v
    return pairs[-1][0]


def apportion(total, weights):
    s = sum(weights)
    raw = [total * w / s for w in weights]
    out = [int(r) for r in raw]
    rem = total - sum(out)
    order = sorted(range(len(raw)), key=lambda i: (out[i] - raw[i], i))
    for i in order[:rem]:
        out[i] += 1
    return out


def timespan(sec):
    neg = sec < 0
    sec = abs(int(sec))
    d, r = divmod(sec, 86400)
    h, r = divmod(r, 3600)
    m, s = divmod(r, 60)
    t = f"{d}.{h:02d}:{m:02d}:{s:02d}" if d else f"{h:02d}:{m:02d}:{s:02d}"
    return "-" + t if neg else t


def short(sec):
    for unit, div in (("d", 86400), ("h", 3600), ("m", 60)):
        if sec and sec % div == 0:
            return f"{sec // div}{unit}"
    return f"{sec}s"


def dur(rng, sec, p_short=0.25):
    if sec > 0 and rng.random() < p_short:
        return short(sec)
    return timespan(sec)


def size_val(rng, b):
    r = rng.random()
    if b % (1024 * 1024) == 0 and r < 0.5:
        return f"{b // (1024 * 1024)}MB"
    if b % 1024 == 0 and r < 0.8:
        return f"{b // 1024}KB"
    return b


def vary_case(rng, s):
    if not any(c.isalpha() for c in s):
        return s
    for _ in range(6):
        r = rng.random()
        if r < 0.35:
            t = s.lower()
        elif r < 0.6:
            t = s.upper()
        elif r < 0.8:
            t = s.swapcase()
        else:
            t = "".join(c.upper() if i % 2 == 0 else c.lower() for i, c in enumerate(s))
        if t != s:
            return t
    return s


def email_local(name):
    t = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()
    return t or "pf"


# --------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------
class Estate:
    def __init__(self, n, seed, defect_rate):
        self.n = max(1, n)
        self.rng = random.Random(seed)
        self.dr = defect_rate
        self.manifest = []
        self.org = wchoice(self.rng, [(o, 1) for o in ORG_NAMES]) if seed else "contoso"
        self.domain = f"{self.org}.com"

    # ---------------------------------------------------------------- util
    def defect(self, kind, name, code, detail=""):
        self.manifest.append({"kind": kind, "name": name, "defect": code, "detail": detail})

    def ref(self, name, p=0.03):
        """A reference as an admin would write it: occasionally in another case."""
        return vary_case(self.rng, name) if self.rng.random() < p else name

    # ---------------------------------------------------------------- sites
    def build_sites(self):
        rng = self.rng
        S = max(5, round(0.144 * self.n))
        counts = apportion(S, [r[2] for r in REGIONS])
        self.sites = []
        used = {}
        for ri, (rname, rcode, _, cities) in enumerate(REGIONS):
            cw = [1.0 / (i + 1) ** 0.7 for i in range(len(cities))]
            per_city = {}
            cnt = counts[ri]
            nhub = max(1, round(0.03 * cnt))
            for j in range(cnt):
                if j < len(cities) and j < cnt:
                    ci = j
                else:
                    ci = rng.choices(range(len(cities)), weights=cw)[0]
                tok, asc, code = cities[ci]
                k = per_city.get(ci, 0)
                per_city[ci] = k + 1
                use_uni = tok != asc and rng.random() < 0.35
                base = tok if use_uni else asc
                while True:
                    if k == 0:
                        name = base
                    else:
                        tag = wchoice(rng, SITE_TAGS)
                        name = f"{base}-{tag}-{k:02d}"
                    if name.lower() not in used:
                        break
                    k += 1
                    per_city[ci] = k + 1
                if k > 0 and rng.random() < 0.04:
                    name = name.upper()
                    if name.lower() in used:
                        name = f"{base}-X-{j:03d}"
                used[name.lower()] = True
                self.sites.append({
                    "name": name, "region": ri, "code": code, "city": tok,
                    "hub": j < nhub, "rank": j, "status": "main",
                    "pmodern": wchoice(rng, [(0.0, 0.47), (1.0, 0.48), (0.5, 0.05)]),
                    "weight": 1.0 / (j + 1) ** 0.85,
                })
        self.site_index = {s["name"].lower(): i for i, s in enumerate(self.sites)}
        # topology classes among non-hub sites
        nonhub = [i for i, s in enumerate(self.sites) if not s["hub"]]
        rng.shuffle(nonhub)
        n_iso = round(0.015 * S) if S >= 40 else 0
        n_far = round(0.02 * S) if S >= 20 else 0
        n_isl = round(0.012 * S) if S >= 60 else 0
        p = 0
        for i in nonhub[p:p + n_iso]:
            self.sites[i]["status"] = "isolated"
        p += n_iso
        for i in nonhub[p:p + n_far]:
            self.sites[i]["status"] = "far"
        p += n_far
        isl = nonhub[p:p + n_isl]
        half = (len(isl) + 1) // 2
        self.islands = [sorted(isl[:half]), sorted(isl[half:])] if len(isl) >= 4 else ([sorted(isl)] if isl else [])
        for g in self.islands:
            for i in g:
                self.sites[i]["status"] = "island"
        for s in self.sites:
            if s["status"] != "main":
                s["weight"] *= 0.5
        self.restricted_site = [s["status"] in ("isolated", "far", "island") for s in self.sites]

    def build_links(self):
        rng = self.rng
        L = max(2, round(0.128 * self.n))
        sites = self.sites
        main = [i for i, s in enumerate(sites) if s["status"] in ("main", "far")]
        # far sites attach last within their region, so they never become anchors
        main.sort(key=lambda i: (sites[i]["region"], sites[i]["status"] == "far", sites[i]["rank"]))
        comps = [main] + [g for g in self.islands if len(g) >= 2]
        T = sum(len(c) - 1 for c in comps)
        C = max(1, round(0.05 * L))
        Lt = L - C
        if Lt > T:
            Lt, C = T, L - T
        extras = [0] * max(Lt, 1)
        for _ in range(max(0, T - Lt)):
            for _try in range(20):
                j = rng.randrange(len(extras))
                if extras[j] < 3:
                    extras[j] += 1
                    break
        sizes = [1 + e for e in extras]  # new sites per tree link
        links = []
        lnames = {}
        pairs = {}

        def cost_normal():
            return wchoice(rng, [(1, 2), (5, 5), (10, 20), (15, 8), (20, 12), (25, 5), (30, 4),
                                 (40, 2), (50, 3), (100, 1)])

        def add_link(members, cost, name=None):
            a, b = sites[members[0]], sites[members[1]]
            if name is None:
                base = f"{a['code']}-{b['code']}"
                if len(members) > 2:
                    base += f"-MULTI{len(members)}"
                k = lnames.get(base.lower(), 0)
                lnames[base.lower()] = k + 1
                name = base if k == 0 else f"{base}-{k + 1:02d}"
                if rng.random() < 0.08:
                    name = "SL-" + name
                if rng.random() < 0.05:
                    name = name.lower()
            links.append({"name": name, "sites": list(members), "cost": cost})
            for x in members:
                for y in members:
                    if x < y:
                        pairs[(x, y)] = True

        si = 0
        for ci, comp in enumerate(comps):
            placed_by_region = {}
            hubs_by_region = {}
            root = comp[0]
            placed_by_region.setdefault(sites[root]["region"], []).append(root)
            hubs_by_region[sites[root]["region"]] = [root]
            pos = 1
            while pos < len(comp):
                k = sizes[si] if si < len(sizes) else 1
                si += 1
                new = comp[pos:pos + k]
                # far sites only in two-site links
                for q, x in enumerate(new):
                    if sites[x]["status"] == "far":
                        new = new[:q] if q > 0 else [x]
                        break
                # a region's first site joins through a two-site backbone link
                if sites[new[0]]["region"] not in placed_by_region:
                    new = new[:1]
                else:
                    new = [x for x in new if sites[x]["region"] == sites[new[0]]["region"]]
                pos += len(new)
                r = sites[new[0]]["region"]
                if r in placed_by_region:
                    pool = placed_by_region[r]
                    hp = hubs_by_region[r]
                    if sites[new[0]]["hub"]:
                        # regional hubs hang off the region's root with cheap links
                        anchor = hp[0]
                        cost = wchoice(rng, [(5, 2), (10, 4), (20, 2)])
                    else:
                        anchor = rng.choice(hp) if rng.random() < 0.55 else rng.choice(pool)
                        cost = cost_normal()
                    if sites[new[0]]["status"] == "far":
                        cost = wchoice(rng, [(600, 3), (750, 2), (999, 2), (1000, 3), (1500, 1),
                                             (rng.randint(51, 199) * 10, 2)])
                    elif not sites[new[0]]["hub"] and rng.random() < 0.03:
                        cost = rng.choice([100, 150])
                else:  # first site of a region: backbone link to the first region's root
                    anchor = comp[0]
                    cost = wchoice(rng, [(10, 2), (20, 3), (30, 2), (50, 2)])
                members = [anchor] + new
                add_link(members, cost)
                for x in new:
                    if sites[x]["status"] != "far":
                        placed_by_region.setdefault(sites[x]["region"], []).append(x)
                        if sites[x]["hub"] or sites[x]["region"] not in hubs_by_region:
                            hubs_by_region.setdefault(sites[x]["region"], []).append(x)
        # redundancy (cycle) links among main, non-far sites of one region
        by_region = {}
        for i in main:
            if sites[i]["status"] == "main":
                by_region.setdefault(sites[i]["region"], []).append(i)
        regions = sorted(by_region)
        h0 = [i for i in main if sites[i]["hub"] and sites[i]["region"] == sites[main[0]]["region"]][:4]
        if len(h0) >= 2 and len(links) < L:
            add_link(h0, 100, "DEFAULTIPSITELINK")
        guard = 0
        while len(links) < L and guard < 100000 and regions:
            guard += 1
            r = rng.choice(regions)
            pool = by_region[r]
            if len(pool) < 2:
                continue
            a = rng.choice(pool[:max(2, len(pool) // 10)]) if rng.random() < 0.5 else rng.choice(pool)
            b = rng.choice(pool)
            if a == b or (min(a, b), max(a, b)) in pairs:
                continue
            add_link([a, b], cost_normal())
        self.links = links
        # graph for my own sanity statistics (not written)
        self.adj = {}
        for ln in links:
            for x in ln["sites"]:
                for y in ln["sites"]:
                    if x != y:
                        self.adj.setdefault(x, []).append((y, ln["cost"]))

    # ---------------------------------------------------------------- hierarchies & AGs
    def build_hierarchies(self):
        H = 39 if self.n >= 400 else max(2, min(39, self.n // 10))
        names = ["Public Folders"] + APP_HIERARCHIES[:H - 1]
        self.hier = []
        for i, nm in enumerate(names):
            code = "MAPI" if i == 0 else (re.sub(r"[^A-Z]", "", nm.upper())[:4] or "APP") + f"{i:02d}"
            w = 1.0 if i == 0 else 1.0 / (i ** 0.75)
            self.hier.append({"name": nm, "type": "MAPI" if i == 0 else "Application",
                              "code": code, "w": w})
        self.remote_h = len(self.hier) - 1  # smallest app hierarchy: legacy remote servers

    def build_admin_groups(self):
        rng = self.rng
        M = max(2, round(self.n / 125))
        self.ags = [{"name": MODERN_AG, "region": None, "legacy": False}]
        names = {MODERN_AG.lower(): True}
        reg_w = [r[2] for r in REGIONS]
        per_region = apportion(M - 1, reg_w)
        for ri, cnt in enumerate(per_region):
            rname = REGIONS[ri][0]
            for k in range(cnt):
                if ri == 1 and k == 0:
                    nm = "First Administrative Group"
                else:
                    style = rng.random()
                    city = rng.choice(REGIONS[ri][3])[0]
                    if style < 0.5:
                        nm = f"{rname} Administrative Group {k + 1:02d}"
                    elif style < 0.8:
                        nm = f"{city} Administrative Group"
                    elif style < 0.9:
                        nm = f"Groupe d'administration {city}"
                    else:
                        nm = f"AG-{REGIONS[ri][1].upper()}-{k + 1:02d}"
                j = 2
                base = nm
                while nm.lower() in names:
                    nm = f"{base} {j}"
                    j += 1
                names[nm.lower()] = True
                self.ags.append({"name": nm, "region": ri, "legacy": True})
        self.ag_by_region = {}
        for i, ag in enumerate(self.ags):
            if ag["legacy"]:
                self.ag_by_region.setdefault(ag["region"], []).append(i)
        self.legacy_ags = [i for i, ag in enumerate(self.ags) if ag["legacy"]]

    # ---------------------------------------------------------------- servers
    def build_servers(self):
        rng = self.rng
        N = self.n
        cum = list(accumulate(s["weight"] for s in self.sites))
        total = cum[-1]
        used = {}
        seqs = {}
        self.servers = []
        p_def = self.dr * 0.9
        for i in range(N):
            si = bisect_left(cum, rng.random() * total)
            si = min(si, len(self.sites) - 1)
            site = self.sites[si]
            modern = rng.random() < site["pmodern"]
            ver = wchoice(rng, MODERN_W if modern else LEGACY_W)
            sp = wchoice(rng, SP_W[ver])
            roles = list(wchoice(rng, ROLES_W[ver]))
            # name
            vc = VCODE[ver]
            while True:
                if ver in ("2000", "2003") and rng.random() < 0.3:
                    key = (site["code"], "legacy")
                    q = seqs.get(key, 0) + 1
                    seqs[key] = q
                    name = rng.choice([f"{site['code']}EXCH{q:02d}", f"{site['code']}-MAIL{q:02d}",
                                       f"{site['code']}MSX{q:03d}"])
                else:
                    key = (site["code"], vc)
                    q = seqs.get(key, 0) + 1
                    seqs[key] = q
                    name = f"{vc}-{site['code']}-{q:03d}"
                if name.lower() not in used:
                    break
            used[name.lower()] = True
            r = rng.random()
            if r < 0.06:
                name = name.lower()
            elif r < 0.09:
                name = name.capitalize()
            if VRANK[ver] >= VRANK["2007"]:
                ag = 0
            else:
                pool = self.ag_by_region.get(site["region"]) or self.legacy_ags
                ag = rng.choice(pool)
            srv = {"i": i, "name": name, "uname": name, "version": ver, "sp": sp, "roles": roles,
                   "site": si, "site_name": site["name"], "ag": ag, "ag_name": self.ags[ag]["name"],
                   "region": site["region"], "dag": None, "cluster": None,
                   "restricted": self.restricted_site[si], "defect": None, "nostores": False,
                   "mapi_store": None, "stores": []}
            if ver == "2007" and sp == 0 and "HubTransport" in roles and rng.random() < 0.6:
                # keep RTE001 (2007 RTM hubs) rare
                srv["sp"] = 1
            if rng.random() < p_def:
                d = wchoice(rng, [("dup_name", 3), ("undefined_site", 3), ("undefined_ag", 2),
                                  ("bad_version", 1), ("bad_role", 1), ("bad_sp", 1),
                                  ("missing_site", 1), ("con001", 4), ("con003", 3),
                                  ("rtm_hub", 1)])
                if d == "dup_name" and i > 10:
                    srv["dup_of"] = rng.randrange(i)
                    srv["nostores"] = True
                elif d == "undefined_site":
                    srv["site_name"] = f"{site['city']}-Decom-{rng.randint(1, 99):02d}"
                    if srv["site_name"].lower() in self.site_index:
                        srv["site_name"] += "-OLD"
                    srv["restricted"] = True
                elif d == "undefined_ag":
                    srv["ag_name"] = rng.choice(["Old Administrative Group", "AG-Retired",
                                                 "Second Administrative Group (old)"])
                elif d == "missing_site":
                    srv["restricted"] = True
                elif d == "rtm_hub":
                    srv["version"] = "2007"
                    srv["sp"] = 0
                    srv["roles"] = ["HubTransport", "ClientAccess"]
                    srv["ag"] = 0
                    srv["ag_name"] = MODERN_AG
                elif d == "dup_name":
                    d = None
                if d:
                    srv["defect"] = d
            self.servers.append(srv)
        for srv in self.servers:
            if "dup_of" in srv:
                # a stale second record of an existing server (same site, version,
                # admin group), so that resolving the name either way agrees
                other = self.servers[srv["dup_of"]]
                srv["name"] = vary_case(rng, other["uname"])
                srv["defect"] = "dup_name"
                for k in ("site", "site_name", "region", "version", "sp", "ag", "ag_name", "restricted"):
                    srv[k] = other[k]
                srv["roles"] = [r for r in other["roles"] if r != "Mailbox"] or ["ClientAccess"]
        self.server_index = {s["uname"].lower(): s["i"] for s in self.servers}

    def shadow_capable(self, s):
        return VRANK[s["version"]] >= VRANK["2010"] and "Edge" not in s["roles"] and \
            ("Mailbox" in s["roles"] or "HubTransport" in s["roles"])

    def build_clusters(self):
        rng = self.rng
        by_site = {}
        for s in self.servers:
            if s["version"] in ("2000", "2003", "2007") and "Mailbox" in s["roles"] \
                    and not s["restricted"] and not s["nostores"] and not s["defect"]:
                by_site.setdefault(s["site"], []).append(s["i"])
        self.clusters = []
        for si in sorted(by_site):
            cand = by_site[si]
            j = 0
            while j < len(cand):
                if rng.random() < 0.10:
                    v = self.servers[cand[j]]["version"]
                    nevs = 1 if v == "2007" else wchoice(rng, [(1, .5), (2, .35), (3, .15)])
                    members = [c for c in cand[j:j + nevs] if self.servers[c]["version"] == v][:nevs]
                    if v == "2007":
                        mode = "ActivePassive"
                    else:
                        mode = "ActiveActive" if (len(members) >= 2 and rng.random() < 0.35) else "ActivePassive"
                    code = self.sites[si]["code"]
                    cname = f"CLU-{code}-{len(self.clusters) + 1:03d}"
                    nodes_n = len(members) if mode == "ActiveActive" else len(members) + 1
                    nodes_n = max(2, nodes_n)
                    nodes = [f"{code}NODE{len(self.clusters) + 1:03d}{chr(65 + q)}" for q in range(nodes_n)]
                    # exclusive: AA, or AP before 2003 SP1 (one instance of a hierarchy per cluster)
                    m0 = self.servers[members[0]]
                    excl = mode == "ActiveActive" or VRANK[v] < VRANK["2003"] or (v == "2003" and m0["sp"] < 1)
                    cl = {"name": cname, "mode": mode, "nodes": nodes, "members": members,
                          "exclusive": excl, "used": {}, "defect": False}
                    if excl and len(members) >= 2 and rng.random() < 0.12:
                        cl["defect"] = True
                    ci = len(self.clusters)
                    self.clusters.append(cl)
                    for m in members:
                        self.servers[m]["cluster"] = ci
                    j += len(members)
                else:
                    j += 1

    def build_dags(self):
        rng = self.rng
        sites = self.sites
        dag_site = [rng.random() < 0.7 for _ in sites]
        cands = [s for s in self.servers
                 if VRANK[s["version"]] >= VRANK["2010"] and "Mailbox" in s["roles"]
                 and not s["restricted"] and not s["nostores"] and dag_site[s["site"]]]
        fam = {"2010": 0, "2013": 1, "2016": 2, "2019": 3, "SE": 3}
        cands.sort(key=lambda s: (s["region"], fam[s["version"]], sites[s["site"]]["rank"], s["i"]))
        self.dags = []
        j = 0
        dag_names = {}
        while j < len(cands):
            size = wchoice(rng, [(2, 20), (3, 15), (4, 20), (5, 8), (6, 8), (8, 8), (10, 4), (12, 3), (16, 2)])
            grp = [cands[j]]
            k = j + 1
            while k < len(cands) and len(grp) < size and cands[k]["region"] == grp[0]["region"] \
                    and fam[cands[k]["version"]] == fam[grp[0]["version"]]:
                grp.append(cands[k])
                k += 1
            j = k
            if len(grp) == 1 and rng.random() < 1 - 0.25 * self.dr / 0.04:
                continue  # lone leftover: stays out of any DAG
            code = sites[grp[0]["site"]]["code"]
            q = dag_names.get(code, 0) + 1
            dag_names[code] = q
            name = f"DAG-{code}-{q:02d}" if rng.random() < 0.85 else f"{code}DAG{q:02d}"
            di = len(self.dags)
            self.dags.append({"name": name, "members": [s["i"] for s in grp]})
            for s in grp:
                s["dag"] = di
            if len(grp) == 1:
                self.defect("Server", grp[0]["name"], "SHD002", "single-member DAG")

    # ---------------------------------------------------------------- stores
    def build_stores(self):
        rng = self.rng
        H = len(self.hier)
        self.stores = []  # dict per store
        self.store_names = {}
        mbx_servers = [s for s in self.servers if "Mailbox" in s["roles"] and "Edge" not in s["roles"]
                       and not s["nostores"]]
        target_pf = 11.2 * self.n
        mean_k = max(1.0, target_pf / max(1, len(mbx_servers)))
        mean_k = min(mean_k, H * 0.6)
        app_w = [h["w"] for h in self.hier]
        p_def = self.dr
        for s in mbx_servers:
            restricted = s["restricted"]
            legacy_noref = VRANK[s["version"]] < VRANK["2007"]
            cl = self.clusters[s["cluster"]] if s["cluster"] is not None else None
            if restricted and legacy_noref:
                chosen = [self.remote_h] if rng.random() < 0.5 else []
            else:
                m = mean_k * (0.45 if restricted else 1.0)
                k = 1 + int(rng.gammavariate(2.2, max(0.1, (m - 1) / 2.2)))
                k = max(1, min(H, k))
                excluded = cl["used"] if (cl and cl["exclusive"] and not cl["defect"]) else {}
                chosen = []
                if 0 not in excluded and rng.random() < 0.92:
                    chosen.append(0)
                    k -= 1
                # Efraimidis-Spirakis weighted sample without replacement of apps
                keys = []
                for h in range(1, H):
                    if h in excluded:
                        continue
                    keys.append((rng.random() ** (1.0 / app_w[h]), h))
                keys.sort(reverse=True)
                chosen += [h for _, h in keys[:max(0, k)]]
                if cl and cl["defect"] and cl["members"] and s["i"] != cl["members"][0]:
                    # injected: a second instance of a hierarchy already on another EVS
                    prev = [h for h in cl["used"]]
                    if prev:
                        h = prev[0]
                        if h not in chosen:
                            chosen.append(h)
                        code = "HIE002" if cl["mode"] == "ActiveActive" else "HIE003"
                        self.defect("Server", s["name"], code, f"cluster {cl['name']} hierarchy {self.hier[h]['name']}")
                        cl["defect"] = False
                if cl:
                    for h in chosen:
                        cl["used"][h] = True
            chosen.sort()
            for h in chosen:
                self.add_store(s, h)
            if chosen and rng.random() < p_def * 0.08:
                h = rng.choice(chosen)
                st = self.add_store(s, h, suffix=True)
                st["defect"] = "HIE001"
                self.defect("PublicFolderDatabase", st["name"], "HIE001", f"second store of {self.hier[h]['name']} on {s['name']}")
        # per-store defects, decided before any index so that stores whose
        # identity is broken are never referenced by folders or lists
        for st in self.stores:
            if st["defect"] is None and rng.random() < p_def * 0.9:
                d = wchoice(rng, [("HIE004", 4), ("undefined_server", 2), ("undefined_hierarchy", 1),
                                  ("DUP001", 3), ("DUP002", 3), ("DUP003", 3), ("DUP005", 3),
                                  ("STS002", 2), ("STS003", 3), ("STS004", 2), ("STS005", 3),
                                  ("BKF002", 2), ("BKF003", 2), ("BKF004", 3), ("BKF005", 2),
                                  ("EXL005", 3), ("RTE003", 2), ("EXL003", 2)])
                srv = self.servers[st["srv"]]
                if d == "undefined_server" and VRANK[srv["version"]] < VRANK["2007"]:
                    d = "HIE004"
                if d in ("undefined_server", "undefined_hierarchy"):
                    st["noref"] = True
                if d == "undefined_server":
                    st["restricted"] = True  # unknown site: needs a custom referral list
                st["defect"] = d
        # duplicate-name extra documents (EXL006)
        n_dup = int(len(self.stores) * p_def * 0.03)
        for _ in range(n_dup):
            orig = rng.choice(self.stores)
            srv = rng.choice(mbx_servers)
            if srv["restricted"]:
                continue
            st = self.new_store_record(srv, orig["h"], vary_case(rng, orig["name"]))
            st["defect"] = "dup_name"
            st["noref"] = True
            self.stores.append(st)
            self.defect("PublicFolderDatabase", st["name"], "EXL006", f"duplicate of {orig['name']}")

    def new_store_record(self, srv, h, name):
        return {"name": name, "srv": srv["i"], "h": h, "defect": None, "noref": False,
                "hub": False, "restricted": srv["restricted"]}

    def add_store(self, srv, h, suffix=False):
        rng = self.rng
        un = srv["uname"]
        if h == 0:
            if srv["version"] in ("2000", "2003") and rng.random() < 0.7:
                name = f"Public Folder Store ({un})"
            else:
                name = rng.choice([f"PFDB-{un}", f"{un}-PFDB01", f"Public Folder Database {un}"])
        else:
            name = f"PF-{self.hier[h]['code']}-{un}"
        if suffix:
            name += " (2)"
        base = name
        j = 2
        while name.lower() in self.store_names:
            name = f"{base}-{j}"
            j += 1
        st = self.new_store_record(srv, h, name)
        self.store_names[name.lower()] = len(self.stores)
        self.stores.append(st)
        srv["stores"].append(len(self.stores) - 1)
        if h == 0 and srv["mapi_store"] is None:
            srv["mapi_store"] = len(self.stores) - 1
        return st

    def build_indexes(self):
        H = len(self.hier)
        self.h_all = [[] for _ in range(H)]
        self.h_region = [dict() for _ in range(H)]
        self.h_servers = [dict() for _ in range(H)]
        for idx, st in enumerate(self.stores):
            if st["noref"]:
                continue
            srv = self.servers[st["srv"]]
            self.h_servers[st["h"]][srv["i"]] = True
            if st["restricted"]:
                continue
            self.h_all[st["h"]].append(idx)
            self.h_region[st["h"]].setdefault(srv["region"], []).append(idx)
        # hubs: per hierarchy and region, a store on a hub site (or any main-site store)
        rng = self.rng
        self.hubs = []
        for h in range(H):
            hubs = {}
            for r in sorted(self.h_region[h]):
                pool = self.h_region[h][r]
                hp = [x for x in pool if self.sites[self.servers[self.stores[x]["srv"]]["site"]]["hub"]]
                cand = hp or pool
                if cand:
                    pick = rng.choice(cand)
                    hubs[r] = pick
                    self.stores[pick]["hub"] = True
            self.hubs.append(hubs)
        self.hub_servers = []
        for h in range(H):
            lst = []
            for r in sorted(self.hubs[h]):
                sv = self.servers[self.stores[self.hubs[h][r]]["srv"]]["name"]
                if sv not in lst:
                    lst.append(sv)
            self.hub_servers.append(lst)

    def build_site_folder_servers(self):
        rng = self.rng
        members = {}
        for s in self.servers:
            if s["mapi_store"] is not None and not s["restricted"] and not s["defect"]:
                members.setdefault(s["ag"], []).append(s["i"])
        self.sfs = {}
        for ai, ag in enumerate(self.ags):
            pool = members.get(ai, [])
            if pool:
                hubp = [x for x in pool if self.sites[self.servers[x]["site"]]["hub"]]
                self.sfs[ai] = rng.choice(hubp or pool)
        # injected HIE006 for big estates
        if len(self.ags) >= 20:
            cands = [ai for ai in range(1, len(self.ags)) if ai in self.sfs]
            if cands:
                a = cands[len(cands) // 2]
                del self.sfs[a]
                self.defect("Organization", self.org, "HIE006", f"admin group {self.ags[a]['name']} without site folder server")
            cands = [ai for ai in range(1, len(self.ags)) if ai in self.sfs]
            nomapi = [s["i"] for s in self.servers if s["mapi_store"] is None and "Mailbox" not in s["roles"]]
            if len(cands) > 3 and nomapi:
                a = cands[len(cands) // 3]
                self.sfs[a] = -1 - rng.choice(nomapi)  # negative: a server without a MAPI store
                self.defect("Organization", self.org, "HIE006", f"admin group {self.ags[a]['name']} site folder server has no MAPI store")
        self.ag_mapi = {}
        for s in self.servers:
            if s["mapi_store"] is not None and not s["restricted"] and not self.stores[s["mapi_store"]]["noref"]:
                self.ag_mapi.setdefault(s["ag"], []).append(s["mapi_store"])

    # ---------------------------------------------------------------- documents
    def org_doc(self):
        rng = self.rng
        sites = self.sites
        ags = []
        for ai, ag in enumerate(self.ags):
            d = {"name": ag["name"]}
            if ai in self.sfs:
                v = self.sfs[ai]
                d["siteFolderServer"] = self.ref(self.servers[v]["name"] if v >= 0 else self.servers[-1 - v]["name"])
            ags.append(d)
        site_list = [{"name": s["name"]} for s in sites]
        links = []
        n_undef = 0
        for ln in self.links:
            names = [self.ref(sites[x]["name"]) for x in ln["sites"]]
            if rng.random() < 0.005 * self.dr / 0.04:
                names.append(f"{sites[ln['sites'][0]]['city']}-Retired-{rng.randint(1, 9)}")
                n_undef += 1
                self.defect("Organization", self.org, "EXL007", f"site link {ln['name']} names undefined site {names[-1]}")
            links.append({"name": ln["name"], "sites": names, "cost": ln["cost"]})
        tc = {
            "ShadowRedundancyEnabled": True,
            "RejectMessageOnShadowFailure": False,
            "ShadowMessagePreferenceSetting": "PreferRemote",
            "MaxRetriesForRemoteSiteShadow": 4,
            "MaxRetriesForLocalSiteShadow": 2,
            "ShadowHeartbeatFrequency": "00:02:00",
            "ShadowResubmitTimeSpan": "03:00:00",
            "ShadowMessageAutoDiscardInterval": "2.00:00:00",
            "SafetyNetHoldTime": "2.00:00:00",
        }
        spec = {
            "hierarchies": [{"name": h["name"], "type": h["type"]} for h in self.hier],
            "adminGroups": ags,
            "sites": site_list,
            "siteLinks": links,
            "routing": ({"PFReplicaAgeThreshold": rng.choice(["2.00:00:00", "2.00:00:00", "1.00:00:00", "3d"])}
                        if rng.random() < 0.7 else {"PFReplicaAgeThresholdHours": rng.choice([48, 48, 24, 72])}),
            "transportConfig": tc,
        }
        return {"apiVersion": API, "kind": "Organization",
                "metadata": {"name": self.org, "labels": {"owner": "messaging-team", "source": "inventory-export"}},
                "spec": spec}

    def labels(self, kind, s, city=None):
        rng = self.rng
        if rng.random() >= 0.22:
            return None
        lab = {}
        if rng.random() < 0.8:
            lab["owner"] = rng.choice(["messaging-team", "exchange-ops", "emea-it", "na-infra", "apac-mail", "legacy-mail"])
        if rng.random() < 0.5:
            lab["region"] = REGIONS[s["region"]][1]
        if city and rng.random() < 0.45:
            tpl = rng.choice(DISPLAY_TEMPLATES if kind != "Server" else SERVER_DISPLAY)
            lab["displayName"] = tpl.format(city=city)
        if rng.random() < 0.2:
            lab["cost-center"] = f"CC-{rng.randint(1000, 9999)}"
        if rng.random() < 0.1:
            lab["change"] = f"CHG{rng.randint(10000, 99999)}"
        return lab

    def server_doc(self, s):
        rng = self.rng
        d = s["defect"]
        ver = s["version"]
        spec = {}
        if d == "bad_version":
            spec["version"] = rng.choice(["2012", "Exchange 2010", "15.1", "2005"])
        elif ver != "SE" and rng.random() < 0.15:
            spec["version"] = int(ver)
        else:
            spec["version"] = ver
        spec["servicePack"] = f"SP{s['sp']}" if d == "bad_sp" else s["sp"]
        if d != "missing_site":
            spec["site"] = self.ref(s["site_name"], 0.04)
        spec["adminGroup"] = self.ref(s["ag_name"], 0.02)
        roles = list(s["roles"])
        if d == "bad_role":
            roles[0] = rng.choice(["Hub Transport", "MailboxServer", "CAS", "UnifiedMessaging"])
        elif len(roles) > 1 and rng.random() < 0.2:
            roles = roles[::-1]
        spec["roles"] = roles
        if s["dag"] is not None:
            spec["dag"] = self.ref(self.dags[s["dag"]]["name"], 0.02)
        elif rng.random() < 0.05:
            spec["dag"] = None
        if s["cluster"] is not None:
            cl = self.clusters[s["cluster"]]
            spec["cluster"] = {"name": cl["name"], "mode": cl["mode"], "physicalNodes": cl["nodes"]}
        # connectors (Set-ReceiveConnector / Set-SendConnector exist from 2007)
        edge = "Edge" in roles
        hub = "HubTransport" in s["roles"] or edge or (VRANK[ver] >= VRANK["2013"] and "Mailbox" in s["roles"])
        if hub and VRANK[ver] >= VRANK["2007"] and d not in ("bad_version",):
            n_rc = wchoice(rng, [(1, 3), (2, 4), (3, 2), (4, 1)])
            dct = 300 if edge else 600
            dit = 60 if edge else 300
            rcs = []
            base_names = [f"Default {s['name']}", f"Client {s['name']}", f"Default Frontend {s['name']}",
                          f"Relay {self.sites[s['site']]['code']}", f"Partner TLS {rng.choice(CUSTOMERS)}",
                          f"Anonymous Relay {rng.randint(1, 9)}"]
            bad_idx = rng.randrange(n_rc) if d in ("con001", "con003") else -1
            for q in range(n_rc):
                rc = {"name": base_names[q] if q < 3 else rng.choice(base_names[3:]) + f" #{q}"}
                ct, it = dct, dit
                if rng.random() < 0.1:
                    ct = rng.choice([900, 1200, 1800, 3600])
                if rng.random() < 0.08:
                    it = rng.choice([120, 180, 240]) if ct > 240 else 30
                if q == bad_idx and d == "con001":
                    it = ct if rng.random() < 0.4 else ct + rng.choice([60, 300, 600])
                    rc["ConnectionTimeout"] = dur(rng, ct, 0.2)
                    rc["ConnectionInactivityTimeout"] = dur(rng, it, 0.2)
                elif q == bad_idx and d == "con003":
                    bad = rng.choice([0, 2 * 86400, 7 * 86400])
                    rc["ConnectionTimeout"] = timespan(bad) if rng.random() < 0.7 else short(bad) if bad else "0s"
                    rc["ConnectionInactivityTimeout"] = dur(rng, it, 0.2)
                else:
                    if rng.random() < 0.72:
                        rc["ConnectionTimeout"] = dur(rng, ct, 0.2)
                    if rng.random() < 0.72:
                        rc["ConnectionInactivityTimeout"] = dur(rng, it, 0.2)
                rcs.append(rc)
            spec["receiveConnectors"] = rcs
            if (edge or "HubTransport" in s["roles"] or VRANK[ver] >= VRANK["2013"]) and rng.random() < 0.35:
                scs = []
                for q in range(wchoice(rng, [(1, 6), (2, 3), (3, 1)])):
                    sc = {"name": ["Internet", f"To {rng.choice(CUSTOMERS)}",
                                   f"EdgeSync - {self.sites[s['site']]['name']} to Internet"][q]}
                    if rng.random() < 0.7:
                        sc["ConnectionInactivityTimeOut"] = dur(rng, 600 if rng.random() < 0.9 else rng.choice([300, 900, 1800]), 0.2)
                    scs.append(sc)
                spec["sendConnectors"] = scs
        elif hub and rng.random() < 0.03 and VRANK[ver] >= VRANK["2007"]:
            spec["receiveConnectors"] = []
        meta = {"name": s["name"]}
        lab = self.labels("Server", s, self.sites[s["site"]]["city"])
        if lab is not None:
            meta["labels"] = lab
        if d:
            code = {"dup_name": "EXL006", "undefined_site": "EXL007", "undefined_ag": "EXL007",
                    "bad_version": "EXL003", "bad_role": "EXL003", "bad_sp": "EXL003",
                    "missing_site": "EXL003", "con001": "CON001", "con003": "CON003", "rtm_hub": "RTE001"}[d]
            if d in ("con001", "con003") and "receiveConnectors" not in spec:
                pass
            else:
                self.defect("Server", s["name"], code, d)
        return {"apiVersion": API, "kind": "Server", "metadata": meta, "spec": spec}

    def created_date(self, ver):
        rng = self.rng
        y0 = {"2000": 2000, "2003": 2003, "2007": 2007, "2010": 2010, "2013": 2013,
              "2016": 2016, "2019": 2019, "SE": 2025}[ver]
        y = min(2025, y0 + int(rng.random() * rng.random() * 6))
        m = rng.randint(1, 12)
        dd = rng.randint(1, 28)
        if rng.random() < 0.12:
            return f"{y:04d}-{m:02d}-{dd:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        return f"{y:04d}-{m:02d}-{dd:02d}"

    def dup_registry(self, reg, ver, defect):
        """Track Duplicates / DeliveredTo values; returns the defect code applied, if any."""
        rng = self.rng
        legacy = ver in ("2000", "2003")
        if defect == "DUP001" and legacy:
            reg["Track Duplicates (in hours)"] = rng.choice([1200, 1500, 2000, 4800, 8760, 10000])
            return "DUP001"
        if defect == "DUP002" and legacy:
            reg["Track Duplicates (in hours)"] = rng.choice([192, 240, 336, 500, 720, 1000, 1176])
            return "DUP002"
        if defect == "DUP003":
            if legacy:
                reg["Track Duplicates (in hours)"] = rng.choice([1, 2])
            else:
                reg["DeliveredTo Expiration in Hours"] = rng.choice([1, 2])
            return "DUP003"
        if defect == "DUP005":
            if legacy:
                reg["Track Duplicates (in hours)"] = rng.choice([24, 48, 72])
                reg["DeliveredTo Expiration in Hours"] = 168
            else:
                reg["Track Duplicates (in hours)"] = rng.choice([1, 24, 168])
            return "DUP005"
        if legacy:
            if rng.random() < 0.98:
                reg["Track Duplicates (in hours)"] = wchoice(rng, [(3, 1), (4, 2), (6, 2), (12, 3), (24, 8),
                                                                   (48, 4), (72, 3), (96, 1), (120, 1), (168, 4)])
            else:
                return "DUP003-default"
        else:
            if rng.random() < 0.08:
                reg["DeliveredTo Expiration in Hours"] = wchoice(rng, [(168, 6), (72, 2), (24, 1), (336, 1)])
        return None

    def pfdb_doc(self, idx):
        rng = self.rng
        st = self.stores[idx]
        srv = self.servers[st["srv"]]
        ver = srv["version"]
        name = st["name"]
        spec = {}
        defect = st["defect"]
        codes = []
        if defect == "undefined_server":
            spec["server"] = f"{srv['uname']}-OLD"
            codes.append(("EXL007", "undefined server"))
        else:
            spec["server"] = self.ref(srv["name"])
        if defect == "undefined_hierarchy":
            spec["hierarchy"] = rng.choice(["Public Folder", "Projects (old)", "Apps", "Legacy TLH"])
            codes.append(("EXL007", "undefined hierarchy"))
        else:
            spec["hierarchy"] = self.ref(self.hier[st["h"]]["name"], 0.02)
        g = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        spec["guid"] = g.upper() if rng.random() < 0.05 else g
        r = rng.random()
        if r < 0.02:
            pass  # RTE002 (info): no created date
        elif r < 0.03:
            spec["created"] = None
        elif defect == "EXL003" and rng.random() < 0.5:
            spec["created"] = rng.choice(["14/03/2006", "last year", "2006-13-45"])
            codes.append(("EXL003", "bad created date"))
            defect = "done"
        else:
            spec["created"] = self.created_date(ver)
        if defect == "HIE004":
            r = rng.random()
            if r < 0.5:
                pass
            elif r < 0.8:
                spec["emailAddress"] = None
            else:
                spec["emailAddress"] = ""
            codes.append(("HIE004", "no e-mail address"))
        else:
            spec["emailAddress"] = f"{email_local(st['name'])}@{self.domain}"
        # registry
        reg = {}
        dcode = self.dup_registry(reg, ver, defect if defect in ("DUP001", "DUP002", "DUP003", "DUP005") else None)
        if dcode and dcode != "DUP003-default":
            codes.append((dcode, "registry duplicate tracking"))
        if rng.random() < 0.06:
            reg["Background Cleanup (in msecs)"] = 60000 if rng.random() < 0.75 else rng.choice([30000, 120000, 300000, 600000])
        if defect in ("STS002", "STS003", "STS004") or rng.random() < 0.05:
            t, a, k = 86400, 43200, 0
            if rng.random() < 0.15:
                t, a, k = rng.choice([(172800, 43200, 0), (86400, 21600, 900), (86400, 43200, 3600)])
            if defect == "STS002":
                k = rng.choice([a, a + 60, 50000])
            elif defect == "STS003":
                if rng.random() < 0.5:
                    t = 84600
                else:
                    a = 42300
            elif defect == "STS004":
                t = rng.choice([3600, 7200, 21600, 40000])
            if defect in ("STS002", "STS003", "STS004"):
                codes.append((defect, "status timing"))
            reg["Replication Send Status Timeout"] = t
            if rng.random() < 0.8 or defect in ("STS002", "STS003"):
                reg["Replication Send Status Alignment"] = a
            if rng.random() < 0.6 or defect == "STS002":
                reg["Replication Send Status Alignment Skew"] = k
        if defect == "BKF002":
            reg["Preferred Backfill Source"] = rng.choice([f"{srv['uname']}-DR", "EX03-OLD-001",
                                                           f"CN=Public Folder Store (OLDSRV{rng.randint(1, 99):02d}),CN=First Storage Group,CN=InformationStore"])
            codes.append(("BKF002", "unknown backfill source"))
        elif defect == "BKF003":
            reg["Preferred Backfill Source"] = srv["name"]
            codes.append(("BKF003", "own server"))
        elif rng.random() < 0.012:
            peers = self.h_all[st["h"]]
            if len(peers) > 1:
                p = self.stores[rng.choice(peers)]
                if p["srv"] != st["srv"]:
                    psrv = self.servers[p["srv"]]
                    reg["Preferred Backfill Source"] = rng.choice([
                        psrv["name"], p["name"],
                        f"CN={p['name']},CN=First Storage Group,CN=InformationStore,CN={psrv['name']},CN=Servers,"
                        f"CN={psrv['ag_name']},CN=Administrative Groups,CN={self.org},CN=Microsoft Exchange,"
                        f"CN=Services,CN=Configuration,DC={self.org},DC=com"])
        if defect == "EXL005":
            if reg and rng.random() < 0.6:
                k0 = next((k for k in reg if k in REG_TYPOS), None)
                if k0:
                    reg[rng.choice(REG_TYPOS[k0])] = reg.pop(k0)
                else:
                    reg["Track Duplicate (in hours)"] = 24
            else:
                reg["Replication Send Status Timout"] = 86400
            codes.append(("EXL005", "unknown registry name"))
            defect = "done"
        if reg:
            spec["registry"] = reg
        elif rng.random() < 0.01:
            spec["registry"] = {}
        # replication
        repl = {}
        want_repl = defect in ("BKF004", "BKF005", "STS005") or (defect == "EXL005") or rng.random() < 0.07
        if want_repl:
            vals = {k: v for k, v, _ in REPL_DEFAULTS}
            if rng.random() < 0.15:  # consistent non-default backfill tuning (BKF006 info)
                f = rng.choice([0.5, 2])
                for k in BACKFILL_KEYS:
                    if "New Replica" not in k:
                        vals[k] = int(vals[k] * f)
            if rng.random() < 0.1:
                vals["Replication Send Always"] = 600
            if rng.random() < 0.08:
                vals["Replication Expiry"] = rng.choice([43200, 172800])
            forced = []
            if defect == "BKF004":
                c = rng.random()
                if c < 0.4:
                    vals["Replication Short Backfill Request Delay"] = 14 * 3600  # > short timeout (12h) and > long delay
                elif c < 0.7:
                    vals["Replication Long Backfill Request Timeout Retry"] = 12 * 3600
                else:
                    vals["Replication New Replica Backfill Request Delay"] = 8 * 3600
                forced = [k for k in BACKFILL_KEYS]
                codes.append(("BKF004", "backfill order"))
            elif defect == "BKF005":
                vals["Replication Send Always"] = rng.choice([3600, 7200])
                forced = ["Replication Send Always"]
                codes.append(("BKF005", "backfill delay shorter than send interval"))
            elif defect == "STS005":
                c = rng.random()
                if c < 0.5:
                    vals["Replication Message Size Limit"] = rng.choice([51200, 20 * 1024 * 1024, 50 * 1024 * 1024])
                    forced = ["Replication Message Size Limit"]
                else:
                    key = rng.choice(["Replication Folder Count Limit", "Replication Deleted Folder Count Limit",
                                      "Replication Message Count Limit"])
                    vals[key] = rng.choice([0, 1500, 5000])
                    forced = [key]
                codes.append(("STS005", "packing limit out of range"))
            if rng.random() < 0.35:
                keys = [k for k, _, _ in REPL_DEFAULTS]
            else:
                keys = [k for k, _, _ in REPL_DEFAULTS if rng.random() < 0.3]
            keys = [k for k, _, _ in REPL_DEFAULTS if k in keys or k in forced]
            if defect == "BKF004":
                keys = [k for k, _, _ in REPL_DEFAULTS if k in keys or k in BACKFILL_KEYS]
            for k in keys:
                kind = next(t for kk, _, t in REPL_DEFAULTS if kk == k)
                v = vals[k]
                if kind == "dur":
                    repl[k] = dur(rng, v, 0.6)
                elif kind == "size":
                    repl[k] = size_val(rng, v)
                else:
                    repl[k] = v
            if defect == "EXL003" and repl:
                k0 = rng.choice(list(repl))
                repl[k0] = rng.choice(["fifteen minutes", True, [15]])
                codes.append(("EXL003", f"bad type for {k0}"))
                defect = "done"
            if defect == "EXL005" and repl:
                k0 = next((k for k in repl if k in REPL_TYPOS), None)
                if k0:
                    repl[REPL_TYPOS[k0]] = repl.pop(k0)
        if repl:
            spec["replication"] = repl
        # referrals (custom lists exist from Exchange 2007)
        modern = VRANK[ver] >= VRANK["2007"]
        if modern:
            need = st["restricted"]
            if need or defect == "RTE003" or rng.random() < 0.03:
                use = need or defect == "RTE003" or rng.random() < 0.4
                cl = []
                seen = {}
                targets = list(self.hub_servers[st["h"]])
                peers = self.h_all[st["h"]]
                for _ in range(rng.randint(0, 3)):
                    if peers:
                        targets.append(self.servers[self.stores[rng.choice(peers)]["srv"]]["name"])
                for t in targets:
                    if t.lower() in seen or t.lower() == srv["name"].lower():
                        continue
                    seen[t.lower()] = True
                    if ver == "2007":
                        c = wchoice(rng, [(1, 2), (5, 2), (10, 5), (20, 3), (50, 2), (100, 1)])
                    else:
                        c = wchoice(rng, [(1, 2), (10, 5), (20, 3), (50, 2), (100, 2), (250, 1), (1000, 1)])
                    cl.append({"server": self.ref(t), "cost": c})
                if defect == "RTE003" and cl:
                    q = rng.randrange(len(cl))
                    cl[q]["cost"] = rng.choice([0, 101, 150, 500]) if ver == "2007" else rng.choice([0, -5])
                    codes.append(("RTE003", "referral cost out of range"))
                if cl or use:
                    spec["referrals"] = {"useCustomList": use, "customList": cl} if (cl or rng.random() < 0.5) \
                        else {"useCustomList": use}
        meta = {"name": name}
        lab = self.labels("PublicFolderDatabase", srv, self.sites[srv["site"]]["city"])
        if lab is not None:
            meta["labels"] = lab
        for c, det in codes:
            self.defect("PublicFolderDatabase", name, c, det)
        return {"apiVersion": API, "kind": "PublicFolderDatabase", "metadata": meta, "spec": spec}

    def mbx_docs(self, srv, used_names):
        rng = self.rng
        out = []
        mean = 1.5 * self.n / max(1, self.n_mbx_servers)
        k = int(rng.gammavariate(1.6, mean / 1.6) + 0.5)
        if srv["nostores"] or "Mailbox" not in srv["roles"] or "Edge" in srv["roles"]:
            k = 0
        ver = srv["version"]
        for q in range(k):
            if ver in ("2000", "2003"):
                name = f"Mailbox Store {q + 1} ({srv['uname']})" if q or rng.random() < 0.5 else f"Mailbox Store ({srv['uname']})"
            elif ver == "2007":
                name = f"{srv['uname']}-SG{q + 1}-MBX"
            else:
                name = f"Mailbox Database {rng.randint(10 ** 9, 10 ** 10 - 1)}" if rng.random() < 0.5 else f"MBXDB-{srv['uname']}-{q + 1:02d}"
            while name.lower() in used_names:
                name += "-1"
            used_names[name.lower()] = True
            defect = None
            if rng.random() < self.dr * 0.9:
                defect = wchoice(rng, [("dup_name", 2), ("undefined_server", 1), ("undefined_pf", 2),
                                       ("DUP001", 2), ("DUP002", 2), ("DUP003", 2), ("DUP005", 3), ("EXL005", 1)])
            codes = []
            if defect == "dup_name" and self.mbx_names_list:
                name = vary_case(rng, rng.choice(self.mbx_names_list))
                codes.append(("EXL006", "duplicate name"))
            else:
                self.mbx_names_list.append(name)
            spec = {}
            if defect == "undefined_server":
                spec["server"] = srv["uname"] + "-OLD"
                codes.append(("EXL007", "undefined server"))
            else:
                spec["server"] = self.ref(srv["name"])
            # default public folder database: own MAPI store, else a MAPI store in region
            if defect == "undefined_pf":
                spec["defaultPublicFolderDatabase"] = f"Public Folder Store ({srv['uname']}-OLD)"
                codes.append(("EXL007", "undefined default PF database"))
            else:
                pf = None
                legacy_pref = ver in ("2000", "2003") and rng.random() < 0.12
                own = srv["mapi_store"]
                if own is not None and not self.stores[own]["noref"] and (
                        legacy_pref or VRANK[ver] >= VRANK["2007"] or rng.random() < 0.1):
                    pf = own
                if pf is None:
                    pool = self.mapi_modern_region.get(srv["region"]) or self.mapi_modern_all
                    if legacy_pref:
                        pool = self.mapi_legacy_region.get(srv["region"]) or pool
                    if pool:
                        pf = rng.choice(pool)
                if pf is not None and rng.random() > 0.02:
                    spec["defaultPublicFolderDatabase"] = self.ref(self.stores[pf]["name"])
                elif rng.random() < 0.5:
                    spec["defaultPublicFolderDatabase"] = None
            reg = {}
            dc = self.dup_registry(reg, ver, defect if defect in ("DUP001", "DUP002", "DUP003", "DUP005") else None)
            if dc and dc != "DUP003-default":
                codes.append((dc, "registry duplicate tracking"))
            if rng.random() < 0.03:
                reg["Background Cleanup (in msecs)"] = 60000
            if defect == "EXL005":
                if "Track Duplicates (in hours)" in reg:
                    reg["Track Duplicates (in hour)"] = reg.pop("Track Duplicates (in hours)")
                else:
                    reg["DeliveredTo Expiration In Hour"] = 168
                codes.append(("EXL005", "unknown registry name"))
            if reg:
                spec["registry"] = reg
            meta = {"name": name}
            if rng.random() < 0.08:
                meta["labels"] = {"owner": rng.choice(["messaging-team", "exchange-ops", "helpdesk"]),
                                  "tier": rng.choice(["gold", "silver", "bronze"])}
            doc = {"apiVersion": API, "kind": "MailboxDatabase", "metadata": meta, "spec": spec}
            if rng.random() < 0.0002 * self.dr / 0.04:
                if rng.random() < 0.5:
                    doc["apiVersion"] = "exlint/v2"
                else:
                    doc["kind"] = "MailboxStore"
                codes = [("EXL004", "unknown apiVersion or kind")]
            for c, det in codes:
                self.defect(doc["kind"], name, c, det)
            out.append(doc)
        return out

    # ---------------------------------------------------------------- folders
    def folder_docs(self, write):
        rng = self.rng
        H = len(self.hier)
        F = max(H * 3, round(7.2 * self.n))
        stores = self.stores
        servers = self.servers
        counts_h = [max(1, len(self.h_all[h])) for h in range(H)]
        counts_h[self.remote_h] = max(1, counts_h[self.remote_h] // 3)  # few folders in the branch-office TLH
        per_h = apportion(F, counts_h)
        used = {}
        reg_w = [r[2] for r in REGIONS]
        total_replicas = [0]
        nfold = [0]
        self.all_folder_names = []

        def store_ref(idx):
            return self.ref(stores[idx]["name"], 0.03)

        def pick_replicas(h, home, k):
            allp = self.h_all[h]
            if not allp:
                return []
            k = min(k, len(allp))
            chosen = []
            seen = {}
            hub = self.hubs[h].get(home)
            if hub is None and self.hubs[h]:
                hub = self.hubs[h][sorted(self.hubs[h])[0]]
            if hub is not None and rng.random() < 0.992:
                chosen.append(hub)
                seen[hub] = True
            loc = self.h_region[h].get(home, [])
            tries = 0
            while len(chosen) < k and tries < k * 6:
                tries += 1
                pool = loc if (loc and rng.random() < 0.7) else allp
                x = pool[int(rng.random() * len(pool))]
                if x in seen:
                    continue
                seen[x] = True
                chosen.append(x)
            rng.shuffle(chosen)
            return chosen

        def emit(name, h, tree, sysf, adminGroup, replicas, deletePending, defects, explicit_null_sys):
            spec = {"hierarchy": self.ref(self.hier[h]["name"], 0.02) if isinstance(h, int) else h,
                    "tree": tree}
            if sysf is not None:
                spec["systemFolder"] = sysf
            elif explicit_null_sys:
                spec["systemFolder"] = None
            if adminGroup is not None:
                spec["adminGroup"] = adminGroup
            spec["replicas"] = replicas
            if deletePending is not None:
                spec["deletePending"] = deletePending
            doc = {"apiVersion": API, "kind": "PublicFolder", "metadata": {"name": name}, "spec": spec}
            if rng.random() < 0.0002 * self.dr / 0.04:
                doc["kind"] = "PublicFolders" if rng.random() < 0.5 else doc["kind"]
                if doc["kind"] == "PublicFolder":
                    doc["apiVersion"] = "exlint/v0"
                defects = defects + [("EXL004", "unknown apiVersion or kind")]
            for c, det in defects:
                self.defect(doc["kind"], name, c, det)
            total_replicas[0] += len(replicas)
            nfold[0] += 1
            write(doc)

        def unique(path):
            base = path
            j = 2
            while path.lower() in used:
                path = f"{base} ({j})"
                j += 1
            used[path.lower()] = True
            return path

        org = self.org
        for h in range(H):
            hname = self.hier[h]["name"]
            budget = per_h[h]
            made = 0
            # ---- system folders (NON_IPM_SUBTREE)
            if h == 0:
                for parent in ("/SCHEDULE+ FREE BUSY", "/OFFLINE ADDRESS BOOK", "/EFORMS REGISTRY"):
                    p = unique(parent)
                    reps = pick_replicas(h, 0, 2)
                    emit(p, h, "NON_IPM_SUBTREE", None, None, [store_ref(x) for x in reps], None, [], True)
                    made += 1
                for ai, ag in enumerate(self.ags):
                    for parent in ("/SCHEDULE+ FREE BUSY", "/OFFLINE ADDRESS BOOK"):
                        p = unique(f"{parent}/EX:/o={org}/ou={ag['name']}")
                        reps = []
                        sfs = self.sfs.get(ai)
                        defects = []
                        inj = rng.random() < self.dr
                        if sfs is not None and sfs >= 0 and servers[sfs]["mapi_store"] is not None and not inj:
                            reps.append(servers[sfs]["mapi_store"])
                        elif inj and sfs is not None and sfs >= 0:
                            defects.append(("REP009", "site folder without replica on site folder server"))
                        pool = self.ag_mapi.get(ai) or self.h_all[0]
                        for _ in range(rng.randint(1, 3)):
                            if pool:
                                x = rng.choice(pool)
                                if x not in reps and (not inj or sfs is None or sfs < 0 or stores[x]["srv"] != sfs):
                                    reps.append(x)
                        agname = ag["name"] if len(self.ags) > 1 or rng.random() < 0.5 else None
                        emit(p, h, "NON_IPM_SUBTREE", "SiteFolder", self.ref(agname, 0.02) if agname else None,
                             [store_ref(x) for x in reps], None if rng.random() < 0.6 else [], defects, False)
                        made += 1
            suffix = "" if h == 0 else f" ({hname})"
            for sysf in ("Restrictions", "Views"):
                p = unique(f"/{sysf}{suffix}")
                reps = pick_replicas(h, rng.choice(sorted(self.hubs[h])) if self.hubs[h] else 0, 1)[:1]
                defects = []
                if rng.random() < self.dr * 2 and len(self.h_all[h]) > 2:
                    extra = pick_replicas(h, 0, 3)
                    reps = reps + [x for x in extra if x not in reps][:2]
                    defects.append(("REP008", f"{sysf} folder with several replicas"))
                emit(p, h, "NON_IPM_SUBTREE", sysf, None, [store_ref(x) for x in reps], [], defects, False)
                made += 1
            if rng.random() < 0.7:
                p = unique(f"/StoreEvents{{{uuid.UUID(int=rng.getrandbits(128), version=4)}}}")
                reps = pick_replicas(h, 0, 1)
                emit(p, h, "NON_IPM_SUBTREE", None, None, [store_ref(x) for x in reps], None, [], rng.random() < 0.5)
                made += 1
            # ---- IPM tree
            nodes = []  # (path, depth, home region)
            if h == 0:
                tops = list(DEPARTMENTS)
                rng.shuffle(tops)
                tops = tops[:max(3, min(len(tops), budget // 40))]
            else:
                tops = [hname] + [f"{hname} {y}" for y in rng.sample(range(2001, 2025), 3)] + \
                       [f"{hname} - {x}" for x in rng.sample(REGION_FOLDERS, 2)]
                tops = tops[:max(1, min(len(tops), budget // 30))]
            while made < budget:
                if nodes and (len(nodes) >= len(tops)):
                    # choose a parent: prefer shallower nodes
                    for _ in range(8):
                        par = nodes[int(rng.random() ** 1.3 * len(nodes))]
                        if par[1] < 7:
                            break
                    c = rng.random()
                    if c < 0.35:
                        child = rng.choice(TOPICS)
                    elif c < 0.5:
                        child = rng.choice(REGION_FOLDERS)
                    elif c < 0.62:
                        child = str(rng.randint(2001, 2024))
                    elif c < 0.72:
                        child = rng.choice(CUSTOMERS)
                    elif c < 0.82:
                        child = f"PRJ-{rng.randint(1, 9999):04d}"
                    elif c < 0.9:
                        child = rng.choice(REGIONS[par[2]][3])[0]
                    else:
                        child = f"{rng.choice(TOPICS)} {rng.choice(['Q1', 'Q2', 'Q3', 'Q4', 'H1', 'H2'])}"
                    if rng.random() < 0.03:
                        child = child.upper()
                    path = unique(f"{par[0]}/{child}")
                    depth = par[1] + 1
                    home = par[2] if rng.random() < 0.85 else rng.choices(range(len(REGIONS)), weights=reg_w)[0]
                else:
                    path = unique(f"/{tops[len(nodes)]}")
                    depth = 1
                    home = rng.choices(range(len(REGIONS)), weights=reg_w)[0]
                nodes.append((path, depth, home))
                self.all_folder_names.append((path, h))
                # replica count: mostly a handful, long tail to 60
                if rng.random() < 0.03:
                    k = 1
                else:
                    k = int(round(rng.lognormvariate(2.38, 0.78)))
                    k = max(2, min(60, k))
                reps = pick_replicas(h, home, k)
                names = [store_ref(x) for x in reps]
                defects = []
                dp = None
                r = rng.random()
                if rng.random() < 0.04 and len(self.h_all[h]) > len(reps) + 2:
                    cand = [x for x in pick_replicas(h, home, 3) if x not in reps][:rng.randint(1, 2)]
                    dp = [store_ref(x) for x in cand]
                elif r < 0.35:
                    dp = []
                if rng.random() < self.dr * 1.2:
                    d = wchoice(rng, [("REP001", 6), ("REP001s", 1), ("REP002", 3), ("REP003", 2),
                                      ("REP005", 3), ("REP006", 1), ("REP007", 2), ("EXL006", 2),
                                      ("EXL007", 1), ("EXL003", 1)])
                    if d == "REP001":
                        ghost = rng.choice([f"PF-{self.hier[h]['code']}-EX03-OLD-{rng.randint(1, 999):03d}",
                                            f"Public Folder Store (DECOM{rng.randint(1, 99):02d})",
                                            f"PFDB-{rng.choice(REGIONS)[3][0][2]}-RETIRED-{rng.randint(1, 99):02d}"])
                        names.insert(rng.randint(0, len(names)), ghost)
                        defects.append(("REP001", f"missing store {ghost}"))
                    elif d == "REP001s":
                        sv = servers[rng.randrange(len(servers))]["name"]
                        names.insert(rng.randint(0, len(names)), sv)
                        defects.append(("REP001", f"server name {sv} instead of a store"))
                    elif d == "REP002":
                        oh = [x for x in range(H) if x != h and self.h_all[x]]
                        if oh:
                            other = rng.choice(self.h_all[rng.choice(oh)])
                            names.insert(rng.randint(0, len(names)), store_ref(other))
                            defects.append(("REP002", f"store {stores[other]['name']} of another hierarchy"))
                    elif d == "REP003":
                        names = []
                        dp = [] if rng.random() < 0.5 else None
                        defects.append(("REP003", "no replica"))
                    elif d == "REP005" and names:
                        dup = rng.choice(names)
                        names.insert(rng.randint(0, len(names)), vary_case(rng, dup) if rng.random() < 0.5 else dup)
                        defects.append(("REP005", f"duplicate replica {dup}"))
                    elif d == "REP006" and names:
                        dp = names
                        names = []
                        defects.append(("REP006", "only delete-pending replicas"))
                    elif d == "REP007" and names:
                        dp = (dp or []) + [rng.choice(names)]
                        defects.append(("REP007", "store both active and delete pending"))
                    elif d == "EXL006" and len(self.all_folder_names) > 10:
                        # an extra document duplicating an earlier folder's path
                        op, oh = self.all_folder_names[rng.randrange(len(self.all_folder_names) - 1)]
                        dn = vary_case(rng, op) if rng.random() < 0.7 else op
                        emit(dn, oh, "IPM_SUBTREE", None, None,
                             [store_ref(x) for x in pick_replicas(oh, home, 3)], None,
                             [("EXL006", f"duplicate of {op}")], False)
                        made += 1
                    elif d == "EXL007":
                        emit(unique(path + "/Moved"), "Public Folders (old)", "IPM_SUBTREE", None, None, names[:3], None,
                             [("EXL007", "undefined hierarchy")], False)
                        made += 1
                    elif d == "EXL003":
                        emit(unique(path + "/Imported"), h, rng.choice(["IPM", "ipm_subtree_x", "NON_IPM"]), None, None,
                             names[:4], None, [("EXL003", "bad tree enum")], False)
                        made += 1
                emit(path, h, "IPM_SUBTREE", None, None, names, dp, defects, rng.random() < 0.5)
                made += 1
        self.n_folders = nfold[0]
        self.n_replicas = total_replicas[0]

    # ---------------------------------------------------------------- main
    def generate(self, out):
        self.build_sites()
        self.build_links()
        self.build_hierarchies()
        self.build_admin_groups()
        self.build_servers()
        self.build_clusters()
        self.build_dags()
        self.build_stores()
        self.build_indexes()
        self.build_site_folder_servers()
        # MAPI stores per region for default PF databases
        self.mapi_modern_region, self.mapi_legacy_region, self.mapi_modern_all = {}, {}, []
        for idx in self.h_all[0]:
            srv = self.servers[self.stores[idx]["srv"]]
            if VRANK[srv["version"]] >= VRANK["2007"]:
                self.mapi_modern_region.setdefault(srv["region"], []).append(idx)
                self.mapi_modern_all.append(idx)
            else:
                self.mapi_legacy_region.setdefault(srv["region"], []).append(idx)
        self.n_mbx_servers = sum(1 for s in self.servers if "Mailbox" in s["roles"] and "Edge" not in s["roles"]
                                 and not s["nostores"])
        self.mbx_names_list = []
        counts = {}
        enc = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

        def write(doc):
            out.write(enc.encode(doc))
            out.write("\n")
            counts[doc["kind"]] = counts.get(doc["kind"], 0) + 1

        write(self.org_doc())
        by_server = {}
        for idx, st in enumerate(self.stores):
            by_server.setdefault(st["srv"], []).append(idx)
        used_mbx = {}
        for s in self.servers:
            write(self.server_doc(s))
            for idx in by_server.get(s["i"], []):
                write(self.pfdb_doc(idx))
            for d in self.mbx_docs(s, used_mbx):
                write(d)
        self.folder_docs(write)
        self.counts = counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--servers", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--manifest", help="write injected defects as JSON Lines here")
    ap.add_argument("--defect-rate", type=float, default=0.04,
                    help="base per-document probability of an injected defect (default 0.04)")
    a = ap.parse_args(argv)
    est = Estate(a.servers, a.seed, a.defect_rate)
    with open(a.out, "w", encoding="utf-8", newline="\n") as f:
        est.generate(f)
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as f:
            for m in est.manifest:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")
    summary = {"out": a.out, "documents": sum(est.counts.values()), "by_kind": est.counts,
               "replica_entries": est.n_replicas, "sites": len(est.sites), "site_links": len(est.links),
               "hierarchies": len(est.hier), "admin_groups": len(est.ags), "dags": len(est.dags),
               "clusters": len(est.clusters), "injected_defects": len(est.manifest)}
    print(json.dumps(summary, ensure_ascii=False), file=sys.stderr)


if __name__ == "__main__":
    main()
