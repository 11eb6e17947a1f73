"""Exchange cmdlet output (CLIXML objects) to input-model fragments.

Supported: Get-ExchangeServer, Get-MailboxServer, Get-ReceiveConnector,
Get-SendConnector, Get-TransportConfig, Get-PublicFolderDatabase and
Get-MailboxDatabase. Objects are recognised by their .NET type names (with the
``Deserialized.`` prefix of remote sessions removed), not by the file name.
Anything the input model has no field for is dropped.
"""
from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from .clixml import DateTime, PSObject, TimeSpan, load_clixml
from .documents import Collector, Fragment, Item, normalize_guid
from .errors import Origin
from .values import format_timespan, normalize_timespan
from .xmlsafe import Node

ROLE_ORDER = ("Mailbox", "HubTransport", "ClientAccess", "Edge")

# Get-TransportConfig parameters the input model holds, and how each is read.
TRANSPORT_CONFIG = {
    "ShadowRedundancyEnabled": "bool",
    "RejectMessageOnShadowFailure": "bool",
    "ShadowMessagePreferenceSetting": "enum",
    "MaxRetriesForRemoteSiteShadow": "int",
    "MaxRetriesForLocalSiteShadow": "int",
    "ShadowHeartbeatFrequency": "duration",
    "ShadowResubmitTimeSpan": "duration",
    "ShadowMessageAutoDiscardInterval": "duration",
    "SafetyNetHoldTime": "duration",
}

# the enum values the input model accepts (schemas/organization.json), by their lower case:
# the cmdlet writes them in this case, a hand-made or re-typed capture may not
TRANSPORT_ENUMS = {"ShadowMessagePreferenceSetting": ("PreferRemote", "LocalOnly", "RemoteOnly")}
_GUID = re.compile(r"^\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?$")
_WHOLE = re.compile(r"^[+-]?\d+$")

_VERSION = re.compile(
    r"Version\s+(?P<major>\d+)\.(?P<minor>\d+)\s*\(Build\s+(?P<build>\d+)(?:\.\d+)?"
    r"(?:\s*:\s*Service Pack\s+(?P<sp>\d+))?",
    re.IGNORECASE,
)
_RDN_SPLIT = re.compile(r"(?<!\\),")


def exchange_version(major: int, minor: int, build: int = 0, service_pack: int | None = None) -> tuple[str, int] | None:
    """(release, service pack) of an Exchange build number, or None if unknown.

    6.0 = 2000 and 6.5 = 2003 (service pack from the text); 8.x = 2007 SPx and
    14.x = 2010 SPx (the minor version is the service pack); 15.0 = 2013 (SP1 from
    build 847); 15.1 = 2016; 15.2 = 2019, or SE from build 2562.
    """
    if major == 6 and minor in (0, 5):
        return ("2000" if minor == 0 else "2003"), service_pack or 0
    if major == 8:
        return "2007", minor
    if major == 14:
        return "2010", minor
    if major == 15 and minor == 0:
        return "2013", 1 if build >= 847 else 0
    if major == 15 and minor == 1:
        return "2016", 0
    if major == 15 and minor == 2:
        return ("SE" if build >= 2562 else "2019"), 0
    return None


def parse_admin_display_version(value: Any) -> tuple[int, int, int, int | None] | None:
    """(major, minor, build, service pack) from an AdminDisplayVersion value."""
    text = str(value) if value is not None else ""
    match = _VERSION.search(text)
    if match:
        sp = int(match["sp"]) if match["sp"] else None
        return int(match["major"]), int(match["minor"]), int(match["build"]), sp
    if isinstance(value, PSObject) and isinstance(value.get("Major"), int):
        return value.get("Major"), value.get("Minor") or 0, value.get("Build") or 0, None
    return None


def rdns(dn: str) -> list[tuple[str, str]]:
    """The (type, value) pairs of an LDAP distinguished name, escapes removed."""
    pairs = []
    for part in _RDN_SPLIT.split(dn):
        attr, sep, value = part.strip().partition("=")
        if sep:
            pairs.append((attr.strip().upper(), re.sub(r"\\(.)", r"\1", value.strip())))
    return pairs


