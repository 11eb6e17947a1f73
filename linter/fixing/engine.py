"""From findings to edited files: `exlint check --fix` and `--diff`.

One pass: every fixable finding (after configuration, --select/--ignore and
inline suppressions) becomes an action on the document and path it reports;
the actions of a file become text edits (``yamltext``), applied from the end
of the file backwards; the result is parsed again and must hold exactly the
data expected (the original data with the actions applied), else the file is
left as it was. Then the estate is linted again in memory, and the next pass
fixes what the previous fixes revealed (a renamed registry value may be out of
range), up to ``MAX_PASSES`` passes; a pass that changes nothing ends it.
"""
from __future__ import annotations

import copy
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

from linter.findings import Finding
from linter.atomic import atomic_write
from linter.fixing.files import encode_like, unified_diff, write_refusal
from linter.fixing.spec import FixSpec, parse_fix
from linter.fixing.suppression_lines import has_own_line_suppression, moved_suppression
from linter.fixing.yamltext import Edit, Unfixable, YamlText, apply_edits, overlaps
from linter.loading import JSONL_SUFFIXES, Document, LoadedFile, load_text
from linter.loading.text import TextError, decode
from linter.model.tables import load_tables
from linter.policy.locate import parse_path

MAX_PASSES = 5
_MISSING = object()


# -- actions ---------------------------------------------------------------------------

@dataclass
class Action:
    finding: Finding
    doc: int  # Document.index
    op: str  # set | add | delete | remove | rename
    path: tuple  # the existing value (set, delete, remove, rename) or the full path to add
    value: Any = None


@dataclass
class FileState:
    path: str  # as displayed (and as findings name it)
    raw: bytes
    original: str
    text: str


@dataclass
class Outcome:
    result: Any  # the Result after fixing (in memory)
    states: dict[str, FileState] = field(default_factory=dict)
    # the fixable findings as check reported them, before any pass: what "fixed N"
    # counts (a later pass's findings, such as a misprint a rename revealed, were
    # never reported)
    reported: dict[tuple, Finding] = field(default_factory=dict)
    notes: dict[tuple, str] = field(default_factory=dict)  # finding key -> why it was not fixed
    skipped: dict[str, str] = field(default_factory=dict)  # file -> why it was not touched
    stale: bool = False  # the in-memory re-lint did not reflect the edits (a safety net)

    @property
    def changed(self) -> dict[str, FileState]:
        return {p: s for p, s in self.states.items() if s.text != s.original}


def finding_key(finding: Finding) -> tuple:
    """Identity across passes (lines move when lines are added or removed)."""
    entity = (finding.entity.kind, finding.entity.name) if finding.entity else None
    return (finding.rule, finding.file, finding.path, entity, finding.message)


def fixers(rules, unsafe: bool = False) -> dict[str, FixSpec]:
    """The fixes ``--fix`` applies: the safe ones, and with ``--unsafe-fixes`` all."""
    specs = {rule_id: parse_fix(rule.fix) for rule_id, rule in rules.items() if rule.fixable}
    return {rule_id: spec for rule_id, spec in specs.items() if unsafe or spec.safe}


