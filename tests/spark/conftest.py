"""One SparkSession for the whole test session (starting Spark costs seconds).
Tests skip, with the reason, when PySpark or a suitable Java is missing."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # parity.py, standalone.py


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is an optional extra: pip install 'exlint[spark]'")
    from linter.engines.spark.session import SessionError, SessionOptions, build_session

    try:
        session = build_session(SessionOptions(app_name="exlint tests", conf={"spark.ui.enabled": "false"}))
    except SessionError as exc:
        pytest.skip(str(exc))
    yield session
    session.stop()
