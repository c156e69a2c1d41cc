"""Exceptions raised for a caller's mistakes.

Model output never raises: malformed output becomes a
:class:`~toolparse.ToolCallError` event. These exceptions are for misuse of the
library, and each names the problem.
"""

from __future__ import annotations


class ToolparseError(Exception):
    """Base class of every exception toolparse raises."""


class StreamClosedError(ToolparseError, RuntimeError):
    """``feed`` or ``close`` was called on a parser that is already closed."""


class UnknownGrammarError(ToolparseError, ValueError):
    """The grammar name is not one toolparse knows."""


class InvalidToolError(ToolparseError, ValueError):
    """A tool definition is not usable: bad name, bad schema, duplicate name."""


class InvalidOptionError(ToolparseError, TypeError):
    """An option passed to a parser is unknown or has the wrong type or range."""
