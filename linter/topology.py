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
    """``site_names``: lower-cased names; ``links``: (list of lower-cased sites, cost)."""
    adjacency: dict[str, dict[str, int]] = {s: {} for s in site_names if s}
    for sites, cost in links:
        members = [s for s in (sites or []) if s]
        if cost is None or cost < 0:
            continue
        for a in members:
            for b in members:
                if a != b:
                    adjacency.setdefault(a, {})
                    adjacency.setdefault(b, {})
                    best = adjacency[a].get(b)
                    if best is None or cost < best:
                        adjacency[a][b] = cost
    cost: dict[tuple[str, str], int] = {}
    group_of: dict[str, str] = {}
    for source in sorted(adjacency):
        distances = {source: 0}
        queue = [(0, source)]
        while queue:
            dist, node = heapq.heappop(queue)
            if dist > distances.get(node, UNREACHABLE):
                continue
            for neighbour, weight in adjacency[node].items():
                candidate = dist + weight
                if candidate < distances.get(neighbour, UNREACHABLE):
                    distances[neighbour] = candidate
                    heapq.heappush(queue, (candidate, neighbour))
        for target, dist in distances.items():
            if target != source:
                cost[(source, target)] = dist
        if source not in group_of:
            first = min(distances)
            for member in distances:
                group_of[member] = first
    return SiteGraph(group_of, cost)
