"""``path:line:col: ID [severity] message``, one finding a line; on a colour
terminal the same lines, only coloured (the layout never depends on colour, so
NO_COLOR and --color change nothing a script would parse)."""
from __future__ import annotations

import click

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def render(result, colour: bool = False) -> str:
    def style(text, **how):
        return click.style(text, **how) if colour else text

    lines = []
    for finding in result.findings:
        location = f"{finding.file}:{finding.line or 0}:{finding.column or 0}" if finding.file else "<estate>"
        severity = style(f"[{finding.severity}]", fg=_COLOURS[finding.severity])
        lines.append(f"{style(location, bold=True)}: {style(finding.rule, bold=True)} {severity} {finding.message}")
    counts = result.counts()
    summary = (f"{result.files} file(s), {result.documents} document(s): "
               f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    skipped = len(getattr(result, "skipped", ()) or ())
    if skipped:
        summary += f"; {skipped} file(s) skipped: not exlint documents"
    if lines:
        lines.append("")
    lines.append(style(summary, dim=True))
    return "\n".join(lines) + "\n"
