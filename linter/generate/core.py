"""Streaming generation of a synthetic estate with injected defects.

The generator walks the sites in order; for each site it builds the site's
plan (servers, stores, mailbox databases, folders) from pure functions of the
seed, draws defects from a separate random stream (so a clean estate and a
defective one share every clean document), and writes each document as soon
as it is built. Memory stays constant: nothing but the current site, a few
cached DAG plans and the per-region decisions is kept.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import zlib
from collections import deque
from json.encoder import encode_basestring as _encode_string
from dataclasses import dataclass
from pathlib import Path

from linter.generate import injectors as inj
from linter.generate.plan import (
    APPS, DEPARTMENTS, MAPI, MODERN_AG, ROLES, SERVICE_PACK, SP_TEXT, T_ORG, T_PAIRDEF, T_REGION,
    T_SITE, T_SITEDEF, TOPICS, DagPlan, SitePlan, Srv, Topology, mix, prefix, rng,
)
from linter.generate.render import (
    duplicate_key_json, duplicate_key_yaml, scalar, syntax_error_json, syntax_error_yaml, to_json, to_yaml,
)

API = "exlint/v1"
FOLDERS_PER_SERVER = 10
FOLDER_CHUNK = 1000

# Secondary findings that some defects cannot avoid (rule -> extra rules on the
# same entity). Calibrated against the rule packs: a folder with no active
# replica is also unreachable by referral (RTE005) from every store.
CASCADES: dict[str, tuple[str, ...]] = {}


class GenerateError(Exception):
    """Bad settings or an output location that cannot be written."""


@dataclass
class Settings:
    servers: int
    seed: int = 0
    defect_rate: float = 0.0
    format: str = "yaml"
    output: str = "estate"
    force: tuple[str, ...] = ()
    overwrite: bool = False


@dataclass(slots=True)
class Sto:
    name: str
    server: str
    version: int
    hierarchy: int          # 0 MAPI, 1.. application (APPS index + 1), -1 lab
    hierarchy_name: str
    site: int
    custom_list: bool = False
    srv: Srv | None = None


@dataclass(slots=True)
class Mbx:
    name: str
    server: str
    site: int
    default_store: str
    srv: Srv | None = None


@dataclass(slots=True)
class Fol:
    name: str
    site: int
    hub_store: str
    kind: str               # ipm | site | restrictions | views
    admin_group: str | None = None
    sfs_store: str | None = None


def _guid(seed: int, name: str) -> str:
    h = hashlib.md5(f"{seed}/{name}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _date(seed: int, name: str, first_year: int, years: int) -> str:
    h = mix(seed, zlib.crc32(name.encode()))
    return f"{first_year + h % years}-{1 + (h >> 8) % 12:02d}-{1 + (h >> 16) % 28:02d}"


# -- output ---------------------------------------------------------------------------

class Sink:
    """Where documents go; returns (file, first line, last line) per document."""

    def close(self) -> None:
        pass


class JsonlSink(Sink):
    def __init__(self, path: Path, name: str | None = None):
        self.path = path
        self.file = name or path.name  # the name the manifest gives (``path`` may be a temporary file)
        self.handle = open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20)
        self.line = 0

    def write(self, area, name, doc, comment=None, fault=None, text=None):
        if text is None:
            text = to_json(doc)
            if fault == "syntax":
                text = syntax_error_json(text)
            elif fault == "duplicate-server":
                text = duplicate_key_json(text, "server", doc["spec"]["server"])
        self.handle.write(text)
        self.handle.write("\n")
        self.line += 1
        return self.file, self.line, self.line

    def fast_folder(self, name, owner, hierarchy, replicas):
        """A clean IPM folder: the bytes json.dumps writes, without building a dict."""
        enc = _encode_string
        self.handle.write(
            '{"apiVersion": "exlint/v1", "kind": "PublicFolder", "metadata": {"name": ' + enc(name)
            + ', "labels": {"owner": ' + enc(owner) + '}}, "spec": {"hierarchy": ' + enc(hierarchy)
            + ', "tree": "IPM_SUBTREE", "replicas": [' + ", ".join(map(enc, replicas)) + "]}}\n")
        self.line += 1
        return self.line

    def close(self):
        self.handle.close()


class FileWriter:
    """Writes whole small files from a few threads: creating a file is latency
    bound (a filesystem round trip), and the syscalls release the GIL. Files go
    in batches; at most ``window`` batches are in flight, so memory stays
    bounded, and errors surface."""

    def __init__(self, threads: int = 8, batch: int = 128, window: int = 32):
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="exlint-generate")
        self.inflight: deque = deque()
        self.batch: list = []
        self.size = batch
        self.window = window

    @staticmethod
    def _write(batch) -> None:
        for path, data in batch:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)

    def submit(self, path: str, text: str) -> None:
        self.batch.append((path, text.encode("utf-8")))
        if len(self.batch) >= self.size:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            self.inflight.append(self.pool.submit(self._write, self.batch))
            self.batch = []
            if len(self.inflight) > self.window:
                self.inflight.popleft().result()

    def close(self) -> None:
        try:
            self.flush()
            while self.inflight:
                self.inflight.popleft().result()
        finally:
            self.pool.shutdown(wait=True)


class YamlSink(Sink):
    """servers/<site>/<server>.yaml, stores/<site>/<store>.yaml,
    mailbox-databases/<site>.yaml, folders/<n>.yaml, organization.yaml."""

    def __init__(self, root: Path):
        self.root = root
        self.dirs: set[str] = set()
        self.multi: dict[str, list] = {}    # area -> [relative path, handle, line]
        self.chunk = 0
        self.in_chunk = 0
        self.files = FileWriter()

    def _dir(self, rel: str) -> None:
        if rel not in self.dirs:
            (self.root / rel).mkdir(parents=True, exist_ok=True)
            self.dirs.add(rel)

    def _render(self, doc, fault):
        text = to_yaml(doc)
        if fault == "syntax":
            text = syntax_error_yaml(text)
        elif fault == "duplicate-server":
            text = duplicate_key_yaml(text, "server")
        return text

    def single(self, folder: str, stem: str, doc, comment: str, fault=None):
        if folder:
            self._dir(folder)
        rel = f"{folder}/{stem}.yaml" if folder else f"{stem}.yaml"
        head = f"# {comment}\n---\n" if comment else "---\n"
        text = self._render(doc, fault)
        self.files.submit(os.path.join(self.root, rel), head + text)
        first = head.count("\n") + 1
        return rel, first, first + text.count("\n") - 1

    def open_multi(self, area: str, rel: str, comment: str):
        self.close_multi(area)
        self._dir(rel.rsplit("/", 1)[0])
        handle = open(self.root / rel, "w", encoding="utf-8", newline="\n", buffering=1 << 16)
        handle.write(f"# {comment}\n")
        self.multi[area] = [rel, handle, 1]

    def close_multi(self, area: str) -> None:
        entry = self.multi.pop(area, None)
        if entry:
            entry[1].close()

    def append(self, area: str, text: str):
        entry = self.multi[area]
        entry[1].write("---\n" + text)
        first = entry[2] + 2
        entry[2] += 1 + text.count("\n")
        return entry[0], first, entry[2]

    def folder_text(self, text: str):
        if "folders" not in self.multi or self.in_chunk >= FOLDER_CHUNK:
            self.chunk += 1
            self.in_chunk = 0
            self.open_multi("folders", f"folders/{self.chunk:05d}.yaml",
                            f"Public folders, part {self.chunk}.")
        self.in_chunk += 1
        return self.append("folders", text)

    def close(self):
        for area in list(self.multi):
            self.close_multi(area)
        self.files.close()


class Manifest:
    """The manifest, streamed: one entry per expected finding."""

    def __init__(self, path: Path, header: dict):
        self.path = path
        self.handle = open(path, "w", encoding="utf-8", newline="\n")
        head = json.dumps(header, indent=2, ensure_ascii=False)
        self.handle.write(head[:-2] + ',\n  "defects": [')
        self.count = 0
        self.rules: dict[str, int] = {}

    def add(self, entry: dict) -> None:
        self.handle.write(("\n    " if self.count == 0 else ",\n    ") + json.dumps(entry, ensure_ascii=False))
        self.count += 1
        self.rules[entry["rule"]] = self.rules.get(entry["rule"], 0) + 1

    def finish(self, summary: dict) -> None:
        summary = dict(summary, expectedFindings=self.count, byRule=dict(sorted(self.rules.items())))
        body = json.dumps(summary, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        self.handle.write(("\n  ],\n" if self.count else "],\n") + f'  "summary": {body}\n}}\n')
        self.handle.close()

    def close(self) -> None:
        self.handle.close()


# -- the generator ---------------------------------------------------------------------

class Generator:
    def __init__(self, settings: Settings):
        if settings.servers < 6:
            raise GenerateError("--servers must be at least 6 (three sites of two servers)")
        if not 0.0 <= settings.defect_rate <= 1.0:
            raise GenerateError("--defect-rate must be between 0 and 1")
        if settings.format not in ("yaml", "jsonl"):
            raise GenerateError("--format must be yaml or jsonl")
        self.s = settings
        self.seed = settings.seed & ((1 << 63) - 1)
        self.rate = settings.defect_rate
        self.topo = Topology(settings.servers, self.seed)
        unknown = [f for f in settings.force if f not in inj.BY_ID]
        if unknown:
            raise GenerateError(f"unknown injector(s): {', '.join(unknown)}; see `exlint generate --list-injectors`")
        self.forced = [i for i in inj.CATALOG if i.id in settings.force]
        self.forced_left = {i.id for i in self.forced}
        org_forced = [i.id for i in self.forced if i.level == "org"]
        if len(org_forced) > 1:
            raise GenerateError(f"at most one organization-level injector per estate: {', '.join(org_forced)}")
        self.pending: dict[tuple[str, str], list[dict]] = {}
        self.defect_id = 0
        self.current: dict | None = None
        self.text_fault = None
        self.duplicate_document = None
        self.extra_stores: list[Srv] = []
        self.counts = {"Organization": 0, "Server": 0, "PublicFolderDatabase": 0, "PublicFolder": 0, "MailboxDatabase": 0}
        self.defects = 0
        self._pairs: dict[int, list[DagPlan]] = {}
        self.custom_lists = {name.lower() for name in self.topo.custom_list_stores()}
        # forced injectors: the ones with a condition (fewer eligible objects) go first
        self.forced_order = {i.id: (-i.rarity, i.applies is None, n) for n, i in enumerate(inj.CATALOG)}
        self._decide_org()
        self._decide_regions()
        self._decide_pairs()

    # -- pure, estate-wide decisions ----------------------------------------------
    def _decide_org(self):
        r = rng(self.seed, T_ORG, 0)
        self.org_defect = None
        self.collapse_target = None
        self._find_collapse_target()
        forced = [i for i in self.forced if i.level == "org"]
        if forced:
            self.org_defect = forced[0].id
            self.forced_left.discard(forced[0].id)
        elif r.random() < self.rate:
            options = [i for i in inj.LEVELS["org"] if i.applies is None or i.applies(self, None)]
            self.org_defect = r.choice(options).id
        if self.org_defect == "SHD003" and self.collapse_target is None:
            raise GenerateError("SHD003 needs a DAG: use more servers")
        self.shadow_on = self.org_defect != "SHD005"
        if self.org_defect != "SHD003":
            self.collapse_target = None

    def _find_collapse_target(self):
        for p in range(self.topo.S):
            dags = self.topo.pair_dags(p)
            if dags:
                self.collapse_target = (p, 0)
                return

    def _decide_regions(self):
        self.region_defects: dict[int, list[str]] = {}
        options = inj.LEVELS["region"]
        for r in range(self.topo.regions):
            chosen = []
            if r == 0:
                for i in options:
                    if i.id in self.forced_left and (i.applies is None or i.applies(self, r)):
                        chosen.append(i.id)
                        self.forced_left.discard(i.id)
            if not chosen:
                d = rng(self.seed, T_REGION, r)
                if d.random() < self.rate:
                    usable = [i for i in options if i.applies is None or i.applies(self, r)]
                    chosen.append(d.choice(usable).id)
            if chosen:
                self.region_defects[r] = chosen
        # stores of the lab hierarchies on existing servers: site -> [(hierarchy, region)]
        self.lab_stores: dict[int, list[int]] = {}
        for r, chosen in self.region_defects.items():
            if "HIE005" in chosen:
                for site in (self.topo.hub(r), 0 if r > 0 else 2):
                    self.lab_stores.setdefault(site, []).append(r)

    def _decide_pairs(self):
        """SHD002: a DAG left with one member; the first DAG gets it when forced."""
        self.single_dags: set[tuple[int, int]] = set()
        want = "SHD002" in self.forced_left and self.shadow_on
        for p in range(self.topo.S):
            if not self.shadow_on or (self.rate == 0 and not want):
                break
            dags = self.topo.pair_dags(p)
            d = rng(self.seed, T_PAIRDEF, p)
            for k in range(len(dags)):
                if (p, k) == self.collapse_target:
                    continue
                if want:
                    self.single_dags.add((p, k))
                    want = False
                    self.forced_left.discard("SHD002")
                elif d.random() < self.rate:
                    self.single_dags.add((p, k))

    def pair_plan(self, p: int) -> list[DagPlan]:
        cached = self._pairs.get(p)
        if cached is None:
            cached = self.topo.pair_dags(p)
            for k, dag in enumerate(cached):
                if (p, k) in self.single_dags:
                    dag.single = True
                if (p, k) == self.collapse_target:
                    dag.collapsed = True
            if len(self._pairs) > 8:
                self._pairs.clear()
            self._pairs[p] = cached
        return cached

    # -- manifest ---------------------------------------------------------------------
    def new_defect(self, injector: str) -> None:
        self.defect_id += 1
        self.defects += 1
        self.current = {"defect": self.defect_id, "injector": injector, "title": inj.BY_ID[injector].title}

    def expect(self, rule: str, kind: str, name: str) -> None:
        entry = dict(self.current, rule=rule, entity={"kind": kind, "name": name})
        self.pending.setdefault((kind, name.lower()), []).append(entry)

    def expect_cascade(self, rule: str, kind: str, name: str) -> None:
        for extra in CASCADES.get(rule, ()):
            self.expect(extra, kind, name)

    def located(self, kind: str, name: str, where) -> None:
        entries = self.pending.pop((kind, name.lower()), None)
        if entries:
            file, first, last = where
            for entry in entries:
                entry["file"] = file
                entry["line"] = first
                entry["endLine"] = last
                self.manifest.add(entry)

    def choose(self, level: str, obj, d) -> inj.Injector | None:
        """A forced injector not used yet, else one at random with probability R."""
        if self.forced_left:
            candidates = [i for i in inj.LEVELS.get(level, ())
                          if i.id in self.forced_left and (i.applies is None or i.applies(self, obj))]
            if candidates:
                chosen = min(candidates, key=lambda i: self.forced_order[i.id])
                self.forced_left.discard(chosen.id)
                return chosen
        if self.rate and d.random() < self.rate:
            usable = [i for i in inj.LEVELS[level] if i.applies is None or i.applies(self, obj)]
            if usable:
                return d.choice(usable)
        return None

    # -- helpers the injectors call ------------------------------------------------
    def gone_server(self, site: int) -> str:
        return f"EX00-{self.topo.code(site)}-01"   # Exchange 2000: decommissioned long ago

    def gone_store(self, site: int) -> str:
        return "PFDB-" + self.gone_server(site)

    def other_mapi_server(self, sto: Sto) -> str:
        t = self.topo
        hub = t.hub_server(t.region(sto.site))
        return hub if hub.lower() != sto.server.lower() else t.default_server(sto.site)

    def legacy_store_for(self, site: int) -> str:
        return self.topo.hub_store(self.topo.region(site))

    def app_store_near(self, site: int) -> str:
        t = self.topo
        return t.app_store(0, t.hub(t.region(site)))

    def hub_site_second_store(self, site: int) -> str:
        t = self.topo
        return t.default_store(t.hub(t.region(site)))

    def rte005_replicas(self, fol: Fol):
        """Two replicas on servers that no custom referral list names."""
        t = self.topo
        plan = self.site
        if fol.site != plan.index:
            return None
        custom = self.custom_lists
        hub = fol.hub_store.lower()
        local = [s for s in plan.mapi_stores if s.lower() != hub and s.lower() not in custom]
        nxt = t.next_site(fol.site)
        other = t.default_store(nxt)
        if not local or other.lower() in custom or other.lower() == hub:
            return None
        return [local[0], other]

    def away_from_sfs(self, fol: Fol) -> list[str]:
        t = self.topo
        a = t.next_site(fol.site)
        b = t.next_site(a)
        return [t.default_store(a), t.default_store(b)]

    def extra_store(self, srv: Srv) -> None:
        self.extra_stores.append(srv)

    # -- run ------------------------------------------------------------------------------
    def run(self) -> dict:
        started = time.perf_counter()
        s = self.s
        out = Path(s.output)
        # everything is written to a staging file or directory beside the output, which
        # takes the output's place only when the whole estate is written: a failure or
        # Ctrl-C leaves the output as it was and no partial estate behind
        self.staging = staging = Staging(out, s.format, s.overwrite)
        self.manifest = None
        try:
            return self._run(out, staging, started)
        except BaseException:
            if self.manifest is not None:
                self.manifest.close()
            staging.discard()
            raise

    def _run(self, out: Path, staging: "Staging", started: float) -> dict:
        s = self.s
        if s.format == "jsonl":
            self.sink = JsonlSink(staging.file(out), out.name)
            manifest_path = out.with_name(out.name + ".manifest.json")
        else:
            root = staging.directory()
            self.sink = YamlSink(root)
            (root / ".exlint.yaml").write_text("# exlint configuration (defaults)\n{}\n", encoding="utf-8")
            manifest_path = out / "manifest.json"
        self.manifest = Manifest(staging.file(manifest_path) if s.format == "jsonl" else root / "manifest.json", {
            "generator": "exlint generate",
            "format": s.format,
            "servers": s.servers,
            "seed": s.seed,
            "defectRate": s.defect_rate,
            "forced": sorted(s.force),
            "organizationDefect": self.org_defect,
        })
        try:
            self._write_org()
            for j in range(self.topo.S):
                self._write_site(j)
        finally:
            self.sink.close()
        if self.pending:
            missing = ", ".join(f"{k}/{n}" for k, n in list(self.pending)[:5])
            raise GenerateError(f"internal error: manifest entries without a document: {missing}")
        elapsed = time.perf_counter() - started
        summary = {
            "documents": dict(self.counts),
            "sites": self.topo.S,
            "defects": self.defects,
            "unusedForced": sorted(self.forced_left),
        }
        self.manifest.finish(summary)
        staging.commit()
        return dict(summary, seconds=round(elapsed, 3), output=str(out), manifest=str(manifest_path),
                    expectedFindings=self.manifest.count)

    # -- organization -------------------------------------------------------------------
    def _write_org(self):
        t = self.topo
        defect = self.org_defect
        hierarchies = [{"name": MAPI, "type": "MAPI"}] + [{"name": a[0], "type": "Application"} for a in APPS]
        admin_groups = []
        for r in range(t.regions):
            admin_groups.append({"name": t.admin_group(r), "siteFolderServer": t.hub_server(r)})
        admin_groups.append({"name": MODERN_AG, "siteFolderServer": t.modern_sfs()})
        sites = [{"name": t.site_name(i)} for i in range(t.S)]
        links = [{"name": t.link_name(a, b), "sites": [t.site_name(a), t.site_name(b)], "cost": c}
                 for a, b, c in t.links()]
        routing = {"PFReplicaAgeThreshold": "2.00:00:00"}
        transport = {
            "ShadowRedundancyEnabled": True,
            "RejectMessageOnShadowFailure": False,
            "ShadowMessagePreferenceSetting": "PreferRemote",
            "MaxRetriesForRemoteSiteShadow": 4,
            "MaxRetriesForLocalSiteShadow": 2,
            "ShadowHeartbeatFrequency": "00:02:00",
            "ShadowResubmitTimeSpan": "03:00:00",
            "ShadowMessageAutoDiscardInterval": "2.00:00:00",
            "SafetyNetHoldTime": "2.00:00:00",
        }
        org_name = t.org
        region_expect = []
        for r, chosen in sorted(self.region_defects.items()):
            code, hub_name = t.code(t.hub(r)), t.site_name(t.hub(r))
            for injector in chosen:
                if injector == "HIE005":
                    sites.append({"name": f"{hub_name}-Lab"})
                    hierarchies.append({"name": f"{hub_name} Lab Archive", "type": "Application"})
                elif injector == "HIE006":
                    admin_groups.append({"name": f"{hub_name} Migration Administrative Group"})
                    region_expect.append(injector)
        if defect:
            self.new_defect(defect)
        if defect == "EXL009":
            routing["PFReplicaAgeThresholdHours"] = 48
            self.expect("EXL009", inj.ORG, org_name)
        elif defect == "RTE007":
            routing["PFReplicaAgeThreshold"] = "00:00:00"
            self.expect("RTE007", inj.ORG, org_name)
        elif defect == "SHD001":
            transport["ShadowMessagePreferenceSetting"] = "LocalOnly"
            self.expect("SHD001", inj.ORG, org_name)
        elif defect == "SHD003":
            transport["ShadowMessagePreferenceSetting"] = "RemoteOnly"
            org_defect_id = self.current
            self.collapse_defect = org_defect_id   # members are expected as they are written
        elif defect == "SHD005":
            transport["ShadowRedundancyEnabled"] = False
            self.expect("SHD005", inj.ORG, org_name)
        elif defect == "SHD007":
            transport["ShadowHeartbeatFrequency"] = "1.12:00:00"
            self.expect("SHD007", inj.ORG, org_name)
        elif defect == "HIE007":
            hierarchies.insert(1, {"name": "Public Folders (Exchange 2000)", "type": "MAPI"})
            for hierarchy in hierarchies:  # HIE007 reports each of the MAPI hierarchies, not the organization once
                if hierarchy["type"] == "MAPI":
                    self.expect("HIE007", inj.ORG, org_name)
        for injector in region_expect:
            self.new_defect(injector)
            self.expect(injector, inj.ORG, org_name)
        doc = {
            "apiVersion": API, "kind": "Organization",
            "metadata": {"name": org_name, "labels": {"owner": "messaging-global", "domain": t.domain}},
            "spec": {
                "hierarchies": hierarchies, "adminGroups": admin_groups, "sites": sites,
                "siteLinks": links, "routing": routing, "transportConfig": transport,
            },
        }
        comment = (f"{org_name} ({t.domain}): Exchange organization, {t.S} AD sites, "
                   f"{t.servers} servers. Synthetic estate: exlint generate --seed {self.s.seed}.")
        self._emit_org(org_name, doc, comment)

    # -- one site ---------------------------------------------------------------------------
    def site_plan(self, j: int) -> SitePlan:
        t = self.topo
        r = rng(self.seed, T_SITE, j)
        code = t.code(j)
        legacy = t.legacy(j)
        plan = SitePlan(j, legacy)
        serial: dict[str, int] = {}
        region_ag = t.admin_group(t.region(j))

        def server(version, roles, ag=MODERN_AG, site=j, name_prefix=None, **kw) -> Srv:
            p = name_prefix or prefix(version)
            serial[p] = serial.get(p, 0) + 1
            s = Srv(f"{p}-{code}-{serial[p]:02d}", version, tuple(roles), site, j, ag,
                    sp=SERVICE_PACK[version], **kw)
            plan.servers.append(s)
            return s

        out_dags = self.pair_plan(j)
        in_dags = self.pair_plan((j - 1) % t.S)
        members_here = sum(1 if d.single else d.side_a for d in out_dags)
        members_here += sum(0 if d.single else d.side_b for d in in_dags)
        rest = t.n(j) - members_here
        if legacy:
            server(2003, ["Mailbox"], region_ag, mapi=True, apps=True,
                   note="first Exchange 2003 back-end; holds the application hierarchies")
            server(2007, ["Mailbox", "HubTransport", "ClientAccess"], mapi=True, mbx=r.randint(1, 2),
                   note="Exchange 2007 multi-role; routes for the 2003 servers")
            olds = []
            for _ in range(rest - 2):
                u = r.random()
                if u < 0.42:
                    olds.append(server(2003, ["Mailbox"], region_ag, mapi=r.random() < 0.8))
                elif u < 0.84:
                    roles = r.choices((("Mailbox", "HubTransport", "ClientAccess"), ("Mailbox",),
                                       ("HubTransport", "ClientAccess"), ("HubTransport",)), (4, 3, 2, 1))[0]
                    mbx = r.randint(1, 2) if "Mailbox" in roles else 0
                    server(2007, roles, mapi="Mailbox" in roles and r.random() < 0.6, mbx=mbx)
                elif u < 0.92:
                    server(2007, ["ClientAccess"])
                else:
                    server(r.choice((2010, 2013, 2016)), ["Edge"], name_prefix="EDGE")
            clustered = 0
            for first in (0, 2):   # two-node active/passive clusters; HQ always has one
                if len(olds) >= first + 2 and (j == 0 or r.random() < 0.35 - 0.15 * first):
                    clustered += 1
                    nodes = [f"{code}EXNODE{3 * first + k}" for k in (1, 2, 3)]
                    for s in olds[first:first + 2]:
                        s.mapi = True
                        s.cluster = (f"CLU-{code}-{clustered:02d}", "ActivePassive", nodes)
                    plan.clusters.append(olds[first:first + 2])
            if len(olds) > 4 and r.random() < 0.15:   # a single-EVS cluster
                olds[-1].cluster = (f"CLU-{code}-{clustered + 1:02d}", "ActivePassive",
                                    [f"{code}EXNODE8", f"{code}EXNODE9"])
        else:
            server(2010, ROLES[2010], mapi=True, mbx=r.randint(1, 3), boundary=True,
                   note="Exchange 2010 multi-role; the site's public folder server")
            for k in range(rest - 1):
                u = 0.0 if k == 0 else r.random()
                if u < 0.80:
                    v = r.choices((2010, 2013, 2016, 2019), (3, 2, 3, 2))[0]
                    server(v, ROLES[v], mapi=v == 2010 and r.random() < 0.4, mbx=r.randint(1, 3), boundary=True)
                elif u < 0.92:
                    server(r.choice((2010, 2013, 2016, 2019)), ["Edge"], name_prefix="EDGE")
                else:
                    v = r.choice((2010, 2013))
                    server(v, ["ClientAccess"])
        for d in in_dags:
            if d.single:
                continue
            for _ in range(d.side_b):
                site = (j - 1) % t.S if d.collapsed else j
                server(d.version, ROLES[d.version], dag=d.name, site=site,
                       mapi=d.version == 2010 and not d.collapsed and r.random() < 0.4, mbx=r.randint(1, 3))
        for d in out_dags:
            for _ in range(1 if d.single else d.side_a):
                server(d.version, ROLES[d.version], dag=d.name,
                       mapi=d.version == 2010 and not d.collapsed and r.random() < 0.4, mbx=r.randint(1, 3))
        plan.mapi_stores = ["PFDB-" + s.name for s in plan.servers if s.mapi and s.site == j]
        return plan

    def _write_site(self, j: int):
        t = self.topo
        plan = self.site = self.site_plan(j)
        content = rng(self.seed, T_SITE, j + (1 << 40))
        d = rng(self.seed, T_SITEDEF, j)
        region = t.region(j)
        hub_store = t.hub_store(region)
        site_dir = t.site_name(j).lower()
        is_yaml = isinstance(self.sink, YamlSink)
        if is_yaml:
            self.sink.open_multi("mbx", f"mailbox-databases/{site_dir}.yaml",
                                 f"Mailbox databases of the servers in {t.site_name(j)}.")

        # structural defects of this site
        srv_defect: dict[int, tuple[str, dict]] = {}
        for pair in plan.clusters:
            chosen = self.choose("cluster", pair, d)
            if chosen:
                self.new_defect(chosen.id)
                current = self.current
                for s in pair:
                    if chosen.id == "HIE002":
                        s.cluster = (s.cluster[0], "ActiveActive", s.cluster[2])
                    else:
                        s.sp = 0
                    srv_defect[id(s)] = (chosen.id, current)
        if not plan.legacy:
            capable = [s for s in plan.servers if s.boundary and s.dag is None]
            if len(capable) >= 3:
                chosen = self.choose("boundary", plan, d)
                if chosen:
                    victim = capable[-1]
                    n07 = sum(1 for s in plan.servers if s.version == 2007) + 1
                    victim.name = f"EX07-{t.code(j)}-{n07:02d}"
                    victim.version, victim.sp, victim.roles = 2007, 3, ("HubTransport",)
                    victim.mapi, victim.mbx, victim.boundary = False, 0, False
                    victim.note = "Exchange 2007 hub kept for a legacy application relay"
                    plan.mapi_stores = ["PFDB-" + x.name for x in plan.servers if x.mapi and x.site == j]
                    self.new_defect(chosen.id)
                    srv_defect[id(victim)] = (chosen.id, self.current)

        for s in plan.servers:
            self._write_server(s, plan, d, content, srv_defect.get(id(s)))
        if j in self.region_lab_sites():
            self._write_lab(j)

        self._write_folders(plan, content, d, hub_store)
        if is_yaml:
            self.sink.close_multi("mbx")

    def region_lab_sites(self):
        cached = getattr(self, "_lab_hubs", None)
        if cached is None:
            cached = self._lab_hubs = {self.topo.hub(r) for r, c in self.region_defects.items() if "HIE005" in c}
        return cached

    # -- documents -------------------------------------------------------------------
    def _emit_org(self, name, doc, comment):
        self.counts["Organization"] += 1
        sink = self.sink
        if isinstance(sink, JsonlSink):
            where = sink.write("org", name, doc)
        else:
            where = sink.single("", "organization", doc, comment)
        if self.pending:
            self.located("Organization", name, where)

    def _write_server(self, s: Srv, plan: SitePlan, d, content, structural):
        t = self.topo
        site_name = t.site_name(s.site)
        spec = {"version": str(s.version), "servicePack": s.sp, "site": site_name, "adminGroup": s.ag,
                "roles": list(s.roles)}
        if s.dag:
            spec["dag"] = s.dag
        if s.cluster:
            spec["cluster"] = {"name": s.cluster[0], "mode": s.cluster[1], "physicalNodes": list(s.cluster[2])}
        if "Edge" in s.roles:
            spec["receiveConnectors"] = [{"name": f"Default internal receive connector {s.name}",
                                          "ConnectionTimeout": "00:05:00", "ConnectionInactivityTimeout": "00:01:00"}]
            spec["sendConnectors"] = [{"name": f"EdgeSync - {site_name} to Internet",
                                       "ConnectionInactivityTimeOut": "00:10:00"}]
        elif s.version >= 2007 and ("Mailbox" in s.roles or "HubTransport" in s.roles):
            spec["receiveConnectors"] = [
                {"name": f"Default {s.name}", "ConnectionTimeout": "00:10:00", "ConnectionInactivityTimeout": "00:05:00"},
                {"name": f"Client {s.name}", "ConnectionTimeout": "00:10:00", "ConnectionInactivityTimeout": "00:05:00"},
            ]
        doc = {"apiVersion": API, "kind": "Server",
               "metadata": {"name": s.name, "labels": {"owner": f"messaging-{t.code(t.hub(t.region(s.site))).lower()}",
                                                        "site": t.code(s.site).lower()}},
               "spec": spec}
        if structural:
            injector, current = structural
            self.current = current
            if injector in ("HIE002", "HIE003"):
                self.expect(injector, inj.PFDB, "PFDB-" + s.name)
            elif injector == "SHD004":
                self.expect("SHD004", inj.SERVER, s.name)
        else:
            chosen = self.choose("server", s, d)
            if chosen:
                self.new_defect(chosen.id)
                chosen.apply(self, s, doc)
        if s.dag:
            self._dag_expectations(s, plan)
        roles = ", ".join(s.roles)
        what = f"Exchange {s.version} {SP_TEXT[s.version] if s.sp else 'RTM'} ({roles})"
        where = f" in {s.dag}" if s.dag else ""
        comment = f"{s.name}: {what}{where}. {s.note}".rstrip()
        self.counts["Server"] += 1
        self._place("Server", "servers", t.site_name(s.site).lower(), s.name, doc, comment)
        self._write_stores(s, plan, d, content)
        self._write_mailboxes(s, d, content)

    def _dag_expectations(self, s: Srv, plan: SitePlan):
        for dag in self.pair_plan(plan.index) + self.pair_plan((plan.index - 1) % self.topo.S):
            if dag.name != s.dag:
                continue
            if dag.single:
                if not dag.defect:
                    self.new_defect("SHD002")
                    dag.defect = self.defect_id
                else:
                    self.current = {"defect": dag.defect, "injector": "SHD002", "title": inj.BY_ID["SHD002"].title}
                self.expect("SHD002", inj.SERVER, s.name)   # (SHD003 leaves a one-member DAG to SHD002)
            if dag.collapsed:
                self.current = self.collapse_defect
                self.expect("SHD003", inj.SERVER, s.name)

    def _place(self, kind, folder, site_dir, name, doc, comment):
        sink = self.sink
        if isinstance(sink, JsonlSink):
            where = sink.write(folder, name, doc)
        else:
            where = sink.single(f"{folder}/{site_dir}", name.lower(), doc, comment)
        if self.pending:
            self.located(kind, name, where)
        return where

    def _store_doc(self, sto: Sto, content) -> dict:
        t = self.topo
        first, years = {2003: (2004, 4), 2007: (2008, 3), 2010: (2011, 4)}.get(sto.version, (2012, 3))
        spec = {"server": sto.server, "hierarchy": sto.hierarchy_name, "guid": _guid(self.seed, sto.name),
                "created": _date(self.seed, sto.name, first, years),
                "emailAddress": f"{sto.name.lower()}@{t.domain}"}
        registry = {}
        if sto.version == 2003:
            registry["Track Duplicates (in hours)"] = 24
            if content.random() < 0.1:
                registry["Replication Send Status Timeout"] = 86400
                registry["Replication Send Status Alignment"] = 43200
        elif content.random() < 0.15:
            registry["DeliveredTo Expiration in Hours"] = 168
        if registry:
            spec["registry"] = registry
        if content.random() < 0.05:
            spec["replication"] = {"Replication Send Always": "15m", "Replication Message Size Limit": "300KB"}
        if sto.custom_list:
            entries = []
            for r in range(t.regions):
                server = t.hub_server(r)
                entries.append({"server": server, "cost": 10 + mix(self.seed, zlib.crc32(server.encode())) % 81})
            spec["referrals"] = {"useCustomList": True, "customList": entries}
        return {"apiVersion": API, "kind": "PublicFolderDatabase",
                "metadata": {"name": sto.name, "labels": {"owner": f"messaging-{t.code(t.hub(t.region(sto.site))).lower()}",
                                                           "exchange": str(sto.version)}},
                "spec": spec}

    def _write_stores(self, s: Srv, plan: SitePlan, d, content):
        t = self.topo
        j = plan.index
        stores = []
        if s.mapi:
            sto = Sto("PFDB-" + s.name, s.name, s.version, 0, MAPI, s.site, srv=s)
            if s.version == 2007 and s.name.endswith("-01") and s.site in t.custom_list_sites(t.region(s.site)):
                sto.custom_list = True
            stores.append(sto)
        if s.apps:
            for a, app in enumerate(APPS):
                stores.append(Sto(f"{app[1]}-{s.name}", s.name, s.version, a + 1, app[0], s.site, srv=s))
            for r in self.lab_stores.get(j, ()):
                hub_name = t.site_name(t.hub(r))
                stores.append(Sto(f"LAB-{t.code(t.hub(r))}-{s.name}", s.name, s.version, -1,
                                  f"{hub_name} Lab Archive", s.site, srv=s))
        extra = bool(self.extra_stores) and self.extra_stores[-1] is s
        for sto in stores:
            doc = self._store_doc(sto, content)
            chosen = self.choose("store", sto, d) if sto.hierarchy >= 0 else None
            if chosen:
                self.new_defect(chosen.id)
                chosen.apply(self, sto, doc)
            self._write_store(sto, doc)
        if extra:
            self.extra_stores.pop()
            twin = Sto(stores[0].name + "-B", s.name, s.version, 0, MAPI, s.site, srv=s)
            self._write_store(twin, self._store_doc(twin, content))

    def _write_store(self, sto: Sto, doc: dict):
        t = self.topo
        what = {0: "MAPI hierarchy"}.get(sto.hierarchy, f"{sto.hierarchy_name} hierarchy")
        comment = f"{sto.name}: public folder store ({what}) on {sto.server}, Exchange {sto.version}."
        self.counts["PublicFolderDatabase"] += 1
        self._place("PublicFolderDatabase", "stores", t.site_name(sto.site).lower(), sto.name, doc, comment)

    def _write_mailboxes(self, s: Srv, d, content):
        if not s.mbx:
            return
        t = self.topo
        default = t.default_store(s.site)
        for k in range(1, s.mbx + 1):
            name = (f"MBX-{s.name}-SG{k}" if s.version == 2007 else f"DB-{s.name}-{k:02d}")
            mbx = Mbx(name, s.name, s.site, default, s)
            spec = {"server": s.name, "defaultPublicFolderDatabase": default}
            if content.random() < 0.1:
                spec["registry"] = {"DeliveredTo Expiration in Hours": 168}
            doc = {"apiVersion": API, "kind": "MailboxDatabase",
                   "metadata": {"name": name, "labels": {"owner": f"messaging-{t.code(s.site).lower()}"}},
                   "spec": spec}
            self.text_fault = None
            self.duplicate_document = None
            chosen = self.choose("mailbox", mbx, d)
            if chosen:
                self.new_defect(chosen.id)
                chosen.apply(self, mbx, doc)
            self._write_mailbox(name, doc, self.text_fault)
            if self.duplicate_document:
                twin = json.loads(json.dumps(doc))
                twin["metadata"]["name"] = self.duplicate_document
                self.expect("EXL006", inj.MBX, self.duplicate_document)
                self._write_mailbox(self.duplicate_document, twin, None)
            self.text_fault = None
            self.duplicate_document = None

    def _write_mailbox(self, name, doc, fault):
        sink = self.sink
        self.counts["MailboxDatabase"] += 1
        if isinstance(sink, JsonlSink):
            where = sink.write("mbx", name, doc, fault=fault)
        else:
            where = sink.append("mbx", sink._render(doc, fault))
        if self.pending:
            self.located("MailboxDatabase", name, where)

    def _write_lab(self, j: int):
        """HIE005: a lab server and its store in an AD site that no link reaches."""
        t = self.topo
        r = t.region(j)
        hub_name, code = t.site_name(j), t.code(j)
        self.new_defect("HIE005")
        lab_site = f"{hub_name}-Lab"
        name = f"EX03-{code}LAB-01"
        doc = {"apiVersion": API, "kind": "Server",
               "metadata": {"name": name, "labels": {"owner": "messaging-lab", "site": code.lower() + "lab"}},
               "spec": {"version": "2003", "servicePack": 2, "site": lab_site, "adminGroup": t.admin_group(r),
                        "roles": ["Mailbox"]}}
        self.counts["Server"] += 1
        self._place("Server", "servers", lab_site.lower(), name, doc,
                    f"{name}: Exchange 2003 lab server (isolated lab site).")
        sto = Sto(f"LAB-{code}-{name}", name, 2003, -1, f"{hub_name} Lab Archive", j)
        store_doc = self._store_doc(sto, rng(self.seed, T_SITE, j + (2 << 40)))
        self.expect("HIE005", inj.PFDB, sto.name)
        self.counts["PublicFolderDatabase"] += 1
        sink = self.sink
        if isinstance(sink, JsonlSink):
            where = sink.write("stores", sto.name, store_doc)
        else:
            where = sink.single(f"stores/{lab_site.lower()}", sto.name.lower(), store_doc,
                                f"{sto.name}: lab hierarchy store in the isolated lab site.")
        self.located(inj.PFDB, sto.name, where)

    # -- folders ----------------------------------------------------------------------
    def _write_folders(self, plan: SitePlan, content, d, hub_store):
        t = self.topo
        j = plan.index
        site = t.site_name(j)
        hub = t.hub(t.region(j))
        nxt = t.next_site(j)
        d_next = t.default_store(nxt)
        local = plan.mapi_stores
        if j == hub:
            local = [s for s in local if s.lower() != hub_store.lower()]
        total = FOLDERS_PER_SERVER * len(plan.servers)
        apps = total // 10 if plan.legacy else 0
        mapi = total - apps
        depts = DEPARTMENTS[: max(1, min(len(DEPARTMENTS), mapi // 12))]
        names = [f"/{site}"] + [f"/{site}/{dept}" for dept in depts]
        owners = ["messaging-" + t.code(j).lower()] + [dept.lower() + "-team" for dept in depts]
        k = 0
        ndepts = len(depts)
        while len(names) < mapi:
            dept = depts[k % ndepts]
            names.append(f"/{site}/{dept}/{TOPICS[(k // ndepts) % len(TOPICS)]} {k // ndepts + 1:03d}")
            owners.append(dept.lower() + "-team")
            k += 1
        rate = self.rate
        forced = bool(self.forced_left)
        fast = self._fast_folder
        for name, owner in zip(names[:mapi], owners):
            if j != hub:
                replicas = [content.choice(local), hub_store]
                if content.random() < 0.3:
                    replicas.append(d_next)
            else:
                replicas = [hub_store, d_next]
                if local and content.random() < 0.3:
                    replicas.append(content.choice(local))
            if (forced or (rate and d.random() < rate)):
                fol = Fol(name, j, hub_store, "ipm")
                chosen = self._choose_folder(fol, d, forced)
                if chosen:
                    doc = self._folder_doc(name, owner, MAPI, replicas)
                    self.new_defect(chosen.id)
                    chosen.apply(self, fol, doc)
                    self._emit_folder(name, doc)
                    continue
            fast(name, owner, MAPI, replicas)
        if apps:
            partner = j if j else t.app_partner(j)
            for k in range(apps):
                a = k % len(APPS)
                app, _, root, leaf = APPS[a]
                name = f"{root}/{site}/{leaf} {k // len(APPS) + 1:03d}"
                replicas = [t.app_store(a, 0), t.app_store(a, partner)]
                fast(name, "records-" + t.code(j).lower(), app, replicas)
        if j == hub:
            self._site_folders(t.admin_group(t.region(j)), hub_store, t.default_store(nxt), j, d)
        if j == 0:
            sfs = "PFDB-" + t.modern_sfs()
            self._site_folders(MODERN_AG, sfs, t.default_store(1), j, d)
            for folder, kind in (("/Restrictions", "Restrictions"), ("/Views", "Views")):
                doc = {"apiVersion": API, "kind": "PublicFolder",
                       "metadata": {"name": folder, "labels": {"owner": "messaging-global"}},
                       "spec": {"hierarchy": MAPI, "tree": "NON_IPM_SUBTREE", "systemFolder": kind,
                                "replicas": [sfs]}}
                fol = Fol(folder, j, sfs, kind.lower())
                chosen = self.choose("sysfolder", fol, d)
                if chosen:
                    self.new_defect(chosen.id)
                    chosen.apply(self, fol, doc)
                self._emit_folder(folder, doc)

    def _choose_folder(self, fol, d, forced):
        if forced:
            for i in inj.LEVELS["folder"]:
                if i.id in self.forced_left and (i.applies is None or i.applies(self, fol)):
                    self.forced_left.discard(i.id)
                    return i
            if not (self.rate and d.random() < self.rate):
                return None
        usable = [i for i in inj.LEVELS["folder"] if i.applies is None or i.applies(self, fol)]
        return d.choice(usable) if usable else None

    def _site_folders(self, ag, sfs_store, other, j, d):
        org = self.topo.org
        for top in ("SCHEDULE+ FREE BUSY", "OFFLINE ADDRESS BOOK"):
            name = f"/{top}/EX:/o={org}/ou={ag}"
            doc = {"apiVersion": API, "kind": "PublicFolder",
                   "metadata": {"name": name, "labels": {"owner": "messaging-global"}},
                   "spec": {"hierarchy": MAPI, "tree": "NON_IPM_SUBTREE", "systemFolder": "SiteFolder",
                            "adminGroup": ag, "replicas": [sfs_store, other]}}
            fol = Fol(name, j, sfs_store, "site", ag, sfs_store)
            chosen = self.choose("sitefolder", fol, d)
            if chosen:
                self.new_defect(chosen.id)
                chosen.apply(self, fol, doc)
            self._emit_folder(name, doc)

    @staticmethod
    def _folder_doc(name, owner, hierarchy, replicas):
        return {"apiVersion": API, "kind": "PublicFolder",
                "metadata": {"name": name, "labels": {"owner": owner}},
                "spec": {"hierarchy": hierarchy, "tree": "IPM_SUBTREE", "replicas": replicas}}

    def _emit_folder(self, name, doc):
        self.counts["PublicFolder"] += 1
        sink = self.sink
        if isinstance(sink, JsonlSink):
            where = sink.write("folders", name, doc)
        else:
            where = sink.folder_text(to_yaml(doc))
        if self.pending:
            self.located("PublicFolder", name, where)

    def _fast_folder(self, name, owner, hierarchy, replicas):
        self.counts["PublicFolder"] += 1
        sink = self.sink
        if isinstance(sink, JsonlSink):
            sink.fast_folder(name, owner, hierarchy, replicas)
        else:
            sink.folder_text(
                f"apiVersion: exlint/v1\nkind: PublicFolder\nmetadata:\n  name: {scalar(name)}\n"
                f"  labels: {{owner: {owner}}}\nspec:\n  hierarchy: {hierarchy}\n  tree: IPM_SUBTREE\n"
                f"  replicas: [{', '.join(replicas)}]\n")


PARTS = ("servers", "stores", "mailbox-databases", "folders", "organization.yaml", "manifest.json", ".exlint.yaml")
STAGING_SUFFIX = ".exlint-generate"


def _generated_here(out: Path) -> bool:
    """Whether the directory ``out`` holds an estate of ``exlint generate`` (its manifest says so)."""
    try:
        with open(out / "manifest.json", encoding="utf-8") as handle:
            head = handle.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return '"generator": "exlint generate"' in head


class Staging:
    """Where a run writes before its output is in place: a temporary file beside
    each output file (jsonl: the estate and its manifest), or a temporary directory
    (yaml: inside the output directory when it exists, so the parts move within one
    file system, else beside it). ``commit`` puts everything in place with renames;
    ``discard`` removes what the run wrote. Checks the output first: an existing
    file is replaced only with ``overwrite``; an existing directory must be empty,
    or (with ``overwrite``) hold an earlier generated estate, whose parts are
    replaced only at commit."""

    def __init__(self, out: Path, fmt: str, overwrite: bool):
        self.out = out
        self.format = fmt
        self.files: list[tuple[Path, Path]] = []  # (temporary, final)
        self.root: Path | None = None
        if fmt == "jsonl":
            if out.is_dir():
                raise GenerateError(f"{out}: is a directory; --format jsonl writes one file")
            if (out.exists() or out.is_symlink()) and not overwrite:
                raise GenerateError(f"{out}: exists; add --overwrite to replace it")
            return
        if (out.exists() or out.is_symlink()) and not out.is_dir():
            raise GenerateError(f"{out}: exists and is not a directory; --format yaml writes a directory tree")
        if out.is_dir() and any(not p.name.endswith(STAGING_SUFFIX) for p in out.iterdir()):
            if not overwrite:
                raise GenerateError(f"{out}: directory is not empty; choose another --output or add --overwrite")
            if not _generated_here(out):
                raise GenerateError(f"{out}: holds files exlint generate did not write (no manifest.json of an "
                                    "earlier estate), which --overwrite would delete; choose another --output, "
                                    "or empty it first")

    def file(self, final: Path) -> Path:
        import tempfile

        final.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=STAGING_SUFFIX)
        os.close(fd)
        temporary = Path(name)
        self.files.append((temporary, final))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        return temporary

    def directory(self) -> Path:
        import tempfile

        inside = self.out.is_dir()
        parent = self.out if inside else self.out.parent
        parent.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(dir=parent, prefix=f".{self.out.name}.", suffix=STAGING_SUFFIX))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.root, 0o777 & ~umask)
        return self.root

    def commit(self) -> None:
        for temporary, final in self.files:
            os.replace(temporary, final)
        self.files = []
        if self.root is None:
            return
        if not (self.out.exists() or self.out.is_symlink()):
            os.rename(self.root, self.out)
            self.root = None
            return
        for part in PARTS:  # an earlier estate's parts (checked: it is one), then this run's
            old = self.out / part
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            elif old.exists() or old.is_symlink():
                old.unlink()
            if (self.root / part).exists():
                os.rename(self.root / part, old)
        os.rmdir(self.root)
        self.root = None

    def discard(self) -> None:
        for temporary, _ in self.files:
            try:
                temporary.unlink()
            except OSError:
                pass
        self.files = []
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None


def generate(settings: Settings) -> dict:
    return Generator(settings).run()