def store_place(value: Any) -> tuple[str | None, str | None]:
    """(server, storage group) of a database from its DistinguishedName
    (``CN=<db>,CN=<storage group>,CN=InformationStore,CN=<server>,CN=Servers,...``;
    Exchange 2010 and later: ``CN=<db>,CN=Databases,...``, no server), or from an
    Identity ``SERVER\\Storage Group\\Database``."""
    if isinstance(value, PSObject):
        value = value.get("DistinguishedName") or str(value)
    text = str(value or "").strip()
    if re.match(r"^CN=", text, re.IGNORECASE):
        parts = rdns(text)
        for index, (attr, part) in enumerate(parts):
            if attr == "CN" and part.casefold() == "informationstore" and index + 1 < len(parts):
                group = parts[index - 1][1] if index >= 2 else None
                return parts[index + 1][1], group
        return None, None
    pieces = [piece.strip() for piece in text.split("\\")]
    if len(pieces) == 3 and all(pieces):
        return pieces[0], pieces[1]
    if len(pieces) == 2 and all(pieces):
        return pieces[0], None
    return None, None


def leaf_name(value: Any) -> str | None:
    """The object name in an ADObjectId, a DN, a canonical path or ``SERVER\\Name``."""
    if value is None:
        return None
    if isinstance(value, PSObject):
        name = value.get("Name")
        if isinstance(name, str) and name.strip():
            return name.strip()
        value = str(value)
    text = str(value).strip()
    if not text:
        return None
    if re.match(r"^(CN|OU|DC)=", text, re.IGNORECASE):
        parts = rdns(text)
        return parts[0][1] if parts else None
    for separator in ("/", "\\"):
        if separator in text:
            text = [p for p in text.split(separator) if p.strip()][-1].strip()
    return text or None


