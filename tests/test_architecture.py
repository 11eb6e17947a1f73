"""The package's shape: no import cycles between exlint's modules (counting the
imports inside functions, which only hide a cycle until the call), and the leaf
modules that both sides of a former cycle share import nothing of exlint's."""
from __future__ import annotations

import ast
from pathlib import Path

import linter

PACKAGE = Path(linter.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["linter", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _package_of(name: str, path: Path) -> list[str]:
    return name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]


def _runs(tree: ast.AST):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (never run)."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                pending.extend(child.orelse)
                continue
            pending.append(child)


def import_graph() -> dict[str, set[str]]:
    """Module -> the exlint modules it imports anywhere in its text (inside
    functions too; not under ``if TYPE_CHECKING:``, which never runs)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in _runs(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    package = _package_of(name, path)
                    base = package[: len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target not in modules:
                    continue
                for alias in node.names:  # `from linter.x import y` where y is a module
                    sub = f"{target}.{alias.name}"
                    graph[name].add(sub if sub in modules else target)
    for name in graph:
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    # cli.py registers `estate` from inside a function: that edge must be seen
    assert "linter.engines.spark.command" in graph["linter.cli"]
    assert "linter.options" in graph["linter.engines.spark.command"]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles (move what both sides need into a leaf module): " + "; ".join(
        " <-> ".join(component) for component in found)


def test_shared_leaf_modules_import_nothing_of_exlints_but_leaves():
    graph = import_graph()
    for leaf, allowed in {"linter.options": {"linter.textsafe"}, "linter.suffixes": set(),
                          "linter.forms.errors": {"linter.policy.expr"},
                          "linter.engines.scope": {"linter.model.tables"},
                          "linter.loading.documents": {"linter.findings"}, "linter.resources": set()}.items():
        assert graph[leaf] <= allowed, f"{leaf} imports {sorted(graph[leaf] - allowed)}"


def test_each_form_is_one_module_with_its_keys_local_and_spark_halves():
    from linter.forms import FORMS

    assert set(FORMS) == {"predicate", "unique", "reference", "group", "minority", "pairs", "builtin"}
    for name, module in FORMS.items():
        assert module.__name__ == f"linter.forms.{name}" and module.NAME == name
        assert isinstance(module.KEYS, tuple) and isinstance(module.WHEN_REQUIRED, bool)
        assert callable(module.local)
        assert callable(module.spark_batch if name == "predicate" else module.spark)
    graph = import_graph()
    # the engines dispatch through the registry, never name a form's function themselves
    assert "linter.forms" in graph["linter.engines.local"] and "linter.forms" in graph["linter.engines.spark.job"]
    # a form's Spark half loads the SQL compiler only when called (exlint check never loads it)
    import subprocess
    import sys

    code = ("import sys, linter.policy.packs, linter.engines.local; "
            "print(sorted(m for m in sys.modules if m.startswith('linter.engines.spark')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
