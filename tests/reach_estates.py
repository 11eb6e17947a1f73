"""Random estates for the reach index of a pairs profile (linter.forms.pairs_reach):
site graphs with far, unlinked and undefined sites, stores with and without custom
lists, folders with unresolved and missing replicas; and rules in the other shapes
of a reach term. Shared by tests/test_pairs_reach.py and tests/spark/test_reach_parity.py."""
from __future__ import annotations

import random

import yaml

from linter.policy.packs import load_rules

# the shapes of a reach term beside RTE005's own, as a user's pack may write them
SHAPES = {
    "XRC001": "all(replicas, site_cost(item.server.defined_site, profile.site) > 300)",
    "XRC002": "not any(replicas, 250 > site_cost(profile.site, item.server.defined_site))",
    "XRC003": "all(replicas, 100 <= site_cost(item.server.site, profile.site))",
}
# a folder x store pairs rule, as a user's pack writes it (id, severity and the rest follow)
PAIRS_RULE = """
- id: {id}
  title: t
  severity: {severity}
  summary: s
  rationale: r
  fix_hint: f
  source: {{note: test}}
  table: PublicFolder
  form: pairs
  with: PublicFolderDatabase
  join: {{left: hierarchy, right: hierarchy}}
"""
SHAPE_RULE = """\
  profile: {{site: {site}, version: server.version}}
  where: tree == 'IPM_SUBTREE'
  other_when: not (other.name in replicas)
  field: replicas
  when: profile.version >= 2007 and {when}
  message: "{id} {{name}} {{other.name}}"
  examples: {{bad: [{{}}], good: [{{}}]}}
"""
COSTS = (1, 10, 100, 249, 250, 251, 300, 499, 500, 501, 700, 2000)


def shape_rules(tmp_path):
    # XRC003 reads the site as written, defined or not
    pack = "".join(PAIRS_RULE.format(id=rule_id, severity="warning")
                   + SHAPE_RULE.format(id=rule_id, when=when,
                                       site="server.site" if rule_id == "XRC003" else "server.defined_site")
                   for rule_id, when in SHAPES.items())
    (tmp_path / "shapes.yaml").write_text(pack)
    rules = load_rules([tmp_path])
    return {rule_id: rules[rule_id] for rule_id in ("RTE005", *SHAPES)}


def reach_documents(seed: int) -> list[dict]:
    """A random estate for reach: sites, links of every cost around the 500 and the
    shapes' thresholds, servers at defined and undefined sites, stores of two
    hierarchies with and without custom lists, folders whose replicas are stores,
    unknown names and (rarely) missing entries."""
    rng = random.Random(seed)
    n_sites = rng.randint(1, 9)
    sites = [f"Site-{i}" for i in range(n_sites)]
    links = []
    for number in range(rng.randint(0, n_sites + 2)):
        members = rng.sample(sites, min(len(sites), rng.choice((2, 2, 2, 3))))
        if rng.random() < 0.1:
            members.append("Atlantis")  # a link naming a site no list defines
        if len(members) >= 2:
            links.append({"name": f"L{number}", "sites": members, "cost": rng.choice(COSTS)})
    org = {"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "contoso"},
           "spec": {"hierarchies": [{"name": "Public Folders", "type": "MAPI"}, {"name": "Apps", "type": "Application"}],
                    "adminGroups": [{"name": "AG"}],
                    "sites": [{"name": s} for s in sites], "siteLinks": links}}
    documents = [org]
    servers = []
    for number in range(rng.randint(1, 10)):
        name = f"EX-{number:02d}"
        site = rng.choice(sites) if rng.random() < 0.85 else rng.choice(("Nowhere", "Atlantis"))
        if rng.random() < 0.2:
            site = site.lower()  # site names are case-insensitive
        version = rng.choice(("2003", "2007", "2010", "2010"))
        servers.append(name)
        documents.append({"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": name},
                          "spec": {"version": version, "servicePack": 2, "site": site, "adminGroup": "AG",
                                   "roles": ["Mailbox"]}})
    stores = []
    for number in range(rng.randint(1, 14)):
        name = f"PFDB-{number:02d}"
        spec = {"server": rng.choice(servers), "hierarchy": rng.choice(("Public Folders", "Public Folders", "Apps")),
                "guid": f"00000000-0000-4000-8000-{number:012d}", "created": "2010-01-01",
                "emailAddress": f"pfdb{number}@contoso.com"}
        if rng.random() < 0.25:
            listed = rng.sample(servers, rng.randint(0, len(servers)))
            spec["referrals"] = {"useCustomList": True, "customList": [{"server": s, "cost": 10} for s in listed]}
        stores.append(name)
        documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": name},
                          "spec": spec})
    for number in range(rng.randint(1, 25)):
        replicas = [rng.choice(stores) for _ in range(rng.randint(0, 5))]
        if rng.random() < 0.15:
            replicas.append("PFDB-GHOST")
        if rng.random() < 0.05:
            replicas.insert(0, None)
        documents.append({"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": f"/F{number}"},
                          "spec": {"hierarchy": rng.choice(("Public Folders", "Public Folders", "Apps")),
                                   "tree": "IPM_SUBTREE", "replicas": replicas}})
    return documents


def reach_yaml(seed: int) -> str:
    return yaml.safe_dump_all(reach_documents(seed), sort_keys=False)
