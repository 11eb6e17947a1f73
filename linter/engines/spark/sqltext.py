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


def _python_float_text(x: str) -> str:
    """str() of a float that is not a whole number, as Python writes it. Spark writes
    a double as Java does: the same shortest digits, but in scientific form from 1e7 up
    and below 1e-3 (``1.23456785E7``), where Python writes ``12345678.5`` up to 1e16
    and ``0.00015`` down to 1e-4, and beyond those ``1.5e-05``, ``1e+16``; NaN and the
    infinities as Python names them. (Not: a whole number past 64 bits, whose digits
    Python writes in full; the few doubles, such as the subnormal 5e-324, that Java
    before 19 writes with more digits than the shortest, 4.9E-324.)

    Between 1e-4 and 1e16 the decimal Spark makes of a double has Java's digits (Scala's
    BigDecimal of a Double reads its text), and 22 places hold every one of them there;
    beyond, Java's scientific text is Python's but for the letter's case, the sign and
    the exponent's two digits. Small on purpose: a message repeats this for every float
    it shows, and with regular expressions taking Java's text apart two batches of the
    stores' predicates outgrew the JVM's 64 KB method and ran without generated code."""
    java = f"replace(CAST({x} AS STRING), '.0E', 'E')"  # Java's 1.0E16 is Python's 1e+16
    scientific = (f"CASE WHEN substr({java}, -3, 2) = 'E-' THEN replace({java}, 'E-', 'e-0') "
                  f"ELSE replace(replace({java}, 'E-', 'e-'), 'E', 'e+') END")
    return (f"CASE WHEN isnan({x}) THEN 'nan' WHEN {x} = double('inf') THEN 'inf' "
            f"WHEN {x} = double('-inf') THEN '-inf' WHEN abs({x}) >= 1e16 OR abs({x}) < 1e-4 THEN {scientific} "
            f"ELSE trim(TRAILING '0' FROM CAST(CAST({x} AS DECIMAL(38, 22)) AS STRING)) END")
