"""The shape of a synthetic estate, as pure functions of (settings, index).

Everything that another part of the estate refers to is computed by a pure
function (site names, the region hub store every folder replicates to, the
default store of a site, DAG membership across a pair of sites), so the
generator can stream site by site in constant memory and still write
consistent cross-references.

Layout:
- sites: about servers/25 (at least 3, at most MAX_SITES). Even sites are *legacy* sites (their
  servers outside DAGs run Exchange 2003 SP2 / 2007 SP3), odd sites *modern*
  ones (2010 SP3 .. 2019 outside DAGs, at least two that can hold a shadow).
- regions of 20 sites; the first site of a region is its hub. Continents of 20
  regions; the hub of a continent's first region is a core hub. Links:
  site -> region hub (5-60), region hub -> core hub (20-100), core hubs in a
  full mesh (50-100), plus a few shortcuts: every cheapest path costs <= 420.
- DAGs of 2-6 same-version 2010+ Mailbox servers, each stretched over a pair
  of consecutive sites (i, i+1).
- administrative groups: one legacy group per region (site folder server: the
  region hub's Exchange 2003 server) and the Exchange 2007+ group (site folder
  server: the first Exchange 2007 server of site 0).
- stores: the MAPI hierarchy on most 2003/2007/2010 Mailbox servers; the
  application hierarchies on every legacy site's first 2003 server.
- folders: about ten per server; every MAPI IPM folder has a replica on its
  region hub store (so custom referral lists that name the region hubs cover
  every folder) and at least one more in another site.
- custom referral lists: the first Exchange 2007 store of a region hub and of
  the site after next, in the first two regions, lists every region hub server.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

MASK64 = (1 << 64) - 1
REGION = 20      # sites per region
# Beyond 25,000 servers sites grow larger, not more numerous: AD sites follow
# offices and datacentres, and the site graph's all-pairs costs grow with their square
MAX_SITES = 1000
CONTINENT = 20   # regions per continent

T_SITE, T_PAIR, T_PAIRDEF, T_SITEDEF, T_REGION, T_ORG, T_LINK, T_NAME = range(1, 9)


def mix(*parts: int) -> int:
    """A splitmix64 chain: a well-spread 64-bit hash of integers."""
    h = 0x9E3779B97F4A7C15
    for part in parts:
        h = ((h ^ (part & MASK64)) * 0xBF58476D1CE4E5B9) & MASK64
        h ^= h >> 31
        h = (h * 0x94D049BB133111EB) & MASK64
        h ^= h >> 29
    return h


def rng(seed: int, tag: int, index: int) -> random.Random:
    return random.Random(mix(seed, tag, index))


CITIES = [
    ("London", "LON"), ("Paris", "PAR"), ("Frankfurt", "FRA"), ("NewYork", "NYC"),
    ("Singapore", "SIN"), ("Dublin", "DUB"), ("Madrid", "MAD"), ("Milan", "MIL"),
    ("Amsterdam", "AMS"), ("Brussels", "BRU"), ("Zurich", "ZRH"), ("Vienna", "VIE"),
    ("Warsaw", "WAW"), ("Prague", "PRG"), ("Stockholm", "STO"), ("Oslo", "OSL"),
    ("Copenhagen", "CPH"), ("Helsinki", "HEL"), ("Lisbon", "LIS"), ("Athens", "ATH"),
    ("Istanbul", "IST"), ("Dubai", "DXB"), ("Mumbai", "BOM"), ("Bangalore", "BLR"),
    ("HongKong", "HKG"), ("Shanghai", "SHA"), ("Seoul", "SEL"), ("Tokyo", "TYO"),
    ("Sydney", "SYD"), ("Melbourne", "MEL"), ("Auckland", "AKL"), ("Toronto", "YTO"),
    ("Montreal", "YMQ"), ("Chicago", "CHI"), ("Dallas", "DFW"), ("Denver", "DEN"),
    ("Seattle", "SEA"), ("SanFrancisco", "SFO"), ("LosAngeles", "LAX"), ("Atlanta", "ATL"),
    ("Boston", "BOS"), ("Miami", "MIA"), ("MexicoCity", "MEX"), ("SaoPaulo", "SAO"),
    ("BuenosAires", "BUE"), ("Santiago", "SCL"), ("Bogota", "BOG"), ("Johannesburg", "JNB"),
    ("CapeTown", "CPT"), ("Cairo", "CAI"), ("Nairobi", "NBO"), ("Lagos", "LOS"),
    ("Riyadh", "RUH"), ("TelAviv", "TLV"), ("Manila", "MNL"), ("Jakarta", "JKT"),
    ("Bangkok", "BKK"), ("KualaLumpur", "KUL"), ("Taipei", "TPE"), ("Osaka", "OSA"),
    ("Edinburgh", "EDI"), ("Manchester", "MAN"), ("Lyon", "LYS"), ("Munich", "MUC"),
    ("Hamburg", "HAM"), ("Barcelona", "BCN"), ("Rome", "ROM"), ("Budapest", "BUD"),
    ("Bucharest", "BUH"), ("Sofia", "SOF"), ("Kyiv", "IEV"), ("Riga", "RIX"),
]
DEPARTMENTS = [
    "Sales", "Marketing", "Finance", "HR", "IT", "Legal", "Engineering", "Operations",
    "Facilities", "Procurement", "Support", "Research", "Quality", "Logistics",
]
TOPICS = ["Projects", "Archive", "Reports", "Requests", "Calendar", "Contacts", "Forms", "Discussions"]
ORG_NAMES = ["Fabrikam", "Contoso", "Northwind", "Woodgrove", "Tailspin", "Litware", "Adatum", "Proseware"]
# Application top-level hierarchies: (name, store prefix, folder root, folder leaf).
APPS = [
    ("Engineering Archive", "ENGARCH", "/Drawings", "Batch"),
    ("Legal Records", "LEGAL", "/Contracts", "Matter"),
    ("Projects", "PROJ", "/Programmes", "Project"),
]
MAPI = "Public Folders"
MODERN_AG = "Exchange Administrative Group (FYDIBOHF23SPDLT)"
FIRST_AG = "First Administrative Group"

ROLES = {
    2010: ("Mailbox", "HubTransport", "ClientAccess"),
    2013: ("Mailbox", "ClientAccess"),
    2016: ("Mailbox",),
    2019: ("Mailbox",),
}
SERVICE_PACK = {2003: 2, 2007: 3, 2010: 3, 2013: 1, 2016: 0, 2019: 0}
SP_TEXT = {2003: "SP2", 2007: "SP3", 2010: "SP3", 2013: "SP1", 2016: "CU23", 2019: "CU14"}


def prefix(version: int) -> str:
    return f"EX{version % 100:02d}"


@dataclass(slots=True)
class Srv:
    name: str
    version: int
    roles: tuple
    site: int                 # physical site index (spec.site)
    home: int                 # site whose plan created it
    ag: str
    dag: str | None = None
    cluster: tuple | None = None   # (name, mode, nodes)
    mapi: bool = False
    apps: bool = False        # hosts the application hierarchy stores
    mbx: int = 0              # mailbox databases
    sp: int = 0
    boundary: bool = False    # in its site's non-DAG shadow boundary and can hold a shadow
    note: str = ""


@dataclass(slots=True)
class DagPlan:
    name: str
    version: int
    side_a: int
    side_b: int
    single: bool = False      # SHD002 injected: the DAG has one member
    collapsed: bool = False   # SHD003 (org): every member in site A
    defect: int = 0           # defect id when single


@dataclass
class SitePlan:
    index: int
    legacy: bool
    servers: list[Srv] = field(default_factory=list)
    mapi_stores: list[str] = field(default_factory=list)   # MAPI store names in this site
    clusters: list[list[Srv]] = field(default_factory=list)


class Topology:
    """Sites, regions, links and the names everything else refers to."""

    def __init__(self, servers: int, seed: int):
        self.seed = seed
        self.servers = servers
        self.S = min(MAX_SITES, max(3, round(servers / 25)))
        self.base, self.extra = divmod(servers, self.S)
        self.regions = (self.S + REGION - 1) // REGION
        org = ORG_NAMES[mix(seed, T_NAME, 0) % len(ORG_NAMES)]
        self.org = org
        self.domain = org.lower() + ".com"

    # -- sites ----------------------------------------------------------------
    def n(self, i: int) -> int:
        return self.base + (1 if i < self.extra else 0)

    def site_name(self, i: int) -> str:
        city, _ = CITIES[i % len(CITIES)]
        k = i // len(CITIES)
        return city if k == 0 else f"{city}{k + 1:02d}"

    def code(self, i: int) -> str:
        _, code = CITIES[i % len(CITIES)]
        k = i // len(CITIES)
        return code if k == 0 else f"{code}{k + 1:02d}"

    @staticmethod
    def legacy(i: int) -> bool:
        return i % 2 == 0

    @staticmethod
    def region(i: int) -> int:
        return i // REGION

    @staticmethod
    def hub(r: int) -> int:
        return r * REGION

    def next_site(self, i: int) -> int:
        return (i + 1) % self.S

    # -- names ----------------------------------------------------------------
    def admin_group(self, r: int) -> str:
        return FIRST_AG if r == 0 else f"{self.site_name(self.hub(r))} Administrative Group"

    def hub_server(self, r: int) -> str:
        return f"EX03-{self.code(self.hub(r))}-01"

    def hub_store(self, r: int) -> str:
        return "PFDB-" + self.hub_server(r)

    def default_server(self, i: int) -> str:
        """The site's Exchange 2007 (legacy) or 2010 (modern) store server."""
        return f"EX07-{self.code(i)}-01" if self.legacy(i) else f"EX10-{self.code(i)}-01"

    def default_store(self, i: int) -> str:
        return "PFDB-" + self.default_server(i)

    def app_server(self, i: int) -> str:
        return f"EX03-{self.code(i)}-01"

    def app_store(self, app: int, i: int) -> str:
        return f"{APPS[app][1]}-{self.app_server(i)}"

    def modern_sfs(self) -> str:
        return f"EX07-{self.code(0)}-01"

    def custom_list_sites(self, r: int) -> tuple[int, ...]:
        """Sites whose first Exchange 2007 store keeps a custom referral list
        naming every region hub server: the hub and the site after next, in the
        first two regions only (so list entries grow linearly with the estate)."""
        if r >= 2:
            return ()
        h = self.hub(r)
        return (h, h + 2) if h + 2 < self.S else (h,)

    def custom_list_stores(self):
        for r in range(self.regions):
            for i in self.custom_list_sites(r):
                yield self.default_store(i)

    def app_partner(self, i: int) -> int:
        """The other legacy site holding replicas of site i's application folders."""
        return 2 if i == 0 else 0

    # -- links ----------------------------------------------------------------
    def links(self):
        """(name, site a, site b, cost): a connected graph, cheapest paths <= 420."""
        seed = self.seed
        for i in range(self.S):
            r = self.region(i)
            h = self.hub(r)
            if i != h:
                yield i, h, 5 + mix(seed, T_LINK, i) % 56
                if i - 1 > h and mix(seed, T_LINK, i, 1) % 5 == 0:
                    yield i - 1, i, 10 + mix(seed, T_LINK, i, 2) % 91
        for r in range(self.regions):
            core = (r // CONTINENT) * CONTINENT
            if r != core:
                yield self.hub(r), self.hub(core), 20 + mix(seed, T_LINK, r, 3) % 81
        cores = list(range(0, self.regions, CONTINENT))
        for a_index, a in enumerate(cores):
            for b in cores[a_index + 1:]:
                yield self.hub(a), self.hub(b), 50 + mix(seed, T_LINK, a, b, 4) % 51

    def link_name(self, a: int, b: int) -> str:
        return f"{self.code(a)}-{self.code(b)}"

    # -- DAGs over pairs of sites ---------------------------------------------
    def cap(self, i: int) -> int:
        return max(0, (self.n(i) - 2) // 4)

    def pair_dags(self, p: int) -> list[DagPlan]:
        """DAGs stretched over sites p and p+1 (without defects)."""
        r = rng(self.seed, T_PAIR, p)
        q = self.next_site(p)
        room_a, room_b = self.cap(p), self.cap(q)
        dags = []
        k = 0
        while room_a >= 1 and room_b >= 1 and r.random() < 0.85:
            size = r.randint(2, 6)
            side_a = max(1, min(room_a, (size + 1) // 2))
            side_b = max(1, min(room_b, size - side_a))
            version = r.choices((2010, 2013, 2016, 2019), (3, 2, 3, 2))[0]
            k += 1
            dags.append(DagPlan(f"DAG-{self.code(p)}-{self.code(q)}-{k:02d}", version, side_a, side_b))
            room_a -= side_a
            room_b -= side_b
        return dags
