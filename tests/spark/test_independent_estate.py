"""An estate from the generator written independently of exlint (benchmarks/
independent, from the public spec alone): `estate` gives exactly the findings
`check` gives, in the same order, on input neither engine's author shaped."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parents[2]


def test_estate_equals_check_on_an_independent_estate(spark, tmp_path, monkeypatch):
    inventory = tmp_path / "independent.jsonl"
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "independent" / "gen.py"), "--servers", "60",
                    "--seed", "7", "--out", str(inventory)], check=True, capture_output=True)
    monkeypatch.chdir(tmp_path)
    check = CliRunner().invoke(cli, ["check", inventory.name, "--format", "json", "--fail-on", "never", "--no-cache"])
    estate = CliRunner().invoke(cli, ["estate", inventory.name, "--format", "json", "--quiet", "--fail-on", "never"])
    assert check.exit_code == 0 and estate.exit_code == 0, (check.output[-500:], estate.output[-500:])
    local, remote = json.loads(check.stdout), json.loads(estate.stdout)
    assert len({f["rule"] for f in local["findings"]}) >= 10, "the estate exercises many rules"
    assert remote["findings"] == local["findings"]
    assert remote["summary"]["documents"] == local["summary"]["documents"] > 0
