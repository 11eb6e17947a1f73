"""The benchmarks run (one command each) and report what they claim: on a tiny
estate, the estate benchmark's Spark engine and local engine count the same
findings, and every figure the table prints is there. Timings are printed, never
judged here (shared machines are noisy)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_estate_benchmark_reports_spark_and_local_alike(tmp_path):
    pytest.importorskip("pyspark")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_estate.py"), "--sizes", "40", "--local-max", "40",
         "--workdir", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout[done.stdout.index("{"):])
    (row,) = report["results"]
    assert row["servers"] == 40 and row["records_in"] > 40
    assert row["findings"] == row["local_findings"] > 0
    for name in ("estate_s", "bare_text_s", "bare_json_s", "ratio_to_bare_text", "ratio_to_bare_json", "local_s"):
        assert row[name] > 0, name
    assert "x json" in done.stdout and row["local_peak_rss_mb"] > 0


def test_check_benchmark_runs(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_check.py"), "--stores", "20",
                           "--repeat", "1"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "yamllint" in done.stdout
    # the deleted server file is caught: its store's reference now fails
    assert "exlint --hook after deleting EX10-X00019.yaml: exit 1; stores/pfdb-00019.yaml:" in done.stdout
    for case in ("one store file (alone)", "(--root)", "(whole repo)", "(rename/delete)"):
        assert case in done.stdout


def test_profile_reports_phases_and_every_rule(tmp_path):
    pytest.importorskip("pyspark")
    from linter.policy.packs import load_rules

    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "profile_estate.py"),
         str(ROOT / "samples" / "inventory" / "estate.jsonl"), "--cold", "--rules", "--json"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    phases = report["phases"]
    assert phases["total"]["findings"] > 0
    # a small inventory parsed by the driver runs no Spark stage to read: its rows are kept
    # once the layout is known, in the model's phase (inventory.read_inventory, defer_keep)
    assert phases["read and validate"]["stages"] >= 0 and phases["read and validate"]["seconds"] > 0
    for name in ("model", "rules (planned and run)"):
        assert phases[name]["stages"] > 0 and phases[name]["seconds"] > 0, name
    rules = load_rules()
    assert {row["rule"] for row in report["rules"]} == set(rules)
    for row in report["rules"]:
        if any(check.form != "builtin" for check in rules[row["rule"]].checks):
            assert row["queries"] >= 1 and row["stages"] >= 1 and row["failed"] == 0, row
