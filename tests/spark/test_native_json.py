"""The native JSON Lines path (linter/engines/spark/native.py: lines parsed,
validated and modelled in Spark SQL, and only the lines the SQL cannot prove
clean handed to the Python code) gives EXACTLY the result of the Python path
(``native=False``: ``json.loads`` + ``validate_document`` + ``build_records``
for every line), on a hostile corpus.

Why a hostile corpus: the Python path is the definition of what a JSON line
means. Spark's JSON reader differs from ``json.loads`` in many places (single
quotes, NaN/INF spellings, duplicate keys, numbers of any size, invalid UTF-8
replaced rather than refused, lines split on a bare CR), and Spark SQL's string
functions differ from Python's (``str.strip``/``str.lower``/``\\d``/``\\s`` are
Unicode-aware, ``str()`` of a list or a float). Every such difference that the
native path does not route to the Python code is a wrong record or a missing
finding, silently. So the corpus attacks the JSON syntax and every field type
whose conversion is subtle (tables.yaml: duration, size, version, dn_name,
name, names, enums, int, bool, count with ``where``), and compares:

A. ``read_inventory(native=True)`` and ``read_inventory(native=False)``: the
   loader/validator findings, the stats, the counts and every table's records
   (all columns but ``_rid``, which only has to be unique);
B. ``job.run(native=True)`` and ``job.run(native=False)``: the final findings
   (over the corpus but its big file: the rules over the big file's generated
   estate cost minutes, and A already covers its lines);
C. that the native path does the work: every line of a clean corpus goes
   through the SQL (in every style a producer writes JSON), and some (not all)
   lines of the hostile corpus;
D. file names that are not plain (spaces, ``%``, ``#``, ``?``, ``*``, ``[ ]``,
   ``{ }``, ``:``, non-ASCII), which a reader going through Hadoop paths, globs
   or URIs can get wrong while the Python path simply opens the file.

Stats are compared without ``native`` (the lines the SQL took), which differs
between the modes by design. On a mismatch the assertion message shows the
first differing findings and records, column by column, with the line as
written in the corpus file.

The corpus is several files (line numbers restart per file) plus one file of
about 1.4 MB read with ``spark.sql.files.maxPartitionBytes`` at 128 KB,
so that Spark reads it in many splits and line numbers across split boundaries
(and a 1 MB line spanning several splits) are exercised.

Each inventory is read once per mode (module-scoped fixtures); the results are
collected into Python values and the Spark data released.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SEED = 20240611
SPLIT_CONF = {"spark.sql.files.maxPartitionBytes": str(128 * 1024)}  # the big file: about 12 splits
BIG_FILE_BYTES = 1400 * 1024  # the big file is at least this large
INVENTORY_LINES = 700  # lines of samples/inventory/estate.jsonl in the big file


# -- raw JSON text -------------------------------------------------------------------------------
class Raw(str):
    """JSON text inserted as it is (invalid numbers, escaped keys, NaN, ...)."""


class Pairs(list):
    """A JSON object as (key, value) pairs: keys may repeat. A key may be Raw (written as is)."""


def jtext(value, compact: bool = False) -> str:
    """JSON text of a value built from dicts, lists, Pairs and Raw pieces."""
    colon, comma = (":", ",") if compact else (": ", ", ")
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        value = Pairs(value.items())
    if isinstance(value, Pairs):
        parts = []
        for key, item in value:
            key_text = str(key) if isinstance(key, Raw) else json.dumps(key)
            parts.append(key_text + colon + jtext(item, compact))
        return "{" + comma.join(parts) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + comma.join(jtext(item, compact) for item in value) + "]"
    return json.dumps(value)


def _shuffled(value, rng: random.Random):
    """The same value with the keys of every mapping in a random order."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: _shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def dump(data, rng: random.Random, style: str | None = None) -> str:
    """One JSON line of ``data`` in one of the styles a producer may use."""
    style = style or rng.choice(["default", "compact", "shuffled", "ascii", "unicode", "sorted", "tabs"])
    if style == "default":
        return json.dumps(data)
    if style == "compact":
        return json.dumps(data, separators=(",", ":"))
    if style == "shuffled":
        return json.dumps(_shuffled(data, rng), ensure_ascii=rng.random() < 0.5)
    if style == "ascii":
        return json.dumps(data, ensure_ascii=True)
    if style == "unicode":
        return json.dumps(data, ensure_ascii=False)
    if style == "sorted":
        return json.dumps(data, sort_keys=True, separators=(", ", " : "))
    if style == "tabs":
        return json.dumps(data, separators=(",\t", ":\t"))
    raise ValueError(style)


# -- sample documents ----------------------------------------------------------------------------
def sample_documents(root: Path) -> list[dict]:
    """Every document of the YAML files under ``root`` that loads as a mapping."""
    from linter.loading import discover, load_file

    out = []
    for path in discover([root]):
        for document in load_file(path, str(path)).documents:
            if isinstance(document.data, dict):
                out.append(json.loads(json.dumps(document.data, default=str)))
    return out


