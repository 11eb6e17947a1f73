"""Reading an inventory into Spark: the only place where Python runs per record.

Inputs are YAML files (a directory tree or files), JSON Lines (one input-model
document per line) and Parquet (columns ``apiVersion, kind, metadata, spec``, or
one ``document`` column of JSON text). The driver lists the files (and cuts
large JSON Lines files into line-aligned byte ranges); Spark distributes them;
each partition runs the same Python as ``exlint check``: ``load_file`` /
``json.loads``, ``validate_document`` and ``build_records`` for every table.

Every row goes into one DataFrame with one struct column per table (plus
``F`` for findings of the loader and validator, ``S`` for counts and ``X`` for
the YAML files' inline suppressions), so that
the Python-to-JVM conversion happens once; it is persisted and split per table.
"""
from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from linter.collector import collector_paused
from linter.engines.spark import records as rows
from linter.findings import Finding
from linter.loading import JSONL_SUFFIXES, Document, InputError, RefusedPath, broken_link, checked, discover, \
    foreign_inventory, is_inventory_name, load_file, walk_files
from linter.loading.jsonl import as_utf8, is_utf16, line_document, line_item, utf16_failure
from linter.loading.scope import is_own_file
from linter.estate import is_unnamed_organization
from linter.model.records import build_records, document_name
from linter.model.tables import load_tables
from linter.runner import display_path
from linter.schema import validate_document, with_owner
from linter.suffixes import PARQUET_SUFFIXES
from linter.suppressions import parse_suppressions

FINDING_TAG, STATS_TAG, SUPPRESSION_TAG = "F", "S", "X"
CHUNK_BYTES = 8 * 1024 * 1024  # JSON Lines files are cut into ranges of about this size
# Below this many bytes of YAML and JSON Lines, in local mode, the driver parses the
# inventory itself: Spark's Python workers cost ~3 s to start and import exlint, the
# driver parses ~4 MB/s (docs/spark.md, "Small inventories: parsed by the driver")
DRIVER_PARSE_BYTES = 8 * 1024 * 1024
_RID_SHIFT = 36  # row id = partition index << 36 | counter


# the path of an input found but not to be read: this prefix, then why (walking's refusal)
REFUSED = "exlint-refused:"


def refused_path(display: str, reason: str) -> RefusedPath:
    path = RefusedPath(display)
    path.refusal = reason
    return path


@dataclass(frozen=True)
class InputFile:
    path: str  # absolute path, readable by every executor
    display: str  # the path as findings show it
    format: str  # yaml | jsonl | parquet
    estate: int = 0
    walked: bool = False  # found by walking a directory (not named): a foreign YAML file is skipped


def input_format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    return "yaml"


def discover_inputs(paths, estate: int = 0, fmt: str | None = None, config=None,
                    other_roots: list[str] | None = None, included: set | None = None) -> list[InputFile]:
    """Files of an inventory: YAML as ``exlint check`` finds them (linter.loading.discover:
    hidden files and directories skipped, each real file once, broken links reported;
    a walked file that holds no exlint document is skipped in its parse task, as
    check skips it), ``*.jsonl``/``*.ndjson`` and ``*.parquet`` (files named ``_*`` or
    ``.*``, such as ``_SUCCESS``, skipped). A directory below a walked one that holds
    the marker file of an ``exlint estate --output`` (its findings, not inventory)
    is skipped with all it holds. A file given by name is read in the format
    its suffix says (YAML otherwise), or ``fmt`` when given. ``config`` (a
    linter.config.Config): its include and exclude globs apply to walked files, as
    in check; a file named is always read. ``other_roots`` (a list): folders below a
    walked one that are config repos of their own are not read but appended to it,
    as check leaves them (linter.loading.walk_files). ``included``: filled with the
    include patterns that matched a walked file (linter.runner.filter_files)."""
    from linter.runner import filter_files

    from linter.engines.spark.output import in_findings_output

    found: list[InputFile] = []
    seen: set[str] = set()
    marked: dict[str, bool] = {}  # folder -> whether it holds a findings output's marker

    def add(path: Path, kind: str, walked: bool = False) -> None:
        reason = getattr(path, "refusal", "")
        if reason:  # a link leaving the inventory, or not a regular file: reported, never read
            found.append(InputFile(REFUSED + reason, display_path(path), "yaml", estate))
            return
        absolute = os.path.realpath(path)
        if absolute not in seen:
            seen.add(absolute)
            if kind == "yaml":  # as check: a file it may not read is an I/O error (exit 2), not a finding
                try:
                    os.close(os.open(absolute, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)))
                except OSError as exc:
                    raise InputError(f"{display_path(path)}: cannot read: {exc.strerror or exc}") from None
            found.append(InputFile(absolute, display_path(path), kind, estate, walked))

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            walked = []
            if fmt in (None, "yaml"):
                walked += [(candidate, "yaml") for candidate in discover([path], other_roots=other_roots)]
            for candidate in walk_files(path, other_roots=other_roots):
                if is_inventory_name(candidate.name):
                    kind = input_format(candidate)
                    if fmt in (None, kind):
                        walked.append((candidate, kind))
            walked = [(candidate, kind) for candidate, kind in walked
                      if not in_findings_output(candidate, [path], marked)]
            kinds = {os.fspath(candidate): kind for candidate, kind in walked}
            kept = [c for c, _ in walked] if config is None else filter_files([c for c, _ in walked], None, config,
                                                                                      included=included)
            for candidate in kept:
                add(candidate, kinds[os.fspath(candidate)], walked=True)
        elif path.exists() or path.is_symlink():
            reason = broken_link(path)
            if reason is not None:
                raise InputError(f"{raw}: {reason}")
            add(checked(path, None), fmt or input_format(path))
        else:
            raise InputError(f"{raw}: no such file or directory")
    return found


