"""The parse's fast paths give what the plain code gives: a JSON line's marks (every
value's path, and the paths of repeated keys), the 64-bit check it skips, and the
rows built for Spark from records (no Spark session: these are Python functions)."""
from __future__ import annotations

import json

from linter.engines.spark.records import record_row, table_columns
from linter.loading.jsonl import json_document
from linter.model.tables import load_tables
from linter.schema import validate_document


def _every_path(value, dotted="") -> set[str]:
    """The paths format_path writes for every value under ``value``, itself included."""
    out = {dotted}
    if isinstance(value, dict):
        for key, child in value.items():
            out |= _every_path(child, f"{dotted}.{key}" if dotted else key)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out |= _every_path(child, f"{dotted}[{index}]")
    return out


LINES = [
    {"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "\\Sales"},
     "spec": {"replicas": ["A", None, ["x", {"y": []}]], "empty": {}, "nothing": [], "zero": 0, "no": False}},
    [1, [2, {"a": {"b": [None]}}], {}],
    {},
    [],
    "text",
]


def test_a_json_lines_marks_name_every_value_at_its_line():
    for number, data in enumerate(LINES, start=7):
        document, findings = json_document(json.dumps(data), "f.jsonl", 0, number)
        assert findings == []
        assert set(document.marks) == _every_path(data), data
        assert set(document.marks.values()) == {(number, 1)}
        assert document.data == data


def test_repeated_keys_are_found_at_any_depth_and_the_marks_stay_whole():
    text = ('{"kind": "Server", "metadata": {"name": "a", "name": "b"}, '
            '"spec": {"list": [{"x": 1, "x": 2}, {"deep": {"k": 1, "k": 1}}]}}')
    document, findings = json_document(text, "f.jsonl", 0, 3)
    # (EXL002 writes a repeated key's path as every finding does, list indices in brackets)
    assert sorted(f.path for f in findings) == ["metadata.name", "spec.list[0].x", "spec.list[1].deep.k"]
    assert all(f.rule == "EXL002" and f.line == 3 for f in findings)
    assert set(document.marks) == _every_path(document.data)


def test_integers_past_64_bits_are_reported_whether_or_not_the_line_is_walked():
    base = {"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "EX1"},
            "spec": {"version": "2010", "site": "London"}}
    plain, _ = json_document(json.dumps(base), "f.jsonl", 0, 1)
    assert plain.wide_ints is False
    assert not [f for f in validate_document(plain)[0] if "64-bit" in f.message]
    for value, reason in ((2**63, "64-bit"), (10**30, "64-bit"), (-(2**63) - 1, "minimum")):
        wide, _ = json_document(json.dumps({**base, "spec": {**base["spec"], "servicePack": value}}), "f.jsonl", 0, 1)
        assert wide.wide_ints is True
        found = [f for f in validate_document(wide)[0] if reason in f.message]
        assert [f.path for f in found] == ["spec.servicePack"], value
    edge, _ = json_document(json.dumps({**base, "spec": {**base["spec"], "servicePack": 2**63 - 1}}), "f.jsonl", 0, 1)
    assert not [f for f in validate_document(edge)[0] if "64-bit" in f.message]
    # found by the walk that marks the paths, in a list too, and past int()'s digit limit
    listed, _ = json_document(json.dumps({**base, "spec": {**base["spec"], "servicePack": [1, 2**64]}}), "f.jsonl", 0, 1)
    assert listed.wide_ints is True
    huge, findings = json_document(json.dumps(base)[:-2] + ', "servicePack": ' + "9" * 5000 + "}}", "f.jsonl", 0, 1)
    assert not findings and huge.wide_ints is True
    assert [f.path for f in validate_document(huge)[0] if "64-bit" in f.message] == ["spec.servicePack"]
    digits, _ = json_document(json.dumps({**base, "spec": {**base["spec"], "site": "9" * 30}}), "f.jsonl", 0, 1)
    assert digits.wide_ints is False  # a long digit run in a text is no integer


def _reference_row(columns, record: dict, est: int, rid: int) -> tuple:
    # the row as written before the builders: one branch per column kind
    out = []
    for name, kind in columns:
        if name == "_est":
            out.append(est)
        elif name == "_rid":
            out.append(rid)
        elif name == "_marks":
            out.append({path: [int(mark[0]), int(mark[1])] for path, mark in record["_marks"].items()})
        else:
            value = record.get(name)
            if kind == "long" and not isinstance(value, bool) and isinstance(value, int):
                value = value if -(2**63) <= value < 2**63 else None
            elif kind == "double" and value is not None:
                value = float(value)
            elif kind == "array<string>" and value is None:
                value = []
            out.append(value)
    return tuple(out)


def test_rows_built_for_spark_hold_every_column_as_the_plain_loop_did():
    shared = (4, 1)
    for table in load_tables().values():
        columns = table_columns(table)
        kinds = {kind for _, kind in columns}
        record = {"_marks": {"": shared, "spec": shared, "spec.a[0]": (5, 9)}}
        for index, (name, kind) in enumerate(columns):
            if name.startswith("_") and name not in ("_file", "_line"):
                continue
            if kind == "long":
                record[name] = (7, 2**63, True, None)[index % 4]
            elif kind == "double":
                record[name] = (3, 2.5, None)[index % 3]
            elif kind == "array<string>":
                record[name] = (None, ["a", None])[index % 2]
            elif index % 3:
                record[name] = f"value {index}"
        row = record_row(columns, record, 3, 99)
        assert row == _reference_row(columns, record, 3, 99), table.name
        assert len(row) == len(columns) and {"long", "string"} <= kinds
        marks = row[[name for name, _ in columns].index("_marks")]
        assert marks[""] is marks["spec"] and marks["spec.a[0]"] == [5, 9]  # one list per position


def test_parse_rows_are_already_in_sparks_internal_form():
    # to_internal hands the parse's rows over unconverted when the schema needs no
    # conversion but a struct's: that holds only while every row and every struct in it
    # is a tuple (a list where a struct goes would reach the JVM as another object)
    from pathlib import Path

    from pyspark.sql import types as T

    from linter.engines.spark import inventory
    from linter.engines.spark.records import spark_schema, to_internal

    root = Path(__file__).resolve().parent.parent / "samples"
    schema = spark_schema(inventory.union_columns())
    emit = inventory.Emitter(0)
    jsonl = root / "inventory" / "estate.jsonl"
    produced = inventory._jsonl_rows(emit, (0, str(jsonl), "estate.jsonl", 0, jsonl.stat().st_size, 1))
    for path in sorted((root / "estate").rglob("*.yaml")) + sorted((root / "broken").rglob("*.yaml")):
        produced += inventory._yaml_rows(emit, (0, str(path), path.name, False))
    tags = {row[0] for row in produced}
    assert {"Server", "PublicFolder", "PublicFolderDatabase", "Organization"} <= tags and len(tags) >= 8
    assert to_internal(schema, produced) is produced
    assert [schema.toInternal(row) for row in produced] == produced
    # a schema with a type that converts (a date) takes PySpark's conversion
    dated = T.StructType([T.StructField("d", T.DateType())])
    import datetime

    assert to_internal(dated, [(datetime.date(2020, 1, 2),)]) == [(18263,)]
