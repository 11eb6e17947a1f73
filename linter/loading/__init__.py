"""Reading YAML files and directories into documents that remember positions."""
from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import Iterable

import yaml

from linter.findings import Finding, format_path
from linter.loading.documents import Document, LoadedFile
from linter.loading.fast_yaml import SAFE_COMPOSE_DEPTH, BoundError, check_depth, may_nest_deeper
from linter.loading.nodes import MAX_DEPTH, ConstructError, construct
from linter.loading.text import TextError, decode, git_positions, split_documents
from linter.suffixes import JSONL_SUFFIXES, PARQUET_SUFFIXES, YAML_SUFFIXES  # noqa: F401 - part of this module's API

# The largest file read (docs/security.md): a 20 MB file of store documents takes
# about 1.2 times a bare C compose of it and 760 MB.
MAX_FILE_BYTES = 32 * 2**20

try:  # the C loader is several times faster; fall back for exotic builds
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader


class InputError(Exception):
    """A path that cannot be read at all (exit code 2)."""


NOT_REGULAR = ("not a regular file (a device, pipe or socket, or a link to one): not read; "
               "keep only YAML files in the repository")
OUTSIDE = ("a symbolic link to a file outside the repository: not read (exlint never follows links "
           "out of the repository); commit the file itself instead of a link")


OUTSIDE_FOLDER = ("a symbolic link to a folder outside the repository: not read (exlint never follows links "
                  "out of the repository); commit the folder itself instead of a link")


class NotRegularFile(OSError):
    pass


def display_path(path) -> str:
    """Paths as the user typed them: relative to the working directory when below it."""
    return display_paths([path])[0]


def display_paths(paths) -> list[str]:
    """:func:`display_path` of many paths (the working directory is asked once)."""
    cwd = os.getcwd()
    prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
    out = []
    for path in paths:
        text = os.path.normpath(str(path))
        out.append(text[len(prefix):] if os.path.isabs(text) and text.startswith(prefix) else text)
    return out


def broken_link(path: str | os.PathLike) -> str | None:
    """Why a symbolic link at ``path`` leads to no file (a loop, a dangling
    target), as a finding's message; None when ``path`` is no link or its
    target exists."""
    try:
        if not stat.S_ISLNK(os.lstat(path).st_mode):
            return None
        target = os.readlink(path)
    except OSError:
        return None
    try:
        os.stat(path)
        return None
    except OSError as exc:
        shown = target  # reports escape control characters (linter/textsafe.py)
        if exc.errno == errno.ELOOP:
            return (f"a symbolic link loop (it points to {shown}, which leads back to itself): not read; "
                    "remove the link or point it at a file")
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return f"a dangling symbolic link to {shown}: not read; remove it or fix its target"
        return (f"a symbolic link to {shown} that cannot be followed ({exc.strerror or exc}): not read; "
                "fix its target or its permissions")


class RefusedPath(type(Path())):
    """A file found while walking that is not read; ``refusal`` says why (reported
    as an EXL001 finding on the file, never its content)."""

    refusal = ""


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def refusal(path: Path, boundary: str | os.PathLike | None, parent_inside: bool | None = None) -> str | None:
    """Why ``path`` must not be read (or None): it is not a regular file, or it is
    a link inside ``boundary`` whose real path leaves it. ``parent_inside``: what
    a walk already knows of the directory holding ``path`` (os.walk follows no
    directory link, so only the file itself can be one), sparing a realpath."""
    try:
        link = os.lstat(path)
    except OSError:
        return None  # missing or unreadable: load_file says so
    try:
        info = os.stat(path) if stat.S_ISLNK(link.st_mode) else link
    except OSError:  # a link loop, a dangling link: reported on the link, never followed
        return broken_link(path)
    if not stat.S_ISREG(info.st_mode):
        return NOT_REGULAR
    if boundary is None:
        return None
    if parent_inside is not None and not stat.S_ISLNK(link.st_mode):
        return None if parent_inside else OUTSIDE
    return OUTSIDE if _leaves(path, boundary) else None


def _leaves(path, boundary) -> bool:
    """Whether ``path`` is written inside ``boundary`` but really is outside it."""
    real_boundary = os.path.realpath(boundary)
    written = os.path.abspath(path)
    inside = _inside(written, os.path.abspath(boundary)) or _inside(written, real_boundary)
    return inside and not _inside(os.path.realpath(path), real_boundary)


