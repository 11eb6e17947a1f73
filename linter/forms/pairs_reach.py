"""The reach index of a `pairs` check with a profile (linter.forms.pairs).

A pairs `when` runs once per record and profile of its partners. When the
profile is where a partner is (RTE005: the AD site of a store) and `when` holds
only if that place is far from every item of a list of the record (every replica
of a folder), pairing each record with every profile is records x sites x items
of work: an independently generated estate of 10,000 servers (1,429 sites, 72,000
folders of up to 60 replicas) took 31 minutes on Spark, 1,000 servers 30 s of a 40 s
local `check`. Such a `when` has a top-level conjunct of one of the shapes

    not any(L, site_cost(profile.P, item.X) <= K)      (or < K, or K >= ..., or
    all(L, site_cost(profile.P, item.X) > K)            site_cost(item.X, profile.P))

and it is true for a profile only if, for every item of L (items that are
missing are skipped, as any/all skip them), the item's site is known and the
profile's site is beyond K from it. The sites beyond K from one site come from
the site graph once per site (linter.site_reach, without all-pairs costs); a
record's candidate profiles are the intersection of those sets over its items'
sites (usually empty after the first: in a connected estate every site is within
reach of most). The index decides the conjunct: it holds for exactly the
candidates whose site the graph knows, so `when` runs on those without it
(``rest``) and no site_cost is computed, and on the others (a profile site the
graph does not know) whole. The findings are the same as `when` over every
profile (tests/test_pairs_reach.py compares both on random site graphs;
tests/spark/test_reach_parity.py the engines).

The verdict of the conjunct for one profile value p and item sites S:
- no item (or every item missing): any() is false, the conjunct true for every p;
- an item whose site is unknown: its cost is unknown, so the conjunct is never true;
- p unknown: every cost is unknown, never true;
- otherwise true iff no s in S has site_cost(p, s) within K.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from linter.engines.scope import Scope, derive
from linter.policy.expr import Node
from linter.topology import UNREACHABLE

if TYPE_CHECKING:
    from linter.engines.local import LocalEngine

_MIRROR = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
_NEGATE = {">": "<=", ">=": "<"}  # all(L, cost > K) is not any(L, cost <= K)


@dataclass(frozen=True)
class Reach:
    term: Node  # the conjunct of `when`
    field: str  # the record's list field (L)
    item_path: tuple  # from the item to its site (X), () for the item itself
    profile: str  # the profile value holding the partner's site (P)
    op: str  # "<=" or "<": how close a site must be to count as within reach
    limit: int  # K
    profile_first: bool  # site_cost(profile.P, item.X) rather than site_cost(item.X, profile.P)

    @property
    def threshold(self) -> int:
        """The largest cost within reach (costs are whole numbers)."""
        return self.limit if self.op == "<=" else self.limit - 1


def rest(when: Node, reach: Reach) -> Node | None:
    """``when`` without the reach term: what runs on the profiles the index decides."""
    if when is reach.term:
        return None
    others = tuple(term for term in when.args if term is not reach.term)
    return others[0] if len(others) == 1 else Node("and", others)


def find(when: Node | None) -> Reach | None:
    """The first top-level conjunct of ``when`` that is a reach term, or None."""
    if when is None:
        return None
    for term in (when.args if when.op == "and" else (when,)):
        reach = _term(term)
        if reach is not None:
            return reach
    return None


def _term(term: Node) -> Reach | None:
    if term.op == "not" and _is_call(term.args[0], "any"):
        negated = False
        call = term.args[0]
    elif _is_call(term, "all"):
        negated = True
        call = term
    else:
        return None
    listed, cond = call.args[1], call.args[2]
    if listed.op != "field" or len(listed.args) != 1 or cond.op != "cmp":
        return None
    op, left, right = cond.args
    if _is_call(left, "site_cost") and _int_const(right):
        cost, limit = left, right.args[0]
    elif _is_call(right, "site_cost") and _int_const(left):
        cost, limit, op = right, left.args[0], _MIRROR[op] if op in _MIRROR else op
    else:
        return None
    if negated:  # all(L, cost > K): within reach is cost <= K
        op = _NEGATE.get(op)
    if op not in ("<=", "<"):
        return None
    if (limit if op == "<=" else limit - 1) >= UNREACHABLE:
        return None  # sites no link joins would be within reach: left to `when`
    a, b = cost.args[1], cost.args[2]
    if _profile_field(a) and _item_field(b):
        return Reach(term, listed.args[0], b.args[1:], a.args[1], op, limit, True)
    if _item_field(a) and _profile_field(b):
        return Reach(term, listed.args[0], a.args[1:], b.args[1], op, limit, False)
    return None


def _is_call(node: Any, name: str) -> bool:
    return isinstance(node, Node) and node.op == "call" and node.args[0] == name \
        and len(node.args) == (3 if name in ("any", "all", "site_cost") else len(node.args))


def _int_const(node: Node) -> bool:
    return node.op == "const" and isinstance(node.args[0], int) and not isinstance(node.args[0], bool)


def _profile_field(node: Node) -> bool:
    return node.op == "field" and len(node.args) == 2 and node.args[0] == "profile"


def _item_field(node: Node) -> bool:
    return node.op == "field" and node.args[0] == "item"


# -- the local engine ----------------------------------------------------------------------
class LocalIndex:
    """The profiles a record's `when` can fire for, for the local engine (``candidates``).

    ``pool``: a join key's profiles, each (values, members), in their order."""

    def __init__(self, engine: "LocalEngine", reach: Reach):
        self.engine = engine
        self.reach = reach
        self.graph = engine.estate.graph
        self._item_node = Node("field", ("item",) + reach.item_path)
        self._item_sites: dict = {}  # (type, item value) -> its site
        self._beyond: dict = {}  # site -> the graph's sites beyond reach of it
        self._indexes: dict = {}  # id(pool) -> (pool, by value, graph values, always)
        self._memo: dict = {}  # (id(pool), item sites) -> candidates

    def candidates(self, pool: list, scope: "Scope") -> list[tuple[dict, list, bool]]:
        """The profiles of ``pool`` the reach term may hold for, in their order, each
        (values, members, decided): decided where the index knows the term holds
        (`when` then runs without it), else the term is left to `when` (a value that
        is not a site name, a profile site the graph does not know)."""
        evaluator = self.engine.evaluator
        values, texts, item_table = evaluator._list((self.reach.field,), scope)
        sites = set()
        for value, text in zip(values, texts):
            if value is None:
                continue  # any/all skip a missing item
            memo_key = (type(value), value)
            try:
                site = self._item_sites[memo_key]
            except KeyError:
                site = self._item_sites[memo_key] = evaluator.eval(
                    self._item_node, derive(scope, item=value, item_text=text, item_table=item_table))
            except TypeError:  # an unhashable item: the term is left to `when`
                return [(v, m, False) for v, m in pool]
            if site is None:
                return []  # an unknown cost: the term is never true
            if not isinstance(site, str):
                return [(v, m, False) for v, m in pool]
            sites.add(site)
        if not sites:
            return [(v, m, True) for v, m in pool]  # no item: any() is false, the term true for every profile
        memo_key = (id(pool), frozenset(sites))
        found = self._memo.get(memo_key)
        if found is None:
            found = self._memo[memo_key] = self._candidates(pool, sites)
        return found

    def _candidates(self, pool: list, sites: set) -> list:
        _, by_value, graph_values, always = self._index(pool)
        cand = graph_values
        for site in sorted(sites):
            cand = cand & self._beyond_of(site)
            if not cand:
                break
        decided = {position for value in cand for position in by_value[value]}
        return [(pool[position][0], pool[position][1], position in decided)
                for position in sorted(always + list(decided))]

    def _index(self, pool: list):
        entry = self._indexes.get(id(pool))
        if entry is None or entry[0] is not pool:
            by_value: dict = {}
            always = []  # values the graph does not know: left to `when`
            for position, (values, _) in enumerate(pool):
                value = values.get(self.reach.profile)
                if value is None:
                    continue  # an unknown site: never true when the record has items
                if isinstance(value, str) and value in self.graph.number:
                    by_value.setdefault(value, []).append(position)
                else:
                    always.append(position)
            entry = self._indexes[id(pool)] = (pool, by_value, frozenset(by_value), always)
        return entry

    def _beyond_of(self, site: str) -> frozenset:
        beyond = self._beyond.get(site)
        if beyond is None:
            beyond = self._beyond[site] = self.graph.beyond(site, self.reach.threshold)
        return beyond