def available_fixes(result) -> dict[int, str]:
    """``{id(finding): "safe" | "unsafe"}`` for each reported finding a fix would
    change (its rule has a fix, and the fix applies to the value reported): the
    text report's ``[*]`` marks and its "N fixable with --fix" line."""
    specs = fixers(result.rules, unsafe=True)
    files = {f.file for f in result.findings if _fixable(f, specs)}
    writable = {path for path in files if write_refusal(path) is None}  # --fix refuses the others
    candidates = [f for f in result.findings if _fixable(f, specs) and f.file in writable]
    if not candidates:
        return {}
    planner = Planner(result, specs)
    loaded = {lf.path: lf for lf in result.loaded}
    out: dict[int, str] = {}
    commented = {path for path in writable if path in loaded and has_own_line_suppression(loaded[path].text, path)}
    for finding in candidates:
        file = loaded.get(finding.file)
        if file is None or _syntax_error(file) is not None:
            continue
        document = _document_for(file, finding)
        if document is not None and document.aliased:  # --fix leaves it alone: not marked fixable
            continue
        try:
            action = document and planner.action(finding, result.rules[finding.rule], specs[finding.rule], document)
        except Unfixable:
            action = None
        if action and finding.file in commented and not edit_text(file.text, file, [action], {})[1]:
            continue  # the edit would move a suppression (or not verify): --fix refuses it
        if action:
            out[id(finding)] = specs[finding.rule].safety
    return out


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        if isinstance(part, int):
            if not isinstance(data, list) or not 0 <= part < len(data):
                return _MISSING
            data = data[part]
        else:
            if not isinstance(data, dict) or part not in data:
                return _MISSING
            data = data[part]
    return data


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same type (True is not 1); names compare case-insensitively."""
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return type(a) is type(b) and a == b


def _strict_equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return set(a) == set(b) and all(_strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_strict_equal(x, y) for x, y in zip(a, b))
    return a == b


class Planner:
    """Turns the fixable findings of one lint result into actions."""

    def __init__(self, result, specs: dict[str, FixSpec]):
        self.result = result
        self.specs = specs
        self.tables = load_tables()
        self._evaluator = None
        self._records: dict[str, dict[tuple, dict]] = {}

    @property
    def evaluator(self):
        if self._evaluator is None:
            from linter.engines.local import Evaluator

            self._evaluator = Evaluator(self.result.estate)
        return self._evaluator

    def _record(self, table: str, document: Document, prefix: tuple) -> dict | None:
        from linter.findings import format_path

        if table not in self._records:
            self._records[table] = {(r["_file"], r["_doc"], r["_prefix"]): r
                                    for r in self.result.estate.tables.get(table, ())}
        return self._records[table].get((document.file, document.index, format_path(prefix)))

    def _value(self, node, table: str, document: Document, prefix: tuple, value: Any) -> Any:
        from linter.engines.local import Scope

        record = self._record(table, document, prefix)
        if record is None:
            return None
        scope = Scope(record, self.tables[table], value=value, value_text=value)
        return self.evaluator.eval(node, scope)

    def _candidates(self, rule, spec: FixSpec, fp: tuple, lists: bool) -> list[tuple[tuple, str, tuple, str]]:
        """(full path, table, record prefix, field) of the fields the rule's checks point at."""
        out = []
        for check in rule.checks:
            if check.form == "builtin" or not check.table:
                continue
            table = self.tables[check.table]
            names = ((check.field,) if check.field else ()) + check.fields
            if lists:
                names += (check.each,) if check.each else ()
            prefix: tuple = ()
            if table.each is not None:
                n = len(table.each)
                if fp[:n] != table.each or len(fp) <= n or not isinstance(fp[n], int):
                    continue
                prefix = table.each + (fp[n],)
            for name in names:
                if spec.fields and name not in spec.fields:
                    continue
                field_spec = table.fields.get(name)
                if field_spec is None or field_spec.is_list != lists:
                    continue
                out.append((prefix + field_spec.path, check.table, prefix, name))
        return out

    def action(self, finding: Finding, rule, spec: FixSpec, document: Document) -> Action | None:
        fp = _finding_path(finding, document)
        data = document.data
        if spec.action == "rename_to":
            suggestion = dict(finding.extra).get("suggestion")
            parent = _get(data, fp[:-1])
            if not suggestion or not fp or not isinstance(parent, dict) or fp[-1] not in parent:
                return None
            if suggestion in parent:
                raise Unfixable(f"{suggestion!r} is already set next to it: keep one of the two by hand")
            return Action(finding, document.index, "rename", fp, suggestion)
        if spec.action == "remove_item":
            if not fp or not isinstance(fp[-1], int):
                return None
            items = _get(data, fp[:-1])
            if not isinstance(items, list) or not 0 <= fp[-1] < len(items):
                return None
            candidates = self._candidates(rule, spec, fp[:-1], lists=True)
            match = next((c for c in candidates if c[0] == fp[:-1]), None)
            if match is None:
                return None
            item = items[fp[-1]]
            if spec.mode == "duplicate" and not any(_same(other, item) for other in items[:fp[-1]]):
                return None  # the first occurrence stays
            if spec.when is not None and self._value(spec.when, match[1], document, match[2], item) is not True:
                return None
            return Action(finding, document.index, "remove", fp)
        # set, set_map, delete: a field of the rule's checks
        candidates = self._candidates(rule, spec, fp, lists=False)
        exact = next((c for c in candidates if c[0] == fp), None)
        if exact is not None:
            target, existing = exact, True
        else:
            below = {c[0]: c for c in candidates if len(c[0]) > len(fp) and c[0][:len(fp)] == fp}
            if len(below) != 1:
                return None
            target, existing = next(iter(below.values())), False
        path, table, prefix, _ = target
        current = _get(data, path) if existing else _MISSING
        if current is _MISSING:
            existing = False
        value = None if current is _MISSING else current
        if spec.when is not None and self._value(spec.when, table, document, prefix, value) is not True:
            return None
        if spec.action == "delete":
            return Action(finding, document.index, "delete", path) if existing else None
        if spec.action == "set_map":
            found, new = spec.lookup(value)
            if not found:
                return None
        else:
            new = self._value(spec.expr, table, document, prefix, value)
            if new is None or isinstance(new, (list, dict)):
                return None
        if existing and _same(value, new) and value == new:
            return None
        return Action(finding, document.index, "set" if existing else "add", path, new)


