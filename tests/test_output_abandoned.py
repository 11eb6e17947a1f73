"""`exlint estate --output`: a write that is interrupted leaves no staging folder, even when
Spark's tasks go on writing into it after the driver gave up (Ctrl-C cancels the job; its
tasks end later): whoever stops Spark removes the given-up folders again."""
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
