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
        if value != value or abs(value) == float("inf"):
            return f"CAST('{'NaN' if value != value else 'Infinity' if value > 0 else '-Infinity'}' AS DOUBLE)"
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


# floats that are no whole numbers, at every magnitude where Java's and Python's forms
# differ (Java: scientific from 1e7 up and below 1e-3; Python: up to 1e16, down to 1e-4);
# not 5e-324: Java 17 writes that subnormal 4.9E-324, more digits than the shortest
# (fixed in Java 19), and exlint's display follows Spark's digits
FRACTIONAL_FLOATS = [12345678.5, -12345678.5, 1234567.25, 9999999.5, 10000000.5, 123456789012.75,
                     1e15 + 0.5, 4503599627370495.5, 0.5, 0.1, -0.25, 1 / 3, 2 / 3 * 1e10, 0.001, 0.00123,
                     0.0009, 0.00015, -0.00015, 0.0001, 1e-05, 1.5e-05, 1.2345e-10, 1e-300,
                     float("nan"), float("inf"), float("-inf")]


def test_a_fractional_float_without_text_shows_as_python_shows_it(spark):
    import random

    values = FRACTIONAL_FLOATS + [random.Random(seed).uniform(1, 10) * 10.0 ** random.Random(seed).randint(-12, 15)
                                  for seed in range(300)]
    values = [v for v in values if not (v == v and abs(v) != float("inf") and v.is_integer())]
    rows = " UNION ALL ".join(f"SELECT {i} AS i, {_literal(v, FLOAT)} AS v" for i, v in enumerate(values))
    shown = {row["i"]: row["d"] for row in spark.sql(f"SELECT i, {display(Val('v', FLOAT))} AS d FROM ({rows})").collect()}
    assert {i: shown[i] for i in range(len(values))} == {i: local_display(v) for i, v in enumerate(values)}