# -- Spark SQL -----------------------------------------------------------------------------
def spark_by_profile(model, reach: Reach, distinct: str, columns: list[str], key: str, sites: str,
                     profiles: str, est: str, profile_key: str, profile_columns: list[str], site: str) -> str | None:
    """The rows of ``distinct`` (``columns``: its columns, unique by estate and
    ``_rid``; ``key``: the join key; ``sites``: the sorted distinct sites of the
    record's items, missing entries left out) each joined with the profiles for
    which the reach term holds (``profiles``: ``est``, ``profile_key``,
    ``profile_columns``, the reach site in ``site``), as ``LocalIndex.candidates``
    decides them: `when` then runs without the term (``rest``), so no site_cost is
    read and no all-pairs cost is built. None without a site graph.

    Every step is an equi-join with a small table, never a per-row lookup in an
    array of the graph: a joined struct is copied into each row wherever Spark runs
    an operator outside its generated code (higher-order functions are such), and
    the graph's arrays are megabytes at a thousand sites. A profile's site is
    numbered by the graph (-1: a site the graph does not know, a candidate where no
    item is at that very site; -2: none, a candidate only where the record has no
    item); each item site's far or near array (Model.reach_view) joins by name; a
    record's candidates are the intersection of its far arrays without its near
    ones, exploded and joined to its key's profiles (or, with near arrays only, its
    key's profiles not in them)."""
    from linter.engines.spark.sqltext import q

    if model.graph_view is None:
        return None
    names = model.site_numbers()
    a = model.alias()
    pn, number = q(a + "pn"), q(a + "n")
    p, n, d, e, g, s = (q(a + x) for x in ("p", "n0", "d", "e", "g", "s"))
    numbered = model._view_name("reach_profiles")
    picked = ", ".join(f"{p}.{q(c)}" for c in [est, profile_key] + profile_columns)
    model.sql(f"SELECT {model.broadcast_hint(a + 'n0')}{picked}, CASE WHEN {p}.{q(site)} IS NULL THEN -2 "
              f"ELSE coalesce({n}.`number`, -1) END AS {pn} FROM ({profiles}) AS {p} "
              f"LEFT JOIN {q(names)} AS {n} ON {p}.{q(est)} = {n}.`est` AND {p}.{q(site)} = {n}.`name`"
              ).createOrReplaceTempView(numbered)
    wanted: dict[int, list[int]] = {}
    for row in model.sql(f"SELECT DISTINCT {q(est)} AS `e`, {pn} AS `n` FROM {q(numbered)} WHERE {pn} >= 0").collect():
        wanted.setdefault(row["e"], []).append(row["n"])
    reach_view = model.reach_view(reach, wanted)
    distinct_rows = q(model.kept_view(distinct, "reach_distinct"))  # read twice below
    x = model.lambda_var()
    candidate_rows = f"{q(sites)} IS NOT NULL AND size({q(sites)}) > 0 AND NOT exists({q(sites)}, {x} -> {x} IS NULL)"
    # per record: its item sites' far sets (to intersect) and near sets (to take away);
    # a site the graph does not know has neither (every graph site is beyond it)
    fars, nears = q(a + "fars"), q(a + "nears")
    sets = (f"SELECT {model.broadcast_hint(a + 'g')}{e}.`_est` AS `_se`, {e}.`_rid` AS `_sr`, "
            f"collect_list(CASE WHEN {g}.`far` THEN {g}.`sites` END) AS {fars}, "
            f"flatten(collect_list(CASE WHEN NOT {g}.`far` THEN {g}.`sites` END)) AS {nears} "
            f"FROM (SELECT `_est`, `_rid`, explode({q(sites)}) AS `_site` FROM {distinct_rows} AS `_r` "
            f"WHERE {candidate_rows}) AS {e} LEFT JOIN {q(reach_view)} AS {g} "
            f"ON {e}.`_est` = {g}.`est` AND {e}.`_site` = {g}.`name` GROUP BY {e}.`_est`, {e}.`_rid`")
    row_columns = ", ".join(f"{d}.{q(c)}" for c in columns)
    acc, y = model.lambda_var(), model.lambda_var()
    no_ints = "CAST(array() AS ARRAY<INT>)"
    # Which profiles the term holds for: every profile of the key where the record has
    # no item (missing entries skipped, mode 0); none where an item's site is unknown;
    # else the profiles at a site in every item site's far set and in no near set,
    # and those at a site the graph does not know (-1) but none of the items' sites.
    # With a far set, the candidates are their intersection, exploded (mode 1): each
    # step hashes the shrinking intersection, never the key's profiles (14,454 sites
    # at an independent 100,000 servers: hashed per record, they took minutes per
    # task); with near sets only (a record at sites far from most), every profile of
    # the key not in one (mode 2).
    mode, picked_numbers = q(a + "mode"), q(a + "ns")
    intersection = (f"aggregate(slice({s}.{fars}, 2, size({s}.{fars})), element_at({s}.{fars}, 1), "
                    f"({acc}, {y}) -> array_intersect({y}, {acc}))")
    with_numbers = (f"SELECT {row_columns}, coalesce({s}.{nears}, {no_ints}) AS {nears}, "
                    f"CASE WHEN {q(sites)} IS NULL OR size({q(sites)}) = 0 THEN 0 "
                    f"WHEN NOT ({candidate_rows}) THEN NULL WHEN size({s}.{fars}) > 0 THEN 1 ELSE 2 END AS {mode}, "
                    f"IF(size({s}.{fars}) > 0, array_union(array_except({intersection}, "
                    f"coalesce({s}.{nears}, {no_ints})), array(-1)), NULL) AS {picked_numbers} "
                    f"FROM {distinct_rows} AS {d} LEFT JOIN ({sets}) AS {s} "
                    f"ON {d}.`_est` = {s}.`_se` AND {d}.`_rid` = {s}.`_sr`")
    # a site the graph does not know is 0 from itself and out of reach of every other
    unknown_site = (f"NOT coalesce(array_contains({d}.{q(sites)}, {p}.{q(site)}), false)"
                    if reach.threshold >= 0 else "true")
    out_columns = ", ".join([f"{d}.{q(c)}" for c in columns] + [f"{p}.{q(c)}" for c in [est, profile_key] + profile_columns])
    same_key = f"{d}.`_est` = {p}.{q(est)} AND {d}.{q(key)} = {p}.{q(profile_key)}"
    # read by both branches below: kept, computed once (not a view analysed now: that
    # would build the item arrays it reads before later rules have asked theirs of the
    # same list, each later ask a second pass over the list: Model.kept_view)
    numbered_rows = f"{q(model.kept_view(with_numbers, 'reach_rows'))} AS {q(a + 'nr')}"
    exploded = (f"SELECT {model.join_hint(a + 'p')}{out_columns} FROM (SELECT *, explode({picked_numbers}) AS {number} "
                f"FROM {numbered_rows} WHERE {mode} = 1) AS {d} "
                f"JOIN {q(numbered)} AS {p} ON {same_key} AND {d}.{number} = {p}.{pn} "
                f"AND ({p}.{pn} <> -1 OR {unknown_site})")
    whole_key = (f"SELECT {model.join_hint(a + 'p')}{out_columns} FROM (SELECT * FROM {numbered_rows} "
                 f"WHERE {mode} IN (0, 2)) AS {d} JOIN {q(numbered)} AS {p} ON {same_key} "
                 f"AND ({d}.{mode} = 0 OR ({p}.{pn} >= 0 AND NOT array_contains({d}.{nears}, {p}.{pn})) "
                 f"OR ({p}.{pn} = -1 AND {unknown_site}))")
    return f"{exploded} UNION ALL {whole_key}"
