"""`.exlint.yaml` comes with the pull request: a typo never turns a check off
silently, a mistake is one line naming the file, line and column (exit 2), and
nothing outside the repository is read through it (docs/security.md,
"Configuration mistakes are errors", "Rule packs come from the repository")."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from linter.config import ConfigError, read_config
from linter.runner import Options, lint

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "samples" / "broken"


def run(*args, cwd: Path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "linter", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL)


def repo(tmp_path: Path, config: str) -> Path:
    """A copy of samples/broken (every rule family fires in it) with this configuration."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(BROKEN, root)
    (root / ".exlint.yaml").write_text(config)
    return root


def rules_reported(root: Path, monkeypatch) -> set[str]:
    monkeypatch.chdir(root)
    return {f.rule for f in lint(Options(paths=["."], use_cache=False)).findings}


def config_error(root: Path, monkeypatch) -> str:
    monkeypatch.chdir(root)
    with pytest.raises(ConfigError) as caught:
        lint(Options(paths=["."], use_cache=False))
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- 4. rule IDs are not case-sensitive --------------------------------------------------------

def test_lower_case_select_and_ignore_work_as_upper_case(tmp_path, monkeypatch):
    upper = rules_reported(repo(tmp_path / "a", "select: [DUP, REP]\nignore: [BKF001]\n"), monkeypatch)
    lower = rules_reported(repo(tmp_path / "b", "select: [dup, rep]\nignore: [bkf001]\n"), monkeypatch)
    assert upper and lower == upper
    assert {rule[:3] for rule in lower} <= {"DUP", "REP", "EXL"}
    everything = rules_reported(repo(tmp_path / "c", "ignore: [bkf001]\n"), monkeypatch)
    assert "BKF001" not in everything and "BKF004" in everything


def test_lower_case_severity_and_options_apply(tmp_path, monkeypatch):
    root = repo(tmp_path, "severity: {dup001: info}\noptions: {dup002: {threshold_hours: 336}}\n")
    monkeypatch.chdir(root)
    result = lint(Options(paths=["."], use_cache=False))
    assert {f.severity for f in result.findings if f.rule == "DUP001"} == {"info"}
    assert result.config.options == {"DUP002": {"threshold_hours": 336}}


def test_a_severity_level_in_capitals_applies(tmp_path, monkeypatch):
    root = repo(tmp_path, "severity: {DUP001: INFO}\n")
    monkeypatch.chdir(root)
    result = lint(Options(paths=["."], use_cache=False))
    assert {f.severity for f in result.findings if f.rule == "DUP001"} == {"info"}


def test_a_rule_id_named_twice_in_other_cases_is_an_error(tmp_path, monkeypatch):
    root = repo(tmp_path, "severity:\n  dup001: info\n  DUP001: error\n")
    message = config_error(root, monkeypatch)
    assert message.endswith(".exlint.yaml:3:3: `severity` names DUP001 twice (rule IDs are not case-sensitive): "
                            "keep one")


def test_an_unknown_lower_case_id_is_still_an_error_with_its_position(tmp_path, monkeypatch):
    message = config_error(repo(tmp_path, "select: [dup, xyz9]\n"), monkeypatch)
    assert ".exlint.yaml:1:15: select: unknown rule ID or prefix 'XYZ9'" in message


# -- 5. duplicate keys ---------------------------------------------------------------------

def test_a_key_written_twice_is_an_error_at_the_second(tmp_path, monkeypatch):
    root = repo(tmp_path, "# rules we gate on\nselect: [EXL, DUP]\nfail_on: error\n# added later\nselect: [HIE]\n")
    message = config_error(root, monkeypatch)
    assert message == (f"{root / '.exlint.yaml'}:5:1: duplicate key 'select' (first written on line 2); "
                       "YAML keeps only the last one: merge them into one")
    completed = run("check", ".", cwd=root)
    assert completed.returncode == 2 and completed.stderr.decode().count("\n") == 1
    assert b"Traceback" not in completed.stderr


def test_a_nested_key_written_twice_is_an_error(tmp_path):
    path = tmp_path / ".exlint.yaml"
    path.write_text("options:\n  DUP002: {threshold_hours: 200, threshold_hours: 300}\n")
    with pytest.raises(ConfigError, match=r"\.exlint\.yaml:2:34: duplicate key 'threshold_hours'"):
        read_config(path)


