"""Parsing under Spark Connect, where there are no RDDs: the same tasks and the
same partition code as inventory.py, run with ``DataFrame.mapInArrow`` (Spark
Connect ships pyarrow). Rows are converted to Arrow batches with the union
schema."""
from __future__ import annotations

import json

TASK_SCHEMA = ("kind string, est long, path string, display string, start long, stop long, first long, slot long, "
               "walked boolean")


def _to_arrow_value(value, dtype):
    from pyspark.sql.types import ArrayType, MapType, StructType

    if value is None:
        return None
    if isinstance(dtype, StructType):
        return {f.name: _to_arrow_value(v, f.dataType) for f, v in zip(dtype.fields, value)}
    if isinstance(dtype, MapType):
        return [(k, _to_arrow_value(v, dtype.valueType)) for k, v in value.items()]
    if isinstance(dtype, ArrayType):
        return [_to_arrow_value(v, dtype.elementType) for v in value]
    return value


def _batches(rows, schema, arrow_schema, size=2000):
    import pyarrow as pa

    names = schema.fieldNames()
    buffer = []
    for row in rows:
        buffer.append({n: _to_arrow_value(v, f.dataType) for n, v, f in zip(names, row, schema.fields)})
        if len(buffer) >= size:
            yield pa.RecordBatch.from_pylist(buffer, schema=arrow_schema)
            buffer = []
    if buffer:
        yield pa.RecordBatch.from_pylist(buffer, schema=arrow_schema)


def _parse_rows(schema_json: str, partition, shift: int):
    """mapInArrow function running ``partition(index, rows)`` on the input rows (as
    dicts); ``shift``: added to the partition index (row ids of later inputs must
    not collide with earlier ones)."""
    def run(batches):
        from pyspark import TaskContext
        from pyspark.sql.pandas.types import to_arrow_schema
        from pyspark.sql.types import StructType

        schema = StructType.fromJson(json.loads(schema_json))
        arrow_schema = to_arrow_schema(schema)
        context = TaskContext.get()
        index = (context.partitionId() if context else 0) + shift
        rows = (row for batch in batches for row in batch.to_pylist())
        yield from _batches(partition(index, rows), schema, arrow_schema)
    return run


def union_frame(spark, schema, yaml_tasks, jsonl_tasks, task_partition, inputs):
    """The union DataFrame of inventory.read_inventory, built with mapInArrow.
    ``task_partition(index, tasks)``: the union rows of parse tasks (dicts with
    TASK_SCHEMA's keys); ``inputs``: (DataFrame, partition(index, rows), index
    shift) of further rows to parse (Parquet rows).
    Inventory's code is passed in, so this module stays Arrow plumbing only."""
    tasks = [("yaml", est, path, display, 0, 0, 0, i, walked) for i, (est, path, display, walked) in enumerate(yaml_tasks)]
    tasks += [("jsonl", est, path, display, start, stop, first, len(tasks) + i, False)
              for i, (est, path, display, start, stop, first) in enumerate(jsonl_tasks)]
    schema_json = schema.json()
    frames = []
    if tasks:
        frame = spark.createDataFrame(tasks, TASK_SCHEMA)
        frame = frame.repartition(max(1, min(len(tasks), 8)), "slot")
        frames.append(frame.mapInArrow(_parse_rows(schema_json, task_partition, 0), schema))
    for frame, partition, shift in inputs:
        frames.append(frame.mapInArrow(_parse_rows(schema_json, partition, shift), schema))
    if not frames:
        return spark.createDataFrame([], schema)
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame)
    return union
