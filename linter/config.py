"""Configuration: ``.exlint.yaml`` or ``[tool.exlint]`` in pyproject.toml.

Keys: select, ignore (rule IDs or prefixes), severity (ID -> level),
options (ID -> {name: value}, e.g. DUP002 threshold_hours), include, exclude
(globs relative to the root), rule_dirs (extra rule-pack directories),
fail_on (error, warning, info or never), allow_empty (exit 0 when there is
nothing to lint), docs_url (the rules' documentation, for SARIF helpUri).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from linter.loading import read_regular_text
from linter.loading.fast_yaml import load as _yaml_load
from linter.loading.scope import CONFIG_NAME, has_tool_section

from linter.findings import RULE_FAILED, SEVERITIES

KEYS = {"select", "ignore", "severity", "options", "include", "exclude", "rule_dirs", "fail_on", "allow_empty", "docs_url"}
FAIL_ON = (*SEVERITIES, "never")


class ConfigError(ValueError):
    pass


@dataclass
class Config:
    path: Path | None = None
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    rule_dirs: list[Path] = field(default_factory=list)
    fail_on: str | None = None
    allow_empty: bool = False
    docs_url: str | None = None  # where the rules are documented (SARIF helpUri)

    def enabled(self, rule_id: str, select=(), ignore=()) -> bool:
        if rule_id == RULE_FAILED:  # never hidden (linter.findings)
            return True
        selected = list(select) or self.select
        if selected and not any(rule_id.startswith(s) for s in selected):
            return False
        return not any(rule_id.startswith(i) for i in list(ignore) + self.ignore)


def _string_list(value, key: str, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def parse_config(data: Any, path: Path | None) -> Config:
    where = str(path) if path else "configuration"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the configuration must be a mapping")
    unknown = sorted(set(data) - KEYS, key=str)
    if unknown:
        hint = _did_you_mean(str(unknown[0]), KEYS)
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}{hint}; known keys: {', '.join(sorted(KEYS))}")
    severity = data.get("severity") or {}
    if not isinstance(severity, dict) or not all(v in SEVERITIES for v in severity.values()):
        raise ConfigError(f"{where}: `severity` maps rule IDs to one of {', '.join(SEVERITIES)}")
    options = data.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise ConfigError(f"{where}: `options` maps rule IDs to mappings of option values")
    for rule_options in options.values():
        for name, value in rule_options.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{where}: option {name!r} must be a number")
    fail_on = data.get("fail_on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ConfigError(f"{where}: `fail_on` must be one of {', '.join(FAIL_ON)}")
    allow_empty = data.get("allow_empty", False)
    if not isinstance(allow_empty, bool):
        raise ConfigError(f"{where}: `allow_empty` must be true or false")
    docs = data.get("docs_url")
    if docs is not None and not (isinstance(docs, str) and re.match(r"^https?://\S+$", docs)):
        raise ConfigError(f"{where}: `docs_url` must be an http(s) address, e.g. https://git.example.com/exlint/docs/rules.md")
    base = path.parent if path else Path.cwd()
    return Config(
        path=path,
        select=_string_list(data.get("select"), "select", where),
        ignore=_string_list(data.get("ignore"), "ignore", where),
        severity=dict(severity),
        options={k: dict(v) for k, v in options.items()},
        include=_string_list(data.get("include"), "include", where),
        exclude=_string_list(data.get("exclude"), "exclude", where),
        rule_dirs=[(base / d) for d in _string_list(data.get("rule_dirs"), "rule_dirs", where)],
        fail_on=fail_on,
        allow_empty=allow_empty,
        docs_url=docs,
    )


def read_config(path: Path) -> Config:
    try:
        text = read_regular_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None
    if path.name == "pyproject.toml":
        import tomllib

        try:
            data = tomllib.loads(text).get("tool", {}).get("exlint", {})
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        return parse_config(data, path)
    try:
        data = _yaml_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        position = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}{position}: invalid YAML in configuration: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML in configuration: {exc}") from None
    return parse_config(data, path)


def _did_you_mean(word: str, choices) -> str:
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=3, cutoff=0.5)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_rule_ids(config: "Config", known, select=(), ignore=()) -> None:
    """Every rule ID or prefix named in the configuration and on the command
    line must name a rule: a typo would silently turn a check off (or leave it on)."""
    where = str(config.path) if config.path else "configuration"
    uses = [("--select", v, True) for v in select] + [("--ignore", v, True) for v in ignore]
    uses += [(f"{where}: select", v, True) for v in config.select]
    uses += [(f"{where}: ignore", v, True) for v in config.ignore]
    uses += [(f"{where}: severity", v, False) for v in config.severity]
    uses += [(f"{where}: options", v, False) for v in config.options]
    for origin, value, prefix_ok in uses:
        text = str(value).upper() if prefix_ok else str(value)
        if text == RULE_FAILED:
            raise ConfigError(f"{origin}: {RULE_FAILED} (a rule that failed to run) cannot be selected, ignored or "
                              f"re-graded: fix or remove the rule it names")
        if text in known or (prefix_ok and text and any(rule_id.startswith(text) for rule_id in known)):
            continue
        families = {rule_id.rstrip("0123456789") for rule_id in known} if prefix_ok else set()
        hint = _did_you_mean(text, set(known) | families) or "; see `exlint rules`"
        kind = "rule ID or prefix" if prefix_ok else "rule ID"
        raise ConfigError(f"{origin}: unknown {kind} {value!r}{hint}")


@dataclass
class Discovery:
    """Where a run's configuration and config repo root come from, and why."""
    root: Path | None
    config: Path | None
    reason: str  # shown by --verbose


def _is_work_tree_root(directory: Path) -> bool:
    return (directory / ".git").exists()


def _boundaries(start: Path):
    """``start`` and its ancestors, stopping at the git work tree root (a config
    planted above a repository never applies to it) or at the home directory."""
    try:
        home = Path.home().resolve()
    except (KeyError, RuntimeError):  # no home directory known
        home = None
    for directory in [start, *start.parents]:
        yield directory
        if _is_work_tree_root(directory) or directory == home:
            return


def discover_root(start: Path) -> Discovery:
    """The nearest ``.exlint.yaml`` or pyproject.toml with ``[tool.exlint]``;
    else the git work tree holding ``start``; else nothing (only the paths given)."""
    start = start.resolve()
    if start.is_file() or not start.exists():
        start = start.parent
    for directory in _boundaries(start):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return Discovery(directory, candidate, f"configuration {candidate}")
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and has_tool_section(pyproject):
            return Discovery(directory, pyproject, f"configuration [tool.exlint] in {pyproject}")
        if _is_work_tree_root(directory):
            return Discovery(directory, None, f"no configuration; root: the git work tree {directory}")
    return Discovery(None, None, "no configuration, no git work tree: only the paths given are loaded")


def find_config(start: Path) -> Path | None:
    """The nearest ``.exlint.yaml`` (or pyproject.toml with [tool.exlint]) upward from ``start``."""
    start = start.resolve()
    for directory in _boundaries(start):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and has_tool_section(pyproject):
            return pyproject
    return None


def find_root(start: Path) -> Path | None:
    """The config repo root (see :func:`discover_root`)."""
    return discover_root(start).root
