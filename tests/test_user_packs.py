"""Rule packs from a user's directory: same format, same example tests, and a
broken pack is a clear error, never a crash."""
from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

ESTATE = Path(__file__).resolve().parent.parent / "samples" / "estate"

USER_PACK = """
- id: ACM001
  title: Replication messages above Acme's WAN limit
  severity: warning
  summary: Reports a store whose Replication Message Size Limit exceeds Acme's WAN policy.
  rationale: Acme's WAN accelerators drop messages above 5 MB.
  fix_hint: Lower Replication Message Size Limit to 5MB or less.
  source: {note: "Acme messaging standard MS-12"}
  options: {max_bytes: 5242880}
  table: PublicFolderDatabase
  when: message_size_limit > $max_bytes
  field: message_size_limit
  message: "store {name} on {server} sends replication messages up to {message_size_limit}; Acme's WAN limit is 5MB"
  examples:
    bad: [{PublicFolderDatabase/PFDB-LON: {spec: {replication: {Replication Message Size Limit: 8MB}}}}]
    good: [{PublicFolderDatabase/PFDB-LON: {spec: {replication: {Replication Message Size Limit: 300KB}}}}]
"""


def run(*args, cwd):
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, [str(a) for a in args])
    finally:
        os.chdir(here)


def make_repo(tmp_path: Path, pack: str) -> Path:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "acme.yaml").write_text(pack)
    (tmp_path / ".exlint.yaml").write_text("rule_dirs: [policies]\n")
    return tmp_path


def test_user_pack_is_listed_tested_and_applied(tmp_path):
    repo = make_repo(tmp_path, USER_PACK)
    listed = json.loads(run("rules", "--format", "json", cwd=repo).stdout)
    assert "ACM001" in {r["id"] for r in listed}
    tested = run("rules", "--self-test", cwd=repo)
    assert tested.exit_code == 0, tested.output
    store = repo / "pfdb.yaml"
    store.write_text("apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: P}\n"
                     "spec:\n  server: S\n  hierarchy: H\n  replication: {Replication Message Size Limit: 6MB}\n")
    result = run("check", "--format", "json", "--select", "ACM", "pfdb.yaml", cwd=repo)
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["rule"] == "ACM001" and finding["line"] == 7 and "up to 6MB" in finding["message"]
    (repo / ".exlint.yaml").write_text("rule_dirs: [policies]\noptions: {ACM001: {max_bytes: 10485760}}\n")
    result = run("check", "--format", "json", "--select", "ACM", "pfdb.yaml", cwd=repo)
    assert json.loads(result.stdout)["findings"] == []


def test_user_pack_with_a_failing_example_fails_the_self_test(tmp_path):
    repo = make_repo(tmp_path, USER_PACK.replace("Limit: 8MB", "Limit: 4MB"))
    tested = run("rules", "--self-test", cwd=repo)
    assert tested.exit_code == 1 and "ACM001 bad example raised nothing" in tested.stderr


def test_broken_user_packs_are_clear_errors(tmp_path):
    cases = {
        "when: message_size_limit > $max_bytes": ("when: import os", "invalid expression"),
        "field: message_size_limit": ("field: mesage_size_limit", "is not a field of PublicFolderDatabase"),
        "table: PublicFolderDatabase": ("table: Store", "unknown table"),
        "id: ACM001": ("id: acme-1", "invalid rule id"),
    }
    for original, (replacement, needle) in cases.items():
        work = tmp_path / replacement.replace(" ", "_").replace(":", "")
        work.mkdir()
        repo = make_repo(work, USER_PACK.replace(original, replacement))
        result = run("rules", cwd=repo)
        assert result.exit_code == 2, result.output
        assert needle in result.stderr and "Traceback" not in result.output
    work = tmp_path / "eval"
    work.mkdir()
    repo = make_repo(work, USER_PACK.replace("message_size_limit > $max_bytes", "__import__('os').system('true')"))
    assert run("rules", cwd=repo).exit_code == 2


def test_a_rule_id_cannot_be_redefined(tmp_path):
    repo = make_repo(tmp_path, USER_PACK.replace("ACM001", "DUP001"))
    result = run("rules", cwd=repo)
    assert result.exit_code == 2 and "already defined" in result.stderr


def test_builtin_checks_are_named_data_not_rule_ids():
    """EXL008 runs the engines' `organization_count` because its pack says so; a
    `runs` naming no engine function, or on another form, is a pack error."""
    import pytest as _pytest

    from linter.model.tables import load_tables
    from linter.policy.packs import PackError, _Validator, load_rules, parse_rule

    assert load_rules()["EXL008"].checks[0].runs == "organization_count"
    base = {"id": "ZZZ001", "title": "t", "severity": "error", "summary": "s", "rationale": "r",
            "source": {"note": "test"}, "examples": {"bad": [{}], "good": [{}]}}
    validator = _Validator(load_tables())
    assert parse_rule({**base, "form": "builtin", "runs": "organization_count"}, validator, "p.yaml", {}) \
        .checks[0].runs == "organization_count"
    with _pytest.raises(PackError, match="unknown builtin check 'org_count'"):
        parse_rule({**base, "form": "builtin", "runs": "org_count"}, validator, "p.yaml", {})
    with _pytest.raises(PackError, match="only with form: builtin"):
        parse_rule({**base, "table": "Server", "when": "version < 2010", "runs": "organization_count"}, validator,
                   "p.yaml", {})
    # any key of another form is an error, never silently ignored
    with _pytest.raises(PackError, match="`key` is a key of unique checks: only with form: unique"):
        parse_rule({**base, "table": "Server", "when": "version < 2010", "key": ["name"]}, validator, "p.yaml", {})


def test_a_pack_error_names_the_pack_file_and_the_rules_line(tmp_path):
    from linter.policy.packs import PackError, load_rules

    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "user.yaml").write_text("# my rules\n\n- id: ORG901\n  title: x\n  severity: warning\n  whne: true\n")
    try:
        load_rules([packs])
    except PackError as exc:
        assert str(exc).startswith(f"{packs / 'user.yaml'}:3: ORG901"), exc
    else:
        raise AssertionError("a broken pack loaded")
