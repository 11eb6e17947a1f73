"""Command line: thin Click commands over the library. Heavy modules are
imported inside the commands so that `exlint check` starts fast (and never
imports PySpark)."""
from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import sys

import click

from linter import __version__
from linter.findings import RULE_FAILED
from linter.options import FORMATS, ExitError, compare_without_html, fail_on_option, ignore_option, \
    no_inline_suppressions_option, select_option, split_rule_ids

def routed(formats, outputs, stdout=True) -> tuple[list[tuple[str, str]], list[str]]:
    """(format, file) pairs and the formats for standard output (none when
    ``stdout`` is False); ExitError for a pairing that cannot be meant."""
    from linter.reports.routing import RoutingError, route

    default = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    try:
        to_files, stdout_formats = route(list(formats), list(outputs), default)
    except RoutingError as exc:
        raise ExitError(str(exc)) from None
    return to_files, stdout_formats if stdout else []


def write_reports(result, formats, outputs, progress=None, colour_mode="auto", stdout=True, inputs=()) -> None:
    from linter.reports import renderer

    to_files, stdout_formats = routed(formats, outputs, stdout)
    if progress is not None:
        progress.stage("write", total=len(to_files) + len(stdout_formats), unit="reports")
    from linter.textsafe import valid_unicode

    refuse_outputs([path for _, path in to_files], None, inputs)
    for fmt, path in to_files:
        text = valid_unicode(renderer(fmt)(result, colour=False))
        if progress is not None:
            progress.advance()
        try:
            from linter.atomic import atomic_write

            atomic_write(path, text.encode("utf-8"), create=True, special=True, follow=True)
        except OSError as exc:
            raise ExitError(f"{path}: cannot write report: {exc.strerror or exc}; "
                            "choose another --output path") from None
    if progress is not None and stdout_formats:
        progress.done()
    for fmt in stdout_formats:
        colour = fmt == "text" and use_colour(colour_mode, sys.stdout)
        try:
            click.echo(valid_unicode(renderer(fmt)(result, colour=colour)), nl=False, color=colour)
            sys.stdout.flush()
        except OSError as exc:
            raise stdout_failed(exc, "the report") from None


