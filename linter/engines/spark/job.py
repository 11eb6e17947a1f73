"""The estate job: inventory -> model -> every enabled rule -> one DataFrame of
findings with the configuration applied (selection, severity overrides).

The same steps as ``linter.runner.lint`` + ``LocalEngine.run``, on Spark.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from linter.engines.spark.compile import CompileError
from linter.engines.spark.forms import FIRED, place
from linter.engines.spark.inventory import Inventory, InputFile, read_inventory
from linter.engines.spark.model import Model, keep, persisted_count, release_persisted
from linter.engines.spark.records import FINDING, local_frame, spark_schema
from linter.engines.spark.session import LARGER_ONE_PARTITION_CONF, MANY_PARTITIONS_CONF, ONE_PARTITION_CONF, \
    ONE_PARTITION_MAX_RECORDS, INTERPRETED_CHECKED_ROWS, SMALL_CONF, SMALL_RECORDS, RuntimeConf, is_connect, \
    parallelism
from linter.engines.spark import sql_warmup
from linter.engines.spark.sqltext import q, string
from linter.engines.spark import threads
from linter.engines.spark.threads import in_threads
from linter.findings import RULE_FAILED, UNREAD_HIDDEN, rule_failed_message
from linter.forms import FORMS
from linter.policy.packs import Rule
from linter.suppressions import UNUSED_MESSAGE, UNUSED_RULE, unknown_rule_message

BUILTIN_IDS = (RULE_FAILED, "EXL001", "EXL002", "EXL003", "EXL004", "EXL005")
COLUMNS = ", ".join(q(name) for name, _ in FINDING)  # a finding row's columns, in order
FIRED_COLUMNS = ", ".join(q(name) for name in FIRED)  # a rule query's row's columns, in order


@dataclass
class EstateRun:
    """A run's results and what it set and kept; job.run fills it as it goes, so a run
    that failed part way has no findings, model or inventory yet (None)."""
    tuning: RuntimeConf  # session settings to restore on close; its session is the run's
    findings: object = None  # persisted DataFrame (records.FINDING columns)
    inventory: Inventory | None = None
    model: Model | None = None
    failures: list = field(default_factory=list)  # (rule, reason): checks Spark could not compile
    rdds_before: set | None = None  # cached RDDs that existed before the run (kept on close)
    persisted_before: int = 0  # model.persisted_count() when the run began

    def stats(self, est: int | None = None) -> dict:
        keys = ("files", "documents", "records_in", "linted", "skipped")
        picked = [v for k, v in self.inventory.stats.items() if est is None or k == est]
        return {k: sum(s[k] for s in picked) for k in keys}

    def hidden_unread(self, config, select=(), ignore=()) -> tuple[int, dict | None]:
        """How many of the parse's findings that keep a document from being read
        (UNREAD_HIDDEN) --select, --ignore or the configuration hide, and the first
        of them (file, line, column, rule, message); one Spark job, only when one
        of those rules is hidden."""
        hidden = [rule for rule in UNREAD_HIDDEN if not config.enabled(rule, select, ignore)]
        if not hidden or self.inventory is None:
            return 0, None
        F = _F()
        first = F.struct(*[F.col(c) for c in ("file", "line", "column", "rule", "message")])
        row = (self.inventory.findings.filter(F.col("rule").isin(hidden))
               .agg(F.count(F.lit(1)).alias("n"), F.min(first).alias("first")).collect()[0])
        return row["n"], (row["first"].asDict() if row["n"] else None)

    def close(self) -> None:
        """Restore the session's settings and drop what the run kept (also what a run
        that failed part way kept)."""
        self.tuning.restore()
        release_persisted(self.persisted_before)  # before their views, the latest first
        try:
            self.findings.unpersist()
        except Exception:
            pass
        if self.model is not None:
            self.model.unpersist()
        if self.inventory is not None:
            self.inventory.unpersist()
        if self.rdds_before is None:
            return
        try:  # local checkpoints and persisted tables of this run
            spark = self.tuning.session
            persistent = spark.sparkContext._jsc.sc().getPersistentRDDs()
            for rdd_id in list(persistent.keySet().toList()):
                if rdd_id not in self.rdds_before:
                    persistent.get(rdd_id).unpersist(False)
        except Exception:
            pass


def _F():
    from pyspark.sql import functions

    return functions


def rule_findings(model: Model, rules: dict[str, Rule], keep_named: bool = True) -> tuple[list[str], list]:
    """Queries (SQL text) for the findings of every check, and the checks that could not compile;
    ``keep_named``: the views they read more than once built too (Model.keep_named), else left
    to the caller (Model.named_views lists them)."""
    parts, failures = [], []
    predicates: dict[str, list] = {}
    for rule in rules.values():
        for check in rule.checks:
            if check.form == "predicate":
                predicates.setdefault(check.table, []).append((rule, check))
                continue
            try:
                parts.extend(FORMS[check.form].spark(model, rule, check))
            except CompileError as exc:
                failures.append((rule.id, str(exc)))
    # the predicates of a table are one pass over it (Deequ-style): one projection
    for table, checks in predicates.items():
        parts.extend(FORMS["predicate"].spark_batch(model, table, checks, failures))
    model.flush_items()  # the item arrays the parts read, each list's paths gathered in one pass
    if keep_named:
        model.keep_named()  # what several parts read, computed once
    return parts, failures


def failure_findings(spark, model: Model, failures: list):
    rows = []
    for est in model.estates:
        for rule_id, reason in failures:
            rows.append((est, RULE_FAILED, "error", rule_failed_message(rule_id, f"cannot run on Spark: {reason}"),
                         None, None, None, None, None, None))
    return local_frame(spark, rows, spark_schema(FINDING)) if rows else None


def finalize(frame, rules: dict[str, Rule], config, select=(), ignore=()):
    """linter.runner.finalize in Spark: drop disabled rules, apply severity overrides."""
    F = _F()
    known = set(rules) | set(BUILTIN_IDS)
    disabled = sorted(r for r in known if not config.enabled(r, select, ignore))
    if disabled:
        frame = frame.filter(~F.col("rule").isin(disabled))
    if config.severity:
        overrides = F.create_map(*[F.lit(x) for pair in sorted(config.severity.items()) for x in pair])
        frame = frame.withColumn("severity", F.coalesce(F.element_at(overrides, F.col("rule")), F.col("severity")))
    # one problem, one finding: checks that pair records (RTE001, RTE006) can raise the
    # same finding once per partner; the local engine keeps it once too (sort_findings)
    return frame.dropDuplicates()


def suppress(spark, model: Model, findings, suppressions, rules, config, select, ignore):
    """linter.suppressions in Spark: a finding is silenced by a suppression of its
    file on its line (or of the whole file) naming its rule or a prefix of it; each
    finding uses the first such rule of the suppression (in sorted order), and a
    suppression rule that silences nothing is an EXL010 finding (configured as any
    other). Suppressions are few: broadcast."""
    found, supp = model.alias() + "sf", model.alias() + "ss"
    findings.createOrReplaceTempView(found)
    suppressions.createOrReplaceTempView(supp)
    model.registered += [found, supp]
    matches = ("`s`.`_est` = `f`.`_est` AND `s`.`file` = `f`.`file` "
               "AND (`s`.`applies` IS NULL OR `s`.`applies` = `f`.`line`) AND startswith(`f`.`rule`, `s`.`rule`)")
    kept = spark.sql(f"SELECT {model.broadcast_hint('s')}`f`.* FROM {q(found)} AS `f` LEFT ANTI JOIN {q(supp)} AS `s` "
                     f"ON {matches}")
    finding_key = ", ".join(f"`f`.{q(name)}" for name, _ in FINDING)
    used = (f"SELECT {model.join_hint('s')}`s`.`_est`, `s`.`file`, `s`.`line`, `s`.`column`, "
            f"min(`s`.`rule`) AS `rule` FROM {q(found)} AS `f` JOIN {q(supp)} AS `s` ON {matches} "
            f"GROUP BY `s`.`_est`, `s`.`file`, `s`.`line`, `s`.`column`, {finding_key}")
    before, _, after = UNUSED_MESSAGE.partition("{rule}")
    message = f"concat({string(before)}, `s`.`rule`, {string(after)})"
    # a rule ID that names no rule is a typo, said as such (with its did-you-mean) as
    # check says it: the few distinct names are judged once, on the driver
    names = [row[0] for row in spark.sql(f"SELECT DISTINCT `rule` FROM {q(supp)}").collect()]
    typos = sorted((name, text) for name in names if (text := unknown_rule_message(name, rules)))
    if typos:
        message = ("CASE `s`.`rule` " + " ".join(f"WHEN {string(name)} THEN {string(text)}" for name, text in typos)
                   + f" ELSE {message} END")
    # a suppression of a rule --select or --ignore left out is not unused: it was not asked
    typo_names = {name for name, _ in typos}
    not_run = sorted(name for name in names
                     if name not in typo_names and not config.runs_any(name, rules, select, ignore))
    asked = f" WHERE NOT `s`.`rule` IN ({', '.join(string(n) for n in not_run)})" if not_run else ""
    unused = spark.sql(
        f"SELECT `s`.`_est`, {string(UNUSED_RULE)} AS `rule`, 'warning' AS `severity`, "
        f"{message} AS `message`, `s`.`file`, `s`.`line`, "
        f"`s`.`column`, CAST(NULL AS STRING) AS `path`, CAST(NULL AS STRING) AS `entity_kind`, "
        f"CAST(NULL AS STRING) AS `entity_name` FROM {q(supp)} AS `s` "
        f"LEFT ANTI JOIN ({used}) AS `u` ON `s`.`_est` = `u`.`_est` AND `s`.`file` = `u`.`file` "
        f"AND `s`.`line` = `u`.`line` AND `s`.`column` = `u`.`column` AND `s`.`rule` = `u`.`rule`{asked}")
    return kept.unionByName(finalize(unused, rules, config, select, ignore))


def run(spark, inputs: list[InputFile], rules: dict[str, Rule], config, select=(), ignore=(),
        checkpoint: bool | None = None, user_conf: dict | None = None, progress=None,
        inline_suppressions: bool = True, stages=None) -> EstateRun:
    """Lint the inventory; ``checkpoint``: keep intermediate tables as local
    checkpoints (default in local mode) rather than persisted with lineage;
    ``inline_suppressions``: apply the YAML files' ``# exlint: disable=`` comments;
    ``user_conf``: settings the user gave, which the run's tuning leaves alone;
    ``progress``: a linter.progress.Progress, told the stages validate and evaluate;
    ``stages``: a status.SparkStages that the progress follows (None: not followed)."""
    if progress is None:
        from linter.progress import Progress

        progress = Progress(enabled=False)
    if checkpoint is None:
        checkpoint = is_local(spark)
    before = _persistent_rdds(spark)
    enabled = config.evaluated(rules, select, ignore)
    # what the run has set and kept so far, dropped if it fails (its settings would
    # otherwise outlive it in the session: a one-partition layout's made later runs
    # of the same session broadcast every table)
    done = EstateRun(RuntimeConf(spark, user_conf), rdds_before=before, persisted_before=persisted_count())
    threads.begin()
    try:
        return _run(spark, inputs, rules, config, select, ignore, checkpoint, progress, inline_suppressions, stages,
                    enabled, done)
    except BaseException as exc:
        interrupted = threads.was_interrupted(exc)
        if interrupted:  # its threads start nothing more, and nothing is waited for
            threads.stop(spark)
        elif done.model is not None:
            try:  # its tables still being computed, before they are dropped
                done.model.settle()
            except Exception:  # noqa: BLE001 - the run's own failure is raised
                pass
        try:
            done.close()
        except Exception:  # noqa: BLE001 - after a Ctrl-C only: it may have ended the JVM too
            if not interrupted:
                raise
        raise


def _run(spark, inputs, rules, config, select, ignore, checkpoint, progress, inline_suppressions, stages, enabled,
         done: EstateRun) -> EstateRun:
    """job.run's work; fills ``done`` (inventory, model, findings) as it goes."""
    tuning = done.tuning
    tuning.set({"spark.sql.shuffle.partitions": "1"})  # the parse output is small next to its input
    progress.stage("validate", unit="records")
    if stages is not None:
        stages.begin("validate", "read and validate the inventory")
        progress.follow(lambda: _detail_only(stages()))
    inventory = done.inventory = read_inventory(spark, inputs, checkpoint, driver_parse=is_local(spark),
                                                defer_keep=True)
    progress.unfollow()
    progress.advance(sum(s["records_in"] for s in inventory.stats.values()))
    tuning.restore()
    # the rules run as one Spark job of many stages: the display counts those
    progress.stage("evaluate", unit=f"Spark stages ({len(enabled)} rules)")
    if stages is not None:
        stages.begin("evaluate", f"evaluate {len(enabled)} rules")
        progress.follow(stages)
    arrangement = layout(inventory, enabled, parallelism(spark)) if checkpoint else "many"
    single = arrangement != "many"
    larger = arrangement == "compiled"
    small = single or _work(inventory, enabled) < SMALL_RECORDS
    if small:
        tuning.set((LARGER_ONE_PARTITION_CONF if larger else SMALL_CONF) | (ONE_PARTITION_CONF if single else {}))
    else:
        tuning.set(MANY_PARTITIONS_CONF)
    if single:
        inventory = done.inventory = inventory.in_one_partition(checkpoint)
    else:
        inventory = done.inventory = inventory.kept(checkpoint)
    model = done.model = Model(spark, inventory, checkpoint, single, lookups=larger)
    model.build()
    derived = [(f"{what} (derived field)", why) for what, why in model.failures]
    loader = model.alias() + "loader"
    inventory.findings.createOrReplaceTempView(loader)
    model.registered.append(loader)
    evaluate = functools.partial(_evaluate, spark, model, inventory, loader, rules, config, select, ignore, checkpoint,
                                 inline_suppressions, small, larger)
    try:
        findings, failures = evaluate(enabled, derived)
    except Exception as exc:  # noqa: BLE001 - one rule's failure must not sink the job
        model.settle()  # a table of the model that failed is the run's failure, not a rule's
        broken = _failing_rules(spark, model, enabled, exc)
        findings, failures = evaluate({rid: r for rid, r in enabled.items() if rid not in broken},
                                      derived + sorted(broken.items()))
    model.settle()
    progress.unfollow()
    if stages is not None:
        stages.end()
    if small:
        findings = findings.coalesce(2)
    done.inventory, done.findings, done.failures = inventory, findings, failures
    return done