def _finding_path(finding: Finding, document: Document) -> tuple:
    """The keys and indexes of the path a finding reports. Its display form joins
    keys with '.', so a key that holds '.' or '[1]' (a misspelt registry value
    name) cannot be split back: the path is matched against the document's keys."""
    shown = finding.path or ""
    found = _paths_shown_as(document.data, shown, ())
    if len(found) > 1:
        raise Unfixable(f"{shown!r} names more than one setting (a key holding '.' or '[..]'); fix it by hand")
    return found[0] if found else parse_path(shown)  # a missing setting: its path as written


def _paths_shown_as(data: Any, rest: str, path: tuple) -> list[tuple]:
    """Every path under ``data`` whose ``format_path`` is ``rest`` (``path`` leads to ``data``)."""
    if not rest:
        return [path]
    if isinstance(data, list):
        index = re.match(r"\[(\d+)\]", rest)
        if index is None or int(index[1]) >= len(data):
            return []
        return _paths_shown_as(data[int(index[1])], rest[index.end():], path + (int(index[1]),))
    if not isinstance(data, dict):
        return []
    if path:
        if not rest.startswith("."):
            return []
        rest = rest[1:]
    found = []
    for key, value in data.items():
        if isinstance(key, str) and key and rest.startswith(key) and rest[len(key):len(key) + 1] in ("", ".", "["):
            found += _paths_shown_as(value, rest[len(key):], path + (key,))
    return found


def _document_for(loaded: LoadedFile, finding: Finding) -> Document | None:
    before = [d for d in loaded.documents if d.line <= (finding.line or 0)]
    return max(before, key=lambda d: d.line) if before else None


# -- expected data, for verification ----------------------------------------------------

def _expected(documents: list[Document], actions: list[Action]) -> list[Any]:
    data = [copy.deepcopy(d.data) for d in documents]
    removals: dict[tuple, list[Action]] = defaultdict(list)
    for action in actions:
        root = data[action.doc]
        if action.op in ("set", "add"):
            node = root
            for part in action.path[:-1]:
                node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
            node[action.path[-1]] = action.value
        elif action.op == "rename":
            parent = _get(root, action.path[:-1])
            items = [(action.value if k == action.path[-1] else k, v) for k, v in parent.items()]
            parent.clear()
            parent.update(items)
        else:
            removals[(action.doc,) + action.path[:-1]].append(action)
    for key, group in removals.items():
        container = _get(data[key[0]], key[1:])
        for action in sorted(group, key=lambda a: a.path[-1], reverse=True):
            del container[action.path[-1]]
    return data


# -- edits -----------------------------------------------------------------------------

