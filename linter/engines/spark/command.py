"""`exlint estate`: the Spark job over an estate-wide inventory. Importing this
module does not import PySpark (exlint check never does); the command says how
to install it when it is missing."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from linter.findings import HIDDEN_UNREAD_NOTE, SEVERITY_RANK
from linter.textsafe import printable
from linter.engines.spark.threads import was_interrupted
from linter.options import ExitError, compare_without_html, fail_on_option, ignore_option, \
    no_inline_suppressions_option, select_option, split_rule_ids

REPORT_FORMATS = ("sarif", "junit", "github")  # check's renderers, over the estate's findings (_print_report)


@click.command(name="estate")
@click.argument("inventory", nargs=-1, required=True, type=click.Path())
@click.option("--master", help="Spark master URL (spark://host:7077, yarn, k8s://...); default: embedded local[*].")
@click.option("--remote", help="Spark Connect URL (sc://host:15002).")
@click.option("--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Extra Spark setting (repeatable).")
@click.option("--input-format", type=click.Choice(["yaml", "jsonl", "parquet"]),
              help="Read every file given by name in this format (default: by suffix).")
@click.option("--output", "output_dir", type=click.Path(file_okay=False),
              help="Write the findings here, partitioned by rule (committed atomically).")
@click.option("--output-format", type=click.Choice(["parquet", "jsonl"]), default="parquet", show_default=True,
              help="File format of the findings written to --output.")
@click.option("--format", "fmt", type=click.Choice(["summary", "text", "json"] + list(REPORT_FORMATS)),
              default="summary", show_default=True,
              help="What to print: the summary table, or every finding as `exlint check` does (text, json, "
                   "sarif, junit, github).")
@click.option("--report", type=click.Path(dir_okay=False), help="Write the HTML report of the estate here.")
@click.option("--compare", type=click.Path(exists=True),
              help="Earlier findings (an --output directory, a --format json file or a JSON Lines file): the report "
                   "shows new and fixed.")
@fail_on_option
@select_option
@ignore_option
@click.option("--config", type=click.Path(dir_okay=False), help="Configuration file (default: the nearest .exlint.yaml or [tool.exlint] above the first inventory path, as check finds it).")
@no_inline_suppressions_option
@click.option("-q", "--quiet", is_flag=True, help="No progress display (on a terminal) and no progress lines "
              "(in a log).")
@click.option("--debug", is_flag=True, help="Show Spark's own output and full traces on the terminal instead of "
              "one line and a log file.")
def estate_command(inventory, master, remote, confs, input_format, output_dir, output_format, fmt, report, compare,
                   fail_on, select, ignore, config, no_inline_suppressions, quiet, debug):
    """Lint an estate-wide inventory (YAML tree, JSON Lines or Parquet) on Apache Spark."""
    from linter.engines.spark.failures import new_log_path

    log = None if debug else new_log_path()
    if log is not None:
        _log_py4j_to(log)
    state: dict = {}  # what the run got to: its progress display, whether it started Spark
    try:
        code = _estate(inventory, master, remote, confs, input_format, output_dir, output_format, fmt, report,
                       compare, fail_on, select, ignore, config, no_inline_suppressions, quiet, log, state)
    except KeyboardInterrupt:
        _interrupted(state)
    except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
        _end_progress(state)
        raise
    except BrokenPipeError:  # the reader of standard output went away (`| head`): no Spark failure
        _end_progress(state)
        if state.get("started_spark"):
            _stop_spark(quiet=True)
        raise  # one line and exit 2, as for check (linter.cli.ExlintGroup)
    except Exception as exc:  # noqa: BLE001 - one line and a log instead of a trace (--debug: the trace)
        if was_interrupted(exc):
            _interrupted(state)
        if debug:
            raise
        _fail(exc, log, state)
    if state.get("started_spark"):  # a cluster's master hears the application end; a local JVM is killed
        _stop_spark(quiet=quiet)
    sys.exit(code)


def _log_py4j_to(log) -> None:
    """Py4J logs a trace of every call the JVM did not answer (Ctrl-C, a lost
    driver) through `logging`, partly with the module-level functions, which
    would set up a handler on standard error: the root logger writes to the log,
    and so does a thread of the run that fails (Python prints its trace)."""
    import logging
    import threading

    handler = logging.FileHandler(log, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)

    def thread_failed(args) -> None:  # a thread of the run (planning, a stopper) meeting a JVM that is gone
        if args.exc_type is not SystemExit:
            trace = (args.exc_type, args.exc_value, args.exc_traceback)
            logging.getLogger("exlint.threads").error("thread %s", getattr(args.thread, "name", "?"), exc_info=trace)

    threading.excepthook = thread_failed
    try:  # PySpark's accumulator server prints a dropped connection's trace on standard error
        from pyspark import accumulators
    except ImportError:
        return

    def handle_error(server, request, client_address):
        logging.getLogger("pyspark.accumulators").exception("accumulator connection from %s", client_address)

    for name in ("AccumulatorTCPServer", "AccumulatorUnixServer"):
        if hasattr(accumulators, name):
            getattr(accumulators, name).handle_error = handle_error


def _end_progress(state: dict) -> None:
    if state.get("progress") is not None:
        state["progress"].done(summary=False)


def _fail(exc: BaseException, log, state: dict) -> None:
    from linter.engines.spark.failures import append_trace, describe, is_spark_failure

    _end_progress(state)
    append_trace(log, exc)
    if is_spark_failure(exc):
        message = describe(exc)
    else:
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        message = f"internal error ({type(exc).__name__}: {first}); please report it with the log"
    if state.get("started_spark"):
        _stop_spark(keep_classes=False)
    raise ExitError(f"{message} (details: {log})")


def _interrupted(state: dict) -> None:
    """Ctrl-C: Spark's jobs were cancelled by PySpark's handler; stop Spark and its
    JVM, leave no process and no partial output behind (the output and the report
    are written atomically), say so in one line (naming what was committed before the
    Ctrl-C, if anything), exit 130."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the clean-up
    _end_progress(state)
    if state.get("started_spark", True):
        _stop_spark(keep_classes=False)  # (it removes what tasks wrote into an abandoned --output staging)
    else:  # the user's own Spark runs on: its cancelled tasks have ended by now or never will
        from linter.engines.spark.output import remove_abandoned

        remove_abandoned()
    written = state.get("written")
    if written:  # each was committed whole before the Ctrl-C: saying "nothing written" would be false
        click.echo(f"exlint: interrupted: Spark stopped; written in full before the interrupt: {', '.join(written)}; "
                   "nothing else written", err=True)
    else:
        click.echo("exlint: interrupted: Spark stopped, nothing written", err=True)
    sys.exit(130)


