"""The events a parser emits.

Every input character lands in exactly one event: in a :class:`TextDelta`'s
``text``, a :class:`ReasoningDelta`'s ``raw``, a :class:`ToolCall`'s ``raw`` or
a :class:`ToolCallError`'s ``raw``.
:class:`ToolCallStart` and :class:`ToolCallDelta` announce a call while it is
still arriving; they carry no input of their own.

Events are frozen, slotted dataclasses: cheap to build on the per-delta path
and safe to share.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, TypeAlias


class ErrorReason(StrEnum):
    """Why a piece of model output could not become a tool call (a closed set)."""

    MALFORMED_JSON = "malformed_json"
    """The call's body is not JSON, even after the documented repairs."""
    MALFORMED_MARKUP = "malformed_markup"
    """The call's XML-style markup is broken beyond the documented repairs."""
    INVALID_CALL = "invalid_call"
    """The body is JSON but not a call: no string ``name``, or arguments that are not an object."""
    UNFINISHED_CALL = "unfinished_call"
    """The stream ended inside a call whose body was not complete."""
    UNKNOWN_TOOL = "unknown_tool"
    """Tools were declared and the call names none of them."""
    TOO_LARGE = "too_large"
    """The call's markup passed ``max_call_chars``."""
    TOO_DEEP = "too_deep"
    """The call's JSON nests deeper than ``max_depth``."""
    CALL_IN_UNCLOSED_REASONING = "call_in_unclosed_reasoning"
    """The stream ended inside reasoning that holds a complete call: reported,
    not run (its markup stays in the reasoning; see ``reasoning_calls``)."""


SURROGATE: Final = re.compile("[\ud800-\udfff]")
"""Any UTF-16 surrogate (after the engine joins pairs, a lone one)."""


def replace_lone_surrogates(text: str) -> str:
    """``text`` with every UTF-16 surrogate replaced by U+FFFD.

    The engine joins surrogate pairs before any grammar sees the input, so a
    surrogate left in a value is a lone one; arguments are always valid
    Unicode (a UTF-8 encoder downstream never fails on them).
    """
    if text.isascii() or SURROGATE.search(text) is None:
        return text
    return SURROGATE.sub("\ufffd", text)


def valid_unicode(text: str) -> str:
    """``text`` with UTF-16 surrogate pairs joined into the characters they
    encode and every surrogate left (a lone one) replaced by U+FFFD.

    For strings a reader made of escapes (``"\\ud83d\\ude00"`` in a Python
    literal is two surrogates, as Python reads it; ``"\\ud800"`` in JSON is
    one): the arguments, their deltas and a call's name are always valid
    Unicode, so a UTF-8 encoder downstream never fails on them.
    """
    if text.isascii() or SURROGATE.search(text) is None:
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return SURROGATE.sub("\ufffd", joined)


def canonical_json(value: Any) -> str:
    """The one canonical JSON text of a call's arguments.

    Compact separators, non-ASCII kept as is, keys in the order the model wrote
    them. The ``arguments_delta`` strings of a call concatenate to exactly this.
    """
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is int:
        return int.__repr__(value)
    return _CANONICAL.encode(value)


