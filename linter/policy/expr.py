"""The rule expression language: a safe subset of Python syntax, parsed with
``ast`` and compiled to a small tree (IR) that each engine evaluates its own way
(Python closures locally, Column expressions on Spark). Nothing is ever
``eval``-ed.

Semantics follow SQL so both engines agree: a comparison or arithmetic with a
missing value (None) is missing; ``and``/``or``/``not`` use three-valued logic;
a rule fires only when its condition is exactly true.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass

# A rule pack may come from the config repo under review: an expression is
# bounded before it is converted (each engine walks the tree recursively).
MAX_TEXT = 10_000  # characters
MAX_DEPTH = 64  # nested operations
MAX_NODES = 2_000  # syntax nodes
INT64 = 2 ** 63  # constants are 64-bit, as Spark's columns are


class ExprError(ValueError):
    pass


@dataclass(frozen=True)
class Node:
    op: str
    args: tuple = ()

    def __repr__(self) -> str:
        return f"{self.op}{self.args!r}"


# Functions: name -> (min args, max args)
FUNCTIONS = {
    "coalesce": (1, 8),
    "lower": (1, 1),
    "size": (1, 1),
    "written": (1, 1),
    "unread": (1, 1),
    "any": (2, 2),
    "all": (2, 2),
    "count": (1, 2),
    "distinct_count": (2, 2),
    "site_cost": (2, 2),
    "site_group": (1, 1),
    "greatest": (2, 8),
    "least": (2, 8),
}
AGGREGATES = {"any", "all", "count", "distinct_count"}

_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BIN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


_parsed: dict[str, Node] = {}  # Nodes are immutable: the packs repeat many expressions (601 uses, 233 texts)


def parse(text: str) -> Node:
    if not isinstance(text, str) or not text.strip():
        raise ExprError("empty expression")
    node = _parsed.get(text)
    if node is None:
        node = _parsed[text] = _parse_cached(text)
    return node


def _parse_cached(text: str) -> Node:
    from linter.cache import parsed_file_cache

    cache = parsed_file_cache("expressions")
    cached = cache.entries.get(text)
    if cached is not None:
        try:
            return from_json(cached)
        except (TypeError, ValueError, IndexError):
            pass
    node = _parse(text)
    cache.entries[text] = to_json(node)
    cache.dirty = True
    return node


def to_json(node: "Node"):
    return [node.op, [to_json(a) if isinstance(a, Node) else a for a in node.args]]


def from_json(data) -> "Node":
    op, args = data
    if not isinstance(op, str) or not isinstance(args, list):
        raise ValueError("not an expression")
    return Node(op, tuple(from_json(a) if isinstance(a, list) and op != "list" else a for a in args))


def _parse(text: str) -> Node:
    if len(text) > MAX_TEXT:
        raise ExprError(f"expression of {len(text)} characters: at most {MAX_TEXT}; split the rule into checks")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"invalid expression {_quoted(text)}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):  # the parser's own limits
        raise ExprError(f"expression {_quoted(text)} is nested too deeply to read") from None
    _check_size(tree.body, text)
    return _convert(tree.body, text)


def _quoted(text: str) -> str:
    return repr(text) if len(text) <= 80 else repr(text[:77] + "...")


def _check_size(tree: ast.AST, text: str) -> None:
    """ExprError for a tree deeper than MAX_DEPTH or larger than MAX_NODES
    (measured without recursion)."""
    stack = [(tree, 1)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_DEPTH:
            raise ExprError(f"expression {_quoted(text)} nests more than {MAX_DEPTH} operations deep")
        if count > MAX_NODES:
            raise ExprError(f"expression {_quoted(text)} has more than {MAX_NODES} parts; split the rule into checks")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _constant(value, text: str):
    """A constant an expression may hold: None, a boolean, a 64-bit integer, a
    finite number or text (not bytes, complex numbers or ``...``)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not -INT64 <= value < INT64:
            raise ExprError(f"in {_quoted(text)}: integer constant beyond the 64-bit range")
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise ExprError(f"in {_quoted(text)}: unsupported constant {_quoted(repr(value))}")


def _path(node: ast.AST, text: str) -> tuple[str, ...]:
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        return _path(node.value, text) + (node.attr,)
    raise ExprError(f"in {text!r}: only field names and dotted navigation may be used here")


