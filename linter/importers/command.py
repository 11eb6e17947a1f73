"""``exlint import SOURCE… --output DIR`` (registered by the main CLI with
``cli.add_command(import_command)``).

Exit codes: 0 imported; 1 sources disagree on some values (listed on stderr; those
values are not written, everything else is); 2 a source or the output directory
could not be read (nothing is written). Never a traceback for bad input.
"""
from __future__ import annotations

from pathlib import Path

import click

from linter.textsafe import printable


@click.command("import")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of input-model YAML to create or update (servers/, stores/, mailbox-databases/, organization.yaml).",
)
@click.option("--organization", metavar="NAME", help="Name of the Organization document: overrides the name the sources give, and renames an existing "
                   "Organization document.")
@click.option("--dry-run", is_flag=True, help="Report what would be written, and write nothing.")
def import_command(sources: tuple[str, ...], output: Path, organization: str | None, dry_run: bool) -> None:
    """Turn what admins export into input-model YAML documents.

    SOURCE is a file or a directory of: PowerShell CLIXML captures
    (Get-ExchangeServer, Get-MailboxServer, Get-ReceiveConnector, Get-SendConnector,
    Get-TransportConfig, Get-PublicFolderDatabase, Get-MailboxDatabase piped to
    Export-Clixml), EdgeTransport.exe.config, and regedit .reg exports of
    MSExchangeIS\\<server>\\Public-<GUID> / Private-<GUID> keys.

    All sources describing one server or store are merged into one document. A value
    two sources disagree on is reported and not written (exit code 1). Existing files
    in the output directory are updated in place, keeping their comments and layout.
    """
    from .errors import SourceError
    from .pipeline import run_import

    try:
        result = run_import(list(sources), output, organization=organization, dry_run=dry_run)
    except SourceError as exc:  # a file the import must not write (checked before the first is written)
        click.echo(printable(str(exc)), err=True)
        raise SystemExit(2)
    except Exception as exc:  # an importer bug must still not print a traceback
        click.echo(printable(f"{output}: error: internal error while importing: {type(exc).__name__}: {exc}"), err=True)
        raise SystemExit(2)

    for error in result.errors:
        click.echo(printable(str(error)), err=True)
    if result.errors:
        if result.write_started:
            click.echo("error: the output directory could not be fully written", err=True)
        elif any(error.message.startswith("cannot write:") for error in result.errors):
            pass  # the error says nothing was written
        else:
            click.echo(f"error: {len(result.errors)} problem(s); nothing was written", err=True)
        raise SystemExit(2)

    for warning in result.warnings:
        click.echo(printable(warning), err=True)
    for incomplete in result.incomplete:
        click.echo(printable(f"{output / incomplete.path}: warning: {incomplete.message}"), err=True)
    for conflict in result.conflicts:
        click.echo(printable(str(conflict)), err=True)

    verb = "would be " if dry_run else ""
    for change in result.changes:
        click.echo(printable(f"{verb}{change.status}: {output / change.path}"))
    counts = {status: sum(1 for c in result.changes if c.status == status) for status in ("created", "updated", "unchanged")}
    summary = (
        f"imported {len(result.sources)} source file(s): {counts['created']} file(s) {verb}created, "
        f"{counts['updated']} {verb}updated, {counts['unchanged']} unchanged"
    )
    click.echo(summary)
    if result.conflicts:
        click.echo(
            f"error: {len(result.conflicts)} conflicting value(s) between sources were not written; "
            "fix or drop the stale source and import again",
            err=True,
        )
        raise SystemExit(1)
