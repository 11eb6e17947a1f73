"""The Spark engine's site graph (hashed site numbers and a cost matrix,
linter.engines.spark.model.Model._graph) answers site_cost and site_group as
linter.topology does: on a graph large enough that hash buckets are shared, with
sites no link reaches, servers in sites that are not listed at all, and two
estates whose graphs differ, in one job."""
from __future__ import annotations

import random

import yaml

from parity import EstateSpec, local_findings, run_spark

# Every pair of servers of an estate; each check fires on one band of cost, so the
# findings spell out each pair's cost band and whether both sites are in one group.
PACK = """
- id: XSG001
  title: site graph bands
  severity: warning
  summary: s
  rationale: r
  fix_hint: f
  source: {note: test}
  table: Server
  form: pairs
  with: Server
  join: {left: admin_group, right: admin_group}
  checks:
"""
BANDS = [("same", "site_cost(site, other.site) == 0"),
         ("near", "site_cost(site, other.site) > 0 and site_cost(site, other.site) <= 40"),
         ("mid", "site_cost(site, other.site) > 40 and site_cost(site, other.site) <= 120"),
         ("far", "site_cost(site, other.site) > 120 and site_cost(site, other.site) < 1000000000"),
         ("never", "site_cost(site, other.site) >= 1000000000"),
         ("grouped", "site_group(site) == site_group(other.site)"),
         ("group-is-self", "site_group(site) == site")]


def _pack(directory):
    checks = "".join(f"    - when: {when}\n      message: \"{band} {{name}} {{other.name}}\"\n" for band, when in BANDS)
    examples = "  examples: {bad: [{}], good: [{}]}\n"
    (directory / "xsg.yaml").write_text(PACK + checks + examples)
    return directory


def _estate(name: str, seed: int, sites: int) -> EstateSpec:
    rng = random.Random(seed)
    site_names = [f"Site-{seed}-{i:03d}" for i in range(sites)]
    linked = site_names[: sites - 5]  # the last five sites have no link
    links = [{"name": f"L{i}", "sites": rng.sample(linked, rng.choice([2, 2, 3])), "cost": rng.randint(1, 90)}
             for i in range(sites)]
    documents = [{"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": f"org{seed}"},
                  "spec": {"sites": [{"name": s} for s in site_names], "siteLinks": links}}]
    server_sites = rng.choices(site_names, k=30) + ["Nowhere-Listed", "Site-Unknown"]
    for i, site in enumerate(server_sites):
        documents.append({"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": f"EX-{seed}-{i:02d}"},
                          "spec": {"version": "2010", "site": site, "adminGroup": "First Administrative Group",
                                   "roles": ["Mailbox"]}})
    text = yaml.safe_dump_all(documents, sort_keys=False).encode("utf-8")
    return EstateSpec(name, [(f"{name}/estate.yaml", text)])


def test_site_cost_and_group_match_the_local_engine(spark, tmp_path):
    from linter.policy.packs import load_rules

    (tmp_path / "pack").mkdir()
    rules = {"XSG001": load_rules([_pack(tmp_path / "pack")])["XSG001"]}
    specs = [_estate("big", 1, 300), _estate("small", 2, 12)]
    spark_findings, _, failures = run_spark(spark, specs, rules, tmp_path / "spark")
    assert not failures
    for spec in specs:
        expected = {f for f in local_findings(spec, rules) if f[0] == "XSG001"}
        bands = {f[2].split()[0] for f in expected}
        # the estate exercises every band (else the comparison proves less than it says)
        assert bands == {band for band, _ in BANDS}, bands
        assert spark_findings[spec.name] == expected


def test_the_drivers_site_hash_is_sparks_xxhash64(spark):
    # the driver places each site in the bucket Spark's xxhash64 will probe: every
    # length class of XXH64 (under 4, 4-7, 8-31, 32 and more bytes), multi-byte
    # UTF-8, and a lone surrogate (JSON can spell one; it reaches the JVM as U+FFFD)
    from linter.engines.spark.xxhash import spark_string_hash

    rng = random.Random(7)
    alphabet = "abcXYZ-_ 09.éß站点\U0001F600"
    names = ["", "\ud800x", "Site-01"] + ["".join(rng.choice(alphabet) for _ in range(n)) for n in range(90)]
    rows = spark.createDataFrame([(i, name) for i, name in enumerate(names)], "i int, name string") \
        .selectExpr("i", "xxhash64(name) AS h").collect()
    assert len(rows) == len(names)
    assert {row["i"]: row["h"] for row in rows} == {i: spark_string_hash(name) for i, name in enumerate(names)}


def test_the_catalog_builds_no_cost_matrix(spark, tmp_path, monkeypatch):
    """RTE005's reach term is decided by the reach index (linter.forms.pairs_reach):
    with no cost matrix allowed at all, the catalog runs with no rule failing, and
    its findings are the local engine's."""
    from linter.engines.spark import model
    from linter.policy.packs import load_rules
    from reach_estates import reach_yaml

    monkeypatch.setattr(model, "MATRIX_SITES", 0)
    rules = load_rules()
    specs = [EstateSpec(f"seed {seed}", [("estate.yaml", reach_yaml(seed).encode("utf-8"))]) for seed in range(8)]
    found, _, failures = run_spark(spark, specs, rules, tmp_path / "inputs")
    assert failures == []
    fired = set()
    for spec in specs:
        expected = local_findings(spec, rules)
        assert found[spec.name] == expected, spec.name
        fired.update(f[0] for f in expected if f[0] == "RTE005")
    assert fired == {"RTE005"}


def test_a_cost_matrix_past_its_size_fails_that_rule_alone(spark, tmp_path, monkeypatch):
    """A rule reading site_cost itself over more sites than MATRIX_SITES is EXL000,
    naming the cause and the form that needs no matrix; its other checks still run."""
    from linter.engines.spark import model
    from linter.policy.packs import load_rules

    monkeypatch.setattr(model, "MATRIX_SITES", 100)
    (tmp_path / "pack").mkdir()
    rules = {"XSG001": load_rules([_pack(tmp_path / "pack")])["XSG001"]}
    spec = _estate("big", 1, 300)
    found, _, failures = run_spark(spark, [spec], rules, tmp_path / "spark")
    assert {rule for rule, _ in failures} == {"XSG001"}  # each check reading site_cost
    assert all("300 sites" in reason and "up to 100 sites" in reason for _, reason in failures), failures
    # its checks reading site_group alone still run
    grouped = {f for f in local_findings(spec, {"XSG001": rules["XSG001"]}) if f[2].startswith("group")}
    assert grouped and {f for f in found["big"] if f[0] == "XSG001"} == grouped
    assert any(f[0] == "EXL000" for f in found["big"])
