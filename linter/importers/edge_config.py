"""``EdgeTransport.exe.config``: the transport service's appSettings.

Read: ``<configuration><appSettings><add key="PFReplicaAgeThreshold" value="2.00:00:00"/>``
(read the way .NET's ``TimeSpan.Parse`` reads it: ``2`` is two days) and
``PFReplicaAgeThresholdHours`` (the name Microsoft's Exchange 2007 routing
documentation uses). Both go to ``Organization.spec.routing``. The file is parsed
with defusedxml like every XML source.
"""
from __future__ import annotations

import re
from pathlib import Path

from .documents import Collector, Fragment
from .errors import Origin, SourceError
from .values import format_timespan, parse_dotnet_timespan
from .xmlsafe import Node, parse_xml

_INTEGER = re.compile(r"^\s*[+-]?[0-9]+\s*$", re.ASCII)
ROUTING_KEYS = {"PFReplicaAgeThreshold": "duration", "PFReplicaAgeThresholdHours": "int"}


def _routing_key(key) -> str | None:
    """The routing key ``key`` names (in any case, as NameValueCollection compares), or None."""
    return next((k for k in ROUTING_KEYS if isinstance(key, str) and k.casefold() == key.casefold()), None)


def import_edge_config(path: str | Path, data: bytes, collector: Collector, root: Node | None = None) -> None:
    path = str(path)
    root = root or parse_xml(path, data)
    if root.tag != "configuration":
        raise SourceError(path, f"not a .NET configuration file: the root element is <{root.tag}>", root.line, root.column)
    fragment = Fragment("Organization", None, Origin(path, root.line, root.column))
    settings = [node for node in root.children if node.tag == "appSettings"]
    if not settings:
        collector.warn(Origin(path, root.line, root.column), "no <appSettings>: nothing imported")
        return
    if len(settings) > 1:  # System.Configuration: "Sections must only appear once per config file"
        second = settings[1]
        raise SourceError(path, f"a second <appSettings> (the first at line {settings[0].line}): .NET refuses a "
                                f"configuration file holding a section twice, so the transport service does not "
                                f"start with it; merge the two sections", second.line, second.column)
    # what .NET's appSettings holds at the end: keys compared case-insensitively, a later <add>
    # replacing an earlier one, <remove key> and <clear/> taking keys away
    held: dict[str, tuple[str, str, Origin]] = {}
    seen = False
    for section in settings:
        for node in section.children:
            key = node.get("key")
            if node.tag in ("add", "remove") and key is None:
                collector.warn(Origin(path, node.line, node.column),
                               f"<{node.tag}> without a key attribute: .NET refuses it (\"Required attribute 'key' "
                               f"not found\"): not imported; give it its key")
                continue
            # NameValueCollection compares keys in any case, but as written: " PFReplicaAgeThreshold "
            # is another key, which the service never asks for
            canonical = _routing_key(key)
            padded = _routing_key(key.strip()) if canonical is None and node.tag == "add" else None
            if padded is not None:
                collector.warn(Origin(path, node.line, node.column),
                               f"key '{key}' has spaces around {padded}: the transport service reads keys as "
                               f"written, so it does not read this one: not imported; remove the spaces")
                continue
            if node.tag == "clear":
                held.clear()
            elif node.tag == "remove" and canonical:
                held.pop(canonical, None)
            elif node.tag == "add" and canonical:
                seen = True
                held[canonical] = (canonical, node.get("value", ""), Origin(path, node.line, node.column))
    for key, raw, origin in held.values():
        value: object
        if ROUTING_KEYS[key] == "duration":
            ticks = parse_dotnet_timespan(raw)  # what the service reads, not what CLIXML writes
            value = None if ticks is None else format_timespan(ticks)
        else:
            # Int32.Parse: optional sign and surrounding white space, ASCII digits (a negative
            # value is imported for RTE007 to report)
            value = int(raw.strip()) if _INTEGER.match(raw) else None
            if value is not None and not -2**31 <= value < 2**31:
                value = None  # past Int32: the service cannot read it
        if value is None:
            collector.warn(origin, f"{key} is '{raw}', which the transport service cannot read: not imported")
            continue
        fragment.set(("spec", "routing", key), value, origin)
    if not seen:
        collector.warn(Origin(path, settings[0].line, settings[0].column), "no PFReplicaAgeThreshold key in <appSettings>: nothing imported")
    elif not held:
        collector.warn(Origin(path, settings[0].line, settings[0].column),
                       "PFReplicaAgeThreshold is removed again in <appSettings> (<remove> or <clear/>): nothing imported")
    collector.add(fragment)
