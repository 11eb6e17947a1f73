"""The `check` pipeline: find the estate, load it, validate, run the rules,
apply suppressions and configuration, keep the findings for the paths asked."""
from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from linter.collector import collector_paused
from linter.config import CONFIG_NAME, LOOKALIKE_NOTE, Config, Discovery, check_options, check_rule_ids, discover_root, read_config
from linter.estate import Estate, build_estate
from linter.findings import HIDDEN_UNREAD_NOTE, RULE_FAILED, SEVERITY_RANK, UNREAD_HIDDEN, Finding, severity_counts, \
    sort_findings
from linter.loading import InputError, LoadedFile, discover, display_path, display_paths, foreign_inventory, \
    load_file, load_text, real_path  # noqa: F401 - display_path: part of this module's API (engines, reports)
from linter.loading.scope import is_own_file, misspelt_claim
from linter.policy.packs import Rule, load_rules
from linter.suffixes import PARQUET_SUFFIXES
from linter.suppressions import apply_suppressions, parse_suppressions, unused_suppressions


@dataclass
class Options:
    paths: list[str]
    root: str | None = None
    config: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    inline_suppressions: bool = True
    use_cache: bool = True
    # display path -> text: files read from memory instead of disk (--fix re-lints
    # its edits before writing anything)
    texts: dict[str, str] | None = None
    allow_empty: bool = False
    # pre-commit mode: the paths are the changed files (foreign ones skipped, none
    # at all is fine) and the git index says what was deleted or renamed
    hook: bool = False


@dataclass
class Result:
    findings: list[Finding]
    files: int
    documents: int
    config: Config
    rules: dict[str, Rule]
    estate: Estate | None = None
    root: Path | None = None
    loaded: list[LoadedFile] = field(default_factory=list)
    reported_files: set[str] = field(default_factory=set)
    baseline_suppressed: int = 0
    baseline_fixed: list[dict] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # walked YAML files that are not exlint documents
    discovery: Discovery | None = None
    notes: list[str] = field(default_factory=list)  # one-line remarks for standard error
    fail_on: str = "error"  # the run's threshold, for reports that fail (JUnit)
    roots: list[str] = field(default_factory=list)  # when the paths spanned several config repos

    def one_repo(self, what: str) -> None:
        """InputError when this run spanned several config repos (``what`` cannot)."""
        if self.roots:
            raise InputError(f"{what} works on one config repo at a time, and these paths span {len(self.roots)} "
                             f"({', '.join(self.roots)}): run it on each")

    def counts(self) -> dict[str, int]:
        return severity_counts(self.findings)

    def failed(self, fail_on: str) -> bool:
        if fail_on == "never":
            return False
        threshold = SEVERITY_RANK[fail_on]
        return any(SEVERITY_RANK[f.severity] >= threshold for f in self.findings)


@functools.lru_cache(maxsize=None)  # asked for every file walked, of a configuration's few globs
def glob_forms(pattern: str) -> frozenset[str]:
    """The fnmatch patterns an include/exclude glob stands for, relative to the root:
    a leading ``./`` or ``/`` names the root itself, and each ``**/`` also matches no
    folder at all (``**/*.yaml`` is every YAML file, the root's too), as in .gitignore
    and shell globstar; fnmatch alone wants a ``/`` there, so the root's files (the
    Organization, most often) silently fell out of an include."""
    while pattern.startswith(("./", "/")):
        pattern = pattern[2:] if pattern.startswith("./") else pattern[1:]
    forms, todo = set(), [pattern]
    while todo:
        form = todo.pop()
        if form in forms:
            continue
        forms.add(form)
        start = form.find("**/")
        while start != -1:
            if start == 0 or form[start - 1] == "/":
                todo.append(form[:start] + form[start + 3:])
            start = form.find("**/", start + 1)
    return frozenset(forms)


def _matches(relative: str, patterns: list[str]) -> bool:
    """Whether a file (its path relative to the root) matches a glob: the file itself,
    or a folder above it (``archive`` or ``archive/`` takes everything in it)."""
    return any(fnmatch.fnmatch(relative, form) or fnmatch.fnmatch(relative, form.rstrip("/") + "/*")
               for pattern in patterns for form in glob_forms(pattern))


