"""How exlint compares names: case-insensitively (input-model.md), as one key.

``str.lower`` alone is not case-insensitive for every script: it lowers a word-final
capital sigma to the final form (``ΟΔΟΣ`` -> ``οδος``) while a typed small sigma
stays ``σ`` (``οδοσ``), so two spellings Exchange treats as one name would be two
keys. The key is the lower-cased text with the final sigma folded to ``σ``, which
Spark SQL states as ``translate(lower(x), 'ς', 'σ')`` (name_key_sql) for the few
places the Spark engine lower-cases a name itself. (Full case folding would also
make ``ß`` equal ``ss``, which Active Directory does not, and Spark has no
``casefold``.) Fingerprints keep plain ``lower``: baselines written before stay valid.
"""
from __future__ import annotations

FINAL_SIGMA, SIGMA = "\u03c2", "\u03c3"


def name_key(text: str) -> str:
    return text.lower().replace(FINAL_SIGMA, SIGMA)


def name_key_sql(column: str) -> str:
    """name_key of a Spark SQL expression."""
    return f"translate(lower({column}), '{FINAL_SIGMA}', '{SIGMA}')"
