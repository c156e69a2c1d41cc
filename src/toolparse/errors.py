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


class InvalidOptionError(ToolparseError, TypeError, ValueError):
    """An option passed to a parser (or a declaration it is given, such as a
    ``Reasoning``) is unknown or has the wrong type or range: both a
    ``TypeError`` and a ``ValueError``, as the mistake is either."""


class InternalParserError(ToolparseError, RuntimeError):
    """A bug inside toolparse, not a problem of the caller or of the model output.

    It names the grammar and the stream offset where it happened. The parser
    is then in an error state: every later ``feed`` or ``close`` raises it
    again, rather than carrying on from a corrupted state.
    """

    def __init__(self, grammar: str, offset: int, cause: BaseException) -> None:
        super().__init__(
            f"internal error in the {grammar!r} grammar near stream offset {offset}: "
            f"{type(cause).__name__}: {cause} (please report it with the input)"
        )
        self.grammar = grammar
        self.offset = offset
