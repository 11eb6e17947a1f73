"""``path:line:col: ID [severity] message``; grouped and coloured on a terminal.
Every value is printed with its control characters escaped (linter.textsafe):
one finding is one line, whatever a name holds."""
from __future__ import annotations

import click

from linter.textsafe import printable

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def render(result, colour: bool = False) -> str:
    lines = []
    if colour:
        current = object()
        for finding in result.findings:
            if finding.file != current:
                current = finding.file
                if lines:
                    lines.append("")
                lines.append(click.style(printable(finding.file or "<estate>"), bold=True, underline=True))
            where = f"{finding.line or 0}:{finding.column or 0}"
            severity = click.style(f"[{finding.severity}]", fg=_COLOURS[finding.severity])
            lines.append(f"  {where:>8}  {click.style(printable(finding.rule), bold=True)} {severity} "
                         f"{printable(finding.message)}")
    else:
        for finding in result.findings:
            location = f"{printable(finding.file)}:{finding.line or 0}:{finding.column or 0}" if finding.file else "<estate>"
            lines.append(f"{location}: {printable(finding.rule)} [{finding.severity}] {printable(finding.message)}")
    counts = result.counts()
    summary = (f"{result.files} file(s), {result.documents} document(s): "
               f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    if lines:
        lines.append("")
    lines.append(click.style(summary, dim=True) if colour else summary)
    return "\n".join(lines) + "\n"
