"""Configuration: ``.exlint.yaml`` or ``[tool.exlint]`` in pyproject.toml.

Keys: select, ignore (rule IDs or prefixes), severity (ID -> level),
options (ID -> {name: value}, e.g. DUP002 threshold_hours), include, exclude
(globs relative to the root), rule_dirs (extra rule-pack directories),
fail_on.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from linter.loading import read_regular_text
from linter.loading.fast_yaml import load as _yaml_load

from linter.findings import SEVERITIES

CONFIG_NAME = ".exlint.yaml"
KEYS = {"select", "ignore", "severity", "options", "include", "exclude", "rule_dirs", "fail_on"}


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

    def enabled(self, rule_id: str, select=(), ignore=()) -> bool:
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
    unknown = set(data) - KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown keys {', '.join(sorted(unknown))}; known: {', '.join(sorted(KEYS))}")
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
    if fail_on is not None and fail_on not in SEVERITIES:
        raise ConfigError(f"{where}: `fail_on` must be one of {', '.join(SEVERITIES)}")
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


def _has_tool_section(pyproject: Path) -> bool:
    try:
        return "[tool.exlint" in pyproject.read_text(encoding="utf-8")
    except OSError:
        return False


def find_config(start: Path) -> Path | None:
    """The nearest ``.exlint.yaml`` (or pyproject.toml with [tool.exlint]) upward from ``start``."""
    start = start.resolve()
    for directory in [start, *start.parents]:
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and _has_tool_section(pyproject):
            return pyproject
    return None


def find_root(start: Path) -> Path | None:
    """The config repo root: the nearest ancestor directory holding ``.exlint.yaml``."""
    start = start.resolve()
    if start.is_file() or not start.exists():
        start = start.parent
    for directory in [start, *start.parents]:
        if (directory / CONFIG_NAME).is_file():
            return directory
    return None
