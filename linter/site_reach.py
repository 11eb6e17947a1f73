"""Which sites are within a cost of each other (RTE005: ``site_cost(...) <= 500``),
without all-pairs costs.

The graph (linter.topology.SiteGraph) has a node per site and per link; an edge
between a site and each link it is in weighs the link's cost both ways, so a
site-to-site path weighs twice its cost and distances obey the triangle inequality.
An estate may hold thousands of sites (an independently generated 100,000 servers
has 14,454, where 95 % of pairs are within 500): one search per site is quadratic
and took six minutes there. Two indexes answer instead:

- ``Labels`` (exact): the graph is cut recursively by small separators: the centre
  of a spanning tree, plus one end of each link outside the tree that would join
  the two sides. A shortest path between two sites of a piece either stays in one
  side or crosses the separator, so the sites within reach of s are, over the
  pieces holding s and each separator node x of them, the sites p of the piece with
  d(x, p) <= limit - d(s, x). Each piece's sites are numbered in one run (the
  ``position``), so each x keeps its sites as prefix sets by distance and a site's
  near set is one shifted OR per label. Tree-like graphs (AD site links usually
  are: hubs and spokes, a few redundant links) have separators of a node or two.
- ``Landmarks``: where separators grow large (one link holding every site beside
  many small ones), a few searches' bounds decide nearly every pair (through the
  big link, every site is one hop from every other) and the rest is searched.

Both number sites by ``position``; near sets are ints (bit = position).
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right

LANDMARKS = 16  # the fallback's searches whose bounds decide most pairs
_LEVELS = 1024  # distances a landmark keeps a prefix set for: more only sharpen its bounds
_LABEL_WORK = 60  # the labels may cost this many node visits per node and level of halving


def distances(edges, source: int) -> list:
    """Dijkstra from ``source``: every node's distance (None: no path)."""
    found: list = [None] * len(edges)
    for node, dist in _nearest(edges, source, None):
        found[node] = dist
    return found


def _nearest(edges, source: int, limit: int | None):
    """Dijkstra from ``source``: yields (node, distance) as each node is settled,
    nearest first, up to ``limit`` (None: every node with a path)."""
    found: list = [None] * len(edges)
    found[source] = 0
    queue = [(0, source)]
    pop, push = heapq.heappop, heapq.heappush
    while queue:
        dist, node = pop(queue)
        if dist > found[node]:
            continue
        if limit is not None and dist > limit:
            return
        yield node, dist
        for other, weight in edges[node]:
            candidate = dist + weight
            known = found[other]
            if known is None or candidate < known:
                found[other] = candidate
                push(queue, (candidate, other))


def _within(edges, source: int, limit: int, removed) -> dict[int, int]:
    """Dijkstra from ``source`` over nodes not ``removed``, up to ``limit``: {node: distance}."""
    found = {source: 0}
    done = set()
    queue = [(0, source)]
    pop, push = heapq.heappop, heapq.heappush
    while queue:
        dist, node = pop(queue)
        if node in done:
            continue
        if dist > limit:
            break
        done.add(node)
        for other, weight in edges[node]:
            if removed[other]:
                continue
            candidate = dist + weight
            known = found.get(other)
            if known is None or candidate < known:
                found[other] = candidate
                push(queue, (candidate, other))
    return {node: found[node] for node in done}


def components(edges, n: int) -> list[int]:
    """Per site, the number of its connected group (the smallest site number in it)."""
    component = [-1] * len(edges)
    for start in range(n):
        if component[start] >= 0:
            continue
        component[start] = start
        stack = [start]
        while stack:
            node = stack.pop()
            for other, _ in edges[node]:
                if component[other] < 0:
                    component[other] = start
                    stack.append(other)
    return component[:n]


def members(bits: int) -> list[int]:
    """The positions of the set bits, in order (through the binary text: a C loop, not a Python one)."""
    text = bin(bits)[:1:-1]
    out = []
    find = text.find
    p = find("1")
    while p >= 0:
        out.append(p)
        p = find("1", p + 1)
    return out


def index(edges, n: int, threshold: int):
    """The near-set index of the sites within ``threshold`` (a cost) of each other."""
    labels = Labels(edges, n, 2 * threshold)
    return labels if labels.complete else Landmarks(edges, n, 2 * threshold)


class _Index:
    """What both indexes give: a site's near set (``near``, bits by ``position``)."""

    position: list[int]  # site number -> its bit
    site_at: list[int]  # bit -> site number

    def near(self, s: int) -> int:
        raise NotImplementedError


