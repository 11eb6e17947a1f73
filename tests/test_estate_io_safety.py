"""`exlint estate` and its files, without a Spark job: a write that is interrupted leaves no
staging folder, even when Spark's tasks go on writing into it after the driver gave up
(Ctrl-C cancels the job; its tasks end later), as whoever stops Spark removes the given-up
folders again; a YAML file it may not read is an I/O error before Spark starts, as in check."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from linter.engines.spark import output


class _Writer:
    """The chain findings.repartition().write.mode().partitionBy().json(uri), interrupted."""

    def __init__(self, late: list):
        self.late = late

    def __getattr__(self, name):
        return lambda *args, **kwargs: self

    @property
    def write(self):
        return self

    def json(self, uri):
        staging = Path(urlparse(uri).path)
        (staging / "_temporary").mkdir(parents=True)
        self.late.append(staging)
        raise KeyboardInterrupt


def test_a_staging_folder_a_late_task_writes_into_is_removed_once_spark_stops(tmp_path):
    late: list[Path] = []
    with pytest.raises(KeyboardInterrupt):
        output.write_findings(_Writer(late), str(tmp_path / "findings"), "json")
    [staging] = late
    (staging / "_temporary" / "0").mkdir(parents=True)  # a task still running wrote after the clean-up
    (staging / "_temporary" / "0" / "part-0.json").write_text("{}\n")
    output.remove_abandoned()
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())
    assert output.ABANDONED == []


def test_estate_refuses_a_yaml_file_it_may_not_read_as_check_does(tmp_path, monkeypatch):
    # it was an EXL001 finding (exit 0 under --fail-on never); check says "cannot read", exit 2
    import errno
    import os

    from linter.engines.spark import inventory
    from linter.loading import InputError

    (tmp_path / "server.yaml").write_text("apiVersion: exlint/v1\nkind: Server\nmetadata: {name: A}\nspec: {}\n")
    locked = os.path.realpath(tmp_path / "server.yaml")
    real_open = os.open

    def refuse(path, flags, *args):
        if os.fspath(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(inventory.os, "open", refuse)
    with pytest.raises(InputError, match=r"server\.yaml: cannot read: Permission denied"):
        inventory.discover_inputs([str(tmp_path)])