def checked(path: Path, boundary, parent_inside: bool | None = None) -> Path:
    """``path``, or a RefusedPath when it must not be read."""
    reason = refusal(path, boundary, parent_inside)
    if reason is None:
        return path
    refused = RefusedPath(path)
    refused.refusal = reason
    return refused


class TooLarge(OSError):
    pass


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of a regular file; NotRegularFile for anything else, found without
    blocking (a FIFO) or reading forever (``/dev/zero``); TooLarge beyond ``limit``
    bytes."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(NOT_REGULAR)
        if limit is not None and info.st_size > limit:
            raise TooLarge(f"larger than {limit // 2**20} MB: not read")
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            return handle.read()
    finally:
        if fd != -1:
            os.close(fd)


def read_regular_text(path: str | os.PathLike) -> str:
    """UTF-8 text of a regular file (rule packs, configuration)."""
    return read_regular(path).decode("utf-8")


CHECK_LOADER = _Loader  # what `check` composes YAML with; --fix reads files with it too


def _syntax_finding(path: str, rule: str, message: str, line: int, column: int) -> Finding:
    return Finding(rule, "error", message, path, line, column, None, None)


def is_empty_document(root) -> bool:
    """A document with no content at all (``---`` followed by nothing or comments)."""
    return isinstance(root, yaml.ScalarNode) and root.tag == "tag:yaml.org,2002:null" and root.value == ""


def load_text(text: str, path: str) -> LoadedFile:
    loaded = LoadedFile(path, text)
    place = git_positions(text)
    index = 0
    for chunk in split_documents(text):
        begun = index  # the chunk's first document's index: a document read whole counts from here
        try:
            if may_nest_deeper(chunk.text, SAFE_COMPOSE_DEPTH):  # the C composer recurses
                check_depth(chunk.text, MAX_DEPTH)
            for root in yaml.compose_all(chunk.text, Loader=_Loader):
                if root is None or is_empty_document(root):  # an empty or comment-only document: skipped like an empty file
                    continue
                try:
                    built = construct(root, chunk.first_line, "*" in chunk.text)
                except ConstructError as exc:
                    loaded.findings.append(_syntax_finding(path, exc.rule, exc.message, exc.line, exc.column))
                    _keep_partial(loaded, chunk, path, index, begun)
                    index += 1
                    continue
                except RecursionError:
                    line = root.start_mark.line + 1 + chunk.first_line
                    loaded.findings.append(
                        _syntax_finding(path, "EXL001", f"nesting deeper than {MAX_DEPTH} levels", line, 1)
                    )
                    _keep_partial(loaded, chunk, path, index, begun)
                    index += 1
                    continue
                line = root.start_mark.line + 1 + chunk.first_line
                column = root.start_mark.column + 1
                for dup in built.duplicates:
                    where = format_path(dup.path + (dup.key,))
                    loaded.findings.append(
                        Finding(
                            "EXL002",
                            "error",
                            f"duplicate key {dup.key!r} (first written on line "
                            f"{place(dup.first_line, 1)[0] if place else dup.first_line}); "
                            "YAML silently keeps only the last one: remove or merge the duplicates",
                            path,
                            dup.line,
                            dup.column,
                            where,
                            None,
                        )
                    )
                loaded.documents.append(Document(path, index, line, column, built.data, built.marks,
                                                 built.key_marks, aliased=built.aliased))
                index += 1
        except BoundError as exc:
            line, column = exc.problem_mark.line + 1 + chunk.first_line, exc.problem_mark.column + 1
            loaded.findings.append(_syntax_finding(path, "EXL001", exc.problem, line, column))
            if _keep_partial(loaded, chunk, path, index, begun):
                index += 1
        except yaml.MarkedYAMLError as exc:
            if _keep_partial(loaded, chunk, path, index, begun):
                index += 1
            mark = exc.problem_mark or exc.context_mark
            line = (mark.line + 1 + chunk.first_line) if mark else chunk.first_line + 1
            column = (mark.column + 1) if mark else 1
            last_line = chunk.first_line + max(1, chunk.text.count("\n"))
            if line > last_line:  # "unexpected end": point at the end of the document
                line, column = last_line, 1
            problem = exc.problem or exc.context or "invalid YAML"
            if exc.context and exc.problem:
                problem = f"{problem} ({exc.context})"
            explained = _explained(exc, chunk.text)
            if explained is not None:
                problem, at = explained
                if at is not None:
                    line, column = at.line + 1 + chunk.first_line, at.column + 1
            loaded.findings.append(_syntax_finding(path, "EXL001", f"YAML syntax error: {problem}", line, column))
        except yaml.YAMLError as exc:  # reader errors carry a position too
            line, column = chunk.first_line + 1, 1
            mark = getattr(exc, "position", None)
            message = str(exc).splitlines()[0]
            if hasattr(exc, "character"):
                line, column = _offset_to_position(chunk.text, exc.position, chunk.first_line)
                message = f"character {exc.character!r} is not allowed in YAML ({exc.reason})"
            loaded.findings.append(_syntax_finding(path, "EXL001", f"YAML syntax error: {message}", line, column))
        except RecursionError:
            loaded.findings.append(
                _syntax_finding(path, "EXL001", "nesting too deep for a YAML parser", chunk.first_line + 1, 1)
            )
    if place is not None:
        _renumber(loaded, place)
    return loaded


