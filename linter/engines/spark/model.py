"""The estate model on Spark: one temporary view per table with its derived
fields, the Organization row of each estate, the site graph as small arrays, and
the name-deduplicated tables that navigation joins.

Mirrors linter.estate.build_model and the local evaluator's derived fields
(Evaluator.field): derived fields are computed table by table in the order of
what they read (tables.derived_plan; the local evaluator computes each on first
read); the Organization is
the one document of the estate, or a record of documented defaults when there
is none or several; duplicate names resolve to the first record by (file,
document, position).
"""
from __future__ import annotations

import itertools

from linter.engines.spark import records as rows
from linter.engines.spark.compile import INT, NULL, Bound, CompileError, Frame, Rec, Scope, Val, explode_items, strict_true
from linter.engines.spark.session import is_connect
from linter.engines.spark.sqltext import STR, q, typed_null
from linter.engines.spark.threads import Background, check
from linter.engines.spark.xxhash import spark_string_hash
from linter.estate import default_organization
from linter.model.tables import derived_plan, load_tables
from linter.policy.expr import parse
from linter.topology import build_site_graph

BROADCAST_ROWS = 200_000  # navigation targets up to this size are broadcast
# A record's item arrays (Model.item_array_view: one row per distinct list, joined by
# the list) are broadcast up to this many records: joined by sort-merge, every query reading
# one shuffled its whole table, wide rows with their marks (100,000 servers: RTE005's
# two queries 13.1 + 20.7 s -> 8.5 + 14.2 s, REP010 12.0 -> 6.7 s; a million folders'
# arrays are ~60 MB, built once per query and shared by every rule of the union)
ITEM_BROADCAST_ROWS = 2_000_000
# site_cost read by a rule itself needs every pair's cost as one array per estate:
# 16 million numbers, a few hundred MB of text and JVM arrays, at this many sites
MATRIX_SITES = 4_000
KEYS = ["_est", "_rid"]
_RUNS = itertools.count(1)


def _graph_schema():
    """(_k_est long, _k_rec struct<n int, m int, idx array<map<string,int>>, group
    array<string>>), built here: Spark's DDL parser is a JVM call."""
    from pyspark.sql import types as T

    record = T.StructType([T.StructField("n", T.IntegerType()), T.StructField("m", T.IntegerType()),
                           T.StructField("idx", T.ArrayType(T.MapType(T.StringType(), T.IntegerType()))),
                           T.StructField("group", T.ArrayType(T.StringType()))])
    return T.StructType([T.StructField("_k_est", T.LongType()), T.StructField("_k_rec", record)])


def _cost_text_schema():
    """(est long, n int, cost string): Model._graph's costs as they are shipped."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField("est", T.LongType()), T.StructField("n", T.IntegerType()),
                         T.StructField("cost", T.StringType())])


def _reach_schema():
    """(est long, name string, far boolean, sites string): Model.reach_view as shipped,
    the site numbers joined by commas."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField("est", T.LongType()), T.StructField("name", T.StringType()),
                         T.StructField("far", T.BooleanType()), T.StructField("sites", T.StringType())])