def _convert(node: ast.AST, text: str) -> Node:
    if isinstance(node, ast.Constant):
        return Node("const", (_constant(node.value, text),))
    if isinstance(node, (ast.Name, ast.Attribute)):
        return Node("field", _path(node, text))
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return Node(op, tuple(_convert(v, text) for v in node.values))
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return Node("not", (_convert(node.operand, text),))
        if isinstance(node.op, ast.USub):
            inner = _convert(node.operand, text)
            if inner.op == "const" and isinstance(inner.args[0], (int, float)) and not isinstance(inner.args[0], bool):
                return Node("const", (_constant(-inner.args[0], text),))
            return Node("bin", ("-", Node("const", (0,)), inner))
        raise ExprError(f"in {text!r}: unsupported operator")
    if isinstance(node, ast.BinOp):
        op = _BIN.get(type(node.op))
        if op is None:
            raise ExprError(f"in {text!r}: only +, - and * are supported")
        return Node("bin", (op, _convert(node.left, text), _convert(node.right, text)))
    if isinstance(node, ast.IfExp):
        return Node("if", (_convert(node.test, text), _convert(node.body, text), _convert(node.orelse, text)))
    if isinstance(node, ast.Compare):
        parts = []
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(_compare(op, left, right, text))
            left = right
        return parts[0] if len(parts) == 1 else Node("and", tuple(parts))
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExprError(f"in {text!r}: unknown function; known: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise ExprError(f"in {text!r}: keyword arguments are not supported")
        name = node.func.id
        low, high = FUNCTIONS[name]
        if not low <= len(node.args) <= high:
            raise ExprError(f"in {text!r}: {name}() takes {low}..{high} arguments")
        args = tuple(_convert(a, text) for a in node.args)
        if name in AGGREGATES or name in ("size", "written", "unread"):
            if args[0].op != "field":
                raise ExprError(f"in {text!r}: the first argument of {name}() must be a field")
        return Node("call", (name,) + args)
    if isinstance(node, (ast.List, ast.Tuple)):
        values = []
        for element in node.elts:
            if not isinstance(element, ast.Constant):
                raise ExprError(f"in {text!r}: list literals may hold constants only")
            values.append(_constant(element.value, text))
        return Node("list", tuple(values))
    raise ExprError(f"in {text!r}: unsupported syntax {type(node).__name__}")


def _compare(op: ast.cmpop, left: ast.AST, right: ast.AST, text: str) -> Node:
    if isinstance(op, (ast.Is, ast.IsNot)):
        if not (isinstance(right, ast.Constant) and right.value is None):
            raise ExprError(f"in {text!r}: 'is' compares with None only")
        return Node("isnull" if isinstance(op, ast.Is) else "notnull", (_convert(left, text),))
    if isinstance(op, (ast.In, ast.NotIn)):
        test = Node("in", (_convert(left, text), _convert(right, text)))
        return Node("not", (test,)) if isinstance(op, ast.NotIn) else test
    symbol = _CMP.get(type(op))
    if symbol is None:
        raise ExprError(f"in {text!r}: unsupported comparison")
    return Node("cmp", (symbol, _convert(left, text), _convert(right, text)))


def walk(node: Node):
    yield node
    for arg in node.args:
        if isinstance(arg, Node):
            yield from walk(arg)


def field_paths(node: Node) -> set[tuple[str, ...]]:
    return {n.args for n in walk(node) if n.op == "field"}


# -- kinds of values --------------------------------------------------------------------
# What loading a pack can tell about a value without data, so that a condition that can
# never be true (a list compared with a text, a release compared with "2007") is an error
# when the pack loads, not a rule that silently never fires. None: not known (a value a
# form binds, a null), and never an error.
NUMBER, TEXT, BOOL, LIST = "number", "text", "bool", "list"
_ORDER = ("<", "<=", ">", ">=")


def constant_kind(value) -> str | None:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, (int, float)):
        return NUMBER
    if isinstance(value, str):
        return TEXT
    return None


def render(node: Node) -> str:
    """The expression as it could be written back (for messages)."""
    op, args = node.op, node.args
    if op == "const":
        return repr(args[0])
    if op == "field":
        return ".".join(args)
    if op == "list":
        return "[" + ", ".join(repr(a) for a in args) + "]"
    if op in ("and", "or"):
        return f" {op} ".join(_operand(a) for a in args)
    if op == "not":
        inner = args[0]
        if inner.op == "in":
            return f"{_operand(inner.args[0])} not in {_operand(inner.args[1])}"
        return f"not {_operand(inner)}"
    if op in ("isnull", "notnull"):
        return f"{_operand(args[0])} is {'' if op == 'isnull' else 'not '}None"
    if op == "cmp":  # arithmetic binds tighter than a comparison: no parentheses for it
        return f"{_operand(args[1], 'bin')} {args[0]} {_operand(args[2], 'bin')}"
    if op == "bin":
        return f"{_operand(args[1])} {args[0]} {_operand(args[2])}"
    if op == "in":
        return f"{_operand(args[0], 'bin')} in {_operand(args[1], 'bin')}"
    if op == "if":
        return f"{_operand(args[1])} if {_operand(args[0])} else {_operand(args[2])}"
    if op == "call":
        return f"{args[0]}({', '.join(render(a) for a in args[1:])})"
    return op


def _operand(node: Node, *bare: str) -> str:
    text = render(node)
    return text if node.op in ("const", "field", "call", "list", *bare) else f"({text})"