UNPARSED = "(its YAML does not parse)"  # a partial document's spec: every field under it unread
_PARTIAL_EVENTS = 2000  # how far partial_document looks for a broken document's kind and name


def _keep_partial(loaded: LoadedFile, chunk, path: str, index: int, begun: int) -> bool:
    """After the EXL001 of the chunk's first document (a syntax error, an unsupported tag,
    nesting too deep): keep what it says of itself (partial_document), so that a broken
    Organization is not also "no Organization" (EXL008) and what it defines is not undefined.
    Not for what follows a document read whole (a flow mapping and then junk is that
    document, already read, and a broken tail). Whether one was kept."""
    if index != begun or len(loaded.documents) + len(loaded.partial) != index:
        return False
    partial = partial_document(chunk.text, path, index, chunk.first_line)
    if partial is None:
        return False
    loaded.partial.append(partial)
    return True


def partial_document(text: str, path: str, index: int, first_line: int) -> Document | None:
    """The document of ``text`` (one document whose YAML does not parse) as far as its
    events go before the error: when its ``apiVersion``, ``kind`` and ``metadata.name``
    all came first (as they do in exlint's documents), a Document of them alone, its
    ``spec`` unread (Document.partial); else None. One broken file must not make every
    reference to the objects it defines "undefined" in the others: one problem, one finding."""
    found: dict[str, object] = {}
    marks: dict[str, tuple[int, int]] = {}
    stack: list[list] = []  # per open collection: [kind, key path, expecting a key, pending key]
    start = None
    try:
        # exlint's documents name themselves first: a few hundred events at most, never the
        # whole of a large file (the pure-Python parser would take a minute over 32 MB)
        for count, event in enumerate(yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))):
            if count > _PARTIAL_EVENTS:
                return None
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.ScalarEvent,
                                  yaml.AliasEvent)) and start is None:
                start = event.start_mark
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
                if stack and stack[-1][0] == "map":
                    stack[-1][2] = True
                continue
            if not isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.ScalarEvent,
                                      yaml.AliasEvent)):
                continue
            top = stack[-1] if stack else None
            if top is not None and top[0] == "map" and top[2]:  # a key
                top[3] = event.value if isinstance(event, yaml.ScalarEvent) else None
                top[2] = False
                if not isinstance(event, yaml.ScalarEvent):  # a complex key: not one of ours
                    return None
                continue
            where = (top[1] + (top[3],)) if top is not None and top[0] == "map" else None
            if isinstance(event, yaml.ScalarEvent) and where in (("apiVersion",), ("kind",), ("metadata", "name")):
                found[".".join(where)] = event.value
                marks[".".join(where)] = (event.start_mark.line + 1 + first_line, event.start_mark.column + 1)
            if isinstance(event, yaml.MappingStartEvent):
                stack.append(["map", where or (), True, None])
            elif isinstance(event, yaml.SequenceStartEvent):
                stack.append(["seq", (), False, None])
            elif top is not None and top[0] == "map":
                top[2] = True
            if len(found) == 3:
                break
    except yaml.YAMLError:
        pass
    api, kind, name = found.get("apiVersion"), found.get("kind"), found.get("metadata.name")
    if api != "exlint/v1" or not isinstance(kind, str) or not isinstance(name, str) or not name.strip():
        return None
    line, column = (start.line + 1 + first_line, start.column + 1) if start is not None else (first_line + 1, 1)
    data = {"apiVersion": api, "kind": kind, "metadata": {"name": name}, "spec": UNPARSED}
    return Document(path, index, line, column, data, {"metadata.name": marks["metadata.name"]}, partial=True)