class Labels(_Index):
    """The exact index (the module's docstring): per site, its labels (a separator
    node of each piece holding it, at most the limit away); per label, the prefix
    sets of the piece's sites by distance from its node. ``complete`` is false when
    the separators grew past the work allowed (_LABEL_WORK): use Landmarks."""

    def __init__(self, edges, n: int, limit: int):
        self.limit = limit
        self.complete = False
        size = len(edges)
        self.position = [-1] * n
        self.site_at = [0] * n
        self.labels: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # site -> (entry, distance)
        self.entries: list[tuple[int, list[int], list[int]]] = []  # (start, distance levels, prefix sets)
        if limit < 0:  # nothing is within reach, not even a site of itself
            self.position, self.site_at, self.complete = list(range(n)), list(range(n)), True
            return
        removed = bytearray(size)
        budget = _LABEL_WORK * size * max(1, size.bit_length())
        pending: list[tuple[list[int], int]] = []  # (a piece's nodes, its first position)
        seen = bytearray(size)
        start = 0  # each connected group's sites are one run
        for site in range(n):
            if not seen[site]:
                piece = _piece(edges, site, removed, seen)
                pending.append((piece, start))
                start += sum(1 for v in piece if v < n)
        raw: list[tuple[int, list[tuple[int, int]]]] = []  # per entry: (start, [(distance, site)])
        mark = bytearray(size)  # the nodes of the parts found so far in one piece
        while pending:
            piece, first = pending.pop()
            separator = _separator(edges, piece, removed)
            budget -= len(separator) * len(piece)
            if budget < 0:
                return
            for x in separator:
                near = _within(edges, x, limit, removed)
                entry = len(raw)
                raw.append((first, [(d, v) for v, d in near.items() if v < n]))
                for v, d in near.items():
                    if v < n:
                        self.labels[v].append((entry, d))
            at = first
            for x in separator:
                removed[x] = 1
                if x < n:
                    self.position[x] = at
                    self.site_at[at] = x
                    at += 1
            for v in piece:
                if not removed[v] and not mark[v]:
                    part = _piece(edges, v, removed, mark)
                    sites = sum(1 for u in part if u < n)
                    if sites:
                        pending.append((part, at))
                        at += sites
            for v in piece:
                mark[v] = 0
        for first, found in raw:
            found.sort()
            levels: list[int] = []
            sets: list[int] = []
            bits = 0
            for k, (d, v) in enumerate(found):
                bits |= 1 << (self.position[v] - first)
                if k + 1 == len(found) or found[k + 1][0] != d:
                    levels.append(d)
                    sets.append(bits)
            self.entries.append((first, levels, sets))
        self.complete = True

    def near(self, s: int) -> int:
        if self.limit < 0:
            return 0
        bits = 1 << self.position[s]
        limit = self.limit
        entries = self.entries
        for entry, d in self.labels[s]:
            first, levels, sets = entries[entry]
            k = bisect_right(levels, limit - d) - 1
            if k >= 0:
                bits |= sets[k] << first
        return bits


def _piece(edges, start: int, removed, mark) -> list[int]:
    """The nodes connected to ``start`` through nodes not ``removed`` (marked in ``mark``)."""
    mark[start] = 1
    out = [start]
    stack = [start]
    while stack:
        node = stack.pop()
        for other, _ in edges[node]:
            if not removed[other] and not mark[other]:
                mark[other] = 1
                out.append(other)
                stack.append(other)
    return out


def _separator(edges, piece: list[int], removed) -> list[int]:
    """Nodes whose removal splits ``piece`` into parts of at most half its nodes each
    (but for the nodes outside a spanning tree's links): the tree's centre, then one end
    of each edge outside the tree that joins two of the centre's branches."""
    if len(piece) <= 2:
        return list(piece)
    root = piece[0]
    parent = {root: -1}
    order = [root]
    for node in order:  # breadth first: order grows as it is read
        for other, _ in edges[node]:
            if not removed[other] and other not in parent:
                parent[other] = node
                order.append(other)
    below = dict.fromkeys(order, 1)
    for node in reversed(order[1:]):
        below[parent[node]] += below[node]
    total = len(order)
    centre = root
    while True:  # walk to the child holding more than half, while there is one
        heavy = next((c for c, _ in edges[centre] if not removed[c] and parent.get(c) == centre
                      and below[c] * 2 > total), None)
        if heavy is None:
            break
        centre = heavy
    branch = {centre: -1}
    stack = []
    for other, _ in edges[centre]:
        if not removed[other] and (parent.get(other) == centre or parent[centre] == other):
            branch[other] = other
            stack.append(other)
    while stack:
        node = stack.pop()
        for other, _ in edges[node]:
            if removed[other] or other in branch:
                continue
            if parent.get(other) == node or parent[node] == other:
                branch[other] = branch[node]
                stack.append(other)
    separator = [centre]
    cut = {centre}
    for node in order:
        if node in cut:
            continue
        for other, _ in edges[node]:
            if removed[other] or other in cut or node in cut:
                continue
            if branch[other] != branch[node] and branch[other] != -1:
                cut.add(node)
                separator.append(node)
    return separator


