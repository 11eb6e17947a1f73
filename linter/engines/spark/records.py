"""Spark schemas of the model's records (derived from tables.yaml) and of
findings, and the conversion of the shared Python records into rows.

Value types: name/text/enum/date/dn_name -> string, int/count/size/version ->
long, bool -> boolean, duration -> double, names/enums -> array<string>.
Each field also has ``<field>__set`` (boolean) and, for names, durations,
sizes, versions and lists, ``<field>__text``. Meta columns: ``_est`` (estate
id), ``_rid`` (row id, unique per estate and table), ``_table``, ``_kind``,
``_entity``, ``_file``, ``_doc``, ``_prefix``, ``_line``, ``_column`` and
``_marks`` (map<string, array<long>>: dotted path -> [line, column]).
"""
from __future__ import annotations

from collections.abc import Callable

from linter.collector import collector_paused
from linter.model.tables import LIST_TYPES, TableSpec

TEXT_TYPES = ("name", "duration", "size", "version")  # scalar types that keep __text
_VALUE_TYPES = {
    "name": "string", "text": "string", "enum": "string", "date": "string", "dn_name": "string",
    "int": "long", "count": "long", "size": "long", "version": "long",
    "bool": "boolean", "duration": "double",
    "names": "array<string>", "enums": "array<string>",
}
# The compiler's value types (see compile.py) of each field type.
KIND_OF = {
    "string": "str", "long": "int", "double": "float", "boolean": "bool", "array<string>": "list",
}
META = [
    ("_est", "long"), ("_rid", "long"), ("_table", "string"), ("_kind", "string"), ("_entity", "string"),
    ("_file", "string"), ("_doc", "long"), ("_prefix", "string"), ("_line", "long"), ("_column", "long"),
    ("_marks", "map<string,array<long>>"),
]
# where a record is written: what places a finding on it (forms.place)
POSITION = ["_file", "_kind", "_entity", "_marks", "_line", "_column"]
FINDING = [
    ("_est", "long"), ("rule", "string"), ("severity", "string"), ("message", "string"), ("file", "string"),
    ("line", "long"), ("column", "long"), ("path", "string"), ("entity_kind", "string"), ("entity_name", "string"),
]
# an inline suppression of a YAML file (linter.suppressions), one row per rule it names
SUPPRESSION = [("_est", "long"), ("file", "string"), ("line", "long"), ("column", "long"), ("applies", "long"),
               ("rule", "string")]
# organizations: the Organization records built, so that the model knows which estates have
# exactly one without a Spark job (Model._organizations)
STATS = [("_est", "long"), ("files", "long"), ("documents", "long"), ("records_in", "long"), ("linted", "long"),
         ("skipped", "long"), ("organizations", "long")]
_INT64 = 2**63


def value_type(field_type: str) -> str:
    return _VALUE_TYPES[field_type]


def table_columns(table: TableSpec) -> list[tuple[str, str]]:
    """(column, Spark type) of a table's records, in row order."""
    cols = list(META) + [("name", "string"), ("name__text", "string")]
    if table.parent:
        cols += [(table.parent, "string"), (table.parent + "__text", "string"), (table.parent_document, "string")]
    for spec in table.fields.values():
        cols.append((spec.name, value_type(spec.type)))
        if spec.type == "count":
            continue
        if spec.type in LIST_TYPES:
            cols.append((spec.name + "__text", "array<string>"))
        elif spec.type in TEXT_TYPES:
            cols.append((spec.name + "__text", "string"))
        cols.append((spec.name + "__set", "boolean"))
    return cols


def ddl(columns) -> str:
    return ", ".join(f"`{name}` {kind}" for name, kind in columns)


def spark_schema(columns):
    """The StructType of ``columns``, built here: Spark's own DDL parser is a JVM
    call (half a second in a fresh JVM for the inventory's wide schema)."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField(name, spark_type(kind)) for name, kind in columns])


def spark_type(kind: str):
    """The Spark type of a column type as ``ddl`` writes it: string, long, double,
    boolean, array<T>, map<K,V> and struct<`name` T, ...>, nullable throughout."""
    from pyspark.sql import types as T

    kind = kind.strip()
    simple = {"string": T.StringType, "long": T.LongType, "bigint": T.LongType, "double": T.DoubleType,
              "boolean": T.BooleanType}
    if kind in simple:
        return simple[kind]()
    head, _, rest = kind.partition("<")
    if not rest.endswith(">"):
        raise ValueError(f"not a column type: {kind}")
    inner = _top_level(rest[:-1])
    if head == "array" and len(inner) == 1:
        return T.ArrayType(spark_type(inner[0]))
    if head == "map" and len(inner) == 2:
        return T.MapType(spark_type(inner[0]), spark_type(inner[1]))
    if head == "struct":
        fields = []
        for member in inner:
            name, _, member_kind = member.strip()[1:].partition("` ")
            fields.append(T.StructField(name, spark_type(member_kind)))
        return T.StructType(fields)
    raise ValueError(f"not a column type: {kind}")


def _top_level(text: str) -> list[str]:
    """``text`` split at its commas outside <> and backquotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if char == "`":
            quoted = not quoted
        elif not quoted and char == "<":
            depth += 1
        elif not quoted and char == ">":
            depth -= 1
        elif not quoted and depth == 0 and char == ",":
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _long(value):
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return value if -_INT64 <= value < _INT64 else None  # no engine column holds it


