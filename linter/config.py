"""Configuration: ``.exlint.yaml`` or ``[tool.exlint]`` in pyproject.toml.

Keys: select, ignore (rule IDs or prefixes), severity (ID -> level),
options (ID -> {name: value}, e.g. DUP002 threshold_hours), include, exclude
(globs relative to the root), rule_dirs (extra rule-pack directories),
fail_on (error, warning, info or never), allow_empty (exit 0 when there is
nothing to lint), docs_url (the rules' documentation, for SARIF helpUri).
"""
from __future__ import annotations

import codecs
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from linter.loading import read_regular
from linter.loading.fast_yaml import DuplicateKeyError
from linter.loading.fast_yaml import load_marked as _yaml_load_marked
from linter.loading.scope import CONFIG_NAME, config_file_present, configures_exlint, has_tool_section
from linter.loading.text import TextError, decode

from linter.findings import RULE_FAILED, SEVERITIES

KEYS = {"select", "ignore", "severity", "options", "thresholds", "include", "exclude", "rule_dirs", "fail_on",
        "allow_empty", "docs_url"}
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
    # where each key is written in .exlint.yaml: (key, ...) -> (line, column); rule IDs upper-cased
    marks: dict[tuple, tuple[int, int]] = field(default_factory=dict, repr=False, compare=False)

    def where(self, *keys) -> str:
        """The configuration file, with the line and column of ``keys`` (or of
        their nearest written parent) when known: ``.exlint.yaml:3:10``."""
        name = str(self.path) if self.path else "configuration"
        for cut in range(len(keys), 0, -1):
            mark = self.marks.get(tuple(keys[:cut]))
            if mark is not None:
                return f"{name}:{mark[0]}:{mark[1]}"
        return name

    def evaluated(self, rules: dict, select=(), ignore=()) -> dict:
        """The rules a run evaluates (both engines): those --select, --ignore and the
        configuration keep. A rule left out is not run, so it raises no EXL000."""
        return {rule_id: rule for rule_id, rule in rules.items() if self.enabled(rule_id, select, ignore)}

    def runs_any(self, prefix: str, rule_ids, select=(), ignore=()) -> bool:
        """Whether a run evaluates any rule ``prefix`` (an ID or prefix) names: a
        suppression of a rule --select or --ignore left out is not unused (EXL010)."""
        return any(self.enabled(rule_id, select, ignore) for rule_id in rule_ids if rule_id.startswith(prefix))

    def enabled(self, rule_id: str, select=(), ignore=()) -> bool:
        if rule_id == RULE_FAILED:  # never hidden (linter.findings)
            return True
        selected = list(select) or self.select
        if selected and not any(rule_id.startswith(s) for s in selected):
            return False
        if any(rule_id.startswith(i) for i in ignore):
            return False
        # the command line over the configuration: `--select DUP001` runs DUP001 although the
        # configuration ignores it (or DUP); the more specific selector wins, as in ruff
        asked = max((len(s) for s in select if rule_id.startswith(s)), default=-1)
        return not any(rule_id.startswith(i) and len(i) > asked for i in self.ignore)


