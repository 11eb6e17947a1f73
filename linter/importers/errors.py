"""Errors, warnings and value origins shared by the importers."""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Origin:
    """Where a value was read: a source file and a 1-based line and column."""

    path: str
    line: int = 1
    column: int = 1

    @property
    def label(self) -> str:
        """The file name used in the ``# from …`` comments of the output."""
        return os.path.basename(self.path)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class SourceError(Exception):
    """A source that cannot be imported. Printed as ``path:line:col: error: message``."""

    def __init__(self, path: str, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.path = path
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: error: {self.message}"


@dataclass(frozen=True)
class ImportWarning:
    """Something imported only in part (a value dropped, an object skipped)."""

    origin: Origin
    message: str

    def __str__(self) -> str:
        return f"{self.origin}: warning: {self.message}"