def _by_kind(documents: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for document in documents:
        out.setdefault(document.get("kind"), []).append(document)
    return out


def _copy(value):
    return json.loads(json.dumps(value))


def _set(data: dict, path: tuple, value) -> dict:
    """``data`` (a copy) with ``path`` set to ``value`` (intermediate mappings created)."""
    data = _copy(data)
    node = data
    for part in path[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[path[-1]] = value
    return data


def _drop(data: dict, path: tuple) -> dict:
    data = _copy(data)
    node = data
    for part in path[:-1]:
        node = node[part]
    node.pop(path[-1], None)
    return data


def _renamed(data: dict, name: str) -> dict:
    return _set(data, ("metadata", "name"), name)


# -- the attacks ---------------------------------------------------------------------------------
NAN, INF = float("nan"), float("inf")
BIG = 2**63

DURATIONS = [
    "00:10:00", "1.00:00:00", "-00:01:00", "00:00:01.5", "15m", "2d", "90S", "1.5h", " 15m", "15m ", "15m\t",
    "24:00:00", "23:59:59", "99999999.23:59:59", "100000000.00:00:00", "123456789012345678901s", "0:00:00",
    "1:02:03", "00:60:00", "00:00:60", "00:10:00.1234567", "00:10:00.12345678", "-15m", "15 m", "15M",
    "1.5.00:00:00", "+00:10:00", "00:10", "", " ", "\uff11\uff15m", "\u0663m", "\u00a015m", "15m\u00a0",
    "\u200b15m", "15m\n", "\u300015m", "\x1f15m", "0.1h", "0.7m", "1.15d", "1e3s", ".5h", "5.h", "-1.00:00:00",
    "-0:00:01", "01:00:00.0000001", "1.01:00:00.5", "00:00:00", "0s", "000000000000000000000001s",
    "11111111111111111111.00:00:00", "9" * 400 + "s", "\uff10\uff10:\uff11\uff10:\uff10\uff10", "PT15M",
    "15min", "15mm", "1d2h", "-1.00:00:00.5", "23:59:59.9999999", "00:00:00.0000001", "7:05:09",
    "1.7:05:09", "00:00:01.1234567", "999999999999999s", "9999999999999999d", "15m\u0085", "15m\u2028",
    "00:10:00\u2029", "15m\r", 600, 600.0, True, False, [], {}, ["15m"], {"a": "15m"}, 1e16, 0.1, BIG, -1,
]
SIZES = [
    307200, "300KB", "10 MB", "1gb", "12345678901234567890 B", "300kb", "300 kb", "300  KB", " 300KB", "300KB ",
    "1.5MB", "1TB", "1 tb", "0", "0B", 0, -1, "-1KB", 1.5, 1.0, True, "", "KB", "300K", "300 KiB",
    "\uff11KB", "9" * 30 + "TB", BIG, BIG - 1, -BIG, 2**64, "9223372036854775807", "9223372036854775808 B",
    "1e3", "1e3KB", [], {}, "10MB\n", "\u00a010MB", "10\u00a0MB", "10\tMB", 1e300, "0.5B", "0.0001KB",
    "300KB\u2028", "300KB\u0085", "99999999999999 GB", "8589934592 GB", "8589934591 GB", "8388608 TB",
    "8388607 TB", "9999999999 TB", "9007199254740993 B", "999999999999999 KB", "999999999999999", 2**62,
]
VERSIONS = [
    2010, "2010", "SE", "se", "Se", 2025, "2025", " 2010", "2010 ", "2010.0", 2010.0, True, False, "", "2019",
    2000, "2000", 2003, 1999, "SE\n", "\u00a0SE", "\u3000se", "\x1fse", "\x85se", "\uff12\uff10\uff11\uff10",
    "\uff33\uff25", [2010], {"v": 2010}, 2**64, -2010, "\tse\t", "2010\u0000", Raw("2.01e3"), Raw("2010.0"),
    Raw("20100e-1"), "SE ", "s\u0435",
]
NAMES = [
    "London", "LONDON", "Z\u00fcrich", "Z\u00dcRICH", "\u0391\u0398\u0397\u039d\u0391\u03a3",
    "\u039f\u0394\u039f\u03a3 \u0391\u0398\u0397\u039d\u0391\u03a3", "\u0130stanbul", "ISTANBUL",
    "Stra\u00dfe", "STRASSE", "\u00a0", " ", "\t", "", "\tLondon\t", " London ", "\u212a", "\u2126", "\u01c5",
    "\U00010400", "\u03a3", "\u0391\u03a31", "A\u0000B", "A\u001fB", "\u001f", "\u0085", "\u200b", "\u3000",
    "\ufeff", "\u2028", "x\n", 123, 1.0, 1e100, True, [], {}, ["London"], {"name": "London"}, "n" * 3000,
    "\u1e9e", "\u0049\u0307", "\uff2c\uff2f\uff2e", "a\u0301", "\u00e1", "\u0178\u0141\u00c6\u0152\u0100",
    "\u00ff\u0142\u00e6\u0153", "\u0149", "\u00b5\u00aa\u00ba", "\u017f", " Pad ", "\u00c0 \u00c0",
]
DNS = [
    "CN=Store 1,CN=Servers,CN=Exchange", "cn=a\\,b,CN=x", " CN= spaced ,x", "CN=", "CN=,x", "cn=", "CN=a\\",
    "CN=a\\\\,b", "Cn=\u00c4BC,x", "CN =x", "\uff23\uff2e=x", "CN=x\u00a0", "\u00a0CN=x,y", "CN=\u00a0,x",
    "PFDB-LON-01", " pfdb-lon-01 ", "", " ", "\u00a0", 5, True, [], "CN=\u0391\u03a3", "CN=\u0130,x",
    "CN=a,b\\,c", "CN=a\\,", "CN=\\,", "\\,CN=x", "CN=x,,", "cn=x\tcn=y", "CN=a\\\\\\,b,c", "CN=\tx\t,y",
    "CN=x\n,y", "cn=\u00a0x\u00a0", "OU=x,CN=y", "CN=\u212a", "CN=a=b,c", "CN=x\u2028", "x\u0085",
    "CN=x\u2029,y", "X\u2028",
]
INTS = [
    0, 1, -1, 10, "10", 1.0, 1e3, 1.5, True, False, 2**31, 2**32, 2**32 - 1, BIG - 1, BIG, -BIG, -BIG - 1,
    10**30, NAN, INF, -INF, "1e3", [], {}, Raw("1E2"), 0.0, -0.0, Raw("1e400"), Raw("-0"), Raw("1.0e0"),
    Raw("10E-1"), Raw("0e0"), Raw("-1e400"), Raw("9" * 5000), Raw("0.1e1"), Raw("100000000000000000000.0"),
]
BOOLS = [True, False, "true", "false", "True", 1, 0, [], {}, "yes", Raw("TRUE"), Raw("tru")]
DATES = ["2006-03-14", "2006-03-14T09:30:00Z", 2006, "2006-13-01", "", True, "\u0662\u0660\u0660\u0666-03-14",
         "2006-03-14\u0085", "2006-03-14\u2028", "2006-03-14\n"]
ENUMS = [["Mailbox"], ["mailbox"], [], "Mailbox", ["Mailbox", None], ["Mailbox", 1], [["Mailbox"]], [{"a": 1}],
         ["Edge", "Edge"], ["Edge", "HubTransport"], {"0": "Edge"}, [True], ["Mailbox "]]
NAME_LISTS = [[], "PFDB", [None], ["A", None, "b"], [1, "A"], [["A"]], [{"name": "A"}],
              ["\u0391\u0398\u0397\u039d\u0391\u03a3", "\u0130"], ["\u00a0"], [""], ["A"] * 50, [1.5, True],
              [" a ", "\tb"], {"0": "x"}]
HIERARCHIES = [
    [{"name": "P", "type": "MAPI"}], [{"name": "P", "type": "mapi"}], [{"name": "A", "type": None}],
    [None, "MAPI", {"name": "M", "type": "MAPI"}], {"type": "MAPI"}, [], [{"name": "L", "type": ["MAPI"]}],
    [{"name": "S", "type": "MAPI "}], [{"name": "T", "type": True}], [{"name": "X"}],
    [{"name": "M1", "type": "MAPI"}, {"name": "M2", "type": "MAPI"}, {"name": "A1", "type": "Application"}],
    [{"type": "MAPI"}], [{"name": "", "type": "MAPI"}], [{"name": "\u00a0", "type": "Application"}],
    Raw('[{"name": "D", "type": "Application", "type": "MAPI"}]'),
    Raw('[{"name": "E", "\\u0074ype": "MAPI"}]'),
    Raw('[{"name": "F", "type": "\\u004dAPI"}]'),
]
ADMIN_GROUPS = [[], [None], [{}], [{"name": "A"}, "B", 3], {}, [{"name": "G", "siteFolderServer": "EX-1"}],
                [{"name": "G", "siteFolderServer": None}], [{"name": "G", "siteFolderServer": "\u00a0"}],
                [{"name": "G", "siteFolderServer": 5}]]
LABELS = [
    {"a": None}, {"a": 1}, {"a": {"b": "c"}}, {"a": ["x"]}, {"": "empty key"}, {"a.b": "dotted", "a": {"b": "d"}},
    {"a[0]": "bracket"}, {"\u0000": "nul key"}, {"k\u00fc": "v\u00fc"}, [], "str", {"0": "zero", "1": 1},
    {"a": True}, {"a": 1.5}, {"a": NAN}, {}, {"x" * 300: "long key"}, {"\"q\"": "'"},
    {"a.b": "x", "a": "y"}, {"[0]": "x", "": "y"}, {"x": "1", "X": "2"}, {"\u00e9": "\u00c9"}, {" ": " "},
]


def _attack_lines(docs: dict[str, list[dict]], rng: random.Random) -> list:
    """One hostile line per attack: str (UTF-8 written) or bytes (written as is)."""
    org, server, store = docs["Organization"][0], docs["Server"][0], docs["PublicFolderDatabase"][0]
    folder, mailbox = docs["PublicFolder"][0], docs["MailboxDatabase"][0]
    out: list = []
    count = iter(range(1, 1_000_000))

    def add(data, style=None):
        out.append(jtext(data) if _has_raw(data) else dump(data, rng, style))

    def named(data, prefix):
        """A copy of a sample document of the same kind (a different one each
        time: the attacks spread over servers and hierarchies) under a new name."""
        kind = data.get("kind")
        if kind in docs and kind != "Organization":
            data = rng.choice(docs[kind])
        return _renamed(data, f"{prefix}-{next(count):04d}")

    # -- durations: replication settings of a store, connectors of a server, the organization
    store_durations = ["Replication Send Always", "Replication Send Folder Tree", "Replication Timeout",
                       "Replication Expiry", "Replication New Replica Backfill Request Delay",
                       "Replication Short Backfill Request Delay", "Replication Long Backfill Request Delay",
                       "Replication Short Backfill Request Timeout", "Replication Long Backfill Request Timeout",
                       "Replication Short Backfill Request Timeout Retry",
                       "Replication Long Backfill Request Timeout Retry"]
    org_durations = [("spec", "transportConfig", "ShadowHeartbeatFrequency"),
                     ("spec", "transportConfig", "ShadowResubmitTimeSpan"),
                     ("spec", "transportConfig", "ShadowMessageAutoDiscardInterval"),
                     ("spec", "transportConfig", "SafetyNetHoldTime"), ("spec", "routing", "PFReplicaAgeThreshold")]
    for i, value in enumerate(DURATIONS):
        key = store_durations[i % len(store_durations)]
        add(_set(named(store, "PFDB-DUR"), ("spec", "replication", key), value))
        connector = {"name": f"RC {i}", ("ConnectionTimeout" if i % 2 else "ConnectionInactivityTimeout"): value}
        send = {"name": f"SC {i}", "ConnectionInactivityTimeOut": value}
        add(_set(named(server, "EX-DUR"), ("spec", "receiveConnectors"), [connector, {"name": "plain"}]))
        if i % 3 == 0:
            add(_set(named(server, "EX-SND"), ("spec", "sendConnectors"), [send]))
        if i % 4 == 0:
            add(_set(named(org, "ORG-DUR"), org_durations[(i // 4) % len(org_durations)], value))
    # -- sizes
    for value in SIZES:
        add(_set(named(store, "PFDB-SIZE"), ("spec", "replication", "Replication Message Size Limit"), value))
    # -- versions (a Server's version; its rank drives derived fields)
    for value in VERSIONS:
        add(_set(named(server, "EX-VER"), ("spec", "version"), value))
    # -- names: metadata.name, scalar references, names of list items, names lists
    slots = [("Server", ("spec", "site")), ("Server", ("spec", "dag")), ("Server", ("spec", "adminGroup")),
             ("Server", ("spec", "cluster")), ("PublicFolderDatabase", ("spec", "server")),
             ("PublicFolderDatabase", ("spec", "hierarchy")), ("MailboxDatabase", ("spec", "server")),
             ("MailboxDatabase", ("spec", "defaultPublicFolderDatabase")), ("Organization", ("spec", "sites")),
             ("Organization", ("spec", "siteLinks")), ("PublicFolderDatabase", ("spec", "referrals")),
             ("PublicFolder", ("spec", "adminGroup"))]
    base = {"Server": server, "PublicFolderDatabase": store, "MailboxDatabase": mailbox, "Organization": org,
            "PublicFolder": folder}
    for i, value in enumerate(NAMES):
        add(_renamed(base[rng.choice(list(base))], value))  # the document's own name
        kind, path = slots[i % len(slots)]
        data = named(base[kind], "NAME")
        if path[-1] == "cluster":
            data = _set(data, path, {"name": value, "mode": "ActiveActive"})
        elif path[-1] == "sites":
            data = _set(data, path, [{"name": value}, {"name": "Plain"}])
        elif path[-1] == "siteLinks":
            data = _set(data, path, [{"name": value, "sites": ["Plain", value], "cost": 10}])
        elif path[-1] == "referrals":
            data = _set(data, path, {"useCustomList": True, "customList": [{"server": value, "cost": 1}]})
        else:
            data = _set(data, path, value)
        add(data)
    # -- distinguished names in Preferred Backfill Source (text, dn_name, BackfillSource's name)
    for value in DNS:
        add(_set(named(store, "PFDB-DN"), ("spec", "registry", "Preferred Backfill Source"), value))
    # -- integers: registry DWORDs, servicePack, costs, retries, replication limits
    int_slots = [(store, ("spec", "registry", "Track Duplicates (in hours)")),
                 (store, ("spec", "registry", "Replication Send Status Timeout")),
                 (mailbox, ("spec", "registry", "DeliveredTo Expiration in Hours")),
                 (server, ("spec", "servicePack")),
                 (store, ("spec", "replication", "Replication Folder Count Limit")),
                 (org, ("spec", "transportConfig", "MaxRetriesForRemoteSiteShadow")),
                 (org, ("spec", "routing", "PFReplicaAgeThresholdHours"))]
    for i, value in enumerate(INTS):
        data, path = int_slots[i % len(int_slots)]
        add(_set(named(data, "INT"), path, value))
        if i % 3 == 0:
            add(_set(named(org, "ORG-COST"), ("spec", "siteLinks"),
                     [{"name": "L", "sites": ["A", "B"], "cost": value}]))
        if i % 3 == 1:
            add(_set(named(store, "PFDB-REF"), ("spec", "referrals"),
                     {"useCustomList": True, "customList": [{"server": "EX-A", "cost": value}]}))
    # -- booleans
    for i, value in enumerate(BOOLS):
        if i % 2:
            add(_set(named(org, "ORG-BOOL"), ("spec", "transportConfig", "ShadowRedundancyEnabled"), value))
        else:
            add(_set(named(store, "PFDB-BOOL"), ("spec", "referrals", "useCustomList"), value))
    # -- dates, enums, text
    for value in DATES:
        add(_set(named(store, "PFDB-DATE"), ("spec", "created"), value))
    for value in ENUMS:
        add(_set(named(server, "EX-ROLE"), ("spec", "roles"), value))
    for value in ["PreferRemote", "preferremote", "LocalOnly", "", 1, True, "PreferRemote ", [], None]:
        add(_set(named(org, "ORG-ENUM"), ("spec", "transportConfig", "ShadowMessagePreferenceSetting"), value))
    for value in ["IPM_SUBTREE", "NON_IPM_SUBTREE", "ipm_subtree", None, 1, "Views"]:
        add(_set(named(folder, "PF-TREE"), ("spec", "tree"), value))
        add(_set(named(folder, "PF-SYS"), ("spec", "systemFolder"), value))
    for value in ["pfdb@x.com", "", "\u00e9@x", 5, None, "a\u0000b", "\ud83d\ude00", "\U0001f600",
                  "6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11", "6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11\u2028",
                  "{6F1C2F4E-1F0B-4B4E-9A53-2C1D6A0B7E11}", "6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11\n"]:
        add(_set(named(store, "PFDB-MAIL"), ("spec", "emailAddress"), value))
        add(_set(named(store, "PFDB-GUID"), ("spec", "guid"), value))
    # -- names lists and list tables
    for i, value in enumerate(NAME_LISTS):
        add(_set(named(folder, "PF-REP"), ("spec", "replicas" if i % 2 else "deletePending"), value))
        add(_set(named(org, "ORG-LINK"), ("spec", "siteLinks"), [{"name": f"L{i}", "sites": value, "cost": 5}]))
        items = value if isinstance(value, list) else [value]
        add(_set(named(store, "PFDB-CL"), ("spec", "referrals"),
                 {"useCustomList": True, "customList": [{"server": v, "cost": 1} for v in items] + [None, "x", {}]}))
    for value in HIERARCHIES:
        add(Pairs([("apiVersion", "exlint/v1"), ("kind", "Organization"),
                   ("metadata", {"name": f"ORG-HIE-{next(count):04d}"}), ("spec", Pairs([("hierarchies", value)]))]))
    for value in ADMIN_GROUPS:
        add(_set(named(org, "ORG-AG"), ("spec", "adminGroups"), value))
    for value in [[None, {"name": "A"}], [], {}, None, "London", [{"name": "A", "foo": 1}], [{}], [[]],
                  [{"name": None}], [{"name": 5}]]:
        add(_set(named(org, "ORG-SITES"), ("spec", "sites"), value))
    add(_set(named(org, "ORG-3"), ("spec", "sites"), [{"name": f"Site {i}"} for i in range(3)]))
    big_org = _set(named(org, "ORG-300"), ("spec", "sites"), [{"name": f"Site {i}"} for i in range(300)])
    big_org = _set(big_org, ("spec", "siteLinks"),
                   [{"name": f"L{i}", "sites": [f"Site {i}", f"Site {i + 1}"], "cost": i + 1} for i in range(299)])
    add(big_org)
    add(_set(named(folder, "PF-MANY"), ("spec", "replicas"), [f"PFDB-{i:04d}" for i in range(1000)]))
    add(_set(named(folder, "PF-MANY-NULL"), ("spec", "replicas"), [f"pfdb-{i}" if i % 7 else None for i in range(300)]))
    add(_set(named(server, "EX-MANY-RC"), ("spec", "receiveConnectors"),
             [{"name": f"RC {i}", "ConnectionTimeout": f"00:{i % 60:02d}:00"} for i in range(200)] + [None, 5]))
    for value in [None, "x", 5, [], {}, {"name": "C"}, {"name": "C", "mode": "Bad"}, {"mode": "ActiveActive"}]:
        add(_set(named(server, "EX-CLU"), ("spec", "cluster"), value))
    # -- labels and annotations (only their marks reach the records)
    for value in LABELS:
        add(_set(named(base[rng.choice(list(base))], "LBL"), ("metadata", "labels"), value))
        add(_set(named(server, "ANN"), ("metadata", "annotations"), value))
    # -- unknown keys at every level
    unknown = [(org, ("extra",)), (server, ("metadata", "uid")), (store, ("spec", "unknownField")),
               (org, ("spec", "transportConfig", "CustomSetting")), (org, ("spec", "routing", "Other")),
               (store, ("spec", "registry", "Track Duplicate (in hours)")),
               (store, ("spec", "registry", "Totally Unknown Value")),
               (store, ("spec", "replication", "Replication Send Alwayz")),
               (store, ("spec", "replication", "replication send always")),
               (store, ("spec", "replication", "Replication Message Size Limit ")),
               (store, ("spec", "referrals", "foo")), (mailbox, ("spec", "registry", "Unknown")),
               (mailbox, ("spec", "registry", "Background Cleanup (in msecs) ")), (folder, ("spec", "Replicas")),
               (server, ("spec", "Version")), (store, ("spec", "registry", "Foo.Bar")),
               (store, ("spec", "registry", "")), (store, ("spec", "registry", "a[0]"))]
    for data, path in unknown:
        for value in ("x", 5, None, {"deep": [1]}):
            add(_set(named(data, "UNK"), path, value))
    add(_set(named(org, "ORG-SITEX"), ("spec", "sites"), [{"name": "A", "foo": 1}]))
    add(_set(named(server, "EX-RCX"), ("spec", "receiveConnectors"), [{"name": "A", "MaxMessageSize": "10MB"}]))
    add(_set(named(store, "PFDB-CLX"), ("spec", "referrals"),
             {"customList": [{"server": "A", "cost": 1, "extra": True}]}))
    # -- containers of the wrong type, nulls, empty values
    for data in (org, server, store, folder, mailbox):
        for path, value in [(("spec",), None), (("spec",), []), (("spec",), "x"), (("spec",), {}),
                            (("metadata",), None), (("metadata",), []), (("metadata",), "x"),
                            (("metadata",), {}), (("kind",), None), (("apiVersion",), None)]:
            add(_set(named(data, "NUL"), path, value) if path != ("metadata",) else _set(data, path, value))
    for path, value in [(("spec", "registry"), None), (("spec", "registry"), []), (("spec", "replication"), "x"),
                        (("spec", "referrals"), None), (("spec", "referrals", "customList"), {}),
                        (("spec", "referrals", "customList"), [None]), (("spec", "registry"), {})]:
        add(_set(named(store, "PFDB-SHAPE"), path, value))
    add(_drop(named(store, "PFDB-NOSPEC"), ("spec",)))
    add(_drop(named(server, "EX-NOVER"), ("spec", "version")))
    # -- envelope: apiVersion, kind, metadata.name
    for value in ["exlint/v2", "v1", 1, "exlint/V1", " exlint/v1", "exlint/v1\u0000", "exlint/v1 ", ["exlint/v1"]]:
        add(_set(named(server, "API"), ("apiVersion",), value))
    add(_drop(named(server, "API-MISSING"), ("apiVersion",)))
    for value in ["server", "Sever", "PublicFolderDataBase", "Server ", "", 1, ["Server"], "Organisation",
                  "SERVER", "\u0053erver\u200b"]:
        add(_set(named(server, "KIND"), ("kind",), value))
    add(_drop(server, ("kind",)))
    for value in ["", "  ", "\t", "\u00a0", None, 5, ["x"], {"x": 1}, "\u2003", "\u200b", "\x1c", "\ufeff"]:
        add(_renamed(server, value))
    add(_drop(server, ("metadata", "name")))
    add(_drop(store, ("metadata",)))
    return out


def _has_raw(value) -> bool:
    if isinstance(value, (Raw, Pairs)):
        return True
    if isinstance(value, dict):
        return any(_has_raw(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_raw(v) for v in value)
    return False


def _syntax_lines(docs: dict[str, list[dict]], rng: random.Random) -> list:
    """Lines attacking the JSON syntax and the line framing rather than the values."""
    server, store, org = docs["Server"][1], docs["PublicFolderDatabase"][1], docs["Organization"][0]
    plain = json.dumps(_renamed(server, "EX-SYNTAX"))
    body = plain[1:-1]
    head = '"apiVersion": "exlint/v1", "kind": "Server", '
    out: list = [
        # duplicate keys, top level and nested, and equal after unescaping
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-1"}, '
        '"spec": {"version": "2010", "version": "2016"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "kind": "PublicFolder", "metadata": {"name": "DUP-2"}, '
        '"spec": {"hierarchy": "Public Folders"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-3", "labels": {"a": "1", "a": "2"}}, '
        '"spec": {"version": "2010"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-4"}, "metadata": {"name": "DUP-4b"}, '
        '"spec": {"version": "2010"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-5"}, '
        '"spec": {"version": "2010", "\\u0076ersion": "2019"}}',
        '{"apiVersion": "exlint/v1", "kind": "Organization", "metadata": {"name": "DUP-6"}, '
        '"spec": {"sites": [{"name": "A", "name": "B"}]}}',
        '{"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": "DUP-7"}, '
        '"spec": {"hierarchy": "Public Folders", "replicas": "x", "replicas": ["A", "B"]}}',
        '{"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "DUP-8"}, '
        '"spec": {"server": "EX", "hierarchy": "Public Folders", "registry": {"Preferred Backfill Source": "A", '
        '"Preferred Backfill Source": "CN=B,CN=x"}}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-9", "name": null}, '
        '"spec": {"version": "2010"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-10"}, "spec": null, '
        '"spec": {"version": "2010"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DUP-11"}, '
        '"spec": {"version": "2010", "Version": "2016"}}',
        # escaped spellings of clean values and keys (valid, clean once decoded)
        '{"\\u0061piVersion": "exlint\\/v1", "\\u006bind": "\\u0053erver", "metadata": {"name": "ESC-1"}, '
        '"spec": {"version": "\\u0032010", "site": "Z\\u00fcrich"}}',
        '{"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "ESC-2"}, '
        '"spec": {"server": "EX", "hierarchy": "Public Folders", "registry": {"Preferred\\u0020Backfill Source": '
        '"CN\\u003dX,y"}, "replication": {"Replication Send Always": "15\\u006d"}}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-3\\n\\t\\"\\\\\\/\\b\\f\\r"}, '
        '"spec": {"version": "2010", "site": "a\\u0000b", "dag": "\\u001f"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-4 \\ud83d\\ude00"}, '
        '"spec": {"version": "2010", "site": "\\uD83D\\uDE00"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-5 \\ud800"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-6"}, "spec": {"site": "\\udc00x"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-7"}, "spec": {"site": "\\q"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-8"}, "spec": {"site": "\\\'"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-9"}, "spec": {"site": "\\u00"}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "ESC-10"}, "spec": {"site": "\\U0041"}}',
        # raw control characters and separators inside strings
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CTL-1\tTAB"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CTL-2\x7f"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CTL-3\u2028\u2029"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CTL-4\x85"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CTL-5\x1f"}, "spec": {}}',
        # single quotes, unquoted names, comments, NaN/Infinity spellings
        "{'apiVersion': 'exlint/v1', 'kind': 'Server', 'metadata': {'name': 'SQ-1'}, 'spec': {'version': '2010'}}",
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": \'SQ-2\'}, "spec": {}}',
        '{apiVersion: "exlint/v1", "kind": "Server", "metadata": {"name": "UQ-1"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", /* c */ "kind": "Server", "metadata": {"name": "CM-1"}, "spec": {}}',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CM-2"}, "spec": {}} // c',
        '{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CM-3"}, "spec": {}} # c',
    ]
    for spelling in ["NaN", "Infinity", "-Infinity", "+Infinity", "INF", "+INF", "-INF", "nan", "NAN", "Nan",
                     "infinity", "+NaN", "-NaN"]:
        out.append('{"apiVersion": "exlint/v1", "kind": "PublicFolderDatabase", "metadata": {"name": "NUM-%s", '
                   '"labels": {"x": "y"}}, "spec": {"server": "EX", "hierarchy": "Public Folders", "registry": '
                   '{"Track Duplicates (in hours)": %s}}}' % (spelling, spelling))
    for number in ["01", "-01", "1.", ".5", "+1", "0x10", "1_000", "1e", "1e+", "--1", "1.5e3", "1E+2", "-0.0",
                   "1e-400", "123456789012345678901234567890", "0.1e-0"]:
        out.append('{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "NUM"}, '
                   '"spec": {"version": "2010", "servicePack": %s}}' % number)
    # trailing and leading garbage
    out += [plain + " x", plain + "}", plain + "]", plain + " " + plain, plain + plain, plain + ",", "x" + plain,
            plain + " \u00a0", "\u00a0" + plain, "\ufeff" + plain, plain + "\ufeff", "[" + plain + "]",
            plain + " null", plain[:-1], plain[:len(plain) // 2], "{" + body, body + "}", plain.replace(":", "=", 1),
            plain + "\x0b", "\x0c" + plain, "  \t " + plain + " \t  ", plain + "\r\r", plain.replace(", ", ",\r", 3)]
    # not objects, and whitespace-only lines
    out += ["[]", "null", '"text"', "{}", "123", "true", "[" + plain + ", " + plain + "]",
            '{"apiVersion": "exlint/v1"}', "", "   ", "\t", "\r", " \t\r", b"\x0b\x0c \t", b"\x1c", "\u00a0",
            "\u3000", "\ufeff", b"\xef\xbb\xbf",
            # a lone Unicode line separator is no blank line for bytes.strip(), nor JSON whitespace
            "\u2028", "\u2029", "\u0085", " \u2028", "\x0b\u0085", plain + "\u2028", plain + "\u0085"]
    # whitespace between tokens
    out += [plain.replace(": ", ":\t").replace(", ", ",\t"), plain.replace(": ", " \t: \t"),
            "{ " + head + '"metadata" :{ "name" : "WS-1" } , "spec" : { } }',
            plain.replace(", ", ",  ")]
    # invalid UTF-8, NUL bytes
    for bad in [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"Z\xfcrich", b"\x80",
                b"\xf0\x9f\x98"]:
        out.append(b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "UTF-' + bad +
                   b'"}, "spec": {"version": "2010"}}')
    out.append(plain.encode() + b" \xff")
    out.append(b"\xff" + plain.encode())
    # a character outside the BMP written as two encoded surrogates (CESU-8), not as its 4-byte form
    out.append(b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "CESU-\xed\xa0\xbd\xed\xb8\x80"}, '
               b'"spec": {"version": "2010"}}')
    out.append(b'{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "NUL\x00"}, "spec": {}}')
    out.append(plain.encode() + b"\x00")
    out.append(b"\x00")
    # valid multi-byte text (2-, 3- and 4-byte UTF-8) written raw
    out.append('{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "UTF-OK \u00e9\u20ac\U0001f600"}, '
               '"spec": {"version": "2010", "site": "\u0391\u0398\u0397\u039d\u0391\u03a3"}}')
    # nesting
    for depth in (400, 2000):
        out.append('{"apiVersion": "exlint/v1", "kind": "Server", "metadata": {"name": "DEEP-%d", '
                   '"labels": {"deep": %s}}, "spec": {}}' % (depth, "[" * depth + "]" * depth))
    out.append("[" * 2000 + "]" * 2000)
    out.append('{"a": ' * 1500 + "1" + "}" * 1500)
    # a store with every setting written twice in one line (compact), and the organization shuffled
    out.append(json.dumps(_renamed(store, "PFDB-COMPACT"), separators=(",", ":")))
    out.append(dump(_renamed(org, "ORG-SHUF"), rng, "shuffled"))
    return out


def _encode(line) -> bytes:
    return line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")


def _nonblank(data: bytes) -> int:
    """Lines of a JSON Lines file that are not blank, as the Python path counts them."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return sum(1 for raw in data.split(b"\n") if raw.strip())


@dataclass
class Corpus:
    root: Path
    estates: dict[int, list[Path]] = field(default_factory=dict)  # estate id -> files
    nonblank: int = 0  # non-blank lines (what read_inventory counts as records_in)
    lines: int = 0

    def write(self, estate: int, path: Path, lines: list, ending: bytes = b"\n", final: bool = True,
              prefix: bytes = b"") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = prefix + ending.join(_encode(line) for line in lines) + (ending if final and lines else b"")
        path.write_bytes(data)
        self.estates.setdefault(estate, []).append(path)
        self.nonblank += _nonblank(data)
        self.lines += len(lines)

    def inputs(self):
        from linter.engines.spark.inventory import discover_inputs

        out = []
        for estate, paths in sorted(self.estates.items()):
            out += discover_inputs([str(p) for p in paths], estate=estate)
        return out


def build_corpus(root: Path, seed: int = SEED) -> Corpus:
    """The hostile corpus: the sample estate and the broken samples as JSON lines
    in several styles, and the attacks, shuffled (seeded) over several files in
    two estates; one file of about 1.4 MB (the start of the generated sample
    inventory with attacks interleaved, a 1 MB clean line, 64 KB lines), an
    empty file and a file of blank lines."""
    rng = random.Random(seed)
    clean = sample_documents(REPO / "samples" / "estate")
    broken = sample_documents(REPO / "samples" / "broken")
    docs = _by_kind(clean)
    lines: list = [dump(d, rng) for d in clean] + [dump(d, rng) for d in broken]
    lines += _attack_lines(docs, rng) + _syntax_lines(docs, rng)
    rng.shuffle(lines)
    corpus = Corpus(root)
    third = len(lines) // 3
    first, second, rest = lines[:third], lines[third:2 * third], lines[2 * third:]
    # a.jsonl: a BOM before the first line, CRLF line endings, no final line ending
    corpus.write(0, root / "a.jsonl", first, ending=b"\r\n", final=False, prefix=b"\xef\xbb\xbf")
    corpus.write(0, root / "sub" / "b.ndjson", second + ["", "", "  "])
    # big.jsonl: read in many splits; attacks between clean lines; long lines crossing split boundaries
    inventory = (REPO / "samples" / "inventory" / "estate.jsonl").read_bytes().split(b"\n")[:INVENTORY_LINES]
    big: list = []
    tail = list(rest)
    for index, line in enumerate(inventory):
        big.append(line)
        if index % 4 == 1 and tail:
            big.append(tail.pop())
        if index == len(inventory) * 4 // 5:
            annotated = _set(_renamed(docs["Server"][2], "EX-LONG-LINE"), ("metadata", "annotations"),
                             {"note": "n" * (1024 * 1024)})
            big.append(json.dumps(annotated))
            big.append(json.dumps(_set(_renamed(docs["PublicFolderDatabase"][2], "PFDB-LONG-MAIL"),
                                       ("spec", "emailAddress"), "m" * (64 * 1024) + "@x")))
            big.append(json.dumps(_renamed(docs["Server"][3], "EX-LONG-BROKEN"))[:-1] + ', "x": "' +
                       "b" * (64 * 1024) + '" junk}')
    big += tail
    while sum(len(_encode(line)) + 1 for line in big) < BIG_FILE_BYTES:
        for document in clean:
            big.append(dump(_renamed(document, f"{document['metadata']['name']}-pad{len(big)}"), rng, "compact"))
    corpus.write(0, root / "big.jsonl", big)
    corpus.write(0, root / "empty.jsonl", [])
    corpus.write(0, root / "blank.jsonl", ["", "   ", "\t", "\r"], final=False, prefix=b"\xef\xbb\xbf")
    # a second estate: the same clean documents (same names: no clash across estates) and some attacks
    second_estate = [dump(d, rng, "unicode") for d in clean] + _syntax_lines(docs, random.Random(seed + 1))[:40]
    corpus.write(1, root / "estate-2" / "c.jsonl", second_estate)
    return corpus


STYLES = ("default", "compact", "shuffled", "ascii", "unicode", "sorted", "tabs")


def build_clean_corpus(root: Path, copies: int = 2, styles=STYLES) -> Corpus:
    """The sample estate as JSON lines, ``copies`` times with distinct names, in
    two files per style, each style its own estate (so that the stats say which
    style the SQL path took): every line is clean."""
    rng = random.Random(SEED + 2)
    clean = sample_documents(REPO / "samples" / "estate")
    corpus = Corpus(root)
    for estate, style in enumerate(styles):
        lines = []
        for copy in range(copies):
            for document in clean:
                data = document if copy == 0 else _renamed(document, f"{document['metadata']['name']}-c{copy}")
                lines.append(dump(data, rng, style))
        half = len(lines) // 2
        corpus.write(estate, root / style / "clean-1.jsonl", lines[:half])
        corpus.write(estate, root / style / "clean-2.jsonl", lines[half:])
    return corpus


# -- reading, collected into Python values --------------------------------------------------------
class _conf:
    """Spark settings for the duration of a block (restored, or unset, afterwards)."""

    def __init__(self, spark, settings: dict):
        self.spark, self.settings, self.before = spark, settings, {}

    def __enter__(self):
        for key, value in self.settings.items():
            self.before[key] = self.spark.conf.get(key, None)
            self.spark.conf.set(key, value)
        return self

    def __exit__(self, *exc):
        for key, value in self.before.items():
            if value is None:
                self.spark.conf.unset(key)
            else:
                self.spark.conf.set(key, value)


def canonical(value):
    """A hashable, order-free form of a collected value: mappings as sorted
    (key, value) tuples, lists as tuples, floats as their repr (NaN == NaN)."""
    if hasattr(value, "asDict"):
        value = value.asDict(recursive=True)
    if isinstance(value, dict):
        return ("<map>",) + tuple(sorted(((k, canonical(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return tuple(canonical(v) for v in value)
    if isinstance(value, float):
        return ("<float>", repr(value))
    return value


def _row_key(row: dict) -> tuple:
    return (row.get("_est"), row.get("_file"), row.get("_line"), row.get("_prefix"))


@dataclass
class Snapshot:
    """One inventory, collected: records per table (canonical, without _rid), findings, stats..."""
    tables: dict  # table -> list of dict rows (canonical values, no _rid)
    schemas: dict  # table -> {column: type}
    findings: list  # tuples in FINDING order
    findings_schema: dict
    stats: dict
    counts: dict
    native_lines: int | None
    duplicate_rids: dict  # table -> [(est, rid), ...] that occur more than once


def snapshot(inventory) -> Snapshot:
    from linter.engines.spark.records import FINDING

    tables, schemas, duplicates = {}, {}, {}
    for name, frame in inventory.tables.items():
        schemas[name] = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
        rows = []
        rids = Counter()
        for row in frame.collect():
            data = row.asDict(recursive=True)
            rids[(data.get("_est"), data.pop("_rid", None))] += 1
            rows.append({k: canonical(v) for k, v in data.items()})
        tables[name] = rows
        duplicates[name] = [key for key, n in rids.items() if n > 1]
    columns = [name for name, _ in FINDING]
    findings = [tuple(row[c] for c in columns) for row in inventory.findings.collect()]
    return Snapshot(tables, schemas, findings,
                    {f.name: f.dataType.simpleString() for f in inventory.findings.schema.fields},
                    {int(k): dict(v) for k, v in inventory.stats.items()}, dict(inventory.counts),
                    getattr(inventory, "native_lines", None), duplicates)


def read(spark, corpus: Corpus, native: bool) -> Snapshot:
    from linter.engines.spark.inventory import read_inventory

    with _conf(spark, SPLIT_CONF):
        inventory = read_inventory(spark, corpus.inputs(), checkpoint=True, native=native)
        try:
            return snapshot(inventory)
        finally:
            inventory.unpersist()


# -- readable differences ------------------------------------------------------------------------
def _short(value, limit: int = 240) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 20] + f"... ({len(text)} chars)"


def source_line(file, line) -> str:
    """The text of ``file``:``line`` as written (for messages), or ''."""
    if not file or not line:
        return ""
    try:
        with open(file, "rb") as handle:
            for number, raw in enumerate(handle, 1):
                if number == line:
                    return _short(raw.rstrip(b"\n"), 300)
    except OSError:
        pass
    return ""


def _map_diff(a, b) -> str:
    """Items of two canonical maps that differ."""
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == ("<map>",) == b[:1]):
        return f"python={_short(a)} native={_short(b)}"
    left, right = dict(a[1:]), dict(b[1:])
    only_left = sorted(set(left) - set(right))[:5]
    only_right = sorted(set(right) - set(left))[:5]
    changed = [k for k in sorted(set(left) & set(right)) if left[k] != right[k]][:5]
    return (f"map: only python {[(_short(k, 80), _short(left[k], 60)) for k in only_left]}; "
            f"only native {[(_short(k, 80), _short(right[k], 60)) for k in only_right]}; "
            f"changed {[(k, left[k], right[k]) for k in changed]}")


def multiset_diff(label: str, expected: list, got: list, limit: int = 12, width: int = 600) -> str:
    """'' when ``got`` equals ``expected`` as multisets, else the first differences."""
    e, g = Counter(expected), Counter(got)
    missing = sorted((e - g).elements(), key=repr)
    extra = sorted((g - e).elements(), key=repr)
    if not missing and not extra:
        return ""
    lines = [f"{label}: {len(missing)} only in the Python path, {len(extra)} only in the native path"]
    for side, items in (("python", missing), ("native", extra)):
        for item in items[:limit]:
            lines.append(f"  only {side}: {_short(item, width)}")
            if isinstance(item, tuple) and len(item) > 5:  # a finding: show its line
                lines.append(f"      line: {source_line(item[4], item[5])}")
    return "\n".join(lines)


def records_diff(table: str, expected: list[dict], got: list[dict], limit: int = 10) -> str:
    """'' when the records are equal; else, per differing record (by est, file,
    line, prefix), the columns that differ, or the whole record when unmatched."""
    freeze = lambda row: tuple(sorted(row.items()))  # noqa: E731
    e, g = Counter(map(freeze, expected)), Counter(map(freeze, got))
    missing = [dict(r) for r in sorted((e - g).elements(), key=repr)]
    extra = [dict(r) for r in sorted((g - e).elements(), key=repr)]
    if not missing and not extra:
        return ""
    lines = [f"table {table}: {len(missing)} records only in the Python path, {len(extra)} only in the native path"]
    by_key: dict = {}
    for row in extra:
        by_key.setdefault(_row_key(row), []).append(row)
    shown = 0
    for row in missing:
        if shown >= limit:
            break
        partners = by_key.get(_row_key(row))
        shown += 1
        if partners:
            other = partners.pop(0)
            columns = sorted(set(row) | set(other))
            diffs = []
            for column in columns:
                a, b = row.get(column, "<absent>"), other.get(column, "<absent>")
                if a != b:
                    diffs.append(f"{column}: " + (_map_diff(a, b) if column == "_marks" else
                                                  f"python={_short(a)} native={_short(b)}"))
            lines.append(f"  record {_row_key(row)} differs in: " + "; ".join(diffs))
            lines.append(f"      line: {source_line(row.get('_file'), row.get('_line'))}")
        else:
            lines.append(f"  only python: {_short(row, 800)}")
    for partners in by_key.values():
        for row in partners:
            if shown >= 2 * limit:
                break
            shown += 1
            lines.append(f"  only native: {_short(row, 800)}")
    return "\n".join(lines)


# -- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("native-json"))


@pytest.fixture(scope="module")
def inventories(spark, corpus):
    """The hostile corpus read once per mode: {False: python snapshot, True: native snapshot}."""
    return {False: read(spark, corpus, native=False), True: read(spark, corpus, native=True)}


def _run_findings(spark, corpus: Corpus, native: bool) -> list[tuple]:
    """The job's findings over the corpus but its big file (the job over the
    big file's generated estate costs minutes; A covers its lines)."""
    from linter.config import Config
    from linter.engines.spark import job
    from linter.engines.spark.records import FINDING
    from linter.policy.packs import load_rules

    columns = [name for name, _ in FINDING]
    with _conf(spark, SPLIT_CONF):
        inputs = [i for i in corpus.inputs() if Path(i.path).name != "big.jsonl"]
        run = job.run(spark, inputs, load_rules(), Config(), native=native)
        try:
            return [tuple(row[c] for c in columns) for row in run.findings.collect()]
        finally:
            run.close()


@pytest.fixture(scope="module")
def runs(spark, corpus):
    """The estate job over the hostile corpus once per mode: {native: findings}."""
    return {False: _run_findings(spark, corpus, native=False), True: _run_findings(spark, corpus, native=True)}


# -- the tests -----------------------------------------------------------------------------------
MODE_KEYS = ("native",)  # stats that say which path took a line: they differ between the modes by design


def _counts_of(stats: dict) -> dict:
    return {est: {k: v for k, v in values.items() if k not in MODE_KEYS} for est, values in stats.items()}


def compare(python: Snapshot, native: Snapshot) -> str:
    """'' when the two snapshots agree (findings, stats but the mode keys,
    counts, schemas, records but _rid), else the differences."""
    problems = []
    if native.findings_schema != python.findings_schema:
        problems.append(f"findings schema: python={python.findings_schema} native={native.findings_schema}")
    problems.append(multiset_diff("findings", python.findings, native.findings))
    if _counts_of(native.stats) != _counts_of(python.stats):
        problems.append(f"stats: python={python.stats} native={native.stats}")
    if native.counts != python.counts:
        problems.append(f"counts: python={python.counts} native={native.counts}")
    for table in sorted(set(python.schemas) | set(native.schemas)):
        if python.schemas.get(table) != native.schemas.get(table):
            problems.append(f"schema of {table}: python={python.schemas.get(table)} native={native.schemas.get(table)}")
    problems += [records_diff(t, python.tables[t], native.tables.get(t, [])) for t in python.tables]
    return "\n".join(p for p in problems if p)


def test_corpus_is_large_and_hostile(spark, corpus):
    """The corpus is what the other tests claim: 300+ lines, several files, and
    a file that Spark reads in several splits under SPLIT_CONF."""
    assert corpus.nonblank >= 300
    files = [p for paths in corpus.estates.values() for p in paths]
    assert len(files) >= 3
    big = max(files, key=lambda p: p.stat().st_size)
    assert big.stat().st_size > BIG_FILE_BYTES
    with _conf(spark, SPLIT_CONF):
        assert spark.read.text(str(big)).rdd.getNumPartitions() >= 8


def test_inventory_findings_identical(inventories):
    """A: the loader and validator findings (EXL001-EXL005), with file, line and column."""
    python, native = inventories[False], inventories[True]
    assert native.findings_schema == python.findings_schema
    problem = multiset_diff("findings", python.findings, native.findings)
    assert not problem, problem


def test_inventory_stats_and_counts_identical(inventories):
    """A: files, documents, records_in and linted per estate, and the records per
    table. (``native``, the lines the SQL took, differs by design: it must add
    up to ``native_lines``, and be 0 without the native path.)"""
    python, native = inventories[False], inventories[True]
    assert _counts_of(native.stats) == _counts_of(python.stats), f"stats: python={python.stats} native={native.stats}"
    assert native.counts == python.counts, f"counts: python={python.counts} native={native.counts}"
    assert sum(s.get("native", 0) for s in native.stats.values()) == native.native_lines
    assert all(s.get("native", 0) == 0 for s in python.stats.values())


def test_inventory_records_identical(inventories):
    """A: every table's records, every column but _rid (values, __text, __set, _marks, positions)."""
    python, native = inventories[False], inventories[True]
    assert native.schemas == python.schemas, "record schemas differ: " + "; ".join(
        f"{t}: python={python.schemas.get(t)} native={native.schemas.get(t)}"
        for t in sorted(set(python.schemas) | set(native.schemas)) if python.schemas.get(t) != native.schemas.get(t))
    problems = [records_diff(t, python.tables[t], native.tables.get(t, [])) for t in python.tables]
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


def test_native_rids_unique(inventories):
    """A: _rid (navigation's join key) is unique per estate and table in the native result."""
    duplicates = {t: d[:5] for t, d in inventories[True].duplicate_rids.items() if d}
    assert not duplicates, f"duplicate (_est, _rid) in the native records: {duplicates}"


def test_job_findings_identical(runs):
    """B: the estate job's final findings (rules, EXL008, configuration applied) are the same."""
    problem = multiset_diff("job findings", runs[False], runs[True], limit=8, width=400)
    assert not problem, problem


def test_native_lines_on_hostile_corpus(inventories, corpus):
    """C: on the hostile corpus the SQL handles some lines and hands others to Python."""
    native_lines = inventories[True].native_lines
    assert native_lines is not None, "Inventory.native_lines is missing"
    assert 0 < native_lines < corpus.nonblank, f"native_lines={native_lines} of {corpus.nonblank} lines"
    assert inventories[False].native_lines in (None, 0)


@pytest.fixture(scope="module")
def clean(spark, tmp_path_factory):
    """The clean corpus (one estate per producer style) read once per mode."""
    corpus = build_clean_corpus(tmp_path_factory.mktemp("native-clean"))
    return corpus, {False: read(spark, corpus, native=False), True: read(spark, corpus, native=True)}


def test_native_lines_on_clean_corpus(clean):
    """C: every line of a clean corpus (the sample estate, twice with distinct
    names, as json.dumps writes it) goes through the SQL."""
    corpus, snapshots = clean
    lines = _nonblank_of(corpus, STYLES.index("default"))
    taken = snapshots[True].stats[STYLES.index("default")].get("native")
    assert taken == lines, f"native: {taken} of {lines} clean lines"


@pytest.mark.parametrize("style", [s for s in STYLES if s != "default"])
def test_native_lines_in_every_style(clean, style):
    """C: the same clean documents in the other styles producers write (compact
    separators, keys in any order, non-ASCII escaped or not, `` : `` separators)
    go through the SQL too; lines with tabs between tokens go to Python by design
    (native.py sends every line holding a control character there), with the same
    result (test_clean_corpus_identical)."""
    corpus, snapshots = clean
    lines = _nonblank_of(corpus, STYLES.index(style))
    taken = snapshots[True].stats[STYLES.index(style)].get("native")
    expected = 0 if style == "tabs" else lines
    assert taken == expected, f"style {style}: native {taken} of {lines} clean lines, expected {expected}"


def test_clean_corpus_identical(clean):
    """A on the clean corpus: the records built in SQL equal the Python ones."""
    _, snapshots = clean
    problem = compare(snapshots[False], snapshots[True])
    assert not problem, problem


def _nonblank_of(corpus: Corpus, estate: int) -> int:
    return sum(_nonblank(p.read_bytes()) for p in corpus.estates[estate])


UNUSUAL_NAMES = ["dir with space/a b%20c.jsonl", "x[1].jsonl", "y{a,b}.jsonl", "colon:x.jsonl",
                 "\u00fc %41dir/d#1 q? star* \u00e9.ndjson"]


@pytest.mark.parametrize("name", UNUSUAL_NAMES)
def test_unusual_file_names(spark, tmp_path, name):
    """D: a file whose name holds spaces, %, #, [ ], { }, ?, *, : or non-ASCII
    letters is read, and its findings and records name it as the Python path
    (which opens the file by its path) does."""
    rng = random.Random(SEED + 3)
    docs = _by_kind(sample_documents(REPO / "samples" / "estate"))
    lines = [dump(d, rng) for kind in docs for d in docs[kind][:2]]
    lines += ["not json", '{"apiVersion": "exlint/v1", "kind": "Sever", "metadata": {"name": "X"}, "spec": {}}']
    corpus = Corpus(tmp_path)
    corpus.write(0, tmp_path / name, lines)
    python, native = read(spark, corpus, native=False), read(spark, corpus, native=True)
    problem = compare(python, native)
    assert not problem, problem
