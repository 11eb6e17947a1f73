"""`exlint generate`: a synthetic estate with injected defects and their manifest.

Importing this package is light (Click only); the generator itself is imported
when the command runs.
"""
from __future__ import annotations

import sys

import click

from linter.suffixes import JSONL_SUFFIXES


@click.command(name="generate")
@click.option("--servers", type=click.IntRange(min=6, max=10_000_000), default=200, show_default=True,
              help="Number of Exchange servers (about one AD site per 25; at most 10,000,000: ~37 GB of JSON Lines).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Random seed: the same seed gives the same bytes.")
@click.option("--defect-rate", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Probability of a defect per eligible object (server, store, mailbox database, folder, ...).")
@click.option("--format", "fmt", type=click.Choice(["yaml", "jsonl"]), default=None,
              help="yaml: a directory tree (a config repo); jsonl: one document per line. "
                   "Default: jsonl when --output ends in .jsonl, else yaml.")
@click.option("--output", type=click.Path(), default=None,
              help="Directory (yaml) or file (jsonl). Default: estate or estate.jsonl.")
@click.option("--inject", "force", multiple=True, metavar="INJECTOR",
              help="Inject this defect at least once (repeatable; see --list-injectors).")
@click.option("--overwrite", is_flag=True, help="Replace an existing output.")
@click.option("--list-injectors", is_flag=True, help="List the defect injectors and exit.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on standard error.")
def generate_command(servers, seed, defect_rate, fmt, output, force, overwrite, list_injectors, quiet):
    """Generate a synthetic estate with known, injected defects and a manifest of them.

    The manifest (manifest.json in the directory, or OUTPUT.manifest.json next to a
    JSON Lines file) lists every finding the defects must raise: rule, entity,
    file and line.
    """
    from linter.generate.core import GenerateError, Settings, generate
    from linter.generate.injectors import CATALOG

    if list_injectors:
        width = max(len(i.id) for i in CATALOG)
        for i in CATALOG:
            click.echo(f"{i.id:<{width}}  {i.rule}  {i.level:<10}  {i.title}")
        return
    if fmt is None:
        fmt = "jsonl" if output and output.endswith(JSONL_SUFFIXES) else "yaml"
    if output is None:
        output = "estate.jsonl" if fmt == "jsonl" else "estate"
    try:
        summary = generate(Settings(servers, seed, defect_rate, fmt, output, tuple(force), overwrite))
    except GenerateError as exc:
        click.echo(f"exlint: error: {exc}", err=True)
        sys.exit(2)
    except OSError as exc:
        click.echo(f"exlint: error: {output}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    if not quiet:
        docs = summary["documents"]
        total = sum(docs.values())
        rate = servers / summary["seconds"] if summary["seconds"] else 0.0
        click.echo(
            f"exlint generate: {summary['output']}: {total} documents ({docs['Server']} servers, "
            f"{docs['PublicFolderDatabase']} stores, {docs['MailboxDatabase']} mailbox databases, "
            f"{docs['PublicFolder']} folders) in {summary['sites']} sites; {summary['defects']} defects, "
            f"{summary['expectedFindings']} expected findings in {summary['manifest']}; "
            f"{summary['seconds']:.2f}s ({rate:,.0f} servers/s)",
            err=True,
        )
        if summary["unusedForced"]:
            click.echo(f"exlint generate: no eligible object for: {', '.join(summary['unusedForced'])}", err=True)


__all__ = ["generate_command"]