def filter_files(files: list[Path], root: Path | None, config: Config, keep: set[str] = frozenset(),
            real: dict[str, str] | None = None, included: set | None = None) -> list[Path]:
    """``files`` the configuration's include and exclude globs let through; a
    file whose real path is in ``keep`` (named on the command line) always is.
    ``included``: filled with the include patterns that matched a file."""
    if not (config.include or config.exclude):
        return files
    base = os.path.realpath(root or (config.path.parent if config.path else Path.cwd()))
    kept = []
    for path in files:
        identity = real[os.fspath(path)] if real is not None else real_path(path)
        if identity in keep:
            kept.append(path)
            continue
        try:
            relative = Path(os.path.realpath(path)).relative_to(base).as_posix()
        except ValueError:
            relative = path.as_posix()
        if config.include:
            hit = next((pattern for pattern in config.include if _matches(relative, [pattern])), None)
            if hit is None:
                continue
            if included is not None:
                included.add(hit)
        if config.exclude and _matches(relative, config.exclude):
            continue
        kept.append(path)
    return kept


def resolve_setup(options: Options) -> tuple[Path | None, Config, Discovery]:
    first = Path(options.paths[0]) if options.paths else Path.cwd()
    if options.root:
        root = Path(os.path.realpath(options.root))  # Path.resolve raises on a link loop
        found = discover_root(root, named=bool(options.config))
        discovery = Discovery(root, found.config if found.root == root else None, f"--root {root}")
    else:
        discovery = discover_root(first, named=bool(options.config))
        root = discovery.root
    if options.config:
        discovery.config = Path(options.config)
        discovery.reason += f"; configuration from --config {options.config}"
    config = read_config(discovery.config) if discovery.config else Config()
    return root, config, discovery


def _load_checked_rules(config: Config, options: Options) -> dict[str, Rule]:
    return load_checked_rules(config, options.select, options.ignore)


def load_checked_rules(config: Config, select=(), ignore=()) -> dict[str, Rule]:
    """The rules, after every rule ID and option named in the configuration and on
    the command line is checked against them (`check` and `estate` alike): a typo
    must not silently turn a check off, or a gate on."""
    # the rule IDs and options named are checked against the rules first, so that
    # an error names the configuration file and where in it
    rules = load_rules(config.rule_dirs)
    check_rule_ids(config, rules, select, ignore)
    if not config.options:
        return rules
    check_options(config, rules)
    return load_rules(config.rule_dirs, config.options)


NO_ROOT_NOTE = ("no config repo root above {path} (no .exlint.yaml, no [tool.exlint], no git work tree): "
                "only the files given are loaded, so references into other files cannot resolve; "
                "add .exlint.yaml at the repo root or pass --root DIR")


UNMATCHED_INCLUDE_NOTE = ("include pattern {pattern!r} ({where}) matches no file of the repository, so nothing is "
                          "linted through it: check its spelling (patterns are relative to the root, {root})")
UNREAD_PYPROJECT_NOTE = ("{path}: its [tool.exlint] is not read: .exlint.yaml beside it is the configuration "
                         "(it wins); move the settings into one of them")
OTHER_ROOT_NOTE = ("{path} not linted: it is a config repo of its own (.exlint.yaml, [tool.exlint] or a git "
                   "work tree), so its files resolve references among themselves; run exlint check {path}")


OUTSIDE_ROOT_NOTE = ("{path} is outside the config repo root {root}: it is linted together with that repo's "
                     "documents (a copy of one of them is a second document of the same name); lint it on its "
                     "own, or pass the --root it belongs to")


# inventory files in a walked folder: `exlint estate` reads them there, check only named (JSON Lines)
INVENTORY_NOTES = {
    "jsonl": "{path} not linted: check does not walk into JSON Lines inventories (exlint estate does); "
             "name it to lint it with the rest: exlint check {paths} {path}",
    "parquet": "{path} not linted: check does not read Parquet inventories; lint it with exlint estate {path}",
}
MISSPELT_CLAIM_NOTE = ("{path} skipped as not an exlint document, but {reason}: correct it, or name the file "
                       "to lint it as it is (exlint check {path})")
UNREAD_CONTEXT_NOTE = ("{where} (read only to resolve references) could not be read: {reason}; a name it defines "
                       "may be reported as undefined: fix it, and lint it with exlint check {path}")
