"""What every command shares: its failure (one line, exit 2), the output
formats, and the options `check` and `estate` both take, defined once. A leaf
module (Click only): cli.py and the optional commands import it, never each
other."""
from __future__ import annotations

import click

FORMATS = ("text", "json", "sarif", "junit", "github", "html")
FAIL_ON_CHOICE = click.Choice(["error", "warning", "info", "never"])


class ExitError(click.ClickException):
    """A run that cannot go on: ``exlint: error: <cause and fix>`` and exit 2."""
    exit_code = 2

    def show(self, file=None):
        from linter.textsafe import printable

        click.echo(f"exlint: error: {printable(self.message)}", err=True)


def compare_without_html(compare: str, add: str) -> ExitError:
    """``--compare`` in a run that writes no html report (check and estate refuse it):
    only that report shows what is new and fixed, so ignoring it would pass silently."""
    return ExitError(f"--compare {compare}: only the html report shows what is new and fixed, and this run "
                     f"writes none: add {add}, or drop --compare")


def split_rule_ids(values, option: str = "--select/--ignore") -> tuple[str, ...]:
    """--select/--ignore values: repeatable and comma-separated, case-insensitive. An empty
    value (`--select ''`, a CI variable left unset) is a usage error: it would select every rule."""
    if any(not any(part.strip() for part in value.split(",")) for value in values):
        raise click.UsageError(f"{option} needs a rule ID or prefix, not an empty value")
    return tuple(part.strip().upper() for value in values for part in value.split(",") if part.strip())


fail_on_option = click.option(
    "--fail-on", type=FAIL_ON_CHOICE, default=None,
    help="Exit 1 when a finding at or above this severity remains (default: error; never: always 0).")
select_option = click.option(
    "--select", multiple=True, help="Only these rule IDs or prefixes (repeatable; comma-separated too).")
ignore_option = click.option(
    "--ignore", multiple=True, help="Skip these rule IDs or prefixes (repeatable; comma-separated too).")
no_inline_suppressions_option = click.option(
    "--no-inline-suppressions", is_flag=True, help="Ignore '# exlint: disable=' comments (for audits).")
