"""`profile` on a pairs check is an optimisation, never a change of meaning: the
findings equal those of the same check written over every pair (`when` and
`other_when`, with `profile.x` spelt out on `other`)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from linter.engines.local import LocalEngine
from linter.estate import build_estate
from linter.generate.core import Settings, generate
from linter.loading import load_file
from linter.policy.packs import PackError, load_rules
from reach_estates import PAIRS_RULE

ROOT = Path(__file__).resolve().parent.parent

# RTE005 as it was written before profiles: every (folder, store) pair
EVERY_PAIR = PAIRS_RULE.format(id="XPR005", severity="error") + """\
  where: tree == 'IPM_SUBTREE' and size(replicas) > 0
  field: replicas
  checks:
    - when: >-
        not (other.name in replicas) and other.use_custom_list and other.server.version >= 2007
        and not any(replicas, item.server in other.custom_list_servers)
      message: "custom {other.name} {name} {replicas}"
    - when: >-
        not (other.name in replicas) and not (other.use_custom_list and other.server.version >= 2007)
        and not any(replicas, site_cost(other.server.site, item.server.site) <= 500)
      message: "cost {other.name} {other.server.site} {name} {replicas}"
  examples:
    bad:
      - PublicFolder//Sales: {spec: {replicas: [PFDB-PAR, PFDB-EX03]}}
        PublicFolderDatabase/PFDB-LON: {spec: {referrals: {useCustomList: true, customList: [{server: EX10-LON-01, cost: 1}]}}}
    good:
      - PublicFolder//Sales: {spec: {replicas: [PFDB-PAR, PFDB-EX03]}}
"""


def _key(finding):
    return (repr(finding.entity), finding.file, finding.line, finding.column, finding.path,
            finding.message.split(":")[0].split(" from store ")[1].split(" ")[0])


def _every_pair_key(finding):
    return (repr(finding.entity), finding.file, finding.line, finding.column, finding.path, finding.message.split()[1])


def _estate(paths):
    return build_estate([load_file(p) for p in paths])


@pytest.fixture(scope="module")
def every_pair_rules(tmp_path_factory):
    directory = tmp_path_factory.mktemp("pack")
    (directory / "xpr.yaml").write_text(EVERY_PAIR)
    rules = load_rules([directory])
    return {"RTE005": rules["RTE005"], "XPR005": rules["XPR005"]}


def _compare(estate, rules):
    findings = LocalEngine(estate, rules).run()
    profiled = sorted(_key(f) for f in findings if f.rule == "RTE005")
    every = sorted(_every_pair_key(f) for f in findings if f.rule == "XPR005")
    return profiled, every


def test_profiles_equal_every_pair_on_a_generated_estate(tmp_path, every_pair_rules):
    out = tmp_path / "estate"
    generate(Settings(servers=120, seed=7, defect_rate=0.3, format="yaml", output=str(out)))
    paths = sorted(p for p in out.rglob("*.yaml") if not p.name.startswith("."))
    profiled, every = _compare(_estate(paths), every_pair_rules)
    assert every, "the generated estate should hold unreachable folders"
    assert profiled == every


def test_profiles_equal_every_pair_on_the_broken_samples(every_pair_rules):
    paths = sorted((ROOT / "samples" / "broken").rglob("*.yaml"))
    profiled, every = _compare(_estate(paths), every_pair_rules)
    assert profiled == every


def _pack(tmp_path, body: str) -> Path:
    rule = (PAIRS_RULE.format(id="XPR900", severity="warning")
            + '  message: "m {name}"\n  examples: {bad: [{}], good: [{}]}\n'
            + textwrap.indent(textwrap.dedent(body), "  "))
    (tmp_path / "p.yaml").write_text(rule)
    return tmp_path


@pytest.mark.parametrize("body, error", [
    ("profile: {site: server.site}\nwhen: other.name is None\n", "'other'"),
    ("profile: {site: server.site}\nwhen: profile.nowhere is None\n", "profile has only profile.site"),
    ("profile: {site: server.site}\nwhen: profile.site.name is None\n", "profile has only profile.site"),
    ("profile: {site: nowhere}\nwhen: profile.site is None\n", "unknown field 'nowhere'"),
    ("when: other.name is None\nother_when: other.name is None\n", "`other_when` needs a `profile`"),
])
def test_profile_mistakes_are_clear_pack_errors(tmp_path, body, error):
    with pytest.raises(PackError) as caught:
        load_rules([_pack(tmp_path, body)])
    assert error in str(caught.value)


@pytest.mark.parametrize("when, expected", [
    ("not profile.custom and not any(replicas, site_cost(profile.site, item.server.site) <= 500)",
     {"replicas": ("server", "site")}),
    ("profile.custom and not any(replicas, item.server in profile.listed)", {"replicas": ("server",)}),
    ("any(replicas, item.server == 'a') or all(replicas, item.server != 'b')", {"replicas": ("server",)}),
    # read otherwise too, or through two paths, or as the item itself, or with a count: not by set
    ("size(replicas) > 1 and any(replicas, item.server == 'a')", {}),
    ("any(replicas, item.server == 'a' and item.server.site == 'b')", {}),
    ("any(replicas, item == 'PFDB-LON')", {}),
    ("count(replicas, item.server == 'a') > 1", {}),
    ("any(replicas, any(replicas, item.server == 'a'))", {}),
])
def test_spark_counts_a_list_by_the_set_of_its_items_values_only_where_that_is_exact(when, expected):
    """pairs._item_paths: which lists the Spark query may deduplicate by the set of
    one navigation from their items (an any() or all() is blind to duplicates and
    order); the parity tests prove the findings equal either way."""
    from linter.forms.pairs import _item_paths
    from linter.model.tables import load_tables
    from linter.policy.expr import parse

    class Model:
        def has(self, table, column):
            return True

    assert _item_paths(parse(when), Model(), load_tables()["PublicFolder"]) == expected