LOOP_NOTE = ("{path} not read: it is a symbolic link loop (no file or folder at its end); "
             "remove the link or point it at a file")


@collector_paused  # linter/collector.py: a third of a large run was the collector
def lint(options: Options, progress=None) -> Result:
    """Lint the paths given. Paths that belong to different config repos (each
    root found as :func:`resolve_setup` finds it: a pre-commit run in a
    repository holding several estates, or `check estate-a estate-b`) are linted
    each with its own configuration and references, and reported together."""
    if progress is None:
        from linter.progress import null

        progress = null()
    groups = _by_root(options)
    runs = [replace(options, paths=paths) for paths in groups.values()]
    if options.hook and not options.root:
        runs += _deletion_runs(options, groups)
    if len(runs) <= 1:
        return _lint_one(options, progress)
    merged = _merge([_lint_one(run, progress) for run in runs])
    merged.roots = [str(root) if root else "(no root)" for root in groups] + [run.root for run in runs[len(groups):]]
    return merged


def _deletion_runs(options: Options, groups: dict) -> list[Options]:
    """Hook mode: a run for each config repo below the working directory in which the
    commit deletes a file and that no path given belongs to. A deletion-only commit
    passes pre-commit no file, and from the git top the estates in its subfolders
    (config repos of their own) were never looked at: a store deleted while other
    files still name it passed the commit. Each such run names its repo as the root
    and no path: what it checks is what the deletion broke (``_lint_one``)."""
    from linter.changes import Staged

    staged = Staged(Path.cwd())
    if not staged.deleted:
        return []
    covered = {os.path.realpath(root) if root is not None else None for root in groups}
    if None in covered:  # the paths whose root is found as the run goes: the working directory's
        found = discover_root(Path.cwd()).root
        covered.add(os.path.realpath(found) if found is not None else None)
    runs: list[Options] = []
    for deleted in staged.deleted:
        folder = Path(os.path.abspath(deleted)).parent
        while not folder.is_dir() and folder != folder.parent:  # the deletion took its folder too
            folder = folder.parent
        root = discover_root(folder).root
        if root is not None and os.path.realpath(root) not in covered:
            covered.add(os.path.realpath(root))
            runs.append(replace(options, paths=[], root=str(root)))
    return runs


def _by_root(options: Options) -> dict:
    """{config repo root (or None): the paths under it}, in the order given."""
    if options.root or len(options.paths) <= 1:
        return {None: options.paths}
    return paths_by_root(options.paths)


def paths_by_root(paths) -> dict:
    """{config repo root (or None): the paths under it}, in the order given (check and estate)."""
    groups: dict = {}
    known: dict[str, object] = {}
    for raw in paths:
        folder = os.path.abspath(raw if os.path.isdir(raw) else os.path.dirname(raw) or ".")
        if folder not in known:
            known[folder] = discover_root(Path(folder)).root
        groups.setdefault(known[folder], []).append(raw)
    return groups


def _merge(results: list[Result]) -> Result:
    """One report of several config repos' runs; the first one's configuration
    decides what fails (``fail_on``), as its root was found first."""
    first = results[0]
    # each repo's findings are its own: two repos without an Organization are two EXL008s (as estate says)
    findings = sorted((f for r in results for f in r.findings), key=Finding.sort_key)
    merged = Result(findings, sum(r.files for r in results),
                    sum(r.documents for r in results), first.config, {k: v for r in results for k, v in r.rules.items()},
                    None, first.root, [lf for r in results for lf in r.loaded],
                    {p for r in results for p in r.reported_files},
                    skipped=[p for r in results for p in r.skipped], discovery=first.discovery)
    merged.discovery = Discovery(first.root, first.config.path,
                                 "; ".join(f"{r.discovery.reason}" for r in results if r.discovery))
    merged.notes = list(dict.fromkeys(note for r in results for note in r.notes))
    return merged


