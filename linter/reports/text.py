"""``path:line:col: ID [severity] message``, one finding a line; on a colour
terminal the same lines, only coloured (the layout never depends on colour, so
NO_COLOR and --color change nothing a script would parse). A finding that
``--fix`` would fix is marked ``[*]`` after its severity, and the summary ends
with how many ``--fix`` and ``--unsafe-fixes`` would fix. Every value is printed
with its control characters escaped (linter.textsafe): one finding is one line,
whatever a name holds."""
from __future__ import annotations

import click

from linter.textsafe import printable

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}


def _fixes(result) -> dict[int, str]:
    rules = getattr(result, "rules", None) or {}
    if getattr(result, "estate", None) is None or not hasattr(result, "loaded"):
        return {}  # findings without the files they came from: nothing a fix could edit
    if not any(getattr(rules.get(f.rule), "fixable", False) for f in result.findings):
        return {}  # nothing to plan: keep the fix engine out of plain runs
    from linter.fixing.engine import available_fixes

    return available_fixes(result)


def _fix_summary(fixes: dict[int, str]) -> str:
    safe = sum(1 for s in fixes.values() if s == "safe")
    unsafe = len(fixes) - safe
    if not fixes:
        return ""
    return f"{safe} fixable with --fix" + (f" ({unsafe} more with --unsafe-fixes)" if unsafe else "")


def render(result, colour: bool = False) -> str:
    def style(text, **how):
        return click.style(text, **how) if colour else text

    lines = []
    fixes = _fixes(result)
    mark = lambda finding: "[*] " if fixes.get(id(finding)) == "safe" else ""  # noqa: E731
    for finding in result.findings:
        location = f"{printable(finding.file)}:{finding.line or 0}:{finding.column or 0}" if finding.file else "<estate>"
        severity = style(f"[{finding.severity}]", fg=_COLOURS[finding.severity])
        lines.append(f"{style(location, bold=True)}: {style(printable(finding.rule), bold=True)} {severity} "
                     f"{mark(finding)}{printable(finding.message)}")
    counts = result.counts()
    summary = (f"{result.files} file(s), {result.documents} document(s): "
               f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    skipped = len(getattr(result, "skipped", ()) or ())
    if skipped:
        summary += f"; {skipped} file(s) skipped: not exlint documents"
    if lines:
        lines.append("")
    lines.append(style(summary, dim=True))
    if fixes:
        lines.append(_fix_summary(fixes))
    return "\n".join(lines) + "\n"
