"""Getting a SparkSession: embedded ``local[*]`` (the default), a cluster master
(``spark://``, ``yarn``, ``k8s://``), Spark Connect (``sc://``), or the session
that ``spark-submit`` already made.

Nothing here imports PySpark at module level: ``exlint check`` imports the CLI,
and the CLI must stay light.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

INSTALL_HINT = "PySpark is not installed: install the Spark extra with  pip install 'exlint[spark]'"
CONNECT_HINT = ("Spark Connect (--remote) needs PySpark's connect extras: "
                "pip install 'exlint[connect]'")
JAVA_HINT = "install Java 17 (for example: apt-get install openjdk-17-jre-headless) and set JAVA_HOME"

# Defaults the engine sets unless the user gives them with --conf.
DEFAULT_CONF = {
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.ansi.enabled": "false",
    "spark.sql.adaptive.enabled": "true",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.debug.maxToStringFields": "1000",
    # rule queries are wide CASE expressions over many joins: constraint
    # propagation costs seconds per query and gains nothing here
    "spark.sql.constraintPropagation.enabled": "false",
    "spark.sql.codegen.wholeStage.union.enabled": "false",
    # lookup tables are joined whole (one struct column) so that every join of a
    # table is the same plan and Spark broadcasts it once per query
    "spark.sql.optimizer.expression.nestedPruning.enabled": "false",
    "spark.sql.optimizer.nestedSchemaPruning.enabled": "false",
    # collect_list and other object aggregates stay hash-based up to this many groups a
    # task before sorting (Spark's default 128): the item arrays group ~60,000 distinct
    # replica lists by the lists themselves, and sorting by arrays of strings was most of
    # their time (independent 10,000 servers: 44.6 -> 28.2 s of task time, docs/spark.md
    # session 44); past it Spark still falls back to sorting, so memory stays bounded
    "spark.sql.objectHashAggregate.sortBased.fallbackThreshold": "65536",
    # the driver (here, in client mode too) plans some fifty rule queries
    "spark.driver.memory": "4g",
}
# Only for the embedded (local) mode, which has no cluster manager to configure.
LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}


class SessionError(Exception):
    """Spark cannot start (exit code 2); the message says what to do."""


@dataclass
class SessionOptions:
    master: str | None = None  # None: local[*] (or what spark-submit set)
    remote: str | None = None  # sc://host:port
    conf: dict[str, str] = field(default_factory=dict)
    app_name: str = "exlint estate"
    submitted: bool = False  # running under spark-submit: use its session as is
    progress: bool = False
    # where the JVM's own output (log4j, start-up warnings) goes; None: the terminal (--debug)
    jvm_log: Path | None = None
    short_run: bool = False  # a small inventory: the JVM's JIT set for a short run (driver_jvm)
    input_bytes: int = 0  # the inventory's size as text (inventory.text_bytes): the embedded heap grows with it


def parse_conf(pairs) -> dict[str, str]:
    """``key=value`` strings (repeatable --conf) to a dict."""
    out = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SessionError(f"--conf {pair!r}: expected key=value")
        out[key.strip()] = value.strip()
    return out


def require_pyspark() -> str:
    """PySpark's version, or SessionError with the install hint."""
    if os.environ.get("EXLINT_HIDE_PYSPARK") == "1":  # test hook: behave as if it were missing
        raise SessionError(INSTALL_HINT)
    try:
        import pyspark
    except ImportError:
        raise SessionError(INSTALL_HINT) from None
    return pyspark.__version__


def _java_binary() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        return str(candidate) if candidate.exists() else None
    return shutil.which("java")


def java_version() -> int:
    """The major version of the Java that Spark will use; SessionError when there is none."""
    binary = _java_binary()
    if binary is not None and binary in _JAVA_MAJOR:  # asked twice per run (the CLI, then the session)
        return _JAVA_MAJOR[binary]
    _JAVA_MAJOR[binary] = major = _run_java_version(binary)
    return major


_JAVA_MAJOR: dict = {}


