"""Types of ``toolparse._native``, the native core (the Rust crate in ``native/``).

The extension is optional: it is built where a Rust toolchain is found, and
``toolparse.engine.native`` imports it only at run time, guarded. This stub
describes it for the type checker either way. ``mypy.stubtest`` (in
``.ci/run``) compares it with the built module: a name, parameter or kind
that differs fails CI.

Most classes are native twins of a class of the Python reference, and take
and give what it does (named in each docstring); the engine (:class:`Core`)
is the one the parsers run. The functions with a leading underscore exist
for the differential tests (``tests/test_native*.py``).
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Self, final

from typing_extensions import disjoint_base  # (PEP 800: Core and JsonCall are subclassed, layouts their own)

from toolparse.coercion.coerce import Issue
from toolparse.coercion.inline import SchemaTyper as ReferenceTyper
from toolparse.engine.calls import CallContext, OpenString, Outcome
from toolparse.engine.compile import CompiledGrammar
from toolparse.engine.declare import Reasoning, TermLike
from toolparse.engine.lexicon import Hit, TagContext
from toolparse.engine.lexicon import Lexicon as ReferenceLexicon
from toolparse.engine.text import TextScanner as ReferenceScanner
from toolparse.engine.value import Condition
from toolparse.errors import ToolparseError
from toolparse.events import ErrorReason, Event
from toolparse.readers.json import ValueTyper

__all__ = [
    "GATHER",
    "GATHER_QUIET",
    "LOOKAHEAD",
    "MAX_KEPT",
    "THOUGHT_WINDOW",
    "TRIAL",
    "VERSION",
    "WINDOW",
    "CallArgs",
    "Core",
    "EnvelopeCall",
    "JsonArgsCall",
    "JsonCall",
    "JsonCallArgs",
    "JsonRewriter",
    "Lexicon",
    "MemberCall",
    "SchemaTyper",
    "Tables",
    "TextScanner",
    "ValueReader",
    "_canonical_value",
    "_coerce",
    "_coerce_text",
    "_coerce_value",
    "_fast_counts",
    "_fragment_text",
    "_loads_canonical",
    "_loads_native",
    "_parse_literal",
    "_plans_worked_out",
    "_python_scanner_dump",
    "_record_reads",
    "_repr",
    "_start_scanner_dump",
    "_switched_scanner_dump",
    "canonical_number",
    "json_match",
    "parse_value",
]

# -- the engine's bounds (the tests compare them with the reference's) ------------------------

THOUGHT_WINDOW: Final[int]
GATHER: Final[int]
GATHER_QUIET: Final[int]
WINDOW: Final[int]
MAX_KEPT: Final[int]
LOOKAHEAD: Final[int]
TRIAL: Final[int]
VERSION: Final[str]
"""The crate's version."""

# -- the engine -------------------------------------------------------------------------------

@disjoint_base
class Core:
    """The native engine, as a base class: a parser's concrete twin that runs
    the native core is ``(engine class, Core)`` (``toolparse.engine.native.concrete``);
    ``Engine.__init__`` starts it with :meth:`_native_start`."""

    def __new__(cls, *_args: Any, **_kwargs: Any) -> Self: ...
    def _native_start(
        self,
        grammar: CompiledGrammar,
        ctx: CallContext,
        tool_names: tuple[str, ...] | None,
        reasoning: Reasoning | None,
        reasoning_option: str | Reasoning | None,
        answer: bool,
        *,
        errors_as_text: bool,
        max_call_chars: int,
        collapse: bool,
        unknown_on_error: bool,
        lanes: bool,
        reasoning_calls: str,
        thought: bool,
    ) -> None:
        """``Engine.__init__``'s native half."""

    def _native_fresh(self, proto: Core, ctx: CallContext) -> None:
        """The native half of a parser made from the prototype ``proto``, with the context ``ctx``."""

    def feed(self, delta: str, /) -> list[Event]:
        """Parse the next piece of model output; return the events it completes."""

    def close(self) -> list[Event]:
        """End of the stream: flush held text and finish (or fail) an open call."""

    @property
    def grammar_name(self) -> str: ...
    @property
    def decided(self) -> str | None: ...
    @property
    def lane(self) -> str | None: ...
    @property
    def _offset(self) -> int: ...
    @property
    def _broken(self) -> ToolparseError | None: ...
    def _plant(self, place: str, exc: BaseException | None = None) -> None:
        """(tests) From now on, raise ``exc`` where the engine reaches ``place``
        (``"panic"``: a Rust panic there); None takes it away."""

