"""The `exlint` command's entry point. Importing the CLI takes tens of
milliseconds (Click, the command modules); a Ctrl-C in them reached Python's
default handler and printed a traceback. This module imports nothing, so an
interrupt at any moment is exlint's one line and exit 130."""
import sys

# linter.cli.INTERRUPTED, written here too: the CLI is what may not have been imported yet
INTERRUPTED = ("exlint: interrupted (Ctrl-C): stopped before the end, no file left half-written; "
               "run the command again to finish")


def main() -> None:
    try:
        from linter.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED + "\n")
        sys.exit(130)
    run()