def _lint_one(options: Options, progress) -> Result:
    root, config, discovery = resolve_setup(options)
    rules = _load_checked_rules(config, options)
    # files named on the command line (real paths): always linted, whatever the globs or their content say
    # (a link refused unread, out of the repository, is known by its own absolute path)
    named = set() if options.hook else {f(p) for p in options.paths if not os.path.isdir(p)
                                        for f in (real_path, os.path.abspath)}
    other_roots: list[str] = []  # folders below a walked one that are config repos of their own
    loops: list[str] = []  # walked links that lead nowhere and are no YAML file: a note
    inventories: list[str] = []  # walked JSON Lines and Parquet files: a note (check reads them named)
    real: dict[str, str] = {}  # path -> real path: a file is loaded once, however it is reached
    requested = filter_files(discover(options.paths, root, other_roots, real, loops, inventories), root, config,
                             named, real)
    requested_real = {real[os.fspath(p)] for p in requested}
    # as the YAML files walked, the globs choose among them (estate's walk applies them too); an
    # `exlint estate --output` folder (its findings, not inventory) is skipped as estate skips it
    from linter.engines.spark.output import in_findings_output  # no PySpark: its marker and this walk only

    marked: dict[str, bool] = {}
    inventories = [os.fspath(p) for p in filter_files([Path(p) for p in inventories], root, config)
                   if real_path(p) not in named and not in_findings_output(p, options.paths, marked)]
    context = []  # the rest of the config repo: read only to resolve references
    staged = None
    if options.hook and root is not None:
        from linter.changes import Staged

        staged = Staged(root)
    unmatched: list[str] = []  # include patterns no file of the repository matches: a typo, said in a note
    if root is not None and not (options.hook and not requested and not staged.deleted):
        context_real: dict[str, str] = {}
        included: set[str] = set()
        repository_inventories: list[str] = []
        context = [p for p in filter_files(discover([root], other_roots=[], real=context_real,
                                                    inventories=repository_inventories), root, config,
                                      real=context_real, included=included)
                   if context_real[os.fspath(p)] not in requested_real]
        if config.include:
            filter_files([Path(p) for p in repository_inventories], root, config, included=included)
            unmatched = [pattern for pattern in config.include if pattern not in included]
    progress.stage("load", total=len(requested) + len(context), unit="files")
    loaded, skipped, lookalikes = [], [], []
    foreign = [p for p in inventories if foreign_inventory(p)]  # another tool's JSON Lines: skipped, as estate skips it
    skipped.extend(display_paths(foreign))
    inventories = [p for p in inventories if p not in foreign]
    texts = options.texts or {}
    for path in requested:
        display = display_path(path)
        file = load_text(texts[display], display) if display in texts else load_file(path, display)
        # a file refused unread (a link out of the repository, a FIFO) is always reported: nobody can tell whose it is
        if real[os.fspath(path)] in named or getattr(path, "refusal", "") or is_own_file(file):
            loaded.append(file)
        else:
            skipped.append(display)
            typo = misspelt_claim(file)
            if typo:
                lookalikes.append(MISSPELT_CLAIM_NOTE.format(path=display, reason=typo))
        progress.advance()
    if not loaded and not (options.allow_empty or config.allow_empty or options.hook):
        if other_roots:  # a folder of config repos: say which, and how to lint them
            repos = display_paths(other_roots)
            raise InputError(f"{', '.join(options.paths) or '.'}: nothing to lint here but config repos of their "
                             f"own ({', '.join(repos)}), which resolve references among themselves: lint them "
                             f"by name, exlint check {' '.join(repos)}")
        if inventories:  # only inventory files: say how they are linted
            raise InputError(f"{', '.join(options.paths) or '.'}: no YAML files to lint, only inventories "
                             f"({', '.join(display_paths(inventories)[:3])}{', ...' if len(inventories) > 3 else ''}), "
                             f"which check does not walk into: name a JSON Lines file (exlint check FILE.jsonl), "
                             f"or run exlint estate {' '.join(options.paths) or '.'}")
        raise InputError(nothing_to_lint(options.paths, len(skipped)))
    context_records, context_documents, context_notes = _context_records(context, root, options.use_cache, progress)
    watched: dict[str, set[str]] = {}  # names the commit took away (--hook): table -> names
    dependents: set[str] = set()
    if options.hook and context:
        dependents, watched = _dependents(loaded, context_records, staged)
        if dependents:
            loaded.extend(load_file(Path(name), name) for name in sorted(dependents))
            for table, rows in context_records.items():
                context_records[table] = [r for r in rows if r.get("_file") not in dependents]
    progress.stage("validate", total=sum(len(lf.documents) for lf in loaded), unit="documents")
    estate = build_estate(loaded, context_records, context_documents)
    progress.advance(len(estate.documents))
    from linter.engines.local import LocalEngine

    # only the rules this run reports are evaluated, as the Spark engine does (job.run): a rule
    # left out by --select or --ignore was evaluated and its findings dropped (RTE005 alone is
    # most of a large estate's time)
    evaluated = config.evaluated(rules, options.select, options.ignore)
    progress.stage("evaluate", total=len(evaluated), unit="rules")
    findings = list(estate.findings)
    reported_files = {lf.path for lf in loaded}
    findings.extend(LocalEngine(estate, evaluated, reported_files if context else None).run())
    progress.advance(len(evaluated))
    # a dependent file reports only what the change did to it, not its old findings
    findings = [f for f in findings if f.file is None or (f.file in reported_files and f.file not in dependents)
                or (f.file in dependents and _mentions(f.message, watched))]
    unread = [f for f in findings if f.rule in UNREAD_HIDDEN]
    findings = finalize(findings, rules, config, options.select, options.ignore)
    hidden = _left_out(unread, findings, "--select/--ignore or the configuration")
    if options.inline_suppressions:
        suppressions = [s for lf in loaded if lf.path in reported_files for s in parse_suppressions(lf.path, lf.text)]
        unread = [f for f in findings if f.rule in UNREAD_HIDDEN]
        findings = apply_suppressions(findings, suppressions)
        hidden += _left_out(unread, findings, "a suppression comment")
        unused = finalize(unused_suppressions(suppressions, rules,
                                              lambda rule: config.runs_any(rule, rules, options.select, options.ignore)),
                          rules, config, options.select, options.ignore)
        findings.extend(unused)
    documents = sum(len(lf.documents) for lf in loaded if lf.path in reported_files)
    result = Result(sort_findings(findings), len(reported_files), documents, config, rules, estate, root, loaded,
                    reported_files, skipped=skipped, discovery=discovery)
    for other in display_paths(other_roots):
        result.notes.append(OTHER_ROOT_NOTE.format(path=other))
    if discovery is not None and not options.config:
        result.notes += [LOOKALIKE_NOTE.format(path=display_path(path), name=CONFIG_NAME)
                         for path in discovery.lookalikes]
    if discovery is not None and discovery.unread is not None and discovery.config == discovery.root / CONFIG_NAME:
        result.notes.append(UNREAD_PYPROJECT_NOTE.format(path=display_path(discovery.unread)))
    result.notes.extend(lookalikes + context_notes)
    result.notes += [UNMATCHED_INCLUDE_NOTE.format(pattern=pattern, where=config.where("include", index),
                                                   root=display_path(root) if root else ".")
                     for index, pattern in enumerate(config.include) if pattern in unmatched]
    for finding, by in hidden:
        where = ":".join(str(part) for part in (finding.file, finding.line, finding.column) if part is not None)
        result.notes.append(HIDDEN_UNREAD_NOTE.format(where=where, rule=finding.rule, by=by,
                                                      message=finding.message))
    for loop in display_paths(loops):
        result.notes.append(LOOP_NOTE.format(path=loop))
    for inventory in display_paths(inventories):
        kind = "parquet" if inventory.lower().endswith(PARQUET_SUFFIXES) else "jsonl"
        result.notes.append(INVENTORY_NOTES[kind].format(path=inventory, paths=" ".join(options.paths)))
    if root is not None:
        for path in _outside(options.paths, root):
            result.notes.append(OUTSIDE_ROOT_NOTE.format(path=path, root=display_path(root)))
    if root is None and named and result.findings:
        result.notes.append(NO_ROOT_NOTE.format(path=options.paths[0]))
    return result