# -- rows ---------------------------------------------------------------------
class Emitter:
    """Builds the union rows of one partition: (tag, S, F, X, table1, table2, ...)."""

    def __init__(self, partition: int):
        self.tables = load_tables()
        self.names = list(self.tables)
        self.slot = {name: 4 + i for i, name in enumerate(self.names)}
        self.builders = {name: rows.row_builder(rows.table_columns(spec)) for name, spec in self.tables.items()}
        self.by_kind: dict[str, list] = {}
        for spec in self.tables.values():
            self.by_kind.setdefault(spec.document, []).append(spec)
        self.width = 4 + len(self.names)
        self.base = partition << _RID_SHIFT
        self.counter = 0
        self.organizations = 0  # Organization records built since the last stats row

    def _row(self, tag: str, slot: int, value) -> tuple:
        out = [None] * self.width
        out[0] = tag
        out[slot] = value
        return tuple(out)

    def finding(self, finding: Finding, est: int) -> tuple:
        return self._row(FINDING_TAG, 2, rows.finding_row(finding, est))

    def suppressions(self, display: str, text: str | None, est: int) -> list:
        return [self._row(SUPPRESSION_TAG, 3, (est, s.file, s.line, s.column, s.applies_to, rule))
                for s in parse_suppressions(display, text) for rule in s.rules]

    def stats(self, est: int, files: int, documents: int, records_in: int, linted: int, skipped: int = 0) -> tuple:
        organizations, self.organizations = self.organizations, 0
        return self._row(STATS_TAG, 1, (est, files, documents, records_in, linted, skipped, organizations))

    def document(self, document: Document, est: int):
        """Rows of one document (findings, and records when it can be modelled),
        then whether it was linted."""
        findings, sound = validate_document(document)
        out = [self.finding(f, est) for f in findings]
        if sound:
            out.extend(self._records(document, est))
        elif is_unnamed_organization(document.data):
            self.organizations += 1
        return out, sound

    def partial(self, document: Document, est: int) -> list:
        """Rows of a document whose YAML does not parse, named as far as it was read
        (linter.estate.named_only: its records, every field unread), as check models it."""
        if is_unnamed_organization(document.data):
            self.organizations += 1
            return []
        return self._records(document, est)

    def _records(self, document: Document, est: int) -> list:
        data = document.data
        name = document_name(data)
        out = []
        for table in self.by_kind.get(data.get("kind"), ()):
            build = self.builders[table.name]
            for record in build_records(table, document, data, name):
                self.counter += 1
                self.organizations += table.name == "Organization"
                out.append(self._row(table.name, self.slot[table.name], build(record, est, self.base + self.counter)))
        return out


