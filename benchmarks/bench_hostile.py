"""Hostile-input growth: each case at growing sizes, seconds per size.

    python benchmarks/bench_hostile.py [--cases a,b] [--scale 1.0]

A config repo is untrusted input in CI (issue #20): every case here was
quadratic, cubic or unbounded once. Each runs in this process on generated
input (no files except where files are the point) and prints a table of
sizes x seconds and the ratio of the last size's time to the first's, which for
linear work stays near the ratio of the sizes. tests/test_hostile_growth.py runs
the same cases at small sizes and checks that growth, never a time.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SERVER_HEAD = """apiVersion: exlint/v1
kind: Server
metadata: {name: EX10-LON-01}
spec:
  version: "2010"
  servicePack: 3
  site: London
  adminGroup: AG
  roles: [Mailbox, HubTransport]
  receiveConnectors:
"""
ORGANIZATION = """apiVersion: exlint/v1
kind: Organization
metadata: {name: org}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG, siteFolderServer: EX10-LON-01}]
  sites: [{name: London}]
"""
STORE = """---
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata: {{name: PFDB-{index:05d}}}
spec:
  server: EX10-LON-01
  hierarchy: Public Folders
  guid: 6f1c2f4e-1f0b-4b4e-9a53-{index:012d}
  created: 2010-03-14
  emailAddress: pfdb-{index:05d}@bench.example
  registry:
    DeliveredTo Expiration in Hours: 168
    Background Cleanup (in msecs): 60000
  replication:
    Replication Send Always: 15m
