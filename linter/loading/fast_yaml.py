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
    too_deep = f"nesting deeper than {limit} levels; this is not a file exlint reads"
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > limit:
                    raise BoundError(too_deep, event.start_mark)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except BoundError:
        raise
    except yaml.MarkedYAMLError as exc:
        # the libyaml of PyYAML 6.0.4's wheels has a nesting limit of its own, which its
        # scanner, reading ahead of the events, meets first: the same bound, said the same way
        if "maximum nesting depth" not in str(exc.problem or ""):
            raise
        raise BoundError(too_deep, exc.problem_mark) from None


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


class DuplicateKeyError(yaml.MarkedYAMLError):
    """A mapping key written twice (YAML would silently keep the last value)."""

    def __init__(self, key: str, first_line: int, mark):
        super().__init__(problem=f"duplicate key {key!r} (first written on line {first_line}); YAML keeps only "
                                 "the last one: merge them into one", problem_mark=mark)
        self.key = key

    def __str__(self) -> str:
        mark = self.problem_mark
        return (f"line {mark.line + 1}, column {mark.column + 1}: " if mark else "") + self.problem


def _key_marks(root) -> dict[tuple, tuple[int, int]]:
    """Where each mapping key (and sequence item) below ``root`` is written:
    {path: (line, column)}, 1-based; DuplicateKeyError at a key written twice in
    one mapping. Iterative (no recursion) and each node visited once (aliases)."""
    marks: dict[tuple, tuple[int, int]] = {}
    seen_nodes: set[int] = set()
    stack = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                identity = (key.tag, key.value)
                if identity in first:
                    raise DuplicateKeyError(key.value, first[identity], key.start_mark)
                first[identity] = key.start_mark.line + 1
                marks[path + (key.value,)] = (key.start_mark.line + 1, key.start_mark.column + 1)
                stack.append((value, path + (key.value,)))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                marks[path + (index,)] = (item.start_mark.line + 1, item.start_mark.column + 1)
                stack.append((item, path + (index,)))
    return marks


_INT, _FLOAT, _STR = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:str"


def _numbers_as_written(root) -> None:
    """Plain numbers read as a document's values are (linter.loading.nodes), not as
    YAML 1.1 reads them: ``0170`` is 170, not octal 120 (nor ``0168`` text), and a
    base-60 ``6:00`` stays the text written, which the configuration then refuses
    as no number, rather than 360."""
    from linter.loading.nodes import LEADING_ZERO

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.ScalarNode) and not node.style:
            if node.tag in (_INT, _FLOAT) and ":" in node.value:
                node.tag = _STR
            elif node.tag in (_INT, _STR) and LEADING_ZERO.fullmatch(node.value):
                node.tag, node.value = _INT, str(int(node.value.replace("_", ""), 10))


def load_marked(text):
    """:func:`load`, refusing a key written twice in a mapping (DuplicateKeyError,
    with its position), and returning where each key is written (see
    :func:`_key_marks`): ``(data, marks)``. For ``.exlint.yaml``."""
    check_bounds_before_compose(text)
    loader = _Loader(text)
    try:
        node = _checked(loader.get_single_node())
        if node is None:
            return None, {}
        marks = _key_marks(node)
        _numbers_as_written(node)
        return loader.construct_document(node), marks
    finally:
        loader.dispose()
