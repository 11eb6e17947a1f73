"""JUnit XML: one test suite per file, one test case per rule that raised
findings in it (a failure carrying every finding), and one passing test case
for a file with no finding. Findings with no file go to a suite named
``<estate>``. Characters XML 1.0 cannot hold (``\x01``, ESC, undecodable
bytes of a file name) are written as visible escapes: the file stays
well-formed."""
from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree as ET

from linter.textsafe import xml_text


def render(result, colour: bool = False) -> str:
    by_file: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for finding in result.findings:
        by_file[finding.file or "<estate>"][finding.rule].append(finding)
    checked = sorted({lf.path for lf in result.loaded if lf.path in _reported(result)} | set(by_file))
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
            worst = "error" if any(f.severity == "error" for f in findings) else findings[0].severity
            failure = ET.SubElement(case, "failure", message=xml_text(f"{len(findings)} finding(s) of {rule_id}"), type=worst)
            failure.text = xml_text("\n".join(f"{file}:{f.line or 0}:{f.column or 0}: {f.rule} [{f.severity}] {f.message}"
                                              for f in findings))
            tests += 1
            failures += 1
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
