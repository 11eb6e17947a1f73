"""The AD site graph: connected groups and cheapest site-link costs.

Both engines consume it: the local engine directly, the Spark engine as small
broadcast tables. Nothing here is quadratic in memory unless asked: an estate
may hold thousands of sites (an independently generated 100,000 servers has
14,454), and all-pairs costs there are 209 million numbers. Connected groups
come from a union of the links (linear); a site's costs to every other site are
searched when first asked (``row``); and which sites are within a cost of each
other (RTE005's ``site_cost(...) <= 500``) comes from linter.site_reach
(``near_bits``, ``reach_sets``), exact and near linear for AD-like graphs.
"""
from __future__ import annotations

from array import array

from linter import site_reach

UNREACHABLE = 10**9  # "infinitely far": larger than any real cost sum
_NO_PATH = 2**62  # in a row: no chain of links (read as UNREACHABLE); real sums stay below it


class SiteGraph:
    """Sites are numbered by sorted name (``names``, ``number``). Links are hubs:
    a site enters a link at its cost and leaves it for free, so one link holding N
    sites (DEFAULTIPSITELINK often holds every site) is N edges, not N squared.
    Searches run on an undirected graph of sites and hubs where each edge weighs the
    link's cost both ways: a site-to-site path then weighs twice its cost, and every
    distance obeys the triangle inequality that linter.site_reach rests on."""

    def __init__(self, group_of: dict[str, str], names: tuple[str, ...], number: dict[str, int],
                 edges: list[list[tuple[int, int]]]):
        self.group_of = group_of  # site -> alphabetically first site of its connected group
        self.names = names  # every site, sorted: its number is its position
        self.number = number  # site -> number
        self._edges = edges  # node -> (node, weight): sites first, then one node per link
        self._rows: dict[int, array] = {}  # site number -> its costs to every site (row)
        self._near: dict = {}  # cost threshold -> its index (linter.site_reach.index)

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
        return _cost(self.row(i)[j])

    def row(self, i: int) -> array:
        """The cheapest cost from site ``i`` to every site (_NO_PATH: no chain), searched once."""
        found = self._rows.get(i)
        if found is None:
            n = len(self.names)
            distances = site_reach.distances(self._edges, i)
            found = self._rows[i] = array("q", [_NO_PATH if d is None else min(d // 2, _NO_PATH - 1)
                                                for d in distances[:n]])
        return found

    @property
    def cost(self) -> dict[tuple[str, str], int]:
        """The cheapest cost between every two connected sites (both directions): quadratic, for tests."""
        names = self.names
        return {(names[i], names[j]): c for i in range(len(names)) for j, c in enumerate(self.row(i))
                if i != j and c != _NO_PATH}

    def matrix(self) -> list[int]:
        """Every cost, row after row (site i to site j at i * n + j), UNREACHABLE where
        no chain joins them: quadratic (a user's rule reading site_cost itself, on Spark)."""
        return [_cost(c) for i in range(len(self.names)) for c in self.row(i)]

    def near_bits(self, s: int, threshold: int) -> int:
        """The sites p with site_cost(s, p) <= ``threshold`` (s itself if the threshold
        is 0 or more), as bits of an int (bit p), for a threshold below UNREACHABLE."""
        found = self._index(threshold)
        return sum(1 << found.site_at[p] for p in site_reach.members(found.near(s)))

    def beyond(self, site: str, threshold: int) -> frozenset[str]:
        """The graph's sites p with site_cost(p, ``site``) above ``threshold`` (below UNREACHABLE)."""
        s = self.number.get(site)
        if s is None:  # a site the graph does not know: every other site is unreachable from it
            return frozenset(p for p in self.names if p != site or threshold < 0)
        found = self._index(threshold)
        everyone = (1 << len(self.names)) - 1
        return frozenset(self.names[found.site_at[p]] for p in site_reach.members(everyone & ~found.near(s)))

    def reach_sets(self, threshold: int, wanted: list[int] | None = None) -> list[tuple[bool, list[int]]]:
        """Per site number s, the smaller of: (True, the sites of ``wanted`` (site
        numbers; default every site) beyond ``threshold`` of s) and (False, those
        within it), as site numbers in order."""
        found = self._index(threshold)
        n = len(self.names)
        position, site_at = found.position, found.site_at
        if wanted is None:
            mask, size = (1 << n) - 1, n
        else:
            mask = 0
            for s in wanted:
                mask |= 1 << position[s]
            size = mask.bit_count()
        out = []
        for s in range(n):
            near = found.near(s) & mask
            far = 2 * near.bit_count() >= size
            bits = mask & ~near if far else near
            out.append((far, sorted(site_at[p] for p in site_reach.members(bits))))
        return out

    def _index(self, threshold: int):
        found = self._near.get(threshold)
        if found is None:
            found = self._near[threshold] = site_reach.index(self._edges, len(self.names), threshold)
        return found


def _cost(cost: int) -> int:
    """A cost of a row as site_cost gives it."""
    return UNREACHABLE if cost == _NO_PATH else cost


def build_site_graph(site_names, links) -> SiteGraph:
    """``site_names``: lower-cased names; ``links``: (list of lower-cased sites, cost)."""
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
    edges: list[list[tuple[int, int]]] = [[] for _ in range(n + len(hubs))]
    for h, (members, cost) in enumerate(hubs):
        for member in members:
            i = number[member]
            edges[i].append((n + h, cost))
            edges[n + h].append((i, cost))
    component = site_reach.components(edges, n)
    group_of = {name: names[component[i]] for i, name in enumerate(names)}  # sorted: the smallest number is the first name
    return SiteGraph(group_of, names, number, edges)
