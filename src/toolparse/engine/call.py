"""One call's life, shared by every grammar: announce it, stream its
arguments as canonical JSON deltas, and end it in a call or an error.

A grammar writes canonical JSON pieces of the arguments into ``scratch``
(usually through :class:`~toolparse.engine.json_stream.JsonRewriter`), then
calls :meth:`CallBuilder.flush` once per feed: everything written since the
last flush becomes one :class:`ToolCallDelta`. The deltas are kept, so the
final arguments are ``json.loads`` of exactly what was streamed: invariant 4
holds by construction.
"""

from __future__ import annotations

import json
from typing import Any

from toolparse.coercion.coerce import Issue
from toolparse.coercion.inline import SchemaTyper
from toolparse.engine.block import CallContext, Outcome
from toolparse.engine.events import ErrorReason, Event, new_call_delta
from toolparse.engine.pieces import Pieces


class CallBuilder:
    """The state of one call while its markup streams in."""

    __slots__ = (
        "args",
        "ctx",
        "extra_issues",
        "id",
        "index",
        "name",
        "out",
        "problem",
        "scratch",
        "started",
        "streaming",
        "typer",
    )

    def __init__(self, ctx: CallContext, out: list[Event]) -> None:
        self.ctx = ctx
        self.out = out  # the event list of the feed in progress
        self.name: str | None = None
        self.scratch: list[str] = []  # argument pieces written since the last flush
        self.args = Pieces()  # argument pieces flushed (emitted, or held for an unstarted call)
        self.started = False
        self.streaming = False  # started and flushing: the engine's fast path may apply
        self.index: int | None = None
        self.id: str | None = None
        self.problem: str | None = None
        self.typer: SchemaTyper | None = None  # inline coercion of the arguments
        self.extra_issues: tuple[Issue, ...] = ()

    def announce(self, name: str) -> None:
        """The name is known: start the call (if the tool is known) and emit
        any arguments that arrived before it."""
        self.name = name
        if not self.ctx.is_known(name):
            return
        self.index, self.id = self.ctx.start(name, self.out)
        self.started = True
        self.before_first_delta()
        held = self.args.text()
        if held:
            self.out.append(new_call_delta(self.index, self.id, held))
        self.flush()

    def before_first_delta(self) -> None:
        """Hook: the call was just announced, nothing of its arguments emitted yet."""

    def holding(self) -> bool:
        """Hook: True while what is in ``scratch`` must not be emitted yet."""
        return False

    def flush(self) -> None:
        """Emit what was written since the last flush as one delta (or hold it)."""
        scratch = self.scratch
        if not scratch or self.holding():
            return
        piece = scratch[0] if len(scratch) == 1 else "".join(scratch)
        scratch.clear()
        self.args.append(piece)
        if self.started:
            assert self.index is not None and self.id is not None
            self.streaming = True
            self.out.append(new_call_delta(self.index, self.id, piece))

    def outcome(self, end: int) -> Outcome:
        """The call's markup is complete: a call, or an error saying why not."""
        self.flush()
        text = self.args.text()
        arguments: Any = json.loads(text) if text else None
        if self.problem is None and not isinstance(arguments, dict):
            self.problem = f"the arguments are not a JSON object: {text[:80]}"
        if self.problem is not None:
            return self.error(end, ErrorReason.INVALID_CALL, self.problem)
        if not self.started:
            return Outcome(
                end,
                self.name,
                arguments=arguments,
                reason=ErrorReason.UNKNOWN_TOOL,
                message=f"no tool named {self.name!r} was declared",
            )
        issues = tuple(self.typer.issues) if self.typer is not None else self.extra_issues
        outcome = Outcome(end, self.name, self.index, self.id, arguments, issues=issues)
        assert self.name is not None
        tool = self.ctx.tools.get(self.name) if self.ctx.tools is not None else None
        if tool is not None and tool.model is not None:
            outcome.parsed, outcome.validation_error = tool.validate(arguments)
        return outcome

    def error(self, end: int | None, reason: ErrorReason, message: str) -> Outcome:
        return Outcome(end, self.name, self.index, self.id, reason=reason, message=message)
