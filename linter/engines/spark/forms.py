"""What every form's Spark SQL shares (the forms themselves: linter/forms/):
where a finding points (candidate paths, resolved against the record's ``_marks``
by ``place``), its struct (rule, severity, message), and ``fired``, which turns
the structs a row raises into fired rows (FIRED columns) that ``place`` makes
findings (records.FINDING columns).

Predicate checks of one table are evaluated together (linter.forms.predicate):
one SELECT builds an array of the findings each row raises (one element per
check and field, null when it does not fire) and ``inline`` explodes it
(Deequ-style: one pass over the table for all its predicate rules).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from linter.engines.spark.compile import Frame, Rec, Scope, display, strict_true
from linter.engines.spark.model import Model
from linter.engines.spark.records import POSITION
from linter.engines.spark.sqltext import q, string
from linter.findings import format_path
from linter.policy.locate import REGISTRY

if TYPE_CHECKING:
    from linter.policy.packs import Check, Rule


@dataclass(frozen=True)
class Index:
    """A list index held in a column (the position of an exploded item)."""
    column: str


# -- where a finding points, what it says ------------------------------------------------------------
def _suffix(parts, leading: bool) -> list[str]:
    """SQL pieces of format_path(parts), appended to a non-empty prefix when ``leading``."""
    pieces = []
    started = leading
    for part in parts:
        if isinstance(part, Index):
            pieces += ["'['", f"CAST({q(part.column)} AS STRING)", "']'"]
        elif isinstance(part, int):
            pieces.append(string(f"[{part}]"))
        else:
            pieces.append(string(("." if started else "") + str(part)))
        started = True
    return pieces


def candidates(rec: Rec, relative: tuple) -> str:
    """SQL array of the path and its ancestors, deepest first, as keys of the
    record's ``_marks`` (linter.policy.locate.candidate_paths)."""
    table = rec.table
    out = []
    for cut in range(len(relative), -1, -1):
        if table.each:
            pieces = [q(rec.prefix + "_prefix")] + _suffix(relative[:cut], True)
        else:
            pieces = _suffix(relative[:cut], False) or ["''"]
        out.append(pieces[0] if len(pieces) == 1 else f"concat({', '.join(pieces)})")
    if table.each:
        out += [string(format_path(table.each[:cut])) for cut in range(len(table.each), -1, -1)]
    return f"array({', '.join(out)})"


def place(model: Model, fired_view: str) -> str:
    """Findings (records.FINDING columns) of the fired rows in ``fired_view``
    (FIRED columns): each placed on the record it names by ``_rid``. The first of
    its candidate paths written in the record's ``_marks`` gives path, line and
    column (linter.policy.locate.locate); none: the document's own position; no
    record (``_rid`` NULL): no position.

    Rule queries carry the record's id rather than its position columns (``_marks``,
    a map of arrays, above all): every operator Spark compiles for them wrote code
    copying each column it carries (docs/spark.md, session 34). The positions of the
    records that fired are picked from all records by a semi join against their ids
    (broadcast, as lookups are: a few bytes per finding; the small one-partition layout
    joins without), and joined to the findings, both small."""
    var = model.lambda_var()
    a = model.alias()
    ids = f"SELECT `_est` AS {q(a + 'ie')}, `_rid` AS {q(a + 'ir')} FROM {q(fired_view)} WHERE `_rid` IS NOT NULL"
    picked = (f"SELECT {model.broadcast_hint(a + 'ids')}`_est` AS {q(a + 'pe')}, `_rid` AS {q(a + 'pr')}, "
              f"{', '.join(q(c) for c in POSITION)} FROM {q(model.positions)} AS {q(a + 'all')} "
              f"LEFT SEMI JOIN ({ids}) AS {q(a + 'ids')} ON `_est` = {q(a + 'ie')} AND `_rid` = {q(a + 'ir')}")
    joined = (f"SELECT * FROM {q(fired_view)} AS {q(a + 'f')} LEFT JOIN ({picked}) AS {q(a + 'p')} "
              f"ON {q(a + 'f')}.`_est` = {q(a + 'pe')} AND {q(a + 'f')}.`_rid` = {q(a + 'pr')}")
    key = model.lambda_var()
    # a candidate as written (linter.policy.locate.written_path): itself, or a registry value's key in another case
    registry = string(REGISTRY)
    written = (f"CASE WHEN element_at(`_marks`, {var}) IS NOT NULL THEN {var} "
               f"WHEN substr({var}, 1, {len(REGISTRY)}) = {registry} THEN filter(map_keys(`_marks`), {key} -> "
               f"substr({key}, 1, {len(REGISTRY)}) = {registry} AND lower({key}) = lower({var}))[0] END")
    hit = f"filter(transform(`cands`, {var} -> {written}), {var} -> {var} IS NOT NULL)[0]"
    found = f"SELECT *, {hit} AS {q(a + 'hit')} FROM ({joined}) AS {q(a + 'in')}"
    mark = f"element_at(`_marks`, {q(a + 'hit')})"
    has_entity = "(`_entity` IS NOT NULL AND `_entity` <> '')"
    return (f"SELECT `_est`, `rule`, `severity`, `message`, `_file` AS `file`, "
            f"CAST(coalesce({mark}[0], `_line`) AS BIGINT) AS `line`, "
            f"CAST(coalesce({mark}[1], `_column`) AS BIGINT) AS `column`, "
            f"nullif({q(a + 'hit')}, '') AS `path`, "
            f"CASE WHEN {has_entity} THEN `_kind` END AS `entity_kind`, "
            f"CASE WHEN {has_entity} THEN `_entity` END AS `entity_name` FROM ({found}) AS {q(a + 'x')}")


def finding(frame: Frame, rule: Rule, check: Check, scope: Scope, relative: tuple) -> str:
    """The finding struct of the scope's record (LocalEngine.finding); its
    position is resolved from ``cands`` after the explode (see ``place``)."""
    severity = string(rule.severity)
    levels = [(level, check.severity_when[level]) for level in ("error", "warning", "info")
              if level in check.severity_when]
    if levels:
        cases = " ".join(f"WHEN {strict_true(frame.compile(node, scope))} THEN {string(level)}" for level, node in levels)
        severity = f"CASE {cases} ELSE {severity} END"
    shown = {text: display(frame.nav(node.args, scope)) for text, node in check.placeholders}
    # Check.fill's one pass: literal pieces and displays side by side
    pieces = [string(piece) if i % 2 == 0 else shown[piece] for i, piece in enumerate(check.template) if piece or i % 2]
    message = pieces[0] if len(pieces) == 1 else f"concat({', '.join(pieces)})"
    return (f"named_struct('rule', {string(rule.id)}, 'severity', {severity}, 'message', {message}, "
            f"'cands', {candidates(scope.record, relative)})")


# what a rule query yields: a finding, the record it is about (``_rid``), and the
# paths it may point at (``cands``); ``place`` gives it its position
FIRED = ["_est", "_rid", "rule", "severity", "message", "cands"]


def fired(frame: Frame, structs: list[str]) -> str:
    """Fired rows (FIRED columns) of the structs that fired
    (``structs``: CASE WHEN <fires> THEN struct END, one per check)."""
    var = frame.model.lambda_var()
    raised = f"filter(array({', '.join(structs)}), {var} -> {var} IS NOT NULL)"
    return frame.select(["`_est`", "`_rid`", f"inline({raised})"])


def fires_when(frame: Frame, node, scope: Scope) -> str:
    """SQL true where ``node`` holds (Kleene: unknown is not true); no node: true."""
    return strict_true(frame.compile(node, scope)) if node is not None else "true"
