"""GitHub Actions workflow commands: annotations on the pull request diff."""
from __future__ import annotations

from linter.textsafe import printable

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    """A workflow command's data: control characters escaped, and line breaks
    percent-encoded as GitHub reads them (a name holding a newline and
    ``::error`` must not start a command of its own)."""
    return printable(text, keep_line_breaks=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result, colour: bool = False) -> str:
    lines = []
    for finding in result.findings:
        props = []
        if finding.file:
            props.append(f"file={_property(finding.file)}")
            if finding.line:
                props.append(f"line={finding.line}")
            if finding.column:
                props.append(f"col={finding.column}")
        props.append(f"title={_property(finding.rule)}")
        lines.append(f"::{LEVELS[finding.severity]} {','.join(props)}::{_data(finding.message)}")
    counts = result.counts()
    lines.append(f"exlint: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    return "\n".join(lines) + "\n"
