"""One call's life, shared by every grammar: announce it, stream its arguments
as canonical JSON deltas, and end it in a call or an error.

A call's arguments arrive in one of three ways, one class each:

* :class:`EnvelopeCall`: a JSON object holding the name and the arguments
  (``{"name": ..., "arguments": {...}}``): its root keys are routed, the
  name announces the call, the arguments stream;
* :class:`JsonArgsCall`: a call already named, whose arguments are one JSON
  object (``<function=NAME>{...}``);
* :class:`MemberCall`: a call already named, whose arguments arrive as named
  text members (``<parameter=city>Paris</parameter>``), each typed by the
  tool's schema.

Each writes canonical JSON pieces into ``scratch``; :meth:`Call.flush` turns
what was written since the last flush into one :class:`ToolCallDelta`. The
deltas are kept, so the final arguments are ``json.loads`` of exactly what
was streamed: argument deltas reconcile by construction.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from toolparse.coercion.coerce import Issue, _child_path, coerce
from toolparse.coercion.inline import (
    DROP,
    DROPPED_EXPECTED,
    SchemaTyper,
    coerce_at,
    member_schema,
    text_streams,
    wants_array,
)
from toolparse.errors import InvalidOptionError
from toolparse.events import (
    ErrorReason,
    Event,
    ToolCall,
    ToolCallError,
    canonical_json,
    new_call_delta,
    new_call_start,
    new_tool_call,
    replace_lone_surrogates,
)
from toolparse.readers.json import JsonRewriter, ValueTyper, parse_value
from toolparse.readers.pieces import Pieces
from toolparse.tools import Tool

IdFactory = Callable[[int], str]
_MAX_PLANS = 4096

_MemberPlan = tuple[Any, int, tuple[Issue, ...]]

# Member plans shared by every parser, by the identity of the tool's schema
# (kept in the entry, so that its id is not reused while the entry lives): a
# tool declared once serves every parser built with it, and, as with the
# coercer's plans (``inline._PLANS``), a schema is taken not to change once
# used. Bounded: the keys come from the model.
_SHARED_PLANS: dict[tuple[int, str], tuple[Any, _MemberPlan]] = {}

# how MemberCall reads a member
_STREAM = 0  # a string written as it arrives
_BUFFER = 1  # collected, coerced to its schema when it closes
_DEFER = 2  # an array member: collected, written when the call closes
_SNIFF = 3  # no schema: a string, unless its first character opens JSON
_JSON = 4  # no schema and JSON-looking: parsed when it closes
_DROP = 5  # read and dropped


class OpenString(NamedTuple):
    """A string argument that streams, as the native core's string lane takes
    it: what the native calls' ``open_string`` test hook returns (the reference
    has no lanes: its calls read every delta)."""

    args: Pieces
    """The call's argument pieces: the lane's text joins them, a run at a time."""
    call_index: int
    call_id: str
    plain: re.Pattern[str]
    """In a JSON string, a delta this matches whole is taken as it stands; in a
    value, a delta this is found nowhere in is taken JSON-encoded."""
    piece: Callable[[str, re.Match[str]], tuple[str, str] | None] | None = None
    """(A value) any other delta is taken as this says, given ``plain``'s first
    match (the native core's ``fast_piece``)."""


@dataclass(slots=True)
class Outcome:
    """One call or error inside a block.

    ``end`` is the stream position where its raw text ends; ``None`` means
    "to the end of the block". ``index``/``id`` are set once the call was
    announced with a :class:`ToolCallStart`.
    """

    end: int | None
    name: str | None = None
    index: int | None = None
    id: str | None = None
    arguments: dict[str, Any] | None = None
    reason: ErrorReason | None = None  # None for a successful call
    message: str = ""
    issues: tuple[Issue, ...] = ()
    parsed: Any = None
    validation_error: str | None = None

    def to_event(self, raw: str, offset: int) -> ToolCall | ToolCallError:
        if self.reason is None:
            assert self.index is not None and self.id is not None and self.name is not None
            assert self.arguments is not None
            return new_tool_call(
                self.index,
                self.id,
                self.name,
                self.arguments,
                raw,
                self.issues,
                self.parsed,
                self.validation_error,
            )
        return ToolCallError(
            str(self.reason),
            self.message,
            raw,
            offset,
            self.name,
            self.index,
            self.id,
            self.arguments,
        )


class CallContext:
    """What the calls of one stream share: tools, ids, indices, limits. (It is
    also the tag context of the visible text, where only the tools are known.)"""

    key = None
    call_name = None
    property_names = None

    def given(self, name: str) -> bool:
        """(The visible text's tag context) no call is being read."""
        return False

    __slots__ = (
        "_id_factory",
        "_property_names",
        "_seed",
        "_tool_names",
        "coerce",
        "max_depth",
        "next_index",
        "out",
        "tools",
    )

    def __init__(
        self,
        tools: tuple[Tool, ...] | None,
        *,
        max_depth: int,
        coerce: bool = True,
        id_factory: IdFactory | None = None,
        seed: int | None = None,
    ) -> None:
        self.tools: dict[str, Tool] | None = None if tools is None else {tool.name: tool for tool in tools}
        self._tool_names: tuple[str, ...] | None = None
        self._property_names: dict[str, tuple[str, ...] | None] = {}  # (by tool: see property_names_of)
        self.max_depth = max_depth
        self.coerce = coerce
        self.next_index = 0
        self.out: list[Event] = []
        """The event list of the feed in progress (set by the engine for each feed)."""
        self._seed = seed if id_factory is None else None
        self._id_factory = _ids_of(seed) if id_factory is None else id_factory

    def fresh(self) -> CallContext:
        """A context for a new parser like the one this one was made for (a
        prototype: see :mod:`toolparse.parser`): the same tools and options,
        no call yet: ids from a generator of its own (seeded alike), where
        they are not a caller's factory's."""
        if self._seed is None and self._id_factory is not _random_ids:
            raise ValueError("a call context with a caller's id factory is not copied")
        new = CallContext.__new__(CallContext)
        new.tools = self.tools  # (never changed once built)
        new._tool_names = self._tool_names
        new._property_names = self._property_names  # (what a schema says: the same for both)
        new.max_depth = self.max_depth
        new.coerce = self.coerce
        new.next_index = 0
        new.out = []
        new._seed = self._seed
        new._id_factory = _ids_of(self._seed)  # (a seeded generator of its own)
        return new

    @property
    def tool_names(self) -> tuple[str, ...] | None:
        """The declared tools' names, sorted (None: no tools declared)."""
        if self._tool_names is None and self.tools is not None:
            self._tool_names = tuple(sorted(self.tools))
        return self._tool_names

    def typer_for(self, name: str | None) -> SchemaTyper | None:
        """A fresh inline coercer for a call to ``name``, when coercion applies."""
        if not self.coerce or self.tools is None or name is None or name not in self.tools:
            return None
        return SchemaTyper(self.tools[name].parameters, max_depth=self.max_depth)

    def property_names_of(self, name: str | None) -> tuple[str, ...] | None:
        """The properties of the schema of tool ``name``, sorted (None: no
        tool, or a schema that names none). Worked out once per tool."""
        schema = self.schema_of(name)
        if schema is None:
            return None
        assert name is not None
        if name not in self._property_names:
            properties = schema.get("properties")
            names = tuple(sorted(properties)) if isinstance(properties, dict) and properties else None
            self._property_names[name] = names
        return self._property_names[name]

    def schema_of(self, name: str | None) -> dict[str, Any] | None:
        tool = self.tools.get(name) if self.tools is not None and name is not None else None
        return tool.parameters if tool is not None else None

    def member_plan(self, name: str, key: str, root: dict[str, Any]) -> _MemberPlan:
        """How a member ``key`` of a call to ``name`` is read, from the tool's
        schema ``root``: (its schema, :class:`MemberCall`'s mode for it, issues
        to report each time). Worked out once per tool and key."""
        shared = _SHARED_PLANS.get((id(root), key))
        if shared is not None and shared[0] is root:
            return shared[1]
        plan = _member_plan(root, key)
        if len(_SHARED_PLANS) >= _MAX_PLANS:  # (keys come from the model: bounded)
            _SHARED_PLANS.clear()
        _SHARED_PLANS[(id(root), key)] = (root, plan)
        return plan

    def is_known(self, name: str) -> bool:
        """With no tools declared, any name is accepted."""
        return self.tools is None or name in self.tools

    def start(self, name: str) -> tuple[int, str]:
        """Give a new call its index and id and announce it."""
        index, call_id = self.assign()
        self.out.append(new_call_start(index, call_id, name))
        return index, call_id

    def assign(self) -> tuple[int, str]:
        """A new call's index and id, not announced (the native engine
        announces the call itself, in its own events)."""
        index = self.next_index
        self.next_index += 1
        try:
            call_id = self._id_factory(index)
        except Exception as exc:  # (the caller's factory: its error, named as such, not a parser bug)
            raise InvalidOptionError(f"id_factory({index}) raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(call_id, str):
            raise InvalidOptionError(f"id_factory({index}) returned {call_id!r}: call ids must be strings")
        return index, call_id


def _member_plan(root: dict[str, Any], key: str) -> _MemberPlan:
    """:meth:`CallContext.member_plan`, worked out."""
    issues: list[Issue] = []
    path = _child_path("$", key)
    schema = member_schema(root, key, path, issues)
    if schema is DROP:
        issues.append(Issue(path, DROPPED_EXPECTED, "a value", "dropped"))
        mode = _DROP
    elif wants_array(schema, root):
        mode = _DEFER
    else:
        mode = _STREAM if text_streams(schema, root) else _BUFFER
    return schema, mode, tuple(issues)


def _random_ids(_index: int) -> str:
    return "call_" + os.urandom(12).hex()  # (what secrets.token_hex(12) does, without its three frames)


def _ids_of(seed: int | None) -> IdFactory:
    """Call ids: random, or drawn from a generator seeded with ``seed``."""
    if seed is None:
        return _random_ids
    rng = random.Random(seed)
    return lambda _index: f"call_{rng.getrandbits(96):024x}"


class Call:
    """The state of one call while its markup streams in."""

    __slots__ = (
        "args",
        "ctx",
        "extra_issues",
        "id",
        "index",
        "name",
        "problem",
        "problem_reason",
        "scratch",
        "started",
        "streaming",
        "typer",
    )

    def __init__(self, ctx: CallContext) -> None:
        self.ctx = ctx
        self.name: str | None = None
        self.scratch: list[str] = []  # argument pieces written since the last flush
        self.args = Pieces()  # argument pieces flushed (emitted, or held for an unstarted call)
        self.started = False
        self.streaming = False  # started and flushing (where the native core's string lane may apply)
        self.index: int | None = None
        self.id: str | None = None
        self.problem: str | None = None
        self.problem_reason = ErrorReason.INVALID_CALL
        """The error's reason when there is a ``problem``."""
        self.typer: SchemaTyper | None = None  # inline coercion of the arguments
        self.extra_issues: tuple[Issue, ...] = ()

    def announce(self, name: str) -> None:
        """The name is known: start the call (if the tool is known) and emit
        any arguments that arrived before it."""
        # (a raw lone surrogate in the markup's name: U+FFFD, as in the arguments)
        self.name = name = replace_lone_surrogates(name)
        if not self.ctx.is_known(name):
            return
        self.index, self.id = self.ctx.start(name)
        self.started = True
        self.before_first_delta()
        held = self.args.text()
        if held:
            self.ctx.out.append(new_call_delta(self.index, self.id, held))
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
            self.ctx.out.append(new_call_delta(self.index, self.id, piece))

    def close(self) -> None:
        """The call's markup is complete (hook: write what is still owed)."""

    def outcome(self, end: int | None) -> Outcome:
        """The call's markup is complete: a call, or an error saying why not."""
        self.flush()
        text = self.args.text()
        arguments: Any = json.loads(text) if text else None
        if self.problem is None and not isinstance(arguments, dict):
            self.problem = f"the arguments are not a JSON object: {text[:80]}"
        if self.problem is not None:
            return self.error(end, self.problem_reason, self.problem)
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


# -- a JSON envelope: {"name": ..., "arguments": ...} ----------------------------------------

_NAME_KEYS: Final = ("name",)
_ARGUMENT_KEYS: Final = ("arguments", "parameters")


class EnvelopeCall(Call):
    """One call object being read: routes its root keys to name and arguments
    (the keys its grammar declares: ``JsonCalls.name_keys`` and ``argument_keys``)."""

    __slots__ = ("args_key", "args_kind", "argument_keys", "name_key", "name_keys", "name_parts", "reader")

    def __init__(
        self,
        ctx: CallContext,
        name_keys: tuple[str, ...] = _NAME_KEYS,
        argument_keys: tuple[str, ...] = _ARGUMENT_KEYS,
    ) -> None:
        super().__init__(ctx)
        self.name_keys = name_keys
        self.argument_keys = argument_keys
        self.name_key: str | None = None
        self.name_parts: list[str] | None = None
        self.args_key: str | None = None
        self.args_kind = ""  # first character of the arguments value: '{', '"', ...
        self.reader = JsonRewriter(
            [], max_depth=ctx.max_depth, root_keys=self.route, on_member_end=self.member_end
        )

    def route(self, key: str) -> tuple[list[str], ValueTyper | None]:
        if key in self.name_keys and self.name is None and self.name_parts is None:
            self.name_key = key
            self.name_parts = []
            return self.name_parts, None
        if key in self.argument_keys and self.args_key is None:
            self.args_key = key
            self.typer = self.ctx.typer_for(self.name)
            return self.scratch, self.typer
        return [], None

    def member_end(self, key: str) -> None:
        if key == self.name_key and self.name_parts is not None and self.name is None:
            text = "".join(self.name_parts)
            value = json.loads(text)
            if isinstance(value, str) and value:
                self.announce(value)
            else:
                self.problem = f"the call's name is not a string: {text[:80]}"
        elif key == self.args_key and self._args_kind() == '"':
            # arguments given as a JSON-encoded string: decode them once
            inner = json.loads("".join(self.scratch))
            self.scratch.clear()
            if inner.strip():
                canonical = parse_value(inner, max_depth=self.ctx.max_depth)
                if canonical is None or not canonical.startswith("{"):
                    self.problem = "the arguments are a string that is not a JSON object"
                    return
            else:
                canonical = "{}"
            self.scratch.append(canonical)
            self.args_kind = "{"
            self.flush()

    def before_first_delta(self) -> None:
        """The arguments came before the name: coerce them whole, now that the
        tool (and so the schema) is known."""
        if self.args_key is None or self.name is None or self.ctx.typer_for(self.name) is None:
            return
        held = self.args.text() + "".join(self.scratch)
        if not held.startswith("{"):
            return
        schema = self.ctx.schema_of(self.name)
        coerced = coerce(json.loads(held), schema, max_depth=self.ctx.max_depth)
        self.args.clear()
        self.scratch[:] = [canonical_json(coerced.value)]
        self.args_kind = "{"
        self.extra_issues = coerced.issues

    def _args_kind(self) -> str:
        if not self.args_kind and self.scratch:
            self.args_kind = self.scratch[0][0]
        return self.args_kind

    def holding(self) -> bool:
        return self._args_kind() == '"'  # a JSON-encoded string: decoded when complete

    def outcome(self, end: int | None) -> Outcome:
        if self.problem is None and self.name is None:
            self.problem = "the call object has no 'name'"
        if self.problem is None and self.args_key is None:
            self.scratch.append("{}")  # no arguments at all: an empty object
        return super().outcome(end)


class JsonArgsCall(Call):
    """A call named by its markup (``<function=NAME>``) whose body is its arguments object."""

    __slots__ = ("reader",)

    def __init__(self, ctx: CallContext, name: str) -> None:
        super().__init__(ctx)
        self.typer = ctx.typer_for(name)
        self.reader = JsonRewriter(self.scratch, max_depth=ctx.max_depth, typer=self.typer)
        self.announce(name)


# -- named text members: <parameter=city>Paris</parameter> -----------------------------------

_encode: Final = json.encoder.encode_basestring


class MemberCall(Call):
    """Builds one call's arguments object from named text members.

    What happens to a member's text depends on its schema (from the declared tool):

    * a plain string member streams: its text goes out JSON-escaped as it arrives;
    * any other member is collected and coerced when it closes
      (:func:`~toolparse.coercion.inline.coerce_at`, the rules of ``coerce``);
    * a member whose schema admits an array collects every repetition of it
      (``<tags>a</tags><tags>b</tags>``) and is written when the call closes;
    * with no tools declared, a member whose text begins with ``{`` or ``[`` is
      parsed as JSON when it closes; other text streams as a string;
    * with ``coerce=False`` every member is a string, streamed untouched;
    * with ``literal``, a member's text is a Python literal (pythonic calls):
      collected, read by ``convert``, then coerced (with no schema, kept as read);
      and the call is announced only once its first member begins or it
      closes (``[Paris](...)`` may still turn out to be text).

    A repeated member that does not admit an array makes the call an error
    (``malformed_markup``): a value's text may have been read as markup.
    """

    __slots__ = (
        "_buffer",
        "_convert",
        "_count",
        "_deferred",
        "_issues",
        "_key",
        "_keys",
        "_literal",
        "_mode",
        "_root",
        "_schema",
        "_schemaless",
        "_unannounced",
    )

    def __init__(
        self,
        ctx: CallContext,
        name: str,
        convert: Callable[[str], Any] | None = None,
        *,
        literal: bool = False,
    ) -> None:
        super().__init__(ctx)
        self._convert = convert  # collected member text -> value (XML fragments -> dicts)
        self._literal = literal
        schema = ctx.schema_of(name)
        self._root: dict[str, Any] | None = schema if schema is not None and ctx.coerce else None
        self._schemaless = ctx.tools is None and ctx.coerce  # no tools: JSON-looking text is parsed
        self._keys: set[str] = set()
        self._deferred: dict[str, tuple[Any, list[Any]]] = {}
        self._issues: list[Issue] = []
        self._count = 0
        self._key = ""
        self._mode = _DROP
        self._schema: Any = None
        self._buffer: list[str] = []
        self.scratch.append("{")
        self._unannounced = literal
        if literal:
            self.name = replace_lone_surrogates(name)
        else:
            self.announce(name)

    def _write_key(self, key: str) -> None:
        if self._count:
            self.scratch.append(",")
        self._count += 1
        self.scratch.append(_encode(replace_lone_surrogates(key)) + ":")

    def begin(self, key: str) -> bool:
        """A member named ``key`` begins; True if its text streams as a string."""
        self._announce_once()
        self._key = key
        self._buffer = []
        if key in self._deferred:
            self._mode = _DEFER
            return False
        if key in self._keys:
            # a second value of a parameter that takes one: the markup was not
            # what it seemed (a value's literal text read as the call's own, the
            # real one coming after it, or a model that wrote it twice). The
            # first has streamed out; neither is to be trusted: not run
            if self.problem is None:
                self.problem = (
                    f"parameter {key!r} is given twice: a value may hold markup read as "
                    "the call's own, so the call is not run"
                )
                self.problem_reason = ErrorReason.MALFORMED_MARKUP
            self._mode = _DROP
            return False
        if self._root is None:
            self._mode = _BUFFER if self._literal else _SNIFF if self._schemaless else _STREAM
            schema: Any = None
        else:
            assert self.name is not None
            schema, mode, issues = self.ctx.member_plan(self.name, key, self._root)
            self._issues.extend(issues)
            if mode == _DROP:
                self._mode = _DROP
                return False
            if mode == _DEFER:
                self._deferred[key] = (schema, [])
                self._mode = _DEFER
                return False
            self._mode = _BUFFER if self._literal and mode == _STREAM else mode
        self._schema = schema
        self._keys.add(key)
        self._write_key(key)
        if self._mode == _STREAM:
            self.scratch.append('"')
        return self._mode in (_STREAM, _SNIFF)

    def has(self, key: str) -> bool:
        """A member named ``key`` was given in this call (the one being read
        included) and takes no second value (a parameter repeated where the schema
        wants an array does)."""
        return key not in self._deferred and (key == self._key or key in self._keys)

    def sole_string_property(self) -> str | None:
        """The one property of the tool's schema, when it has exactly one and it
        takes a string (a tool element holding bare text means that property)."""
        return self.sole_string_of(self._root)

    @staticmethod
    def sole_string_of(schema: dict[str, Any] | None) -> str | None:
        """:meth:`sole_string_property` of a tool's parameters schema."""
        properties = schema.get("properties") if schema is not None else None
        if not isinstance(properties, dict) or len(properties) != 1:
            return None
        (name,) = properties
        return name if text_streams(properties[name], schema) else None

    def text(self, piece: str) -> None:
        """The next decoded text of the current member."""
        piece = replace_lone_surrogates(piece)
        mode = self._mode
        if mode == _STREAM:
            self.scratch.append(_encode(piece)[1:-1])
        elif mode == _SNIFF:
            # every piece before this one was whitespace: only this one can decide
            self._buffer.append(piece)
            lead = piece.lstrip()
            if lead:
                if lead[0] in "{[":
                    self._mode = _JSON
                else:  # plain text after all: stream what was held, and the rest
                    self._mode = _STREAM
                    self.scratch.append('"' + _encode("".join(self._buffer))[1:-1])
                    self._buffer = []
        elif mode != _DROP:
            self._buffer.append(piece)

    def streams(self) -> bool:
        """True while the current member is written as it arrives (a string)."""
        return self._mode in (_STREAM, _SNIFF)

    def end(self) -> None:
        """The current member is complete."""
        mode = self._mode
        text = "".join(self._buffer)
        if mode == _STREAM:
            self.scratch.append('"')
        elif mode == _SNIFF:
            self.scratch.append(_encode(text))
        elif mode == _JSON:
            self.scratch.append(canonical_json(coerce(text, None).value))
        elif mode == _BUFFER:
            raw: Any = self._converted(text)
            if self._literal and self._schema is None:
                value: Any = raw  # (a literal says its own type)
            else:
                value, issues = coerce_at(raw, self._schema, self._root, _child_path("$", self._key), 1)
                self._issues.extend(issues)
            self.scratch.append(canonical_json(value))
        elif mode == _DEFER:
            self._deferred[self._key][1].append(self._converted(text))
        self._mode = _DROP

    def _converted(self, text: str) -> Any:
        """A member's collected text as a value (``convert``); a literal that
        cannot be read makes the call invalid (its value is then null)."""
        if self._convert is None:
            return text
        try:
            return self._convert(text)
        except ValueError as exc:
            if self.problem is None:
                self.problem = f"argument {self._key!r} is not a literal: {exc}"
            return None

    def _announce_once(self) -> None:
        if self._unannounced:
            self._unannounced = False
            assert self.name is not None
            self.announce(self.name)

    def close(self) -> None:
        """The call's markup is complete: write the collected array members, close the object."""
        self._announce_once()
        for key, (schema, texts) in self._deferred.items():
            value: Any = texts[0] if len(texts) == 1 else texts
            coerced, issues = coerce_at(value, schema, self._root, _child_path("$", key), 1)
            self._issues.extend(issues)
            self._write_key(key)
            self.scratch.append(canonical_json(coerced))
        self._deferred.clear()
        self.scratch.append("}")
        self.extra_issues = tuple(self._issues)