def _string_list(value, key: str, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def _rule_ids(values: list[str]) -> list[str]:
    """Rule IDs and prefixes as rules spell them (``dup`` selects DUP001): a case
    slip must never turn a check off."""
    return [value.strip().upper() for value in values]


def _upper_keys(mapping: dict, key: str, at) -> dict:
    out: dict = {}
    for name, value in mapping.items():
        upper = name.strip().upper() if isinstance(name, str) else name
        if upper in out:
            raise ConfigError(f"{at(key, name)}: `{key}` names {upper} twice (rule IDs are not case-sensitive): "
                              f"keep one")
        out[upper] = value
    return out


def _with_thresholds(options: dict, thresholds, at, marks: dict) -> dict:
    """``options`` with ``thresholds`` (the catalog's word: ``thresholds: {DUP002: 336}``)
    added: a rule's one threshold, the only option it declares, under its name."""
    if thresholds is None:
        return options
    if not isinstance(thresholds, dict):
        raise ConfigError(f"{at('thresholds')}: `thresholds` maps rule IDs to numbers, e.g. thresholds: {{DUP002: 336}}")
    _upper_keys(thresholds, "thresholds", at)  # a rule named twice (dup002 and DUP002) is an error
    from linter.policy.packs import load_rules  # the built-in rules' declared options

    declared = {rule_id: rule.option_defaults for rule_id, rule in load_rules().items()}
    out = {rule_id: dict(values) for rule_id, values in options.items()}  # rule IDs upper-cased already
    for written, value in thresholds.items():
        rule_id = written.strip().upper() if isinstance(written, str) else written
        names = list(declared.get(rule_id, {}))
        if len(names) != 1:
            with_one = ", ".join(sorted(r for r, o in declared.items() if len(o) == 1))
            raise ConfigError(f"{at('thresholds', written)}: thresholds: {written} has no threshold to set (rules with "
                              f"one: {with_one}); see `exlint explain {rule_id}` for its options")
        if names[0] in out.get(rule_id, {}):
            raise ConfigError(f"{at('thresholds', written)}: thresholds: {rule_id} is set in `options` too: keep one")
        out.setdefault(rule_id, {})[names[0]] = value
        if ("thresholds", written) in marks:  # an error about the value points at what was written
            marks[("options", rule_id, names[0])] = marks[("thresholds", written)]
    return out


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _rule_dirs(values: list[str], base: Path, config: "Config") -> list[Path]:
    """The rule-pack folders, each inside the folder holding the configuration
    (the config repo root): a configuration comes with the pull request, and a
    folder, or a pack in it, that leads out of the repository is never read
    (docs/security.md)."""
    from linter.loading import refusal

    real_base = os.path.realpath(base)
    name = config.path.name if config.path else "the configuration"
    out = []
    for index, value in enumerate(values):
        directory = base / value
        if not _inside(os.path.realpath(directory), real_base):
            raise ConfigError(f"{config.where('rule_dirs', index)}: rule_dirs: {value!r} leads outside the repository "
                              f"({base}): exlint reads nothing outside it; keep the rule packs in a folder of the "
                              f"repository and name it relative to {name} (e.g. policies/)")
        if directory.is_dir():
            for pack in sorted(directory.glob("*.y*ml")):
                reason = refusal(pack, real_base)
                if reason is not None:
                    raise ConfigError(f"{config.where('rule_dirs', index)}: rule_dirs: {pack}: {reason}")
        out.append(directory)
    return out


def parse_config(data: Any, path: Path | None, marks: dict | None = None) -> Config:
    """A Config from the configuration's data; ``marks`` (from
    :func:`linter.loading.fast_yaml.load_marked`) place its errors."""
    marks = dict(marks or {})
    where = str(path) if path else "configuration"
    at = Config(path=path, marks=marks).where  # where(*keys): the file, line and column of a key
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the configuration must be a mapping")
    unknown = sorted(set(data) - KEYS, key=str)
    if unknown:
        hint = did_you_mean(str(unknown[0]), KEYS)
        raise ConfigError(f"{at(unknown[0])}: unknown key {unknown[0]!r}{hint}; known keys: {', '.join(sorted(KEYS))}")
    severity = data.get("severity") or {}
    if isinstance(severity, dict):  # levels in any case (ERROR is error), as rule IDs are
        severity = {k: v.lower() if isinstance(v, str) else v for k, v in severity.items()}
    if not isinstance(severity, dict) or not all(v in SEVERITIES for v in severity.values()):
        raise ConfigError(f"{at('severity')}: `severity` maps rule IDs to one of {', '.join(SEVERITIES)}")
    options = data.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise ConfigError(f"{at('options')}: `options` maps rule IDs to mappings of option values")
    # rule IDs are upper case wherever they are named (a case slip must not turn a check off); the marks follow
    severity = _upper_keys(severity, "severity", at)
    options = _upper_keys(options, "options", at)
    for key in ("severity", "options"):
        for written in [k for k in marks if len(k) > 1 and k[0] == key and isinstance(k[1], str)]:
            upper = written[1].strip().upper()
            if upper != written[1]:
                marks[(key, upper) + written[2:]] = marks[written]
    options = _with_thresholds(options, data.get("thresholds"), at, marks)
    for rule_id, rule_options in options.items():
        for name, value in rule_options.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{at('options', rule_id, name)}: option {name!r} of {rule_id} is {value!r}: "
                                  f"it must be a number")
            if not math.isfinite(value):
                raise ConfigError(f"{at('options', rule_id, name)}: option {name!r} of {rule_id} is {value!r}: "
                                  f"it must be a finite number (not .nan or .inf)")
    fail_on = data.get("fail_on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ConfigError(f"{at('fail_on')}: `fail_on` must be one of {', '.join(FAIL_ON)}")
    allow_empty = data.get("allow_empty", False)
    if not isinstance(allow_empty, bool):
        raise ConfigError(f"{at('allow_empty')}: `allow_empty` must be true or false")
    docs = data.get("docs_url")
    if docs is not None and not (isinstance(docs, str) and re.match(r"^https?://\S+$", docs)):
        raise ConfigError(f"{at('docs_url')}: `docs_url` must be an http(s) address, e.g. "
                          f"https://git.example.com/exlint/docs/rules.md")
    base = path.parent if path else Path.cwd()
    config = Config(
        path=path,
        select=_rule_ids(_string_list(data.get("select"), "select", at("select"))),
        ignore=_rule_ids(_string_list(data.get("ignore"), "ignore", at("ignore"))),
        severity=severity,
        options={k: dict(v) for k, v in options.items()},
        include=_string_list(data.get("include"), "include", at("include")),
        exclude=_string_list(data.get("exclude"), "exclude", at("exclude")),
        fail_on=fail_on,
        allow_empty=allow_empty,
        docs_url=docs,
        marks=marks,
    )
    config.rule_dirs = _rule_dirs(_string_list(data.get("rule_dirs"), "rule_dirs", at("rule_dirs")), base, config)
    return config


def _config_text(path: Path) -> str:
    """The configuration's text. ``.exlint.yaml`` is decoded as documents are
    (:func:`linter.loading.text.decode`: UTF-8, or UTF-16 with a byte order mark; an
    editor's "Unicode" must not fail one YAML file and not the others); pyproject.toml
    only as UTF-8, which TOML requires."""
    from linter.loading import NotRegularFile, broken_link

    try:
        data = read_regular(path)
    except NotRegularFile:
        raise ConfigError(f"{path}: cannot read configuration: it is not a regular file (a folder, a pipe, a device "
                          f"or a link to one): not read; make it a file, or name another with --config") from None
    except OSError as exc:
        broken = broken_link(path)
        if broken is not None:
            raise ConfigError(f"{path}: cannot read configuration: {broken}") from None
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror or exc}") from None
    toml = path.name == "pyproject.toml"
    if toml:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pass  # decode() below places the bad byte, or finds a byte order mark
        else:
            if text.startswith("\ufeff"):
                raise ConfigError(f"{path}:1:1: cannot read configuration: it starts with a byte order mark, which "
                                  f"TOML does not allow; save it as UTF-8 without a BOM")
            return text
    try:
        text = decode(data)
    except TextError as exc:
        cause = exc.message
        if b"\x00" in data and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            # decode()'s advice for a document (exclude it) does not fit the configuration
            cause = ("the character U+0000 (a NUL byte) is not allowed; remove it, or if the file is saved as "
                     "UTF-16 or UTF-32 without a byte order mark, save it as UTF-8")
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: cannot read configuration: {cause}") from None
    if toml:
        raise ConfigError(f"{path}:1:1: cannot read configuration: it is saved as UTF-16 or UTF-32 (it starts with a "
                          f"byte order mark), and TOML files are UTF-8; save it as UTF-8")
    return text


