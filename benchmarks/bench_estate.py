"""Benchmark of the Spark engine (`exlint estate`) on generated estates.

    python benchmarks/bench_estate.py [--sizes 1000,10000,100000] [--local-max 10000]
    python benchmarks/bench_estate.py --fresh samples/inventory/estate.jsonl [--repeat 3]

For each size: a JSON Lines inventory from linter.generate (seed 1, defect rate
0.05), then, in one Spark session (local[*]):

- the estate job (parse, model, every rule, findings kept) - wall time and
  records per second;
- bare Spark reads of the same file, measured in the same run after a warm-up
  read: its lines counted (``spark.read.text``) and its records counted
  (``spark.read.json``, every line parsed); the engine's time as a multiple of each;
- the local engine on the same documents (where it fits: --local-max servers),
  in a process of its own, with its peak RSS;
- driver peak RSS (the Python driver and the Spark driver JVM).

Prints a table and, with --json, the numbers as JSON. No assertion: a benchmark
reports, tests judge.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def generate(servers: int, directory: Path) -> Path:
    from linter.generate.core import Settings, generate as run

    path = directory / f"estate-{servers}.jsonl"
    if not path.exists():
        run(Settings(servers=servers, seed=1, defect_rate=0.05, format="jsonl", output=str(path)))
    return path


def jvm_peak_rss_mb(spark) -> float | None:
    try:
        pid = spark.sparkContext._jvm.ProcessHandle.current().pid()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except Exception:
        return None
    return None


def python_peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bare_reads(spark, path: Path) -> tuple[float, float]:
    """Seconds of the two bare reads of the inventory, after an untimed warm-up
    read (the first query of a session pays for class loading and JIT): its lines
    (``spark.read.text``) and its records (``spark.read.json`` with the envelope's
    schema: every line parsed, metadata and spec kept as JSON text)."""
    spark.read.text(path.as_uri()).count()
    start = time.perf_counter()
    spark.read.text(path.as_uri()).count()
    lines = time.perf_counter() - start
    # the envelope's schema, given: inference rejects the generated estates' hostile
    # lines (duplicate keys); metadata and spec are read as their JSON text
    start = time.perf_counter()
    (spark.read.schema("apiVersion string, kind string, metadata string, spec string").json(path.as_uri())
     .selectExpr("count(kind)", "count(metadata)", "count(spec)").collect())
    return lines, time.perf_counter() - start


def estate(spark, path: Path) -> tuple[float, dict, int]:
    from linter.config import Config
    from linter.engines.spark import job
    from linter.engines.spark.inventory import discover_inputs
    from linter.policy.packs import load_rules

    rules = load_rules()
    start = time.perf_counter()
    run = job.run(spark, discover_inputs([path]), rules, Config())
    findings = run.findings.count()
    elapsed = time.perf_counter() - start
    stats = run.stats()
    run.close()
    return elapsed, stats, findings


def local_in_child(path: Path) -> tuple[float, int, float]:
    """The local engine in a process of its own: its peak memory is its own, and
    the Spark driver's peak is not inflated by it."""
    import subprocess

    done = subprocess.run([sys.executable, __file__, "--local-only", str(path)], capture_output=True, text=True,
                          check=True)
    seconds, findings, peak = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds, findings, peak


def local(path: Path) -> tuple[float, int]:
    from linter.engines.local import LocalEngine
    from linter.estate import build_estate
    from linter.loading import load_file
    from linter.policy.packs import load_rules

    rules = load_rules()
    start = time.perf_counter()
    estate = build_estate([load_file(path, path.name)])  # JSON Lines: a document per line, as the estate job reads it
    findings = len(estate.findings) + len(LocalEngine(estate, rules).run())
    return time.perf_counter() - start, findings


_BARE = """
import sys, time
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false").getOrCreate()
try:
    n, how = spark.read.json(sys.argv[1]).count(), "json"
except Exception:  # an inventory Spark's JSON reader refuses (duplicate keys): its lines
    n, how = spark.read.text(sys.argv[1]).count(), "text"
print(how, n)
"""


