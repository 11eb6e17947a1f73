"""Derived fields are computed in the order of what they read (tables.derived_plan):
the Spark model builds them in that order, so no derived field reads a column
that does not exist yet; a cycle is an error, never a silent NULL."""
from __future__ import annotations

from dataclasses import replace

import pytest

from linter.model.tables import derived_plan, derived_reads, load_tables


def _positions(plan):
    return {(table, field): (i, j) for i, (table, fields) in enumerate(plan) for j, field in enumerate(fields)}


def test_every_derived_field_of_the_model_comes_after_what_it_reads():
    tables = load_tables()
    plan = derived_plan(tables)
    assert [t for t, _ in plan].count("Server") == 1 and {t for t, _ in plan} == set(tables)
    where = _positions(plan)
    assert set(where) == {(t.name, f) for t in tables.values() for f in t.derived}
    reads_any = False
    for table in tables.values():
        for field, reads in derived_reads(tables, table).items():
            for needed in reads:
                reads_any = True
                assert where[needed] < where[(table.name, field)], (needed, table.name, field)
    assert reads_any, "the model's connectors read server.is_edge: the reads should be found"
    assert ("Server", "is_edge") in derived_reads(tables, tables["ReceiveConnector"])[
        "effective_connection_timeout"]


def _with(tables, name, derived):
    return {**tables, name: replace(tables[name], derived=derived)}


def test_fields_written_before_what_they_read_are_reordered():
    tables = _with(load_tables(), "Server", {"c": "b + 1", "b": "a * 2", "a": "version"})
    fields = dict(derived_plan(tables))["Server"]
    assert fields == ["a", "b", "c"]


def test_a_cycle_is_an_error_naming_it():
    tables = _with(load_tables(), "Server", {"a": "b + 1", "b": "a + 1"})
    with pytest.raises(ValueError, match=r"cycle: Server\.a -> Server\.b -> Server\.a"):
        derived_plan(tables)


def test_tables_whose_fields_must_interleave_are_an_error():
    from linter.model.tables import FieldSpec, TableSpec

    def table(name, other, derived):
        ref = FieldSpec("peer", ("spec", "peer"), "name", ref=other)
        return TableSpec(name, name, None, None, ("metadata", "name"), {"peer": ref}, derived)

    # A.x reads B.y, B.z reads A.w: neither table can be computed whole before the other
    tables = {"A": table("A", "B", {"w": "1", "x": "peer.y"}), "B": table("B", "A", {"y": "2", "z": "peer.w"})}
    with pytest.raises(ValueError, match="derived fields of A and B read each other"):
        derived_plan(tables)
    # without B.z, B is simply computed first
    tables["B"] = table("B", "A", {"y": "2"})
    assert derived_plan(tables) == [("B", ["y"]), ("A", ["w", "x"])]
