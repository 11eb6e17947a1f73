"""A one-file `exlint check` (what a pre-commit hook runs on every commit)
starts without the heavy modules it does not need: never PySpark; for a valid
document neither jsonschema nor fastjsonschema's code generator (the generated
validators carry their own exceptions); no hashlib (OpenSSL) when nothing is
fingerprinted or cached by repository. Imports are what a run pays before it
reads a byte, so this is checked by name, not timed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from documents import STORE

HEAVY = ("pyspark", "jsonschema", "fastjsonschema", "hashlib", "ruamel")

PROBE = """
import json, sys
from linter.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), file=sys.stderr)
"""


def loaded_modules(tmp_path: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, "check", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
                               "EXLINT_CACHE_DIR": str(tmp_path / "cache")})
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_one_file_check_imports_nothing_heavy(tmp_path):
    (tmp_path / "store.yaml").write_text(STORE.format(name="PFDB-A", server="EX10-A"))
    for _ in range(2):  # cold, then with the parsed packs cached
        loaded = loaded_modules(tmp_path, "store.yaml")
        assert "linter" in loaded and not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_an_invalid_document_still_gets_jsonschema_explanations(tmp_path):
    (tmp_path / "store.yaml").write_text(STORE.format(name="PFDB-A", server="EX10-A") + "  bogus: 1\n")
    assert "jsonschema" in loaded_modules(tmp_path, "store.yaml")