class Landmarks(_Index):
    """Which sites are within a cost of each site, decided by landmarks: for sites s,
    p and a landmark l, d(s, p) <= d(s, l) + d(l, p) and d(s, p) >= |d(s, l) - d(l, p)|.
    Each landmark's sites are kept as prefix sets by distance, so one site's certain
    near and certain far sets are a few bit operations per landmark; only sites the
    bounds leave open are searched from, up to the limit. The landmarks are the
    nodes on most paths (the links and sites with the most members), then the nodes
    farthest from those chosen, so that two far-apart sites have one near each."""

    def __init__(self, edges, n: int, limit: int):
        self.edges, self.n, self.limit = edges, n, limit
        component = components(edges, n)
        # sites renumbered so that each group is a run: a site's number is then its group's run
        order = sorted(range(n), key=lambda s: (component[s], s))
        self.position = [0] * n
        self.site_at = order
        for at, s in enumerate(order):
            self.position[s] = at
        runs: dict[int, list[int]] = {}
        for at, s in enumerate(order):
            runs.setdefault(component[s], [at, at])[1] = at + 1
        self.group = [tuple(runs[component[s]]) for s in order]  # bit -> (start, end) of its group's run
        self.landmarks: list[tuple[list, list[int], list[int]]] = []  # (distances, levels, prefix sets)
        if limit < 0:
            return
        degree = sorted(range(len(edges)), key=lambda v: (-len(edges[v]), v))
        closest: list | None = None
        chosen: set[int] = set()
        for k in range(LANDMARKS):
            if k < LANDMARKS // 2:
                pick = next((v for v in degree if v not in chosen and edges[v]), None)
            else:  # the node farthest from every landmark chosen
                pick, best = None, -1
                for v, d in enumerate(closest or []):
                    if d is not None and v not in chosen and d > best:
                        pick, best = v, d
            if pick is None:
                break
            chosen.add(pick)
            found = distances(edges, pick)
            closest = list(found) if closest is None else [
                a if b is None else b if a is None else min(a, b) for a, b in zip(closest, found)]
            self.landmarks.append(self._prefixes(found))

    def _prefixes(self, found: list) -> tuple[list, list[int], list[int]]:
        order = sorted((d, self.position[p]) for p, d in enumerate(found[:self.n]) if d is not None)
        levels: list[int] = []
        sets: list[int] = []
        bits = 0
        step = max(1, len(order) // _LEVELS)
        since = 0
        for k, (d, p) in enumerate(order):
            bits |= 1 << p
            since += 1
            last = k + 1 == len(order) or order[k + 1][0] != d
            if last and (since >= step or k + 1 == len(order)):
                levels.append(d)
                sets.append(bits)
                since = 0
        return found, levels, sets

    def near(self, s: int) -> int:
        if self.limit < 0:
            return 0
        start, end = self.group[self.position[s]]
        mine = ((1 << (end - start)) - 1) << start
        near, far = 1 << self.position[s], 0
        limit = self.limit
        for found, levels, sets in self.landmarks:
            a = found[s]
            if a is None:  # a landmark of another group
                continue
            k = bisect_right(levels, limit - a) - 1  # d(l, p) <= limit - a: within for certain
            if k >= 0:
                near |= sets[k]
            k = bisect_left(levels, limit + a)  # d(l, p) > limit + a: beyond for certain
            if k < len(levels):
                far |= mine & ~sets[k]
            k = bisect_left(levels, a - limit) - 1  # d(l, p) < a - limit: beyond for certain
            if k >= 0:
                far |= sets[k]
        open_ = mine & ~near & ~far
        if not open_:
            return near & mine
        return (near & mine) | self._searched(s, open_)

    def _searched(self, s: int, wanted: int) -> int:
        """The sites of ``wanted`` within the limit of ``s``, by a search that stops at
        the limit or once every wanted site is settled."""
        left = wanted.bit_count()
        found = 0
        position = self.position
        for v, _ in _nearest(self.edges, s, self.limit):
            if v >= self.n:
                continue  # a link's node
            bit = 1 << position[v]
            if wanted & bit:
                found |= bit
                left -= 1
                if not left:
                    break
        return found
