"""The item arrays of one list field (Model.item_array_view) are gathered in one
pass: every path the rules ask of PublicFolder.replicas shares one explode and
one grouping (ItemArrays), and each path's view holds the same rows it held when
it was built alone; lists whose hashes collide keep their own values. test_parity.py
proves the findings; this holds the pass."""
from __future__ import annotations

from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.model import ItemArrays
from linter.policy.packs import load_rules

REPO = Path(__file__).resolve().parents[2]
RULES = load_rules()
SAMPLE = REPO / "samples" / "inventory" / "estate.jsonl"


def _rows(spark, view: str) -> list:
    return sorted((row["_k_est"], tuple(row["_k_list"]), tuple(row["_k_rec"]["v"]))
                  for row in spark.table(view).collect())


def _replica_paths(model) -> dict:
    """Each path the rules asked of PublicFolder.replicas -> its view."""
    return {key[2]: view for key, (view, _) in model._items.items()
            if key[0] == model.views["PublicFolder"] and key[1] == "replicas"}


def _built_alone(model, path: tuple, label: str) -> str:
    """The view of ``path`` built by an ItemArrays of its own."""
    arrays = ItemArrays(model, "PublicFolder", "replicas")
    name = model._view_name(f"PublicFolder_replicas_{label}")
    arrays.add(name, path)
    arrays.build()
    return name


def test_the_paths_of_one_list_are_gathered_once_and_each_holds_its_own_values(spark, monkeypatch):
    passes = []  # (table, list field, number of paths) of each pass the run made
    build = ItemArrays.build

    def counted(arrays):
        passes.append((arrays.table, arrays.field_name, len(arrays.values)))
        return build(arrays)

    monkeypatch.setattr(ItemArrays, "build", counted)
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        model = run.model
        paths = _replica_paths(model)
        assert len(paths) >= 2, paths  # the rules ask several paths of the replicas
        # one pass for the whole catalog: a check that analysed SQL reading an item
        # array while the rules were compiled built it early, and the paths asked
        # after it took a second pass (RTE005's reach rows, session 50)
        assert passes == [("PublicFolder", "replicas", len(paths))], passes
        gathered = [name for name in model.registered if "_PublicFolder_replicas_items_all_" in name]
        assert len(gathered) == 1, gathered
        assert not model._item_groups  # every named view was built
        for path, view in paths.items():
            assert _rows(spark, view) == _rows(spark, _built_alone(model, path, "alone")), path
    finally:
        run.close()


def test_lists_whose_hashes_collide_keep_their_own_values(spark, monkeypatch):
    # a list's items carry its hash and its rank among the lists of that hash, not the
    # list: with a "hash" every list of one length shares, the ranks alone tell the
    # lists apart, and every view holds what the real hash gives
    run = job.run(spark, discover_inputs([SAMPLE]), RULES, Config())
    try:
        model = run.model
        paths = _replica_paths(model)
        lengths = {row[0] for row in spark.sql(f"SELECT DISTINCT size(`replicas`) FROM {model.views['PublicFolder']} "
                                               f"WHERE size(`replicas`) > 0").collect()}
        lists = spark.sql(f"SELECT count(DISTINCT `replicas`) FROM {model.views['PublicFolder']} "
                          f"WHERE size(`replicas`) > 0").collect()[0][0]
        assert lists > 2 * len(lengths)  # many lists share a length, so a "hash" of it collides
        monkeypatch.setattr(ItemArrays, "LIST_HASH", "CAST(size({}) AS BIGINT)")
        for path, view in paths.items():
            assert _rows(spark, view) == _rows(spark, _built_alone(model, path, "colliding")), path
    finally:
        run.close()