def _halves(queries: list[str], named: list[str]) -> tuple[list[list[str]], list[bool]]:
    """The rule queries in two unions, one per thread, and whether each must first build
    the kept views (Model.keep_named) that some queries read. Building them waits for the
    item arrays they read (a broadcast of them, computed on other threads): the queries
    that read them go to the second union, which builds them first, so that the first
    starts at once. The rest alternate between the two (their cost is not known before
    they run: docs/spark.md, session 56). When every query reads them, or none does, the
    views are built before either union starts."""
    reads = [any(q(name) in query for name in named) for query in queries]
    if any(reads) and not all(reads):
        free = [query for query, r in zip(queries, reads) if not r]
        return [free[0::2], free[1::2] + [query for query, r in zip(queries, reads) if r]], [False, True]
    return [queries[0::2], queries[1::2]], [False, False]


def _evaluate(spark, model, inventory, loader, rules, config, select, ignore, checkpoint, inline_suppressions, small,
              place_halves, enabled, failures):
    """The findings of the ``enabled`` rules (computed and kept), and every check
    that could not run: ``failures`` plus those the compiler refuses."""
    parts, refused = rule_findings(model, enabled, keep_named=False)
    failures = failures + refused
    queries = [f"SELECT {FIRED_COLUMNS} FROM ({p}) AS {q(model.alias())}" for p in parts]
    sql_warmup.remember(queries)  # the next run's parser warms with them while its JVM starts
    findings = spark.sql(f"SELECT {COLUMNS} FROM {q(loader)}")
    # In one partition the rules' fired rows are one task, and most of their time is the
    # driver analysing and planning the union, on one core: two halves, each planned and
    # kept in a thread of its own, use both (the sample's rules 10.5 s -> 7.2 s, fresh JVM).
    # Their SQL is compiled above, in this thread (the model creates views as the compiler
    # asks for them).
    threaded = model.single and len(queries) > 1 and not is_connect(spark)  # (a Connect client plans nothing itself)
    halves, waits = _halves(queries, model.named_views()) if threaded else ([], [])
    if not any(waits):
        model.keep_named()  # what several parts read, computed once: before any is planned
    fired = None  # the rules' fired rows, kept, when they are placed in this thread
    if threaded:
        # The larger layout places each union's findings in its own thread as soon as it is
        # kept: placed after both, the placing was one task on one core while the other
        # idled (docs/spark.md, "Session 62"); in the small one, placing twice costs more
        # than it saves (its findings are few and its plans the cost).
        views = [model.alias() + f"fired{i}" for i in range(len(halves))] if place_halves else []
        model.registered.extend(views)
        placing = [place(model, view) for view in views]  # (the model's names are not thread-safe)

        def fire(i: int):
            if waits[i]:
                model.keep_named()
            # the rules' fired rows, kept: placing them reads them twice (forms.place)
            threads.check()
            kept = keep(spark.sql(" UNION ALL ".join(halves[i])).coalesce(1), checkpoint, True)
            if not place_halves:
                return kept
            kept.createOrReplaceTempView(views[i])
            threads.check()
            return keep(spark.sql(placing[i]).coalesce(1), checkpoint, True)

        unions = in_threads(fire, list(range(len(halves))), spark)
        if place_halves:
            for placed in unions:
                findings = findings.unionByName(placed)
        else:
            fired = unions[0].unionByName(unions[1]).coalesce(1)
    elif queries:
        # The union has a partition or more per rule query (171 at 10,000 servers), and a
        # task of it deserializes the plan of the whole union (~0.12 s each, 40% of the
        # stage's time at 10,000 servers): a few tasks per core do the same work sooner.
        fired = spark.sql(" UNION ALL ".join(queries))
        fired = keep(fired.coalesce(1 if model.single else 2 if small else 4 * parallelism(spark)), checkpoint,
                     model.single)
    if fired is not None:
        fired_view = model.alias() + "fired"
        fired.createOrReplaceTempView(fired_view)
        model.registered.append(fired_view)
        findings = findings.unionByName(spark.sql(place(model, fired_view)))
    extra = failure_findings(spark, model, failures)
    if extra is not None:
        findings = findings.unionByName(extra)
    findings = findings.coalesce(1 if model.single else 2 if small else 4 * parallelism(spark))
    # computed once; suppressing, writing, counting and printing read it
    findings = keep(finalize(findings, rules, config, select, ignore), checkpoint)
    if inline_suppressions and inventory.suppressions is not None:
        findings = keep(suppress(spark, model, findings, inventory.suppressions, rules, config, select, ignore),
                        checkpoint)
    return findings, failures