def _left_out(before: list[Finding], after: list[Finding], by: str) -> list[tuple[Finding, str]]:
    """The findings of ``before`` that ``after`` no longer holds (their severity may have
    been re-levelled), each with what hid it."""
    def key(f: Finding) -> tuple:
        return f.rule, f.file, f.line, f.column, f.message

    kept = {key(f) for f in after}
    return [(f, by) for f in before if key(f) not in kept]


def _outside(paths: list[str], root) -> list[str]:
    """The paths given (as given) that lie outside ``root`` (a --root not holding them)."""
    top = os.path.realpath(root)
    return [raw for raw in paths
            if os.path.commonpath([top, os.path.realpath(raw)]) != top]


def nothing_to_lint(paths: list[str], skipped: int, flag: bool = True) -> str:
    """Why a run found nothing to lint (``skipped``: the other tools' YAML and JSON
    Lines files it skipped; ``flag``: the command has --allow-empty, as `check` has)."""
    where = ", ".join(paths) or "."
    allow = "pass --allow-empty (allow_empty: true in .exlint.yaml)" if flag else "set allow_empty: true in .exlint.yaml"
    if skipped:
        return (f"{where}: no exlint documents ({skipped} file(s) skipped: none has apiVersion exlint/... "
                f"or a kind exlint knows); name a file to lint it anyway, or {allow} when an empty run should pass")
    return (f"{where}: no YAML files (*.yaml, *.yml) to lint; check the path, or pass --allow-empty "
            f"(allow_empty: true in .exlint.yaml) when an empty run should pass")


