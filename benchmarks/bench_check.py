"""exlint check vs yamllint -d relaxed, side by side in one run (issue 18's hook figures).

    python benchmarks/bench_check.py [--stores 1000] [--repeat 5]

Measures the wall time of whole commands (start-up included, as a pre-commit
hook or CI step sees it) on one store file and on a generated config repo of
N store files (plus the Organization and the servers they reference), and prints
the ratio exlint / yamllint. yamllint does far less (syntax and style only), but
it is what users already run in their hooks.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ORG = """apiVersion: exlint/v1
kind: Organization
metadata: {name: bench}
spec:
  hierarchies: [{name: Public Folders, type: MAPI}]
  adminGroups: [{name: AG1, siteFolderServer: EX10-S000-01}]
  sites: [%s]
  siteLinks: [%s]
"""
SERVER = """apiVersion: exlint/v1
kind: Server
metadata:
  name: {name}
spec:
  version: "2010"
  servicePack: 3
  site: {site}
  adminGroup: AG1
  roles: [Mailbox, HubTransport]
  dag: DAG-{dag}
"""
STORE = """# store {index}: owner messaging-team, change CHG-{index:05d}
apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata:
  name: PFDB-{index:05d}
  labels: {{owner: messaging-team}}
spec:
  server: {server}
  hierarchy: Public Folders
  guid: 6f1c2f4e-1f0b-4b4e-9a53-{index:012d}
  created: 2010-03-14
  emailAddress: pfdb-{index:05d}@bench.example
  registry:
    DeliveredTo Expiration in Hours: 168
    Background Cleanup (in msecs): 60000
    Replication Send Status Timeout: 86400
  replication:
    Replication Send Always: 15m
    Replication Message Size Limit: 300KB
  referrals:
    useCustomList: false
"""


def make_repo(root: Path, stores: int) -> Path:
    sites = max(2, stores // 100)
    (root / "stores").mkdir(parents=True)
    (root / "servers").mkdir()
    (root / ".exlint.yaml").write_text("{}\n")
    site_names = [f"Site{s:03d}" for s in range(sites)]
    links = ", ".join(f"{{name: L{s}, sites: [Site000, Site{s:03d}], cost: 10}}" for s in range(1, sites))
    (root / "organization.yaml").write_text(ORG % (", ".join(f"{{name: {n}}}" for n in site_names), links))
    servers = []
    for s in range(sites):
        for n in range(1, 3):
            name = f"EX10-S{s:03d}-{n:02d}"
            servers.append(name)
            (root / "servers" / f"{name}.yaml").write_text(SERVER.format(name=name, site=site_names[s], dag=s))
    for index in range(stores):
        server = servers[index % len(servers)]
        # one store per server per hierarchy: give every store its own server when needed
        if index >= len(servers):
            server = f"EX10-X{index:05d}"
            (root / "servers" / f"{server}.yaml").write_text(
                SERVER.format(name=server, site=site_names[index % sites], dag=index % sites))
        (root / "stores" / f"pfdb-{index:05d}.yaml").write_text(STORE.format(index=index, server=server))
    return root


def timed(command: list[str], repeat: int, cwd: Path) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _exlint_command() -> list[str]:
    """The console script a hook runs (as yamllint is run), when it sits beside
    this interpreter and runs this checkout's code; else `python -m linter`."""
    script = Path(sys.executable).with_name("exlint")
    here = Path(__file__).resolve().parent.parent / "linter" / "__init__.py"
    where = subprocess.run([sys.executable, "-c", "import linter; print(linter.__file__)"], cwd=tempfile.gettempdir(),
                           capture_output=True, text=True).stdout.strip()
    if script.is_file() and where and Path(where).resolve() == here:
        return [str(script)]
    return [sys.executable, "-m", "linter"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    beside = Path(sys.executable).with_name("yamllint")  # not a shim (pyenv's would add its own start-up)
    yamllint = str(beside) if beside.is_file() else shutil.which("yamllint")
    if yamllint is None:
        print("yamllint is not installed: pip install yamllint", file=sys.stderr)
        return 2
    exlint = [*_exlint_command(), "check"]
    print(f"exlint: {' '.join(exlint)}")
    os.environ.setdefault("EXLINT_CACHE_DIR", tempfile.mkdtemp(prefix="exlint-bench-cache-"))
    # Installed tools run from byte-compiled modules; measure both that way (a
    # PYTHONDONTWRITEBYTECODE environment would make both recompile every run).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.stores)
        one = repo / "stores" / "pfdb-00000.yaml"
        alone = Path(tmp) / "alone" / "pfdb-00000.yaml"
        alone.parent.mkdir()
        alone.write_text(one.read_text())
        check = subprocess.run(exlint + ["."], cwd=repo, capture_output=True, text=True)
        if check.returncode not in (0, 1):
            print(f"exlint failed on the generated repo: {check.stderr.strip()}", file=sys.stderr)
            return 2
        print(f"exlint on the generated repo: exit {check.returncode}; {check.stdout.strip().splitlines()[-1]}")
        subprocess.run(exlint + ["--root", str(repo), str(one)], cwd=repo, capture_output=True)  # warm the cache
        # the rename/delete case: a commit that deletes a server file one store still names
        gone = repo / "servers" / f"EX10-X{args.stores - 1:05d}.yaml"
        git_env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
                   "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "estate"], ["rm", "-q", str(gone)]):
            subprocess.run(["git", *command], cwd=repo, env=git_env, capture_output=True, check=True)
        deleted = subprocess.run(exlint + ["--hook"], cwd=repo, capture_output=True, text=True)
        print(f"exlint --hook after deleting {gone.name}: exit {deleted.returncode}; "
              f"{deleted.stdout.strip().splitlines()[0] if deleted.stdout.strip() else ''}")
        rows = []
        cases = (
            ("one store file (alone)", [str(alone)], alone, alone.parent),
            (f"one file in the {args.stores}-store repo (--root)", ["--root", str(repo), str(one)], one, repo),
            (f"{args.stores} store files (whole repo)", [str(repo)], repo, repo),
            ("hook: a deleted server file (rename/delete)", ["--hook"], one, repo),
        )
        for label, arguments, target, cwd in cases:
            subprocess.run(exlint + arguments, cwd=cwd, capture_output=True)  # warm-up (bytecode)
            subprocess.run([yamllint, "-d", "relaxed", str(target)], cwd=cwd, capture_output=True)
            ours = timed(exlint + arguments, args.repeat, cwd)
            theirs = timed([yamllint, "-d", "relaxed", str(target)], args.repeat, cwd)
            rows.append((label, ours, theirs))
        print(f"\n{'case':<44} {'exlint s':>9} {'yamllint s':>11} {'ratio':>7}")
        for label, ours, theirs in rows:
            print(f"{label:<44} {ours:>9.3f} {theirs:>11.3f} {ours / theirs:>7.2f}")
        print("\ntargets: ratio <= 1.0 on one file, <= 2.0 on one file in the repo and on the"
              " rename/delete case (yamllint on one store file), <= 0.25 on the tree (median of"
              f" {args.repeat} runs each, measured in this run). With --root and --hook exlint also"
              " loads the other files (cached) to resolve references; yamllint reads one file.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