def _failing_rules(spark, model: Model, enabled: dict[str, Rule], exc: Exception) -> dict[str, str]:
    """After the rules' one query failed: which rules fail on their own (analysed
    and run alone, every column computed), with the reason. Only then, and only for
    a failure a rule can cause: a Spark that ran out of memory or lost its driver
    fails every probe too, so ``exc`` is raised again (as when no rule fails alone,
    or all do)."""
    from linter.engines.spark.failures import describe, is_infrastructure

    if is_infrastructure(exc):
        raise exc
    broken = {}
    for rule_id, rule in enabled.items():
        try:
            run_alone(model, {rule_id: rule})
        except Exception as probe:  # noqa: BLE001
            if is_infrastructure(probe):
                raise exc from probe
            broken[rule_id] = describe(probe)
    if not broken or len(broken) == len(enabled):
        raise exc
    return broken


def run_alone(model: Model, rules: dict[str, Rule]) -> tuple[list[str], list]:
    """The queries of ``rules`` analysed and run on their own, every column computed,
    into Spark's ``noop`` sink (nothing kept); returns them and the checks the
    compiler refused, as rule_findings does."""
    parts, refused = rule_findings(model, rules)
    for part in parts:
        model.spark.sql(f"SELECT {FIRED_COLUMNS} FROM ({part}) AS {q(model.alias())}").write.format("noop") \
            .mode("overwrite").save()
    return parts, refused


