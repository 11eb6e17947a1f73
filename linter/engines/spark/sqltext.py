"""Spark SQL text: quoting, literals and the value helpers the compiler shares.

Rules compile to SQL text rather than to Column objects: one ``spark.sql``
call per check form instead of thousands of JVM round trips for Column
building, and joins whose column lists are written only once every
expression of a check has said which columns it needs.
"""
from __future__ import annotations

import math

STR, INT, FLOAT, BOOL, LIST, NULL, ANY = "str", "int", "float", "bool", "list", "null", "any"
NUMERIC = (INT, FLOAT, BOOL)
SPARK_TYPE = {STR: "STRING", INT: "BIGINT", FLOAT: "DOUBLE", BOOL: "BOOLEAN", LIST: "ARRAY<STRING>"}
NOT_SET = "(not set)"
MISSING_BOOL = "CAST(NULL AS BOOLEAN)"


def q(name: str) -> str:
    """A quoted identifier."""
    return "`" + name.replace("`", "``") + "`"


def string(text: str) -> str:
    """A SQL string literal (Spark unescapes backslashes in literals). A ``$`` is
    written as its escape ``\\u0024``: Spark rewrites ``${...}`` anywhere in a SQL
    text before parsing it (variable substitution: an unknown name by nothing,
    ``${env:X}`` by the environment's X), which would change a rule's ``'${x}'``."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("$", "\\u0024") + "'"


def typed_null(kind: str) -> str:
    spark = SPARK_TYPE.get(kind)
    return f"CAST(NULL AS {spark})" if spark else "NULL"


def literal_sql(value) -> tuple[str, str]:
    """(SQL, compiler type) of a constant."""
    if value is None:
        return "NULL", NULL
    if isinstance(value, bool):
        return ("true" if value else "false"), BOOL
    if isinstance(value, int):
        if -(2**63) <= value < 2**63:
            return f"CAST({value} AS BIGINT)", INT
        value = float(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f"CAST({string(repr(value))} AS DOUBLE)", FLOAT
        return f"CAST({repr(value)} AS DOUBLE)", FLOAT
    if isinstance(value, str):
        return string(value), STR
    raise ValueError(f"unsupported constant {value!r}")


def display_sql(x: str, kind: str) -> str:
    """linter.policy.locate.display of a value (not its text) as SQL."""
    unset = string(NOT_SET)
    if kind == NULL:
        return unset
    if kind == STR:
        return f"coalesce({x}, {unset})"
    if kind == INT:
        return f"coalesce(CAST({x} AS STRING), {unset})"
    if kind == FLOAT:
        return (f"CASE WHEN {x} IS NULL THEN {unset} "
                f"WHEN {x} = floor({x}) AND abs({x}) < 9.2e18 THEN CAST(CAST({x} AS BIGINT) AS STRING) "
                f"ELSE {_python_float_text(x)} END")
    if kind == BOOL:
        return f"CASE WHEN {x} IS NULL THEN {unset} WHEN {x} THEN 'true' ELSE 'false' END"
    if kind == LIST:  # capped as linter.policy.locate.display caps
        from linter.policy.locate import MAX_LISTED, MORE

        listed = f"filter({x}, v -> v IS NOT NULL)"
        before, after = MORE.split("{count}")
        return (f"CASE WHEN {x} IS NULL THEN {unset} "
                f"WHEN size({listed}) > {MAX_LISTED} THEN concat(array_join(slice({listed}, 1, {MAX_LISTED}), ', '), "
                f"{string(before)}, CAST(size({listed}) - {MAX_LISTED} AS STRING), {string(after)}) "
                f"WHEN array_join({x}, ', ') = '' THEN '(none)' "
                f"ELSE array_join({x}, ', ') END")
    return f"coalesce(CAST({x} AS STRING), {unset})"


def and_all(parts) -> str:
    parts = [p for p in parts if p]
    if not parts:
        return "true"
    return " AND ".join(f"({p})" for p in parts)


_JAVA_SCIENTIFIC = string("^(-?)([0-9])[.]([0-9]+)E(-?[0-9]+)$")


def _python_float_text(x: str) -> str:
    """str() of a float that is not a whole number, as Python writes it. Spark writes
    a double as Java does: the same shortest digits, but in scientific form from 1e7 up
    and below 1e-3 (``1.23456785E7``), where Python writes ``12345678.5`` up to 1e16
    and ``0.00015`` down to 1e-4, and beyond those ``1.5e-05``, ``1e+16``. Java's form
    is taken apart and set out as Python's; NaN and the infinities as Python names them.
    (Not: a whole number past 64 bits, whose digits Python writes in full; the few
    doubles, such as the subnormal 5e-324, that Java before 19 writes with more digits
    than the shortest, 4.9E-324.)"""
    text = f"CAST({x} AS STRING)"
    sign, first, rest, power = (f"regexp_extract({text}, {_JAVA_SCIENTIFIC}, {i})" for i in (1, 2, 3, 4))
    exponent = f"CAST({power} AS INT)"
    fraction = f"CASE WHEN {rest} = '0' THEN '' ELSE {rest} END"  # Java's 1.0E16 is Python's 1e+16
    digits = f"concat({first}, {fraction})"
    return (f"CASE WHEN isnan({x}) THEN 'nan' WHEN {x} = double('inf') THEN 'inf' "
            f"WHEN {x} = double('-inf') THEN '-inf' WHEN NOT {text} LIKE '%E%' THEN {text} "
            f"WHEN {exponent} >= 16 OR {exponent} < -4 THEN concat({sign}, {first}, "
            f"CASE WHEN {rest} = '0' THEN '' ELSE concat('.', {rest}) END, 'e', "
            f"CASE WHEN {exponent} < 0 THEN '-' ELSE '+' END, CASE WHEN abs({exponent}) < 10 THEN '0' ELSE '' END, "
            f"CAST(abs({exponent}) AS STRING)) "
            f"WHEN {exponent} >= 0 THEN concat({sign}, substr({digits}, 1, {exponent} + 1), '.', "
            f"substr({digits}, {exponent} + 2)) "
            f"ELSE concat({sign}, '0.', repeat('0', -{exponent} - 1), {digits}) END")
