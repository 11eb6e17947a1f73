"""The reach index of a pairs profile (linter.forms.pairs_reach) decides the reach
term exactly: on random site graphs, folders and stores (far sites, unlinked
sites, undefined sites, unresolved and missing replicas, custom lists), RTE005
and rules written in the other shapes of a reach term give the same findings
with the index (`when` then runs without the term) as with `when` whole over
every profile. tests/spark/test_reach_parity.py holds the Spark engine to the same."""
from __future__ import annotations

import random
import textwrap

import pytest
import yaml

from linter.engines.local import LocalEngine
from linter.estate import build_estate
from linter.forms import pairs_reach
from linter.loading import load_text
from linter.policy.expr import parse
from linter.policy.packs import load_rules
from reach_estates import SHAPES, reach_yaml, shape_rules

def _findings(text: str, rules) -> list[tuple]:
    estate = build_estate([load_text(text, "estate.yaml")])
    return sorted((f.rule, f.message, f.line, f.column, f.path) for f in LocalEngine(estate, rules).run())


@pytest.mark.parametrize("when, expected", [
    ("not any(replicas, site_cost(profile.site, item.server.site) <= 500)", ("replicas", ("server", "site"), "site", "<=", 500, True)),
    ("a and not any(replicas, site_cost(item.x, profile.s) < 5) and b", ("replicas", ("x",), "s", "<", 5, False)),
    ("all(replicas, site_cost(item, profile.s) > 7)", ("replicas", (), "s", "<=", 7, False)),
    ("all(replicas, 7 <= site_cost(profile.s, item.y))", ("replicas", ("y",), "s", "<", 7, True)),
    ("not any(replicas, 500 >= site_cost(profile.s, item.y))", ("replicas", ("y",), "s", "<=", 500, True)),
])
def test_reach_terms_are_found_in_every_shape(when, expected):
    found = pairs_reach.find(parse(when))
    assert (found.field, found.item_path, found.profile, found.op, found.limit, found.profile_first) == expected


@pytest.mark.parametrize("when", [
    "any(replicas, site_cost(profile.site, item.server.site) <= 500)",  # reachable, not unreachable
    "not any(replicas, site_cost(profile.site, item.server.site) > 500)",
    "not any(replicas, site_cost(profile.site, item.server.site) <= 500.5)",
    "not any(replicas, site_cost(profile.site, item.server.site) <= true)",
    "not any(replicas, site_cost(other.site, item.server.site) <= 500)",
    "not any(replicas, site_cost(profile.site.name, item.server.site) <= 500)",
    "not any(other.replicas, site_cost(profile.site, item.server.site) <= 500)",
    "a or not any(replicas, site_cost(profile.site, item.server.site) <= 500)",  # not a conjunct
    "all(replicas, site_cost(profile.site, item.server.site) < 500)",
])
def test_other_terms_are_not_reach_terms(when):
    assert pairs_reach.find(parse(when)) is None


@pytest.mark.parametrize("seed", range(60))
def test_the_index_only_prunes(seed, tmp_path, monkeypatch):
    rules = shape_rules(tmp_path)
    text = reach_yaml(seed)
    indexed = _findings(text, rules)
    monkeypatch.setattr(pairs_reach, "find", lambda when: None)
    assert indexed == _findings(text, rules)


def test_the_random_estates_reach_every_case(tmp_path, monkeypatch):
    """The seeds above hold findings of each rule, and folders the index prunes to
    nothing, to some profiles and to every one (not a vacuous comparison)."""
    rules = shape_rules(tmp_path)
    fired = set()
    outcomes = set()
    original = pairs_reach.LocalIndex.candidates

    def watched(self, pool, scope):
        found = original(self, pool, scope)
        outcomes.add("none" if not found else "all" if len(found) == len(pool) else "some")
        return found

    monkeypatch.setattr(pairs_reach.LocalIndex, "candidates", watched)
    for seed in range(60):
        fired.update(f[0] for f in _findings(reach_yaml(seed), rules))
    assert fired >= {"RTE005", *SHAPES}
    assert outcomes == {"none", "some", "all"}


def test_a_large_connected_estate_pairs_folders_with_no_profile(tmp_path):
    """The work the index saves: 300 sites within reach of each other through one
    hub, 600 stores, 2,000 folders of 10 replicas: `when` never runs on a profile."""
    sites = [f"S{i}" for i in range(300)]
    documents = [{"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "contoso"},
                  "spec": {"hierarchies": [{"name": "Public Folders", "type": "MAPI"}], "adminGroups": [{"name": "AG"}],
                           "sites": [{"name": s} for s in sites],
                           "siteLinks": [{"name": "HUB", "sites": sites, "cost": 200}]}}]
    for i in range(600):
        documents.append({"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": f"EX{i}"},
                          "spec": {"version": "2010", "servicePack": 3, "site": sites[i % 300], "adminGroup": "AG",
                                   "roles": ["Mailbox"]}})
        documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": f"PF{i}"},
                          "spec": {"server": f"EX{i}", "hierarchy": "Public Folders",
                                   "guid": f"00000000-0000-4000-8000-{i:012d}", "created": "2010-01-01",
                                   "emailAddress": f"pf{i}@contoso.com"}})
    rng = random.Random(1)
    for i in range(2000):
        documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": f"/F{i}"},
                          "spec": {"hierarchy": "Public Folders", "tree": "IPM_SUBTREE",
                                   "replicas": [f"PF{rng.randrange(600)}" for _ in range(10)]}})
    estate = build_estate([load_text(yaml.safe_dump_all(documents), "big.yaml")])
    rules = load_rules()
    evaluated = []
    engine = LocalEngine(estate, {"RTE005": rules["RTE005"]})
    original = engine.evaluator.eval

    def counting(node, scope):
        if scope.aggregates.get("profile") is not None and node is rules["RTE005"].checks[1].when:
            evaluated.append(node)
        return original(node, scope)

    engine.evaluator.eval = counting
    assert [f for f in engine.run() if f.rule == "RTE005"] == []
    assert evaluated == []


