"""Which sites are within a cost of each other (linter.site_reach), against every
pair's cost searched one by one: the exact labels, the landmark fallback, graphs
of many small links, of one link holding every site, trees with redundant links,
and costs of 0, past UNREACHABLE, unreadable (None) and below zero."""
from __future__ import annotations

import random

import pytest

from linter import site_reach
from linter.topology import UNREACHABLE, build_site_graph

THRESHOLDS = (-1, 0, 1, 99, 250, 499, 500, 501, 1000)


def _expected(graph, s: int, threshold: int) -> int:
    return sum(1 << p for p, cost in enumerate(graph.row(s)) if min(cost, UNREACHABLE) <= threshold)


def _random_graph(rng: random.Random):
    n = rng.randint(0, 40)
    sites = [f"s{i}" for i in range(n)]
    pool = sites + ["x1", None]
    links = []
    for _ in range(rng.randint(0, n + 5)):
        size = rng.choice([2, 2, 2, 3, 5, n or 1])
        links.append(([rng.choice(pool) for _ in range(size)],
                      rng.choice([None, -1, 0, 1, 5, 10, 100, 250, 499, 500, 501, 10**10])))
    return build_site_graph(sites, links)


def _regional_tree(rng: random.Random, sites: int, redundant: int):
    """A tree of links from a root site (costs 5 to 150, now and then one far site at
    600 or more), with ``redundant`` links between random sites of it, like an AD
    forest grown region by region."""
    names = [f"site-{i:05d}" for i in range(sites)]
    links = []
    placed = [names[0]]
    i = 1
    while i < sites:
        members = [rng.choice(placed)] + names[i:i + rng.choice((1, 1, 1, 2, 3))]
        cost = rng.choice((5, 10, 20, 30, 50, 100, 150)) if rng.random() > 0.03 else rng.choice((600, 1000))
        links.append((members, cost))
        placed.extend(members[1:])
        i += len(members) - 1
    for _ in range(redundant):
        links.append((rng.sample(names, 2), rng.choice((10, 50, 100))))
    return build_site_graph(names, links)


@pytest.mark.parametrize("index", ["labels", "landmarks"])
@pytest.mark.parametrize("seed", range(6))
def test_near_sets_match_every_cost(seed, index, monkeypatch):
    if index == "landmarks":  # no work allowed for labels: every graph falls back
        monkeypatch.setattr(site_reach, "_LABEL_WORK", 0)
    rng = random.Random(seed)
    for _ in range(60):
        graph = _random_graph(rng)
        for threshold in THRESHOLDS:
            if graph.names and threshold >= 0:  # else nothing to index: the labels are empty
                assert type(graph._index(threshold)).__name__ == ("Labels" if index == "labels" else "Landmarks")
            for s in range(len(graph.names)):
                assert graph.near_bits(s, threshold) == _expected(graph, s, threshold), (seed, threshold, s)


@pytest.mark.parametrize("index", ["labels", "landmarks"])
@pytest.mark.parametrize("shape", ["tree", "tree with redundant links", "one link of every site"])
def test_near_sets_of_a_large_estate_match_every_cost(shape, index, monkeypatch):
    """1,500 sites: the labels cut the graph over several levels, with links outside
    the spanning tree crossing the cuts; the landmarks leave pairs open to search."""
    if index == "landmarks":
        monkeypatch.setattr(site_reach, "_LABEL_WORK", 0)
    rng = random.Random(7)
    if shape == "one link of every site":
        names = [f"site-{i:05d}" for i in range(1500)]
        links = [(names, 300)] + [(rng.sample(names, 2), rng.choice((10, 100, 400))) for _ in range(300)]
        graph = build_site_graph(names, links)
    else:
        graph = _regional_tree(rng, 1500, 0 if shape == "tree" else 60)
    for threshold in (150, 500):
        for s in rng.sample(range(len(graph.names)), 60):
            assert graph.near_bits(s, threshold) == _expected(graph, s, threshold), (threshold, s)
        sets = graph.reach_sets(threshold)
        for s in rng.sample(range(len(graph.names)), 20):
            far, numbers = sets[s]
            near = set(site_reach.members(_expected(graph, s, threshold)))
            wanted = sorted(set(range(len(graph.names))) - near) if far else sorted(near)
            assert numbers == wanted
            assert len(numbers) * 2 <= len(graph.names) or far is False


def test_the_labels_fall_back_to_landmarks_past_their_work(monkeypatch):
    graph = _regional_tree(random.Random(3), 400, 10)
    assert isinstance(graph._index(500), site_reach.Labels)
    monkeypatch.setattr(site_reach, "_LABEL_WORK", 0)
    fresh = _regional_tree(random.Random(3), 400, 10)
    assert isinstance(fresh._index(500), site_reach.Landmarks)
    assert [fresh.near_bits(s, 500) for s in range(400)] == [graph.near_bits(s, 500) for s in range(400)]


def test_near_sets_search_no_row_of_costs():
    """RTE005's reach needs no site's costs to every other: the rows stay unsearched."""
    graph = _regional_tree(random.Random(5), 3000, 30)
    graph.reach_sets(500)
    graph.beyond(graph.names[10], 500)
    assert graph._rows == {}


def test_beyond_a_site_the_graph_does_not_know():
    graph = build_site_graph(["a", "b"], [(["a", "b"], 10)])
    assert graph.beyond("nowhere", 500) == {"a", "b"}
    assert graph.beyond("a", 500) == frozenset()
    assert graph.beyond("a", 5) == {"b"}
    assert graph.beyond("a", -1) == {"a", "b"}


def test_reach_sets_kept_to_the_sites_wanted():
    """The Spark engine keeps each site's set to the profiles' sites: the smaller of
    those beyond and those within, among the wanted sites only."""
    rng = random.Random(11)
    graph = _regional_tree(rng, 800, 20)
    wanted = sorted(rng.sample(range(800), 90))
    for s, (far, numbers) in enumerate(graph.reach_sets(500, wanted)):
        near = set(site_reach.members(_expected(graph, s, 500))) & set(wanted)
        beyond = set(wanted) - near
        assert far is (2 * len(near) >= len(wanted))  # the smaller set is kept
        assert numbers == sorted(beyond if far else near)
    assert graph.reach_sets(500, []) == [(True, [])] * 800