def _mentions(message: str, names: dict[str, set[str]]) -> bool:
    if not names:
        return False
    from linter.changes import mentions

    return mentions(message, names)


def _dependents(loaded: list[LoadedFile], records: dict, staged) -> tuple[set[str], dict[str, set[str]]]:
    """Unchanged files that reference a name the commit took away: defined in git's
    HEAD version of a changed or deleted file, and nowhere now."""
    from linter.changes import defined_names, dependent_files, merge, names_of, old_names, vanished

    before = old_names(staged.committed_texts([Path(lf.path) for lf in loaded] + staged.deleted), display_path)
    if not before:
        return set(), {}
    now = defined_names(records)
    for file in loaded:
        merge(now, names_of(file))
    gone = vanished(before, now)
    return dependent_files(records, gone, {lf.path for lf in loaded}), gone


def _context_records(paths: list[Path], root: Path | None, use_cache: bool, progress):
    """Model records of the files loaded only for reference resolution, from the
    record cache where the file is unchanged, with a note for each file that could
    not be read."""
    from linter.cache import RecordCache
    from linter.estate import file_records

    records: dict[str, list[dict]] = {}
    documents = 0
    notes: list[str] = []
    cache = RecordCache(root) if (use_cache and root is not None and paths) else None
    displays = display_paths(paths)
    for path, display in zip(paths, displays):
        hit = cache.get(path, display) if cache else None
        if hit is None:
            try:
                loaded = load_file(path, display)
            except Exception as exc:  # noqa: BLE001 - an unreadable context file is not the user's target
                if isinstance(exc, OSError) or exc.__class__.__name__ == "InputError":
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                    notes.append(UNREAD_CONTEXT_NOTE.format(where=display, path=display, reason=reason))
                    progress.advance()
                    continue
                raise
            file_rows, count = file_records(loaded)
            unread = [f for f in loaded.findings if f.rule == "EXL001"]
            if unread and not loaded.documents and not loaded.partial:
                # nothing of it could be read (not text, not YAML before its first name): a
                # name it defines would be reported as undefined elsewhere, unexplained.
                # Not cached, so that every run says so.
                where = ":".join(str(p) for p in (display, unread[0].line, unread[0].column) if p is not None)
                notes.append(UNREAD_CONTEXT_NOTE.format(where=where, path=display, reason=unread[0].message))
            elif cache:
                cache.put(path, display, file_rows, count)
        else:
            file_rows, count = hit
        for table, rows in file_rows.items():
            records.setdefault(table, []).extend(rows)
        documents += count
        progress.advance()
    if cache:
        cache.prune(set(displays))
        cache.save()
    return records, documents, notes


def finalize(findings, rules, config: Config, select=(), ignore=()) -> list[Finding]:
    """Selection and severity overrides from the command line and configuration."""
    out = []
    for finding in findings:
        if not config.enabled(finding.rule, select, ignore):
            continue
        level = config.severity.get(finding.rule) if finding.rule != RULE_FAILED else None
        out.append(finding.with_severity(level) if level else finding)
    return out
