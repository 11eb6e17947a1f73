"""Plain safe YAML loading with the C parser when available (rule packs, tables,
configuration): these are trusted-shape files read on every start-up."""
from __future__ import annotations

import yaml

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


def load(text):
    return yaml.load(text, Loader=_Loader)


def load_all(text):
    return [d for d in yaml.load_all(text, Loader=_Loader)]
