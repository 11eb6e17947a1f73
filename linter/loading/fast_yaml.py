"""Plain safe YAML loading with the C parser when available (rule packs, tables,
configuration): these are trusted-shape files read on every start-up, but a
config repo's own packs and ``.exlint.yaml`` come from whoever opened the pull
request, so they get the documents' bounds: nesting is measured on the event
stream before the (recursive, C) composer runs, and alias expansion before any
value is built (linter.loading.nodes)."""
from __future__ import annotations

import re

import yaml

from linter.loading.nodes import MAX_DEPTH, MAX_EXPANDED_NODES, expanded_size

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

# Below this many possible levels the C composer's recursion is safe (it
# overflows the C stack somewhere past 20,000): no event scan is needed.
SAFE_COMPOSE_DEPTH = 1000


class BoundError(yaml.MarkedYAMLError):
    """Nesting or alias expansion beyond what exlint reads (a YAMLError, so every
    caller's YAML error path reports it with its position)."""

    def __init__(self, problem: str, mark):
        super().__init__(problem=problem, problem_mark=mark)

    def __str__(self) -> str:
        where = f"line {self.problem_mark.line + 1}, column {self.problem_mark.column + 1}: " if self.problem_mark else ""
        return where + self.problem


def may_nest_deeper(text: str, levels: int) -> bool:
    """False when ``text`` certainly nests at most ``levels`` deep, without parsing
    it: a flow level needs a ``[`` or ``{``, and a block level is more indented
    than its parent at least every second level (a sequence may sit at its key's
    column), a line's indentation being at most its leading run of spaces,
    dashes, ``?`` and ``:`` (compact ``- - x`` nesting)."""
    spare = levels - 3 - text.count("[") - text.count("{")
    if spare < 0:
        return True
    return re.search(r"^[ \t?:-]{%d}" % (spare // 2 + 1), text, re.MULTILINE) is not None


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise BoundError where ``text`` nests deeper than ``limit``: the C parser's
    event stream is flat (no recursion), so this is safe on any input."""
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > limit:
                raise BoundError(f"nesting deeper than {limit} levels; this is not a file exlint reads",
                                 event.start_mark)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def check_bounds_before_compose(text: str) -> None:
    if may_nest_deeper(text, SAFE_COMPOSE_DEPTH):
        check_depth(text)


def _checked(node):
    if node is not None and expanded_size(node) > MAX_EXPANDED_NODES:
        raise BoundError(f"expands to more than {MAX_EXPANDED_NODES} values through aliases "
                         "(a 'billion laughs' pattern); refusing to load it", node.start_mark)
    return node


def load(text):
    check_bounds_before_compose(text)
    loader = _Loader(text)
    try:
        node = _checked(loader.get_single_node())
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def load_all(text):
    check_bounds_before_compose(text)
    loader = _Loader(text)
    documents = []
    try:
        while loader.check_node():
            documents.append(loader.construct_document(_checked(loader.get_node())))
    finally:
        loader.dispose()
    return documents
