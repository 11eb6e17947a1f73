"""Every rule query is code Spark can compile. An expression Spark cannot generate
code for (a CodegenFallback: ``array_sort`` with its comparator lambda, say) runs
interpreted, row by row, and takes the whole operator holding it out of the
generated code: RTE005's pairs sorted each folder's replica sites with
``array_sort``, a second of a warm 10,000-server run (docs/spark.md, "Code Spark
cannot compile"). Only aggregate functions Spark has no code for are left
(``collect_list``, ``collect_set``: their operators, windows and sort aggregates,
run without generated code anyway)."""
from __future__ import annotations

from pathlib import Path

from linter.config import Config
from linter.engines.spark import job
from linter.engines.spark.inventory import discover_inputs
from linter.engines.spark.sqltext import q
from linter.policy.packs import load_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = load_rules()
INTERPRETED_AGGREGATES = {"CollectList", "CollectSet"}


def _interpreted(spark, plan) -> set[str]:
    """The class names of the CodegenFallback expressions anywhere in ``plan``."""
    fallback = spark.sparkContext._jvm.java.lang.Class.forName(
        "org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback")
    found: set[str] = set()

    def expressions(expression) -> None:
        if fallback.isInstance(expression):
            found.add(expression.getClass().getSimpleName())
        children = expression.children()
        for index in range(children.size()):
            expressions(children.apply(index))

    def nodes(node) -> None:
        listed = node.expressions()
        for index in range(listed.size()):
            expressions(listed.apply(index))
        children = node.children()
        for index in range(children.size()):
            nodes(children.apply(index))

    nodes(plan)
    return found


def test_rule_queries_hold_no_expression_spark_runs_interpreted(spark):
    run = job.run(spark, discover_inputs([ROOT / "samples" / "estate"]), RULES, Config())
    try:
        model = run.model
        parts, failures = job.rule_findings(model, RULES)
        assert parts and failures == []
        seen: set[str] = set()
        for part in parts:
            plan = spark.sql(f"SELECT * FROM ({part}) AS {q(model.alias())}")._jdf.queryExecution().optimizedPlan()
            found = _interpreted(spark, plan)
            seen |= found
            assert found <= INTERPRETED_AGGREGATES, (found, part[:300])
        # the census sees what it looks for: the unique and group checks' windows
        assert seen == INTERPRETED_AGGREGATES
    finally:
        run.close()


def test_the_census_finds_an_interpreted_expression(spark):
    plan = spark.sql("SELECT array_sort(array('b', 'a'), (l, r) -> CASE WHEN l < r THEN -1 ELSE 1 END) AS s, "
                     "sort_array(array('b', 'a')) AS t")._jdf.queryExecution().analyzed()
    assert _interpreted(spark, plan) == {"ArraySort"}