def read_config(path: Path) -> Config:
    text = _config_text(path)
    if path.name == "pyproject.toml":
        import tomllib

        try:
            tool = tomllib.loads(text).get("tool", {})
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        data = tool.get("exlint") if isinstance(tool, dict) else None
        if not isinstance(data, dict):
            # named with --config (discovery reads only a pyproject.toml that has the table): no
            # table is a typo or the wrong file, never "every default"
            import difflib

            names = [k for k in tool if isinstance(k, str) and k != "exlint"] if isinstance(tool, dict) else []
            close = difflib.get_close_matches("exlint", names, n=1, cutoff=0.6)
            hint = f" ([tool.{close[0]}] is there: did you mean [tool.exlint]?)" if close else ""
            shown = repr(data) if len(repr(data)) <= 40 else repr(data)[:37] + "..."
            what = (f"has exlint = {shown} under [tool], which is not a table" if isinstance(tool, dict)
                    and "exlint" in tool else "has no [tool.exlint] table")
            raise ConfigError(f"{path}: {what}{hint}: put exlint's settings under [tool.exlint], "
                              "or name another configuration file")
        return parse_config(data, path)
    try:
        data, marks = _yaml_load_marked(text)
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        raise ConfigError(f"{path}:{mark.line + 1}:{mark.column + 1}: {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        position = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}{position}: invalid YAML in configuration: {exc.problem}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow: placed by its index in the text
        before = text[:exc.position]
        line, column = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        char = exc.character
        shown = f"U+{ord(char):04X}" if isinstance(char, str) else f"U+{char:04X}"
        raise ConfigError(f"{path}:{line}:{column}: invalid YAML in configuration: the character {shown} is not "
                          f"allowed ({exc.reason}); remove it") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML in configuration: {exc}") from None
    return parse_config(data, path, marks)


def did_you_mean(word: str, choices) -> str:
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=3, cutoff=0.5)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_rule_ids(config: "Config", known, select=(), ignore=()) -> None:
    """Every rule ID or prefix named in the configuration and on the command
    line must name a rule: a typo would silently turn a check off (or leave it on)."""
    uses = [("--select", v, True) for v in select] + [("--ignore", v, True) for v in ignore]
    uses += [(f"{config.where('select', i)}: select", v, True) for i, v in enumerate(config.select)]
    uses += [(f"{config.where('ignore', i)}: ignore", v, True) for i, v in enumerate(config.ignore)]
    uses += [(f"{config.where('severity', v)}: severity", v, False) for v in config.severity]
    uses += [(f"{config.where('options', v)}: options", v, False) for v in config.options]
    for origin, value, prefix_ok in uses:
        text = str(value).upper() if prefix_ok else str(value)
        if text == RULE_FAILED:
            raise ConfigError(f"{origin}: {RULE_FAILED} (a rule that failed to run) cannot be selected, ignored or "
                              f"re-graded: fix or remove the rule it names")
        if text in known or (prefix_ok and text and any(rule_id.startswith(text) for rule_id in known)):
            continue
        families = {rule_id.rstrip("0123456789") for rule_id in known} if prefix_ok else set()
        hint = did_you_mean(text, set(known) | families) or "; see `exlint rules`"
        kind = "rule ID or prefix" if prefix_ok else "rule ID"
        raise ConfigError(f"{origin}: unknown {kind} {value!r}{hint}")