def _units(yt: YamlText, actions: list[Action], notes: dict) -> list[tuple[list[Edit], list[Action]]]:
    """Edits grouped in units that apply together (removals from one collection are one unit)."""
    units = []
    removals: dict[tuple, list[Action]] = defaultdict(list)
    for action in actions:
        doc = yt.documents[action.doc]
        try:
            if doc.aliased:
                raise Unfixable("the document uses YAML anchors, aliases or merge keys (<<)")
            if action.op in ("delete", "remove"):
                removals[(action.doc,) + action.path[:-1]].append(action)
                continue
            chain, node, rest = yt.walk(doc, action.path)
            if action.op == "set":
                if rest:
                    raise Unfixable("the value is not where the loader found it")
                units.append(([yt.replace_scalar(doc, node, action.value)], [action]))
            elif action.op == "add":
                if not rest:
                    raise Unfixable("the value is already there")
                parent = chain[-1] if chain else None
                units.append(([yt.add_entry(doc, node, parent, rest, action.value)], [action]))
            elif action.op == "rename":
                if rest or not chain:
                    raise Unfixable("the key is not where the loader found it")
                units.append(([yt.rename_key(doc, chain[-1][1], action.value)], [action]))
        except Unfixable as exc:
            notes[finding_key(action.finding)] = str(exc)
    for key, group in removals.items():
        doc = yt.documents[key[0]]
        try:
            if doc.aliased:
                raise Unfixable("the document uses YAML anchors, aliases or merge keys (<<)")
            chain, container, rest = yt.walk(doc, key[1:])
            if rest:
                raise Unfixable("the collection is not where the loader found it")
            indices = set()
            for action in group:
                last = action.path[-1]
                if isinstance(last, int):
                    indices.add(last)
                else:
                    position = next((i for i, (k, _) in enumerate(container.value)
                                     if getattr(k, "value", None) == last), None)
                    if position is None:
                        raise Unfixable("the key is not where the loader found it")
                    indices.add(position)
            units.append((yt.remove_entries(doc, container, indices, chain[-1] if chain else None), group))
        except Unfixable as exc:
            for action in group:
                notes[finding_key(action.finding)] = str(exc)
    return units


def _verified(text: str, path: str, documents: list[Document], actions: list[Action]) -> bool:
    loaded = load_text(text, path)
    if any(f.rule in ("EXL001", "EXL002") for f in loaded.findings):
        return False
    if len(loaded.documents) != len(documents):
        return False
    expected = _expected(documents, actions)
    return all(_strict_equal(d.data, e) for d, e in zip(loaded.documents, expected))


def _problem(text: str, new: str, loaded: LoadedFile, actions: list[Action]) -> str | None:
    """Why ``new`` (``text`` with ``actions`` applied) cannot be written, or None."""
    if not _verified(new, loaded.path, loaded.documents, actions):
        return "the edit would not give the expected YAML; fix it by hand"
    moved = moved_suppression(text, new, loaded.path)
    if moved is not None:
        return (f"the edit would hand the suppression comment on line {moved.line} (it silences the line after "
                f"it) to another line; move or delete that comment, then run --fix again")
    return None


def edit_text(text: str, loaded: LoadedFile, actions: list[Action], notes: dict) -> tuple[str, list[Action]]:
    """The file's text with as many of ``actions`` applied as can be, verified."""
    try:
        yt = YamlText(text)
        if len(yt.documents) != len(loaded.documents):
            raise Unfixable("the file's documents could not be matched")
    except Unfixable as exc:
        for action in actions:
            notes[finding_key(action.finding)] = str(exc)
        return text, []
    accepted_edits: list[Edit] = []
    accepted: list[tuple[list[Edit], list[Action]]] = []
    for edits, group in _units(yt, actions, notes):
        if any(overlaps(e, other) for e in edits for other in accepted_edits):
            continue  # another edit touches the same text: the next pass does it
        accepted_edits += edits
        accepted.append((edits, group))
    if not accepted:
        return text, []
    new = apply_edits(text, accepted_edits)
    applied = [a for _, group in accepted for a in group]
    if _problem(text, new, loaded, applied) is None:
        return new, applied
    # Something did not come out as expected: keep only the units that verify alone.
    good = []
    for edits, group in accepted:
        problem = _problem(text, apply_edits(text, edits), loaded, group)
        if problem is None:
            good.append((edits, group))
        else:
            for action in group:
                notes[finding_key(action.finding)] = problem
    while good:
        edits = [e for unit, _ in good for e in unit]
        applied = [a for _, group in good for a in group]
        new = apply_edits(text, edits)
        if _problem(text, new, loaded, applied) is None:
            return new, applied
        good = good[:1] if len(good) > 1 else []
    return text, []


# -- passes ----------------------------------------------------------------------------