def _stop_spark(timeout: float = 20.0, keep_classes: bool = True, quiet: bool = False) -> None:
    """End the session (if any) and the JVM this process started with the Python
    workers it started (driver_jvm.end); ``keep_classes``: a first run may write
    the JVM's class-data archive (not after Ctrl-C or a failure)."""
    import threading

    from linter.engines.spark import driver_jvm
    from linter.engines.spark.session import jvm_process

    def stop_context(limit: float) -> None:
        def stop():
            try:  # the context, not the session: the active session is the main thread's
                from pyspark import SparkContext

                context = SparkContext._active_spark_context
                if context is not None:
                    context.stop()
            except Exception:  # noqa: BLE001 - the JVM may already be gone
                pass

        stopper = threading.Thread(target=stop, daemon=True)
        stopper.start()
        stopper.join(limit)

    driver_jvm.end(jvm_process(), stop_context, timeout, keep_classes, quiet)
    from linter.engines.spark.output import remove_abandoned

    remove_abandoned()  # Spark is stopped: no task writes into a given-up staging folder any more


def _estate(inventory, master, remote, confs, input_format, output_dir, output_format, fmt, report, compare,
            fail_on, select, ignore, config, no_inline_suppressions, quiet, log, state: dict) -> int:
    from linter.config import ConfigError, read_config
    from linter.engines.spark.session import SessionError, SessionOptions, build_session, check_java, \
        parse_conf, require_pyspark
    from linter.loading import InputError, display_paths
    from linter.policy.packs import PackError
    from linter.progress import Progress
    from linter.runner import OTHER_ROOT_NOTE, load_checked_rules, nothing_to_lint

    try:
        version = require_pyspark()
        check_java(version)
        options = SessionOptions(master=master, remote=remote, conf=parse_conf(confs),
                                 submitted=os.environ.get("EXLINT_SPARK_SUBMITTED") == "1", jvm_log=log)
        # paths in several config repos (`exlint estate east/ west/`) are an estate each, as
        # `check` lints each repo with its own documents; one configuration for all of them
        groups = _by_root(inventory)
        if config is None:  # as `exlint check` finds it: the nearest .exlint.yaml (or [tool.exlint]) upward
            configurations = _one_configuration(groups)
        else:  # the one given, for every repo
            configurations = [read_config(Path(config))] * len(groups)
        configuration = configurations[0]
        # every rule ID named is checked first, as `check` does: a typo must not pass the gate
        rules = load_checked_rules(configuration, split_rule_ids(select, "--select"), split_rule_ids(ignore, "--ignore"))
    except (SessionError, ConfigError, PackError) as exc:
        raise ExitError(str(exc)) from None
    from linter.engines.spark import job
    from linter.engines.spark.executors import ExecutorError, check_executors
    from linter.engines.spark.driver_jvm import SHORT_RUN_BYTES
    from linter.engines.spark.inventory import discover_inputs, input_bytes, text_bytes
    from linter.engines.spark.output import OutputError, check_target, write_findings
    from linter.engines.spark.status import follower

    if output_dir:  # refused before Spark starts: nothing of the user's is ever replaced
        try:
            check_target(output_dir, inventory)
        except OutputError as exc:
            raise ExitError(str(exc)) from None
    if report == "-":
        raise ExitError("--report -: the HTML report is written to a file; name one, such as estate.html")
    if report:  # the same for the HTML report: an input, or a file exlint did not write, is refused
        _check_report_path(report, inventory)
    if compare and not report:
        raise compare_without_html(compare, "--report FILE.html")
    if compare:  # an unreadable --compare is refused now, not after the job
        compare = _compare_input(compare)
    # a Spark job reports nothing for minutes: the ticker keeps the elapsed time moving,
    # and in a log a line every HEARTBEAT seconds says the job is alive and where it is
    progress = state["progress"] = Progress(enabled=not quiet, ticker=True, heartbeat=HEARTBEAT)
    try:
        progress.stage("load", unit="files")
        other_roots: list[str] = []  # config repos of their own below a walked folder: not read, as in check
        included: list[set] = [set() for _ in groups]  # the include patterns that matched a walked file
        inputs = [found for estate, paths in enumerate(groups)
                  for found in discover_inputs(paths, estate=estate, fmt=input_format, config=configurations[estate],
                                               other_roots=other_roots, included=included[estate])]
        for other in display_paths(sorted(set(other_roots))):
            click.echo(f"exlint: note: {OTHER_ROOT_NOTE.format(path=other)}", err=True)
        for note in _unmatched_includes(configurations, included):
            click.echo(f"exlint: note: {note}", err=True)
        if not inputs:
            raise ExitError(f"no inventory files (*.yaml, *.jsonl, *.parquet) under {', '.join(inventory)}")
        progress.advance(len(inputs))
        progress.stage("start Spark")
        state["started_spark"] = not _spark_running()
        options.input_bytes = text_bytes(inputs)
        options.short_run = input_bytes(inputs) <= SHORT_RUN_BYTES
        spark = build_session(options)
        if not remote and not job.is_local(spark):
            progress.stage("check executors")
            check_executors(spark)
        run = job.run(spark, inputs, rules, configuration, split_rule_ids(select), split_rule_ids(ignore),
                      user_conf=options.conf, progress=progress, inline_suppressions=not no_inline_suppressions,
                      stages=follower(spark))
    except (SessionError, InputError, ExecutorError) as exc:
        progress.done(summary=False)
        if state.get("started_spark"):  # a JVM that did not start leaves its scratch directory
            _stop_spark(keep_classes=False)
        raise ExitError(str(exc)) from None
    try:
        stats = run.stats()
        if stats["skipped"] and not stats["documents"] and not configuration.allow_empty:
            # as `check`: a path holding only other tools' YAML is a wrong path, not a pass
            progress.done(summary=False)
            raise ExitError(nothing_to_lint(list(inventory), stats["skipped"], flag=False))
        findings = run.findings
        progress.stage("write", unit="findings")
        if output_dir:
            try:
                write_findings(findings.drop("_est"), output_dir, output_format, inventory)
            except OutputError as exc:
                raise ExitError(str(exc)) from None
            except Exception as exc:  # noqa: BLE001 - Spark's write errors are long Java traces
                from linter.engines.spark.failures import describe

                raise ExitError(f"{output_dir}: the findings could not be written: {describe(exc)}") from None
            state.setdefault("written", []).append(output_dir)
        summary = _summary(findings, run, placed=fmt == "summary")
        progress.advance(sum(summary["severity"].values()))
        progress.done()
        if report:
            _write_report(spark, run, rules, report, compare, summary)
            state.setdefault("written", []).append(report)
        threshold = fail_on or configuration.fail_on or "error"
        if fmt == "summary":
            click.echo(_summary_table(summary))
        elif fmt in REPORT_FORMATS:
            _print_report(findings, fmt, summary, rules, threshold, _report_root(groups))
        else:
            _print_findings(findings, fmt, summary)
        hidden, first = run.hidden_unread(configuration, split_rule_ids(select), split_rule_ids(ignore))
        if hidden:
            where = ":".join(str(first[k]) for k in ("file", "line", "column") if first[k] is not None)
            note = HIDDEN_UNREAD_NOTE.format(where=where, rule=first["rule"], by="--select/--ignore or the configuration",
                                             message=first["message"])
            more = f" ({hidden - 1} more such document(s))" if hidden > 1 else ""
            click.echo(f"exlint: note: {note}{more}", err=True)
        failed = threshold != "never" and any(
            SEVERITY_RANK[s] >= SEVERITY_RANK[threshold] and n for s, n in summary["severity"].items())
    finally:
        run.close()
    return 1 if failed else 0


