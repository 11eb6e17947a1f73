"""The `check` pipeline: find the estate, load it, validate, run the rules,
apply suppressions and configuration, keep the findings for the paths asked."""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from linter.config import Config, find_config, find_root, read_config
from linter.estate import Estate, build_estate
from linter.findings import SEVERITY_RANK, Finding, sort_findings
from linter.loading import LoadedFile, discover, load_file, load_text
from linter.policy.packs import Rule, load_rules
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

    def counts(self) -> dict[str, int]:
        counts = {"error": 0, "warning": 0, "info": 0}
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts

    def failed(self, fail_on: str) -> bool:
        if fail_on == "never":
            return False
        threshold = SEVERITY_RANK[fail_on]
        return any(SEVERITY_RANK[f.severity] >= threshold for f in self.findings)


def display_path(path: Path) -> str:
    """Paths as the user typed them: relative to the working directory when below it."""
    text = os.path.normpath(str(path))
    if not os.path.isabs(text):
        return text
    cwd = os.getcwd()
    prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
    return text[len(prefix):] if text.startswith(prefix) else text


def _matches(relative: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(relative, p.rstrip("/") + "/*") for p in patterns)


def _filter(files: list[Path], root: Path | None, config: Config) -> list[Path]:
    if not (config.include or config.exclude):
        return files
    base = root or (config.path.parent if config.path else Path.cwd())
    kept = []
    for path in files:
        try:
            relative = path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        if config.include and not _matches(relative, config.include):
            continue
        if config.exclude and _matches(relative, config.exclude):
            continue
        kept.append(path)
    return kept


def resolve_setup(options: Options) -> tuple[Path | None, Config]:
    first = Path(options.paths[0]) if options.paths else Path.cwd()
    root = Path(options.root).resolve() if options.root else find_root(first)
    if options.config:
        config = read_config(Path(options.config))
    else:
        candidate = (root / ".exlint.yaml") if root and (root / ".exlint.yaml").is_file() else find_config(Path.cwd())
        config = read_config(candidate) if candidate else Config()
    return root, config


def lint(options: Options, progress=None) -> Result:
    if progress is None:
        from linter.progress import null

        progress = null()
    root, config = resolve_setup(options)
    rules = {
        rule_id: rule
        for rule_id, rule in load_rules(config.rule_dirs, config.options).items()
    }
    requested = _filter(discover(options.paths, root), root, config)
    requested_real = {os.path.abspath(p) for p in requested}
    context = []  # the rest of the config repo: read only to resolve references
    if root is not None:
        context = [p for p in _filter(discover([root]), root, config) if os.path.abspath(p) not in requested_real]
    progress.stage("load", total=len(requested) + len(context), unit="files")
    loaded = []
    texts = options.texts or {}
    for path in requested:
        display = display_path(path)
        loaded.append(load_text(texts[display], display) if display in texts else load_file(path, display))
        progress.advance()
    context_records, context_documents = _context_records(context, root, options.use_cache, progress)
    progress.stage("validate", total=sum(len(lf.documents) for lf in loaded), unit="documents")
    estate = build_estate(loaded, context_records, context_documents)
    progress.advance(len(estate.documents))
    from linter.engines.local import LocalEngine

    progress.stage("evaluate", total=len(rules), unit="rules")
    findings = list(estate.findings)
    focus = {display_path(p) for p in requested} if context else None
    findings.extend(LocalEngine(estate, rules, focus).run())
    progress.advance(len(rules))
    reported_files = {display_path(p) for p in requested}
    findings = [f for f in findings if f.file is None or f.file in reported_files]
    findings = finalize(findings, rules, config, options.select, options.ignore)
    if options.inline_suppressions:
        suppressions = [s for lf in loaded if lf.path in reported_files for s in parse_suppressions(lf.path, lf.text)]
        findings = apply_suppressions(findings, suppressions)
        unused = finalize(unused_suppressions(suppressions), rules, config, options.select, options.ignore)
        findings.extend(unused)
    documents = sum(len(lf.documents) for lf in loaded if lf.path in reported_files)
    return Result(sort_findings(findings), len(reported_files), documents, config, rules, estate, root, loaded,
                  reported_files)


def _context_records(paths: list[Path], root: Path | None, use_cache: bool, progress):
    """Model records of the files loaded only for reference resolution, from the
    record cache where the file is unchanged."""
    from linter.cache import RecordCache
    from linter.estate import file_records

    records: dict[str, list[dict]] = {}
    documents = 0
    cache = RecordCache(root) if (use_cache and root is not None and paths) else None
    for path in paths:
        display = display_path(path)
        hit = cache.get(path, display) if cache else None
        if hit is None:
            try:
                loaded = load_file(path, display)
            except Exception as exc:  # noqa: BLE001 - an unreadable context file is not the user's target
                if isinstance(exc, OSError) or exc.__class__.__name__ == "InputError":
                    progress.advance()
                    continue
                raise
            file_rows, count = file_records(loaded)
            if cache:
                cache.put(path, display, file_rows, count)
        else:
            file_rows, count = hit
        for table, rows in file_rows.items():
            records.setdefault(table, []).extend(rows)
        documents += count
        progress.advance()
    if cache:
        cache.prune({display_path(p) for p in paths})
        cache.save()
    return records, documents


def finalize(findings, rules, config: Config, select=(), ignore=()) -> list[Finding]:
    """Selection and severity overrides from the command line and configuration."""
    out = []
    for finding in findings:
        if not config.enabled(finding.rule, select, ignore):
            continue
        level = config.severity.get(finding.rule)
        out.append(finding.with_severity(level) if level else finding)
    return out
