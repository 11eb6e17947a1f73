"""JUnit XML: one test suite per file, one test case per rule that raised
findings in it, and one passing test case for a file with no finding.
Findings with no file go to a suite named ``<estate>``. Characters XML 1.0
cannot hold (``\x01``, ESC, undecodable bytes of a file name) are written as
visible escapes: the file stays well-formed.

A test case fails only when one of its findings is at or above the run's
``--fail-on`` level (``result.fail_on``, default error), as the exit code
does; below it the findings are reported in ``<system-out>`` of a passing
case, so a dashboard never goes red on an exit-0 run."""
from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree as ET

from linter.findings import SEVERITY_RANK
from linter.textsafe import xml_text


def render(result, colour: bool = False) -> str:
    by_file: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for finding in result.findings:
        by_file[finding.file or "<estate>"][finding.rule].append(finding)
    checked = sorted({lf.path for lf in result.loaded if lf.path in _reported(result)} | set(by_file))
    fail_on = getattr(result, "fail_on", None) or "error"
    threshold = None if fail_on == "never" else SEVERITY_RANK[fail_on]
    root = ET.Element("testsuites", name="exlint")
    total_tests = total_failures = 0
    for file in checked:
        rules = by_file.get(file, {})
        suite = ET.SubElement(root, "testsuite", name=xml_text(file))
        tests = failures = 0
        if not rules:
            ET.SubElement(suite, "testcase", classname=xml_text(file), name="exlint")
            tests = 1
        for rule_id in sorted(rules):
            findings = rules[rule_id]
            case = ET.SubElement(suite, "testcase", classname=xml_text(file), name=xml_text(rule_id))
            worst = max((f.severity for f in findings), key=SEVERITY_RANK.__getitem__)
            # as the text format: a finding of the estate has no position, not line 0
            text = xml_text("\n".join((f"{file}:{f.line}:{f.column}: " if f.file and f.line else f"{file}: ")
                                       + f"{f.rule} [{f.severity}] {f.message}" for f in findings))
            tests += 1
            if threshold is not None and SEVERITY_RANK[worst] >= threshold:
                failure = ET.SubElement(case, "failure", message=xml_text(f"{len(findings)} finding(s) of {rule_id}"),
                                        type=worst)
                failure.text = text
                failures += 1
            else:
                ET.SubElement(case, "system-out").text = text
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        total_tests += tests
        total_failures += failures
    root.set("tests", str(total_tests))
    root.set("failures", str(total_failures))
    root.set("errors", "0")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _reported(result) -> set[str]:
    return set(getattr(result, "reported_files", ()) or ())