def _by_root(paths) -> list[list[str]]:
    """The paths grouped by the config repo each belongs to, as `check` groups them."""
    from linter.runner import paths_by_root

    return [list(paths)] if len(paths) <= 1 else list(paths_by_root(paths).values())


def _one_configuration(groups: list[list[str]]):
    """The configuration of each group's config repo (the nearest .exlint.yaml or
    [tool.exlint] upward): one Spark job applies one set of rules and options, so
    repos configured differently are refused with the way out. Each keeps its own
    path: its include and exclude globs are relative to its own root."""
    from dataclasses import replace

    from linter.config import CONFIG_NAME, LOOKALIKE_NOTE, Config, discover_root, read_config
    from linter.loading import display_path

    discovered = [discover_root(Path(paths[0])) for paths in groups]
    found = [discovery.config for discovery in discovered]
    for path in sorted({path for discovery in discovered for path in discovery.lookalikes}):
        click.echo(f"exlint: note: {LOOKALIKE_NOTE.format(path=display_path(path), name=CONFIG_NAME)}", err=True)
    configurations = [read_config(Path(path)) if path else Config() for path in found]
    first = configurations[0]
    for path, other in zip(found[1:], configurations[1:]):
        if replace(other, path=None) != replace(first, path=None):
            names = ", ".join(str(p) if p else "(none)" for p in found)
            raise ExitError(f"these paths are in {len(groups)} config repos configured differently ({names}): "
                            "exlint estate applies one configuration per run; run it on each repo, or give "
                            "--config to apply one to all")
    return configurations


