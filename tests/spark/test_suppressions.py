"""Inline suppressions (`# exlint: disable=`) in an estate's YAML files silence
the same findings in `exlint estate` as in `exlint check`, and the same unused
ones are reported (EXL010): on the finding's line, on a line of their own before
it, for the whole file, by rule prefix, and a suppression naming a prefix and a
full ID (the finding uses the first in sorted order; the other is unused)."""
from __future__ import annotations

import shutil
from pathlib import Path

from parity import key

from linter.config import Config
from linter.runner import Options, lint

ROOT = Path(__file__).resolve().parents[2]


def _plain_line(text: str) -> bool:
    """A one-line `key: value` (a comment appended to it ends the line)."""
    stripped = text.split("#")[0].strip()
    return ":" in stripped and not stripped.endswith(("|", ">", "|-", ">-", ":")) and stripped.count('"') % 2 == 0


def _annotate(directory: Path) -> None:
    """Suppression comments for some findings of the local engine, written into the files."""
    findings = [f for f in lint(Options([str(directory)], use_cache=False)).findings
                if f.file and f.line and f.rule not in ("EXL001", "EXL002")]
    by_file: dict[str, list] = {}
    for finding in findings:
        by_file.setdefault(finding.file, []).append(finding)
    files = sorted(by_file, key=lambda f: -len(by_file[f]))
    assert len(files) >= 3, "the broken samples should raise findings in several files"
    edits: dict[Path, dict[int, str]] = {}

    def put(file, line, how):
        edits.setdefault(Path(file), {})[line] = how

    first = sorted(by_file[files[0]], key=lambda f: (f.line, f.rule))
    lines = Path(files[0]).read_text().splitlines()
    plain = list({f.line: f for f in reversed(first) if _plain_line(lines[f.line - 1])}.values())[::-1]
    assert len(plain) >= 2 and plain[0].line != plain[1].line  # one edit per line, else one overwrites the other
    put(plain[0].file, plain[0].line, f"end:{plain[0].rule}")  # on the finding's line
    put(plain[1].file, plain[1].line, f"above:{plain[1].rule[:3]},{plain[1].rule}")  # prefix first, full ID unused
    second = by_file[files[1]][0]
    put(second.file, 1, f"file:{second.rule}")  # the whole file
    put(files[2], 1, "file:ZZZ999")  # silences nothing
    for path, lines in edits.items():
        text = path.read_text().splitlines()
        for line in sorted(lines, reverse=True):  # from the bottom, so earlier line numbers hold
            where, rules = lines[line].split(":", 1)
            if where == "end":
                text[line - 1] += f"  # exlint: disable={rules} reason=\"test\""
            elif where == "above":
                indent = text[line - 1][: len(text[line - 1]) - len(text[line - 1].lstrip())]
                text.insert(line - 1, f"{indent}# exlint: disable={rules}")
            else:
                text.insert(0, f"# exlint: disable-file={rules}")
                if rules == "ZZZ999":  # and a comment to exlint that is no suppression
                    text.insert(0, "# exlint: disable EXL007")
        path.write_text("\n".join(text) + "\n")


def _spark(spark, directory: Path, inline: bool, select=(), ignore=()) -> set:
    from linter.engines.spark import job
    from linter.engines.spark.inventory import discover_inputs
    from linter.policy.packs import load_rules

    run = job.run(spark, discover_inputs([str(directory)]), load_rules(), Config(), select, ignore,
                  inline_suppressions=inline)
    try:
        out = set()
        for row in run.findings.toLocalIterator():
            finding = row.asDict()
            finding["entity"] = ({"kind": finding["entity_kind"], "name": finding["entity_name"]}
                                 if finding["entity_kind"] else None)
            out.add(key(finding))
        return out
    finally:
        run.close()


def test_suppressions_silence_the_findings_check_silences(spark, tmp_path):
    directory = tmp_path / "broken"
    shutil.copytree(ROOT / "samples" / "broken", directory)
    _annotate(directory)
    local = {key(f.as_dict()) for f in lint(Options([str(directory)], use_cache=False)).findings}
    audit = {key(f.as_dict()) for f in lint(Options([str(directory)], use_cache=False,
                                                    inline_suppressions=False)).findings}
    unused = sorted(f[2].split(":")[0] for f in local if f[0] == "EXL010")
    # what the comments mean, in the local engine: the prefix's partner is unused, ZZZ999 is a typo
    assert len(unused) == 3 and "unknown rule ZZZ999 in suppression" in unused, unused
    assert "suppression comment not understood, so it silences nothing" in unused, unused
    assert len(audit - local) >= 3, "the comments should silence findings"
    assert _spark(spark, directory, True) == local
    assert _spark(spark, directory, False) == audit


def test_a_suppression_of_a_rule_left_out_is_not_unused_in_spark(spark, tmp_path):
    # as in check: --ignore (or a --select without it) did not run the rule, so its
    # suppression silenced nothing because nothing was asked, not because it is stale
    directory = tmp_path / "broken"
    shutil.copytree(ROOT / "samples" / "broken", directory)
    _annotate(directory)
    everything = {key(f.as_dict()) for f in lint(Options([str(directory)], use_cache=False)).findings}
    silenced = {f[0] for f in {key(f.as_dict()) for f in lint(Options([str(directory)], use_cache=False,
                inline_suppressions=False)).findings} - everything}
    ignore = tuple(sorted(silenced))
    local = {key(f.as_dict()) for f in lint(Options([str(directory)], use_cache=False, ignore=ignore)).findings}
    unused = sorted(f[2].split(":")[0] for f in local if f[0] == "EXL010")
    assert not [u for u in unused if u.split()[-1] in ignore], unused  # a prefix some other rule answers stays
    assert "unknown rule ZZZ999 in suppression" in unused  # a typo is one whatever ran
    assert _spark(spark, directory, True, ignore=ignore) == local