def _record_reads(reads: list[str] | None) -> None:
    """(tests) Append the text of every read the native engine makes to ``reads``; None stops."""

def _plans_worked_out() -> int:
    """(tests) How many members' plans the core worked out in this process."""

# -- calls (twins of toolparse.engine.calls' classes) ----------------------------------------

@final
class CallArgs:
    """A :class:`MemberCall`'s argument text (the reference's ``Call.args``, a ``Pieces``)."""

    def text(self) -> str: ...
    def append(self, piece: str) -> None: ...
    def clear(self) -> None: ...
    @property
    def length(self) -> int: ...

@final
class MemberCall:
    """``toolparse.engine.calls.MemberCall``: a call's arguments from named text members."""

    def __new__(
        cls,
        ctx: CallContext,
        name: str,
        convert: Callable[[str], Any] | None = None,
        *,
        literal: bool = False,
    ) -> Self: ...
    @property
    def ctx(self) -> CallContext: ...
    @property
    def name(self) -> str: ...
    @property
    def started(self) -> bool: ...
    @property
    def streaming(self) -> bool: ...
    @property
    def index(self) -> int | None: ...
    @property
    def id(self) -> str | None: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def typer(self) -> None:
        """(Inline coercion of JSON arguments: a member call has none.)"""

    @property
    def extra_issues(self) -> tuple[Issue, ...]: ...
    @property
    def scratch(self) -> list[str]:
        """What was written since the last flush, as one piece (a copy)."""

    @property
    def args(self) -> CallArgs: ...
    def announce(self, name: str) -> None: ...
    def before_first_delta(self) -> None: ...
    def holding(self) -> bool: ...
    def flush(self) -> None: ...
    def open_string(self) -> OpenString | None: ...
    def begin(self, key: str) -> bool: ...
    def has(self, key: str) -> bool: ...
    def sole_string_property(self) -> str | None: ...
    @staticmethod
    def sole_string_of(schema: Mapping[str, Any] | None) -> str | None: ...
    def text(self, piece: str) -> None: ...
    def streams(self) -> bool: ...
    def end(self) -> None: ...
    def close(self) -> None: ...
    def error(self, end: int | None, reason: ErrorReason, message: str) -> Outcome: ...
    def outcome(self, end: int | None) -> Outcome: ...

@final
class JsonCallArgs:
    """A :class:`JsonCall`'s argument text (the reference's ``Call.args``, a ``Pieces``)."""

    def text(self) -> str: ...
    def append(self, piece: str) -> None: ...
    def clear(self) -> None: ...
    @property
    def length(self) -> int: ...

@disjoint_base
class JsonCall:
    """The JSON calls' shared class (not built itself: :class:`EnvelopeCall`,
    :class:`JsonArgsCall`). The reference's ``call.reader`` methods are the call's own."""

    @property
    def ctx(self) -> CallContext: ...
    @property
    def name(self) -> str | None: ...
    @property
    def started(self) -> bool: ...
    @property
    def streaming(self) -> bool: ...
    @property
    def index(self) -> int | None: ...
    @property
    def id(self) -> str | None: ...
    @property
    def problem(self) -> str | None: ...
    @property
    def typer(self) -> ReferenceTyper | None:
        """The call's inline coercer (``ctx.typer_for(name)``), if any."""

    @property
    def extra_issues(self) -> tuple[Issue, ...]: ...
    @property
    def scratch(self) -> list[str]:
        """What was written since the last flush, as one piece (a copy)."""

    @property
    def args(self) -> JsonCallArgs: ...
    @property
    def done(self) -> bool:
        """``call.reader.done``: the JSON is complete."""

    def feed(self, text: str, i: int = 0) -> int:
        """``call.reader.feed(text, i)``."""

    def finish(self) -> bool:
        """``call.reader.finish()``."""

    def announce(self, name: str) -> None: ...
    def holding(self) -> bool: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...
    def open_string(self) -> OpenString | None: ...
    def error(self, end: int | None, reason: ErrorReason, message: str) -> Outcome: ...
    def outcome(self, end: int | None) -> Outcome: ...

@final
class EnvelopeCall(JsonCall):
    """``toolparse.engine.calls.EnvelopeCall``: one call object, its root keys
    routed to the name and the arguments."""

    def __new__(
        cls,
        ctx: CallContext,
        name_keys: Iterable[str] | None = None,
        argument_keys: Iterable[str] | None = None,
    ) -> Self: ...
    @property
    def name_key(self) -> str | None: ...
    @property
    def args_key(self) -> str | None: ...
    @property
    def args_kind(self) -> str:
        """The arguments' first character ("" until known)."""

