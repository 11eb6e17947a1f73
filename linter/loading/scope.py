"""Which YAML files are exlint's own (shared/spec/rules.md, "Scope").

Walking a directory, exlint lints only its own documents: a file none of whose
documents has an ``apiVersion`` of ``exlint/…`` or a ``kind`` exlint knows (a
CI workflow, mkdocs.yml, a compose file, an Ansible playbook) is skipped and
counted. A file named explicitly is always linted. A file that does not parse,
or whose bytes are not readable text (not UTF-8 or UTF-16, a NUL byte, larger
than 32 MB: its first MB is read), is exlint's when its text says so
(``_CLAIM``), and is then reported (EXL001), never skipped.
"""
from __future__ import annotations

import os
import re

from linter.schema import KINDS as _KINDS

# A file exlint cannot parse still counts as its own when its text says so,
# so a syntax error in an estate file is reported, not skipped.
_CLAIM = (
    r"""(?:^|[\s{,])["']?apiVersion["']?\s*:\s*["']?exlint/"""
    r"""|(?:^|[\s{,])["']?kind["']?\s*:\s*["']?(?:%s)["']?\s*(?:$|[,}#])""" % "|".join(_KINDS)
)  # compiled on first use (re caches it): only files that fail to parse need it


def _owns_document(data) -> bool:
    if not isinstance(data, dict):
        return False
    api = data.get("apiVersion")
    return (isinstance(api, str) and api.startswith("exlint/")) or data.get("kind") in _KINDS


def misspelt_claim(loaded) -> str | None:
    """Why a file skipped as not exlint's looks like exlint's with a typo (``kind:
    Sever``, ``apiversion: exlint/v1``, ``apiVersion: exlnt/v1``), or None: a typo
    must not turn a file's checks off without a word. Close matches only, so that
    another tool's kinds (a Kubernetes Service, a Job) are not taken for typos."""
    import difflib

    for document in loaded.documents:
        data = document.data
        if not isinstance(data, dict):
            continue
        keys = {str(key).lower(): key for key in data}
        for lower, known in (("apiversion", "apiVersion"), ("kind", "kind")):
            key = keys.get(lower)
            if key is not None and key != known and _claims_value(lower, data[key]):
                return f"its key {key!r} means {known!r} (keys are case-sensitive)"
        api, kind = data.get("apiVersion"), data.get("kind")
        if isinstance(api, str) and not api.startswith("exlint/") and _claims_value("apiversion", api):
            return f"its apiVersion {api!r} is not exlint's (did you mean 'exlint/v1'?)"
        if isinstance(kind, str) and kind not in _KINDS:
            close = difflib.get_close_matches(kind.lower(), [k.lower() for k in _KINDS], 1, 0.8)
            if close:
                meant = next(k for k in _KINDS if k.lower() == close[0])
                return f"its kind {kind!r} is not one exlint knows (did you mean {meant!r}?)"
    return None


def _claims_value(key: str, value) -> bool:
    """Whether ``value`` of an ``apiVersion`` or ``kind`` key is exlint's, or close to it."""
    import difflib

    if not isinstance(value, str):
        return False
    if key == "kind":
        return value in _KINDS
    group = value.split("/", 1)[0].lower()
    return group == "exlint" or bool(difflib.get_close_matches(group, ["exlint"], 1, 0.8))


def is_own_file(loaded) -> bool:
    """Whether a loaded file holds at least one exlint document (or, when it
    could not be parsed, claims to). An empty or comment-only file is an empty
    estate file (shared/spec/rules.md), not a foreign one."""
    if any(_owns_document(document.data) for document in loaded.documents):
        return True
    if not loaded.documents and not loaded.findings:
        return True  # empty or comment-only: an empty estate file, nothing to report
    if loaded.documents and not loaded.findings:
        return False  # parsed cleanly, and nothing in it is ours
    if loaded.text is None and loaded.claims is not None:
        return loaded.claims  # bytes that are not text: what they say (linter.loading.claims_exlint)
    return bool(loaded.text) and claims_text(loaded.text)


def claims_text(text: str) -> bool:
    """Whether text that does not parse says it is exlint's (an ``apiVersion`` of
    ``exlint/…`` or a ``kind`` exlint knows)."""
    return re.search(_CLAIM, text, re.MULTILINE) is not None


CONFIG_NAME = ".exlint.yaml"


def has_tool_section(pyproject: str | os.PathLike) -> bool:
    """Whether a pyproject.toml configures exlint (``[tool.exlint]``)."""
    try:
        with open(pyproject, encoding="utf-8") as handle:
            return "[tool.exlint" in handle.read()
    except (OSError, UnicodeDecodeError):
        return False


def configures_exlint(pyproject: str | os.PathLike) -> bool:
    """Whether ``pyproject`` is exlint's configuration: it has a [tool.exlint] table, or
    may have one written another way (``[tool]`` with ``exlint = ...``, ``tool = {exlint
    = ...}``), or is not UTF-8 (TOML is UTF-8 only, so nothing can tell whether it holds
    the table). ``linter.config.read_config`` then reads it or says why it cannot: a
    configuration exlint cannot read must never leave every default silently in force."""
    if not os.path.isfile(pyproject):
        # a FIFO, a device, a folder or a dangling link of that name may be the configuration:
        # read_config refuses it (exit 2) rather than every default in force unsaid
        return os.path.lexists(pyproject)
    try:
        with open(pyproject, "rb") as handle:  # a regular file (isfile above), read as has_tool_section does
            text = handle.read().decode("utf-8")
    except OSError:
        return False  # as has_tool_section: an unreadable file configures nothing
    except UnicodeDecodeError:
        return True
    if "[tool.exlint" in text:  # has_tool_section's test, on the text already read
        return True
    if "exlint" not in text:
        # [tool.exlnt]: a typo of the table must not leave every default in force unsaid either
        return _misspelt_table(text)
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return True  # it names exlint and is no TOML: read_config says where it breaks
    return isinstance(tool, dict) and "exlint" in tool


def _misspelt_table(text: str) -> bool:
    """Whether a TOML text has a ``[tool.<name>]`` table whose name is a typo of exlint's."""
    import difflib
    import re

    names = re.findall(r"^\s*\[+\s*tool\s*\.\s*\"?([A-Za-z0-9_-]+)", text, re.MULTILINE)
    # "ex" first: another tool one letter away (eslint) is that tool's table, not a typo of exlint's
    return any(name.lower().startswith("ex") and difflib.SequenceMatcher(None, name.lower(), "exlint").ratio() >= 0.8
               for name in names)


def config_file_present(path: str | os.PathLike) -> bool:
    """Whether ``.exlint.yaml`` is there in any form: a regular file, or a FIFO, a folder or
    a dangling link, which read_config refuses (a configuration exlint cannot read is an
    error, never "no configuration": a shared config moved must not drop its gate)."""
    return os.path.lexists(path)


def is_config_root(directory: str | os.PathLike) -> bool:
    """Whether a folder is the root of a config repo of its own: it holds
    .exlint.yaml, a pyproject.toml configuring exlint, or is a git work tree
    (a submodule). Files below it are that repo's, never an outer one's."""
    directory = os.fspath(directory)
    if config_file_present(os.path.join(directory, CONFIG_NAME)) or os.path.exists(os.path.join(directory, ".git")):
        return True
    return configures_exlint(os.path.join(directory, "pyproject.toml"))
