"""YAML nodes to plain data, remembering where every value was written.

PyYAML's C composer gives nodes with marks; we construct the values ourselves
instead of using a Loader's constructor so that:
- duplicate keys are reported (EXL002) instead of silently overwritten;
- positions are recorded for every path (cfn-lint style), for exact findings;
- YAML 1.1 traps are avoided: an unquoted ``10:00:00`` stays the text the user
  wrote (not the base-60 integer 36000), ``0170`` is 170 (not octal 120) and
  dates stay ISO text, so values look the same as in JSON inventories;
- only plain data tags are accepted: ``!!python/...`` and other tags are refused
  without ever being interpreted;
- alias bombs are measured before anything is expanded.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_DEPTH = 64
MAX_EXPANDED_NODES = 200_000

_TAG = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_TAG + t for t in ("null", "bool", "int", "float", "str", "seq", "map", "timestamp", "merge")}
_MERGE = _TAG + "merge"
_scalar_constructor = SafeConstructor()

Path = tuple  # of str | int


class ConstructError(Exception):
    def __init__(self, rule: str, message: str, line: int, column: int):
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.line = line
        self.column = column


@dataclass
class DuplicateKey:
    path: Path
    key: str
    line: int
    column: int
    first_line: int


@dataclass
class Constructed:
    data: Any
    # path -> (line, column), 1-based. For a scalar or flow value: where the value
    # is written; for a block collection under a key: where its key is written.
    marks: dict[str, tuple[int, int]] = field(default_factory=dict)  # keyed by dotted path
    duplicates: list[DuplicateKey] = field(default_factory=list)
    key_marks: dict[str, tuple[int, int]] = field(default_factory=dict)  # where each key is written
    # nodes already built: a node met again is an alias (``key: *name``), whose values are
    # placed at the alias's key, where the user wrote that they apply, not at the anchor
    built: set[int] = field(default_factory=set)
    aliased: bool = False  # an alias or a merge key is used: --fix leaves the document alone


def _pos(node: Node, line_offset: int) -> tuple[int, int]:
    return node.start_mark.line + 1 + line_offset, node.start_mark.column + 1


def expanded_size(root: Node) -> int:
    """Number of nodes after alias expansion, computed without expanding."""
    sizes: dict[int, int] = {}
    # Iterative post-order walk; aliases are shared node objects, memoised by id.
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in sizes and not done:
            continue
        if isinstance(node, ScalarNode):
            sizes[key] = 1
            continue
        children = [c for pair in node.value for c in pair] if isinstance(node, MappingNode) else node.value
        if done:
            total = 1 + sum(sizes.get(id(c), 1) for c in children)
            sizes[key] = min(total, MAX_EXPANDED_NODES + 1)
            continue
        sizes[key] = 1  # provisional: breaks recursive aliases
        stack.append((node, True))
        for child in children:
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


# Longer integer texts are not converted (Python refuses more than 4,300 decimal
# digits, and any such value is far beyond every 64-bit Exchange setting).
MAX_INT_TEXT = 64
# A leading zero (``0170``): YAML 1.1 reads it as octal (120), or as text when an 8 or 9
# follows (``0168``); no one writing a registry value or a count means either, and YAML
# 1.2 and PowerShell read it as decimal
LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+")


class OversizedInt(int):
    """An integer written with too many digits to convert: its value stands beyond
    the 64-bit range (so range checks report it, EXL003), and it prints as the
    start of what was written."""

    written: str

    @classmethod
    def of(cls, text: str) -> "OversizedInt":
        value = cls(-(2 ** 64) if text.lstrip().startswith("-") else 2 ** 64)
        value.written = text.strip()[:24]
        return value

    def __str__(self) -> str:
        return self.written + "..."

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    __repr__ = __str__


def _scalar(node: ScalarNode, line_offset: int) -> Any:
    tag = node.tag
    if tag == _TAG + "str":
        if not node.style and LEADING_ZERO.fullmatch(node.value):  # plain ("" in C, None in Python)
            return int(node.value.replace("_", ""), 10)
        return node.value
    if tag == _TAG + "null":
        return None
    if tag == _TAG + "bool":
        return _scalar_constructor.construct_yaml_bool(node)
    if tag in (_TAG + "int", _TAG + "float"):
        if ":" in node.value:  # YAML 1.1 base-60: keep what the user wrote
            return node.value
        if tag == _TAG + "int":
            if len(node.value) > MAX_INT_TEXT:
                return OversizedInt.of(node.value)
            if LEADING_ZERO.fullmatch(node.value):  # the text the user wrote, in decimal
                return int(node.value.replace("_", ""), 10)
            return _scalar_constructor.construct_yaml_int(node)
        return _scalar_constructor.construct_yaml_float(node)
    if tag == _TAG + "timestamp":
        return node.value
    line, column = _pos(node, line_offset)
    raise ConstructError("EXL001", f"unsupported tag {node.tag!r}: exlint reads plain YAML data only; remove the tag", line, column)


def construct(root: Node, line_offset: int = 0, may_alias: bool = True) -> Constructed:
    """``may_alias=False`` (the text holds no ``*``) skips the alias-bomb measure."""
    size = expanded_size(root) if may_alias else 0
    if size > MAX_EXPANDED_NODES:
        line, column = _pos(root, line_offset)
        raise ConstructError(
            "EXL001",
            f"document expands to more than {MAX_EXPANDED_NODES} values through aliases "
            "(a 'billion laughs' pattern); refusing to load it",
            line,
            column,
        )
    out = Constructed(None)
    out.data = _build(root, (), "", 0, line_offset, out, None, None)
    return out


def _check_tag(node: Node, line_offset: int) -> None:
    if node.tag not in _PLAIN_TAGS:
        line, column = _pos(node, line_offset)
        raise ConstructError("EXL001", f"unsupported tag {node.tag!r}: exlint reads plain YAML data only; remove the tag", line, column)


def _build(node: Node, path: Path, dotted: str, depth: int, off: int, out: Constructed, key_pos,
           alias_at: tuple[int, int] | None) -> Any:
    """``alias_at``: where the alias this node is reached through is written (its key), or None."""
    if depth > MAX_DEPTH:
        line, column = _pos(node, off)
        raise ConstructError("EXL001", f"nesting deeper than {MAX_DEPTH} levels; this is not an exlint document", line, column)
    _check_tag(node, off)
    if id(node) in out.built:
        out.aliased = True
        if alias_at is None and key_pos is not None:
            alias_at = key_pos  # the anchor's node again: `key: *name`
    out.built.add(id(node))
    is_block = not getattr(node, "flow_style", False) and not isinstance(node, ScalarNode)
    out.marks.setdefault(dotted, alias_at or (key_pos if (is_block and key_pos) else _pos(node, off)))
    if isinstance(node, ScalarNode):
        return _scalar(node, off)
    if isinstance(node, SequenceNode):
        return [_build(item, path + (i,), f"{dotted}[{i}]", depth + 1, off, out, None, alias_at)
                for i, item in enumerate(node.value)]
    result: dict[str, Any] = {}
    first_seen: dict[str, int] = {}
    own = {id(k) for k, _ in node.value}
    # a value a merge key (`<<: *base`) brings in is placed at the `<<`, where it was applied
    merged_at = next((_pos(k, off) for k, _ in node.value if k.tag == _MERGE), None)
    out.aliased = out.aliased or merged_at is not None
    for key_node, value_node in _merged_pairs(node, off):
        if not isinstance(key_node, ScalarNode):
            line, column = _pos(key_node, off)
            raise ConstructError("EXL001", "a mapping key must be a plain scalar, not a list or mapping", line, column)
        _check_tag(key_node, off)
        key = key_node.value
        kpos = _pos(key_node, off)
        child = f"{dotted}.{key}" if dotted else key
        if key in first_seen:
            out.duplicates.append(DuplicateKey(path, key, kpos[0], kpos[1], first_seen[key]))
            # YAML keeps the last value: the first one's positions inside it go with it
            _forget_below(out, child)
        first_seen.setdefault(key, kpos[0])
        at = alias_at or (merged_at if id(key_node) not in own else None)
        out.marks.pop(child, None)
        out.key_marks[child] = at or kpos
        result[key] = _build(value_node, path + (key,), child, depth + 1, off, out, kpos, at)
    return result


def _forget_below(out: Constructed, dotted: str) -> None:
    for marks in (out.marks, out.key_marks):
        for name in [n for n in marks if n.startswith((dotted + ".", dotted + "["))]:
            del marks[name]


def _merged_pairs(node: MappingNode, off: int):
    """Mapping pairs with YAML merge keys (``<<: *base``) applied; explicit keys win."""
    explicit = [(k, v) for k, v in node.value if k.tag != _MERGE]
    merges = [v for k, v in node.value if k.tag == _MERGE]
    if not merges:
        return explicit
    explicit_keys = {k.value for k, _ in explicit if isinstance(k, ScalarNode)}
    inherited: dict[str, tuple[Node, Node]] = {}
    for merge in merges:
        sources = merge.value if isinstance(merge, SequenceNode) else [merge]
        for source in sources:
            if not isinstance(source, MappingNode):
                line, column = _pos(source, off)
                raise ConstructError("EXL001", "a merge key (<<) must refer to a mapping", line, column)
            for k, v in _merged_pairs(source, off):
                if isinstance(k, ScalarNode) and k.value not in explicit_keys:
                    inherited.setdefault(k.value, (k, v))
    return list(inherited.values()) + explicit