def relint(previous, options, texts: dict[str, str]):
    """``linter.runner.lint`` again, with the files in ``texts`` (display path ->
    text) read from memory instead of disk: the same pipeline, nothing written."""
    from dataclasses import replace

    from linter import runner

    return runner.lint(replace(options, texts={**(options.texts or {}), **texts}))


def _syntax_error(loaded: LoadedFile) -> str | None:
    if loaded.path.lower().endswith(JSONL_SUFFIXES):
        return "not fixed: JSON Lines files are not edited in place; correct the source they were exported from"
    broken = [f for f in loaded.findings if f.rule == "EXL001"]
    if loaded.text is None and broken:  # not read at all (a link out of the repository, a FIFO): why
        return f"not fixed: {broken[0].message}"
    if loaded.text is None or broken:
        line = broken[0].line if broken else 1
        return f"not fixed: the file has a YAML syntax error (line {line}); correct it first"
    twice = [f for f in loaded.findings if f.rule == "EXL002"]
    if twice:  # which of the two values a fix should change is unclear
        return f"not fixed: the file has a duplicate key (line {twice[0].line}); correct it first"
    return None


def _fixable(finding: Finding, specs: dict[str, FixSpec]) -> bool:
    return finding.rule in specs and bool(finding.file) and bool(finding.path)


def fix_result(result, options, max_passes: int = MAX_PASSES, unsafe: bool = False) -> Outcome:
    """Fix what can be fixed, in memory. ``outcome.changed`` holds the new texts."""
    specs = fixers(result.rules, unsafe)
    outcome = Outcome(result)
    outcome.reported = {finding_key(f): f for f in result.findings if _fixable(f, specs)}
    current = result
    for loaded in result.loaded:  # never written, fixable findings or not: say so
        reason = _syntax_error(loaded) if loaded.path in result.reported_files else None
        if reason is not None:
            outcome.skipped[loaded.path] = reason
    for _ in range(max_passes):
        by_file: dict[str, list[Finding]] = defaultdict(list)
        for finding in current.findings:
            if _fixable(finding, specs):
                by_file[finding.file].append(finding)
        if not by_file:
            break
        planner = Planner(current, specs)
        loaded_by_path = {lf.path: lf for lf in current.loaded}
        changed = False
        for path, findings in sorted(by_file.items()):
            loaded = loaded_by_path.get(path)
            if loaded is None or path in outcome.skipped:
                continue
            reason = _syntax_error(loaded)
            if reason is None and path not in outcome.states:
                try:
                    with open(path, "rb") as handle:
                        raw = handle.read()
                    same = decode(raw) == loaded.text and encode_like(raw, loaded.text) == raw
                except (OSError, TextError) as exc:
                    reason, same = f"not fixed: cannot read it again: {getattr(exc, 'strerror', None) or exc}", True
                if reason is None and not same:
                    reason = "not fixed: the file changed on disk while exlint was running"
                if reason is None:
                    outcome.states[path] = FileState(path, raw, loaded.text, loaded.text)
            if reason is not None:
                outcome.skipped[path] = reason
                continue
            state = outcome.states[path]
            if loaded.text != state.text:  # the re-lint did not see the edited text: stop here
                outcome.stale = True
                continue
            actions = _plan(planner, findings, loaded, current.rules, specs, outcome.notes)
            if not actions:
                continue
            new, applied = edit_text(state.text, loaded, actions, outcome.notes)
            if new != state.text:
                state.text = new
                changed = True
        if not changed or outcome.stale:
            break
        current = relint(current, options, {p: s.text for p, s in outcome.states.items()})
    outcome.result = current
    return outcome


def _plan(planner: Planner, findings, loaded: LoadedFile, rules, specs, notes) -> list[Action]:
    actions: dict[tuple, Action] = {}
    for finding in findings:
        document = _document_for(loaded, finding)
        if document is None:
            continue
        try:
            action = planner.action(finding, rules[finding.rule], specs[finding.rule], document)
        except Unfixable as exc:
            notes[finding_key(finding)] = str(exc)
            continue
        if action is not None:
            actions.setdefault((action.doc, action.path, action.op), action)
    # Two keys of one mapping renamed to the same name: neither is clearly meant.
    targets: dict[tuple, list[tuple]] = defaultdict(list)
    for key, action in actions.items():
        if action.op == "rename":
            targets[(action.doc, action.path[:-1], action.value)].append(key)
    for keys in targets.values():
        if len(keys) > 1:
            for key in keys:
                action = actions.pop(key)
                notes[finding_key(action.finding)] = f"several keys look like {action.value!r}: rename one by hand"
    # A value set and deleted (or renamed) by different rules: the first wins this pass.
    out, claimed = [], set()
    for action in actions.values():
        key = (action.doc, action.path)
        if key in claimed:
            continue
        claimed.add(key)
        out.append(action)
    return out