def stdout_failed(exc: OSError, what: str | None = None) -> ExitError:
    """The one-line error for a write to standard output that failed (a full disk,
    a closed pipe); standard output is pointed at the null device so that the
    interpreter's last flush does not fail again with a trace."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):
        pass  # not a real descriptor (a test's captured output)
    what = f"{what} " if what else ""
    return ExitError(f"cannot write {what}to standard output: {exc.strerror or exc}; check where standard "
                     "output goes (a full disk, a closed pipe), or write to a file with --output")


def refuse_outputs(outputs, baseline_path, inputs) -> None:
    """ExitError unless every report file (and the baseline to record) may be
    written: not an input, not given twice, and absent, empty, special (a FIFO,
    /dev/null, /dev/stdout) or a report exlint wrote (linter.reports.ownership)."""
    from linter.atomic import resolve_target
    from linter.reports.ownership import OutputRefused, check_output

    seen: dict[str, str] = {}
    named = [(p, "--output") for p in outputs] + ([(baseline_path, "--write-baseline")] if baseline_path else [])
    for path, option in named:
        try:
            check_output(path, option, inputs)
            target = resolve_target(path)
        except OutputRefused as exc:
            raise ExitError(str(exc)) from None
        except OSError as exc:
            raise ExitError(f"{path}: cannot write {'the baseline' if option == '--write-baseline' else 'a report'} "
                            f"there: {exc.strerror or exc}") from None
        if target.kind == "file":
            if target.path in seen:
                raise ExitError(f"{path}: named twice ({seen[target.path]} and {option} {path}); "
                                "give each report a file of its own")
            seen[target.path] = f"{option} {path}"


def _inputs(paths, config=None, baseline=None, result=None) -> list[str]:
    """The files a run reads (a report must never replace one of them)."""
    found = [p for p in paths if not os.path.isdir(p)]
    found += [p for p in (config, baseline) if p]
    if result is not None:
        found += [lf.path for lf in result.loaded]
        if getattr(result.config, "path", None):
            found.append(str(result.config.path))
    return found


def use_colour(mode: str, stream) -> bool:
    """--color always|never wins; then NO_COLOR, then FORCE_COLOR (https://no-color.org,
    https://force-color.org); else colour on a terminal only."""
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


class Interrupted(ExitError):
    """Ctrl-C (SIGINT): one line and exit 130 (128 + SIGINT), as shells expect."""
    exit_code = 130

    def show(self, file=None):
        click.echo(f"exlint: {self.message}", err=True)


# linter/entry.py writes it too (before this module is imported)
INTERRUPTED = "interrupted (Ctrl-C): stopped before the end, no file left half-written; run the command again to finish"


class ExlintGroup(click.Group):
    """Failures every command shares: Ctrl-C is exit 130 with one line (not
    Click's "Aborted!" and exit 1), and standard output that cannot be written (a
    full disk, a closed pipe) is exit 2 with one line, never a trace."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:  # the group's own options (`exlint --bogus`)
            raise ExitError(_usage_line(exc)) from None

    def invoke(self, ctx):
        try:
            try:
                return super().invoke(ctx)
            finally:
                _flush_stdout()
        except KeyboardInterrupt:
            raise Interrupted(INTERRUPTED) from None
        except click.UsageError as exc:  # one line, as every other failure: not Click's usage block
            raise ExitError(_usage_line(exc)) from None
        except click.ClickException:
            raise
        except OSError as exc:  # escaped a command: a write to standard output, or an I/O error of its own
            if exc.filename is None:
                raise stdout_failed(exc) from None
            raise ExitError(f"{exc.filename}: {exc.strerror or exc}") from None
        except (SystemExit, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:  # a bug of exlint's: one line, the trace only with --debug
            if _debug(ctx):
                raise
            raise ExitError(f"internal error: {type(exc).__name__}: {exc}; this is a bug in exlint: run the same "
                            "command with --debug (exlint --debug ...) for the trace, and report it") from None


def _usage_line(exc: click.UsageError) -> str:
    """A usage error as one line: Click's message, and where the options are listed."""
    message = " ".join(exc.format_message().split())
    command = exc.ctx.command_path if exc.ctx is not None else "exlint"
    return f"{message.rstrip('.')}; see {command} --help"


def _debug(ctx) -> bool:
    return bool(ctx.params.get("debug") or "--debug" in sys.argv[1:] or os.environ.get("EXLINT_DEBUG"))


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except OSError as exc:
        raise stdout_failed(exc) from None
    except ValueError:
        pass  # closed


@click.group(cls=ExlintGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="exlint")
@click.option("--debug", is_flag=True, help="Show the full trace of an internal error (also EXLINT_DEBUG=1).")
def cli(debug):
    """exlint: lint Exchange public-folder replication and transport settings kept as YAML."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "formats", multiple=True, type=click.Choice(FORMATS),
              help="Report format (repeatable). An --output takes the --format its extension names; one "
                   "more goes to standard output. Default: text (github under GitHub Actions).")
@click.option("--output", "outputs", multiple=True, type=click.Path(dir_okay=False),
              help="Write a report to this file (repeatable); its extension names the format "
                   "(.sarif, .json, .xml/.junit, .html, .txt) unless a --format says otherwise.")
@fail_on_option
@select_option
@ignore_option
@click.option("--config", type=click.Path(dir_okay=False), help="Configuration file (default: the nearest .exlint.yaml or [tool.exlint] "
                   "upward, not above the git work tree).")
@click.option("--root", type=click.Path(file_okay=False),
              help="Config repo root: load it all to resolve references, report only PATHS.")
@no_inline_suppressions_option
@click.option("--no-cache", is_flag=True,
              help="Re-read every file of the config repo (the record cache is in ~/.cache/exlint).")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="Report and fail only on findings not recorded in this baseline.")
@click.option("--write-baseline", type=click.Path(dir_okay=False),
              help="Record today's findings in this baseline file (exit 0).")
@click.option("--compare", type=click.Path(exists=True),
              help="Earlier findings (a --format json file, or a directory of JSON Lines/Parquet findings): "
                   "the html report shows what is new and what was fixed since (a run without one refuses it).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display on a terminal.")
@click.option("--verbose", "-v", is_flag=True,
              help="Say which configuration and root were used, and list the files skipped as not exlint documents.")
@click.option("--color", "--colour", "colour_mode", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True, help="Colour the text report (auto: on a terminal, unless NO_COLOR; FORCE_COLOR forces it).")
@click.option("--allow-empty", is_flag=True,
              help="Exit 0 when the paths hold no exlint document (default: exit 2, a wrong path is an error).")
@click.option("--hook", is_flag=True,
              help="pre-commit mode: PATHS are the changed files (files that are not exlint documents are skipped; "
                   "none at all is fine) and files deleted or renamed in the git index count as changed.")
@click.option("--fix", is_flag=True,
              help="Apply the safe fixes (they keep what Exchange does today) in place, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix or --diff: apply the unsafe fixes too (they change what Exchange does).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print what --fix would change as a unified diff (reports, of the files as they are on disk, "
                   "only to --output); write nothing.")
def check(paths, formats, outputs, fail_on, select, ignore, config, root, no_inline_suppressions, no_cache,
          baseline, write_baseline, compare, quiet, verbose, colour_mode, allow_empty, hook, fix, unsafe_fixes,
          show_diff):
    """Lint YAML files and directories.

    Walking a directory, only exlint documents are linted (YAML files with no
    apiVersion exlint/... and no kind exlint knows are skipped and counted),
    hidden ones too; .git is not walked. A file named is always linted."""
    from linter.runner import Options

    if unsafe_fixes and not (fix or show_diff):
        raise ExitError("--unsafe-fixes applies with --fix or --diff: add one of them")
    options = Options(
        paths=list(paths), root=root, config=config,
        select=split_rule_ids(select, "--select"), ignore=split_rule_ids(ignore, "--ignore"),
        inline_suppressions=not no_inline_suppressions,
        use_cache=not no_cache, allow_empty=allow_empty, hook=hook,
    )
    if not paths and not hook:
        raise ExitError("no PATH given: name the files or directories to lint (e.g. `exlint check .`)")
    if any(not path.strip() for path in paths):  # an unset shell variable ("$DIR"): not the working directory
        raise ExitError("an empty PATH was given (an unset variable?): name the files or directories to lint")
    if write_baseline and (outputs or compare):  # it writes no report: ignored, they would pass silently
        given = "--output" if outputs else "--compare"
        raise ExitError(f"--write-baseline records the baseline and writes no report, so {given} would do nothing: "
                        f"drop {given}, or run check again for the report")
    if not write_baseline:  # a pairing that cannot be meant is refused before any work (and before --fix)
        _check_reports(formats, outputs, compare, show_diff)
    # a report or baseline may replace only what exlint wrote: refused before any work (and before --fix)
    read_baseline_path = None if write_baseline else baseline
    refuse_outputs([] if write_baseline else outputs, write_baseline, _inputs(paths, config, read_baseline_path))
    from linter.progress import Progress

    progress = Progress(enabled=not quiet)
    try:
        _check(options, progress, formats, outputs, fail_on, baseline, write_baseline, read_baseline_path, compare,
               verbose, colour_mode, fix, unsafe_fixes, show_diff)
    except KeyboardInterrupt:
        progress.done(summary=False)  # the line of the progress display goes; the group says why
        raise


def _check_reports(formats, outputs, compare, show_diff) -> None:
    """ExitError for reports that cannot be routed, or a --compare no report shows
    (only the html report has a new-and-fixed section; ignoring it would pass
    silently for a comparison that was never made)."""
    to_files, stdout_formats = routed(formats, outputs, stdout=not show_diff)
    if compare and "html" not in [fmt for fmt, _ in to_files] + stdout_formats:
        raise compare_without_html(compare, "--output FILE.html")


def _check(options, progress, formats, outputs, fail_on, baseline, write_baseline, read_baseline_path, compare,
           verbose, colour_mode, fix, unsafe_fixes, show_diff) -> None:
    from linter.baseline import BaselineError, apply_baseline, read_baseline
    from linter.baseline import write_baseline as record_baseline
    from linter.config import ConfigError
    from linter.loading import InputError
    from linter.policy.packs import PackError
    from linter.runner import lint

    paths = options.paths
    previous = _compared(compare, progress) if compare else None  # a bad one refused before --fix edits a file
    try:
        result = lint(options, progress)
    except (InputError, ConfigError, PackError) as exc:
        progress.done(summary=False)
        raise ExitError(str(exc)) from None
    progress.clear()
    inputs = _inputs(paths, options.config, read_baseline_path, result)
    refuse_outputs([] if write_baseline else outputs, write_baseline, inputs)
    _explain_run(result, verbose)
    write_failed = False
    left = None  # --diff: the findings --fix would leave, which the exit code follows (the report is the disk's)
    if fix or show_diff:  # see docs/autofix.md
        from linter.fixing.engine import run as run_fixes

        try:
            fixed = run_fixes(result, options, write=not show_diff,
                              echo=lambda m: click.echo(_printable(m), err=True),
                              out=lambda t: click.echo(t, nl=False), unsafe=unsafe_fixes)
        except (InputError, ConfigError, PackError) as exc:
            raise ExitError(str(exc)) from None
        result, write_failed = fixed.report, fixed.write_failed
        left = fixed.left if show_diff else None
    if write_baseline:
        from pathlib import Path

        try:
            record_baseline(Path(write_baseline), result.findings)
        except OSError as exc:
            raise ExitError(f"{write_baseline}: cannot write baseline: {exc.strerror or exc}; "
                            "choose another --write-baseline path") from None
        click.echo(f"exlint: recorded {len(result.findings)} finding(s) in {write_baseline}", err=True)
        sys.exit(0)
    if baseline:
        from pathlib import Path

        try:
            entries = read_baseline(Path(baseline))
        except BaselineError as exc:
            raise ExitError(str(exc)) from None
        outcome = apply_baseline(result.findings, entries)
        if left is not None:
            left = apply_baseline(left, entries).kept
        result.findings = outcome.kept
        result.baseline_suppressed = outcome.suppressed
        # a recorded finding is fixed only if this run could have raised it: of a file linted
        # (the hook lints only the staged files) and a rule --select/--ignore kept; an entry
        # names its file relative to the config repo root (fingerprints.file_identity)
        from linter.fingerprints import file_identity

        looked_at = set(result.reported_files) | {file_identity(f) for f in result.reported_files}
        outcome.fixed = [entry for entry in outcome.fixed
                         if (entry.get("file") is None or entry.get("file") in looked_at)
                         and (not isinstance(entry.get("rule"), str)
                              or result.config.enabled(entry["rule"], options.select, options.ignore))]
        result.baseline_fixed = outcome.fixed
        for entry in outcome.fixed:
            from linter.textsafe import printable

            where = entry.get("file") or "<estate>"
            click.echo(printable(f"exlint: fixed since the baseline: {where}: {entry.get('rule')} {entry.get('message')}"),
                       err=True)
        click.echo(f"exlint: baseline: {outcome.suppressed} known finding(s) not reported, "
                   f"{len(outcome.fixed)} fixed", err=True)
    if compare:
        result.compare_findings = previous
        result.compare_label = compare
    result.report_paths = list(paths)
    threshold = fail_on or result.config.fail_on or "error"
    result.fail_on = threshold  # the JUnit report fails test cases at this level only
    # with --diff, standard output holds the diff: reports go to their --output files only
    if outputs or not show_diff:
        write_reports(result, formats, outputs, progress, colour_mode, stdout=not show_diff, inputs=inputs)
    progress.done()
    gate = result if left is None else dataclasses.replace(result, findings=left)
    sys.exit(2 if write_failed else 1 if gate.failed(threshold) else 0)


def _compared(compare, progress) -> list:
    from linter.reports.html import CompareError, load_findings

    try:
        return load_findings(compare)
    except CompareError as exc:
        progress.done(summary=False)
        raise ExitError(str(exc)) from None


def _printable(message: str) -> str:
    from linter.textsafe import printable

    return printable(message)


def _explain_run(result, verbose: bool) -> None:
    """Standard error: notes always; with --verbose, where the configuration came from
    and each skipped file."""
    if verbose and result.discovery is not None:
        click.echo(f"exlint: {result.discovery.reason}", err=True)
    for note in result.notes:
        click.echo(f"exlint: note: {note}", err=True)
    if verbose:
        for path in result.skipped:
            click.echo(f"exlint: skipped {path}: not an exlint document", err=True)


def _load_rules_or_exit(config_path=None):
    from linter.config import ConfigError, find_config, read_config
    from linter.policy.packs import PackError, load_rules

    try:
        path = config_path or find_config(__import__("pathlib").Path.cwd())
        config = read_config(__import__("pathlib").Path(path)) if path else None
        return load_rules(config.rule_dirs if config else (), config.options if config else None)
    except (ConfigError, PackError) as exc:
        raise ExitError(str(exc)) from None


@cli.command(name="rules")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="table: one rule a line, fitted to the terminal width; json: every field, for scripts.")
@click.option("--config", type=click.Path(dir_okay=False), help="Configuration (for extra rule packs).")
@click.option("--self-test", is_flag=True,
              help="Run every rule's good and bad examples (built-in and your own packs); exit 1 on a failure.")
def rules_command(fmt, config, self_test):
    """List every rule: ID, severity, title and source."""
    from linter.docs import rule_summary

    rules = _load_rules_or_exit(config)
    if self_test:
        from linter.policy.examples import self_test as run_self_test

        failures = run_self_test(rules)
        for failure in failures:
            click.echo(f"FAIL {failure}", err=True)
        click.echo(f"{sum(len(r.examples.get('bad') or []) + len(r.examples.get('good') or []) for r in rules.values())}"
                   f" example(s) of {len(rules)} rule(s): {len(failures)} failure(s)")
        sys.exit(1 if failures else 0)
    listed = sorted(rules.values(), key=lambda r: r.id)  # by ID, as every catalog is read
    if fmt == "json":
        import json

        click.echo(json.dumps([rule_summary(r) for r in listed], indent=2, ensure_ascii=False))
        return
    for line in rules_table(listed, shutil.get_terminal_size((120, 24)).columns):
        click.echo(line)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def rules_table(rules, width: int) -> list[str]:
    """ID, severity, fix, title and source, each line within ``width``: the
    source is dropped, then the title shortened, when the terminal is narrow."""
    fixed = 8 + 1 + 8 + 1 + 6 + 1
    title_width = min(max(len(r.title) for r in rules), max(10, (width - fixed) * 3 // 5))
    source_width = width - fixed - title_width - 2
    show_source = source_width >= 12
    if not show_source:
        title_width = max(10, width - fixed)
    head = f"{'ID':<8} {'SEVERITY':<8} {'FIX':<6} {'TITLE':<{title_width}}" + ("  SOURCE" if show_source else "")
    lines = [head.rstrip()]
    for rule in rules:
        fix = rule.fix.get("safety", "unsafe") if rule.fixable else "-"
        line = f"{rule.id:<8} {rule.severity:<8} {fix:<6} {_fit(rule.title, title_width):<{title_width}}"
        if show_source:
            line += "  " + _fit(" ".join((rule.citation() or rule.source_text()).split()), source_width)
        lines.append(_fit(line.rstrip(), width))
    return lines


@cli.command()
@click.argument("rule_id")
@click.option("--config", type=click.Path(dir_okay=False), help="Configuration (for extra rule packs).")
def explain(rule_id, config):
    """Explain a rule: what it checks, why, source, examples, how to fix."""
    from linter.docs import RULE_FAILED_TEXT, RULE_FAILED_TITLE, explain_text

    rule_id = rule_id.strip()
    if not rule_id:  # an empty prefix would name every rule: a usage slip, as an empty --select is
        raise click.UsageError("RULE_ID is empty: name a rule (DUP001) or a prefix (DUP); `exlint rules` lists them")
    rules = _load_rules_or_exit(config)
    rule = rules.get(rule_id.upper())
    if rule is None and rule_id.upper() == RULE_FAILED:
        click.echo(RULE_FAILED_TEXT, nl=False)
        return
    family = sorted(rid for rid in [*rules, RULE_FAILED] if rid.startswith(rule_id.upper())) if rule is None else []
    if family:  # a prefix (`explain DUP`): the rules it names, one line each, as `rules` lists them
        for rid in family:
            if rid == RULE_FAILED:
                click.echo(f"{rid}  {'error':<8} {RULE_FAILED_TITLE} (built in)")
            else:
                click.echo(f"{rid}  {rules[rid].severity:<8} {rules[rid].title}")
        click.echo(f"\n{len(family)} rule(s); exlint explain {family[0]} for one of them")
        return
    if rule is None:
        from linter.config import did_you_mean

        # the same suggestions as --select and .exlint.yaml give (DUP999: DUP005 or DUP004)
        hint = did_you_mean(rule_id.upper(), list(rules) + [RULE_FAILED]) or "; see `exlint rules`"
        raise ExitError(f"unknown rule {rule_id!r}{hint}")
    click.echo(explain_text(rule), nl=False)


@cli.command()
@click.argument("kind", required=False)
def schema(kind):
    """Print the JSON Schema of a document kind (or of any document), for editors."""
    import json

    from linter.schema import KINDS, bundled_schema

    if kind is not None:
        match = {k.lower(): k for k in KINDS}.get(kind.lower())
        if match is None:
            raise ExitError(f"unknown kind {kind!r}; known kinds: {', '.join(KINDS)}")
        kind = match
    click.echo(json.dumps(bundled_schema(kind), indent=2, ensure_ascii=False))


def _register_optional_commands() -> None:
    # these modules import only Click at load time (no PySpark, no XML parser)
    from linter.engines.spark.command import estate_command
    from linter.generate import generate_command
    from linter.importers.command import import_command

    for command in (estate_command, generate_command, import_command):
        cli.add_command(command)


_register_optional_commands()


def main() -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # A script's background job starts with Ctrl-C ignored; PySpark would take it back
        # once its context exists, so `exlint estate` ignored an interrupt only in its first
        # seconds. One behaviour: an interrupt always stops exlint (exit 130).
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        cli(prog_name="exlint")
    except KeyboardInterrupt:  # before or after a command ran (the group handles the command itself)
        Interrupted(INTERRUPTED).show()
        sys.exit(Interrupted.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
