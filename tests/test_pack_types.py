"""A rule pack's condition that can never be true for the kinds of its values
(a list compared with one value, a release compared with the text "2007", text
compared with a number, arithmetic on text) is a pack error placed at the key
that holds it, never a rule that silently never fires (docs/rule-packs.md,
"Expressions")."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.policy.packs import load_rules

RULE = """- id: CUS001
  title: Legacy server
  severity: error
  summary: s
  rationale: r
  fix_hint: f
  source: {{title: t, publisher: p, note: n}}
  table: {table}
  when: '{when}'
  message: "legacy server {{name}}"
  examples:
    bad: [{{Server/EX03-LON-01: {{spec: {{version: "2003"}}}}}}]
    good: [{{Server/EX10-LON-01: {{spec: {{version: "2010"}}}}}}]
"""


def rules_in(tmp_path: Path, pack: str):
    (tmp_path / "policies").mkdir(exist_ok=True)
    (tmp_path / "policies" / "p.yaml").write_text(pack, encoding="utf-8")
    (tmp_path / ".exlint.yaml").write_text("rule_dirs: [policies]\n", encoding="utf-8")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        return CliRunner().invoke(cli, ["rules", "--format", "json"])
    finally:
        os.chdir(here)


def pack_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.mark.parametrize("when, needle", [
    ('version < "2007"', "write the number without quotes: version < 2007"),
    ('"2007" <= version', "write the number without quotes: 2007 <= version"),
    ('version == "2007"', "never equal"),
    ('roles == "Mailbox"', "test membership: 'Mailbox' in roles"),
    ('roles != "Mailbox"', "test membership: 'Mailbox' not in roles"),
    ("roles > 2", "size(roles) > ..."),
    ("name + 1 > 0", "compares text with a number"),
    ("name - 1 > 0", "- works on numbers"),
    ("name * 2 == 4", "* works on numbers"),
    ("name > 5", "compares text with a number"),
    ("is_edge == 'yes'", "compares true or false with text"),
    ("any(roles, item == 5)", "compares text with a number"),
    ("organization.servers > '3'", "organization.servers > 3"),
    ("coalesce(version, 0) > 'x'", "compares a number with text"),
])
def test_a_condition_of_the_wrong_kinds_is_a_placed_pack_error(tmp_path, when, needle):
    line = pack_error(rules_in(tmp_path, RULE.format(table="Server", when=when.replace("'", "''"))))
    # line 9, column 3: the `when:` key of the rule
    assert line.startswith("exlint: error: ") and "policies/p.yaml:9:3: CUS001: " in line, line
    assert needle in line, line


def test_the_key_of_the_check_that_is_wrong_is_placed(tmp_path):
    pack = RULE.format(table="Server", when="version < 2007").replace(
        "  when: 'version < 2007'\n",
        "  checks:\n    - when: version < 2007\n    - where: version >= 2010\n      when: roles == 'Edge'\n")
    line = pack_error(rules_in(tmp_path, pack))
    assert "policies/p.yaml:12:7: CUS001: " in line and "'Edge' in roles" in line, line


def test_a_pack_written_as_a_mapping_of_rules_is_placed_too(tmp_path):
    pack = "rules:\n" + "".join("  " + line + "\n" for line in
                                RULE.format(table="Server", when='version < "2007"').splitlines())
    line = pack_error(rules_in(tmp_path, pack))
    assert "policies/p.yaml:10:5: CUS001: " in line, line


@pytest.mark.parametrize("table, when", [
    ("Server", "version < 2007"),
    ("Server", "'Mailbox' in roles and not ('Edge' in roles)"),
    ("Server", "size(roles) > 1"),
    ("Server", "any(roles, item == 'Mailbox')"),
    ("Server", "'dag:' + name == shadow_boundary"),  # + with text joins text
    ("Server", "coalesce(version, 0) >= 2010 and name != 'x'"),
    ("Server", "shadow_boundary == 'site:london'"),
    ("Organization", "shadow_heartbeat_frequency > 86400"),  # a duration is seconds
    ("Organization", "mapi_hierarchy_count != 1"),
])
def test_conditions_of_matching_kinds_load(tmp_path, table, when):
    result = rules_in(tmp_path, RULE.format(table=table, when=when.replace("'", "''")))
    assert result.exit_code == 0, result.output


def test_every_built_in_pack_still_loads():
    assert len(load_rules()) >= 60