# -- the command -------------------------------------------------------------------------

@dataclass
class FixRun:
    report: Any  # the Result to report: the files as they are on disk now
    left: list[Finding]  # what --fix leaves (--diff: would leave), which the exit code follows
    write_failed: bool  # a file --fix could not write (--diff: would refuse): exit 2


def run(result, options, write: bool, echo: Callable[[str], None], out: Callable[[str], None],
        unsafe: bool = False) -> FixRun:
    """`check --fix` (write=True) or `--diff` (write=False), with the unsafe fixes
    too when ``unsafe``. --diff reports the files as they are on disk (nothing
    was written, so positions and snippets are theirs) and says what --fix would
    do, refusals included."""
    result.one_repo("--diff" if not write else "--fix")
    outcome = fix_result(result, options, unsafe=unsafe)
    for path, reason in sorted(outcome.skipped.items()):
        echo(f"exlint: {path}: {reason}")
    changed = outcome.changed
    if write:
        done, failed = _write(changed, echo)
        if failed or outcome.stale:  # what is on disk now
            from linter.runner import lint

            after = lint(options)
        else:  # exactly the texts now on disk, already linted
            after = outcome.result
        report = after
    else:
        done, failed = _would_write(changed, echo)
        for path in done:
            out(unified_diff(path, changed[path].original, changed[path].text))
        after = outcome.result if len(done) == len(changed) else relint(
            result, options, {p: changed[p].text for p in done})
        report = result
    remaining = {finding_key(f) for f in after.findings}
    fixed = [f for k, f in outcome.reported.items() if k not in remaining and f.file in done]
    _echo_not_fixed(outcome.notes, after.findings, report.findings, echo)
    if write:
        echo(f"exlint: fixed {len(fixed)} finding(s) in {len(done)} file(s)")
    else:
        echo(f"exlint: --diff: --fix would fix {len(fixed)} finding(s) in {len(done)} file(s); nothing was written")
    return FixRun(report, after.findings, failed)


def _cannot_write(path: str, reason: str) -> str:
    return f"exlint: error: {path}: cannot write: {reason}; the file is unchanged"


def _write(changed: dict[str, FileState], echo) -> tuple[list[str], bool]:
    """(the files written, whether one could not be)."""
    written, failed = [], False
    for path, state in sorted(changed.items()):
        try:
            atomic_write(path, encode_like(state.raw, state.text), expected=state.raw)
            written.append(path)
        except OSError as exc:
            failed = True
            echo(_cannot_write(path, exc.strerror or str(exc)))
    return written, failed


def _would_write(changed: dict[str, FileState], echo) -> tuple[list[str], bool]:
    """--diff's ``_write``: the files --fix would write, and whether it would refuse
    one (with the line --fix would print)."""
    writable, refused = [], False
    for path in sorted(changed):
        reason = write_refusal(path)
        if reason is None:
            writable.append(path)
        else:
            refused = True
            echo(_cannot_write(path, reason))
    return writable, refused


def _echo_not_fixed(notes: dict[tuple, str], left: list[Finding], shown: list[Finding], echo) -> None:
    """Why each finding still left was not fixed, at its position in the report."""
    located: dict[tuple, Finding] = {}
    for finding in [*shown, *left]:  # the report's position first: --diff reports the files on disk
        located.setdefault(finding_key(finding), finding)
    left_keys = {finding_key(f) for f in left}
    for key, note in sorted(notes.items(), key=lambda kv: (kv[0][1] or "", kv[0][0])):
        if key in left_keys:
            finding = located[key]
            echo(f"exlint: {finding.file}:{finding.line}: {finding.rule} not fixed: {note}")
