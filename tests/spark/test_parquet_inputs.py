"""Parquet inventories whose files do not share one schema, or whose document
columns have another type: each file is still read, every row linted or reported
(linter.engines.spark.inventory._parquet_frame), never a Spark failure naming no file."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

INVENTORY = Path(__file__).resolve().parents[2] / "samples" / "inventory" / "estate.jsonl"


def documents(count: int = 400) -> list[dict]:
    """The first documents of the bundled inventory that are JSON objects with a
    kind, metadata and spec (its injected malformed lines left out)."""
    out = []
    for line in INVENTORY.read_text(encoding="utf-8").splitlines()[:count]:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and {"apiVersion", "kind", "metadata", "spec"} <= data.keys() \
                and isinstance(data["spec"], dict) and isinstance(data["metadata"], dict):
            out.append(data)
    return out


def rules_found(*paths) -> tuple[int, Counter]:
    done = CliRunner().invoke(cli, ["estate", *map(str, paths), "--quiet", "--format", "json", "--fail-on", "never"])
    assert done.exit_code == 0, done.output
    found = json.loads(done.stdout)["findings"]
    return done.exit_code, Counter((f["rule"], f["message"]) for f in found)


def write(spark, rows: list, schema, directory: Path) -> Path:
    spark.createDataFrame(rows, schema).coalesce(1).write.parquet(directory.as_uri())
    return next(directory.glob("part-*.parquet"))


def test_files_whose_schemas_do_not_merge_are_read_each_with_its_own(spark, tmp_path):
    docs = documents()
    (tmp_path / "all.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    servers = [d for d in docs if d["kind"] == "Server" and str(d["spec"].get("version", "")).isdigit()]
    assert len(servers) >= 4
    others = [d for d in docs if d not in servers]
    as_text = [dict(d, spec=dict(d["spec"], version=str(d["spec"]["version"]))) for d in servers[:2]]
    as_number = [dict(d, spec=dict(d["spec"], version=int(d["spec"]["version"]))) for d in servers[2:]]
    struct = []
    for name, part in (("a", as_text), ("b", as_number)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in part), encoding="utf-8")
        frame = spark.read.json(str(tmp_path / f"{name}.jsonl"))
        frame.coalesce(1).write.parquet((tmp_path / f"struct-{name}").as_uri())
        struct.append(next((tmp_path / f"struct-{name}").glob("part-*.parquet")))
    # the others as JSON-text columns: a struct file and a text file together
    text = write(spark, [(d["apiVersion"], d["kind"], json.dumps(d["metadata"]), json.dumps(d["spec"]))
                         for d in others], "apiVersion string, kind string, metadata string, spec string",
                 tmp_path / "text")
    _, expected = rules_found(tmp_path / "all.jsonl")
    _, found = rules_found(*struct, text)
    assert expected and found == expected


def test_a_document_column_of_another_type_is_read_or_reported_per_row(spark, tmp_path):
    docs = documents(60)
    lines = [json.dumps(d) for d in docs]
    binary = write(spark, [(bytearray(line.encode("utf-8")),) for line in lines], "document binary",
                   tmp_path / "binary")
    (tmp_path / "all.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    _, expected = rules_found(tmp_path / "all.jsonl")
    assert rules_found(binary)[1] == expected
    kinds = write(spark, [(d["apiVersion"], 7, json.dumps(d["metadata"]), json.dumps(d["spec"])) for d in docs],
                  "apiVersion string, kind int, metadata string, spec string", tmp_path / "kinds")
    found = rules_found(kinds)[1]
    assert sum(n for (rule, _), n in found.items() if rule == "EXL004") == len(docs), found
