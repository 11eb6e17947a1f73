"""The bundled samples: the clean estate stays clean; every finding of the
broken estate is the one its `# expect: RULE` comment announces, on that line."""
from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

REPO = Path(__file__).resolve().parent.parent
BROKEN = REPO / "samples" / "broken"
EXPECT = re.compile(r"#.*\bexpect:\s*([A-Z0-9, ]+)\s*$")
FAMILIES = {"EXL", "HIE", "REP", "BKF", "DUP", "STS", "RTE", "SHD", "CON"}


def expectations() -> set[tuple[str, int, str]]:
    expected = set()
    for path in sorted(BROKEN.rglob("*.yaml")):
        if path.name == ".exlint.yaml":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = EXPECT.search(line)
            if match:
                for rule in match.group(1).split(","):
                    expected.add((path.relative_to(BROKEN).as_posix(), number, rule.strip()))
    return expected


def test_broken_estate_findings_are_exactly_the_expected_ones():
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--fail-on", "info", str(BROKEN)])
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    got = {(str(Path(f["file"]).resolve().relative_to(BROKEN)), f["line"], f["rule"]) for f in findings}
    assert got == expectations()


def test_broken_estate_exercises_every_rule_family():
    assert {rule[:3] for _, _, rule in expectations()} == FAMILIES