def result_kind(node: Node, kinds: list) -> str | None:
    """The kind of ``node``'s value given its arguments' kinds (``kinds[i]`` for
    ``node.args[i]``); aggregates and fields are the caller's."""
    op = node.op
    if op == "const":
        return constant_kind(node.args[0])
    if op in ("cmp", "in", "and", "or", "not", "isnull", "notnull"):
        return BOOL
    if op == "list":
        return LIST
    if op == "bin":
        left, right = kinds[1], kinds[2]
        if node.args[0] == "+" and TEXT in (left, right):
            return TEXT  # + with text joins the two as text (both engines)
        return NUMBER if left == NUMBER and right == NUMBER else None
    if op == "if":
        return kinds[1] if kinds[1] == kinds[2] else None
    if op == "call":
        name = node.args[0]
        if name in ("written", "unread", "any", "all"):
            return BOOL
        if name in ("size", "count", "distinct_count", "site_cost"):
            return NUMBER
        if name == "lower":
            return TEXT
        if name in ("coalesce", "greatest", "least"):
            known = {k for k in kinds[1:] if k is not None}
            return known.pop() if len(known) == 1 else None
    return None


def _shown(node: Node, kind: str | None, describe) -> str:
    """An operand and what it is: ``version (a version: a release rank such as 2007)``."""
    if node.op == "const":
        return f"{render(node)} ({'text' if kind == TEXT else 'a ' + kind})"
    what = describe(node) if node.op == "field" else None
    if what is None:
        what = {TEXT: "text", NUMBER: "a number", BOOL: "true or false", LIST: "a list"}[kind]
    return f"{render(node)} ({what})"


def kind_problem(node: Node, kinds: list, describe) -> str | None:
    """What is wrong with ``node`` given its arguments' kinds, with the fix, or None.
    ``describe(field_node)`` says what a field holds (``a version: ...``) or None.
    Only what can never work is a problem: a comparison of a list with a single
    value, of text with a number or true/false (never equal, never ordered: the
    condition is never true), arithmetic on text, a list or true/false."""
    op, args = node.op, node.args
    if op == "cmp":
        symbol, left, right = args
        lk, rk = kinds[1], kinds[2]
        if lk is None or rk is None or lk == rk:
            return None
        if LIST in (lk, rk):
            listed, single = (left, right) if lk == LIST else (right, left)
            single_kind = rk if lk == LIST else lk
            shown = _shown(listed, LIST, describe)
            if symbol in ("==", "!="):
                member = f"{render(single)} {'in' if symbol == '==' else 'not in'} {_operand(listed)}"
                outcome = "never" if symbol == "==" else "always"
                return (f"{shown} is compared with {_shown(single, single_kind, describe)} by {symbol}, which is "
                        f"{outcome} true of a list and one value; test membership: {member}")
            return (f"{shown} is ordered ({symbol}) against {_shown(single, single_kind, describe)}, and a list has "
                    f"no order with one value; compare its size, size({render(listed)}) {symbol} ..., or an item, "
                    f"any({render(listed)}, item {symbol} ...)")
        hint = ""
        if TEXT in (lk, rk) and NUMBER in (lk, rk):
            text_node = left if lk == TEXT else right
            other = right if lk == TEXT else left
            value = text_node.args[0] if text_node.op == "const" else None
            if isinstance(value, str) and _number_text(value) is not None:
                number = Node("const", (_number_text(value),))
                fixed = Node("cmp", (symbol, number, other) if lk == TEXT else (symbol, other, number))
                hint = f"; write the number without quotes: {render(fixed)}"
            else:
                hint = "; compare numbers with numbers and text with text"
        elif BOOL in (lk, rk):
            hint = "; compare true or false with True or False (or test the field itself: not field)"
        return (f"{_shown(left, lk, describe)} {symbol} {_shown(right, rk, describe)} compares "
                f"{_article(lk)} with {_article(rk)}: never {'equal' if symbol in ('==', '!=') else 'ordered'}, "
                f"so the comparison is {'always' if symbol == '!=' else 'never'} true{hint}")
    if op == "bin":
        symbol, left, right = args
        lk, rk = kinds[1], kinds[2]
        if symbol == "+" and TEXT in (lk, rk) and LIST not in (lk, rk):
            return None  # joins text
        for operand, kind in ((left, lk), (right, rk)):
            if kind in (TEXT, LIST, BOOL):
                joins = " (+ joins text with text)" if kind == TEXT else ""
                return (f"{_shown(operand, kind, describe)} in {render(node)}: {symbol} works on numbers"
                        f"{joins}, and {_article(kind)} is no number; compare or combine numeric fields only")
    return None


def _article(kind: str) -> str:
    return {TEXT: "text", NUMBER: "a number", BOOL: "true or false", LIST: "a list"}[kind]


def _number_text(value: str):
    try:
        number = int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return number
