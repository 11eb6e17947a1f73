"""The HTML estate report: `exlint check --format html`, its charts checked
against the JSON findings of the same run (statically and in headless
Chromium), self-containment, --compare (JSON file, JSON Lines directory,
Parquet), size from aggregates, entity location, and the progress display."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from linter.cli import cli
from linter.findings import Entity, Finding
from linter.fingerprints import fingerprint
from linter.progress import Progress
from linter.reports import html as report

REPO = Path(__file__).resolve().parent.parent
BROKEN = REPO / "samples" / "broken"
CHARTS = ("by-severity", "by-family", "by-rule", "by-site", "by-version")


# --------------------------------------------------------------------------- helpers

class Page(HTMLParser):
    """What the tests read from a report: charts and bars, cards, table rows, links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charts: dict[str, list[tuple[str, int]]] = {}
        self.cards: dict[str, int] = {}
        self.rows: Counter = Counter()
        self.tags: list[tuple[str, dict]] = []
        self.root: dict = {}
        self._chart = None
        self._card = None
        self._table = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "html":
            self.root = attrs
        if tag == "svg" and "data-chart" in attrs:
            self._chart = attrs["data-chart"]
            self.charts[self._chart] = []
        if tag == "rect" and "bar" in (attrs.get("class") or "").split():
            assert self._chart is not None, "a bar outside a chart"
            self.charts[self._chart].append((attrs["data-label"], int(attrs["data-value"])))
        if tag == "div" and "data-total" in attrs:
            self._card = attrs["data-total"]
        if tag == "div" and self._card and "data-value" in attrs:
            self.cards[self._card] = int(attrs["data-value"])
            self._card = None
        if tag == "table" and "data-table" in attrs:
            self._table = attrs["data-table"]
        if tag == "tr" and self._table:
            self.rows[self._table] += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self._chart = None
        if tag == "table":
            self._table = None

    def values(self, chart: str) -> dict[str, int]:
        return dict(self.charts[chart])


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def table_rows(page: Page, name: str) -> int:
    """Body rows of a table (the header row excluded); 0 when the table is absent."""
    return max(0, page.rows.get(name, 0) - 1)


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def examples_estate(out: Path) -> Path:
    """An estate with many findings: the rules' bad examples merged into one base estate."""
    from linter.policy.examples import _normalise, base_documents, merge_patch
    from linter.policy.packs import load_rules

    documents = base_documents()
    keyed = {f"{d['kind']}/{d['metadata']['name']}": i for i, d in enumerate(documents)}
    for rule in load_rules().values():
        for example in (rule.examples.get("bad") or [])[:1]:
            example = _normalise(example)
            patch, added = example.get("patch") or {}, example.get("add") or []
            names = [f"{d.get('kind')}/{(d.get('metadata') or {}).get('name')}" for d in added if isinstance(d, dict)]
            if example.get("delete") or example.get("yaml") or any(k not in keyed for k in patch) \
                    or any(n in keyed for n in names):
                continue
            for key, change in patch.items():
                documents[keyed[key]] = merge_patch(documents[keyed[key]], change)
            for name, document in zip(names, added):
                keyed[name] = len(documents)
                documents.append(document)
    out.mkdir(parents=True)
    for i, document in enumerate(documents):
        (out / f"{i:03d}.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return out


def generated_estate(out: Path) -> Path | None:
    """`exlint generate --servers 60 --seed 3 --defect-rate 0.1`, when that command exists."""
    proc = subprocess.run([sys.executable, "-m", "linter", "generate", "--servers", "60", "--seed", "3",
                           "--defect-rate", "0.1", "--format", "yaml", "--output", str(out), "--quiet"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    return out if proc.returncode == 0 and out.is_dir() else None


class Run:
    """One `exlint check --format html --format json` run."""

    def __init__(self, estate: Path, out: Path, *extra):
        self.estate, self.out = estate, out
        self.html_path, self.json_path = out / "report.html", out / "findings.json"
        self.result = invoke("check", estate, "--format", "html", "--output", self.html_path,
                             "--format", "json", "--output", self.json_path, "--fail-on", "never", *extra)
        assert self.result.exit_code == 0, self.result.output
        self.html = self.html_path.read_text(encoding="utf-8")
        self.json = json.loads(self.json_path.read_text(encoding="utf-8"))
        self.findings = self.json["findings"]


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Run:
    """samples/broken when present, else an estate of the rules' bad examples."""
    out = tmp_path_factory.mktemp("broken")
    estate = BROKEN if BROKEN.is_dir() else examples_estate(out / "estate")
    return Run(estate, out)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Run:
    out = tmp_path_factory.mktemp("generated")
    estate = generated_estate(out / "estate")
    if estate is None:
        pytest.skip("`exlint generate` is not available")
    return Run(estate, out)


def check_against_json(page: Page, findings: list[dict]) -> None:
    """Every chart present, with the right bars, and totals equal to the JSON findings."""
    assert set(CHARTS) <= set(page.charts), sorted(page.charts)
    severities = Counter(f["severity"] for f in findings)
    rules = Counter(f["rule"] for f in findings)
    families = Counter(re.match(r"[A-Z]+", f["rule"]).group(0) for f in findings)
    assert page.cards["findings"] == len(findings)
    for severity in ("error", "warning", "info"):
        assert page.cards[severity] == severities[severity]
    assert page.values("by-severity") == {s: severities[s] for s in ("error", "warning", "info")}
    assert len(page.charts["by-rule"]) == min(len(rules), report.MAX_BARS)
    if len(rules) <= report.MAX_BARS:
        assert page.values("by-rule") == dict(rules)
    assert page.values("by-family") == dict(families)
    for chart in ("by-site", "by-version"):
        labels = [label for label, _ in page.charts[chart]]
        assert len(labels) == len(set(labels)), chart
        assert sum(v for _, v in page.charts[chart]) == len(findings), chart
    # bars are drawn longest first (by-rule, by-family)
    for chart in ("by-rule", "by-family"):
        values = [v for _, v in page.charts[chart]]
        assert values == sorted(values, reverse=True), chart
    assert table_rows(page, "rules") == len(rules)
    assert table_rows(page, "top-servers") <= report.TOP
    assert table_rows(page, "top-stores") <= report.TOP


# --------------------------------------------------------------------------- the report of a run

def test_report_matches_json_of_the_same_run(broken):
    assert broken.findings, "the broken estate must raise findings"
    check_against_json(parse(broken.html), broken.findings)


def test_generated_estate_report(generated):
    page = parse(generated.html)
    check_against_json(page, generated.findings)
    # a generated estate spreads findings over several sites, versions and servers
    assert len(page.charts["by-site"]) >= 2 and len(page.charts["by-version"]) >= 2
    assert table_rows(page, "top-servers") >= 2


def test_sites_and_versions_come_from_the_servers(broken):
    page = parse(broken.html)
    sites = {label for label, _ in page.charts["by-site"]} - {report.ORGANIZATION, report.UNKNOWN}
    versions = {label for label, _ in page.charts["by-version"]} - {report.ORGANIZATION, report.UNKNOWN}
    assert sites and versions
    written_sites, written_versions = set(), set()
    for path in broken.estate.rglob("*.yaml"):
        try:
            documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except yaml.YAMLError:
            continue
        for document in documents:
            if isinstance(document, dict) and document.get("kind") == "Server":
                spec = document.get("spec") or {}
                written_sites.add(str(spec.get("site")))
                written_versions.add(str(spec.get("version")))
    assert sites <= written_sites
    assert versions <= written_versions


def test_rules_table_explains_each_rule(broken):
    from linter.policy.packs import load_rules

    rules = load_rules()
    for rule_id in {f["rule"] for f in broken.findings}:
        assert f'id="rule-{rule_id.lower()}"' in broken.html
        rule = rules.get(rule_id)
        if rule is not None:
            assert report._e(rule.title) in broken.html
            if rule.source_text():
                assert report._e(rule.source_text()) in broken.html


def test_self_contained(broken, generated):
    for text in (broken.html, generated.html):
        page = parse(text)
        for tag, attrs in page.tags:
            for name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
                value = (attrs.get(name) or "").strip().lower()
                assert not re.match(r"^(https?:)?//", value), (tag, name, value)
            assert not (tag == "script" and "src" in attrs), attrs
            assert tag not in ("link", "iframe", "img", "object", "embed"), (tag, attrs)
        lowered = text.lower()
        assert "@import" not in lowered and "@font-face" not in lowered and "url(" not in lowered
        assert "fonts.googleapis" not in lowered
        assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


def test_empty_estate_report(tmp_path):
    out = tmp_path / "clean.html"
    result = invoke("check", REPO / "samples" / "estate", "--format", "html", "--output", out)
    assert result.exit_code == 0, result.output
    page = parse(out.read_text(encoding="utf-8"))
    assert page.cards["findings"] == 0
    assert page.values("by-severity") == {"error": 0, "warning": 0, "info": 0}
    for chart in ("by-family", "by-rule", "by-site", "by-version"):
        assert page.charts[chart] == []


# --------------------------------------------------------------------------- in a browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars"]


def chromium_binary() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def chromium(tmp: Path, *args) -> subprocess.CompletedProcess:
    binary = chromium_binary()
    if binary is None:
        pytest.skip("Chromium is not installed (/usr/bin/chromium); run scripts/install-chromium.sh as root")
    profile = tmp / "chromium-profile"
    profile.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(tmp)}
    try:
        proc = subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *map(str, args)],
                              capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("Chromium did not finish within 120 s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def test_rendered_dom_in_chromium(broken, tmp_path):
    proc = chromium(tmp_path, "--dump-dom", broken.html_path.as_uri())
    page = parse(proc.stdout)
    assert page.root.get("data-ready") == "1", "the inline script did not run"
    check_against_json(page, broken.findings)
    # the same bars as the file: nothing is added or dropped by the browser
    assert page.charts == parse(broken.html).charts

    shot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2400", broken.html_path.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 2400)
    assert len(data) > 20_000, "a blank page"


def test_tables_sort_and_filter_in_chromium(generated, tmp_path):
    """Click a header of the top-servers table and type into the rules filter, in the browser."""
    probe = """<script>
var t=document.querySelector('table[data-table="top-servers"]');
var th=t.querySelectorAll('thead th');
th[0].click();
var names=Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[0].textContent;});
th[3].click();th[3].click();
var counts=Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[3].textContent;});
var f=document.querySelector('input[data-filter="rules"]');
f.value='%s';f.dispatchEvent(new Event('input'));
var shown=Array.prototype.filter.call(document.querySelector('table[data-table="rules"]').tBodies[0].rows,
  function(r){return r.style.display!=='none';}).map(function(r){return r.cells[0].textContent;});
document.body.setAttribute('data-probe',JSON.stringify({names:names,counts:counts,sort:th[3].getAttribute('aria-sort'),shown:shown}));
</script></body>"""
    rule = Counter(f["rule"] for f in generated.findings).most_common()[-1][0]
    page = tmp_path / "probe.html"
    page.write_text(generated.html.replace("</body>", probe % rule.lower()), encoding="utf-8")
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    match = re.search(r'<body data-probe="([^"]*)"', dom)
    assert match, "the probe did not run"
    from html import unescape

    probe_result = json.loads(unescape(match.group(1)))
    names = probe_result["names"]
    assert names == sorted(names, key=str.lower) and len(names) >= 2
    counts = [int(c.replace("\u202f", "")) for c in probe_result["counts"]]
    assert counts == sorted(counts, reverse=True) and probe_result["sort"] == "descending"
    assert probe_result["shown"] == [rule]


def test_print_to_pdf(broken, tmp_path):
    pdf = tmp_path / "report.pdf"
    chromium(tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer", broken.html_path.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 10_000


# --------------------------------------------------------------------------- --compare

def _previous(findings: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """An earlier run: two of today's findings absent (so new), one finding gone
    since (so fixed), and an unchanged finding that moved lines."""
    assert len(findings) >= 4
    gone = {"rule": "DUP002", "severity": "warning", "message": "DeliveredTo Expiration in Hours is 400",
            "file": "stores/pfdb-old-01.yaml", "line": 9, "column": 5,
            "path": "spec.registry.DeliveredTo Expiration in Hours",
            "entity": {"kind": "PublicFolderDatabase", "name": "PFDB-OLD-01"}}
    new = [findings[0], findings[-1]]
    kept = [dict(f) for f in findings[1:-1]]
    kept[0]["line"] = (kept[0]["line"] or 0) + 40  # fingerprints ignore line numbers
    return kept + [gone], new, [gone]


def _check_comparison(page: Page, new: list[dict], fixed: list[dict], previous_total: int, total: int):
    assert page.cards["new"] == len(new)
    assert page.cards["fixed"] == len(fixed)
    assert page.cards["unchanged"] == total - len(new)
    assert table_rows(page, "new-findings") == len(new)
    assert table_rows(page, "fixed-findings") == len(fixed)
    assert previous_total == total - len(new) + len(fixed)


def test_compare_with_json_file(broken, tmp_path):
    previous, new, fixed = _previous(broken.findings)
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({**broken.json, "findings": previous}), encoding="utf-8")
    out = tmp_path / "report.html"
    result = invoke("check", broken.estate, "--format", "html", "--output", out, "--compare", earlier,
                    "--fail-on", "never")
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    page = parse(text)
    _check_comparison(page, new, fixed, len(previous), len(broken.findings))
    assert 'id="comparison"' in text
    assert "PFDB-OLD-01" in text and report._e(new[0]["message"]) in text


def test_compare_with_directory_of_json_lines(broken, tmp_path):
    previous, new, fixed = _previous(broken.findings)
    directory = tmp_path / "findings"
    (directory / "part").mkdir(parents=True)
    half = len(previous) // 2
    (directory / "part-00000.jsonl").write_text("".join(json.dumps(f) + "\n" for f in previous[:half]))
    (directory / "part" / "part-00001.jsonl").write_text("\n".join(json.dumps(f) for f in previous[half:]) + "\n")
    (directory / "_SUCCESS").write_text("")
    (directory / ".part-00000.jsonl.crc").write_text("not json")
    out = tmp_path / "report.html"
    result = invoke("check", broken.estate, "--format", "html", "--output", out, "--compare", directory,
                    "--fail-on", "never")
    assert result.exit_code == 0, result.output
    _check_comparison(parse(out.read_text(encoding="utf-8")), new, fixed, len(previous), len(broken.findings))


def test_compare_with_parquet_directory(broken, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    previous, new, fixed = _previous(broken.findings)
    directory = tmp_path / "findings"
    directory.mkdir()
    pq.write_table(pa.Table.from_pylist(previous), directory / "part-00000.parquet")
    assert len(report.load_findings(directory)) == len(previous)
    out = tmp_path / "report.html"
    result = invoke("check", broken.estate, "--format", "html", "--output", out, "--compare", directory,
                    "--fail-on", "never")
    assert result.exit_code == 0, result.output
    _check_comparison(parse(out.read_text(encoding="utf-8")), new, fixed, len(previous), len(broken.findings))


def test_compare_with_itself_shows_nothing_new(broken):
    text = invoke("check", broken.estate, "--format", "html", "--compare", broken.json_path,
                  "--fail-on", "never").stdout
    page = parse(text)
    assert page.cards["new"] == 0 and page.cards["fixed"] == 0
    assert page.cards["unchanged"] == len(broken.findings)


@pytest.mark.parametrize("content,message", [
    ('{"not": "findings"}', "not exlint JSON output"),
    ("this is not json\n", "not JSON"),
    ('[{"message": "no rule"}]', "is not a finding"),
])
def test_compare_bad_input_is_a_usage_error(tmp_path, content, message):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(content, encoding="utf-8")
    result = invoke("check", REPO / "samples" / "estate", "--format", "html", "--compare", earlier)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_compare_empty_directory(tmp_path):
    result = invoke("check", REPO / "samples" / "estate", "--format", "html", "--compare", tmp_path)
    assert result.exit_code == 2 and "no findings files" in result.stderr


def test_compare_is_a_multiset_by_fingerprint():
    a = Finding("REP005", "warning", "store X twice", "f.yaml", 3, 1, "spec.replicas[1]", Entity("PublicFolder", "/A"))
    b = Finding("REP005", "warning", "store X twice", "f.yaml", 4, 1, "spec.replicas[1]", Entity("PublicFolder", "/A"))
    assert fingerprint(a) == fingerprint(b)
    comparison = report.compare([a, b], [a])
    assert (comparison["new_count"], comparison["fixed_count"], comparison["unchanged_count"]) == (1, 0, 1)
    comparison = report.compare([a], [a, b])
    assert (comparison["new_count"], comparison["fixed_count"], comparison["unchanged_count"]) == (0, 1, 1)
    assert comparison["by_rule"] == [{"label": "REP005", "new": 0, "fixed": 1}]


# --------------------------------------------------------------------------- aggregates

def test_entities_are_located_on_servers():
    from linter.estate import build_estate
    from linter.policy.examples import base_documents, example_files

    estate = build_estate(example_files({"patch": {}}))
    locator = report.EstateLocator(estate)
    docs = base_documents()
    server = next(d for d in docs if d["kind"] == "Server")
    store = next(d for d in docs if d["kind"] == "PublicFolderDatabase")
    folder = next(d for d in docs if d["kind"] == "PublicFolder" and d["spec"].get("replicas"))
    first = next(d for d in docs if d["kind"] == "PublicFolderDatabase"
                 and d["metadata"]["name"].lower() == folder["spec"]["replicas"][0].lower())
    host = next(d for d in docs if d["kind"] == "Server" and d["metadata"]["name"].lower()
                == first["spec"]["server"].lower())

    where = locator.locate(Entity("Server", server["metadata"]["name"].upper()))  # names are case-insensitive
    assert where.server == server["metadata"]["name"]
    assert where.site.lower() == str(server["spec"]["site"]).lower()
    assert where.version == str(server["spec"]["version"]) and where.store is None

    where = locator.locate(Entity("PublicFolderDatabase", store["metadata"]["name"]))
    assert where.server.lower() == store["spec"]["server"].lower() and where.store == store["metadata"]["name"]

    where = locator.locate(Entity("PublicFolder", folder["metadata"]["name"]))
    assert where.store == first["metadata"]["name"] and where.server == host["metadata"]["name"]
    assert where.version == str(host["spec"]["version"])

    mailbox = next((d for d in docs if d["kind"] == "MailboxDatabase"), None)
    if mailbox is not None:
        where = locator.locate(Entity("MailboxDatabase", mailbox["metadata"]["name"]))
        assert where.server.lower() == mailbox["spec"]["server"].lower() and where.store_kind == "MailboxDatabase"

    assert locator.locate(Entity("Organization", "anything")).server == report.ORGANIZATION
    assert locator.locate(None).site == report.UNKNOWN
    assert locator.locate(Entity("Server", "NO-SUCH-SERVER")).version == report.UNKNOWN
    assert locator.locate(Entity("PublicFolder", "/no/such/folder")).server == report.UNKNOWN


def _synthetic(total: int = 100_000):
    """Counts of `total` findings over 60 rules, 300 sites, 8 versions, 5,000 servers and
    2,000 stores, and a comparison with 60,000 new and 40,000 fixed findings."""
    from linter.policy.packs import load_rules

    rules = load_rules()
    ids = list(rules)[:60]
    counts = {dim: Counter() for dim in report.DIMENSIONS}
    severities = ("error", "warning", "info")
    for i in range(total):
        severity = severities[i % 3]
        counts["rule"][(ids[i % len(ids)], severity)] += 1
        counts["site"][(f"Site-{i % 300:03d}", severity)] += 1
        counts["version"][(str(2003 + 3 * (i % 8)), severity)] += 1
        counts["server"][(f"EX-{i % 5000:04d}", severity)] += 1
        counts["store"][(f"PFDB-{i % 2000:04d}", severity)] += 1
    findings = [Finding(ids[i % len(ids)], "error", f"problem {i}", f"stores/s{i}.yaml", 10, 3, "spec.x",
                        Entity("PublicFolderDatabase", f"PFDB-{i:06d}")) for i in range(total)]
    comparison = report.compare(findings[:60_000], findings[60_000:], label="earlier/")
    data = report.assemble(counts, rules, comparison=comparison,
                           servers={f"EX-{n:04d}": {"site": "Site", "version": "2010"} for n in range(5000)},
                           meta={"generated": "2024-01-01T00:00:00Z", "engine": "estate"})
    return data, total


def test_large_report_stays_small():
    data, total = _synthetic()
    assert data["totals"]["findings"] == total
    assert len(json.dumps(data)) < 1_000_000, "ReportData must not grow with the findings"
    assert data["comparison"]["new_count"] == 60_000 and data["comparison"]["fixed_count"] == 40_000
    text = report.render_html(data)
    assert len(text.encode("utf-8")) < 3_000_000
    page = parse(text)
    assert page.cards["findings"] == total
    assert sum(v for _, v in page.charts["by-site"]) == total
    assert len(page.charts["by-site"]) == report.MAX_BARS
    assert page.charts["by-site"][-1][0] == f"({300 - report.MAX_BARS + 1} more)"
    assert len(page.charts["by-version"]) == 8
    assert [label for label, _ in page.charts["by-version"]] == [str(2003 + 3 * n) for n in range(8)]
    assert table_rows(page, "top-servers") == report.TOP == table_rows(page, "top-stores")
    assert table_rows(page, "new-findings") == report.ROW_LIMIT == table_rows(page, "fixed-findings")
    assert "first 500 of 60" in text and "exlint estate" in text and "(Spark)" not in text


def test_report_data_is_plain_json():
    data, _ = _synthetic(3_000)
    assert json.loads(json.dumps(data)) == data
    assert set(data) == {"schema", "meta", "totals", "by_rule", "by_family", "by_site", "by_version",
                         "top_servers", "top_stores", "rules", "comparison", "findings", "findings_total"}
    # render_html works from the JSON form too (what a Spark driver might hand over)
    assert report.render_html(json.loads(json.dumps(data))) == report.render_html(data)


def test_labels_are_escaped():
    counts = {dim: Counter() for dim in report.DIMENSIONS}
    counts["rule"][("EXL001", "error")] = 1
    counts["site"][('<script>alert("x")</script>', "error")] = 1
    counts["server"][("EX&<1>", "error")] = 1
    text = report.render_html(report.assemble(counts, {}, servers={"EX&<1>": {"site": "<b>", "version": "1"}}))
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text and "EX&amp;&lt;1&gt;" in text
    assert parse(text).values("by-site") == {'<script>alert("x")</script>': 1}


# --------------------------------------------------------------------------- progress

class FakeTTY(io.StringIO):
    def isatty(self):
        return True


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_progress_on_a_terminal(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    stream, clock = FakeTTY(), Clock()
    with Progress(True, stream, delay=0, interval=0, clock=clock) as progress:
        progress.stage("load", total=4, unit="files")
        for _ in range(4):
            clock.now += 0.25
            progress.advance()
        assert "load [####################] 4/4 files 100%" in stream.getvalue()
        progress.stage("validate", total=9, unit="documents")
        progress.advance(9)
        progress.stage("evaluate", total=60, unit="rules")
        clock.now += 2
        progress.advance(60)
        progress.stage("write")
        progress.advance(2)
    out = stream.getvalue()
    assert "\r\x1b[2K" in out and "1.0s" in out
    for name in ("[1] load", "[2] validate", "[3] evaluate", "[4] write"):
        assert name in out
    summary = out.rsplit("\x1b[2K", 1)[1]
    assert summary == ("exlint: load 4 files 1.0s \u00b7 validate 9 documents 0.0s \u00b7 evaluate 60 rules 2.0s"
                       " \u00b7 write 2 0.0s (3.0s in all)\n")


def test_progress_is_silent_off_a_terminal_or_when_quiet(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    plain, tty = io.StringIO(), FakeTTY()
    for p in (Progress(True, plain, delay=0, interval=0), Progress(False, tty, delay=0, interval=0)):
        with p:
            p.stage("load", total=3)
            p.advance(3)
    assert plain.getvalue() == "" and tty.getvalue() == ""
    monkeypatch.setenv("TERM", "dumb")
    dumb = FakeTTY()
    with Progress(True, dumb, delay=0) as p:
        p.stage("load")
    assert dumb.getvalue() == ""


def test_progress_waits_before_drawing(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    stream, clock = FakeTTY(), Clock()
    with Progress(True, stream, delay=0.5, interval=0, clock=clock) as progress:
        progress.stage("load", total=2)
        progress.advance(2)
    assert stream.getvalue() == "", "a quick run draws nothing"
    with Progress(True, stream, delay=0.5, interval=0.1, clock=clock) as progress:
        progress.stage("evaluate", total=1000)
        clock.now += 1
        progress.advance()
        drawn = stream.getvalue().count("\x1b[2K")
        progress.advance()  # within the interval: not redrawn
        assert stream.getvalue().count("\x1b[2K") == drawn == 1
        clock.now += 0.2
        progress.advance()
        assert "3/1000" in stream.getvalue()
        progress.clear()
        assert stream.getvalue().endswith("\r\x1b[2K")
    assert stream.getvalue().endswith("(1.2s in all)\n")


def test_progress_ticker_and_failure(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    stream = FakeTTY()
    with pytest.raises(RuntimeError):
        with Progress(True, stream, delay=0, interval=0.01, ticker=True) as progress:
            progress.stage("spark job")
            import time

            time.sleep(0.4)
            raise RuntimeError("boom")
    out = stream.getvalue()
    assert out.count("spark job") >= 2, "the ticker redraws a stage that reports nothing"
    assert out.endswith("\r\x1b[2K"), "on failure the line is erased, with no summary"


def test_check_quiet_flag(tmp_path):
    result = invoke("check", REPO / "samples" / "estate", "--quiet")
    assert result.exit_code == 0 and "\x1b[2K" not in result.output
