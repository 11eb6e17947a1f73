"""The AD site graph: connected groups and cheapest site-link costs.

Sites and site links are a small dimension (tens to a few hundred sites), so the
graph work runs once in Python and both engines consume the results: the local
engine directly, the Spark engine as small broadcast tables.
"""
from __future__ import annotations

import heapq
from array import array
from dataclasses import dataclass, field

UNREACHABLE = 10**9  # "infinitely far": larger than any real cost sum
_NO_PATH = 2**62  # in SiteGraph.rows: no chain of links (read as UNREACHABLE); real sums stay below it


@dataclass(frozen=True)
class SiteGraph:
    group_of: dict[str, str]  # site -> alphabetically first site of its connected group
    names: tuple[str, ...] = ()  # every site, sorted: its number is its position
    number: dict[str, int] = field(default_factory=dict)  # site -> number
    rows: tuple = ()  # rows[i][j]: cheapest cost from site i to site j (_NO_PATH: no chain)

    def site_group(self, site: str | None) -> str | None:
        if site is None:
            return None
        return self.group_of.get(site, site)

    def site_cost(self, a: str | None, b: str | None) -> int | None:
        if a is None or b is None:
            return None
        if a == b:
            return 0
        i, j = self.number.get(a), self.number.get(b)
        if i is None or j is None:
            return UNREACHABLE
        return _cost(self.rows[i][j])

    @property
    def cost(self) -> dict[tuple[str, str], int]:
        """The cheapest cost between every two connected sites (both directions)."""
        names = self.names
        return {(names[i], names[j]): c for i, row in enumerate(self.rows) for j, c in enumerate(row)
                if i != j and c != _NO_PATH}

    def matrix(self) -> list[int]:
        """Every cost, row after row (site i to site j at i * n + j), UNREACHABLE where no chain joins them."""
        return [_cost(c) for row in self.rows for c in row]

    def beyond_numbers(self, within, profile_first: bool = True) -> list[list[int]]:
        """For each site number s, the numbers of the sites p for which ``within``
        (a cost -> bool) is false of site_cost(p, s) (``profile_first``; else (s, p))."""
        return [self._beyond(s, within, profile_first) for s in range(len(self.names))]

    def beyond(self, site: str, within, profile_first: bool = True) -> frozenset[str]:
        """The graph's sites p for which ``within`` is false of site_cost(p, ``site``)
        (``profile_first``; else (``site``, p))."""
        s = self.number.get(site)
        if s is None:  # a site the graph does not know: every other site is unreachable from it
            return frozenset(p for p in self.names if p != site and not within(UNREACHABLE))
        return frozenset(self.names[p] for p in self._beyond(s, within, profile_first))

    def _beyond(self, s: int, within, profile_first: bool) -> list[int]:
        rows = self.rows
        costs = [row[s] for row in rows] if profile_first else rows[s]
        return [p for p, c in enumerate(costs) if not within(_cost(c))]


def _cost(cost: int) -> int:
    """A cost of SiteGraph.rows as site_cost gives it."""
    return UNREACHABLE if cost == _NO_PATH else cost


def build_site_graph(site_names, links) -> SiteGraph:
    """``site_names``: lower-cased names; ``links``: (list of lower-cased sites, cost).

    A link is a hub every member reaches at the link's cost and leaves for free,
    not a clique of member pairs: one link holding N sites (DEFAULTIPSITELINK
    often holds every site) is N edges, not N squared, and the all-pairs search
    is N searches of a graph of that size (it was cubic: 1,200 sites in one
    link took over a minute). Sites and hubs are numbered and each search runs on
    lists of integers: with names and hub objects, 1,443 sites and 1,281 links took
    10.6 s."""
    hubs: list[tuple[list, int]] = []  # (member names, cost) of each link of two sites or more
    known = {s for s in site_names if s}
    for sites, cost in links:
        members = sorted({s for s in (sites or []) if s})
        if len(members) < 2:
            continue
        if cost is None or cost < 0:
            # a cost exlint cannot read (EXL003: absent, 0, text) still links its sites (HIE005
            # does not depend on cost), at 0, the least it can be: a site then counts as beyond
            # 500 (RTE005) only if it is whatever the cost is
            cost = 0
        hubs.append((members, cost))
        known.update(members)
    names = tuple(sorted(known))
    number = {name: i for i, name in enumerate(names)}
    n = len(names)
    site_links: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # site -> (hub node, cost)
    hub_members: list[list[int]] = []
    for h, (members, cost) in enumerate(hubs):
        numbers = [number[m] for m in members]
        hub_members.append(numbers)
        for i in numbers:
            site_links[i].append((n + h, cost))
    rows = tuple(_distances(source, n, site_links, hub_members) for source in range(n))
    group_of: dict[str, str] = {}
    for i, row in enumerate(rows):
        name = names[i]
        if name not in group_of:
            members = [j for j in range(n) if row[j] != _NO_PATH]
            first = names[min(members)]  # names are sorted: the smallest number is the first name
            for j in members:
                group_of[names[j]] = first
    return SiteGraph(group_of, names, number, rows)


def _distances(source: int, n: int, site_links, hub_members) -> array:
    """Cheapest cost from ``source`` to every site (Dijkstra; nodes below n are
    sites, from n on hubs), as a row of n costs."""
    distances = [_NO_PATH] * (n + len(hub_members))
    distances[source] = 0
    queue = [(0, source)]
    pop, push = heapq.heappop, heapq.heappush
    while queue:
        dist, node = pop(queue)
        if dist > distances[node]:
            continue
        if node < n:
            for hub, cost in site_links[node]:
                candidate = dist + cost
                if candidate < distances[hub]:
                    distances[hub] = candidate
                    push(queue, (candidate, hub))
        else:
            for member in hub_members[node - n]:
                if dist < distances[member]:
                    distances[member] = dist
                    push(queue, (dist, member))
    # a sum past 64 bits (a cost no site link has) is kept as the farthest reachable
    return array("q", [d if d == _NO_PATH else min(d, _NO_PATH - 1) for d in distances[:n]])