def check_options(config: "Config", rules) -> None:
    """Every option in the configuration is one its rule declares, with a value
    the rule can use: a misspelt name would leave the default silently in force,
    and a negative threshold whose default is not negative means nothing."""
    from linter.policy.packs import option_value_problem

    for rule_id, values in config.options.items():
        rule = rules.get(rule_id)
        if rule is None:
            continue  # check_rule_ids says so
        declared = rule.option_defaults
        for name, value in values.items():
            at = config.where("options", rule_id, name)
            if name not in declared:
                hint = did_you_mean(str(name), declared)
                have = f"its options: {', '.join(declared)}" if declared else "it has no options"
                raise ConfigError(f"{at}: options: {rule_id} has no option {name!r}{hint}; {have}")
            problem = option_value_problem(value, declared[name])
            if problem:
                raise ConfigError(f"{at}: options: {rule_id} {name} is {value!r}: {problem}")


@dataclass
class Discovery:
    """Where a run's configuration and config repo root come from, and why."""
    root: Path | None
    config: Path | None
    reason: str  # shown by --verbose
    unread: Path | None = None  # a pyproject.toml with [tool.exlint] beside the .exlint.yaml that wins
    # files on the way up that look like a configuration with a typo in its name (.exlint.yml):
    # never read, so their settings would be off unnoticed (config_lookalikes)
    lookalikes: list = field(default_factory=list)


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


