"""Where an estate job's time goes, by Spark's own metrics.

    python benchmarks/profile_estate.py INVENTORY [--rules] [--json]

In one local Spark session: the job once untimed (class loading, JIT), then the
job again with each phase timed (read and validate, model, rules) and, for each
phase, the Spark jobs and stages it ran and their summed executor run time (from
Spark's status store, the numbers its web UI shows). With ``--rules``, every
enabled rule's queries are then run alone into Spark's ``noop`` sink, each in a
job group of its own, and the rules are listed by wall time with their stages
and executor time: the table docs/spark.md keeps. No assertion: a benchmark
reports, tests judge.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


class StageMeter:
    """Stages Spark completed since the last ``take``: how many, and their
    executor run time (ms), read from the driver's status store."""

    def __init__(self, spark):
        self.store = spark.sparkContext._jsc.sc().statusStore()
        self.gateway = spark.sparkContext._gateway
        self.seen = self._stages()

    def _stages(self) -> dict[int, tuple[int, int]]:
        # Spark 4: stageList(statuses, details, withSummaries, quantiles, taskStatuses); 3.5: stageList(statuses)
        try:
            stages = self.store.stageList(None, False, False, self.gateway.new_array(self.gateway.jvm.double, 0), None)
        except Exception:
            stages = self.store.stageList(None)
        out = {}
        for i in range(stages.size()):
            stage = stages.apply(i)
            out[(stage.stageId(), stage.attemptId())] = (stage.executorRunTime(), stage.numTasks())
        return out

    def take(self) -> dict:
        now = self._stages()
        new = {k: v for k, v in now.items() if k not in self.seen}
        self.seen = now
        return {"stages": len(new), "tasks": sum(t for _, t in new.values()),
                "executor_s": round(sum(ms for ms, _ in new.values()) / 1000, 2)}


def phases(spark, path: Path, meter: StageMeter) -> tuple[dict, object]:
    """The job with its phases timed; returns the timings and the run (open)."""
    from linter.config import Config
    from linter.engines.spark import job, model as model_module
    from linter.engines.spark.inventory import discover_inputs
    from linter.policy.packs import load_rules

    rules = load_rules()
    out = {}
    marks = []
    real_read, real_build = job.read_inventory, model_module.Model.build

    def read(*args, **kwargs):
        start = time.perf_counter()
        result = real_read(*args, **kwargs)
        marks.append(("read and validate", time.perf_counter() - start, meter.take()))
        return result

    def build(self):
        start = time.perf_counter()
        result = real_build(self)
        marks.append(("model", time.perf_counter() - start, meter.take()))
        return result

    job.read_inventory, model_module.Model.build = read, build
    try:
        meter.take()
        start = time.perf_counter()
        run = job.run(spark, discover_inputs([path]), rules, Config())
        rules_start = time.perf_counter()
        findings = run.findings.count()
        end = time.perf_counter()
    finally:
        job.read_inventory, model_module.Model.build = real_read, real_build
    done = sum(seconds for _, seconds, _ in marks)
    marks.append(("rules (planned and run)", end - start - done, meter.take()))
    for name, seconds, stages in marks:
        out[name] = {"seconds": round(seconds, 2), **stages}
    out["total"] = {"seconds": round(end - start, 2), "findings": findings,
                    "count_s": round(end - rules_start, 2)}
    return out, run


def per_rule(spark, run, meter: StageMeter) -> list[dict]:
    from linter.engines.spark.job import run_alone
    from linter.policy.packs import load_rules

    rows = []
    for rule_id, rule in sorted(load_rules().items()):
        meter.take()
        start = time.perf_counter()
        parts, failures = run_alone(run.model, {rule_id: rule})
        rows.append({"rule": rule_id, "forms": ",".join(sorted({c.form for c in rule.checks})),
                     "queries": len(parts), "seconds": round(time.perf_counter() - start, 2), **meter.take(),
                     "failed": len(failures)})
    return sorted(rows, key=lambda r: -r["seconds"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inventory", type=Path)
    parser.add_argument("--rules", action="store_true", help="also run every rule alone and list them by cost")
    parser.add_argument("--top", type=int, default=25, help="rules listed (with --rules)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--cold", action="store_true",
                        help="no untimed first run: the phases as a fresh process pays them (JIT, class loading)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting for the session (repeatable), as `exlint estate --conf`")
    args = parser.parse_args(argv)

    from linter.engines.spark.session import SessionOptions, build_session, parse_conf

    start = time.perf_counter()
    spark = build_session(SessionOptions(conf=parse_conf(args.conf), input_bytes=args.inventory.stat().st_size))
    print(f"session started in {time.perf_counter() - start:.2f} s", file=sys.stderr)
    meter = StageMeter(spark)
    if not args.cold:
        _, warm = phases(spark, args.inventory, meter)  # class loading and JIT: not measured
        warm.close()
    timed, run = phases(spark, args.inventory, meter)
    report = {"phases": timed}
    if args.rules:
        report["rules"] = per_rule(spark, run, meter)
    run.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'phase':<26}{'seconds':>9}{'stages':>8}{'tasks':>7}{'executor s':>12}")
    for name, row in timed.items():
        if name != "total":
            print(f"{name:<26}{row['seconds']:>9}{row['stages']:>8}{row['tasks']:>7}{row['executor_s']:>12}")
    total = timed["total"]
    print(f"{'total':<26}{total['seconds']:>9}   ({total['findings']} findings)")
    if args.rules:
        print(f"\n{'rule':<9}{'forms':<22}{'queries':>8}{'seconds':>9}{'stages':>8}{'tasks':>7}{'executor s':>12}")
        for row in report["rules"][:args.top]:
            print(f"{row['rule']:<9}{row['forms']:<22}{row['queries']:>8}{row['seconds']:>9}"
                  f"{row['stages']:>8}{row['tasks']:>7}{row['executor_s']:>12}")
        rest = report["rules"][args.top:]
        if rest:
            print(f"... {len(rest)} more, {sum(r['seconds'] for r in rest):.1f} s together")
        print(f"all rules alone: {sum(r['seconds'] for r in report['rules']):.1f} s, "
              f"{sum(r['stages'] for r in report['rules'])} stages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
