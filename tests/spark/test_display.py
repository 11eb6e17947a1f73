"""A value as a message shows it, in Spark SQL (compile.display) against the local
engine's linter.policy.locate.display: the text as written when there is one, else
the value, for every pairing of a text's type and a value's type, nulls included."""
from __future__ import annotations

import itertools

import pytest

from linter.engines.spark.compile import BOOL, FLOAT, INT, LIST, STR, Val, display
from linter.policy.locate import display as local_display

SPARK_TYPES = {STR: "STRING", INT: "BIGINT", FLOAT: "DOUBLE", BOOL: "BOOLEAN", LIST: "ARRAY<STRING>"}
SAMPLES = {
    STR: [None, "", "EX10-LON-01", "0x10"],
    INT: [None, 0, 12, -3],
    FLOAT: [None, 2.0, 1234.5, -0.25],
    BOOL: [None, True, False],
    LIST: [None, [], ["PFDB-LON", None, "PFDB-PAR"], [f"S{i}" for i in range(23)]],
}
TEXT_TYPES = (STR, LIST)


def _literal(value, kind: str) -> str:
    if value is None:
        return f"CAST(NULL AS {SPARK_TYPES[kind]})"
    if kind == STR:
        return "'" + value.replace("'", "''") + "'"
    if kind == BOOL:
        return "true" if value else "false"
    if kind == FLOAT:
        return f"CAST({value!r} AS DOUBLE)"
    if kind == LIST:
        return f"CAST(array({', '.join(_literal(v, STR) for v in value)}) AS ARRAY<STRING>)"
    return f"CAST({value} AS BIGINT)"


@pytest.mark.parametrize("text_type, value_type",
                         [(t, v) for t in TEXT_TYPES for v in SAMPLES] + [(None, v) for v in SAMPLES])
def test_display_shows_the_text_else_the_value_as_the_local_engine_does(spark, text_type, value_type):
    texts = SAMPLES[text_type] if text_type else [None]
    cases = list(itertools.product(texts, SAMPLES[value_type]))
    rows = " UNION ALL ".join(
        f"SELECT {i} AS i, {_literal(text, text_type or STR)} AS t, {_literal(value, value_type)} AS v"
        for i, (text, value) in enumerate(cases))
    val = Val("v", value_type, "t" if text_type else None, text_type)
    shown = {row["i"]: row["d"] for row in spark.sql(f"SELECT i, {display(val)} AS d FROM ({rows})").collect()}
    expected = {i: local_display(value, text) for i, (text, value) in enumerate(cases)}
    assert shown == expected


@pytest.mark.xfail(strict=True, reason="known drift (issue 17): Spark casts a double of 1e7 or more that is not a "
                                       "whole number to Java's scientific form (1.23456785E7), Python shows 12345678.5; "
                                       "a value read from a file shows its text, so only computed values are affected")
def test_a_large_fractional_float_without_text_shows_as_python_shows_it(spark):
    shown = spark.sql(f"SELECT {display(Val('CAST(12345678.5 AS DOUBLE)', FLOAT))} AS d").collect()[0]["d"]
    assert shown == local_display(12345678.5)
