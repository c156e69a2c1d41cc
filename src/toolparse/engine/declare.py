"""The vocabulary a wire format is declared in.

A grammar is data: the *openers* that start a block of call markup in the
visible text, and the *regions* of that markup. Each region names the shared
reader that reads its content and what each *terminal* (a literal marker such
as ``</parameter>``, or a tag such as ``</path>``) does there: the calls and
members it starts or ends, and the region that reads on. The engine
(:mod:`toolparse.engine.machine`) runs the compiled tables; a grammar module
holds no parsing code.

Readers (see :mod:`toolparse.engine.machine` for exactly what each does):

* :class:`Space`: whitespace between terminals; any other character does
  ``otherwise`` (or what ``chars`` says for it);
* :class:`Name`: a short name (a tool or parameter name) up to a terminal;
* :class:`JsonCalls`: JSON call objects ``{"name": ..., "arguments": ...}``
  (other keys where declared), one, an array of them, or several separated
  by commas or whitespace;
* :class:`JsonArgs`: one JSON arguments object, for a call named before it;
* :class:`Value`: a parameter's text up to a terminal, streamed as it comes.

A step (:class:`Go`) may start a call named by the name just read (or by the
tag that matched), begin a member keyed by it, end the member or the call,
and then go to another region, end the block (``END``: after the terminal;
``BEFORE``: before it, so it is read again as text), or decide that the
opener was only mentioned (``REJECT``: the opener and what followed are
text). :class:`Fail` ends the call in a ``malformed_markup`` error and
passes over the rest of the block.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from toolparse.errors import InvalidOptionError
from toolparse.events import ErrorReason

if TYPE_CHECKING:
    from toolparse.tools import Tool


@dataclass(frozen=True, slots=True, eq=False)
class Term:
    """A terminal that is not a literal: a family of tags matched by their shape
    and accepted by what the parser knows at that moment (the member being
    read, the call's name, the declared tools)."""

    name: str

    def __repr__(self) -> str:
        return self.name


# Tags whose name is decided while parsing (compared, never compiled).
ANY_OPEN_TAG: Final = Term("<any>")
"""``<name>``, any name: a parameter written as a tag named after it."""
ANY_CLOSE_TAG: Final = Term("</any>")
"""``</name>``, any name."""
ANY_EMPTY_TAG: Final = Term("<any/>")
"""``<name/>``, any name."""
PROPERTY_TAG: Final = Term("<property>")
"""``<name>`` for a property of the called tool's schema (any name when the
schema lists none): the next parameter, in a lookahead."""
KEY_CLOSE_TAG: Final = Term("</key>")
"""``</key>`` for the member being read."""
KEY_OPEN_TAG: Final = Term("<key>")
"""``<key>`` for the member being read (the same element opened inside itself)."""
CALL_CLOSE_TAG: Final = Term("</call>")
"""``</name>`` for the call being read (``</write_file>``)."""
TOOL_TAG: Final = Term("<tool>")
"""``<name>`` for a declared tool: opens a call named by the tag."""
TOOL_EMPTY_TAG: Final = Term("<tool/>")
"""``<name/>`` for a declared tool: a call with no arguments."""
PROPERTY_NAME: Final = Term("property>")
"""(In ``confirm``) ``name>``, the rest of ``<parameter=name>``, for a property of
the called tool's schema (any name when the schema lists none)."""
CLOSER: Final = Term("closer")
"""The closing marker of the block's opener (:attr:`Opener.closer`)."""
OPENER: Final = Term("opener")
"""Any opener of the grammar: a new block begins (the terminal is read again)."""
END_OF_STREAM: Final = Term("end of stream")
"""In ``confirm``: the stream ending confirms the terminal."""

TermLike: TypeAlias = str | Term

NEVER_CLAIMED: Final = r"(?!)"
"""(An :attr:`Opener.claim`) ``grammar="auto"`` leaves this opener to the other
grammars that share it: they read the same markup (Granite's and xLAM's
``<tool_call>[...]`` is Hermes's), and it decides them."""

# Where a step goes besides a region.
END: Final = "<end>"
"""The block ends after the terminal."""
BEFORE: Final = "<before>"
"""The block ends before the terminal, which is read again as text."""
REJECT: Final = "<reject>"
"""The opener was mentioned, not used: it and what was read after it are text."""
STAY: Final = "<stay>"
"""Stay in this region (the terminal or text is passed over)."""

# Names a member can take besides the name just read.
SOLE_STRING: Final = "<sole string property>"
"""The tool's one property when it has exactly one and it is a string; a
step that needs it and finds none rejects the block."""


@dataclass(frozen=True, slots=True)
class Go:
    """What a terminal (or a character, or the end of the stream) does."""

    to: str
    """A region, or :data:`END`, :data:`BEFORE`, :data:`REJECT`, :data:`STAY`."""
    call: bool = False
    """Start a call named by the name just read (or by the tag that matched)."""
    member: str | bool = False
    """Begin a member keyed by the name just read (True), or by :data:`SOLE_STRING`."""
    end_member: bool = False
    end_call: bool = False
    confirm: tuple[TermLike, ...] = ()
    """(In a :class:`Value`) the terminal ends the value only when one of these
    follows it, after whitespace; otherwise it is part of the value."""
    line_start: bool = False
    """(In a :class:`Value`) the terminal ends the value only at the start of a line."""
    require: str | None = None
    """:data:`SOLE_STRING`: the step rejects the block unless the called tool has one."""
    again: bool = False
    """The terminal is not consumed: the next region reads it again."""


@dataclass(frozen=True, slots=True)
class Fail:
    """The markup is broken here: an error (``malformed_markup`` unless said
    otherwise), and the rest of the block (up to its closer or the next
    opener) is passed over. A ``malformed_json`` failure also turns the calls
    already complete in the block into errors: the model did not write the
    block it meant to."""

    message: str
    reason: ErrorReason = ErrorReason.MALFORMED_MARKUP


Step: TypeAlias = Go | Fail


def go(to: str, **actions: bool | str | tuple[TermLike, ...]) -> Go:
    """A step, written short: ``go("params", call=True)``."""
    return Go(to, **actions)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Space:
    """Whitespace between terminals."""

    on: Mapping[TermLike, Step]
    chars: Mapping[str, Step] = field(default_factory=dict)
    """Steps for single characters met instead of whitespace (``"{": go("json")``)."""
    otherwise: Step = Fail("unexpected text inside the call")
    at_end: Step | None = None
    """At the end of the stream (default: the open call is unfinished, else the block ends)."""


@dataclass(frozen=True, slots=True)
class Name:
    """A name, up to one of the ``on`` terminals."""

    on: Mapping[TermLike, Step]
    otherwise: Step = Fail("a name is not closed")
    """An invalid character, or a name longer than ``max_len``."""
    max_len: int = 128
    strip: bool = False
    """Whitespace around the name is allowed (a name written as element text)."""
    declared: bool = False
    """Only a declared tool's name is a name (with no tools declared, none is)."""
    at_end: Step | None = None


@dataclass(frozen=True, slots=True)
class JsonCalls:
    """JSON call objects: routes ``name`` and ``arguments`` (or ``parameters``),
    or the keys declared."""

    then: str
    otherwise: Step = field(default_factory=lambda: Go(REJECT))
    """A first character that begins no JSON call."""
    separators: str = ","
    """What may separate call objects besides whitespace (Llama 3 uses ``;``)."""
    name_keys: tuple[str, ...] = ("name",)
    """The keys that hold a call's name (Cohere writes ``tool_name``)."""
    argument_keys: tuple[str, ...] = ("arguments", "parameters")
    """The keys that hold a call's arguments (the first met is read)."""


@dataclass(frozen=True, slots=True)
class JsonArgs:
    """One JSON arguments object of a call named before it."""

    then: str


@dataclass(frozen=True, slots=True)
class Value:
    """A parameter's text up to one of the ``on`` terminals.

    One newline after the opening tag and one before the closing tag are
    dropped; a value that is one whole ``<value>...</value>`` wrapper is
    unwrapped (see :mod:`toolparse.engine.value`). With ``xml``, the
    five predefined entities and numeric references are decoded and CDATA is
    unwrapped (elsewhere values are the model's raw text), and a value that
    is not a plain string keeps its markup, nested elements included.
    """

    on: Mapping[TermLike, Step]
    xml: bool = False
    nest: Mapping[TermLike, TermLike] = field(default_factory=dict)
    """Markup the value may hold, balanced: an opening terminal (that ends no
    value here) counts one level, and the closing one it names is then the
    value's text, not its end (an element of the same name inside an XML
    value; an example of the very format inside a Qwen3-Coder value)."""
    nest_at_line_start: bool = False
    """Count an opening terminal of ``nest`` only where it begins a line."""
    balanced: bool = False
    """A value that ends with nested markup still open is broken markup."""
    keep_newlines: bool = False
    """Keep the newlines right after the opening tag and right before the
    closing one: the format writes values glued to their tags, so those
    newlines are the value's own (GLM)."""
    at_end: Step | None = None


@dataclass(frozen=True, slots=True)
class Literal:
    """A Python literal (a pythonic call's argument: ``"Paris"``, ``3``,
    ``[1, 2]``, ``{'a': True}``), up to one of the ``on`` characters met
    outside its strings and brackets. Read as data, never evaluated (see
    :mod:`toolparse.readers.pyliteral`); collected, then typed by the schema."""

    on: Mapping[str, Step]
    at_end: Step | None = None


Region: TypeAlias = Space | Name | JsonCalls | JsonArgs | Value | Literal


@dataclass(frozen=True, slots=True)
class Opener:
    """What a terminal of the visible text opens."""

    to: str
    """The first region of the block (for a step with actions, use ``step``)."""
    closer: TermLike | None = None
    """The marker that properly closes this block (:data:`CLOSER`)."""
    lenient: bool = False
    """A common word in other uses (``<tools>``): the block is text unless a call is inside."""
    step: Go | None = None
    """Actions taken as the block opens (``call=True`` for ``<tool_name>``)."""
    again: bool = False
    """The opener is part of the block's markup: its first region reads it
    (the ``{`` of bare JSON)."""
    at_start: bool = False
    """Opens a block only where the model's answer begins (after whitespace and
    reasoning): bare JSON ``{`` or a pythonic ``[`` is a call there, and
    ordinary text anywhere else."""
    claim: str | None = None
    r"""(For ``grammar="auto"``, where another grammar has the same opener) a
    pattern of the text right after the opener that marks the block as this
    grammar's (``r"\s*[\[{]"``: JSON follows). Anchored there, bounded (see
    :mod:`toolparse.engine.auto`); no claim: the block is this grammar's when
    no other grammar's claim matches."""
    takes_rest: bool = False
    """(With a ``claim``) the block is also this grammar's when no claim matches:
    the claim only lets it be decided early."""


class PromptFormat(ABC):
    """The prompt side of a wire format: teach a model the format, and write a
    conversation's past calls and tool results back into it. A rendered call
    parses back to the same call in its grammar."""

    @abstractmethod
    def system_prompt(self, tools: Sequence[Tool]) -> str:
        """Instructions that describe ``tools`` and how to call them in this format."""

    @abstractmethod
    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """A past call as the model would have written it."""

    @abstractmethod
    def render_result(self, name: str, content: Any) -> str:
        """A tool's result, as text for the next user turn."""

    def render_call_after_text(self, name: str, arguments: Mapping[str, Any]) -> str:
        """A call as the model writes it after some text: the same as
        :meth:`render_call`, except in formats whose bare calls are read only
        where the answer begins (they frame it with their special tokens)."""
        return self.render_call(name, arguments)

    def render_turn(
        self,
        reasoning: str,
        markers: Reasoning | None,
        text: str,
        calls: Sequence[tuple[str, Mapping[str, Any]]],
    ) -> str:
        """A past assistant turn as the model wrote it: its ``reasoning``
        (empty: none kept) in ``markers``, its ``text``, then its ``calls``.

        The default is Qwen3's template, which GLM, DeepSeek, Kimi and
        MiniMax share: ``'<think>\n' + reasoning.strip('\n') + '\n</think>\n\n'``,
        then the text with its leading newlines stripped, the calls on lines
        of their own after it. Formats with their own turn structure (gpt-oss's
        channels) override it."""
        block = ""
        if reasoning and markers is not None:
            block = f"{markers.open or ''}\n{reasoning.strip(chr(10))}\n{markers.close}\n\n"
            text = text.lstrip("\n")
        parts = [text] if text else []
        parts.extend(self.render_call(name, arguments) for name, arguments in calls)
        return block + "\n".join(parts)


MAX_MARKER: Final = 128
"""The longest reasoning marker (real ones are a few characters, a special token)."""


@dataclass(frozen=True, slots=True)
class Reasoning:
    """How a model marks its reasoning ("thinking") in its output.

    Reasoning is a region of the visible text: inside it no call is read (call
    markup there is reasoning text), and its text comes out as
    :class:`~toolparse.events.ReasoningDelta`, not as visible text.
    """

    open: str | None
    """The opening marker (``<think>``); None when only the prompt opens it."""
    close: str
    """The closing marker (``</think>``)."""
    starts_open: bool = False
    """The prompt opened it (Qwen3 thinking templates, DeepSeek-R1): the output
    begins inside reasoning and usually holds only the closer; an opener at
    the very start is read as reasoning markup too."""
    anywhere: bool = True
    """The opener opens reasoning anywhere in the visible text (outside code
    fences and quotes); False: only where the answer begins, after whitespace
    and earlier reasoning."""
    markup: tuple[str, ...] = ()
    """The format's other markers around its channels (gpt-oss's
    ``<|start|>assistant``, ``<|channel|>final<|message|>``, ``<|return|>``):
    never visible text; like a stray closer, each is kept in a
    :class:`~toolparse.events.ReasoningDelta`'s ``raw`` with no ``text``."""
    ended_by: tuple[str, ...] = ()
    """Markers that also end reasoning, before them: the format's next message
    begins there, so the one left without its closer has ended (harmony's
    ``<|start|>``). Reasoning closes where one begins, and it is read on as
    the visible text reads it (as markup, an opener, or text)."""

    def __post_init__(self) -> None:
        for name in ("markup", "ended_by"):
            markers = getattr(self, name)
            if not isinstance(markers, (tuple, list)):
                raise InvalidOptionError(f"Reasoning {name} must be a tuple of strings, not {markers!r}")
            object.__setattr__(self, name, tuple(markers))
        for marker in (self.open, self.close, *self.markup, *self.ended_by):
            if marker is None and marker is self.open:
                continue
            if not isinstance(marker, str) or not marker or marker[0].isspace():
                raise InvalidOptionError(
                    f"a reasoning marker must be a string not starting with whitespace, not {marker!r}"
                )
            if len(marker) > MAX_MARKER:
                raise InvalidOptionError(
                    f"a reasoning marker is at most {MAX_MARKER} characters, "
                    f"not {len(marker)}: {marker[:40]!r}..."
                )
        if self.open == self.close:
            raise InvalidOptionError(f"the reasoning opener and closer must differ, not both {self.close!r}")
        if self.close in self.ended_by:
            raise InvalidOptionError(f"the reasoning closer {self.close!r} cannot also be in ended_by")
        if self.open is None and not self.starts_open:
            raise InvalidOptionError("reasoning with no opener must start open (starts_open=True)")


@dataclass(frozen=True, slots=True, eq=False)
class Grammar:
    """A wire format: its openers, its regions, and its prompt side."""

    name: str
    openers: Mapping[TermLike, Opener]
    regions: Mapping[str, Region]
    prompt: PromptFormat
    start: str | None = None
    """Begin inside this region, as in a block with no opener (a forced answer)."""
    reasoning: Reasoning | None = None
    """How this format marks reasoning, when it has its own way (gpt-oss's
    analysis channel): what the ``reasoning="auto"`` option means for it."""
    tokens: bool = False
    """The literal openers (and the reasoning markers) are special tokens of
    the model's tokenizer, which prose cannot spell by accident: they are
    markup wherever they appear, inside a Markdown code fence or quote too
    (which they end)."""