_encode_string: Final = json.encoder.encode_basestring  # (what the encoder uses for a str)
_CANONICAL: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""What ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` builds
on every call (an encoder is stateless between calls): built once, it costs a
third as much per call."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Visible text, outside any tool-call markup."""

    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """The model's reasoning (``<think>...</think>``), outside the visible text.

    ``text`` is the reasoning itself; ``raw`` is the exact input the event
    covers, the reasoning markers included (``raw == text`` but where a
    marker was read: ``"<think>"`` opens, ``"</think>"`` closes). Reasoning is
    never read for calls.
    """

    text: str
    raw: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "reasoning", "text": self.text, "raw": self.raw}


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A call has begun and its tool name is known."""

    index: int
    id: str
    name: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_call_start", "index": self.index, "id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """The next piece of a call's arguments, as canonical JSON text."""

    index: int
    id: str
    arguments_delta: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "tool_call_delta",
            "index": self.index,
            "id": self.id,
            "arguments_delta": self.arguments_delta,
        }


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete call. ``raw`` is the exact markup it was parsed from."""

    index: int
    id: str
    name: str
    arguments: dict[str, Any]
    raw: str
    issues: tuple[Any, ...] = ()
    """What schema coercion changed or could not fix (:class:`toolparse.coercion.Issue`)."""
    parsed: Any = None
    """For a tool defined by a pydantic model: the validated model instance."""
    validation_error: str | None = None
    """For a tool defined by a pydantic model: why validation failed (then ``parsed`` is None)."""

    @property
    def arguments_json(self) -> str:
        """The arguments as canonical JSON: what the call's deltas concatenate to."""
        return canonical_json(self.arguments)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "tool_call",
            "index": self.index,
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "raw": self.raw,
            "issues": [str(issue) for issue in self.issues],
            "validation_error": self.validation_error,
        }


@dataclass(frozen=True, slots=True)
class ToolCallError:
    """Markup that looked like a call but could not become one.

    ``raw`` is the exact markup, ``offset`` its position in the stream (in
    characters). When the call had already been announced by a
    :class:`ToolCallStart`, ``index`` and ``id`` name it: that call ends here.
    ``arguments`` is set when they were readable (an ``unknown_tool`` call).
    """

    reason: str
    message: str
    raw: str
    offset: int
    name: str | None = None
    index: int | None = None
    id: str | None = None
    arguments: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "tool_call_error",
            "reason": self.reason,
            "message": self.message,
            "raw": self.raw,
            "offset": self.offset,
            "name": self.name,
            "index": self.index,
            "id": self.id,
            "arguments": self.arguments,
        }


Event: TypeAlias = TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCall | ToolCallError

# Hot-path constructors. A frozen dataclass's __init__ goes through
# object.__setattr__ once per field (about 3x the cost of a plain one); these
# build the same frozen instances by setting the slots directly.
_new = object.__new__
_set_text = TextDelta.__dict__["text"].__set__


def unfrozen_twin(cls: type) -> Any:
    """A plain class with the slots of the frozen event class ``cls``.

    The hot paths fill one with ordinary attribute stores, then make it a
    ``cls`` by assigning ``__class__`` (CPython allows it between classes of
    the same layout). For two fields or more this costs less than calling
    each slot descriptor's ``__set__`` (about 0.1 µs a call): a
    :class:`ToolCallDelta` is built in 0.2 µs instead of 0.35.
    """
    return type(f"Unfrozen{cls.__name__}", (), {"__slots__": cls.__dict__["__slots__"]})


UnfrozenCallDelta: Final = unfrozen_twin(ToolCallDelta)
_UnfrozenCallStart: Final = unfrozen_twin(ToolCallStart)
_UnfrozenReasoningDelta: Final = unfrozen_twin(ReasoningDelta)
_UnfrozenToolCall: Final = unfrozen_twin(ToolCall)


def new_text_delta(text: str) -> TextDelta:
    """``TextDelta(text)``, built faster."""
    event: TextDelta = _new(TextDelta)
    _set_text(event, text)
    return event


def new_reasoning_delta(text: str, raw: str) -> ReasoningDelta:
    """``ReasoningDelta(text, raw)``, built faster."""
    event = _new(_UnfrozenReasoningDelta)
    event.text = text
    event.raw = raw
    event.__class__ = ReasoningDelta
    return event  # type: ignore[no-any-return]


def new_call_start(index: int, call_id: str, name: str) -> ToolCallStart:
    """``ToolCallStart(index, call_id, name)``, built faster."""
    event = _new(_UnfrozenCallStart)
    event.index = index
    event.id = call_id
    event.name = name
    event.__class__ = ToolCallStart
    return event  # type: ignore[no-any-return]


def new_call_delta(index: int, call_id: str, arguments_delta: str) -> ToolCallDelta:
    """``ToolCallDelta(index, call_id, arguments_delta)``, built faster."""
    event = _new(UnfrozenCallDelta)
    event.index = index
    event.id = call_id
    event.arguments_delta = arguments_delta
    event.__class__ = ToolCallDelta
    return event  # type: ignore[no-any-return]


def new_tool_call(
    index: int,
    call_id: str,
    name: str,
    arguments: dict[str, Any],
    raw: str,
    issues: tuple[Any, ...],
    parsed: Any,
    validation_error: str | None,
) -> ToolCall:
    """``ToolCall(...)`` with every field given, built faster."""
    event = _new(_UnfrozenToolCall)
    event.index = index
    event.id = call_id
    event.name = name
    event.arguments = arguments
    event.raw = raw
    event.issues = issues
    event.parsed = parsed
    event.validation_error = validation_error
    event.__class__ = ToolCall
    return event  # type: ignore[no-any-return]
