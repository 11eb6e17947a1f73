"""Which report goes where: ``--format`` and ``--output`` options.

An ``--output`` file's extension names its format (``a.sarif`` is SARIF), so a
report cannot land in a file of the wrong kind. A ``--format`` of the kind an
output's extension names is that output's format: first the format the
extension names itself, then one it also accepts (SARIF in ``a.json``) only when
no output names that format (``--output a.json --output b.sarif --format sarif``
writes JSON to ``a.json``). An output whose extension names no format takes
the next remaining ``--format`` in order; at most one ``--format`` is left for
standard output. Giving as many formats as outputs
means each output was meant to take one: a format that no output's extension
accepts is then a contradiction, not a report on the terminal.
"""
from __future__ import annotations

# extension -> (the format it implies, the formats it accepts)
EXTENSIONS = {
    ".sarif": ("sarif", ("sarif",)),
    ".json": ("json", ("json", "sarif")),
    ".xml": ("junit", ("junit",)),
    ".junit": ("junit", ("junit",)),
    ".html": ("html", ("html",)),
    ".htm": ("html", ("html",)),
    ".txt": ("text", ("text", "github")),
    ".log": ("text", ("text", "github")),
}


class RoutingError(ValueError):
    pass


def extension_of(path: str) -> str | None:
    name = path.lower()
    if name.endswith(".sarif.json"):
        return ".sarif"
    for extension in EXTENSIONS:
        if name.endswith(extension):
            return extension
    return None


def route(formats: list[str], outputs: list[str], default: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(format, file) pairs to write and the formats for standard output."""
    if "-" in outputs:  # would be a file named "-"; many tools read it as standard output
        raise RoutingError("--output -: a report goes to standard output when no --output names it; drop "
                           "--output - (keep its --format), or name a file")
    remaining = list(formats)
    chosen: dict[int, str] = {}
    kinds = {p: EXTENSIONS[e] for p, e in enumerate(map(extension_of, outputs)) if e is not None}
    unknown = [p for p in range(len(outputs)) if p not in kinds]
    # the format an extension names first: a.json would otherwise take a SARIF meant for b.sarif
    for position, (implied, _) in kinds.items():
        if implied in remaining:
            remaining.remove(implied)
            chosen[position] = implied
    for position, (implied, accepted) in kinds.items():
        if position in chosen:
            continue
        match = next((f for f in remaining if f in accepted), None)
        if match is not None:
            remaining.remove(match)
        chosen[position] = match or implied
    for position in unknown:
        if not remaining:
            raise RoutingError(
                f"cannot tell the format of --output {outputs[position]} from its extension: add a --format "
                f"for it, or name it {', '.join(sorted(EXTENSIONS))}")
        chosen[position] = remaining.pop(0)
    intended_for_stdout = max(0, len(formats) - len(outputs))
    if len(remaining) > intended_for_stdout:
        stray = remaining[0]
        files = ", ".join(f"{outputs[p]} ({chosen[p]})" for p in sorted(chosen)) or "none"
        raise RoutingError(
            f"--format {stray} matches no --output by extension ({files}); name the file for its format "
            f"(e.g. exlint.{_example_extension(stray)}), or drop the --format")
    if len(remaining) > 1:
        raise RoutingError("only one format can go to standard output: give an --output for the others")
    if not formats and not outputs:
        remaining = [default]
    return [(chosen[p], outputs[p]) for p in range(len(outputs))], remaining


def _example_extension(fmt: str) -> str:
    return {"sarif": "sarif", "json": "json", "junit": "xml", "html": "html"}.get(fmt, "txt")