def _detail_only(answer):
    return None if answer is None else (None, None, answer[2])


def _work(inventory, rules: dict[str, Rule]) -> int:
    """Rows the rules will look at, roughly: the records, plus those of the two
    tables each `pairs` check joins. Its pairs are an equi-join's output (records
    with equal keys) or, with a profile, records x the partners' few profiles:
    neither is the tables' product, which would call a 1,000-server estate large."""
    counts = inventory.counts
    work = sum(counts.values())
    for rule in rules.values():
        for check in rule.checks:
            if check.form == "pairs":
                work += counts.get(check.table, 0) + counts.get(check.with_table, 0)
    return work


def _checked_rows(inventory, rules: dict[str, Rule]) -> int:
    """Rows times the checks that read them (a pairs check reads both its tables): what
    running the checks interpreted costs grows with, where ``_work`` counts each row once."""
    counts = inventory.counts
    rows = 0
    for rule in rules.values():
        for check in rule.checks:
            rows += counts.get(check.table, 0)
            if check.form == "pairs":
                rows += counts.get(check.with_table, 0)
    return rows


def layout(inventory, rules: dict[str, Rule], cores: int) -> str:
    """How a local run lays its tables out (docs/spark.md, "Small inventories: one
    partition" and "Which layout, measured again"):

    - ``interpreted``: one partition, no rule query needs a shuffle or a broadcast, and
      expressions run without generated code (its compiling costs more than it saves);
    - ``compiled``: one partition still, with generated code and broadcast lookups, once
      the checks read INTERPRETED_CHECKED_ROWS rows;
    - ``many``: many partitions, past ``one_partition_max`` rows of work."""
    if _work(inventory, rules) >= one_partition_max(cores):
        return "many"
    return "compiled" if _checked_rows(inventory, rules) >= INTERPRETED_CHECKED_ROWS else "interpreted"


def one_partition_max(cores: int) -> int:
    """The rows of work up to which a local run keeps one partition. Its work runs on
    about two threads (the halves of the rules, the kept tables), so on more cores than
    two, many partitions, spread over all of them, win sooner."""
    return ONE_PARTITION_MAX_RECORDS * 2 // max(2, cores)


def is_local(spark) -> bool:
    try:
        return spark.sparkContext.master.startswith("local")
    except Exception:  # Spark Connect: no SparkContext here; the server's master, when it says
        try:
            return (spark.conf.get("spark.master", "") or "").startswith("local")
        except Exception:
            return False


def _persistent_rdds(spark) -> set | None:
    try:
        return set(spark.sparkContext._jsc.sc().getPersistentRDDs().keySet().toList())
    except Exception:
        return None