def _site_numbers_schema():
    """(est long, name string, number int): Model.site_numbers."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField("est", T.LongType()), T.StructField("name", T.StringType()),
                         T.StructField("number", T.IntegerType())])


# the frames keep() persisted, in the order it did (release_persisted); runs of one process
# are one at a time, and appending is atomic across the run's threads
_persisted: list = []


def persisted_count() -> int:
    return len(_persisted)


def release_persisted(since: int = 0) -> None:
    """Unpersist the frames keep() persisted since ``since``, the latest first. Their
    views read them through a plan of their own (_short_plan), so dropping a view leaves
    its frame cached. The latest first: uncaching a table while a later one built on it
    is still cached and not yet computed makes Spark re-plan the later one
    (CacheManager.uncacheByCondition, non-cascading); after a Ctrl-C on a cluster,
    dropping the run's views re-planned the unfinished rule unions at each drop, 40 s
    (docs/spark.md, session 64)."""
    while len(_persisted) > since:
        frame = _persisted.pop()
        try:
            frame.unpersist()
        except Exception:  # noqa: BLE001 - the JVM may already be gone (Ctrl-C)
            pass


def keep(frame, checkpoint: bool, single: bool = False):
    """Compute ``frame`` now and keep it (see Model.keep); ``single``: in one
    partition that Spark knows is one (a local checkpoint keeps the plan's
    partitioning), so that no later join, grouping or window needs a shuffle."""
    if checkpoint and single:
        frame = frame.coalesce(1)
    if checkpoint:
        try:
            return frame.localCheckpoint(eager=True)
        except Exception:  # Spark Connect: no local checkpoints
            pass
    from pyspark import StorageLevel

    try:
        frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
    except Exception:
        return frame
    _persisted.append(frame)
    frame.count()
    return _short_plan(frame)


def keep_later(frame, spark, single: bool = True, after: tuple = ()):
    """``frame`` as a local checkpoint (``single``: in one partition) that is computed
    on a thread of its own, and that thread (threads.Background); None where Spark has no such
    checkpoint (Spark Connect). Later queries can be planned on the frame at once:
    a task that needs its partition before the thread has computed it waits for it,
    or computes it itself (Spark's block manager lets one task write a block).
    ``after``: the Backgrounds computing kept frames this one reads, waited for first."""
    if is_connect(spark):
        return None
    frame = (frame.coalesce(1) if single else frame).localCheckpoint(eager=False)

    def compute():
        # A task that reads a partition another task is still writing waits for it
        # holding its task slot: on 2 cores, the four paths of the replica lists' item
        # arrays, started beside their gather, kept the second core idle for its 10 s
        # (independent 10,000 servers). Waiting here, in the driver, leaves the slot free.
        for earlier in after:
            earlier.result()
        check()
        # counting its rows computes and stores the checkpoint's partition, and the job marks
        # it checkpointed; a Dataset action, so its tasks see the session's SQL settings
        return frame._jdf.count()

    return frame, Background(compute, spark)


def checkpoints_read(frame) -> set[int]:
    """The RDD ids of the local checkpoints ``frame``'s plan reads (its LogicalRDD
    leaves, through every view): what Model.keep waits for before computing it."""
    leaves = frame._jdf.queryExecution().analyzed().collectLeaves()
    ids = set()
    for i in range(leaves.size()):
        leaf = leaves.apply(i)
        if leaf.getClass().getSimpleName() == "LogicalRDD":
            ids.add(leaf.rdd().id())
    return ids


def checkpoint_id(frame) -> int | None:
    """The RDD id of a frame made by keep_later (None for any other plan)."""
    plan = frame._jdf.queryExecution().analyzed()
    return plan.rdd().id() if plan.getClass().getSimpleName() == "LogicalRDD" else None


def unestimated(frame):
    """``frame`` (kept) behind a leaf with no size estimate of its own: its estimate
    is then the session's defaultSizeInBytes (see session.ONE_PARTITION_CONF), not
    the one inherited from the plan that computed it."""
    return _short_plan(frame)


def _short_plan(frame):
    """The persisted ``frame`` behind a plan of one leaf. Later queries read the
    cached rows and plan in milliseconds, instead of re-analysing every earlier
    query (the plans of a run otherwise grow until the driver runs out of heap);
    the cached partitions keep their lineage, so a lost executor's share is still
    recomputed (unlike a local checkpoint). As Dataset.checkpoint builds its
    result, minus the checkpoint. Spark Connect has no such handle: the frame as is."""
    try:
        from pyspark.sql import DataFrame

        session = frame.sparkSession
        jdf = frame._jdf
        rows = jdf.queryExecution().toRdd()
        return DataFrame(session._jsparkSession.internalCreateDataFrame(rows, jdf.schema(), False), session)
    except Exception:
        return frame


def lookup_columns(columns: list[str], written: bool = False) -> list[str]:
    """The columns of a record that navigation can read from a lookup: its fields
    and their texts, not where it is written (``_file``, ``_marks``, ...) nor, unless
    ``written``, whether a field was written (``__set``: `written()` reads the scope's
    own record or the Organization's). Every operator Spark compiles over a joined
    record generates code copying each of its fields, most of it never run and all
    of it compiled (docs/spark.md, session 33); a field read here but left out fails
    the query's analysis, never reads as NULL."""
    return [c for c in columns if not c.startswith("_") and (written or not c.endswith("__set"))]


def first_of_each_name(relation: str) -> str:
    """SQL of the records of ``relation`` (a view, or a query in parentheses) that
    are the first of their name in their estate, by file, document and position: the
    one navigation, placing and duplicate checks resolve a name to. Adds `_first`."""
    return (f"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY `_est`, `name` "
            f"ORDER BY `_file`, `_doc`, `_prefix`) AS `_first` FROM {relation} AS `_named` "
            f"WHERE `name` IS NOT NULL) AS `_ranked` WHERE `_first` = 1")


class Model:
    def __init__(self, spark, inventory, checkpoint: bool = True, single: bool = False, lookups: bool = False):
        self.spark = spark
        self.checkpoint = checkpoint
        # every table in one partition Spark knows as such (a small inventory in local
        # mode): a rule query then needs no shuffle and no broadcast, one stage in all
        self.single = single and checkpoint
        # in one partition, navigation lookups broadcast all the same (the larger
        # one-partition layout, job.run): a sort-merge join there sorted every row
        self.broadcast_lookups = self.single and lookups
        self.run = next(_RUNS)
        self.tables = load_tables()
        self.counts = dict(inventory.counts)
        self.estates = sorted(inventory.stats)
        self.documents = {est: s["documents"] for est, s in inventory.stats.items()}  # EXL008: any, sound or not
        self.organizations = {est: s["organizations"] for est, s in inventory.stats.items()}  # records per estate
        self.columns: dict[str, list[str]] = {}
        self.types: dict[tuple[str, str], str] = {}
        for name, table in self.tables.items():
            self.columns[name] = [c for c, _ in rows.table_columns(table)]
            for column, kind in rows.table_columns(table):
                if not column.startswith("_") and "__" not in column:
                    self.types[(name, column)] = rows.KIND_OF[kind]
        self._names = itertools.count(1)
        self.views: dict[str, str] = {}
        self.frames: dict = {}
        self._dedup: dict[str, str] = {}
        self._items: dict = {}
        self._item_groups: dict = {}  # (view, list field) -> ItemArrays named, not built yet
        self._kept_texts: list[tuple[str, str]] = []  # (view, SQL) named, kept once the rules are compiled
        self._reach: dict = {}  # (threshold, profile sites) -> its view (reach_view)
        self._site_graphs: dict = {}  # estate -> its SiteGraph (Model._graph)
        self._site_names: str | None = None  # the view of every site's number (site_numbers)
        self.done: set[str] = set()  # tables whose derived fields are all computed
        self.org_view: str | None = None
        self._graph_view: str | None = None
        self._cost_view: str | None = None
        self._graph_work = None  # threads.Background building the site graph (build)
        self.failures: list[tuple[str, str]] = []  # derived fields that could not compile
        # tables being computed on threads of their own (Model.keep): those the build
        # made, whose failure is the run's, and those rules asked for later
        self._building = False
        self._computing: list[tuple[bool, Background]] = []
        # kept frames still being computed, by their checkpoint's RDD id (Model.keep)
        self._pending: dict[int, Background] = {}
        if inventory.computing is not None:  # the records' one partition (Inventory.in_one_partition)
            self._computing.append((True, inventory.computing))
            records_id = checkpoint_id(inventory.rows)
            if records_id is not None:
                self._pending[records_id] = inventory.computing
        self.registered: list[str] = []
        for name, frame in inventory.tables.items():
            self.register(name, frame)
        # where every record is written: rule queries carry a record's id, not its
        # position, and the findings are placed in one join at the end (forms.place)
        self.positions = self._view_name("positions")
        inventory.positions.createOrReplaceTempView(self.positions)

    # -- helpers used by the compiler ---------------------------------------------------------
    def alias(self) -> str:
        return f"_x{next(self._names)}_"

    def lambda_var(self) -> str:
        return f"_lv{next(self._names)}"

    def type_of(self, table: str, name: str) -> str | None:
        return self.types.get((table, name))

    def has(self, table: str, column: str) -> bool:
        return column in self.columns[table]

    def broadcast(self, table: str) -> bool:
        """Whether joins to ``table`` broadcast it (in one partition, only in the
        larger one-partition layout: Model.broadcast_lookups)."""
        return self._broadcasts(table, BROADCAST_ROWS)

    def broadcast_items(self, table: str) -> bool:
        """Whether joins to the item arrays of ``table``'s records broadcast them."""
        return self._broadcasts(table, ITEM_BROADCAST_ROWS)

    def _broadcasts(self, table: str, most: int) -> bool:
        return (not self.single or self.broadcast_lookups) and self.counts.get(table, 0) <= most

    def broadcast_hint(self, *aliases: str) -> str:
        """The hint of a SELECT whose left (or anti) joins read ``aliases``: broadcast
        them. In one partition a left join keeps its left side's one partition either
        way: a small inventory joins without a broadcast (each costs a Spark job), a
        larger one broadcasts (Model.broadcast_lookups), as Spark's default there, a
        sort-merge join, sorted every row of the left side for every lookup."""
        if not aliases or (self.single and not self.broadcast_lookups):
            return ""
        return f"/*+ BROADCAST({', '.join(q(a) for a in aliases)}) */ "

    def join_hint(self, *aliases: str) -> str:
        """The hint of a SELECT that makes an inner join (one per SELECT): broadcast
        ``aliases``; in one partition, keep the result in one partition Spark knows
        is one (an inner join's output is the pair of its sides' partitionings, which
        a later join would shuffle to co-partition)."""
        return "/*+ COALESCE(1) */ " if self.single else self.broadcast_hint(*aliases)

    def spread_hint(self) -> str:
        """A hint spreading rows over the shuffle partitions (no use in one partition)."""
        if self.single:
            return ""
        return f"/*+ REPARTITION({int(self.spark.conf.get('spark.sql.shuffle.partitions') or 8)}) */ "

    def sql(self, text: str):
        # item arrays named but not built yet are built when a text reads one, and not
        # before: the paths asked of one list by later checks join the same pass
        if self._item_groups and any(name in text for group in self._item_groups.values()
                                     for name, _ in group.values):
            self.flush_items()
        # likewise a kept view named but not built yet (kept_view)
        if self._kept_texts and any(name in text for name, _ in self._kept_texts):
            self.keep_named()
        return self.spark.sql(text)

    def view(self, table: str) -> str:
        return self.views[table]

    def _view_name(self, label: str) -> str:
        name = f"exlint{self.run}_{label}_{next(self._names)}"
        self.registered.append(name)
        return name

    def register(self, table: str, frame) -> None:
        name = self._view_name(table)
        frame.createOrReplaceTempView(name)
        self.views[table] = name
        self.frames[table] = frame

    def dedup_view(self, table: str) -> str:
        """The table with one record per (estate, name): the first by file, document,
        position; the record packed without its position and bookkeeping columns
        (``lookup_columns``)."""
        key = self.views[table]
        if key not in self._dedup:
            record = ", ".join(q(c) for c in lookup_columns(self.columns[table]))
            frame = self.sql(f"SELECT `_est` AS `_k_est`, `name` AS `_k_name`, struct({record}) AS `_k_rec` "
                             f"FROM ({first_of_each_name(q(key))}) AS `r`")
            frame = self.keep(frame)
            name = self._view_name(table + "_first")
            frame.createOrReplaceTempView(name)
            self._dedup[key] = name
        return self._dedup[key]

    def item_array_view(self, table: str, field_name: str, path: tuple) -> tuple[str, str]:
        """A view (_k_est, _k_list, _k_rec: struct<v: array>) holding, for each
        distinct non-empty list ``field_name`` of ``table``'s records, ``item.<path>``
        for every element (in list order); and the values' type. Lets higher-order
        functions navigate from list items without exploding the rows they run on;
        a record finds its array by its estate and list (compile.Frame.item_values).

        The values depend on the estate and the list alone, and records share lists
        (a million folders at 100,000 servers have ~70,000 distinct replica lists):
        each list is exploded, looked up and gathered once, not each record's copy.
        The paths asked of one list are gathered together (ItemArrays): the view is
        named now and built, with every path asked of the list until then, when SQL
        reading one of them runs (Model.sql) or the rules are compiled (flush_items)."""
        key = (self.views[table], field_name, tuple(path))
        if key not in self._items:
            group = self._item_groups.get(key[:2])
            if group is None:
                group = self._item_groups[key[:2]] = ItemArrays(self, table, field_name)
            name = self._view_name(f"{table}_{field_name}_items")
            self._items[key] = (name, group.add(name, path))
        return self._items[key]

    def flush_items(self) -> None:
        """Build the item arrays named since the last flush (item_array_view)."""
        groups, self._item_groups = self._item_groups, {}
        for group in groups.values():
            group.build()

    def kept_view(self, text: str, label: str = "kept") -> str:
        """The name of a view of ``text`` that rule queries read more than once: kept
        (Model.keep), so that it is computed once, not once per reader. Built by
        ``keep_named`` once the rules are compiled, not now: analysing the text now
        would build the item arrays it reads before later checks have asked theirs of
        the same list (each later ask a second pass over the list)."""
        for name, pending in self._kept_texts:
            if pending == text:  # a query rendered twice: its text is kept once
                return name
        name = self._view_name(label)
        self._kept_texts.append((name, text))
        return name

    def named_views(self) -> list[str]:
        """The views named by kept_view that keep_named has not built yet."""
        return [name for name, _ in self._kept_texts]

    def keep_named(self) -> None:
        """Build the views named by kept_view (after the rules' item arrays are built)."""
        texts, self._kept_texts = self._kept_texts, []
        for name, text in texts:  # in the order named: a later text may read an earlier view
            self.keep(self.sql(text)).createOrReplaceTempView(name)

    def keep(self, frame):
        """The frame computed and kept: a local checkpoint in local mode (the
        plans of later queries stay small), or persisted with its lineage on a
        cluster (a lost executor's part is recomputed). A local checkpoint is
        computed on a thread of its own (keep_later) while this one goes on: the
        model's tables, built one after another, kept one core busy and left the
        other idle (in one partition each table is one task), and in many
        partitions the driver planned each table while no task ran (the
        independent 10,000-server inventory: 182 -> 168 s, docs/spark.md session 44)."""
        if self.checkpoint:
            # (nothing is pending under Spark Connect: it keeps no checkpoint to wait for)
            after = tuple(self._pending[i] for i in sorted(checkpoints_read(frame)) if i in self._pending) \
                if self._pending else ()
            later = keep_later(frame, self.spark, self.single, after)
            if later is not None:
                frame, work = later
                self._computing.append((self._building, work))
                kept = checkpoint_id(frame)
                if kept is not None:
                    self._pending[kept] = work
                return frame
        return keep(frame, self.checkpoint, self.single)

    def settle(self) -> None:
        """Wait for the tables still being computed (Model.keep); raise the first
        failure of one the build made (it fails the run, as it did when the build
        computed its tables itself). A table the rules asked for is read by their
        query, which computes it again where it failed and fails there, as a rule."""
        computing, self._computing = self._computing, []
        self._pending = {}
        failed = None
        for built, work in computing:
            try:
                work.result()
            except Exception as exc:  # noqa: BLE001 - raised below, or the rules' query raises it
                if built and failed is None:
                    failed = exc
        if failed is not None:
            raise failed

    # -- building ---------------------------------------------------------------------------------
    @property
    def graph_view(self) -> str | None:
        """The site graph's view (Model._graph), once it is built."""
        if self._graph_work is not None:
            work, self._graph_work = self._graph_work, None
            self._graph_view = work.result()
        return self._graph_view

    @property
    def cost_view(self) -> str | None:
        """The site graph's costs (Model._costs): apart from graph_view, so that a query
        numbering sites does not carry the n x n matrix (16 MB at 1,443 sites) in each
        row it joins it to."""
        if self.graph_view is None:
            return None
        if self._cost_view is None:
            self._cost_view = self._costs()
        return self._cost_view

    def build(self) -> "Model":
        # The site graph is Python's work (its groups and hash buckets; 14,454 sites in
        # 0.1 s) after two small collects: on a thread of its own it overlaps the
        # derived fields' Spark jobs, which leave this process waiting on the JVM
        self._building = True
        self._graph_work = Background(self._graph, self.spark)
        # each derived field after those it reads (a column not built yet is a compile error)
        for name, fields in derived_plan(self.tables):
            if fields:
                frame = self.keep(self.derive(name, self.views[name], track=True, fields=fields))
                self.register(name, frame)
            elif self.single and not self.tables[name].facts:
                # kept on its own (as the tables with derived fields or facts are): as a
                # view of the parsed records' union, each query on it scanned every record
                # of every table and, in one partition, copied each whole row (404 fields)
                self.register(name, self.keep(self.sql(f"SELECT * FROM {q(self.views[name])}")))
            self.done.add(name)
            if name == "Organization":
                self.org_view = self._organizations()
        # facts count records of other tables (with their derived fields): added last
        for name, table in self.tables.items():
            if table.facts:
                self.register(name, self.keep(self.sql(self.with_facts(name, self.views[name]))))
                if name == "Organization":
                    self.org_view = self._organizations()
        self._graph_view = self.graph_view  # waits for the thread: a failure there is the build's
        self._building = False
        return self

    def with_facts(self, name: str, view: str) -> str:
        """SQL of the rows of ``view`` (table ``name``) with the table's facts:
        counts of the records of another table meeting a condition, per estate or
        (``by``) per record named by the counted record (Evaluator._fact)."""
        table = self.tables[name]
        base = [c for c in self.columns[name] if c not in table.facts]
        items = [f"`t`.{q(c)}" for c in base]
        joins = []
        for fact, (counted, condition, by, own_key) in table.facts.items():
            frame = Frame(self, q(self.views[counted]), KEYS)
            scope = Scope(Rec("", self.tables[counted]))
            try:
                test = strict_true(frame.compile(parse(condition), scope))
                key = frame.compile(parse(by), scope).sql if by else "CAST(NULL AS STRING)"
            except CompileError as exc:
                self.failures.append((f"{name}.{fact}", str(exc)))
                items.append(f"CAST(NULL AS BIGINT) AS {q(fact)}")
                continue
            alias = self.alias()
            counts = frame.select(["`_est` AS `e`", f"{key} AS `k`", "count(1) AS `n`"],
                                  where=test, group_by=["`_est`", key])
            condition_sql = f"`t`.`_est` = {q(alias)}.`e`" + (f" AND `t`.{q(own_key or 'name')} = {q(alias)}.`k`" if by else "")
            joins.append(f"LEFT JOIN ({counts}) AS {q(alias)} ON {condition_sql}")
            items.append(f"CAST(coalesce({q(alias)}.`n`, 0) AS BIGINT) AS {q(fact)}")
            self.types[(name, fact)] = INT
        self.columns[name] = base + list(table.facts)
        return f"SELECT {', '.join(items)} FROM {q(view)} AS `t` {' '.join(joins)}"

    def derive(self, name: str, view: str, track: bool = False, fields: list[str] | None = None):
        """The records of table ``name`` in ``view`` with the table's derived fields
        (``fields``: in this order, tables.derived_plan's; default: as written)."""
        table = self.tables[name]
        columns = [c for c, _ in rows.table_columns(table)]
        frame = None
        for field_name in fields or list(table.derived):
            text = table.derived[field_name]
            compiled = Frame(self, q(view), KEYS)
            try:
                val = compiled.compile(parse(text), Scope(Rec("", table)))
            except CompileError as exc:
                if track:
                    self.failures.append((f"{name}.{field_name}", str(exc)))
                val = None
            if val is None or val.type == NULL:
                sql, kind = typed_null("str"), NULL
            else:
                sql, kind = val.sql, val.type
            frame = self.sql(compiled.select([q(c) for c in columns] + [f"{sql} AS {q(field_name)}"]))
            view = self._view_name(f"{name}_{field_name}")
            frame.createOrReplaceTempView(view)
            columns.append(field_name)
            if track:
                self.types[(name, field_name)] = kind
                self.columns[name] = list(columns)
                self.views[name] = view  # later derived fields may navigate to this table
        return frame

    def _organizations(self) -> str:
        """A view with one Organization row per estate: its document, or documented defaults."""
        view = self.views["Organization"]
        facts = self.tables["Organization"].facts
        # counted by the parse (its stats rows): a collect here waited for the table's rows
        defaults = [est for est in self.estates if self.organizations.get(est, 0) != 1]
        columns = ", ".join(q(c) for c in self.columns["Organization"] if c not in facts)
        parts = [f"SELECT {columns} FROM {q(view)} WHERE `_est` IN "
                 f"(SELECT `_est` FROM {q(view)} GROUP BY `_est` HAVING count(1) = 1)"]
        if defaults:
            table_columns = rows.table_columns(self.tables["Organization"])
            record = default_organization()
            data = [rows.record_row(table_columns, record, est, -1) for est in defaults]
            frame = rows.local_frame(self.spark, data, rows.spark_schema(table_columns))
            default_view = self._view_name("Organization_default")
            frame.createOrReplaceTempView(default_view)
            if self.tables["Organization"].derived:
                derived = self.derive("Organization", default_view)
                default_view = self._view_name("Organization_default_derived")
                derived.createOrReplaceTempView(default_view)
            parts.append(f"SELECT {columns} FROM {q(default_view)}")
        record = ", ".join(f"`o`.{q(c)}" for c in lookup_columns(self.columns["Organization"], written=True))
        union = " UNION ALL ".join(parts)
        if any(c in facts for c in self.columns["Organization"]):  # facts are known: count for the defaults too
            union_view = self._view_name("Organization_all")
            self.sql(union).createOrReplaceTempView(union_view)
            union = self.with_facts("Organization", union_view)
        frame = self.keep(self.sql(f"SELECT `o`.`_est` AS `_k_est`, struct({record}) AS `_k_rec` FROM ({union}) AS `o`"))
        name = self._view_name("Organization_one")
        frame.createOrReplaceTempView(name)
        return name

    def _graph(self) -> str:
        """Per estate, the site graph (linter.topology) in arrays that expressions
        index in constant time: Spark looks a key up in a map by scanning all its
        keys, so a map of 1,000 sites to their costs made every site_cost a scan of
        two thousand names. Sites are numbered (sorted names); ``idx`` hashes a name
        to its number (``m`` buckets of Spark's xxhash64, a bucket holding one or
        two names) and ``group`` the connected group of each site. The costs
        themselves are another view, built only when a rule reads them (Model._costs)."""
        sites: dict[int, list] = {}
        links: dict[int, list] = {}
        for row in self.sql(f"SELECT `_est`, `name` FROM {q(self.views['Site'])}").collect():
            sites.setdefault(row["_est"], []).append(row["name"])
        for row in self.sql(f"SELECT `_est`, `sites`, `cost` FROM {q(self.views['SiteLink'])}").collect():
            links.setdefault(row["_est"], []).append((list(row["sites"] or []), row["cost"]))
        graphs = {est: build_site_graph(sites.get(est, []), links.get(est, [])) for est in self.estates}
        self._site_graphs = graphs
        data = []
        for est, graph in graphs.items():
            listed = graph.names  # sorted: a site's number is its position
            n = len(listed)
            number = {name: i for i, name in enumerate(listed)}
            m = 1
            while m < 2 * n:
                m *= 2
            buckets: list = [None] * m
            for name, i in number.items():
                slot = spark_string_hash(name) % m  # Python's % is Spark's pmod for a positive m
                buckets[slot] = {**(buckets[slot] or {}), name: i}
            data.append((est, (n, m, buckets, [graph.group_of[name] for name in listed])))
        name = self._view_name("site_graph")
        self.keep(rows.local_frame(self.spark, data, _graph_schema())).createOrReplaceTempView(name)
        return name

    def _costs(self) -> str:
        """The view of every estate's n x n site costs, built when a rule reads site_cost
        itself (RTE005's reach term is decided by the index, linter.forms.pairs_reach):
        quadratic, so refused past MATRIX_SITES sites."""
        sites = max((len(graph.names) for graph in self._site_graphs.values()), default=0)
        if sites > MATRIX_SITES:
            raise CompileError(
                f"site_cost here needs the cost between every two of the estate's {sites:,} sites "
                f"({sites * sites:,} numbers), more than exlint builds (up to {MATRIX_SITES:,} sites); "
                f"compare site_cost with a constant in a pairs check's profile term "
                f"(not any(list, site_cost(profile.site, item.site) <= K)), which needs no such table")
        # as text, parsed by the JVM: 2 million numbers (1,443 sites) in a list were
        # unpickled and boxed one by one in a single task, 39 s of a 10,000-server run
        costs = [(est, len(graph.names), ",".join(map(str, graph.matrix())))
                 for est, graph in self._site_graphs.items()]
        shipped = self._view_name("site_cost_text")
        rows.local_frame(self.spark, costs, _cost_text_schema()).createOrReplaceTempView(shipped)
        x = self.lambda_var()
        cost = (f"IF(`n` = 0, CAST(array() AS ARRAY<BIGINT>), "
                f"transform(split(`cost`, ','), {x} -> CAST({x} AS BIGINT)))")
        view = self._view_name("site_costs")
        self.keep(self.sql(f"SELECT `est` AS `_k_est`, named_struct('n', `n`, 'cost', {cost}) AS `_k_rec` "
                           f"FROM {q(shipped)}")).createOrReplaceTempView(view)
        return view

    def site_numbers(self) -> str | None:
        """The view of (est, name, number) of every site of the graphs (Model._graph)."""
        if self.graph_view is None:
            return None
        if self._site_names is None:
            numbers = [(est, name, i) for est, graph in self._site_graphs.items()
                       for i, name in enumerate(graph.names)]
            self._site_names = self._view_name("site_numbers")
            self.keep(rows.local_frame(self.spark, numbers, _site_numbers_schema())
                      ).createOrReplaceTempView(self._site_names)
        return self._site_names

    def reach_view(self, reach, wanted: dict[int, list[int]]) -> str:
        """A small view of the graph (Model._graph) for linter.forms.pairs_reach: (est,
        name, far, sites): for each site s, the numbers of the sites p of ``wanted``
        (per estate: the sites of the profiles) whose site_cost (p, s) is not within
        ``reach`` (linter.forms.pairs_reach.Reach) when ``far``, else of those whose
        cost is within it: whichever set is smaller. A sparse graph's beyond sets are
        nearly every site, a dense graph's near sets are; either way a record's
        candidates cost the smaller sets. Only profile sites are kept: the join with a
        key's profiles would drop the others, after each folder had exploded into them
        (at an independent 100,000 servers, 1,949 of 14,454 sites have no server)."""
        key = (reach.threshold, tuple(sorted((est, tuple(sorted(sites))) for est, sites in wanted.items())))
        if key not in self._reach:
            # the sets as text, split by the JVM: as lists, 9.4 million numbers (the far sets
            # of 14,454 sites) would be unpickled and boxed one by one (Model._costs)
            data = []
            for est, graph in self._site_graphs.items():
                for s, (far, numbers) in enumerate(graph.reach_sets(reach.threshold, wanted.get(est, []))):
                    data.append((est, graph.names[s], far, ",".join(map(str, numbers))))
            shipped = self._view_name("reach_text")
            rows.local_frame(self.spark, data, _reach_schema()).createOrReplaceTempView(shipped)
            x = self.lambda_var()
            name = self._view_name("reach")
            self.keep(self.sql(f"SELECT `est`, `name`, `far`, IF(`sites` = '', CAST(array() AS ARRAY<INT>), "
                               f"transform(split(`sites`, ','), {x} -> CAST({x} AS INT))) AS `sites` "
                               f"FROM {q(shipped)}")).createOrReplaceTempView(name)
            self._reach[key] = name
        return self._reach[key]

    def unpersist(self) -> None:
        for name in reversed(self.registered):  # the latest first, as release_persisted
            try:
                self.spark.catalog.dropTempView(name)
            except Exception:
                pass
        self.registered = []


class ItemArrays:
    """The item arrays of one list field asked for since the last flush: the
    distinct lists exploded once, each path navigated from the same items (their
    joins shared), and one grouping gathering every path's values; each path's
    view is then that one row per list with its own array. One pass instead of
    one per path: the independent 10,000-server inventory asks four of
    PublicFolder.replicas (docs/spark.md, session 44)."""

    # the hash numbering a distinct list (lists of one hash are told apart by their rank)
    LIST_HASH = "xxhash64({})"

    def __init__(self, model: Model, table: str, field_name: str):
        self.model, self.table, self.field_name = model, table, field_name
        listed = q(field_name)
        # each distinct list numbered by its hash and its rank among the lists of that
        # hash (exact, and the same whenever computed): its exploded items carry the
        # number, not the list. Carrying the list (a replica list of ~14 names) in each
        # of its items was 7.9 GiB of shuffle at the independent 100,000 servers,
        # sorted, and 9.5 GB spilled gathering them back (docs/spark.md, session 49).
        self.lists = (f"(SELECT `_est`, {listed}, `_lh`, row_number() OVER (PARTITION BY `_est`, `_lh` "
                      f"ORDER BY {listed}) AS `_ln` FROM (SELECT `_est`, {listed}, {self.LIST_HASH.format(listed)} AS `_lh` "
                      f"FROM (SELECT DISTINCT `_est`, {listed} FROM {q(model.views[table])} "
                      f"WHERE size({listed}) > 0) AS `_d`) AS `_h`)")
        frame = Frame(model, self.lists, ["_est", "_lh", "_ln"])
        self.child, self.pos, self.iv, self.it = explode_items(frame, listed, None)
        self.values: list[tuple[str, str]] = []  # (view name, SQL of the item's value)

    def add(self, name: str, path: tuple) -> str:
        """Name ``name`` the view of ``item.<path>``; returns the values' type."""
        model = self.model
        spec = model.tables[self.table].fields[self.field_name]
        item = Bound(Val(q(self.iv), STR, q(self.it), STR, name=self.iv), model.tables[spec.ref])
        val = self.child.nav(("item",) + tuple(path), Scope(Rec("", model.tables[self.table]), item=item))
        self.values.append((name, val.sql if val.type != NULL else "CAST(NULL AS STRING)"))
        return val.type

    def build(self) -> None:
        model = self.model
        rows = self.child.select(["`_est` AS `e`", "`_lh` AS `h`", "`_ln` AS `n`", f"{q(self.pos)} AS `p`"]
                                 + [f"{value} AS `v{i}`" for i, (_, value) in enumerate(self.values)])
        fields = ", ".join(f"'v{i}', `v{i}`" for i in range(len(self.values)))
        gathered = (f"SELECT `e`, `h`, `n`, sort_array(collect_list(named_struct('p', `p`, {fields}))) AS `all` "
                    f"FROM ({rows}) AS `x` GROUP BY `e`, `h`, `n`")
        gather = (f"SELECT `l`.`_est` AS `_k_est`, `l`.{q(self.field_name)} AS `_k_list`, `g`.`all` AS `_k_all` "
                  f"FROM {self.lists} AS `l` JOIN ({gathered}) AS `g` "
                  f"ON `l`.`_est` = `g`.`e` AND `l`.`_lh` = `g`.`h` AND `l`.`_ln` = `g`.`n`")
        if len(self.values) > 1:  # gathered once and kept; each path's view a projection of it, kept
            gathered = model._view_name(f"{self.table}_{self.field_name}_items_all")
            model.keep(model.spark.sql(gather)).createOrReplaceTempView(gathered)
            gather = f"SELECT * FROM {q(gathered)}"
        for i, (name, _) in enumerate(self.values):
            model.keep(model.spark.sql(f"SELECT `_k_est`, `_k_list`, named_struct('v', transform(`_k_all`, `s` -> "
                                       f"`s`.`v{i}`)) AS `_k_rec` FROM ({gather}) AS `g`")).createOrReplaceTempView(name)
