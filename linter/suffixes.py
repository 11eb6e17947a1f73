"""File suffixes, by what exlint reads from them. A leaf module: loading, the
estate inventory, the importers, the generator and the reports all name these."""
from __future__ import annotations

YAML_SUFFIXES = (".yaml", ".yml")
JSONL_SUFFIXES = (".jsonl", ".ndjson")  # a document per line (linter.loading.jsonl)
PARQUET_SUFFIXES = (".parquet", ".parq")