def union_columns() -> list[tuple[str, str]]:
    tables = load_tables()
    cols = [("_t", "string"), (STATS_TAG, f"struct<{rows.ddl(rows.STATS)}>"),
            (FINDING_TAG, f"struct<{rows.ddl(rows.FINDING)}>"),
            (SUPPRESSION_TAG, f"struct<{rows.ddl(rows.SUPPRESSION)}>")]
    for name, spec in tables.items():
        cols.append((name, f"struct<{rows.ddl(rows.table_columns(spec))}>"))
    return cols


@collector_paused
def _yaml_rows(emit: Emitter, task) -> list:
    est, path, display, walked = task
    try:
        if path.startswith(REFUSED):
            loaded = load_file(refused_path(display, path[len(REFUSED):]), display)
        else:
            loaded = load_file(Path(path), display, as_yaml=True)  # a YAML task: whatever its suffix says
    except InputError as exc:  # vanished since listing: report it rather than fail the job
        loaded = None
        failure = Finding("EXL001", "error", str(exc), display, 1, 1)
    out = []
    if loaded is None:
        out.append(emit.finding(failure, est))
        return out + [emit.stats(est, 1, 0, 1, 0)]
    if walked and not is_own_file(loaded):  # a CI workflow, a compose file: not exlint's (as `exlint check` walks)
        return [emit.stats(est, 0, 0, 0, 0, skipped=1)]
    out.extend(emit.suppressions(loaded.path, loaded.text, est))
    broken = 0
    for finding in loaded.findings:
        out.append(emit.finding(with_owner(finding, loaded.documents) if finding.rule == "EXL002" else finding, est))
        if finding.rule != "EXL002":
            broken += 1
    linted = 0
    for document in loaded.documents:
        produced, sound = emit.document(document, est)
        out.extend(produced)
        linted += sound
    for document in loaded.partial:
        out.extend(emit.partial(document, est))
    documents = len(loaded.documents)
    out.append(emit.stats(est, 1, documents, documents + broken, linted))
    return out


# -- JSON Lines and Parquet documents ---------------------------------------------
@collector_paused
def _documents_rows(emit: Emitter, est: int, display: str, items, first_chunk: bool) -> list:
    """Rows of (line number, JSON text or None for undecodable, error) items."""
    out = []
    documents = records_in = linted = 0
    for number, text, error in items:
        records_in += 1
        document, findings = line_document(number, text, error, display)
        owners = [document] if document is not None else []
        out.extend(emit.finding(with_owner(f, owners) if f.rule == "EXL002" else f, est) for f in findings)
        if document is None:
            continue
        documents += 1
        produced, sound = emit.document(document, est)
        out.extend(produced)
        linted += sound
    out.append(emit.stats(est, 1 if first_chunk else 0, documents, records_in, linted))
    return out


def _jsonl_rows(emit: Emitter, task) -> list:
    est, path, display, start, end, first_line = task
    if end < 0:  # jsonl_tasks found it to be another tool's JSON Lines
        return [emit.stats(est, 0, 0, 0, 0, skipped=1)]
    items = []
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    if start == 0 and is_utf16(data):  # (jsonl_tasks gives such a file one task, the whole of it)
        data, error = as_utf8(data)
        if error is not None:
            return [emit.finding(utf16_failure(display, error), est), emit.stats(est, 1, 0, 1, 0)]
    for offset, raw in enumerate(data.split(b"\n")):
        item = line_item(first_line + offset, raw)
        if item is not None:
            items.append(item)
    return _documents_rows(emit, est, display, items, start == 0)


