"""Writing findings, atomically: Spark writes into a temporary directory beside
the target, which replaces the target only when the whole write succeeded, so
a failed run leaves no partial output."""
from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

FORMATS = ("parquet", "jsonl")


class OutputError(Exception):
    pass


def write_findings(findings, target: str, fmt: str) -> None:
    """Findings partitioned by rule (``rule=ID/`` directories)."""
    destination = Path(target).resolve()
    parent = destination.parent
    if not parent.is_dir():
        raise OutputError(f"{target}: the parent directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{target}: cannot write in {parent}")
    if destination.exists() and not destination.is_dir():
        raise OutputError(f"{target}: exists and is not a directory")
    staging = parent / f".{destination.name}.exlint-{uuid.uuid4().hex[:8]}"
    writer = findings.repartition("rule").write.mode("errorifexists").partitionBy("rule")
    try:
        if fmt == "parquet":
            writer.parquet(staging.as_uri())
        else:
            writer.json(staging.as_uri())
        previous = None
        if destination.exists():
            previous = parent / f".{destination.name}.exlint-old-{uuid.uuid4().hex[:8]}"
            os.replace(destination, previous)
        os.replace(staging, destination)
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
    except Exception:
        shutil.rmtree(staging, ignore_errors=True)
        raise
