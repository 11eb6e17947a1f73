"""A record's fields filled by the per-table plan (records._plan, _fill_fields: each
mapping read once, absent fields from precomputed columns) give the very columns,
in the very order, that reading each field on its own gives (the reference below,
the way records.py read them before the plan):
on every table, for values written, absent, null, of the wrong type, registry
names in another case, and paths through values that are not mappings."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linter.model import records
from linter.model.tables import load_tables

TABLES = load_tables()
EXAMPLES = max(200, int(os.environ.get("EXLINT_FUZZ_EXAMPLES", "2000")) // 4)

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**12), st.floats(allow_nan=True),
    st.sampled_from(["", "   ", "PF-LON", "pf-lon", "CN=", "CN=PF,OU=x", "24:00:00", "1.00:00:00",
                     "10 MB", "2019", "SE", "MAPI", "mapi", "true", "2026-02-30", "É"]),
)
ITEMS = st.one_of(SCALARS, st.dictionaries(st.sampled_from(["name", "type", "cost", "x"]), SCALARS, max_size=3))
VALUES = st.one_of(SCALARS, st.lists(ITEMS, max_size=4), st.dictionaries(st.text(max_size=3), SCALARS, max_size=2))


def _case_variants(key: str) -> st.SearchStrategy:
    return st.sampled_from([key, key.lower(), key.upper(), key.swapcase(), key + " "])


@st.composite
def items(draw, table):
    """An item of ``table`` whose every field may be written, absent or odd, and whose
    mappings may themselves be absent, null or not mappings."""
    item: dict = {}
    for spec in table.fields.values():
        if draw(st.integers(0, 3)) == 0:
            continue  # absent
        holder = item
        for part in spec.path[:-1]:
            nxt = holder.get(part) if isinstance(holder, dict) else None
            if not isinstance(nxt, dict):
                if draw(st.integers(0, 9)) == 0:  # a mapping that is not one: `registry: [a]`
                    holder[part] = draw(st.one_of(st.none(), st.lists(SCALARS, max_size=2), st.text(max_size=2)))
                    holder = None
                    break
                nxt = holder[part] = {}
            holder = nxt
        if not isinstance(holder, dict):
            continue
        key = spec.path[-1]
        if len(spec.path) > 1 and spec.path[-2] == "registry":
            key = draw(_case_variants(key))  # Windows reads registry names in any case
        holder[key] = draw(VALUES)
    return item


def _reference_raw(spec, item):
    """The value written for ``spec`` in ``item``, walking its path (records._MISSING:
    not written, records._UNREADABLE: through a value that is not a mapping), a registry
    name in another case read as the first key written so."""
    data = item
    for part in spec.path:
        if not isinstance(data, dict):
            return records._UNREADABLE
        data = data.get(part, records._MISSING)
        if data is records._MISSING:
            break
    if data is records._MISSING and len(spec.path) > 1 and spec.path[-2] == "registry":
        holder = records._get(item, spec.path[:-1])
        if isinstance(holder, dict):
            wanted = spec.path[-1].casefold()
            written = next((k for k in holder if isinstance(k, str) and k.casefold() == wanted), None)
            if written is not None:
                return holder[written]
    return data


def _by_field(table, item) -> list:
    record: dict = {}
    for spec in table.fields.values():
        records._fill_value(record, spec, _reference_raw(spec, item))
    return list(record.items())


def _by_plan(table, item) -> list:
    record: dict = {}
    records._fill_fields(record, item, records._plan(table))
    return list(record.items())


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_plan_fills_what_the_field_by_field_reference_fills(data):
    table = data.draw(st.sampled_from([t for t in TABLES.values() if t.fields]))
    item = data.draw(items(table))
    assert _by_plan(table, item) == _by_field(table, item)


def test_every_table_with_fields_is_planned_in_declaration_order():
    for table in TABLES.values():
        planned = [spec.name for group in records._plan(table) for spec, *_ in group.fields]
        assert planned == [spec.name for spec in table.fields.values()], table.name


def test_a_registry_name_in_another_case_is_read_as_the_first_one_written():
    table = TABLES["PublicFolderDatabase"]
    spec = next(s for s in table.fields.values() if len(s.path) > 2 and s.path[-2] == "registry")
    other, again = spec.path[-1].upper(), spec.path[-1].swapcase()
    item = {"spec": {"registry": {other: 5, again: 7}}}
    assert _by_plan(table, item) == _by_field(table, item)
    record: dict = {}
    records._fill_fields(record, item, records._plan(table))
    assert record[spec.name + "__set"] is True


def test_absent_lists_are_fresh_per_record():
    table = next(t for t in TABLES.values() if any(s.is_list for s in t.fields.values()))
    first: dict = {}
    second: dict = {}
    records._fill_fields(first, {}, records._plan(table))
    records._fill_fields(second, {}, records._plan(table))
    lists = [k for k, v in first.items() if isinstance(v, list)]
    assert lists
    for key in lists:
        assert first[key] == second[key] and first[key] is not second[key]