"""


def connectors(n: int):
    """One server with n receive connectors, loaded and turned into records."""
    from linter.loading import load_text
    from linter.model.records import build_all

    text = SERVER_HEAD + "".join(
        f"    - name: Connector {i}\n      ConnectionTimeout: 00:10:00\n"
        f"      ConnectionInactivityTimeout: 00:05:00\n" for i in range(n))
    return lambda: build_all(load_text(text, "server.yaml").documents)


def site_link(n: int):
    """One site link holding n sites (DEFAULTIPSITELINK often holds every site): the
    graph and the sites within 500 of each (RTE005's reach sets)."""
    from linter.topology import build_site_graph

    sites = [f"site{i:05d}" for i in range(n)]
    return lambda: build_site_graph(sites, [(sites, 100)]).reach_sets(500)


def suppression(n: int):
    """``# exlint: disable=DUP002`` followed by n spaces and a character."""
    from linter.suppressions import parse_suppressions

    text = "x: 1  # exlint: disable=DUP002" + " " * n + "x\n"  # a tail that does not match
    return lambda: parse_suppressions("x.yaml", text)


def reg_continuation(n: int):
    """A .reg hex value continued over n lines."""
    from linter.importers.regfile import parse_reg

    lines = ["Windows Registry Editor Version 5.00", "",
             r"[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Services\MSExchangeIS\EX1\Public-"
             "{6f1c2f4e-1f0b-4b4e-9a53-000000000001}]", '"Blob"=hex:00,\\']
    lines += ["  01,02,03,04,05,06,07,08,09,0a,0b,0c,0d,0e,0f,10,\\"] * n + ["  00"]
    data = ("\r\n".join(lines) + "\r\n").encode()
    return lambda: parse_reg("x.reg", data)


def stores_on_one_server(n: int):
    """n stores of one hierarchy on one server: every HIE001 finding names the
    group. The work is the rule and the JSON report (the estate is built once);
    it returns the report's length."""
    from linter.config import Config
    from linter.engines.local import LocalEngine
    from linter.estate import build_estate
    from linter.loading import load_text
    from linter.policy.packs import load_rules
    from linter.reports.json_report import render
    from linter.runner import Result

    rules = {k: v for k, v in load_rules().items() if k == "HIE001"}
    server = SERVER_HEAD.replace("  receiveConnectors:\n", "")
    text = ORGANIZATION + "---\n" + server + "".join(STORE.format(index=i) for i in range(n))
    loaded = [load_text(text, "estate.yaml")]
    estate = build_estate(loaded, {}, 0)

    def work():
        findings = LocalEngine(estate, rules).run()
        return len(render(Result(findings, 1, n + 2, Config(), rules, estate, None, loaded, {"estate.yaml"})))
    return work


def repeated_replicas(n: int):
    """One folder whose replica list names two stores n times each: REP005 reports each
    repeat (the output grows linearly); judging each repeat again was quadratic."""
    from linter.engines.local import LocalEngine
    from linter.estate import build_estate
    from linter.loading import load_text
    from linter.policy.packs import load_rules

    rules = {k: v for k, v in load_rules().items() if k == "REP005"}
    server = SERVER_HEAD.replace("  receiveConnectors:\n", "")
    stores = "".join(STORE.format(index=i) for i in range(2))
    folder = ("---\napiVersion: exlint/v1\nkind: PublicFolder\nmetadata: {name: /Sales}\nspec:\n"
              "  hierarchy: Public Folders\n  replicas: [" + ", ".join(["PFDB-00000, PFDB-00001"] * n) + "]\n")
    loaded = [load_text(ORGANIZATION + "---\n" + server + stores + folder, "estate.yaml")]
    estate = build_estate(loaded, {}, 0)

    def work():
        return len(LocalEngine(estate, rules).run())
    return work


def big_file(n: int):
    """A store file of n documents (about 400 bytes each): exlint's load against a
    bare C compose of the same text (the ratio is printed)."""
    from linter.loading import load_text

    text = "".join(STORE.format(index=i) for i in range(n))
    return lambda: load_text(text, "big.yaml")


def bare_compose(n: int):
    import yaml

    text = "".join(STORE.format(index=i) for i in range(n))
    return lambda: list(yaml.compose_all(text, Loader=yaml.CSafeLoader))


def tiny_files(n: int):
    """``exlint check`` of one file of a repository of n tiny store files (a
    pre-commit hook's run: the rest is read to resolve references), cold cache."""
    import shutil
    import subprocess

    workdir = Path(tempfile.mkdtemp(prefix="exlint-tiny-"))
    (workdir / ".exlint.yaml").write_text("{}\n")
    (workdir / "organization.yaml").write_text(ORGANIZATION)
    (workdir / "server.yaml").write_text(SERVER_HEAD.replace("  receiveConnectors:\n", ""))
    stores = workdir / "stores"
    stores.mkdir()
    for i in range(n):
        (stores / f"s{i:06d}.yaml").write_text(STORE.format(index=i))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "EXLINT_CACHE_DIR": str(workdir / ".cache")}

    def work():
        shutil.rmtree(workdir / ".cache", ignore_errors=True)
        subprocess.run([sys.executable, "-m", "linter", "check", "-q", "--format", "json", "stores/s000000.yaml"],
                       cwd=workdir, env=env, stdout=subprocess.DEVNULL, check=False)
    return work


CASES = {
    "connectors": (connectors, [2000, 4000, 8000]),
    "site_link": (site_link, [150, 300, 600]),
    "suppression": (suppression, [15000, 30000, 60000]),
    "reg_continuation": (reg_continuation, [10000, 20000, 40000]),
    "stores_on_one_server": (stores_on_one_server, [500, 1000, 2000]),
    "repeated_replicas": (repeated_replicas, [1000, 2000, 4000]),
    "big_file": (big_file, [5000, 10000, 20000]),
    "bare_compose": (bare_compose, [5000, 10000, 20000]),
    "tiny_files": (tiny_files, [2500, 5000, 10000]),
}


def timed(make, n: int, repeat: int = 1) -> tuple[float, object]:
    work = make(n)
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size by this")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for name in args.cases.split(","):
        make, sizes = CASES[name]
        times = []
        for size in sizes:
            size = max(1, int(size * args.scale))
            seconds, _ = timed(make, size)
            times.append((size, seconds))
            print(f"{name:22} {size:>8} {seconds:9.3f} s", flush=True)
        ratio = times[-1][1] / max(times[0][1], 1e-9)
        print(f"{name:22} growth x{times[-1][0] / times[0][0]:.0f} in size: x{ratio:.1f} in time", flush=True)
        rows.append({"case": name, "times": times, "ratio": ratio})
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