def byte_count(value: Any) -> int | None:
    """The bytes of a ByteQuantifiedSize ("300 KB (307,200 bytes)", its ToString), or of
    a plain number of bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value >= 0 else None
    text = value.to_string if isinstance(value, PSObject) else str(value)
    match = re.search(r"\(([\d,]+) bytes\)", text or "")
    if match:
        return int(match.group(1).replace(",", ""))
    return int(text.strip()) if isinstance(text, str) and text.strip().isascii() and text.strip().isdigit() else None


def timespan_text(value: Any) -> str | None:
    """The .NET TimeSpan text of a TimeSpan, an EnhancedTimeSpan object or a string."""
    if isinstance(value, TimeSpan):
        return format_timespan(value.ticks)
    if isinstance(value, PSObject):
        ticks = value.get("Ticks")
        if isinstance(ticks, int) and not isinstance(ticks, bool):
            return format_timespan(ticks)
        if isinstance(value.value, TimeSpan):
            return format_timespan(value.value.ticks)
        value = value.to_string
    if isinstance(value, str):
        return normalize_timespan(value)
    return None


def _date(value: Any) -> datetime.date | None:
    text = value.text if isinstance(value, DateTime) else str(value or "")
    try:
        return datetime.date.fromisoformat(text[:10])
    except ValueError:
        return None


class _Reader:
    """Turns one CLIXML file's objects into fragments."""

    def __init__(self, path: str, collector: Collector):
        self.path = path
        self.collector = collector
        self.skipped: dict[str, tuple[int, Origin]] = {}

    def origin(self, obj: PSObject, prop: str | None = None) -> Origin:
        line, column = obj.position(prop)
        return Origin(self.path, line, column)

    def warn(self, obj: PSObject, message: str, prop: str | None = None) -> None:
        self.collector.warn(self.origin(obj, prop), message)

    def organization_from_dn(self, obj: PSObject, described: bool = False) -> None:
        dn = obj.get("DistinguishedName")
        if not isinstance(dn, str):
            return
        parts = rdns(dn)
        # the server the object belongs to: the RDN just below CN=Servers (the server itself,
        # or the server of a connector)
        server = next((parts[i - 1][1] for i in range(1, len(parts))
                       if parts[i] == ("CN", "Servers") or parts[i][0] == "CN" and parts[i][1].casefold() == "servers"), None)
        for index, (attr, value) in enumerate(parts[1:], start=1):
            if attr == "CN" and value.casefold() == "microsoft exchange":
                self.collector.saw_organization(parts[index - 1][1], self.origin(obj, "DistinguishedName"), server,
                                                described)
                return

    def name(self, obj: PSObject) -> str | None:
        name = obj.get("Name")
        if isinstance(name, str) and name.strip():
            return name.strip()
        return leaf_name(obj.get("Identity"))

    # Servers -------------------------------------------------------------

    def server(self, obj: PSObject, cmdlet: str) -> None:
        name = self.name(obj)
        if not name:
            self.warn(obj, f"{cmdlet} object without a Name: skipped")
            return
        self.organization_from_dn(obj, described=True)
        fragment = Fragment("Server", name, self.origin(obj))
        release = None
        version = parse_admin_display_version(obj.get("AdminDisplayVersion"))
        if version is not None:
            mapped = exchange_version(*version)
            if mapped is None:
                self.warn(obj, f"server {name}: unknown Exchange version {version[0]}.{version[1]}: version not imported", "AdminDisplayVersion")
            else:
                release, service_pack = mapped
                where = self.origin(obj, "AdminDisplayVersion")
                fragment.set(("spec", "version"), release, where)
                fragment.set(("spec", "servicePack"), service_pack, where)
        site = leaf_name(obj.get("Site"))
        if site:
            fragment.set(("spec", "site"), site, self.origin(obj, "Site"))
        admin_group = self.admin_group(obj)
        if admin_group:
            fragment.set(("spec", "adminGroup"), admin_group, self.origin(obj, "DistinguishedName"))
        roles = self.roles(obj.get("ServerRole"), release)
        if roles:
            fragment.set(("spec", "roles"), roles, self.origin(obj, "ServerRole"))
        if cmdlet == "Get-MailboxServer":
            dag = leaf_name(obj.get("DatabaseAvailabilityGroup"))
            if dag:
                fragment.set(("spec", "dag"), dag, self.origin(obj, "DatabaseAvailabilityGroup"))
        self.collector.add(fragment)

    @staticmethod
    def admin_group(obj: PSObject) -> str | None:
        dn = obj.get("DistinguishedName")
        if isinstance(dn, str):
            parts = rdns(dn)
            for index, (attr, value) in enumerate(parts):
                if value.casefold() == "administrative groups" and index > 0:
                    return parts[index - 1][1]
        legacy = obj.get("ExchangeLegacyDN")
        if isinstance(legacy, str):
            match = re.search(r"/ou=([^/]+)", legacy, re.IGNORECASE)
            if match:
                return match.group(1)
        return None

    @staticmethod
    def roles(value: Any, release: str | None) -> list[str]:
        """Roles from ServerRole ("Mailbox, ClientAccess, HubTransport"): only the four
        the model knows. Exchange 2013 and later: the Mailbox role runs the transport
        service (HubTransport); 2016 and later: it also holds Client Access."""
        text = str(value) if value is not None else ""
        roles = {part.strip() for part in text.split(",")} & set(ROLE_ORDER)
        if "Mailbox" in roles and release in ("2013", "2016", "2019", "SE"):
            roles.add("HubTransport")
            if release != "2013":
                roles.add("ClientAccess")
        return [role for role in ROLE_ORDER if role in roles]

    # Connectors ------------------------------------------------------------

    def connector_values(self, obj: PSObject, fragment: Fragment, field: str, name: str, props: tuple[str, ...]) -> None:
        item = Item(name)
        fragment.set(("spec", field, item, "name"), name, self.origin(obj, "Name"))
        for prop in props:
            raw = obj.get(prop)
            if raw is None:
                continue
            text = timespan_text(raw)
            if text is None:
                self.warn(obj, f"{name}: {prop} is '{raw}', not a duration the input model takes: not imported", prop)
                continue
            fragment.set(("spec", field, item, prop), text, self.origin(obj, prop))

    def receive_connector(self, obj: PSObject, cmdlet: str) -> None:
        name = obj.get("Name")
        identity = str(obj.get("Identity") or "")
        server = leaf_name(obj.get("Server"))
        if not server and "\\" in identity:
            server = identity.split("\\", 1)[0]
        if not isinstance(name, str) or not name or not server:
            self.warn(obj, "receive connector without a Name or Server: skipped")
            return
        self.organization_from_dn(obj)
        fragment = Fragment("Server", server, self.origin(obj))
        self.connector_values(obj, fragment, "receiveConnectors", name, ("ConnectionTimeout", "ConnectionInactivityTimeout"))
        self.collector.add(fragment)

    def send_connector(self, obj: PSObject, cmdlet: str) -> None:
        name = obj.get("Name")
        if not isinstance(name, str) or not name:
            self.warn(obj, "send connector without a Name: skipped")
            return
        self.organization_from_dn(obj)
        sources = obj.get("SourceTransportServers")
        servers = [leaf_name(s) for s in (sources.items or [])] if isinstance(sources, PSObject) else []
        servers = sorted({s for s in servers if s}, key=str.casefold)
        if not servers and isinstance(sources, str) and sources.strip():
            servers = [leaf_name(s) for s in sources.split(",") if leaf_name(s)]
        if not servers:
            self.warn(obj, f"send connector {name} has no SourceTransportServers: skipped (the model keeps send connectors under their source servers)", "SourceTransportServers")
            return
        for server in servers:
            fragment = Fragment("Server", server, self.origin(obj))
            self.connector_values(obj, fragment, "sendConnectors", name, ("ConnectionInactivityTimeOut",))
            self.collector.add(fragment)

    # Organization and databases ---------------------------------------------

    def transport_config(self, obj: PSObject, cmdlet: str) -> None:
        self.organization_from_dn(obj)
        fragment = Fragment("Organization", None, self.origin(obj))
        for prop, form in TRANSPORT_CONFIG.items():
            if prop not in obj.properties or obj.get(prop) is None:
                continue
            raw = obj.get(prop)
            value: Any
            text = raw.strip() if isinstance(raw, str) else None  # a property a select or a CSV made text
            if form == "bool":
                value = raw if isinstance(raw, bool) else {"true": True, "false": False}.get((text or "").lower())
            elif form == "int":
                value = raw if isinstance(raw, int) and not isinstance(raw, bool) else \
                    int(text) if text and _WHOLE.match(text) else None
            elif form == "duration":
                value = timespan_text(raw)
            else:
                known = TRANSPORT_ENUMS[prop]
                # the cmdlet's enum is an object whose ToString is the name (str() of it)
                said = str(raw).strip().lower() if not isinstance(raw, (bool, int)) else None
                value = next((v for v in known if v.lower() == said), None)
                if value is None:
                    self.warn(obj, f"{prop} is '{raw}', not one of {', '.join(known)}: not imported (export it "
                                   f"again with Export-Clixml, or write one of those values)", prop)
                    continue
            if value is None:
                self.warn(obj, f"{prop} is '{raw}', which the input model cannot hold: not imported", prop)
                continue
            fragment.set(("spec", "transportConfig", prop), value, self.origin(obj, prop))
        self.collector.add(fragment)

    def email_address(self, obj: PSObject) -> str | None:
        for prop in ("PrimarySmtpAddress", "EmailAddress", "WindowsEmailAddress"):
            value = obj.get(prop)
            if value is not None and str(value).strip():
                return str(value).strip()
        addresses = obj.get("EmailAddresses")
        items = addresses.items if isinstance(addresses, PSObject) else None
        for address in items or []:
            text = str(address)
            if text.startswith("SMTP:"):
                return text[5:]
        return None

    def database(self, obj: PSObject, cmdlet: str) -> None:
        name = self.name(obj)
        if not name:
            self.warn(obj, f"{cmdlet} object without a Name: skipped")
            return
        self.organization_from_dn(obj, described=True)
        public = cmdlet == "Get-PublicFolderDatabase"
        guid = obj.get("Guid")
        guid = normalize_guid(guid) if isinstance(guid, str) and guid.strip() else None
        if guid is not None and not _GUID.match(guid):
            self.warn(obj, f"{cmdlet} {name}: Guid is '{obj.get('Guid')}', not a GUID (8-4-4-4-12 hexadecimal "
                           f"digits): not imported", "Guid")
            guid = None
        fragment = Fragment(
            "PublicFolderDatabase" if public else "MailboxDatabase", name, self.origin(obj), guid=guid, mapi_store=public
        )
        server = leaf_name(obj.get("Server"))
        if server:
            fragment.set(("spec", "server"), server, self.origin(obj, "Server"))
        # Exchange 2007 names a database per storage group ("Public Folder Database" on every
        # server): where two stores share a name, merge() names them by their place
        placed_server, fragment.storage_group = store_place(obj.get("DistinguishedName"))
        if not placed_server:
            placed_server, fragment.storage_group = store_place(obj.get("Identity"))
        fragment.server = server or placed_server
        if public:
            if guid:
                fragment.set(("spec", "guid"), guid, self.origin(obj, "Guid"))
            created = _date(obj.get("WhenCreated"))
            if created:
                fragment.set(("spec", "created"), created, self.origin(obj, "WhenCreated"))
            email = self.email_address(obj)
            if email:
                fragment.set(("spec", "emailAddress"), email, self.origin(obj))
            self.replication_values(obj, fragment, name)
        else:
            default_pf = leaf_name(obj.get("PublicFolderDatabase"))
            if default_pf:
                fragment.set(("spec", "defaultPublicFolderDatabase"), default_pf, self.origin(obj, "PublicFolderDatabase"))
                fragment.default_store_place = store_place(obj.get("PublicFolderDatabase"))
        if not fragment.values:  # a name alone (a Nil Server): no document to write, said so
            self.warn(obj, f"{cmdlet} object {name} gives no Server and no other value the input model holds: "
                           f"skipped (export it again with its Server property)", "Server")
        self.collector.add(fragment)

    def replication_values(self, obj: PSObject, fragment: Fragment, name: str) -> None:
        """Get-PublicFolderDatabase's replication settings the input model holds:
        ReplicationMessageSize (a ByteQuantifiedSize, "300 KB (307,200 bytes)") is
        `Replication Message Size Limit`; ReplicationPeriod (the "replicate always"
        interval, a TimeSpan or whole minutes) is `Replication Send Always`."""
        size = obj.get("ReplicationMessageSize")
        if size is not None:
            count = byte_count(size)
            if count is None:
                self.warn(obj, f"store {name}: ReplicationMessageSize is '{size}', not a size: not imported",
                          "ReplicationMessageSize")
            else:
                text = f"{count // 1024}KB" if count and count % 1024 == 0 else count
                fragment.set(("spec", "replication", "Replication Message Size Limit"), text,
                             self.origin(obj, "ReplicationMessageSize"))
        period = obj.get("ReplicationPeriod")
        if period is not None:
            minutes = period if isinstance(period, int) and not isinstance(period, bool) else None
            text = format_timespan(minutes * 600_000_000) if minutes is not None and minutes >= 0 \
                else timespan_text(period)
            if text is None:
                self.warn(obj, f"store {name}: ReplicationPeriod is '{period}', not a duration: not imported",
                          "ReplicationPeriod")
            else:
                fragment.set(("spec", "replication", "Replication Send Always"), text,
                             self.origin(obj, "ReplicationPeriod"))

    # Dispatch --------------------------------------------------------------

    HANDLERS: dict[str, tuple[str, str]] = {
        "ExchangeServer": ("server", "Get-ExchangeServer"),
        "MailboxServer": ("server", "Get-MailboxServer"),
        "ReceiveConnector": ("receive_connector", "Get-ReceiveConnector"),
        "SmtpSendConnectorConfig": ("send_connector", "Get-SendConnector"),
        "TransportConfigContainer": ("transport_config", "Get-TransportConfig"),
        "PublicFolderDatabase": ("database", "Get-PublicFolderDatabase"),
        "MailboxDatabase": ("database", "Get-MailboxDatabase"),
    }

    def read(self, obj: Any) -> None:
        if not isinstance(obj, PSObject):
            self.skip(f"a bare {type(obj).__name__} value", None)
            return
        for type_name in obj.short_types:
            handler = self.HANDLERS.get(type_name.rsplit(".", 1)[-1])
            if handler:
                method, cmdlet = handler
                getattr(self, method)(obj, cmdlet)
                return
        self.skip(obj.short_types[0] if obj.short_types else "an object without type names", obj)

    def skip(self, what: str, obj: PSObject | None) -> None:
        count, origin = self.skipped.get(what, (0, self.origin(obj) if obj else Origin(self.path)))
        self.skipped[what] = (count + 1, origin)

    def finish(self) -> None:
        for what, (count, origin) in sorted(self.skipped.items()):
            self.collector.warn(origin, f"{count} object(s) of type {what} skipped: not output of a cmdlet exlint imports")


def import_clixml(path: str | Path, data: bytes, collector: Collector, root: Node | None = None) -> None:
    reader = _Reader(str(path), collector)
    count = 0
    for obj in load_clixml(path, data, root):
        reader.read(obj)
        count += 1
    reader.finish()
    if not count:  # an export of a cmdlet that returned nothing: said, not silently nothing
        collector.warn(Origin(str(path), root.line if root else 1, root.column if root else 1),
                       "the capture holds no objects (<Objs> is empty): nothing imported")