def record_row(columns, record: dict, est: int, rid: int) -> tuple:
    """The row of a table's record: its ``columns`` (records.table_columns) in order."""
    return row_builder(columns)(record, est, rid)


def row_builder(columns) -> Callable[[dict, int, int], tuple]:
    """A function (record, est, rid) -> row for the table's ``columns``. A parse
    task builds a row per record (1.25 million at 100,000 servers): a function
    written for the columns, one expression each, took a loop over them and its
    per-column branches out of that (0.40 -> 0.14 s per 8 MB of JSON Lines)."""
    key = tuple(columns)
    built = _BUILDERS.get(key)
    if built is None:
        items = []
        for name, kind in key:
            if name == "_est":
                items.append("est")
            elif name == "_rid":
                items.append("rid")
            elif name == "_marks":
                items.append("_marks_map(record['_marks'])")
            elif kind == "long":
                items.append(f"_long(get({name!r}))")
            elif kind == "double":
                items.append(f"(None if (v := get({name!r})) is None else float(v))")
            elif kind == "array<string>":
                items.append(f"([] if (v := get({name!r})) is None else v)")
            else:
                items.append(f"get({name!r})")
        source = ("def build(record, est, rid):\n    get = record.get\n"
                  f"    return ({', '.join(items)}{',' if len(items) == 1 else ''})\n")
        scope = {"_long": _long, "_marks_map": _marks_map}
        exec(compile(source, f"<row of {len(key)} columns>", "exec"), scope)  # noqa: S102 - our own column names, repr-quoted
        built = _BUILDERS[key] = scope["build"]
    return built


_BUILDERS: dict = {}


def _marks_map(marks: dict) -> dict:
    """``_marks`` as its column holds it (path -> [line, column]). Paths at one
    position share one list (all of a JSON line's do): pickled once, unpickled once."""
    out = {}
    last = shared = None
    for path, mark in marks.items():
        if mark is not last:
            last, shared = mark, [int(mark[0]), int(mark[1])]
        out[path] = shared
    return out


def finding_row(finding, est: int) -> tuple:
    entity = finding.entity
    return (est, finding.rule, finding.severity, finding.message, finding.file,
            finding.line, finding.column, finding.path,
            entity.kind if entity else None, entity.name if entity else None)


# -- rows held by the driver, handed to the JVM -------------------------------------
def local_frame(spark, data: list, schema, slices: int = 1):
    """A DataFrame of rows held here (the driver parse, the site graph, default
    Organizations, refused checks): as ``spark.createDataFrame(data, schema)``,
    which in classic PySpark re-batches the pickles in a Python worker (RDD._pickled),
    starting Spark's Python workers for nothing (seconds of a fresh run). Spark
    Connect ships local rows itself."""
    from linter.engines.spark.session import is_connect

    if is_connect(spark):
        return spark.createDataFrame(data, schema)
    return frame_of(spark, spark.sparkContext.parallelize(to_internal(schema, data), max(1, slices)), schema)


def frame_of(spark, rdd, schema):
    """The DataFrame of an RDD of rows in Spark's internal form, unpickled by the JVM
    (createDataFrame's own last step, without converting the rows again)."""
    from pyspark.sql.dataframe import DataFrame

    try:
        sc = spark.sparkContext
        # the RDD's own batches of pickles (RDD._to_java_object_rdd would first re-batch
        # a parallelized list in a Python worker)
        objects = sc._jvm.SerDeUtil.toJavaArray(sc._jvm.SerDeUtil.pythonToJava(rdd._jrdd, True))
        return DataFrame(spark._jsparkSession.applySchemaToPythonRDD(objects.rdd(), schema.json()), spark)
    except AttributeError:  # a PySpark whose internals differ: the public way (converting is idempotent here)
        return spark.createDataFrame(rdd, schema, verifySchema=False)


@collector_paused
def to_internal(schema, batch: list) -> list:
    """Rows in Spark's internal form, with the collector paused (linter/collector.py:
    PySpark converts them with it running, 0.56 s of an 8 MB parse task against 0.08 s).
    Rows built here (tuples, their structs tuples) of a schema whose only conversion is
    a struct's (no dates, timestamps or user types) are already in that form: its
    conversion only copies each tuple (0.18 s of a 6 MB JSON Lines task)."""
    if _tuples_are_internal(schema) and all(row.__class__ is tuple for row in batch):
        return batch
    return [schema.toInternal(row) for row in batch]


def _tuples_are_internal(kind) -> bool:
    """Whether a value of ``kind`` built of tuples (structs), lists (arrays) and dicts
    (maps) is its own internal form: toInternal converts nothing else in it."""
    from pyspark.sql import types as T

    if isinstance(kind, T.StructType):
        return all(_tuples_are_internal(f.dataType) for f in kind.fields)
    if isinstance(kind, T.ArrayType):
        return _tuples_are_internal(kind.elementType)
    if isinstance(kind, T.MapType):
        return _tuples_are_internal(kind.keyType) and _tuples_are_internal(kind.valueType)
    return not kind.needConversion()