@final
class JsonArgsCall(JsonCall):
    """``toolparse.engine.calls.JsonArgsCall``: a call named by its markup whose
    body is its arguments object."""

    def __new__(cls, ctx: CallContext, name: str) -> Self: ...

# -- readers ---------------------------------------------------------------------------------

@final
class JsonRewriter:
    """``toolparse.readers.json.JsonRewriter``, its output its own: ``slots``
    outputs; with ``root_keys``, each root member's value goes to the slot
    ``root_keys(key)`` names (None: nowhere), with the typer it gives."""

    def __new__(
        cls,
        max_depth: int = 64,
        typer: ValueTyper | None = None,
        *,
        slots: int = 1,
        root_keys: Callable[[str], tuple[int | None, ValueTyper | None]] | None = None,
        on_member_end: Callable[[str], object] | None = None,
    ) -> Self: ...
    @property
    def max_depth(self) -> int: ...
    @property
    def done(self) -> bool: ...
    @property
    def typer(self) -> ValueTyper | None: ...
    def feed(self, text: str, i: int = 0) -> int: ...
    def finish(self) -> bool: ...
    def in_plain_string(self, slot: int = 0) -> bool: ...
    def output(self, slot: int = 0) -> str: ...
    def take(self, slot: int = 0) -> str: ...

def parse_value(text: str, *, max_depth: int = 64) -> str | None:
    """``toolparse.readers.json.parse_value``."""

def canonical_number(token: str) -> str | None:
    """``toolparse.readers.json._canonical_number``."""

def json_match(pattern: str, text: str, i: int) -> int | None:
    """Where the reader's pattern ``pattern`` (``"STRING_RUN"``, ``"_PLAIN_SQ"``,
    ``"_WHOLE_KEY"``, ``"_WHOLE_STRING"``) matched at ``i`` ends; None: no match."""

@final
class Lexicon:
    """``toolparse.engine.lexicon.Lexicon``: the terminals of one region."""

    def __new__(cls, terminals: Iterable[TermLike]) -> Self: ...
    @property
    def terms(self) -> tuple[TermLike, ...]: ...
    @property
    def literals(self) -> frozenset[str]: ...
    @property
    def firsts(self) -> frozenset[str] | None: ...
    @property
    def after_lt(self) -> tuple[bool, frozenset[str]]: ...
    @property
    def max_len(self) -> int: ...
    @property
    def literal_patterns(self) -> tuple[Any, Any] | None:
        """(Literals only) the reference's two regexes (``re.Pattern[str]``)."""

    def find(self, text: str, start: int, ctx: TagContext, end: int | None = None) -> Hit | None: ...
    def undecided(self, text: str, start: int, found: TermLike) -> bool: ...
    def first_chars(self) -> frozenset[str]: ...
    def match_at(self, text: str, pos: int, ctx: TagContext) -> Hit | None: ...
    def partial_start(self, text: str, start: int, ctx: TagContext) -> int: ...
    def prefix_at(self, text: str, pos: int, ctx: TagContext) -> bool: ...

@final
class TextScanner:
    """``toolparse.engine.text.TextScanner``: built from a reference scanner, where it stands."""

    def __new__(cls, scanner: ReferenceScanner) -> Self: ...
    def scan(self, text: str, i: int, final: bool) -> tuple[int, Hit | None]: ...
    def starts_ordinary_line(self, delta: object) -> bool: ...
    def after_block(self, last: str) -> None: ...
    def answer_begins_again(self) -> None: ...
    def enter_reasoning(self) -> None: ...
    def leave_reasoning(self) -> None: ...
    @property
    def in_reasoning(self) -> bool: ...
    @property
    def at_line_start(self) -> bool: ...
    @property
    def standing(self) -> tuple[int, str, int, bool, bool, bool]:
        """Where it stands, as the reference's slots say it: (``_state``, ``_fence``,
        ``_fence_len``, ``_prelude``, ``_absorb``, ``_answer``)."""

