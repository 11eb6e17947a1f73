"""The `predicate` check form: each record (each list item with `each`, each field with
`fields`) for which `when` holds (see linter.forms)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from linter.engines.scope import derive
from linter.findings import Finding
from linter.policy.locate import field_path

if TYPE_CHECKING:
    from linter.engines.spark.compile import Frame, Scope as SqlScope
    from linter.engines.local import LocalEngine
    from linter.engines.spark.model import Model
    from linter.policy.packs import Check, Rule

NAME = "predicate"
KEYS = ()  # the check keys of this form (beside the keys every check has)
WHEN_REQUIRED = True  # whether a check of this form needs `when`


def parse(check: "Check", merged: dict, ctx: dict, validator, where: str, rule_id: str) -> dict | None:
    """Nothing beyond the keys every check has (table, where, field/fields/each, when)."""
    return None


# -- the local engine ----------------------------------------------------------------------
def local(engine: "LocalEngine", rule: "Rule", check: "Check") -> list[Finding]:
    table = engine.tables[check.table]
    true = engine.holds(check.when)
    out = []
    for record, scope in engine.rows(check, focused=True):
        if check.each:
            spec = table.fields[check.each]
            values = engine.evaluator.field(record, check.each) or []
            texts = record.get(check.each + "__text") or values
            ref = engine.tables[spec.ref] if spec.ref else None
            for index, (value, text) in enumerate(zip(values, texts)):
                inner = derive(scope, item=value, item_text=text, item_table=ref)
                if true(inner):
                    out.append(engine.finding(rule, check, inner, spec.path + (index,)))
        elif check.fields:
            for name in check.fields:
                spec = table.fields.get(name)
                ref = engine.tables[spec.ref] if spec is not None and spec.ref else None
                inner = derive(scope, value=engine.evaluator.field(record, name), value_text=record.get(name + "__text"),
                                value_table=ref)
                if true(inner):
                    out.append(engine.finding(rule, check, inner, field_path(table, name)))
        elif true(scope):
            out.append(engine.finding(rule, check, scope, field_path(table, check.field)))
    return out


# -- Spark SQL -----------------------------------------------------------------------------
# characters of checks' SQL in one projection where Spark generates code (spark_batch):
# 73,000 (BKF004 and BKF005 together) is past the JVM's limit, 42,000 (BKF004) within it
BATCH_SQL = 50_000


def spark_batch(model: Model, table_name: str, checks: list, failures: list) -> list[str]:
    """Queries for all predicate checks of one table: one per `each` list (plain and
    `fields` checks share the one without a list)."""
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Bound, CompileError, explode_items, Frame, Rec, Scope, STR, Val
    from linter.engines.spark.forms import fired
    from linter.engines.spark.sqltext import q

    table = model.tables[table_name]
    # without generated code (small inventories) one projection is one scan, whatever its size
    limit = BATCH_SQL if model.spark.conf.get("spark.sql.codegen.wholeStage", "true") == "true" else None
    groups: dict = {}
    for rule, check in checks:
        groups.setdefault(check.each, []).append((rule, check))
    out = []
    for each, members in groups.items():
        frame = Frame.over(model, table_name)
        scope = Scope(Rec("", table))
        position = None
        if each:
            spec = table.fields[each]
            frame, position, iv, it = explode_items(frame, q(each), q(each + "__text"))
            ref = model.tables[spec.ref] if spec.ref else None
            scope = replace(scope, item=Bound(Val(q(iv), STR, q(it), STR, name=iv), ref))
        structs = []
        for rule, check in members:
            try:
                structs.extend(_spark_structs(frame, rule, check, scope, position))
            except CompileError as exc:
                failures.append((rule.id, str(exc)))
        # one projection per batch of at most BATCH_SQL characters of checks: past the
        # JVM's 64 KB a method is not compiled, and Spark runs the whole projection
        # without generated code (the independent 10,000 servers' stores, 65 checks)
        batch: list[str] = []
        for struct in structs:
            if batch and limit is not None and sum(map(len, batch)) + len(struct) > limit:
                out.append(fired(frame, batch))
                batch = []
            batch.append(struct)
        if batch:
            out.append(fired(frame, batch))
    return out


def _spark_structs(frame: "Frame", rule: "Rule", check: "Check", scope: "SqlScope", position) -> list[str]:
    # the SQL compiler is loaded only by the Spark engine (exlint check never loads it)
    from dataclasses import replace

    from linter.engines.spark.compile import Bound
    from linter.engines.spark.forms import fires_when, finding, Index

    model = frame.model
    table = model.tables[check.table]
    where = fires_when(frame, check.where, scope)
    if check.each:
        spec = table.fields[check.each]
        fires = f"{where} AND {fires_when(frame, check.when, scope)}"
        return [f"CASE WHEN {fires} THEN {finding(frame, rule, check, scope, spec.path + (Index(position),))} END"]
    if check.fields:
        structs = []
        for name in check.fields:
            spec = table.fields.get(name)
            ref = model.tables[spec.ref] if spec is not None and spec.ref else None
            inner = replace(scope, value=Bound(frame.field(scope.record, name), ref))
            fires = f"{where} AND {fires_when(frame, check.when, inner)}"
            structs.append(f"CASE WHEN {fires} THEN {finding(frame, rule, check, inner, field_path(table, name))} END")
        return structs
    fires = f"{where} AND {fires_when(frame, check.when, scope)}"
    return [f"CASE WHEN {fires} THEN {finding(frame, rule, check, scope, field_path(table, check.field))} END"]