def _run_java_version(binary: str | None) -> int:
    if binary is None:
        where = f"JAVA_HOME={os.environ['JAVA_HOME']} holds no bin/java" if os.environ.get("JAVA_HOME") \
            else "no `java` on PATH and JAVA_HOME is not set"
        raise SessionError(f"Spark needs Java, but {where}: {JAVA_HINT}")
    try:
        run = subprocess.run([binary, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SessionError(f"cannot run {binary} -version ({exc}): {JAVA_HINT}") from None
    text = run.stderr + run.stdout
    match = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if run.returncode != 0 or not match:
        raise SessionError(f"{binary} -version failed: {text.strip()[:200]}: {JAVA_HINT}")
    major = int(match.group(1))
    if major == 1 and match.group(2):  # 1.8 -> 8
        major = int(match.group(2))
    return major


def check_java(pyspark_version: str) -> int:
    major = java_version()
    spark_major = int(pyspark_version.split(".")[0])
    supported = (17, 21) if spark_major >= 4 else (8, 11, 17)
    if major < min(supported):
        raise SessionError(f"Spark {pyspark_version} needs Java {' or '.join(map(str, supported))}, "
                           f"but the Java found is version {major}: {JAVA_HINT}")
    return major


# In local mode the driver's heap holds every kept table. Kept tables that do not fit
# are spilled to disk and read back (deserialized, and offered to the memory store
# again) by every query that scans them: at 100,000 servers (365 MB of JSON Lines)
# a 4 GB heap spilled the parsed records, and the job took 289 s against 233 s with
# 12 GB (rules 181 -> 130 s, docs/spark.md "Memory"). Kept rows take about ten times
# their JSON text, and Spark stores in 60% of the heap: 16 bytes of heap per input
# byte, above a 4 GB floor, at most 60% of the machine's (or container's) memory.
LOCAL_MEMORY_FLOOR = 4 << 30
LOCAL_MEMORY_PER_INPUT_BYTE = 16
LOCAL_MEMORY_SHARE = 0.6
CGROUP_MEMORY_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")  # v2, v1


def local_driver_memory(input_bytes: int, physical: int | None = None) -> str:
    """``spark.driver.memory`` for an embedded run over ``input_bytes`` of inventory."""
    if physical is None:
        physical = physical_memory()
    wanted = LOCAL_MEMORY_FLOOR + LOCAL_MEMORY_PER_INPUT_BYTE * max(0, int(input_bytes))
    # a machine whose memory cannot be read gets at most twice the floor
    wanted = min(wanted, int(physical * LOCAL_MEMORY_SHARE) if physical else 2 * LOCAL_MEMORY_FLOOR)
    return f"{max(LOCAL_MEMORY_FLOOR, wanted) >> 20}m"


def physical_memory() -> int | None:
    """This machine's memory in bytes, or its container's limit when lower (cgroup
    v2 or v1); None when neither can be read."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        pass
    for limit in CGROUP_MEMORY_LIMITS:
        try:
            text = Path(limit).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < 1 << 60:  # "max", or v1's "no limit" (about 2**63)
            sizes.append(int(text))
    return min(sizes) if sizes else None


def _quiet_log4j() -> str:
    """A log4j2 configuration that keeps Spark's console at WARN and hides the
    start-up chatter (native-hadoop, loopback-address notices)."""
    path = Path(__file__).with_name("log4j2.properties")
    return path.resolve().as_uri()


def build_session(options: SessionOptions):
    """A SparkSession for the options; SessionError with a clear message on failure."""
    version = require_pyspark()
    conf = dict(DEFAULT_CONF)
    if options.progress:
        conf["spark.ui.showConsoleProgress"] = "true"
    if options.remote:
        return _connect_session(options, conf)
    java_major = check_java(version)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(options.app_name)
    if options.submitted:
        session = builder.getOrCreate()
        _apply_runtime_conf(session, {k: v for k, v in {**conf, **options.conf}.items() if k.startswith("spark.sql.")},
                            keep_user=options.conf)
        return session
    master = options.master or "local[*]"
    conf = launch_conf(options, master)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from linter.engines.spark import driver_jvm

    if options.jvm_log is not None and not _jvm_running():  # this process starts the driver JVM
        driver_jvm.prepare(conf, master, _java_binary(), java_major, options.short_run, options.jvm_log.parent)
    worker_python(master, conf)
    java_options = driver_jvm.with_gclocker_retries(conf.get("spark.driver.extraJavaOptions", ""), java_major)
    if "log4j2.configurationFile" not in java_options:
        java_options += f" -Dlog4j2.configurationFile={_quiet_log4j()}"
    conf["spark.driver.extraJavaOptions"] = exit_on_out_of_memory(java_options).strip()
    builder = builder.master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    unreachable = _unreachable_master(master)
    if unreachable:
        raise SessionError(f"cannot reach the Spark master {master}: {unreachable}; check --master "
                           "(spark://HOST:PORT, 7077 by default) and that the master is running")
    log_start = _size(options.jvm_log)
    try:
        if options.jvm_log is not None:
            try:
                _launch_jvm(master, options.app_name, conf, options.jvm_log)
            except Exception:
                from linter.engines.spark import driver_jvm

                archive = driver_jvm.without_archive(conf)
                if archive is None:
                    raise
                # perhaps a damaged class-data archive: once more without it
                log_start = _size(options.jvm_log)
                _launch_jvm(master, options.app_name, conf, options.jvm_log)
                driver_jvm.remove_archive(archive)  # it was the cause
                builder = builder.config("spark.driver.extraJavaOptions", conf["spark.driver.extraJavaOptions"])
        session = builder.getOrCreate()
    except Exception as exc:  # the JVM did not start, or the master is unreachable
        cause = _jvm_said(options.jvm_log, log_start)  # names the JVM's log and what to check itself
        if cause is None:
            details = f" (details: {options.jvm_log})" if options.jvm_log is not None else ""
            cause = f"{_first_line(exc)}; check --master and the --conf values{details}"
        raise SessionError(f"cannot start Spark (master {master}): {cause}") from None
    session.sparkContext.setLogLevel("WARN")
    _check_sql_conf(session)
    return session


def _check_sql_conf(session) -> None:
    """Build the session's SQL state now: a --conf value it cannot take (`spark.sql.shuffle.
    partitions=abc`) then fails here, named, not as "Error while instantiating
    'SessionStateBuilder'" from the first query of the job."""
    try:
        session._jsparkSession.sessionState()
    except Exception as exc:  # noqa: BLE001 - only a refused value is the user's; the rest fails later as it would
        refused = bad_conf_value(exc)
        if refused is not None:
            raise SessionError(f"cannot start Spark: {refused}") from None


# what the user may already have told the JVM to do when its heap runs out (a heap dump
# alone, -XX:+HeapDumpOnOutOfMemoryError, does not say that)
_OWN_OUT_OF_MEMORY = re.compile(r"(?:Exit|Crash)OnOutOfMemoryError|-XX:OnOutOfMemoryError=")


def exit_on_out_of_memory(java_options: str) -> str:
    """The driver's Java options with -XX:+ExitOnOutOfMemoryError, unless they say
    what to do on it already. A driver JVM out of heap half-stops its SparkContext and
    then waits forever, with this process blocked on its socket (1.2 million findings
    at 500 servers did); exiting ends the run with the driver's failure, which
    failures.describe reads from the JVM's log."""
    if _OWN_OUT_OF_MEMORY.search(java_options):
        return java_options
    return f"{java_options} -XX:+ExitOnOutOfMemoryError"


def launch_conf(options: SessionOptions, master: str) -> dict:
    """The settings a session this process starts gets: the engine's defaults, the
    embedded mode's (its heap sized by the inventory), then the user's, which win."""
    conf = dict(DEFAULT_CONF)
    if options.progress:
        conf["spark.ui.showConsoleProgress"] = "true"
    if master.startswith("local"):
        conf.update(LOCAL_CONF)
        conf["spark.driver.memory"] = local_driver_memory(options.input_bytes)
    conf.update(options.conf)
    return conf


def worker_python(master: str, conf: dict) -> str | None:
    """The interpreter Spark's Python workers start, set before the context exists
    (PySpark reads PYSPARK_PYTHON once, and defaults to whatever ``python3`` is
    first on PATH, which for a pipx, cron or CI install is not the one that has
    exlint). The user's choice (``spark.pyspark.python``, PYSPARK_PYTHON) wins; in
    local mode the workers run this very interpreter; on a cluster the nodes'
    default stays, and ``check_executors`` proves it can run exlint."""
    chosen = conf.get("spark.pyspark.python") or os.environ.get("PYSPARK_PYTHON")
    if not chosen and master.startswith("local"):
        chosen = sys.executable
    if chosen:
        os.environ["PYSPARK_PYTHON"] = chosen
    return chosen


def _launch_jvm(master: str, app_name: str, conf: dict, log: Path) -> None:
    """Start Spark's JVM with its standard output and error in ``log``: what it
    prints on its own (``WARNING: Using incubator modules``, log4j warnings about
    lost tasks) would otherwise land in the middle of the progress line. The
    session builder then finds this gateway and uses it."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if _jvm_running():  # a JVM is already running in this process
        return
    spark_conf = SparkConf().setMaster(master).setAppName(app_name)
    for key, value in conf.items():
        spark_conf.set(key, value)
    log.parent.mkdir(parents=True, exist_ok=True)
    before = _children()
    try:
        with open(log, "ab") as out:
            gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": out, "stderr": out})
    except BaseException:
        # Ctrl-C (or a failure) while the JVM starts: PySpark keeps its process to itself, and
        # a JVM whose connection file was removed under it never exits (seen: two JVMs left
        # running for hours after a Ctrl-C in the first second)
        from linter.engines.spark.driver_jvm import kill_tree

        for pid in _children() - before:
            kill_tree(pid)
        raise
    with SparkContext._lock:
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm
    global _JVM_LOG
    _JVM_LOG = log
    from linter.engines.spark import sql_warmup

    sql_warmup.start(gateway)  # the parser warms while the SparkContext starts


def _children() -> set[int]:
    """This process's child processes (Linux's /proc; elsewhere none are known)."""
    found: set[int] = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as listing:
                found.update(int(pid) for pid in listing.read().split())
    except (OSError, ValueError):
        pass
    return found


def _jvm_running() -> bool:
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    return SparkContext._gateway is not None


def jvm_process():
    """The Popen of the JVM this process started, if any."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return None
    return getattr(SparkContext._gateway, "proc", None)


_JVM_LOG: Path | None = None  # where the JVM this process started writes (_launch_jvm)


def jvm_log() -> Path | None:
    """The log of the JVM this process started, if it started one with a log."""
    return _JVM_LOG


def jvm_exited() -> bool:
    """The JVM this process started has exited (killed, crashed, out of memory):
    whatever Py4J says next, the driver is gone."""
    process = jvm_process()
    try:
        return process is not None and process.poll() is not None
    except Exception:  # noqa: BLE001
        return False


def _connect_session(options: SessionOptions, conf: dict):
    try:
        from pyspark.sql.connect.utils import check_dependencies

        try:
            check_dependencies()  # PySpark 4
        except TypeError:
            check_dependencies("pyspark.sql.connect")  # PySpark 3.5
    except ImportError:
        raise SessionError(CONNECT_HINT) from None
    from pyspark.sql import SparkSession

    unreachable = _unreachable_connect(options.remote)
    if unreachable:
        raise SessionError(f"cannot reach Spark Connect at {options.remote}: {unreachable}; {CONNECT_CHECK}")
    session = None
    try:
        session = SparkSession.builder.remote(options.remote).getOrCreate()
        _answers(session)
    except Exception as exc:
        if session is not None:  # without RPCs: its exit hook would otherwise retry for 10 minutes
            _close_client(session)
        raise SessionError(f"cannot connect to Spark Connect at {options.remote}: {_connect_said(exc)}; "
                           f"{CONNECT_CHECK}") from None
    _apply_runtime_conf(session, {k: v for k, v in conf.items() if k.startswith("spark.sql.")}, keep_user={})
    _apply_runtime_conf(session, options.conf, keep_user={})
    return session


CONNECT_CHECK = "check --remote (sc://HOST:15002) and that a Spark Connect server runs there"
CONNECT_PORT = 15002  # Spark Connect's default, when the URL names none
# the first call's retries: Spark Connect's own policy waits at least 10 minutes (15 retries)
# for a server that does not answer, printing only a UserWarning, and Ctrl-C waits with it
PROBE_RETRIES = 3
PROBE_BACKOFF_MS = 1000


def _connect_address(remote: str) -> tuple[str, int] | None:
    """The host and port of an ``sc://HOST[:PORT][/;param=value...]`` URL; None when it
    is not one (Spark Connect's own message for a malformed URL names it)."""
    if not remote.startswith("sc://"):
        return None
    authority = remote[len("sc://"):].split("/", 1)[0].split(";", 1)[0]
    if authority.startswith("["):  # [::1]:15002
        host, _, rest = authority[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = authority.partition(":")
    if not host or (port and not port.isdigit()):
        return None
    return host, int(port) if port else CONNECT_PORT


def _unreachable_connect(remote: str, timeout: float = 5.0) -> str | None:
    """Why nothing accepts a connection at a Spark Connect URL, or None."""
    address = _connect_address(remote)
    return None if address is None else _refused(address, timeout)


def _answers(session) -> None:
    """One call to the server with few retries, so that a port that is not Spark Connect
    (or a server that never answers) fails in seconds; the job's calls then keep Spark's
    own patient policy."""
    client = getattr(session, "client", None)
    if client is None or not hasattr(client, "set_retry_policies"):
        session.version
        return
    import warnings

    from pyspark.sql.connect.client.retries import DefaultPolicy

    patient = client.get_retry_policies()
    client.set_retry_policies([DefaultPolicy(max_retries=PROBE_RETRIES, initial_backoff=200,
                                             max_backoff=PROBE_BACKOFF_MS, jitter=0)])
    try:
        with warnings.catch_warnings():  # "[RETRIES_EXCEEDED]" as a UserWarning: the error says it
            warnings.simplefilter("ignore")
            session.version
    finally:
        client.set_retry_policies(patient)


def _close_client(session) -> None:
    client = getattr(session, "client", None)
    try:
        if client is not None:
            client.close()
    except Exception:  # noqa: BLE001 - a channel that never opened
        pass


def _connect_said(exc: BaseException) -> str:
    """What gRPC said (``failed to connect to all addresses``, ``Deadline Exceeded``), not
    its "<_InactiveRpcError of RPC that terminated with:"."""
    from linter.engines.spark.java_text import exception_text

    text = exception_text(exc)
    details = re.search(r'details = "([^"\n]+)"', text)
    if details:
        status = re.search(r"status = StatusCode\.(\w+)", text)
        return details.group(1)[:300] + (f" ({status.group(1)})" if status else "")
    return _first_line(exc)


def _apply_runtime_conf(session, conf: dict, keep_user: dict) -> None:
    for key, value in conf.items():
        if key in keep_user and keep_user[key] != value:
            continue
        try:
            session.conf.set(key, value)
        except Exception as exc:  # static configuration: cannot be changed on a running session
            refused = bad_conf_value(exc)
            if refused is not None:  # a value Spark cannot take is a typo, never silently dropped
                raise SessionError(f"--conf {key}={value}: {refused}") from None


# For inventories below SMALL_RECORDS records, compiling generated code costs
# more than it saves: run expressions interpreted, on one shuffle partition.
SMALL_RECORDS = 100_000
# In local mode, an inventory runs in the one-partition layout below (with SMALL_CONF:
# interpreted) while its checks read fewer than INTERPRETED_CHECKED_ROWS rows (each
# check counts the rows of its table: job._checked_rows). What interpreting costs grows
# with the checks a row meets (a store meets 75, a folder 17), not with the rows alone.
# Measured fresh, 2 cores, interpreted against generated code (docs/spark.md, "Which
# layout, measured again"): the bundled sample (49,582 checked rows) 14.6 / 22.1 s, our
# 3,000 servers (726,014) 21.1 / 26.7 s, the independent 1,000 (991,202) 26.4 / 27.6 s,
# our 5,000 (1,211,399) 27.6 / 30.1 s; the independent 2,000 (1,961,537) 39.8 / 34.4 s.
INTERPRETED_CHECKED_ROWS = 1_400_000
# ... and up to ONE_PARTITION_MAX_RECORDS rows of work (job._work) on two cores in one
# partition still, with generated code and broadcast lookups
# (LARGER_ONE_PARTITION_CONF, Model.broadcast_lookups); beyond, many partitions. Measured
# fresh, 2 cores, one partition against many: the independent 10,000 servers (846,000
# rows of work) 95.4, 99.3 s / 108.9, 106.7 s; the independent 20,000 (1.7 million)
# 165.5 / 187.9 s; our 100,000 (5.5 million) 143.3 / 137.6 s. One partition's work runs
# on the threads that plan its halves and kept tables, two cores' worth: a machine with
# more cores spreads many partitions over all of them, so the bound shrinks with the
# cores (job.one_partition_max).
ONE_PARTITION_MAX_RECORDS = 3_000_000
LARGER_ONE_PARTITION_CONF = {"spark.sql.shuffle.partitions": "1"}
SMALL_CONF = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.shuffle.partitions": "1",
}
# Larger inventories in many partitions (job.run) run generated code over records
# of every table: the parsed records' union is a struct per table, 404 fields in
# all, and Spark compiles no operator that reads or yields more than
# spark.sql.codegen.maxFields (100) fields. So every scan of the union ran
# interpreted, and such a scan (RDDScanExec) copies each whole row into a new
# UnsafeRow, after generating that projection's code again in every task: at
# 100,000 servers about a fifth of the tasks' time (JFR). Compiled, a
# scan reads only the columns its query uses. profile_estate --cold, 100,000
# servers: model 36.1 -> 24.3 s, rules 119.3 -> 80.5 s. In one partition the rows
# are copied once per query and the larger generated code costs more to compile
# than it saves (10,000 servers, fresh: 44.6 / 47.9 s against 48.3 / 50.9 s).
# Code that grows too large for the JVM falls back to interpreted (Spark's
# spark.sql.codegen.fallback), so no width is refused.
MANY_PARTITIONS_CONF = {"spark.sql.codegen.maxFields": "10000"}
# ... and, in local mode, with every table in one partition (job.run): a join of two
# such tables needs no exchange, so none is broadcast; adaptive execution has no
# exchange to adapt, and its plan would hide the one partition from the checkpoints
# made of it (Spark 4's AdaptiveSparkPlanExec reports an unknown partitioning); and a
# join of single partitions stays unshuffled only while the size Spark estimates for
# each side is at most maxSinglePartitionBytes: a kept table's size is unknown, which
# Spark takes as defaultSizeInBytes (the maximum, and joins multiply it past any
# limit), so an unknown size is one byte here (nothing is broadcast by size anyway).
# An inner join's output is the pair of its sides' partitionings, not one partition,
# and a join after it shuffles both sides: the compiler's own inner joins say
# COALESCE(1) (Model.join_hint), and the optimizer does not turn left joins into
# inner ones (a filter on the joined side would: `server.site IS NOT NULL`)
ONE_PARTITION_CONF = {"spark.sql.autoBroadcastJoinThreshold": "-1", "spark.sql.adaptive.enabled": "false",
                      "spark.sql.defaultSizeInBytes": "1", "spark.sql.maxSinglePartitionBytes": str(2**63 - 1),
                      "spark.sql.optimizer.excludedRules": "org.apache.spark.sql.catalyst.optimizer.EliminateOuterJoin"}


class RuntimeConf:
    """SQL settings changed for one run and restored after it; settings the user
    gave (--conf) are never touched."""

    def __init__(self, session, user: dict | None = None):
        self.session = session
        self.user = set(user or ())
        self.saved: dict = {}

    def set(self, values: dict) -> None:
        for key, value in values.items():
            if key in self.user:
                continue
            try:
                if key not in self.saved:
                    self.saved[key] = self.session.conf.get(key, None)
                self.session.conf.set(key, value)
            except Exception:
                pass

    def restore(self) -> None:
        for key, value in self.saved.items():
            try:
                if value is None:
                    self.session.conf.unset(key)
                else:
                    self.session.conf.set(key, value)
            except Exception:
                pass
        self.saved = {}


def is_connect(session) -> bool:
    return type(session).__module__.startswith("pyspark.sql.connect")


def parallelism(session) -> int:
    """The cores the job can count on (2 under Spark Connect, which does not say)."""
    return 2 if is_connect(session) else session.sparkContext.defaultParallelism


def _unreachable_master(master: str, timeout: float = 5.0) -> str | None:
    """Why no master of a ``spark://`` URL accepts a connection, or None (reachable, or
    not a standalone master). Spark itself retries for about a minute and then says only
    that all masters are unresponsive."""
    if not master.startswith("spark://"):
        return None
    problems = []
    addresses = master[len("spark://"):].split(",")
    for address in addresses:
        host, _, port = address.strip().rpartition(":")
        host = host.strip("[]")
        if not host or not port.isdigit():
            return None  # Spark's own message for a malformed URL is clear enough
        reason = _refused((host, int(port)), timeout)
        if reason is None:
            return None
        problems.append(f"{host}:{port}: {reason}" if len(addresses) > 1 else reason)
    return "; ".join(problems)


def _refused(address: tuple[str, int], timeout: float) -> str | None:
    """Why ``address`` accepts no TCP connection (lower case), or None when it does."""
    try:
        socket.create_connection(address, timeout=timeout).close()
    except OSError as exc:
        if isinstance(exc, (TimeoutError, socket.timeout)):
            return f"no answer within {timeout:g} s"
        return (exc.strerror or type(exc).__name__).lower()
    return None


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else 0
    except OSError:
        return 0


# what a JVM that could not start prints: the line after "Error occurred during
# initialization of VM" is the cause; an exception's first line is its own
_JVM_ERRORS = re.compile(r"^(Error: |Exception in thread |Caused by: |Invalid |Could not |Unrecognized )")


def _jvm_said(log: Path | None, start: int) -> str | None:
    """The cause a JVM that did not start wrote to its log after ``start`` (bytes), as
    one line, with where the whole log is; None when it wrote nothing telling."""
    if log is None:
        return None
    try:
        with open(log, "rb") as handle:
            handle.seek(start)
            lines = [line.strip() for line in handle.read(65536).decode("utf-8", "replace").splitlines()]
    except OSError:
        return None
    lines = [line for line in lines if line]
    cause = None
    for i, line in enumerate(lines):
        if line.startswith("Error occurred during initialization of VM"):
            cause = lines[i + 1] if i + 1 < len(lines) else line
            break
        if _JVM_ERRORS.match(line):
            cause = line
            break
    if cause is None:
        return None
    check = ("--master (local[*], spark://HOST:7077, yarn or k8s://https://HOST:PORT)" if _MASTER_REFUSED.search(cause)
             else "--conf spark.driver.* and JAVA_HOME")
    return f"the Java VM did not start: {cause[:300]} (the JVM's log: {log}); check {check}"


# what SparkContext says of a --master it cannot use (`bogus://x`, `spark://` without a host)
_MASTER_REFUSED = re.compile(r"Master must |Could not parse Master URL|Invalid master URL", re.IGNORECASE)


def bad_conf_value(exc: BaseException) -> str | None:
    """Spark's words for a --conf value it refused, found anywhere in the failure's chain
    (the session state's builder wraps it in "Error while instantiating ..."); else None."""
    from linter.engines.spark.java_text import BAD_CONF_HINT, BAD_CONF_VALUE, exception_text

    match = BAD_CONF_VALUE.search(exception_text(exc))
    return f"{match.group(1)}; {BAD_CONF_HINT}" if match else None


def _first_line(exc: BaseException) -> str:
    """The cause: for a call into the JVM, what Java said (``Asked to run locally
    with 0 threads``), not Py4J's "An error occurred while calling None.org...."."""
    from linter.engines.spark.java_text import said

    return said(str(exc)) or type(exc).__name__