# a flow collection the document ends inside (libyaml's context): its kind, opening, closing
_UNCLOSED = {"while parsing a flow sequence": ("list", "[", "]"),
             "while parsing a flow mapping": ("mapping", "{", "}")}


def _explained(exc, text: str):
    """(message, mark or None) for the YAML errors whose parser message leaves out what
    the user needs (libyaml names neither the character nor the alias), with the fix;
    None for the others."""
    def at(mark) -> str:
        lines = text.split("\n")
        return lines[mark.line][mark.column:] if mark is not None and mark.line < len(lines) else ""

    problem, context = exc.problem or "", exc.context or ""
    if "cannot start any token" in problem:
        char = at(exc.problem_mark)[:1]
        if char == "\t":
            return ("a tab character: YAML indents with spaces only, never tabs; replace the tab with spaces", None)
        if char:
            return (f"found character {char!r} that cannot start any token; put the value in quotes", None)
        return None
    if "undefined alias" in problem:
        alias = re.match(r"\*([^\s,\[\]{}]+)", at(exc.problem_mark))
        if alias:
            name = alias.group(1)
            return (f"found undefined alias *{name}: no anchor &{name} comes before it in this document; "
                    f"define the anchor first, or write the value itself", None)
        return None
    if "end of stream" in problem and "quoted scalar" in context and exc.context_mark is not None:
        return ("a quoted value opened here is never closed (the document ends inside it); close the quote",
                exc.context_mark)
    unclosed = _UNCLOSED.get(context)
    ended = exc.problem_mark is not None and exc.problem_mark.line >= max(1, text.count("\n"))
    if unclosed is not None and ended and exc.context_mark is not None:  # found past the document's end
        kind, opening, closing = unclosed
        return (f"a flow {kind} ('{opening}') opened here is never closed before the document ends; "
                f"close it with '{closing}', or write one entry per line", exc.context_mark)
    return None


def _renumber(loaded: LoadedFile, place) -> None:
    """Every position of ``loaded`` as git numbers lines (``text.git_positions``)."""
    for document in loaded.documents + loaded.partial:
        document.line, document.column = place(document.line, document.column)
        document.marks = {path: place(*mark) for path, mark in document.marks.items()}
        document.key_marks = {path: place(*mark) for path, mark in document.key_marks.items()}
    findings = []
    for finding in loaded.findings:
        if finding.line:
            line, column = place(finding.line, finding.column or 1)
            finding = replace(finding, line=line, column=column if finding.column else None)
        findings.append(finding)
    loaded.findings = findings


