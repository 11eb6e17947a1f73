"""The JSON Schema data files in schemas/: valid draft 2020-12, resolvable, and right about examples."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SCHEMAS_DIR = Path(__file__).resolve().parent.parent / "schemas"
BASE = "https://exlint.dev/schemas/"
KIND_FILES = {
    "Organization": "organization.json",
    "Server": "server.json",
    "PublicFolderDatabase": "publicfolderdatabase.json",
    "PublicFolder": "publicfolder.json",
    "MailboxDatabase": "mailboxdatabase.json",
}
ALL_FILES = ["common.json", *KIND_FILES.values()]


def _load(name: str) -> dict:
    return json.loads((SCHEMAS_DIR / name).read_text(encoding="utf-8"))


SCHEMAS = {name: _load(name) for name in ALL_FILES}
REGISTRY = Registry().with_resources(
    (schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
    for schema in (_load(p.name) for p in sorted(SCHEMAS_DIR.glob("*.json")))
)
VALIDATORS = {
    kind: Draft202012Validator(SCHEMAS[fname], registry=REGISTRY) for kind, fname in KIND_FILES.items()
}


def is_valid(doc: dict) -> bool:
    return VALIDATORS[doc["kind"]].is_valid(doc)


def errors(doc: dict) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATORS[doc["kind"]].iter_errors(doc)]


def doc(kind: str, name: str, spec: dict) -> dict:
    return {"apiVersion": "exlint/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


# ---------------------------------------------------------------------------- examples
ORGANIZATION = {
    "apiVersion": "exlint/v1",
    "kind": "Organization",
    "metadata": {"name": "contoso", "labels": {"owner": "messaging-team"}},
    "spec": {
        "hierarchies": [
            {"name": "Public Folders", "type": "MAPI"},
            {"name": "Projects", "type": "Application"},
        ],
        "adminGroups": [{"name": "First Administrative Group", "siteFolderServer": "EX03-LON"}],
        "sites": [{"name": "London"}, {"name": "Paris"}],
        "siteLinks": [{"name": "LON-PAR", "sites": ["London", "Paris"], "cost": 10}],
        "routing": {"PFReplicaAgeThreshold": "2.00:00:00"},
        "transportConfig": {
            "ShadowRedundancyEnabled": True,
            "RejectMessageOnShadowFailure": False,
            "ShadowMessagePreferenceSetting": "PreferRemote",
            "MaxRetriesForRemoteSiteShadow": 4,
            "MaxRetriesForLocalSiteShadow": 2,
            "ShadowHeartbeatFrequency": "00:02:00",
            "ShadowResubmitTimeSpan": "03:00:00",
            "ShadowMessageAutoDiscardInterval": "2.00:00:00",
            "SafetyNetHoldTime": "2.00:00:00",
            "MaxSendSize": "10 MB (10,485,760 bytes)",  # pasted Set-TransportConfig parameter
        },
    },
}

SERVER_2007 = {
    "apiVersion": "exlint/v1",
    "kind": "Server",
    "metadata": {"name": "EX07-LON-01"},
    "spec": {
        "version": "2007",
        "servicePack": 1,
        "site": "London",
        "adminGroup": "First Administrative Group",
        "roles": ["Mailbox", "HubTransport"],
        "dag": "DAG-LON",
        "cluster": {"name": "CLU-LON", "mode": "ActiveActive", "physicalNodes": ["LONNODE1", "LONNODE2"]},
        "receiveConnectors": [
            {
                "name": "Default EX07-LON-01",
                "ConnectionTimeout": "00:10:00",
                "ConnectionInactivityTimeout": "00:05:00",
                "MaxMessageSize": "10MB",
                "Bindings": ["0.0.0.0:25"],
            }
        ],
        "sendConnectors": [{"name": "Internet", "ConnectionInactivityTimeOut": "00:10:00", "Port": 25}],
    },
}

SERVER_2003 = doc("Server", "EX03-LON", {"version": 2003, "servicePack": 2, "site": "London"})
SERVER_SE = doc("Server", "EXSE-PAR-01", {"version": "SE", "site": "Paris", "roles": ["Mailbox"]})

PFDB = {
    "apiVersion": "exlint/v1",
    "kind": "PublicFolderDatabase",
    "metadata": {"name": "PFDB-LON-01"},
    "spec": {
        "server": "EX07-LON-01",
        "hierarchy": "Public Folders",
        "guid": "6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11",
        "created": "2006-03-14",
        "emailAddress": "pfdb-lon-01@contoso.com",
        "registry": {
            "Preferred Backfill Source": "EX07-PAR-01",
            "Track Duplicates (in hours)": 1,
            "Background Cleanup (in msecs)": 60000,
            "Replication Send Status Timeout": 86400,
            "Replication Send Status Alignment": 43200,
            "Replication Send Status Alignment Skew": 0,
        },
        "replication": {
            "Replication Send Always": "15m",
            "Replication Send Folder Tree": "5m",
            "Replication Timeout": "5m",
            "Replication Expiry": "24h",
            "Replication New Replica Backfill Request Delay": "15m",
            "Replication Short Backfill Request Delay": "6h",
            "Replication Long Backfill Request Delay": "12h",
            "Replication Short Backfill Request Timeout": "12h",
            "Replication Long Backfill Request Timeout": "24h",
            "Replication Short Backfill Request Timeout Retry": "24h",
            "Replication Long Backfill Request Timeout Retry": "48h",
            "Replication Folder Count Limit": 20,
            "Replication Deleted Folder Count Limit": 500,
            "Replication Message Count Limit": 100,
            "Replication Message Size Limit": "300KB",
        },
        "referrals": {"useCustomList": True, "customList": [{"server": "EX07-PAR-01", "cost": 10}]},
    },
}

PFDB_MINIMAL = doc("PublicFolderDatabase", "PFDB-PAR-01", {"server": "EX07-PAR-01", "hierarchy": "Public Folders"})

PUBLIC_FOLDER = {
    "apiVersion": "exlint/v1",
    "kind": "PublicFolder",
    "metadata": {"name": "/Sales/EMEA"},
    "spec": {
        "hierarchy": "Public Folders",
        "tree": "IPM_SUBTREE",
        "systemFolder": None,
        "adminGroup": "First Administrative Group",
        "replicas": ["PFDB-LON-01", "PFDB-PAR-01"],
        "deletePending": [],
    },
}

SITE_FOLDER = doc(
    "PublicFolder",
    "/OFFLINE ADDRESS BOOK",
    {"hierarchy": "Public Folders", "tree": "NON_IPM_SUBTREE", "systemFolder": "SiteFolder",
     "replicas": ["PFDB-LON-01"]},
)

MAILBOX_DB = {
    "apiVersion": "exlint/v1",
    "kind": "MailboxDatabase",
    "metadata": {"name": "MBXDB-LON-01", "annotations": {"ticket": "CHG-1234"}},
    "spec": {
        "server": "EX07-LON-01",
        "defaultPublicFolderDatabase": "PFDB-LON-01",
        "registry": {"Track Duplicates (in hours)": 1, "DeliveredTo Expiration in Hours": 168},
    },
}

VALID_EXAMPLES = [
    ORGANIZATION,
    doc("Organization", "fabrikam", {}),
    SERVER_2007,
    SERVER_2003,
    SERVER_SE,
    PFDB,
    PFDB_MINIMAL,
    PUBLIC_FOLDER,
    SITE_FOLDER,
    MAILBOX_DB,
    doc("MailboxDatabase", "MBXDB-PAR-01", {"server": "EX07-PAR-01"}),
]


# ---------------------------------------------------------------------------- helpers
def with_change(document: dict, path: tuple, value=None, *, delete: bool = False) -> dict:
    """A deep copy of `document` with the node at `path` replaced (or deleted)."""
    result = copy.deepcopy(document)
    node = result
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return result


def _walk(node, where="#"):
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{where}/{i}")


# ---------------------------------------------------------------------------- the files
@pytest.mark.parametrize("name", ALL_FILES)
def test_schema_file_is_valid_draft_2020_12(name):
    schema = SCHEMAS[name]
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == BASE + name


def test_schemas_directory_holds_exactly_the_expected_files():
    assert sorted(p.name for p in SCHEMAS_DIR.glob("*.json")) == sorted(ALL_FILES)


@pytest.mark.parametrize("name", ALL_FILES)
def test_every_ref_resolves(name):
    resolver = REGISTRY.resolver(base_uri=SCHEMAS[name]["$id"])
    refs = [node["$ref"] for _, node in _walk(SCHEMAS[name]) if isinstance(node.get("$ref"), str)]
    if name != "common.json":
        assert refs
    for ref in refs:
        resolver.lookup(ref)  # raises if unresolvable


@pytest.mark.parametrize("name", ALL_FILES)
def test_every_property_has_a_description(name):
    missing = [
        f"{where}/properties/{prop}"
        for where, node in _walk(SCHEMAS[name])
        if isinstance(node.get("properties"), dict) and where.split("/")[-1] != "properties"
        for prop, sub in node["properties"].items()
        if not (isinstance(sub, dict) and sub.get("description"))
    ]
    assert missing == []


@pytest.mark.parametrize("kind,fname", KIND_FILES.items())
def test_kind_schema_envelope(kind, fname):
    schema = SCHEMAS[fname]
    assert schema["required"] == ["apiVersion", "kind", "metadata", "spec"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["kind"]["const"] == kind
    assert schema["properties"]["spec"]["additionalProperties"] is False


# ---------------------------------------------------------------------------- valid documents
@pytest.mark.parametrize("document", VALID_EXAMPLES, ids=lambda d: f"{d['kind']}-{d['metadata']['name']}")
def test_realistic_documents_are_valid(document):
    assert errors(document) == []


# ---------------------------------------------------------------------------- rejections
REJECTED = {
    # misspelled spec fields
    "org-misspelled-spec-field": (ORGANIZATION, ("spec", "siteLink"), []),
    "server-misspelled-spec-field": (SERVER_2007, ("spec", "adminGoup"), "x"),
    "pfdb-misspelled-spec-field": (PFDB, ("spec", "replcation"), {}),
    "pf-misspelled-spec-field": (PUBLIC_FOLDER, ("spec", "replica"), ["PFDB-LON-01"]),
    "mbx-misspelled-spec-field": (MAILBOX_DB, ("spec", "defaultPublicFolderDB"), "PFDB-LON-01"),
    "misspelled-metadata-field": (MAILBOX_DB, ("metadata", "label"), {"a": "b"}),
    "misspelled-top-level-field": (MAILBOX_DB, ("specs",), {}),
    "misspelled-routing-key": (ORGANIZATION, ("spec", "routing", "PFReplicaAgeTreshold"), "2d"),
    "misspelled-cluster-field": (SERVER_2007, ("spec", "cluster", "nodes"), ["A"]),
    "misspelled-referrals-field": (PFDB, ("spec", "referrals", "useCustomlist"), True),
    "misspelled-custom-list-item": (PFDB, ("spec", "referrals", "customList", 0, "Cost"), 5),
    "misspelled-hierarchy-item": (ORGANIZATION, ("spec", "hierarchies", 0, "Type"), "MAPI"),
    "misspelled-site-item": (ORGANIZATION, ("spec", "sites", 0, "site"), "x"),
    "misspelled-admin-group-item": (ORGANIZATION, ("spec", "adminGroups", 0, "siteFolderSrv"), "x"),
    # wrong enums and consts
    "hierarchy-type-enum": (ORGANIZATION, ("spec", "hierarchies", 1, "type"), "App"),
    "shadow-preference-enum": (ORGANIZATION, ("spec", "transportConfig", "ShadowMessagePreferenceSetting"),
                               "PreferLocal"),
    "version-enum": (SERVER_2007, ("spec", "version"), "2008"),
    "version-int-enum": (SERVER_2007, ("spec", "version"), 5),
    "role-enum": (SERVER_2007, ("spec", "roles"), ["Mailbox", "UnifiedMessaging"]),
    "cluster-mode-enum": (SERVER_2007, ("spec", "cluster", "mode"), "Active"),
    "tree-enum": (PUBLIC_FOLDER, ("spec", "tree"), "IPM"),
    "system-folder-enum": (PUBLIC_FOLDER, ("spec", "systemFolder"), "Schedule"),
    "api-version": (PFDB_MINIMAL, ("apiVersion",), "exlint/v2"),
    # wrong types
    "shadow-enabled-type": (ORGANIZATION, ("spec", "transportConfig", "ShadowRedundancyEnabled"), "yes"),
    "max-retries-type": (ORGANIZATION, ("spec", "transportConfig", "MaxRetriesForLocalSiteShadow"), "2"),
    "site-link-cost-type": (ORGANIZATION, ("spec", "siteLinks", 0, "cost"), "10"),
    "site-link-cost-zero": (ORGANIZATION, ("spec", "siteLinks", 0, "cost"), 0),
    "site-link-one-site": (ORGANIZATION, ("spec", "siteLinks", 0, "sites"), ["London"]),
    "age-hours-type": (ORGANIZATION, ("spec", "routing"), {"PFReplicaAgeThresholdHours": "48"}),
    "service-pack-type": (SERVER_2007, ("spec", "servicePack"), "SP1"),
    "service-pack-negative": (SERVER_2007, ("spec", "servicePack"), -1),
    "roles-type": (SERVER_2007, ("spec", "roles"), "Mailbox"),
    "registry-dword-type": (PFDB, ("spec", "registry", "Track Duplicates (in hours)"), "1"),
    "registry-dword-negative": (PFDB, ("spec", "registry", "Background Cleanup (in msecs)"), -1),
    "registry-backfill-source-type": (PFDB, ("spec", "registry", "Preferred Backfill Source"), 5),
    "registry-unknown-value-type": (PFDB, ("spec", "registry", "Some Other Value"), [1]),
    "replication-count-type": (PFDB, ("spec", "replication", "Replication Folder Count Limit"), "20"),
    "replication-unknown-value-type": (PFDB, ("spec", "replication", "Replication Whatever"), True),
    "replication-size-type": (PFDB, ("spec", "replication", "Replication Message Size Limit"), "300 kilobytes"),
    "use-custom-list-type": (PFDB, ("spec", "referrals", "useCustomList"), "true"),
    "referral-cost-type": (PFDB, ("spec", "referrals", "customList", 0, "cost"), "10"),
    "guid-pattern": (PFDB, ("spec", "guid"), "not-a-guid"),
    "created-pattern": (PFDB, ("spec", "created"), "14/03/2006"),
    "created-type": (PFDB, ("spec", "created"), 2006),
    "replicas-type": (PUBLIC_FOLDER, ("spec", "replicas"), "PFDB-LON-01"),
    "replica-name-empty": (PUBLIC_FOLDER, ("spec", "replicas"), [""]),
    "labels-value-type": (MAILBOX_DB, ("metadata", "labels"), {"tier": 1}),
    "metadata-name-blank": (MAILBOX_DB, ("metadata", "name"), "  "),
    "mbx-registry-type": (MAILBOX_DB, ("spec", "registry"), []),
    "spec-type": (MAILBOX_DB, ("spec",), None),
    "connector-name-type": (SERVER_2007, ("spec", "sendConnectors", 0, "name"), 7),
    # integers and prose where a duration is expected
    "int-connection-timeout": (SERVER_2007, ("spec", "receiveConnectors", 0, "ConnectionTimeout"), 36000),
    "int-send-inactivity": (SERVER_2007, ("spec", "sendConnectors", 0, "ConnectionInactivityTimeOut"), 600),
    "int-shadow-resubmit": (ORGANIZATION, ("spec", "transportConfig", "ShadowResubmitTimeSpan"), 3),
    "int-age-threshold": (ORGANIZATION, ("spec", "routing", "PFReplicaAgeThreshold"), 48),
    "int-replication-send-always": (PFDB, ("spec", "replication", "Replication Send Always"), 15),
    "prose-replication-expiry": (PFDB, ("spec", "replication", "Replication Expiry"), "10 minutes"),
    "prose-heartbeat": (ORGANIZATION, ("spec", "transportConfig", "ShadowHeartbeatFrequency"), "10 minutes"),
    # F2: minimum 1, and no rule owns the range (EXL003's, as the dword's own bounds)
    "deliveredto-zero-pfdb": (PFDB, ("spec", "registry", "DeliveredTo Expiration in Hours"), 0),
    "deliveredto-zero-mbx": (MAILBOX_DB, ("spec", "registry", "DeliveredTo Expiration in Hours"), 0),
    "prose-connection-inactivity": (SERVER_2007, ("spec", "receiveConnectors", 0, "ConnectionInactivityTimeout"),
                                    "10 minutes"),
}

MISSING = {
    "org-no-spec": (ORGANIZATION, ("spec",)),
    "org-no-metadata": (ORGANIZATION, ("metadata",)),
    "no-api-version": (ORGANIZATION, ("apiVersion",)),
    "no-metadata-name": (ORGANIZATION, ("metadata", "name")),
    "server-no-version": (SERVER_2007, ("spec", "version")),
    "connector-no-name": (SERVER_2007, ("spec", "receiveConnectors", 0, "name")),
    "cluster-no-mode": (SERVER_2007, ("spec", "cluster", "mode")),
    "pfdb-no-server": (PFDB, ("spec", "server")),
    "pfdb-no-hierarchy": (PFDB, ("spec", "hierarchy")),
    "custom-list-no-server": (PFDB, ("spec", "referrals", "customList", 0, "server")),
    "pf-no-hierarchy": (PUBLIC_FOLDER, ("spec", "hierarchy")),
    "mbx-no-server": (MAILBOX_DB, ("spec", "server")),
    "hierarchy-no-type": (ORGANIZATION, ("spec", "hierarchies", 0, "type")),
    "site-link-no-sites": (ORGANIZATION, ("spec", "siteLinks", 0, "sites")),
}


@pytest.mark.parametrize("base,path,value", REJECTED.values(), ids=REJECTED.keys())
def test_invalid_value_is_rejected(base, path, value):
    assert is_valid(base)
    assert not is_valid(with_change(base, path, value))


@pytest.mark.parametrize("base,path", MISSING.values(), ids=MISSING.keys())
def test_missing_required_field_is_rejected(base, path):
    assert is_valid(base)
    assert not is_valid(with_change(base, path, delete=True))


def test_wrong_kind_const_is_rejected():
    assert not VALIDATORS["Server"].is_valid(with_change(SERVER_SE, ("kind",), "Servers"))


# ---------------------------------------------------------------------------- value types
GOOD_DURATIONS = ["1.00:00:00", "00:00:01", "00:10:00", "10:00:00", "2.00:00:00", "90.00:00:00",
                  "23:59:59.9999999", "0:05:00", "-00:00:01", "90s", "15m", "6h", "2d", "0s"]
BAD_DURATIONS = [36000, 600, 0, 1.5, "10 minutes", "", "24:00:00", "00:60:00", "00:00:60", "1d 2h",
                 "15 m", "15M", "P1D", "1.00:00", "00:10", "abc", None, True]


@pytest.mark.parametrize("value", GOOD_DURATIONS)
def test_duration_accepted(value):
    assert errors(with_change(SERVER_2007, ("spec", "receiveConnectors", 0, "ConnectionTimeout"), value)) == []
    assert is_valid(with_change(PFDB, ("spec", "replication", "Replication Timeout"), value))


@pytest.mark.parametrize("value", BAD_DURATIONS, ids=repr)
def test_duration_rejected(value):
    assert not is_valid(with_change(SERVER_2007, ("spec", "receiveConnectors", 0, "ConnectionTimeout"), value))
    assert not is_valid(with_change(PFDB, ("spec", "replication", "Replication Timeout"), value))


# a negative size has the form of a size: STS005 owns the range (one problem, one finding)
GOOD_SIZES = ["300KB", "300kb", "300 KB", "10MB", "1GB", "512B", "0B", 307200, 0, "-1KB", -1]
BAD_SIZES = ["300", "300 kilobytes", "300TBs", "1.5MB", "KB", "", 1.5, None, True]


@pytest.mark.parametrize("value", GOOD_SIZES, ids=repr)
def test_size_accepted(value):
    assert errors(with_change(PFDB, ("spec", "replication", "Replication Message Size Limit"), value)) == []


@pytest.mark.parametrize("value", BAD_SIZES, ids=repr)
def test_size_rejected(value):
    assert not is_valid(with_change(PFDB, ("spec", "replication", "Replication Message Size Limit"), value))


@pytest.mark.parametrize("value", ["2000", "2003", "2007", "2010", "2013", "2016", "2019", "SE",
                                   2000, 2003, 2007, 2010, 2013, 2016, 2019])
def test_version_accepted(value):
    assert is_valid(with_change(SERVER_SE, ("spec", "version"), value))


@pytest.mark.parametrize("value", ["se", "2012", 2012, "Exchange 2010", 2010.5, None])
def test_version_rejected(value):
    assert not is_valid(with_change(SERVER_SE, ("spec", "version"), value))


@pytest.mark.parametrize("value", ["2006-03-14", "2006-03-14T09:30:00", "2006-03-14T09:30:00Z",
                                   "2006-03-14 09:30:00+01:00", "2006-03-14T09:30:00.123456-05:00"])
def test_created_accepts_dates_and_date_times(value):
    assert is_valid(with_change(PFDB, ("spec", "created"), value))


@pytest.mark.parametrize("value", ["6F1C2F4E-1F0B-4B4E-9A53-2C1D6A0B7E11",
                                   "{6f1c2f4e-1f0b-4b4e-9a53-2c1d6a0b7e11}"])
def test_guid_accepts_upper_case_and_braces(value):
    assert is_valid(with_change(PFDB, ("spec", "guid"), value))


# ---------------------------------------------------------------------------- rule-owned ranges stay out
@pytest.mark.parametrize("base,path,value", [
    (PFDB, ("spec", "registry", "Track Duplicates (in hours)"), 5000),       # DUP001
    (PFDB, ("spec", "referrals", "customList", 0, "cost"), 500),             # RTE003
    (PFDB, ("spec", "referrals", "customList", 0, "cost"), 0),
    (PFDB, ("spec", "replication", "Replication Folder Count Limit"), 0),    # STS005
    (PFDB, ("spec", "replication", "Replication Message Count Limit"), 5000),
    (PFDB, ("spec", "replication", "Replication Message Size Limit"), "1GB"),
    (PFDB, ("spec", "registry", "Replication Send Status Alignment Skew"), 99999),  # STS002
    (ORGANIZATION, ("spec", "transportConfig", "MaxRetriesForRemoteSiteShadow"), 300),  # SHD007
    (ORGANIZATION, ("spec", "transportConfig", "MaxRetriesForLocalSiteShadow"), -1),
    (ORGANIZATION, ("spec", "transportConfig", "ShadowHeartbeatFrequency"), "5.00:00:00"),
    (ORGANIZATION, ("spec", "routing"), {"PFReplicaAgeThresholdHours": -5}),  # RTE007
    (ORGANIZATION, ("spec", "routing"), {"PFReplicaAgeThreshold": "00:00:00"}),
    (SERVER_2007, ("spec", "receiveConnectors", 0, "ConnectionTimeout"), "30.00:00:00"),  # CON003
    (SERVER_2007, ("spec", "receiveConnectors", 0, "ConnectionInactivityTimeout"), "00:00:00"),
])
def test_ranges_owned_by_rules_are_not_schema_errors(base, path, value):
    assert errors(with_change(base, path, value)) == []


def test_both_age_threshold_spellings_are_schema_valid():
    # EXL009, not the schema, reports a setting given under both names.
    routing = {"PFReplicaAgeThreshold": "2.00:00:00", "PFReplicaAgeThresholdHours": 48}
    assert is_valid(with_change(ORGANIZATION, ("spec", "routing"), routing))


def test_duplicate_replicas_are_schema_valid():
    # REP005 reports a store listed twice.
    assert is_valid(with_change(PUBLIC_FOLDER, ("spec", "replicas"), ["PFDB-LON-01", "PFDB-LON-01"]))


def test_unknown_registry_and_replication_names_are_schema_valid():
    # EXL005 reports unknown names; the schema only types their values.
    pfdb = with_change(PFDB, ("spec", "registry", "Track Duplicate (in hours)"), 1)
    pfdb = with_change(pfdb, ("spec", "replication", "Replication Send Allways"), "15m")
    assert errors(pfdb) == []


# ---------------------------------------------------------------------------- known-name lists (EXL005)
PUBLIC_REGISTRY_NAMES = {
    "Preferred Backfill Source",
    "Track Duplicates (in hours)",
    "DeliveredTo Expiration in Hours",
    "Background Cleanup (in msecs)",
    "Replication Send Status Timeout",
    "Replication Send Status Alignment",
    "Replication Send Status Alignment Skew",
}
REPLICATION_NAMES = {
    "Replication Send Always", "Replication Send Folder Tree", "Replication Timeout", "Replication Expiry",
    "Replication New Replica Backfill Request Delay",
    "Replication Short Backfill Request Delay", "Replication Long Backfill Request Delay",
    "Replication Short Backfill Request Timeout", "Replication Long Backfill Request Timeout",
    "Replication Short Backfill Request Timeout Retry", "Replication Long Backfill Request Timeout Retry",
    "Replication Folder Count Limit", "Replication Deleted Folder Count Limit",
    "Replication Message Count Limit", "Replication Message Size Limit",
}


def test_known_name_lists():
    pfdb_spec = SCHEMAS["publicfolderdatabase.json"]["properties"]["spec"]["properties"]
    mbx_spec = SCHEMAS["mailboxdatabase.json"]["properties"]["spec"]["properties"]
    assert set(pfdb_spec["registry"]["properties"]) == PUBLIC_REGISTRY_NAMES
    assert set(pfdb_spec["replication"]["properties"]) == REPLICATION_NAMES
    assert set(mbx_spec["registry"]["properties"]) == {
        "Track Duplicates (in hours)", "DeliveredTo Expiration in Hours", "Background Cleanup (in msecs)"}
    for mapping in (pfdb_spec["registry"], pfdb_spec["replication"], mbx_spec["registry"]):
        assert mapping["additionalProperties"] == {"type": ["integer", "string"]}


def test_documented_defaults_are_valid_values():
    """Every `default` keyword holds a value its own property accepts."""
    checked = 0
    for fname in KIND_FILES.values():
        for where, node in _walk(SCHEMAS[fname]):
            if "default" in node and where.split("/")[-2] == "properties":
                # Same $id as the file, so relative $refs resolve as they do in place.
                subschema = {**node, "$id": SCHEMAS[fname]["$id"]}
                Draft202012Validator(subschema, registry=REGISTRY).validate(node["default"])
                checked += 1
    assert checked >= 25
