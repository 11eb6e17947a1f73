"""The AD site graph: connected groups and cheapest site-link costs.

Sites and site links are a small dimension (tens to a few hundred sites), so the
graph work runs once in Python and both engines consume the results: the local
engine directly, the Spark engine as small broadcast tables.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

UNREACHABLE = 10**9  # "infinitely far": larger than any real cost sum


@dataclass(frozen=True)
class SiteGraph:
    group_of: dict[str, str]  # site -> alphabetically first site of its connected group
    cost: dict[tuple[str, str], int]  # cheapest cost between connected sites (both directions)

    def site_group(self, site: str | None) -> str | None:
        if site is None:
            return None
        return self.group_of.get(site, site)

    def site_cost(self, a: str | None, b: str | None) -> int | None:
        if a is None or b is None:
            return None
        if a == b:
            return 0
        return self.cost.get((a, b), UNREACHABLE)

    def cost_rows(self) -> list[tuple[str, str, int]]:
        return sorted((a, b, c) for (a, b), c in self.cost.items())


def build_site_graph(site_names, links) -> SiteGraph:
    """``site_names``: lower-cased names; ``links``: (list of lower-cased sites, cost).

    A link is a hub every member reaches at the link's cost and leaves for free,
    not a clique of member pairs: one link holding N sites (DEFAULTIPSITELINK
    often holds every site) is N edges, not N squared, and the all-pairs search
    is N searches of a graph of that size (it was cubic: 1,200 sites in one
    link took over a minute)."""
    adjacency: dict[object, list[tuple[object, int]]] = {s: [] for s in site_names if s}
    for number, (sites, cost) in enumerate(links):
        members = sorted({s for s in (sites or []) if s})
        if len(members) < 2:
            continue
        if cost is None or cost < 0:
            # a cost exlint cannot read (EXL003: absent, 0, text) still links its sites (HIE005
            # does not depend on cost), at 0, the least it can be: a site then counts as beyond
            # 500 (RTE005) only if it is whatever the cost is
            cost = 0
        hub = _Hub(number)
        adjacency[hub] = [(member, 0) for member in members]
        for member in members:
            adjacency.setdefault(member, []).append((hub, cost))
    sites = sorted(s for s in adjacency if not isinstance(s, _Hub))
    cost: dict[tuple[str, str], int] = {}
    group_of: dict[str, str] = {}
    for source in sites:
        distances = _distances(adjacency, source)
        for target, dist in distances.items():
            if target != source and not isinstance(target, _Hub):
                cost[(source, target)] = dist
        if source not in group_of:
            members = [s for s in distances if not isinstance(s, _Hub)]
            first = min(members)
            for member in members:
                group_of[member] = first
    return SiteGraph(group_of, cost)


@dataclass(frozen=True)
class _Hub:
    """A site link as a node of the search graph (never a site: not a str)."""
    number: int


def _distances(adjacency, source) -> dict:
    distances = {source: 0}
    queue = [(0, 0, source)]
    tie = 0  # hubs and sites do not compare: the counter orders equal distances
    while queue:
        dist, _, node = heapq.heappop(queue)
        if dist > distances.get(node, UNREACHABLE):
            continue
        for neighbour, weight in adjacency[node]:
            candidate = dist + weight
            if candidate < distances.get(neighbour, UNREACHABLE):
                distances[neighbour] = candidate
                tie += 1
                heapq.heappush(queue, (candidate, tie, neighbour))
    return distances
