"""Running the local engine and the Spark engine on the same estates, many
estates in one Spark job (each with its own estate id, so they never see each
other), and comparing the findings as multisets of ``Finding.as_dict()`` tuples
(each engine reports one problem once: the local runner keeps a set, and a
finding the Spark job reports twice fails the comparison)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from linter.config import Config
from linter.engines.local import LocalEngine
from linter.estate import build_estate
from linter.loading import load_file, load_text
from linter.policy.examples import example_documents


@dataclass
class EstateSpec:
    """An estate as files: (display path, bytes). ``format`` of the files: yaml or jsonl."""
    name: str
    files: list[tuple[str, bytes]] = field(default_factory=list)
    format: str = "yaml"


def key(finding: dict) -> tuple:
    entity = finding.get("entity")
    return (finding["rule"], finding["severity"], finding["message"], finding["file"], finding["line"],
            finding["column"], finding["path"], entity["kind"] if entity else None, entity["name"] if entity else None)


def local_findings(spec: EstateSpec, rules) -> set[tuple]:
    loaded = []
    for display, data in spec.files:
        from linter.loading.text import TextError, decode

        try:
            text = decode(data)
        except TextError:
            loaded.append(_undecodable(display, data))
            continue
        loaded.append(load_text(text, display))
    estate = build_estate(loaded)
    findings = list(estate.findings) + LocalEngine(estate, rules).run()
    return {key(f.as_dict()) for f in findings}


def _undecodable(display: str, data: bytes):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "file.yaml"
        path.write_bytes(data)
        loaded = load_file(path, display)
    return loaded


def example_spec(name: str, example) -> EstateSpec:
    """The files linter.policy.examples.example_files loads, as bytes."""
    documents, raw = example_documents(example)
    files = [(f"example/{i:02d}.yaml", yaml.safe_dump(d, sort_keys=False, allow_unicode=True).encode("utf-8"))
             for i, d in enumerate(documents)]
    if raw is not None:
        files.append(("example/raw.yaml", raw.encode("utf-8")))
    return EstateSpec(name, files)


def tree_spec(name: str, root: Path, base: Path) -> EstateSpec:
    """Every YAML file under ``root``, shown relative to ``base``."""
    from linter.loading import discover

    files = [(path.relative_to(base).as_posix(), path.read_bytes()) for path in discover([root])]
    return EstateSpec(name, files)


def run_spark(spark, specs: list[EstateSpec], rules, tmp: Path, config: Config | None = None):
    """Findings per estate name from one Spark job over all the estates."""
    from linter.engines.spark import job
    from linter.engines.spark.inventory import InputFile

    inputs = []
    for est, spec in enumerate(specs):
        for index, (display, data) in enumerate(spec.files):
            if spec.format.startswith("parquet"):
                path = write_parquet(spark, data, tmp / f"e{est:04d}" / f"{index:04d}", spec.format)
                inputs.append(InputFile(str(path), display, "parquet", est))
                continue
            path = tmp / f"e{est:04d}" / f"{index:04d}.{'jsonl' if spec.format == 'jsonl' else 'yaml'}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            inputs.append(InputFile(str(path), display, spec.format, est))
    run = job.run(spark, inputs, rules, config or Config())
    try:
        out = {spec.name: set() for spec in specs}
        failures = list(run.failures)
        repeated = []  # the findings compare as multisets: a finding reported twice is a difference
        for row in run.findings.toLocalIterator():
            finding = row.asDict()
            entity = {"kind": finding["entity_kind"], "name": finding["entity_name"]} \
                if finding["entity_kind"] else None
            finding["entity"] = entity
            found = out[specs[finding["_est"]].name]
            if key(finding) in found:
                repeated.append(key(finding))
            found.add(key(finding))
        assert not repeated, f"the Spark engine reported findings more than once: {repeated[:5]}"
        stats = {specs[est].name: value for est, value in run.inventory.stats.items()}
    finally:
        run.close()
    return out, stats, failures


def to_jsonl(spec: EstateSpec, display: str) -> EstateSpec:
    """The YAML estate's documents as one JSON Lines file (in file order)."""
    lines = []
    for name, data in spec.files:
        loaded = load_text(data.decode("utf-8-sig"), name)
        lines += [json.dumps(document.data, ensure_ascii=False) for document in loaded.documents]
    return EstateSpec(spec.name + " as jsonl", [(display, ("\n".join(lines) + "\n").encode("utf-8"))], "jsonl")


def position_free(findings: set[tuple]) -> set[tuple]:
    """Findings without file, line and column (the same estate in another layout)."""
    return {(f[0], f[1], f[2], f[6], f[7], f[8]) for f in findings}


def write_parquet(spark, jsonl: bytes, directory: Path, fmt: str) -> Path:
    """One Parquet file of the JSON Lines documents, in order: a ``document``
    column of JSON text (``parquet``), or the columns apiVersion, kind, metadata
    and spec with metadata and spec as JSON text (``parquet-columns``)."""
    documents = [line for line in jsonl.decode("utf-8").splitlines() if line.strip()]
    if fmt == "parquet":
        frame = spark.createDataFrame([(d,) for d in documents], "document string")
    else:
        rows = []
        for text in documents:
            data = json.loads(text)
            rows.append((data.get("apiVersion"), data.get("kind"),
                         json.dumps(data["metadata"]) if "metadata" in data else None,
                         json.dumps(data["spec"]) if "spec" in data else None))
        frame = spark.createDataFrame(rows, "apiVersion string, kind string, metadata string, spec string")
    frame.coalesce(1).write.parquet(directory.as_uri())
    return next(directory.glob("part-*.parquet"))


def as_format(spec: EstateSpec, fmt: str, display: str) -> EstateSpec:
    converted = to_jsonl(spec, display)
    return EstateSpec(f"{spec.name} as {fmt}", converted.files, fmt)