def test_rte005_keeps_its_findings_where_a_site_is_beyond_reach(tmp_path):
    text = textwrap.dedent("""\
        apiVersion: exlint/v1
        kind: Organization
        metadata: {name: contoso}
        spec:
          hierarchies: [{name: Public Folders, type: MAPI}]
          adminGroups: [{name: AG}]
          sites: [{name: Near}, {name: Hub}, {name: Far}]
          siteLinks: [{name: A, sites: [Near, Hub], cost: 100}, {name: B, sites: [Hub, Far], cost: 450}]
        """)
    documents = []
    for name, site in (("EX-N", "Near"), ("EX-H", "Hub"), ("EX-F", "Far")):
        documents.append({"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": name},
                          "spec": {"version": "2010", "servicePack": 3, "site": site, "adminGroup": "AG",
                                   "roles": ["Mailbox"]}})
        documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "PF" + name},
                          "spec": {"server": name, "hierarchy": "Public Folders", "guid": "00000000-0000-4000-8000-"
                                   + str(len(documents)).zfill(12), "created": "2010-01-01",
                                   "emailAddress": f"{name}@contoso.com"}})
    documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "/Local"},
                      "spec": {"hierarchy": "Public Folders", "tree": "IPM_SUBTREE", "replicas": ["PFEX-N"]}})
    text += "---\n" + yaml.safe_dump_all(documents, sort_keys=False)
    rules = load_rules()
    found = _findings(text, {"RTE005": rules["RTE005"]})
    # Near to Far is 550: only the store in Far cannot refer clients to /Local's replica
    assert [(rule, message.split(":")[0]) for rule, message, *_ in found] == [
        ("RTE005", "folder /Local cannot be reached by referral from store PFEX-F (site Far)")]


def _site_estate(cost, unread: bool = False) -> str:
    """Two linked sites, a store in each, a folder on the store of the first; ``unread``:
    with a second link whose list of sites holds an entry exlint cannot read."""
    documents = [{"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "contoso"},
                  "spec": {"hierarchies": [{"name": "Public Folders", "type": "MAPI"}], "adminGroups": [{"name": "AG"}],
                           "sites": [{"name": "Near"}, {"name": "Far"}],
                           "siteLinks": [{"name": "A", "sites": ["Near", "Far"], "cost": cost}]
                           + ([{"name": "B", "sites": ["Near", {"site": "Far"}], "cost": 10}] if unread else [])}}]
    for number, site in enumerate(("Near", "Far")):
        documents.append({"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": f"EX-{site}"},
                          "spec": {"version": "2010", "servicePack": 3, "site": site, "adminGroup": "AG",
                                   "roles": ["Mailbox"]}})
        documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": f"PF-{site}"},
                          "spec": {"server": f"EX-{site}", "hierarchy": "Public Folders",
                                   "guid": f"00000000-0000-4000-8000-{number:012d}", "created": "2010-01-01",
                                   "emailAddress": f"pf{number}@contoso.com"}})
    documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "/Local"},
                      "spec": {"hierarchy": "Public Folders", "tree": "IPM_SUBTREE", "replicas": ["PF-Near"]}})
    return yaml.safe_dump_all(documents, sort_keys=False)


def test_the_decided_term_computes_no_site_cost(monkeypatch):
    """RTE005's site check finds the store beyond reach without a single site_cost:
    the index decided the term, and `when` ran without it."""
    from linter.topology import SiteGraph

    def refused(self, a, b):
        raise AssertionError("site_cost computed")

    monkeypatch.setattr(SiteGraph, "site_cost", refused)
    rules = load_rules()
    found = _findings(_site_estate(600), {"RTE005": rules["RTE005"]})
    assert [message.split(":")[0] for _, message, *_ in found] == [
        "folder /Local cannot be reached by referral from store PF-Far (site Far)"]


@pytest.mark.parametrize("unread", [False, True])
def test_records_failing_when_alone_are_never_paired(unread, monkeypatch):
    """`when`'s conjuncts that read the record alone run before any profile: with a
    site link whose sites cannot be read, RTE005's site check stands down, and no
    folder's candidates are looked for."""
    calls = []
    original = pairs_reach.LocalIndex.candidates

    def watched(self, pool, scope):
        calls.append(pool)
        return original(self, pool, scope)

    monkeypatch.setattr(pairs_reach.LocalIndex, "candidates", watched)
    rules = load_rules()
    found = _findings(_site_estate(600, unread), {"RTE005": rules["RTE005"]})
    assert bool(calls) is not unread
    assert bool([f for f in found if f[0] == "RTE005"]) is not unread