# -- 6. rule_dirs stay inside the repository ---------------------------------------------------

def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ci-secrets.yaml").write_text("- {id: TOKEN-ghp_SECRETVALUE}\n")
    return outside


@pytest.mark.parametrize("where", ["../outside", "ABSOLUTE", "linked"])
def test_a_rule_dir_outside_the_repository_is_refused_unread(tmp_path, monkeypatch, where):
    outside = _outside(tmp_path)
    root = repo(tmp_path, "")
    os.symlink(outside, root / "linked")
    value = str(outside) if where == "ABSOLUTE" else where
    (root / ".exlint.yaml").write_text(f"rule_dirs: [{value}]\n")
    message = config_error(root, monkeypatch)
    assert message.startswith(f"{root / '.exlint.yaml'}:1:13: rule_dirs: {value!r} leads outside the repository")
    assert "relative to .exlint.yaml" in message
    completed = run("check", ".", cwd=root)
    assert completed.returncode == 2 and b"SECRETVALUE" not in completed.stdout + completed.stderr


def test_a_rule_pack_linking_out_of_the_repository_is_refused(tmp_path, monkeypatch):
    outside = _outside(tmp_path)
    root = repo(tmp_path, "rule_dirs: [policies]\n")
    (root / "policies").mkdir()
    os.symlink(outside / "ci-secrets.yaml", root / "policies" / "pack.yaml")
    message = config_error(root, monkeypatch)
    assert "policies/pack.yaml: a symbolic link to a file outside the repository: not read" in message
    assert "SECRETVALUE" not in message


def test_a_rule_dir_inside_the_repository_is_read(tmp_path, monkeypatch):
    root = repo(tmp_path, "rule_dirs: [policies]\n")
    (root / "policies").mkdir()
    monkeypatch.chdir(root)
    assert read_config(root / ".exlint.yaml").rule_dirs == [root / "policies"]


# -- 9. option values ----------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (".nan", "option 'threshold_hours' of DUP002 is nan: it must be a finite number (not .nan or .inf)"),
    (".inf", "option 'threshold_hours' of DUP002 is inf: it must be a finite number"),
    ("-5", "options: DUP002 threshold_hours is -5: it must be 0 or more (the default is 168)"),
    # past 64 bits: left to the rule's expression, the error named exlint's own rule pack
    ("9223372036854775808", "options: DUP002 threshold_hours is 9223372036854775808: it must fit in 64 bits"),
    ("'many'", "option 'threshold_hours' of DUP002 is 'many': it must be a number"),
    # YAML 1.1's base-60 (360 hours) is no number here, as in the documents: said, never shifted silently
    ("6:00", "option 'threshold_hours' of DUP002 is '6:00': it must be a number"),
])
def test_a_bad_option_value_names_the_file_position_and_value(tmp_path, monkeypatch, value, expected):
    root = repo(tmp_path, f"options:\n  DUP002:\n    threshold_hours: {value}\n")
    message = config_error(root, monkeypatch)
    assert message.startswith(f"{root / '.exlint.yaml'}:3:5: {expected}"), message


def test_an_unknown_option_names_the_file_and_a_suggestion(tmp_path, monkeypatch):
    root = repo(tmp_path, "options: {DUP002: {threshold_hour: 200}}\n")
    message = config_error(root, monkeypatch)
    assert message == (f"{root / '.exlint.yaml'}:1:20: options: DUP002 has no option 'threshold_hour' "
                       "(did you mean threshold_hours?); its options: threshold_hours")


def test_a_good_option_value_applies(tmp_path, monkeypatch):
    root = repo(tmp_path, "options: {DUP002: {threshold_hours: 0}}\n")
    monkeypatch.chdir(root)
    assert lint(Options(paths=["."], use_cache=False)).rules["DUP002"].options["threshold_hours"] == 0


@pytest.mark.parametrize("written, value", [("0170", 170), ("0168", 168), ("012", 12)])
def test_a_leading_zero_option_is_read_as_written_not_octal(tmp_path, monkeypatch, written, value):
    # as documents read it (README: 0170 is 170); YAML 1.1 made it 120 (and 0168 text)
    root = repo(tmp_path, f"options: {{DUP002: {{threshold_hours: {written}}}}}\nthresholds: {{}}\n")
    monkeypatch.chdir(root)
    assert lint(Options(paths=["."], use_cache=False)).rules["DUP002"].options["threshold_hours"] == value


