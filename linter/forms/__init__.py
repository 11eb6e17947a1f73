"""Check forms: one module per form, holding side by side its keys and their
validation (``parse``), its evaluation by the local engine (``local``) and its
Spark SQL (``spark``; predicates: ``spark_batch``, all of a table's predicate
checks in one pass). Rule packs, both engines, ``explain`` and the docs read
this registry; adding a form is one module here plus its docs
(docs/rule-packs.md, "Adding a form"). The two engines must give the same
findings for every form (tests/spark/test_parity.py, test_differential.py)."""
from __future__ import annotations

from linter.forms import builtin, group, minority, pairs, predicate, reference, unique

FORMS = {module.NAME: module for module in (predicate, unique, reference, group, minority, pairs, builtin)}
# the keys every check may have, whatever its form
COMMON_KEYS = ("form", "table", "where", "when", "field", "fields", "each", "message", "severity_when")
CHECK_KEYS = frozenset(COMMON_KEYS).union(*(module.KEYS for module in FORMS.values()))