def _offset_to_position(text: str, offset: int, first_line: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return first_line + line + 1, offset - start + 1


def load_file(path: Path, display: str | None = None, as_yaml: bool = False) -> LoadedFile:
    """The documents of a file (JSON Lines by its suffix, unless ``as_yaml``:
    `exlint estate --input-format yaml` names the format itself)."""
    display = display or str(path)
    reason = getattr(path, "refusal", None)
    if reason:
        return _refused(display, reason)
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except NotRegularFile:
        return _refused(display, NOT_REGULAR)
    except TooLarge:
        loaded = _refused(display, f"larger than {MAX_FILE_BYTES // 2**20} MB: not read (exlint's memory grows "
                                   "about 40 times a file's size); split it into several files")
        loaded.claims = claims_exlint(_head(path, SNIFF_BYTES))
        return loaded
    except FileNotFoundError:
        raise InputError(f"{display}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{display}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{display}: cannot read: {exc.strerror or exc}") from None
    if not as_yaml and path.name.lower().endswith(JSONL_SUFFIXES):
        from linter.loading.jsonl import load_jsonl

        return load_jsonl(data, display)
    try:
        text = decode(data)
    except TextError as exc:
        loaded = LoadedFile(display, None)
        loaded.findings.append(_syntax_finding(display, "EXL001", exc.message, exc.line, exc.column))
        loaded.claims = claims_exlint(data)
        return loaded
    return load_text(text, display)


# How much of a file too large to read is sniffed for an exlint claim.
SNIFF_BYTES = 1 * 2**20


def claims_exlint(data: bytes) -> bool:
    """Whether bytes that are not readable text (another encoding, a NUL byte, or
    the head of a file too large to read) still say they are exlint's: an
    ``apiVersion: exlint/…`` or a ``kind`` exlint knows, as for a file that does
    not parse (linter.loading.scope). Read leniently: each byte as a character,
    NUL bytes dropped (UTF-16 without a byte order mark reads as ASCII)."""
    from linter.loading.scope import claims_text

    return claims_text(data.replace(b"\x00", b"").decode("latin-1"))


def _head(path, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (b"" when it cannot be read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _refused(display: str, reason: str) -> LoadedFile:
    loaded = LoadedFile(display, None)
    loaded.findings.append(_syntax_finding(display, "EXL001", reason, 1, 1))
    return loaded


def _unreadable(error: OSError) -> None:
    """A folder that cannot be listed is an error, never silently skipped."""
    raise InputError(f"{error.filename}: cannot read directory: {error.strerror or error}; "
                     "fix its permissions or exclude it (exclude: in .exlint.yaml)")


# version control's own folders and installed packages: never config (every other folder is
# walked, hidden ones too: the catalog's examples of foreign YAML, a CI workflow and a
# pre-commit file, live in .github/ and .pre-commit-config.yaml, and are counted as skipped
# like any other). A Python virtual environment (a folder holding pyvenv.cfg, such as a
# developer's .venv or .tox/py311) is not walked either: thousands of packages' files.
NOT_WALKED = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", "node_modules"})


def _walked_folder(entry) -> bool:
    return walked_folder(entry.path)


def is_inventory_name(name: str) -> bool:
    """Whether a walked file is an inventory of JSON Lines or Parquet (files named ``_*``
    or ``.*``, such as Spark's ``_SUCCESS``, are not): estate reads them in a walk,
    check notes them (``discover``'s ``inventories``)."""
    return name.lower().endswith(JSONL_SUFFIXES + PARQUET_SUFFIXES) and not name.startswith(("_", "."))


def foreign_inventory(path) -> bool:
    """Whether a walked JSON Lines file is another tool's: its head (SNIFF_BYTES)
    names no ``apiVersion`` of ``exlint/…`` and no kind exlint knows, as a walked
    YAML file is another tool's (a log export, a data set beside the estate). Such a
    file is skipped in a walk by check and estate alike, and counted as skipped; a
    file named is always read. Parquet files are not sniffed: their kind is in
    their columns, which Spark reads."""
    return os.fspath(path).lower().endswith(JSONL_SUFFIXES) and not claims_exlint(_head(path, SNIFF_BYTES))


def walked_folder(path: str) -> bool:
    """Whether a walk enters this folder: not version control's, node_modules or a
    Python virtual environment (a folder holding pyvenv.cfg). Every walk of exlint's
    uses it: check, estate, and import's search of sources and of its output folder."""
    return os.path.basename(path) not in NOT_WALKED and not os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def walk_files(directory: Path, boundary=None, other_roots: list[str] | None = None):
    """Every file below ``directory``, in a stable sorted order, version control's
    folders, node_modules and Python virtual environments skipped: how both engines
    search an inventory. A file
    that must not be read (``refusal``; ``boundary`` defaults to ``directory``)
    comes as a RefusedPath. With ``other_roots`` (a list), folders below
    ``directory`` that are config repos of their own are not entered but
    appended to it."""
    boundary = directory if boundary is None else boundary
    # no directory link is entered: every directory below is inside when the top is
    parent_inside = not _leaves(directory, boundary)
    if other_roots is not None:
        from linter.loading.scope import is_config_root
    pending = [os.fspath(directory)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            _unreadable(error)
        folders = []
        for entry in entries:
            # the directory listing's file types spare a stat per file; links get the full check
            if entry.is_symlink():
                try:
                    to_directory = entry.is_dir()
                except OSError:  # a link loop: is_dir cannot tell; checked() reports it
                    to_directory = False
                if not to_directory:  # a directory link is never entered, as os.walk does
                    yield checked(Path(entry.path), boundary, parent_inside)
                elif _walked_folder(entry) and _leaves(entry.path, boundary):
                    # one leading inside is walked by its real path; one leading out is reported,
                    # never silently dropped with every document it holds
                    refused = RefusedPath(entry.path)
                    refused.refusal = OUTSIDE_FOLDER
                    yield refused
            elif entry.is_dir(follow_symlinks=False):
                if _walked_folder(entry):
                    if other_roots is not None and is_config_root(entry.path):
                        other_roots.append(entry.path)
                    else:
                        folders.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                yield Path(entry.path) if parent_inside else checked(Path(entry.path), boundary, parent_inside)
            else:  # a FIFO, a socket, a device
                yield checked(Path(entry.path), boundary, parent_inside)
        pending.extend(reversed(folders))  # depth first, in sorted order


def discover(paths: Iterable[str | os.PathLike], boundary=None, other_roots: list[str] | None = None,
             real: dict[str, str] | None = None, loops: list[str] | None = None,
             inventories: list[str] | None = None) -> list[Path]:
    """Files to lint: files as given; directories searched for *.yaml / *.yml (any case: SERVER.YAML).

    Version control's folders (``.git``) are not walked, nor is the configuration
    (``.exlint.yaml``) read as a document; hidden files and folders are walked like
    the rest (a foreign one is skipped and counted); the order is sorted and stable.
    ``boundary`` (the repository root) is what links may not leave; without one,
    a walked directory, or the working directory for a file named.
    ``other_roots``: see :func:`walk_files`.

    Each real file comes once: a link to a file also reached by its own path
    (or named twice) is dropped, the path that is not a link kept (else the
    first), so no document is loaded twice. ``real`` (a dict) receives each
    path's real path, the identity :func:`real_path` gives. ``loops`` (a list)
    receives walked links that are not YAML files and lead nowhere (a link
    loop): nothing to lint, but worth a note. A link named on the command line
    that leads nowhere is an InputError. ``inventories`` (a list) receives walked
    JSON Lines and Parquet files (``exlint estate`` reads them in a walk; ``check``
    reads JSON Lines named, never walked): not linted here, but never silently.
    """
    found: list[tuple[Path, str, bool]] = []  # (path, real path, is a link)
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            top = os.fspath(path)
            real_top = os.path.realpath(top)
            for candidate in walk_files(path, boundary, other_roots):
                name = candidate.name
                if getattr(candidate, "refusal", "") == OUTSIDE_FOLDER:  # whatever its name
                    found.append((candidate, os.path.abspath(candidate), False))
                    continue
                if not name.lower().endswith(YAML_SUFFIXES) or name == ".exlint.yaml":  # the configuration, not a document
                    if loops is not None and getattr(candidate, "refusal", "").startswith("a symbolic link loop"):
                        loops.append(os.fspath(candidate))
                    elif inventories is not None and is_inventory_name(name):
                        inventories.append(os.fspath(candidate))  # foreign ones: runner counts them skipped
                    continue
                if getattr(candidate, "refusal", ""):  # never followed: its own identity
                    found.append((candidate, os.path.abspath(candidate), False))
                    continue
                link = os.path.islink(candidate)
                # directory links are never entered: below the real top, only a file link moves
                if link:
                    identity = os.path.realpath(candidate)
                else:  # Path() drops the "./" the walk puts before the names of a walk of "."
                    written = os.fspath(candidate)
                    identity = os.path.join(real_top, written if top == "." else written[len(top):].lstrip(os.sep))
                found.append((candidate, identity, link))
        elif path.exists() or path.is_symlink():
            if path.name == ".exlint.yaml":
                continue  # the configuration file, validated as such
            reason = broken_link(path)
            if reason is not None:
                raise InputError(f"{raw}: {reason}")
            path = checked(path, os.getcwd() if boundary is None else boundary)
            identity = os.path.abspath(path) if getattr(path, "refusal", "") else os.path.realpath(path)
            found.append((path, identity, os.path.islink(path)))
        else:
            raise InputError(f"{raw}: no such file or directory")
    chosen: dict[str, int] = {}  # real path -> index in found of the path kept
    for index, (_, identity, link) in enumerate(found):
        kept = chosen.get(identity)
        if kept is None or (found[kept][2] and not link):
            chosen[identity] = index
    out = []
    for index, (path, identity, _) in enumerate(found):
        if chosen[identity] == index:
            out.append(path)
            if real is not None:
                real[os.fspath(path)] = identity
    return out


def real_path(path: str | os.PathLike) -> str:
    """The identity :func:`discover` dedupes files by: the real path, or for a
    path refused unread (never followed) its absolute path."""
    return os.path.abspath(path) if getattr(path, "refusal", "") else os.path.realpath(path)
