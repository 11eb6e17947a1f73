"""Edits of YAML text at exact positions: the bytes outside an edited value
stay as they were (comments, quoting, indentation, blank lines, line endings).

The file is composed again with the loader ``check`` reads it with (libyaml's
when available), whose marks give the character offset of every node's start
and end: a stricter parser (PyYAML's pure-Python scanner refuses a tab before a
comment or inside ``{...}``) would fail on files ``check`` accepts. Documents
are split at ``---`` and empty ones skipped exactly as the loader does
(``linter.loading``), so document ``i`` here is the loader's
``Document.index == i``.

Each operation returns ``Edit`` objects (replace ``text[start:end]``) or
raises ``Unfixable`` with a reason a user can act on. The caller applies the
edits from the end of the file backwards and re-parses the result to check it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from linter.loading import CHECK_LOADER, is_empty_document  # what check accepts, --fix reads
from linter.loading.text import split_documents

_MERGE = "tag:yaml.org,2002:merge"
_DASH = re.compile(r"[ \t]*-[ \t]*$")
_REST_OF_LINE = re.compile(r"[ \t]*(?:,[ \t]*)?(?:#[^\n]*)?(?:\r?\n|\Z)")
_COMMA = re.compile(r"[ \t]*,")


class Unfixable(Exception):
    """This finding cannot be fixed safely in this file's layout."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


@dataclass
class DocNodes:
    root: Node
    offset: int  # character offset of the document's chunk in the file text
    aliased: bool  # uses aliases or merge keys: editing one place would change others


def _uses_aliases(root: Node) -> bool:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if key.tag == _MERGE:
                    return True
                stack += [key, value]
        elif isinstance(node, SequenceNode):
            stack += node.value
    return False


