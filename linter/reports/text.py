"""``path:line:col: ID [severity] message``; grouped and coloured on a terminal."""
from __future__ import annotations

import click

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
                lines.append(click.style(finding.file or "<estate>", bold=True, underline=True))
            where = f"{finding.line or 0}:{finding.column or 0}"
            severity = click.style(f"[{finding.severity}]", fg=_COLOURS[finding.severity])
            lines.append(f"  {where:>8}  {click.style(finding.rule, bold=True)} {severity} {finding.message}")
    else:
        for finding in result.findings:
            location = f"{finding.file}:{finding.line or 0}:{finding.column or 0}" if finding.file else "<estate>"
            lines.append(f"{location}: {finding.rule} [{finding.severity}] {finding.message}")
    counts = result.counts()
    summary = (f"{result.files} file(s), {result.documents} document(s): "
               f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    if lines:
        lines.append("")
    lines.append(click.style(summary, dim=True) if colour else summary)
    return "\n".join(lines) + "\n"