@final
class ValueReader:
    """``toolparse.engine.value.ValueReader``: reads one value; ``emit`` receives its text."""

    opened: OpenString | None
    """The engine's string lane record for this value, once built."""

    def __new__(
        cls,
        lexicon: ReferenceLexicon | Lexicon | Iterable[TermLike],
        steps: Iterable[TermLike],
        conditions: dict[TermLike, Condition],
        ctx: TagContext,
        emit: Callable[[str], object],
        *,
        xml: bool,
        markup: bool,
        nest: dict[TermLike, TermLike] | None = None,
        nest_at_line_start: bool = False,
        keep_newlines: bool = False,
        typed: bool = False,
    ) -> Self: ...
    @property
    def plain(self) -> bool: ...
    @property
    def fresh(self) -> bool: ...
    @property
    def nested(self) -> bool: ...
    def read(self, text: str, i: int, final: bool) -> tuple[int, Hit | None]: ...
    def finish(self) -> None: ...

# -- coercion --------------------------------------------------------------------------------

@final
class SchemaTyper:
    """``toolparse.coercion.inline.SchemaTyper``; ``cache=False``: neither read
    nor fill the caches its kind shares (for tests)."""

    def __new__(cls, schema: Mapping[str, Any], *, max_depth: int = 64, cache: bool = True) -> Self: ...
    @property
    def root(self) -> Mapping[str, Any]: ...
    @property
    def max_depth(self) -> int: ...
    @property
    def issues(self) -> list[Issue]:
        """The issues reported so far (a new list each time)."""

    def begin_value(self, first: str) -> bool: ...
    def key(self, key: str) -> bool: ...
    def array_item(self) -> None: ...
    def end_container(self) -> None: ...
    def finish_buffered(self, canonical: str) -> str: ...
    @staticmethod
    def clear_caches() -> None: ...
    @staticmethod
    def cache_sizes() -> tuple[int, int]:
        """(plans cached, member lookups cached)"""

    def _state(
        self,
    ) -> tuple[list[tuple[str, Any, str, int]], tuple[str, Any], str, list[tuple[Any, str, bool]]]:
        """(tests) frames as ``(kind, schema, path, count)``, the next value's
        ``(kind, raw schema)``, its path, the values collected as ``(raw schema, path, integers)``."""

# (schemas below are JSON Schema values, Any as in toolparse.coercion; "or None": the native
# path declines and the caller asks Python)

def _fragment_text(text: str) -> str | None: ...
def _coerce_text(text: str, schema: Any, root: Any, key: str) -> tuple[Any, list[Issue]] | None: ...
def _coerce_value(value: Any, schema: Any, root: Any, key: str) -> tuple[Any, list[Issue]] | None: ...
def _canonical_value(value: Any) -> str | None: ...
def _loads_native(text: str) -> tuple[Any] | None: ...
def _loads_canonical(text: str) -> Any: ...
def _fast_counts(reset: bool = False) -> dict[str, tuple[int, int]]:
    """``{path: (taken, declined)}`` of the fast paths since the last reset."""

def _parse_literal(text: str, max_depth: int = 64) -> tuple[Any, str | None] | None:
    """``(value, None)``, ``(None, message)`` where Python raises ``LiteralError(message)``,
    or None where the native reader declines."""

def _repr(text: str) -> str: ...
def _coerce(value: Any, schema: Any, max_depth: int = 64) -> tuple[Any, str, list[tuple[str, str, str, str]]]:
    """The core's coercion (``native/core/src/coercion``): the value, its canonical JSON,
    the issues as ``(path, expected, got, action)``."""

# -- the start scanner from grammar data (tests/test_start_scanner.py) ------------------------

def _start_scanner_dump(
    grammar_json: str,
    tools: Sequence[str] | None,
    option_name: str | None,
    option_json: str | None,
    answer: bool,
) -> str:
    """The core's start scanner of the grammar's data, shown as canonical text."""

def _switched_scanner_dump(
    grammar_json: str,
    tools: Sequence[str] | None,
    option_name: str | None,
    option_json: str | None,
    answer: bool,
    member: str,
    state: int,
    fence: str,
    fence_len: int,
    prelude: bool,
) -> str:
    """``grammar="auto"``'s start scanner, standing at ``state``, switched to ``member``."""

def _python_scanner_dump(scanner: ReferenceScanner) -> str:
    """The reference scanner ``scanner``, read by its slots, in the same text."""

# -- the grammar tables ----------------------------------------------------------------------

@final
class Tables:
    """A ``CompiledGrammar`` read into the native core."""

    def __new__(cls, compiled: CompiledGrammar) -> Self: ...
    def describe(self) -> dict[str, Any]:
        """The tables as plain Python values, to compare with the Python tables."""

    def claim_matches(self, term: TermLike, k: int, window: str) -> bool: ...
    @property
    def blocks(self) -> int: ...