def fresh(inventory: Path, repeat: int) -> dict:
    """`exlint estate INVENTORY` in a fresh process (the console script beside this
    interpreter, as a user runs it) against a bare `spark.read.json(f).count()` in a
    fresh process (`spark.read.text` when Spark's JSON reader refuses the file), the
    two alternating, the median of ``repeat`` runs of each."""
    import statistics
    import subprocess

    exlint = Path(sys.executable).with_name("exlint")
    command = [str(exlint)] if exlint.exists() else [sys.executable, "-m", "linter"]
    runs: dict[str, list[float]] = {"estate": [], "bare": []}
    how = None
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command + ["estate", str(inventory), "-q"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, cwd=tempfile.gettempdir())
        runs["estate"].append(time.perf_counter() - start)
        # Exit 1 is "findings", but also Python's for an uncaught exception: a run that failed
        # (a stale install, say) must not be timed as a fast one.
        if done.returncode not in (0, 1) or "Traceback" in done.stderr:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"exlint estate failed (exit {done.returncode}): {last}")
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _BARE, str(inventory)], capture_output=True, text=True,
                             cwd=tempfile.gettempdir())
        runs["bare"].append(time.perf_counter() - start)
        how = (out.stdout.split() or ["failed"])[0]
    estate_s, bare_s = statistics.median(runs["estate"]), statistics.median(runs["bare"])
    return {"inventory": str(inventory), "estate_s": round(estate_s, 1), "bare_s": round(bare_s, 1),
            "bare_read": how, "ratio": round(estate_s / bare_s, 2), "runs": runs}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="servers per estate, comma-separated")
    parser.add_argument("--local-max", type=int, default=10000, help="largest size the local engine runs on")
    parser.add_argument("--workdir", help="where the generated inventories are kept (default: a temporary dir)")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.add_argument("--fresh", metavar="INVENTORY",
                        help="only: `exlint estate INVENTORY` in a fresh process against a bare read in a fresh "
                             "process (e.g. samples/inventory/estate.jsonl)")
    parser.add_argument("--repeat", type=int, default=3, help="with --fresh: runs of each (median)")
    parser.add_argument("--local-only", metavar="INVENTORY", help=argparse.SUPPRESS)  # the child of local_in_child
    args = parser.parse_args(argv)
    if args.fresh:
        result = fresh(Path(args.fresh).resolve(), args.repeat)
        print(f"exlint estate (fresh process): {result['estate_s']} s; bare spark.read.{result['bare_read']}().count() "
              f"(fresh process): {result['bare_s']} s; ratio {result['ratio']}x")
        if args.json:
            print(json.dumps(result, indent=2))
        return 0
    if args.local_only:
        seconds, findings = local(Path(args.local_only))
        print(json.dumps([seconds, findings, python_peak_rss_mb()]))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    from linter.engines.spark.session import SessionOptions, build_session

    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="exlint-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    spark = build_session(SessionOptions(app_name="exlint benchmark"))
    session_seconds = time.perf_counter() - start
    results = []
    for servers in sizes:
        t0 = time.perf_counter()
        path = generate(servers, workdir)
        generated = time.perf_counter() - t0
        bare_lines, bare_json = bare_reads(spark, path)
        seconds, stats, findings = estate(spark, path)
        row = {
            "servers": servers, "records_in": stats["records_in"], "mb": round(path.stat().st_size / 2**20, 1),
            "generate_s": round(generated, 1), "estate_s": round(seconds, 1),
            "records_per_s": round(stats["records_in"] / seconds), "findings": findings,
            "bare_text_s": round(bare_lines, 2), "ratio_to_bare_text": round(seconds / bare_lines, 1),
            "bare_json_s": round(bare_json, 2), "ratio_to_bare_json": round(seconds / bare_json, 1),
            "python_peak_rss_mb": round(python_peak_rss_mb()), "jvm_peak_rss_mb": jvm_peak_rss_mb(spark),
        }
        if servers <= args.local_max:
            local_seconds, local_findings, local_peak = local_in_child(path)
            row.update(local_s=round(local_seconds, 1), local_findings=local_findings,
                       local_peak_rss_mb=round(local_peak),
                       spark_vs_local=round(seconds / local_seconds, 2) if local_seconds else None)
        results.append(row)
        print(f"  {servers} servers done in {seconds:.1f}s", file=sys.stderr)
    spark.stop()
    by_size = {r["servers"]: r for r in results}
    growth = None
    if 10000 in by_size and 100000 in by_size:
        growth = round(by_size[100000]["estate_s"] / by_size[10000]["estate_s"], 2)
    print(f"Spark session start: {session_seconds:.1f}s (local[*], {os.cpu_count()} cores)")
    header = (f"{'servers':>8} {'records':>9} {'MB':>6} {'estate s':>9} {'rec/s':>8} {'text s':>7} {'x text':>7} "
              f"{'json s':>7} {'x json':>7} "
              f"{'local s':>8} {'local MB':>8} {'findings':>9} {'py MB':>6} {'jvm MB':>7}")
    print(header)
    for r in results:
        print(f"{r['servers']:>8} {r['records_in']:>9} {r['mb']:>6} {r['estate_s']:>9} {r['records_per_s']:>8} "
              f"{r['bare_text_s']:>7} {r['ratio_to_bare_text']:>7} {r['bare_json_s']:>7} {r['ratio_to_bare_json']:>7} "
              f"{r.get('local_s', '-'):>8} {r.get('local_peak_rss_mb', '-'):>8} {r['findings']:>9} "
              f"{r['python_peak_rss_mb']:>6} {round(r['jvm_peak_rss_mb'] or 0):>7}")
    if growth is not None:
        print(f"growth 10k -> 100k servers: x{growth} time for x10 servers")
    if args.json:
        print(json.dumps({"session_s": round(session_seconds, 1), "results": results, "growth_10k_100k": growth},
                         indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