def _unmatched_includes(configurations, included: list[set]) -> list[str]:
    """check's note for an `include` pattern that matches no file of the repository (a
    typo that would otherwise lint nothing through it, silently). A pattern no walked file
    matched is looked for over the configuration's whole folder, as check looks over the
    repository: `exlint estate servers/` leaves another folder's pattern unmatched."""
    from linter.loading import discover, display_path
    from linter.runner import UNMATCHED_INCLUDE_NOTE, filter_files

    notes: list[str] = []
    for config, matched in zip(configurations, included):
        if not config.include or all(pattern in matched for pattern in config.include):
            continue
        if config.path is not None:  # the patterns are relative to its folder
            inventories: list[str] = []  # JSON Lines and Parquet files, as check's walk of the repository finds them
            files = discover([config.path.parent], other_roots=[], inventories=inventories)
            filter_files(files + [Path(path) for path in inventories], None, config, included=matched)
        base_shown = display_path(config.path.parent) if config.path is not None else "."
        for index, pattern in enumerate(config.include):
            note = UNMATCHED_INCLUDE_NOTE.format(pattern=pattern, where=config.where("include", index), root=base_shown)
            if pattern not in matched and note not in notes:
                notes.append(note)
    return notes


def _spark_running() -> bool:
    """A SparkContext already runs in this process (a notebook, the test suite)."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    return SparkContext._active_spark_context is not None


# seconds between the progress lines written where standard error is not a terminal
HEARTBEAT = 10.0


def _tables(run) -> dict:
    """The model tables the report and summary place findings with."""
    from linter.engines.spark.report import PLACED_KINDS

    return {name: run.model.spark.table(run.model.view(name)) for name in PLACED_KINDS}


def _firsts(run) -> dict:
    """The first record of each name of the kinds placing looks up (kept by the
    model, shared with the rules that navigate to them)."""
    from linter.engines.spark.report import PLACING_COLUMNS

    return {kind: run.model.dedup_view(kind) for kind in PLACING_COLUMNS}


def _summary(findings, run, placed: bool = True) -> dict:
    """The findings' counts, computed in Spark; only the small grouped results are
    collected. ``placed``: by rule, AD site and version as well (the summary
    format's table, _placed_counts); otherwise by severity only (what the exit code
    and the json and text totals read), without joining every finding to its
    server (3.3 s of a fresh 10,000-server run)."""
    out = {"severity": {"error": 0, "warning": 0, "info": 0}, "rule": [], "site": [], "version": []}
    if placed:
        _placed_counts(findings, run, out)
    else:
        for row in findings.groupBy("severity").count().collect():
            out["severity"][row["severity"]] = row["count"]
    out["stats"] = run.stats()
    return out


def _placed_counts(findings, run, out: dict) -> None:
    """Fills ``out`` by severity, rule, AD site and version: placing and counting
    in one statement."""
    from linter.engines.spark.report import PLACED_KINDS, placed_sql

    view = run.model.alias() + "findings"
    findings.createOrReplaceTempView(view)
    run.model.registered.append(view)
    # a row per finding
    placed = placed_sql(view, {name: run.model.view(name) for name in PLACED_KINDS}, _firsts(run))
    # the four counts in one query (one Spark job): a grouping set each, told apart by
    # which columns it groups (grouping_id's bits are 1 for the columns it does not)
    sets = {0b1011: "severity", 0b0011: "rule", 0b1101: "site", 0b1110: "version"}
    rows = run.model.spark.sql(
        f"SELECT `rule`, `severity`, `site`, `version`, grouping_id(`rule`, `severity`, `site`, `version`) AS `g`, "
        f"count(1) AS `n` FROM ({placed}) AS `placed` "
        f"GROUP BY GROUPING SETS ((`rule`, `severity`), (`severity`), (`site`), (`version`))").collect()
    for row in rows:
        which = sets[row["g"]]
        if which == "severity":
            out["severity"][row["severity"]] = row["n"]
        elif which == "rule":
            out["rule"].append((row["rule"], row["severity"], row["n"]))
        else:
            out[which].append((row[which], row["n"]))
    out["rule"].sort(key=lambda r: (-r[2], r[0]))
    for dim in ("site", "version"):
        out[dim].sort(key=lambda r: (-r[1], r[0]))


def _summary_table(summary: dict) -> str:
    stats = summary["stats"]
    skipped = f" ({stats['skipped']} skipped: not exlint documents)" if stats.get("skipped") else ""
    lines = [f"inventory: {stats['files']} file(s){skipped}, {stats['records_in']} record(s) in = "
             f"{stats['linted']} linted + {stats['records_in'] - stats['linted']} reported as malformed",
             f"findings: {summary['severity']['error']} error(s), {summary['severity']['warning']} warning(s), "
             f"{summary['severity']['info']} info", ""]
    lines.append(f"{'RULE':<8} {'SEVERITY':<8} {'COUNT':>8}")
    lines += [f"{rule:<8} {severity:<8} {count:>8}" for rule, severity, count in summary["rule"]]
    for dim, title in (("site", "AD SITE"), ("version", "VERSION")):
        lines += ["", f"{title:<32} {'COUNT':>8}"]
        lines += [f"{printable(label):<32} {count:>8}" for label, count in summary[dim][:30]]
    return "\n".join(lines)


# Findings a part of the printed output holds at most: the JVM sends each part to this
# process whole, so one part of every finding (the one-partition layouts) held them all in
# the driver's heap at once (1.2 million findings of ~2 KB at 500 servers ran it out)
FINDINGS_PER_PART = 50_000


def _finding_objects(findings, count: int):
    from linter.findings import Entity, Finding

    for row in ordered_findings(findings, count).toLocalIterator():
        entity = Entity(row["entity_kind"], row["entity_name"]) if row["entity_kind"] else None
        yield Finding(row["rule"], row["severity"], row["message"], row["file"], row["line"], row["column"],
                      row["path"], entity)


def ordered_findings(findings, count: int):
    """The findings in the order `check` prints them, in parts of at most
    FINDINGS_PER_PART (``count``: how many there are)."""
    columns = ["rule", "severity", "message", "file", "line", "column", "path", "entity_kind", "entity_name"]
    order = [findings["file"].asc_nulls_first(), findings["line"].asc_nulls_first(),
             findings["column"].asc_nulls_first(), findings["rule"].asc_nulls_first(),
             findings["path"].asc_nulls_first(), findings["entity_kind"].asc_nulls_first(),
             findings["entity_name"].asc_nulls_first(), findings["message"].asc_nulls_first()]
    parts = max(1, -(-count // FINDINGS_PER_PART))
    # ranges in order, each sorted: read one part after another, the whole is in order
    return findings.select(*columns).repartitionByRange(parts, *order).sortWithinPartitions(*order)


def _print_findings(findings, fmt: str, summary: dict) -> None:
    """The same finding objects as `exlint check` (streamed, not collected at once)."""
    import json

    from linter import __version__

    stats = summary["stats"]
    count = sum(summary["severity"].values())
    if fmt == "json":
        click.echo('{"version": "1", "tool": ' + json.dumps({"name": "exlint", "version": __version__})
                   + ', "findings": [', nl=False)
        for index, finding in enumerate(_finding_objects(findings, count)):
            click.echo(("," if index else "") + "\n  " + json.dumps(finding.as_dict(), ensure_ascii=False), nl=False)
        body = {"files": stats["files"], "documents": stats["documents"], **summary["severity"],
                "records_in": stats["records_in"], "linted": stats["linted"], "skipped": stats["skipped"]}
        click.echo("\n], \"summary\": " + json.dumps(body) + "}")
        return
    for finding in _finding_objects(findings, count):
        where = f"{finding.file}:{finding.line or 0}:{finding.column or 0}" if finding.file else "<estate>"
        # control characters escaped as check's text report does: a name cannot forge a line
        click.echo(printable(f"{where}: {finding.rule} [{finding.severity}] {finding.message}"))
    counts = summary["severity"]
    skipped = f"; {stats['skipped']} file(s) skipped: not exlint documents" if stats.get("skipped") else ""
    click.echo(f"\n{stats['files']} file(s), {stats['documents']} document(s): {counts['error']} error(s), "
               f"{counts['warning']} warning(s), {counts['info']} info{skipped}")


@dataclass
class _ReportedRun:
    """What check's SARIF, JUnit and GitHub renderers read of a run (linter.runner.Result):
    the findings in check's order, the rules, the --fail-on level. The inventory's text is
    not kept by the job: SARIF regions carry no snippet, and JUnit lists the files that
    have findings (check lists every file linted)."""
    findings: list
    rules: dict
    fail_on: str
    loaded: tuple = ()
    reported_files: tuple = ()
    root: str | None = None

    def counts(self) -> dict[str, int]:
        from linter.findings import severity_counts

        return severity_counts(self.findings)


def _report_root(groups: list[list[str]]) -> str | None:
    """Where SARIF's ``%SRCROOT%`` points, as check finds it: the config repo (the nearest
    .exlint.yaml, [tool.exlint] or git work tree) of the inventory, the folder holding all of
    them for several; None (the renderer's own fallback) when a path lies in no repository."""
    from linter.config import discover_root

    roots = [discover_root(Path(paths[0]), named=True).root for paths in groups]
    if not roots or any(root is None for root in roots):
        return None
    return os.path.commonpath([str(root) for root in roots])


def _print_report(findings, fmt: str, summary: dict, rules: dict, threshold: str, root: str | None = None) -> None:
    """``--format sarif|junit|github``: check's renderer over the estate's findings. Each is
    one document, so the findings are collected first (``text`` and ``json`` stream)."""
    from linter.reports import renderer
    from linter.textsafe import valid_unicode

    collected = list(_finding_objects(findings, sum(summary["severity"].values())))
    click.echo(valid_unicode(renderer(fmt)(_ReportedRun(collected, rules, threshold, root=root))), nl=False)


def _check_report_path(path: str, inventory) -> None:
    from linter.reports.ownership import OutputRefused, check_output

    inputs = [os.path.join(root, name) for item in inventory
              for root, _, names in (os.walk(item) if os.path.isdir(item) else [("", None, [item])]) for name in names]
    try:
        check_output(path, "--report", inputs)
    except OutputRefused as exc:
        raise ExitError(str(exc)) from None
    except OSError as exc:
        raise ExitError(f"{path}: cannot write the report there: {exc.strerror or exc}") from None


def _write_report(spark, run, rules, path: str, compare: "_Compare | None", summary: dict) -> None:
    from linter.atomic import atomic_write
    from linter.engines.spark.report import compare_frames, report_data
    from linter.reports.html import render_html

    tables = _tables(run)
    comparison = None
    if compare:
        try:
            previous = _previous_findings(spark, compare)
            comparison = compare_frames(run.findings, previous, label=compare.label)
        except ExitError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bad file in the directory: Spark's long Java trace
            from linter.engines.spark.failures import describe

            raise ExitError(f"--compare {compare.label}: cannot read the earlier findings: {describe(exc)}") from None
    stats = summary["stats"]
    data = report_data(run.findings, tables, rules, comparison=comparison, firsts=_firsts(run),
                       meta={"scope": {"files": stats["files"], "documents": stats["documents"], "paths": [],
                                       "records_in": stats["records_in"], "linted": stats["linted"]}})
    try:
        _check_report_path(path, ())  # again: the job ran for minutes
        atomic_write(path, render_html(data).encode("utf-8"), create=True, special=True, follow=True)
    except OSError as exc:
        raise ExitError(f"{path}: cannot write the report: {exc.strerror or exc}") from None


class _Compare:
    """--compare, checked before Spark starts: ``path`` (absolute) and, unless
    Spark reads it (a directory exlint estate wrote, or of Parquet files), the
    earlier findings read by the reader `exlint check --compare` uses."""

    def __init__(self, label: str, path: Path, files: list, findings=None):
        self.label, self.path, self.files, self.findings = label, path, files, findings


def _compare_input(location: str) -> _Compare:
    from linter.engines.spark.output import MARKER
    from linter.reports.html import CompareError, findings_files, load_findings
    from linter.suffixes import PARQUET_SUFFIXES

    path = Path(location).resolve()  # Spark reads a file:// URI, which a relative path has not
    try:
        files = findings_files(path)
        spark_reads = path.is_dir() and ((path / MARKER).is_file()
                                         or any(f.suffix.lower() in PARQUET_SUFFIXES for f in files))
        findings = None if spark_reads else load_findings(path)
    except CompareError as exc:
        raise ExitError(f"--compare: {str(exc).replace(str(path), location, 1)}") from None
    return _Compare(location, path, files, findings)


def _previous_findings(spark, compare: _Compare):
    """An earlier run's findings: an --output directory (Parquet or JSON Lines, read
    by Spark), or what `exlint check --compare` reads (a JSON or JSON Lines file)."""
    from pyspark.sql import functions as F

    from linter.suffixes import PARQUET_SUFFIXES

    columns = ["rule", "severity", "message", "file", "line", "column", "path", "entity_kind", "entity_name"]
    schema = ("rule string, severity string, message string, file string, line bigint, `column` bigint, "
              "path string, entity_kind string, entity_name string")
    if compare.findings is None:  # a directory: its findings files, rule=ID/ partitions read as the rule column
        # the directory, not its files: Spark's listing reads rule=ID/ names (unescaped) as the rule column
        if any(f.suffix.lower() in PARQUET_SUFFIXES for f in compare.files):
            frame = spark.read.option("pathGlobFilter", "*.{parquet,parq}").parquet(compare.path.as_uri())
        else:
            frame = spark.read.option("pathGlobFilter", "*.{json,jsonl,ndjson}").json(compare.path.as_uri())
        if "rule" not in frame.columns:
            raise ExitError(f"--compare {compare.label}: not exlint findings (no rule column and no rule=ID "
                            "directories); give the directory an earlier `exlint estate --output` wrote")
        for column in columns:
            if column not in frame.columns:
                frame = frame.withColumn(column, F.lit(None).cast("string"))
        return frame.select(*columns)
    rows = [(f.rule, f.severity, f.message, f.file, f.line, f.column, f.path,
             f.entity.kind if f.entity else None, f.entity.name if f.entity else None) for f in compare.findings]
    return spark.createDataFrame(rows, schema)
