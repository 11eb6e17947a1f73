"""What parsing a rule pack raises, and the expression parse every form's keys
use. A leaf below linter.policy.packs and the form modules (which packs
imports), so neither imports the other."""
from __future__ import annotations

from typing import Any

from linter.policy.expr import ExprError, Node, parse


class PackError(ValueError):
    pass


def expression(text: Any, where: str) -> Node:
    """A check key's expression; a YAML boolean is the constant it reads as."""
    if isinstance(text, bool):
        text = "True" if text else "False"
    try:
        return parse(str(text))
    except ExprError as exc:
        raise PackError(f"{where}: {exc}") from None