def render_scalar(value: Any, quote: str | None = None) -> str:
    """A scalar as YAML text; strings keep the quoting style ``quote`` when given."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    from linter.importers.writer import _render_scalar  # the importer's scalar rendering

    return _render_scalar(str(value), quote)


def render_key(key: str, quote: str | None = None) -> str:
    text = render_scalar(key, quote)
    if quote is None and (": " in text or text.endswith(":") or " #" in text) and not text[:1] in "'\"":
        text = render_scalar(key, '"')
    return text


class YamlText:
    """A file's text with the node tree of each of its documents."""

    def __init__(self, text: str):
        self.text = text
        self.eol = "\r\n" if "\r\n" in text else "\n"
        self.documents: list[DocNodes] = []
        offset = 0
        for chunk in split_documents(text):
            try:
                roots = list(yaml.compose_all(chunk.text, Loader=CHECK_LOADER))
            except (yaml.YAMLError, RecursionError) as exc:  # check read it: a safety net, never a traceback
                raise Unfixable(f"the file could not be read again for editing ({type(exc).__name__})") from None
            for root in roots:
                if root is not None and not is_empty_document(root):
                    self.documents.append(DocNodes(root, offset, _uses_aliases(root)))
            offset += len(chunk.text)

    # -- positions ------------------------------------------------------------------
    def start(self, doc: DocNodes, node: Node) -> int:
        return doc.offset + node.start_mark.index

    def end(self, doc: DocNodes, node: Node) -> int:
        return doc.offset + node.end_mark.index

    def line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def after_line(self, pos: int) -> int:
        """The start of the line after the one holding ``pos`` (``pos`` itself at a line start)."""
        if pos > 0 and self.text[pos - 1] == "\n":
            return pos
        newline = self.text.find("\n", pos)
        return len(self.text) if newline == -1 else newline + 1

    def leaf_end(self, doc: DocNodes, node: Node) -> int:
        """Where the last scalar (or flow collection) of a node ends."""
        while isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
            node = node.value[-1][1] if isinstance(node, MappingNode) else node.value[-1]
        return self.end(doc, node)

    # -- navigation -----------------------------------------------------------------
    def walk(self, doc: DocNodes, path: tuple) -> tuple[list[tuple[Node, Any]], Node | None, tuple]:
        """(chain of (container, key node or index), deepest node found, the rest of the path)."""
        node = doc.root
        chain: list[tuple[Node, Any]] = []
        for depth, part in enumerate(path):
            if isinstance(part, int):
                if not isinstance(node, SequenceNode) or not 0 <= part < len(node.value):
                    return chain, node, path[depth:]
                chain.append((node, part))
                node = node.value[part]
            else:
                if not isinstance(node, MappingNode):
                    return chain, node, path[depth:]
                pair = next(((k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == part), None)
                if pair is None:
                    return chain, node, path[depth:]
                chain.append((node, pair[0]))
                node = pair[1]
        return chain, node, ()

    # -- operations ---------------------------------------------------------------------
    def replace_scalar(self, doc: DocNodes, node: Node, value: Any) -> Edit:
        if not isinstance(node, ScalarNode):
            raise Unfixable("the value is a list or mapping, not a single value")
        start, end = self.start(doc, node), self.end(doc, node)
        span = self.text[start:end]
        if node.style in ("|", ">") or "\n" in span:
            raise Unfixable("the value spans several lines")
        quote = node.style if node.style in ("'", '"') and isinstance(value, str) else None
        rendered = render_scalar(value, quote)
        if start == end and start > 0 and self.text[start - 1] not in " \t":
            rendered = " " + rendered  # `key:` with no value
        return Edit(start, end, rendered)

    def rename_key(self, doc: DocNodes, key: Node, new: str) -> Edit:
        start, end = self.start(doc, key), self.end(doc, key)
        if "\n" in self.text[start:end]:
            raise Unfixable("the key spans several lines")
        quote = key.style if key.style in ("'", '"') else None
        return Edit(start, end, render_key(new, quote))

    def remove_entries(self, doc: DocNodes, container: Node, indices: set[int],
                       parent: tuple[Node, Any] | None) -> list[Edit]:
        """Remove mapping entries or sequence items (by position) from one collection."""
        if isinstance(container, MappingNode):
            spans = [(self.start(doc, k), self.end(doc, v), k, v) for k, v in container.value]
        elif isinstance(container, SequenceNode):
            spans = [(self.start(doc, item), self.end(doc, item), item, item) for item in container.value]
        else:
            raise Unfixable("not a list or mapping")
        count = len(spans)
        if container.flow_style:
            return self._remove_flow_entries([(start, end) for start, end, _, _ in spans], indices)
        edits = []
        for index in sorted(indices):
            start, _, first_node, last_node = spans[index]
            line = self.line_start(start)
            prefix = self.text[line:start]
            if isinstance(container, MappingNode):
                if prefix.strip():
                    raise Unfixable("the key shares its line with other content")
            elif not _DASH.fullmatch(prefix):
                raise Unfixable("the list entry shares its line with other content")
            edits.append(Edit(line, self.after_line(self.leaf_end(doc, last_node)), ""))
        if len(indices) == count:  # the collection becomes empty: say so explicitly
            if parent is None or not isinstance(parent[0], MappingNode):
                raise Unfixable("removing the last entry would leave an empty collection here")
            key_end = self.end(doc, parent[1])
            colon = self.text.find(":", key_end)
            if colon == -1 or colon > self.start(doc, container):
                raise Unfixable("cannot find the key of the collection")
            edits.append(Edit(colon + 1, colon + 1, " {}" if isinstance(container, MappingNode) else " []"))
        return edits

    def _owns_lines(self, start: int, end: int) -> bool:
        """An entry of a multi-line flow collection alone on its line(s): only
        indentation before it, only its comma and a comment after it."""
        return not self.text[self.line_start(start):start].strip(" \t") and bool(_REST_OF_LINE.match(self.text, end))

    def _comma_after(self, pos: int) -> int | None:
        """The position just past the comma that follows ``pos`` (spaces between), if one does."""
        match = _COMMA.match(self.text, pos)
        return match.end() if match else None

    def _remove_flow_entries(self, spans: list[tuple[int, int]], indices: set[int]) -> list[Edit]:
        """Remove entries of a ``[...]``/``{...}`` collection. An entry alone on its
        line loses the line, its comment with it, as in a block list; entries that
        share a line lose themselves and one comma. The comments and commas of
        the entries that stay are never touched (a kept entry's comma may end the
        list: ``[a, b,]`` is the same list)."""
        edits = []
        inline = []
        for index in sorted(indices):
            start, end = spans[index]
            if self._owns_lines(start, end):
                edits.append(Edit(self.line_start(start), self.after_line(end), ""))
            else:
                inline.append(index)
        runs: list[list[int]] = []  # neighbours on one line go together (one comma between them goes)
        for index in inline:
            if runs and runs[-1][-1] == index - 1 and "\n" not in self.text[spans[index - 1][1]:spans[index][0]]:
                runs[-1].append(index)
            else:
                runs.append([index])
        for run in runs:
            edits.append(self._flow_run_edit(spans, run[0], run[-1]))
        return edits

    def _flow_run_edit(self, spans: list[tuple[int, int]], first: int, last: int) -> Edit:
        start, end = spans[first][0], spans[last][1]
        comma = self._comma_after(end)
        if last < len(spans) - 1:
            following = spans[last + 1][0]
            if comma is None or "\n" not in self.text[end:following]:
                return Edit(start, following, "")  # `a, b, c` -> `a, c` (or a comma-first layout)
            return Edit(start, comma, "")  # the next entry is on another line: this line's comment stays
        if first > 0 and "\n" not in self.text[spans[first - 1][1]:start]:
            return Edit(spans[first - 1][1], end, "")  # `a, b` -> `a`
        # the first entry, or the previous one on an earlier line (its comma and comment stay)
        return Edit(start, comma if comma is not None else end, "")

    def add_entry(self, doc: DocNodes, mapping: Node, parent: tuple[Node, Any] | None,
                  parts: tuple, value: Any) -> Edit:
        """Add ``parts[0]: ...: parts[-1]: value`` to a mapping (intermediate mappings created)."""
        if not isinstance(mapping, MappingNode):
            if isinstance(mapping, ScalarNode) and mapping.tag.endswith(":null"):
                raise Unfixable("the enclosing setting is empty (null); write the mapping by hand")
            raise Unfixable("the enclosing value is not a mapping")
        if any(isinstance(p, int) for p in parts):
            raise Unfixable("cannot create list entries")
        rendered_value = render_scalar(value)
        if mapping.flow_style:
            piece = rendered_value
            for part in reversed(parts[1:]):
                piece = "{" + f"{render_key(part)}: {piece}" + "}"
            piece = f"{render_key(parts[0])}: {piece}"
            if mapping.value:
                return Edit(self.end(doc, mapping.value[-1][1]), self.end(doc, mapping.value[-1][1]), ", " + piece)
            return Edit(self.start(doc, mapping) + 1, self.start(doc, mapping) + 1, piece)
        first_key = mapping.value[0][0]
        indent = first_key.start_mark.column
        step = 2
        if parent is not None and isinstance(parent[0], MappingNode):
            step = max(indent - parent[1].start_mark.column, 1)
        position = self.after_line(self.leaf_end(doc, mapping.value[-1][1]))
        lines = []
        for depth, part in enumerate(parts):
            tail = f" {rendered_value}" if depth == len(parts) - 1 else ""
            lines.append(" " * (indent + depth * step) + f"{render_key(part)}:{tail}" + self.eol)
        text = "".join(lines)
        if position == len(self.text) and self.text and not self.text.endswith("\n"):
            text = self.eol + text  # apply_edits drops the final break: the file keeps ending without one
        return Edit(position, position, text)


def apply_edits(text: str, edits: list[Edit]) -> str:
    new = text
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        new = new[:edit.start] + edit.text + new[edit.end:]
    return _keep_ending(text, new)


def _keep_ending(old: str, new: str) -> str:
    """A file without a final line break still has none: a line added at its end
    comes with the break before it, a deleted last line takes the break before it."""
    if old and not old.endswith("\n") and new.endswith("\n"):
        return new[:-2] if new.endswith("\r\n") else new[:-1]
    return new


def overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end or b.start == b.end:  # insertions: same point, or inside the other span
        return a.start == b.start or (b.start < a.start < b.end) or (a.start < b.start < a.end)
    return a.start < b.end and b.start < a.end
