"""Writing findings, atomically: Spark writes into a temporary directory beside
the target, which replaces the target only when the whole write succeeded, so
a failed or interrupted run leaves no partial output.

Replacing a directory deletes what it held, so the target must be exlint's own:
absent, empty, or an earlier findings output, which carries the MARKER file
this module writes. Anything else (``.``, a home directory, a folder holding
the inventory or the user's files) is refused before Spark starts."""
from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from linter.reports.routing import EXTENSIONS, extension_of

FORMATS = ("parquet", "jsonl")
# Spark and exlint's --compare skip files whose names start with "_" when reading findings back
MARKER = "_EXLINT_FINDINGS"


class OutputError(Exception):
    pass


def in_findings_output(path, tops, marked: dict | None = None) -> bool:
    """Whether a walked file lies in an `exlint estate --output` folder (one holding
    MARKER: findings, not inventory) below the folder it was walked from, one of
    ``tops`` (never checked itself). ``marked``: a cache of the folders looked at, kept
    by a caller asking for many files of one walk. Estate's walk skips such files;
    check's names none of them among the inventories it does not read."""
    marked = {} if marked is None else marked
    stops = {os.path.abspath(top) for top in tops}
    folder = os.path.dirname(os.path.abspath(path))
    while folder not in stops and folder != os.path.dirname(folder):
        if folder not in marked:
            marked[folder] = os.path.isfile(os.path.join(folder, MARKER))
        if marked[folder]:
            return True
        folder = os.path.dirname(folder)
    return False


def _within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def check_target(target: str, inputs=()) -> Path:
    """The resolved target, or OutputError when writing there could destroy what
    exlint did not write (checked before the job and again before the commit)."""
    if target == "-":  # a folder named "-"; many tools read it as standard output
        raise OutputError("--output -: the findings go to standard output when there is no --output; drop it "
                          "(--format picks how they are printed), or give a new directory such as findings/")
    destination = Path(target).resolve()
    parent = destination.parent
    report_file = extension_of(target)
    if report_file and not destination.is_dir():  # `--output out.json` would make a Parquet folder named out.json
        kind = "an HTML report" if report_file in (".html", ".htm") else "a report file"
        fix = ("--report " + target if kind == "an HTML report"
               else f"redirect standard output (--format {EXTENSIONS[report_file][0]} > {target})")
        raise OutputError(f"{target}: names {kind} ({report_file}), but estate's --output is a folder of findings "
                          f"(Parquet, or JSON Lines with --output-format jsonl); for the file, {fix}; for the "
                          f"folder, give a name without {report_file}, such as findings/")
    if _within(Path.cwd().resolve(), destination):
        raise OutputError(f"{target}: is the current directory or holds it; give a new directory for the findings, "
                          f"such as findings/")
    for source in inputs:
        if _within(Path(source).resolve(), destination):
            raise OutputError(f"{target}: holds the inventory ({source}); give a new directory for the findings")
    if not parent.is_dir():
        raise OutputError(f"{target}: the parent directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{target}: cannot write in {parent}")
    if destination.exists() or destination.is_symlink():
        if not destination.is_dir():
            raise OutputError(f"{target}: exists and is not a directory")
        try:
            entries = [entry.name for entry in os.scandir(destination)]
        except OSError as exc:
            raise OutputError(f"{target}: cannot read the directory: {exc.strerror or exc}") from None
        if entries and not (destination / MARKER).is_file():
            raise OutputError(f"{target}: holds files exlint did not write ({len(entries)} entries, no {MARKER} "
                              f"marker of an earlier exlint output); give a new or empty directory")
        added = [name for name in entries if not _written_by_exlint(destination, name)]
        if added:  # a note or an analysis put in beside the findings is not replaced with them
            raise OutputError(f"{target}: an earlier exlint output that now also holds {added[0]!r}, which exlint "
                              f"did not write; move it out, or give a new directory")
    return destination


def _written_by_exlint(directory: Path, name: str) -> bool:
    """Whether an entry of an earlier output is one of the job's own: the marker,
    Spark's ``_SUCCESS`` and checksums, and ``rule=ID/`` folders of part files."""
    if name in (MARKER, "_SUCCESS", "._SUCCESS.crc"):
        return True
    folder = directory / name
    if not name.startswith("rule=") or folder.is_symlink() or not folder.is_dir():
        return False
    try:
        return all(part.name.startswith(("part-", ".part-")) and part.is_file() and not part.is_symlink()
                   for part in os.scandir(folder))
    except OSError:
        return False


# staging folders of writes that failed or were interrupted: Spark's tasks may still write
# into one after the driver gave up on it (Ctrl-C cancels the job, its tasks end later), so
# whoever stops Spark removes them again once it has (command._interrupted)
ABANDONED: list = []


def remove_abandoned() -> None:
    while ABANDONED:
        shutil.rmtree(ABANDONED.pop(), ignore_errors=True)


def write_findings(findings, target: str, fmt: str, inputs=()) -> None:
    """Findings partitioned by rule (``rule=ID/`` directories)."""
    from linter import __version__

    destination = check_target(target, inputs)
    parent = destination.parent
    staging = parent / f".{destination.name}.exlint-{uuid.uuid4().hex[:8]}"
    writer = findings.repartition("rule").write.mode("errorifexists").partitionBy("rule")
    try:
        if fmt == "parquet":
            writer.parquet(staging.as_uri())
        else:
            writer.json(staging.as_uri())
        (staging / MARKER).write_text(json.dumps({"tool": "exlint", "version": __version__, "format": fmt}) + "\n",
                                      encoding="utf-8")
        check_target(target, inputs)  # the directory may have changed while the job ran
        previous = None
        if destination.exists():
            previous = parent / f".{destination.name}.exlint-old-{uuid.uuid4().hex[:8]}"
            os.replace(destination, previous)
        os.replace(staging, destination)
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
    except BaseException:  # Ctrl-C too: no partial output
        shutil.rmtree(staging, ignore_errors=True)
        ABANDONED.append(staging)
        raise