def chunk_bytes(total: int, parallelism: int) -> int:
    """The size of the byte ranges ``total`` bytes of JSON Lines are parsed in: at
    most CHUNK_BYTES, at least two ranges per core once there is more than a megabyte,
    and as many ranges as a multiple of the cores, so that the last wave of tasks
    keeps every core busy (37 MB in five ranges of 8 MB left one core idle while the
    fifth was parsed: 10,000 servers)."""
    chunk = min(CHUNK_BYTES, max(1024 * 1024, total // (2 * parallelism) + 1))
    count = -(-total // chunk)
    if count > parallelism and count % parallelism:
        count += parallelism - count % parallelism
        chunk = max(-(-total // count), 1024 * 1024)
    return chunk


FOREIGN = -1  # a task's end that marks another tool's JSON Lines file: nothing to parse


def jsonl_tasks(inputs: list[InputFile], chunk: int = CHUNK_BYTES) -> list[tuple]:
    """Line-aligned byte ranges of each JSON Lines file, with their first line number."""
    tasks = []
    for item in inputs:
        if item.walked and foreign_inventory(item.path):  # skipped as check skips it: one task says so
            tasks.append((item.estate, item.path, item.display, 0, FOREIGN, 1))
            continue
        try:
            size = os.path.getsize(item.path)
            handle = open(item.path, "rb")
        except OSError as exc:
            raise InputError(f"{item.display}: cannot read: {exc.strerror or exc}") from None
        start, line = 0, 1
        with handle:
            # a UTF-16 file's lines end in b"\n\x00" (or b"\x00\n"): one task reads it whole
            span = max(chunk, size) if is_utf16(handle.read(2)) else chunk
            while start < size:
                handle.seek(start)
                block = handle.read(span)
                if len(block) == span:
                    block += handle.readline()
                tasks.append((item.estate, item.path, item.display, start, start + len(block), line))
                line += block.count(b"\n")
                start += len(block)
        if size == 0:
            tasks.append((item.estate, item.path, item.display, 0, 0, 1))
    return tasks


def _parquet_partition(files: dict, columns: list[str]):
    def run(index, iterator):
        emit = Emitter(index)
        current = None
        items: list = []
        for row in iterator:
            key = _local_path(row["_file_path"])
            est, display = files.get(key, (0, key))
            if current is not None and current != (est, display):
                yield from _documents_rows(emit, current[0], current[1], items, False)
                items = []
            current = (est, display)
            number = row["_row_index"] + 1
            items.append((number, _parquet_document(row, columns), None))
        if current is not None:
            yield from _documents_rows(emit, current[0], current[1], items, False)
    return run


def _parquet_document(row, columns: list[str]) -> str:
    if "document" in columns and row["document"] is not None:
        return row["document"]
    parts = []
    for name in ("apiVersion", "kind", "metadata", "spec"):
        if name in columns and row[name] is not None:
            value = row[name]
            text = json.dumps(value) if name in ("apiVersion", "kind") else value
            parts.append(f"{json.dumps(name)}: {text}")
    return "{" + ", ".join(parts) + "}"


def _local_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return str(Path(unquote(parsed.path)).resolve())
    return uri


def _tasks_partition(kind: str):
    def run(index, iterator):
        emit = Emitter(index)
        for task in iterator:
            produced = _yaml_rows(emit, task) if kind == "yaml" else _jsonl_rows(emit, task)
            yield from produced
    return run


def _connect_tasks_partition(index, tasks):
    """_tasks_partition for Spark Connect, whose tasks are rows of connect.TASK_SCHEMA."""
    emit = Emitter(index)
    for task in tasks:
        if task["kind"] == "yaml":
            yield from _yaml_rows(emit, (task["est"], task["path"], task["display"], task["walked"]))
        else:
            yield from _jsonl_rows(emit, (task["est"], task["path"], task["display"], task["start"], task["stop"],
                                          task["first"]))


# -- the DataFrames ------------------------------------------------------------------
@dataclass
class Inventory:
    union: list  # the persisted DataFrames the tables are read from
    stats: dict  # estate -> {files, documents, records_in, linted}
    counts: dict  # table name -> number of records (all estates)
    rows: object  # the parse's kept rows, one struct column per table (split per table on first use)
    has_suppressions: bool  # whether any row is an inline suppression
    computing: object = None  # threads.Background still computing the kept partition (in_one_partition)
    # the rows parsed here, not yet handed to Spark's memory (read_inventory's ``defer_keep``):
    # kept once the layout is known (in_one_partition, or kept)
    deferred: bool = False
    partitions: int = 1  # of ``rows``

    @functools.cached_property
    def _parts(self) -> tuple:
        # on first use: a layout that moves the rows into one partition (in_one_partition)
        # splits them there, and the split of the parse's rows (a DataFrame per table,
        # each analysed over the rows' every column: ~0.6 s of a fresh run) is never made
        return _split(self.rows, self.has_suppressions)

    @property
    def tables(self) -> dict:
        """Table name -> DataFrame of its records."""
        return self._parts[0]

    @property
    def findings(self):
        """The loader's and validator's findings (FINDING columns)."""
        return self._parts[1]

    @property
    def suppressions(self):
        """The YAML files' inline suppressions (SUPPRESSION columns); None when none."""
        return self._parts[2]

    @property
    def positions(self):
        """Where each record is written (records.POSITION columns), any table."""
        return self._parts[3]

    def in_one_partition(self, checkpoint: bool) -> "Inventory":
        """The same inventory read from one kept partition that Spark knows is one
        (see Model.single): every table, the findings and the suppressions. The
        partition is computed on a thread of its own (model.keep_later; the model
        waits for it, Model.settle) while the model's tables are planned on it."""
        from linter.engines.spark.model import keep, keep_later, unestimated

        frame = unestimated(self.union[0])
        later = keep_later(frame, frame.sparkSession) if checkpoint else None
        one, computing = later if later is not None else (keep(frame, checkpoint, single=True), None)
        return Inventory(self.union + [one], self.stats, self.counts, one, self.has_suppressions, computing)

    def kept(self, checkpoint: bool) -> "Inventory":
        """This inventory with its rows kept in Spark's memory (itself when they are)."""
        if not self.deferred:
            return self
        from linter.engines.spark.model import keep

        union = keep(self.union[0], checkpoint)
        return Inventory([union], self.stats, self.counts, union.coalesce(self.partitions), self.has_suppressions,
                         partitions=self.partitions)

    def unpersist(self) -> None:
        for frame in self.union:
            try:
                frame.unpersist()
            except Exception:
                pass


SLICE_BYTES = 4 * 1024 * 1024  # YAML input per parse task
SLICE_FILES = 1000


def _slices(paths: list[str], parallelism: int = 1) -> int:
    """Parse tasks for YAML files: small inventories in one task (Spark's
    per-task cost dominates), large ones in tasks of about 4 MB, and at least two
    per core once there is more than a megabyte to parse."""
    total = _bytes(paths)
    slices = max(-(-total // SLICE_BYTES), -(-len(paths) // SLICE_FILES))
    if total > 1024 * 1024:
        slices = max(slices, 2 * parallelism)
    return max(1, min(len(paths), slices))


def read_inventory(spark, inputs: list[InputFile], checkpoint: bool = True, driver_parse: bool = False,
                   defer_keep: bool = False) -> Inventory:
    """The inventory's records, findings, suppressions and counts: every file parsed,
    validated and modelled by the same Python code as `exlint check`, in Spark tasks;
    ``driver_parse``: a small inventory (DRIVER_PARSE_BYTES) may be parsed by this
    process instead, by the same partition functions (for local mode, whose driver
    and executors share the machine); ``defer_keep``: rows parsed here are not kept
    yet (Inventory.deferred): the caller keeps them in the layout it then chooses
    (in_one_partition or kept), once: keeping them as parsed, then again in one
    partition, was a Spark job of ~1 s on a fresh run's critical path (docs/spark.md,
    "Session 56")."""
    from linter.engines.spark.model import keep
    from linter.engines.spark.session import is_connect, parallelism as cores

    columns = union_columns()
    schema = rows.spark_schema(columns)
    connect = is_connect(spark)
    parallelism = cores(spark)
    yaml_tasks = [(i.estate, i.path, i.display, i.walked) for i in inputs if i.format == "yaml"]
    jsonl = [i for i in inputs if i.format == "jsonl"]
    tasks = []
    parquet = [i for i in inputs if i.format == "parquet"]
    if jsonl:
        tasks = jsonl_tasks(jsonl, chunk_bytes(input_bytes(jsonl), parallelism))
    offset = 1 << 20  # partition indexes of later inputs must not collide with earlier ones
    rest = _parquet_frame(spark, parquet) if parquet else None
    local = None  # the rows, when this process parsed them
    if connect:  # no RDDs: the same partition code through mapInArrow
        from linter.engines.spark.connect import union_frame

        more = []
        if rest is not None:
            frame, files, columns_ = rest
            more.append((frame, _parquet_partition(files, columns_), 2 * offset))
        union = union_frame(spark, schema, yaml_tasks, tasks, _connect_tasks_partition, more)
    elif driver_parse and rest is None and input_bytes(inputs) <= DRIVER_PARSE_BYTES:
        local = parse_on_driver(yaml_tasks, tasks, offset)
        union = rows.local_frame(spark, local, schema, parallelism)
    else:
        sc = spark.sparkContext
        parts = []
        if yaml_tasks:
            rdd = sc.parallelize(yaml_tasks, _slices([t[1] for t in yaml_tasks], parallelism))
            parts.append(rdd.mapPartitionsWithIndex(_tasks_partition("yaml")))
        if tasks:
            rdd = sc.parallelize(tasks, max(1, len(tasks)))
            parts.append(rdd.mapPartitionsWithIndex(_shifted(_tasks_partition("jsonl"), offset)))
        if rest is not None:
            frame, files, columns_ = rest
            parts.append(frame.rdd.mapPartitionsWithIndex(_shifted(_parquet_partition(files, columns_), 2 * offset)))
        if parts:
            rdd = parts[0] if len(parts) == 1 else sc.union(parts)
            union = rows.frame_of(spark, rdd.mapPartitions(_internal(schema)), schema)
        else:
            union = spark.createDataFrame([], schema)
    deferred = defer_keep and local is not None
    if not deferred:
        union = keep(union, checkpoint)
    kept = [union]
    # The parse wants many small splits (two per core or more, at most 8 MB each); the
    # rules read these records some sixty times over, and each task of theirs pays for
    # deserializing its plan: 46 splits at 100,000 servers made the findings' union
    # 2,405 partitions. Two per core from here on: over kept blocks, nothing is parsed
    # again; a deferred parse is the driver's own rows, kept later in the layout chosen.
    partitions = 2 * parallelism
    union = union.coalesce(partitions)
    if local is not None:  # the rows are here: counted here
        tag_counts, stats = _tally((row[0], 1, row[1]) for row in local)
    else:  # one pass: rows per tag, and the per-estate sums of the stats rows
        tag_counts, stats = _tally_frame(union)
    for item in inputs:  # estates with no file contents at all still exist
        stats.setdefault(item.estate, {name: 0 for name, _ in rows.STATS[1:]})
        if item.format == "parquet":  # no per-file stats rows
            stats[item.estate]["files"] += 1
    counts = {name: int(tag_counts.get(name, 0)) for name in load_tables()}
    return Inventory(kept, stats, counts, union, bool(tag_counts.get(SUPPRESSION_TAG)), deferred=deferred,
                     partitions=partitions)


def _tally(groups) -> tuple[dict, dict]:
    """Rows per tag, and per estate the sums of the stats rows, of (tag, rows,
    stats row or their sums) groups."""
    tag_counts: dict[str, int] = {}
    stats: dict[int, dict] = {}
    for tag, number, counts in groups:
        tag_counts[tag] = tag_counts.get(tag, 0) + number
        if tag == STATS_TAG:
            totals = stats.setdefault(counts[0], {name: 0 for name, _ in rows.STATS[1:]})
            for index, (name, _) in enumerate(rows.STATS[1:], start=1):
                totals[name] += int(counts[index] or 0)
    return tag_counts, stats


def _tally_frame(union) -> tuple[dict, dict]:
    """_tally in Spark: one grouping, collected."""
    from pyspark.sql import functions as F

    sums = [F.sum(F.col(f"S.{name}")).alias(name) for name, _ in rows.STATS[1:]]
    grouped = union.groupBy("_t", F.col("S._est").alias("est")).agg(F.count(F.lit(1)).alias("n"), *sums).collect()
    return _tally((row["_t"], row["n"], (row["est"], *(row[name] for name, _ in rows.STATS[1:]))) for row in grouped)


def parse_on_driver(yaml_tasks: list, jsonl_tasks_: list, offset: int) -> list:
    """The rows the parse tasks would produce in Spark, produced here: the same
    partition functions, each task with the partition index it would have had
    (row ids stay unique and equal to a worker parse's)."""
    out = []
    if yaml_tasks:
        out.extend(_tasks_partition("yaml")(0, iter(yaml_tasks)))
    for index, task in enumerate(jsonl_tasks_):
        out.extend(_tasks_partition("jsonl")(index + offset, iter([task])))
    return out


def _internal(schema):
    """A partition's rows in Spark's internal form, converted in batches with the
    collector paused (PySpark's createDataFrame converts them with it running: 0.56 s
    of an 8 MB JSON Lines task, 0.08 s paused)."""
    def run(iterator):
        batch = []
        for row in iterator:
            batch.append(row)
            if len(batch) == 4096:
                yield from rows.to_internal(schema, batch)
                batch = []
        yield from rows.to_internal(schema, batch)
    return run


def input_bytes(inputs: list[InputFile]) -> int:
    """The inputs' size on disk (a file that cannot be read counts nothing: its read reports it)."""
    return _bytes(item.path for item in inputs)


# Parquet holds an inventory in about a ninth of its text (the 1,000-server estate as
# a column of JSON text: 3.6 MB of JSON Lines, 0.40 MB of Parquet): what the kept
# rows take is sized from the text (session.local_driver_memory)
PARQUET_TEXT_RATIO = 9


def text_bytes(inputs: list[InputFile]) -> int:
    """The inputs' size as text: a Parquet file counts PARQUET_TEXT_RATIO times its size."""
    return sum(_bytes([item.path]) * (PARQUET_TEXT_RATIO if item.format == "parquet" else 1) for item in inputs)


def _bytes(paths) -> int:
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    return total


def _split(union, has_suppressions: bool) -> tuple[dict, object, object, object]:
    """The tables' records, the findings, the suppressions (None: none) and the
    records' positions (any table's, in one scan: a row holds one table's record)
    of the parse's rows."""
    from pyspark.sql import functions as F

    names = list(load_tables())
    tables = {name: union.filter(F.col("_t") == name).select(f"`{name}`.*") for name in names}
    findings = union.filter(F.col("_t") == FINDING_TAG).select(f"{FINDING_TAG}.*")
    suppressions = None
    if has_suppressions:
        suppressions = union.filter(F.col("_t") == SUPPRESSION_TAG).select(f"{SUPPRESSION_TAG}.*")
    positions = union.filter(F.col("_t").isin(names)).select(
        *[F.coalesce(*[F.col(f"`{name}`.`{column}`") for name in names]).alias(column)
          for column in ["_est", "_rid"] + rows.POSITION])
    return tables, findings, suppressions, positions


def _shifted(function, offset: int):
    def run(index, iterator):
        return function(index + offset, iterator)
    return run


PARQUET_COLUMNS = ("document", "apiVersion", "kind", "metadata", "spec")


def _parquet_frame(spark, inputs: list[InputFile]):
    """The Parquet rows to parse (file, row index, document columns as text), the
    files' origins, the columns. The files are read together when their schemas
    merge; otherwise (``spec.version`` a string in one file and an integer in
    another, JSON-text columns in one and structs in another: both are the input
    model's) each is read with its own schema and the texts are put together."""
    from pyspark.sql import functions as F

    files = {str(Path(i.path).resolve()): (i.estate, i.display) for i in inputs}
    try:
        frames = [spark.read.option("mergeSchema", "true").parquet(*[i.path for i in inputs])]
    except Exception as exc:  # noqa: BLE001 - an analysis error, or a failed schema-merging job
        if "MERG" not in str(exc).upper() or len(inputs) == 1:
            raise
        frames = [spark.read.parquet(i.path) for i in inputs]
    present = [[c for c in PARQUET_COLUMNS if c in frame.columns] for frame in frames]
    columns = [c for c in PARQUET_COLUMNS if any(c in names for names in present)]
    if not columns:
        raise InputError(f"{inputs[0].display}: a Parquet inventory needs the columns apiVersion, kind, "
                         "metadata, spec (or one `document` column of JSON text)")
    texts = []
    for frame in frames:
        types = {f.name: f.dataType for f in frame.schema.fields}
        selected = [F.col("_metadata.file_path").alias("_file_path"),
                    F.col("_metadata.row_index").alias("_row_index")]
        selected += [_as_text(F.col(f"`{name}`"), types[name]).alias(name) if name in types
                     else F.lit(None).cast("string").alias(name) for name in columns]
        texts.append(frame.select(*selected))
    frame = texts[0]
    for other in texts[1:]:
        frame = frame.unionByName(other)
    return frame, files, columns


def _as_text(column, data_type):
    """A document column as the text ``_parquet_document`` puts into a JSON document:
    JSON for structs, maps and lists, the value itself for text (and for bytes, read
    as UTF-8), and a number's or boolean's own spelling: a column of the wrong type
    becomes a finding on each row (an integer ``kind`` is EXL004's), never a Spark
    analysis error naming no file."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, MapType, StringType, StructType

    if isinstance(data_type, StringType):
        return column
    if isinstance(data_type, (StructType, MapType, ArrayType)):
        return F.to_json(column)
    return column.cast("string")