def test_a_character_yaml_forbids_in_the_config_is_placed_by_line_and_column(tmp_path):
    config = tmp_path / ".exlint.yaml"
    config.write_bytes(b"select: [DUP]\n  \x00\nfail_on: error\n")
    with pytest.raises(ConfigError) as caught:
        read_config(config)
    message = str(caught.value)
    assert message.startswith(f"{config}:2:3: ") and "U+0000" in message and "\\n" not in message, message


# -- a configuration exlint cannot read is an error, never "no configuration" -------------------

def _bare_repo(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(BROKEN, root)
    (root / ".exlint.yaml").unlink(missing_ok=True)
    (root / ".git").mkdir()  # a git work tree: the root, whatever the configuration
    return root


@pytest.mark.parametrize("kind, words", [
    ("dangling", "dangling symbolic link to nothere.yaml"),  # the shared configuration moved
    ("fifo", "not a regular file"),
    ("folder", "not a regular file"),
])
def test_an_exlint_yaml_that_cannot_be_read_is_an_error_not_every_default(tmp_path, monkeypatch, kind, words):
    root = _bare_repo(tmp_path)
    config = root / ".exlint.yaml"
    if kind == "dangling":
        config.symlink_to("nothere.yaml")
    elif kind == "fifo":
        os.mkfifo(config)
    else:
        config.mkdir()
    message = config_error(root, monkeypatch)
    assert ".exlint.yaml" in message and words in message, message


def test_a_pyproject_that_cannot_be_read_is_an_error_too(tmp_path, monkeypatch):
    root = _bare_repo(tmp_path)
    os.mkfifo(root / "pyproject.toml")
    assert "pyproject.toml" in config_error(root, monkeypatch)


def test_a_misspelt_tool_table_in_pyproject_is_an_error_with_the_name(tmp_path, monkeypatch):
    root = _bare_repo(tmp_path)
    (root / "pyproject.toml").write_text('[project]\nname = "estate"\n\n[tool.exlnt]\nfail_on = "warning"\n')
    message = config_error(root, monkeypatch)
    assert "did you mean [tool.exlint]" in message, message


def test_a_pyproject_of_another_tool_is_no_configuration(tmp_path, monkeypatch):
    root = _bare_repo(tmp_path)
    (root / "pyproject.toml").write_text('[tool.black]\nline-length = 100\n[tool.ruff]\nselect = ["E"]\n'
                                         '[tool.eslint]\nx = 1\n[tool.pylint]\ny = 2\n')
    monkeypatch.chdir(root)
    assert lint(Options(paths=["."], use_cache=False)).findings  # linted, with the defaults


@pytest.mark.parametrize("name", [".exlint.yaml", "pyproject.toml"])
def test_a_configuration_linking_out_of_the_repository_is_refused_unread(tmp_path, monkeypatch, name):
    root = _bare_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = "hunter2-SECRET"
    target = outside / name
    target.write_text(f"select: [{secret}]\n" if name == ".exlint.yaml" else f'[tool.exlint]\nselect = ["{secret}"]\n')
    (root / name).symlink_to(target)
    message = config_error(root, monkeypatch)
    assert "outside the repository" in message and secret.upper() not in message.upper(), message
    # named with --config, it is the user's own choice: read
    monkeypatch.chdir(root)
    with pytest.raises(ConfigError) as caught:
        lint(Options(paths=["."], config=str(target), use_cache=False))
    assert secret.upper() in str(caught.value).upper()


def test_a_configuration_linking_inside_the_repository_is_read(tmp_path, monkeypatch):
    root = _bare_repo(tmp_path)
    (root / "config").mkdir()
    (root / "config" / "exlint.yaml").write_text("select: [DUP]\n")
    (root / ".exlint.yaml").symlink_to("config/exlint.yaml")
    assert rules_reported(root, monkeypatch) <= {"DUP001", "DUP002", "DUP003", "DUP004", "DUP005", "EXL001", "EXL002",
                                                 "EXL003", "EXL004", "EXL005", "EXL006", "EXL007", "EXL008", "EXL009",
                                                 "EXL010", "EXL000"}
