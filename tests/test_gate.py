"""The CI gate without silent holes: reports cannot be misrouted, typos are
errors, only exlint's own documents are linted when walking, and the root and
configuration are found where a user expects (issue 18)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli

from documents import ORG, SERVER, STORE

REPO = Path(__file__).resolve().parent.parent

FOREIGN = {
    "mkdocs.yml": "site_name: Exchange estate\nnav:\n  - Home: index.md\n",
    "docker-compose.yml": "services:\n  web:\n    image: nginx\n",
    "ansible/playbook.yml": "- hosts: exchange\n  tasks:\n    - name: ping\n      ping: {}\n",
    ".github/workflows/ci.yml": "on: [push]\njobs: {}\n",
    ".pre-commit-config.yaml": "repos: []\n",
}


def invoke(*args, env=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    write(root / ".exlint.yaml", "{}\n")
    write(root / "estate" / "org.yaml", ORG)
    write(root / "estate" / "server.yaml", SERVER.format(name="EX10-A"))
    write(root / "estate" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A"))
    write(root / "estate" / "b.yaml", STORE.format(name="PFDB-B", server="EX10-NOPE"))
    for name, text in FOREIGN.items():
        write(root / name, text)
    return root


# --------------------------------------------------------------- output routing

@pytest.mark.parametrize("name,check", [
    ("out.sarif", lambda t: json.loads(t)["version"] == "2.1.0"),
    ("out.json", lambda t: json.loads(t)["version"] == "1"),
    ("out.xml", lambda t: t.startswith("<?xml") and "<testsuites" in t),
    ("out.junit", lambda t: "<testsuites" in t),
    ("out.html", lambda t: t.lstrip().lower().startswith("<!doctype html")),
    ("out.txt", lambda t: "EXL007 [error]" in t),
])
def test_output_extension_names_the_format(repo, tmp_path, name, check):
    target = tmp_path / name
    result = invoke("check", "--output", target, repo / "estate")
    assert result.exit_code == 1, result.output
    assert check(target.read_text()), target.read_text()[:200]
    assert result.stdout == ""  # nothing else was asked for the terminal


def test_readme_ci_pairing_routes_sarif_to_the_file_and_annotations_to_stdout(repo, tmp_path):
    target = tmp_path / "exlint.sarif"
    result = invoke("check", repo / "estate", "--format", "github", "--format", "sarif", "--output", target)
    assert result.exit_code == 1, result.output
    assert json.loads(target.read_text())["runs"][0]["results"]
    assert result.stdout.startswith("::error ")


@pytest.mark.parametrize("args,needle", [
    (["--format", "github", "--output", "exlint.sarif"], "--format github matches no --output"),
    (["--format", "json", "--output", "a.xml"], "--format json matches no --output"),
    (["--output", "report.bin"], "report.bin from its extension: add a --format"),
    (["--format", "json", "--format", "text"], "only one format can go to standard output"),
])
def test_contradictory_pairing_is_a_usage_error(repo, tmp_path, args, needle):
    args = [str(tmp_path / a) if "." in a and not a.startswith("-") else a for a in args]
    result = invoke("check", *args, repo / "estate")
    assert result.exit_code == 2, result.output
    assert needle.replace("exlint.sarif", "") in result.stderr, result.stderr
    assert not any(tmp_path.glob("exlint.sarif")) and not any(tmp_path.glob("a.xml"))


def test_sarif_format_into_a_json_file_and_unknown_extension_with_format(repo, tmp_path):
    assert invoke("check", "--format", "sarif", "--output", tmp_path / "x.sarif.json", repo / "estate").exit_code == 1
    assert json.loads((tmp_path / "x.sarif.json").read_text())["version"] == "2.1.0"
    assert invoke("check", "--format", "json", "--output", tmp_path / "report", repo / "estate").exit_code == 1
    assert json.loads((tmp_path / "report").read_text())["version"] == "1"


# --------------------------------------------------------------- own documents

def test_walking_skips_foreign_yaml_and_counts_it(repo):
    result = invoke("check", "--format", "json", repo)
    body = json.loads(result.stdout)
    folders = {Path(f["file"]).parent.name for f in body["findings"]}
    assert folders == {"estate"}, body["findings"]
    assert "EXL004" not in {f["rule"] for f in body["findings"]}
    assert body["summary"]["files"] == 4 and body["summary"]["skipped"] == len(FOREIGN)
    text = invoke("check", repo)
    # hidden files and folders are walked too (the catalog's CI workflow and pre-commit file);
    # .exlint.yaml is the configuration, not a skipped file
    assert f"{len(FOREIGN)} file(s) skipped: not exlint documents" in text.stdout, text.stdout


def test_version_control_folders_and_virtual_environments_are_not_walked(repo):
    broken = "apiVersion: exlint/v1\nkind: Server\nmetadata: {name: [unclosed\n"
    write(repo / ".git" / "config.yaml", broken)
    write(repo / "node_modules" / "pkg" / "x.yaml", broken)
    write(repo / ".venv" / "pyvenv.cfg", "home = /usr/bin\n")
    write(repo / ".venv" / "lib" / "site.yaml", broken)
    body = json.loads(invoke("check", "--format", "json", repo).stdout)
    assert body["summary"]["skipped"] == len(FOREIGN) and not [f for f in body["findings"] if f["rule"] == "EXL001"]


def test_a_hidden_exlint_document_is_linted(repo):
    write(repo / ".drafts" / "s.yaml", "apiVersion: exlint/v1\nkind: Server\nmetadata: {name: [unclosed\n")
    body = json.loads(invoke("check", "--format", "json", repo).stdout)
    assert ("EXL001", "s.yaml") in {(f["rule"], Path(f["file"]).name) for f in body["findings"]}


def test_verbose_lists_skipped_files_and_the_configuration(repo):
    result = invoke("check", "--verbose", repo)
    skipped = sorted(line.split()[2].rstrip(":") for line in result.stderr.splitlines() if " skipped " in line)
    assert sorted(Path(p).name for p in skipped) == sorted(Path(name).name for name in FOREIGN)
    assert f"configuration {repo / '.exlint.yaml'}" in result.stderr


def test_a_file_named_explicitly_is_always_linted(repo):
    result = invoke("check", "--format", "json", repo / "mkdocs.yml")
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"]}
    assert "EXL004" in rules and result.exit_code == 1


def test_broken_estate_file_is_not_skipped_as_foreign(repo):
    write(repo / "estate" / "c.yaml", "apiVersion: exlint/v1\nkind: Server\nmetadata: {name: [unclosed\n")
    body = json.loads(invoke("check", "--format", "json", repo).stdout)
    assert ("EXL001", "c.yaml") in {(f["rule"], Path(f["file"]).name) for f in body["findings"]}


def test_hook_mode_skips_named_foreign_files(repo):
    os.chdir(repo)
    try:
        result = invoke("check", "--hook", "mkdocs.yml", "docker-compose.yml", "estate/a.yaml")
    finally:
        os.chdir(REPO)
    assert result.exit_code == 0, result.output
    assert "EXL004" not in result.stdout


# ------------------------------------------------------------------- no input

def test_a_path_outside_the_root_given_is_noted(repo, tmp_path):
    # linted with the repo's documents (a copy of one is a duplicate name): said, not silent
    outside = write(tmp_path / "elsewhere" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A"))
    result = invoke("check", "--root", repo, outside)
    assert result.exit_code == 1 and "EXL006" in result.stdout
    assert "is outside the config repo root" in result.stderr and "elsewhere" in result.stderr
    inside = invoke("check", "--root", repo, repo / "estate" / "a.yaml")
    assert "outside the config repo root" not in inside.stderr


def test_a_path_with_no_yaml_is_exit_2_unless_allowed(tmp_path):
    write(tmp_path / "notes.txt", "hello\n")
    result = invoke("check", tmp_path)
    assert result.exit_code == 2 and "no YAML files" in result.stderr and "--allow-empty" in result.stderr
    assert invoke("check", "--allow-empty", tmp_path).exit_code == 0
    write(tmp_path / ".exlint.yaml", "allow_empty: true\n")
    assert invoke("check", tmp_path).exit_code == 0


def test_only_foreign_yaml_is_exit_2(tmp_path):
    write(tmp_path / "mkdocs.yml", FOREIGN["mkdocs.yml"])
    result = invoke("check", tmp_path)
    assert result.exit_code == 2 and "no exlint documents (1 file(s) skipped" in result.stderr


def test_unreadable_directory_is_exit_2(repo, monkeypatch):
    locked = repo / "estate" / "locked"
    locked.mkdir()
    real = os.scandir

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = invoke("check", repo)
    assert result.exit_code == 2, result.output
    assert f"{locked}: cannot read directory: Permission denied" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory whatever its mode")
def test_unreadable_directory_by_mode_is_exit_2(repo):
    locked = repo / "estate" / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        result = invoke("check", repo)
    finally:
        locked.chmod(0o755)
    assert result.exit_code == 2 and "cannot read directory" in result.stderr


# ----------------------------------------------------------------------- typos

@pytest.mark.parametrize("args,needle", [
    (["--select", "XYZ"], "--select: unknown rule ID or prefix 'XYZ'"),
    (["--select", "DUP999"], "unknown rule ID or prefix 'DUP999' (did you mean DUP"),
    (["--ignore", "NOPE"], "--ignore: unknown rule ID or prefix 'NOPE'"),
    (["--select", "DUP,RPE"], "'RPE' (did you mean RTE or REP?)"),
])
def test_unknown_rule_on_the_command_line_is_exit_2(repo, args, needle):
    result = invoke("check", *args, repo)
    assert result.exit_code == 2, result.output
    assert needle in result.stderr, result.stderr


@pytest.mark.parametrize("config,needle", [
    ("select: [RPE]\n", "select: unknown rule ID or prefix 'RPE' (did you mean RTE or REP?)"),
    ("ignore: [DUP0002]\n", "ignore: unknown rule ID or prefix 'DUP0002' (did you mean DUP002"),
    ("severity: {DUP02: error}\n", "severity: unknown rule ID 'DUP02' (did you mean DUP002"),
    ("severity: {DUP: error}\n", "severity: unknown rule ID 'DUP'"),
    ("options: {DUP0002: {threshold_hours: 3}}\n", "options: unknown rule ID 'DUP0002' (did you mean DUP002"),
])
def test_unknown_rule_in_the_configuration_is_exit_2(repo, config, needle):
    write(repo / ".exlint.yaml", config)
    result = invoke("check", repo)
    assert result.exit_code == 2, result.output
    assert needle in result.stderr, result.stderr


def test_unknown_rule_in_a_suppression_is_a_finding(repo):
    write(repo / "estate" / "b.yaml",
          STORE.format(name="PFDB-B", server="EX10-NOPE").replace(
              "server: EX10-NOPE", "server: EX10-NOPE  # exlint: disable=EXL07 reason=\"typo\""))
    body = json.loads(invoke("check", "--format", "json", repo).stdout)
    messages = [f["message"] for f in body["findings"] if f["rule"] == "EXL010"]
    assert len(messages) == 1 and messages[0].startswith("unknown rule EXL07 in suppression (did you mean EXL007")
    assert messages[0].endswith("it silences nothing; fix the rule ID")
    assert "EXL007" in {f["rule"] for f in body["findings"]}  # the typo silenced nothing


# -------------------------------------------------------------- root discovery

def _git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def test_config_above_the_git_work_tree_is_ignored(tmp_path):
    # a planted config above the repository silences nothing inside it
    write(tmp_path / ".exlint.yaml", "ignore: [EXL, REP, DUP, HIE]\n")
    repo = tmp_path / "repo"
    write(repo / "org.yaml", ORG)
    write(repo / "server.yaml", SERVER.format(name="EX10-A"))
    write(repo / "b.yaml", STORE.format(name="PFDB-B", server="EX10-NOPE"))
    _git_init(repo)
    result = invoke("check", "--verbose", "--format", "json", repo / "b.yaml")
    assert result.exit_code == 1, result.output
    assert "EXL007" in {f["rule"] for f in json.loads(result.stdout)["findings"]}
    assert f"no configuration; root: the git work tree {repo}" in result.stderr


def test_git_work_tree_is_the_root_without_a_config(tmp_path):
    repo = tmp_path / "repo"
    write(repo / "org.yaml", ORG)
    write(repo / "server.yaml", SERVER.format(name="EX10-A"))
    write(repo / "stores" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A"))
    _git_init(repo)
    result = invoke("check", "--format", "json", repo / "stores" / "a.yaml")
    assert result.exit_code == 0, result.output  # server and organization resolve from the work tree


def test_no_root_says_why_references_do_not_resolve(tmp_path):
    store = write(tmp_path / "lone" / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A"))
    result = invoke("check", store)
    notes = [line for line in result.stderr.splitlines() if "note:" in line]
    assert len(notes) == 1 and "no config repo root above" in notes[0] and "--root" in notes[0], result.stderr


def test_pyproject_section_is_a_root(tmp_path):
    repo = tmp_path / "repo"
    write(repo / "pyproject.toml", "[tool.exlint]\nignore = ['EXL007']\n")
    write(repo / "org.yaml", ORG)
    write(repo / "server.yaml", SERVER.format(name="EX10-A"))
    write(repo / "stores" / "b.yaml", STORE.format(name="PFDB-B", server="EX10-NOPE"))
    result = invoke("check", "--verbose", repo / "stores" / "b.yaml")
    assert result.exit_code == 0, result.output
    assert f"[tool.exlint] in {repo / 'pyproject.toml'}" in result.stderr


def test_a_nested_config_repo_is_neither_context_nor_walked(tmp_path):
    # two estates in one git repository: the nested one, with its own .exlint.yaml,
    # must not lend its names to the outer one nor be linted under the outer config
    repo = tmp_path / "repo"
    write(repo / "org.yaml", ORG)
    write(repo / "a.yaml", STORE.format(name="PFDB-A", server="EX10-A"))
    write(repo / "lab" / ".exlint.yaml", "{}\n")
    write(repo / "lab" / "org.yaml", ORG)
    write(repo / "lab" / "server.yaml", SERVER.format(name="EX10-A"))
    _git_init(repo)
    named = json.loads(invoke("check", "--format", "json", repo / "a.yaml").stdout)
    assert "EXL007" in {f["rule"] for f in named["findings"]}  # EX10-A is the lab's server, not this estate's
    walked = invoke("check", "--format", "json", repo)
    body = json.loads(walked.stdout)
    assert {f["file"] for f in body["findings"]} <= {str(repo / "a.yaml"), str(repo / "org.yaml")}
    assert "EXL008" not in {f["rule"] for f in body["findings"]}  # the lab's Organization is not counted
    assert f"{repo / 'lab'} not linted: it is a config repo of its own" in walked.stderr
    assert invoke("check", repo / "lab").exit_code == 0  # clean on its own


def test_a_folder_of_config_repos_alone_says_which_to_lint(tmp_path):
    # it said "no YAML files to lint" of a folder holding two config repos
    write(tmp_path / ".exlint.yaml", "{}\n")
    for estate in ("east", "west"):
        write(tmp_path / estate / ".exlint.yaml", "{}\n")
        write(tmp_path / estate / "org.yaml", ORG)
    result = invoke("check", tmp_path)
    assert result.exit_code == 2, result.output
    assert "nothing to lint here but config repos of their own" in result.stderr
    assert str(tmp_path / "east") in result.stderr and str(tmp_path / "west") in result.stderr


def test_paths_of_two_config_repos_are_each_linted_with_their_own_references(tmp_path):
    # one call (a hook's, or `check a b`) naming files of two estates: neither lends the other names
    for estate, server in (("east", "EX10-A"), ("west", "EX10-B")):
        write(tmp_path / estate / ".exlint.yaml", "{}\n")
        write(tmp_path / estate / "org.yaml", ORG.replace("EX10-A", server))
        write(tmp_path / estate / "server.yaml", SERVER.format(name=server))
    east = write(tmp_path / "east" / "store.yaml", STORE.format(name="PFDB-E", server="EX10-A"))
    west = write(tmp_path / "west" / "store.yaml", STORE.format(name="PFDB-W", server="EX10-A"))  # east's server
    result = invoke("check", "--format", "json", east, west)
    body = json.loads(result.stdout)
    assert [(f["rule"], f["file"]) for f in body["findings"]] == [("EXL007", str(west))], body["findings"]
    assert body["summary"]["files"] == 2
    assert invoke("check", "--format", "json", tmp_path / "east", tmp_path / "west").exit_code == 1
    refused = invoke("check", "--fix", east, west)
    assert refused.exit_code == 2 and "one config repo at a time" in refused.stderr, refused.output
    assert invoke("check", "--format", "json", east).exit_code == 0


def test_two_config_repos_without_an_organization_are_two_exl008s(tmp_path):
    # each repo is an estate of its own: one EXL008 for both (they read alike) lost one, as estate does not
    for estate, server in (("east", "EX10-A"), ("west", "EX10-B")):
        write(tmp_path / estate / ".exlint.yaml", "{}\n")
        write(tmp_path / estate / "server.yaml", SERVER.format(name=server))
    result = invoke("check", "--format", "json", "--fail-on", "never", tmp_path / "east", tmp_path / "west")
    body = json.loads(result.stdout)
    assert [f["rule"] for f in body["findings"] if f["rule"] == "EXL008"] == ["EXL008", "EXL008"], body["findings"]
    assert body["summary"]["error"] == sum(f["severity"] == "error" for f in body["findings"])


# --------------------------------------------------------------------- colour

@pytest.mark.parametrize("args,env,coloured", [
    (["--color", "always"], {}, True),
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
    ([], {}, False),  # not a terminal
])
def test_colour_changes_colour_only(repo, args, env, coloured):
    environment = {"NO_COLOR": "", "FORCE_COLOR": "", **env}
    environment = {k: v or None for k, v in environment.items()}
    result = invoke("check", *args, repo / "estate", env=environment)
    assert ("\x1b[" in result.stdout) == coloured, result.stdout
    plain = invoke("check", "--color", "never", repo / "estate")
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", result.stdout) == plain.stdout


def test_fail_on_never_in_the_configuration_matches_the_flag(repo):
    assert invoke("check", "--fail-on", "never", repo).exit_code == 0
    write(repo / ".exlint.yaml", "fail_on: never\n")
    assert invoke("check", repo).exit_code == 0


def test_every_option_has_help_text():
    import click

    def walk(command, path):
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{path} {param.opts} has no help text"
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(cli, "exlint")


def test_rules_table_fits_the_terminal_width():
    for width in (60, 100, 160):
        result = CliRunner().invoke(cli, ["rules"], env={"COLUMNS": str(width)})
        assert result.exit_code == 0
        lines = result.stdout.splitlines()
        assert len(lines) > 60
        assert max(len(line) for line in lines) <= width, (width, max(lines, key=len))
        assert any(line.startswith("DUP001 ") for line in lines)


# ------------------------------------------------------------------------ html

def test_check_html_lists_every_finding_grouped_by_file(repo, tmp_path):
    write(repo / "estate" / "c.yaml", STORE.format(name="PFDB-C", server="EX10-GONE"))
    target = tmp_path / "report.html"
    assert invoke("check", "--output", target, repo / "estate").exit_code == 1
    body = json.loads(invoke("check", "--format", "json", repo / "estate").stdout)
    import re

    text = target.read_text()
    section = text[text.index('<section id="findings"'):]
    section = section[:section.index("</section>")]
    groups = re.findall(r'<tr class="group"><th[^>]*>([^<]+) <span', section)
    assert [g for g in groups] == sorted({f["file"] for f in body["findings"]})
    rows = re.findall(r'<tr class="finding sev-(\w+)"><td class="mono">([^<]+)</td><td><a [^>]*>(\w+)</a>', section)
    assert [(s, loc, rule) for s, loc, rule in rows] == \
        [(f["severity"], f"{f['file']}:{f['line']}", f["rule"]) for f in body["findings"]]
    assert 'data-filter="findings"' in section


def test_estate_header_names_the_command_and_counts_records():
    from linter.reports.html import assemble, render_html

    data = assemble({}, {}, meta={"engine": "estate", "scope": {"files": 2, "documents": 0, "paths": [],
                                                                "records_in": 1000, "linted": 998}})
    page = render_html(data)
    header = page[page.index("<header"):page.index("</header>")]
    assert "exlint estate" in header and "Spark)" not in header
    assert "1,000 record(s) in = 998 linted + 2 reported as malformed" in header.replace("\u202f", ",")
    assert 'id="findings"' not in page  # counts only: no list to show