def _refuse_outside(config: Path, directory: Path) -> Path:
    """``config``, found in ``directory``; a ConfigError when it is a symbolic link whose
    real path leaves the repository (the git work tree holding ``directory``, else
    ``directory``): nothing outside the repository is read, and a configuration's text
    reaches the log in its errors (docs/security.md). One named with --config is the
    user's own choice and never comes here."""
    if not config.is_symlink():
        return config
    boundary = next((d for d in _boundaries(directory) if _is_work_tree_root(d)), directory)
    real, inside = os.path.realpath(config), os.path.realpath(boundary)
    if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
        return config
    raise ConfigError(f"{config}: the configuration is a symbolic link to a file outside the repository: not read "
                      f"(exlint never follows links out of the repository); commit the configuration itself, "
                      f"or name it with --config")


# names a configuration gets by mistake: another suffix, no dot, another case (.Exlint.yaml)
_LOOKALIKE_NAMES = {".exlint.yml", "exlint.yaml", "exlint.yml", ".exlint", ".exlintrc", ".exlintrc.yaml",
                    ".exlintrc.yml", ".exlint.json", ".exlint.toml", "_exlint.yaml", "_exlint.yml", CONFIG_NAME}
LOOKALIKE_NOTE = ("{path} is not read: exlint's configuration is a file named {name} (or [tool.exlint] in "
                  "pyproject.toml); rename it to {name}, or name it with --config")


def config_lookalikes(directory: Path) -> list[Path]:
    """The files in ``directory`` whose names look like ``.exlint.yaml`` with a typo."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [directory / name for name in sorted(names)
            if name != CONFIG_NAME and name.lower() in _LOOKALIKE_NAMES and (directory / name).is_file()]


def discover_root(start: Path, named: bool = False) -> Discovery:
    """The nearest ``.exlint.yaml`` or pyproject.toml with ``[tool.exlint]``;
    else the git work tree holding ``start``; else nothing (only the paths given).
    ``named``: a configuration is named with --config, so the one found here is
    never read (its link leaving the repository is then no error)."""
    refuse_outside = (lambda config, directory: config) if named else _refuse_outside
    start = Path(os.path.realpath(start))  # Path.resolve raises on a link loop; discover() reports it
    if start.is_file() or not start.exists():
        start = start.parent
    lookalikes: list[Path] = []
    for directory in _boundaries(start):
        if not named:
            lookalikes += config_lookalikes(directory)
        candidate = directory / CONFIG_NAME
        pyproject = directory / "pyproject.toml"
        if config_file_present(candidate):
            unread = pyproject if pyproject.is_file() and has_tool_section(pyproject) else None
            return Discovery(directory, refuse_outside(candidate, directory), f"configuration {candidate}", unread,
                             lookalikes)
        if configures_exlint(pyproject):
            return Discovery(directory, refuse_outside(pyproject, directory),
                             f"configuration [tool.exlint] in {pyproject}", lookalikes=lookalikes)
        if _is_work_tree_root(directory):
            return Discovery(directory, None, f"no configuration; root: the git work tree {directory}",
                             lookalikes=lookalikes)
    # no repository found: the walk went to the top, and a look-alike far above is no one's typo
    near = [path for path in lookalikes if path.parent == start]
    return Discovery(None, None, "no configuration, no git work tree: only the paths given are loaded",
                     lookalikes=near)


def find_config(start: Path) -> Path | None:
    """The nearest ``.exlint.yaml`` (or pyproject.toml with [tool.exlint]) upward from ``start``."""
    return discover_root(start).config


def find_root(start: Path) -> Path | None:
    """The config repo root (see :func:`discover_root`)."""
    return discover_root(start).root
