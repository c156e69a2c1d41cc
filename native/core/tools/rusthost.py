"""Record the goldens of the core's pure-Rust host (`toolparse-core`'s
`ids`, `coercion::oracle` and `host_values`): what the Python reference
answers, to be replayed by `cargo test -p toolparse-core` (tests/rusthost.rs)
with no Python.

* `ids.json`: `random.Random(seed)`'s call ids (`calls._ids_of(seed)`).
* `typer.json`: arguments read by the reference's streaming JSON reader with
  the inline coercer (`JsonRewriter` and `SchemaTyper`): the canonical text
  written and the issues, for schemas and texts that exercise each rule.
* `fragments.json`: XML fragments' values (`xml_tree.fragment_value`: lxml
  where it reads them, else the tolerant reader), as canonical JSON.
* `member_calls.json`, `json_calls.json`: calls built by `MemberCall`,
  `EnvelopeCall` and `JsonArgsCall` over a `CallContext` (tools declared
  as JSON, seed 0) from a script of members or JSON pieces: each answer, the
  starts and argument deltas, the outcome (arguments, issues, problem).

Schemas and inputs are stored as JSON text (read by each side's own
`json.loads`: key order and big integers as Python keeps them).

    python native/core/tools/rusthost.py    # writes native/core/tests/rusthost/

`tests/test_core_rusthost.py` fails when a file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "rusthost"
# (the format of the files: raise it when a field changes meaning)
FORMAT = 1

SEEDS = [0, 1, 42, 2**40, 2**64 + 3, -5, 2**200 + 7]
IDS_A_SEED = 5

# -- the inline coercer --------------------------------------------------------------------------

_OBJ = '{"type": "object", "properties": %s%s}'


def _obj(properties: str, extra: str = "") -> str:
    return _OBJ % (properties, extra)


TOOL = _obj(
    '{"n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},'
    ' "s": {"type": "string"}, "z": {"type": "null"},'
    ' "tags": {"type": "array", "items": {"type": "string"}},'
    ' "ints": {"type": "array", "items": {"type": "integer"}},'
    ' "o": {"type": "object", "properties": {"k": {"type": "integer"}}},'
    ' "e": {"enum": ["Red", "Green", 3]}, "u": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}'
)

# (schema, [inputs], max_depth)
TYPER_CASES: list[tuple[str, list[str], int]] = [
    (
        TOOL,
        [
            '{"n": "42", "x": "2.5", "b": "true", "s": "plain", "z": "null"}',
            '{"n": 7, "x": 3, "b": false, "s": 12, "z": null}',
            '{"tags": "a, b", "ints": ["1", "2", 3], "o": {"k": "9"}}',
            '{"tags": ["x", "y"], "ints": "[4, 5]", "o": "{\\"k\\": \\"1\\"}"}',
            '{"e": "red", "u": "12", "other": {"deep": ["1", 2]}}',
            '{"e": " Green ", "u": "word", "n": "4.0", "x": "1e400"}',
            '{"n": "12345678901234567890", "x": "-0.0", "b": "yes"}',
            '{"n": 1.5, "b": 1, "s": {"a": 1}, "z": "none"}',
            '{"o": {"k": [1]}, "tags": {"item": ["p", "q"]}}',
            '{"n": "\\u0661\\u0662", "s": "caf\\u00e9 \\ud83d\\ude00"}',
        ],
        64,
    ),
    (
        _obj('{"a": {"type": "integer"}}', ', "additionalProperties": false'),
        ['{"a": "1", "b": 2, "c": {"d": 3}, "a": "x"}', "{}"],
        64,
    ),
    (
        _obj('{"a": {"type": "integer"}}', ', "additionalProperties": {"type": "boolean"}'),
        ['{"a": "1", "flag": "false", "other": "1"}'],
        64,
    ),
    (
        _obj("{}", ', "patternProperties": {"^n_": {"type": "integer"}, "^b_": {"type": "boolean"}}'),
        ['{"n_1": "5", "b_x": "True", "s": "7"}'],
        64,
    ),
    (
        _obj(
            '{"p": {"$ref": "#/$defs/pt"}, "q": {"allOf": [{"type": "object"},'
            ' {"properties": {"v": {"type": "number"}}}]}}',
            ', "$defs": {"pt": {"type": "object",'
            ' "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}}',
        ),
        ['{"p": {"x": "1", "y": "2"}, "q": {"v": "0.5"}}', '{"p": "{\\"x\\": \\"3\\"}"}'],
        64,
    ),
    (
        _obj(
            '{"t": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}]},'
            ' "l": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},'
            ' "m": {"type": ["integer", "null"]}, "k": {"const": 3}}'
        ),
        ['{"t": ["1", "true", "x"], "l": [1, "2"], "m": "null", "k": "3"}', '{"m": "5", "t": "[2, 0]"}'],
        64,
    ),
    (
        _obj('{"deep": {"type": "object"}, "n": {"type": "integer"}}'),
        ['{"deep": {"a": {"b": {"c": "1"}}}, "n": "2"}'],
        2,
    ),
    (
        '{"type": "object"}',
        ['{"j": "{\\"a\\": 1}", "l": "[1, 2]", "s": "text", "n": 5}'],
        64,
    ),
    (
        _obj('{"j": {"type": "object"}, "n": {"type": "integer"}}'),
        ['{"j": "{\\"a\\": {\\"b\\": {\\"c\\": {\\"d\\": \\"1\\"}}}}", "n": "3"}'],
        3,
    ),
    (
        _obj(
            '{"d": {"type": "object", "properties": {"e": {"type": "array", "items":'
            ' {"type": "object", "properties": {"f": {"type": "integer"}}}}}},'
            ' "v": {"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}},'
            ' {"type": "string"}]}}'
        ),
        [
            '{"d": {"e": [{"f": "1"}, {"f": "x"}, "{\\"f\\": \\"2\\"}"]}, "v": {"a": "2"}}',
            '{"v": "{\\"a\\": \\"3\\"}", "d": {"e": {"f": "4"}}}',
            '{"v": 5, "d": [1]}',
        ],
        64,
    ),
]


def _issue(issue: Any) -> list[str]:
    return [issue.path, issue.expected, issue.got, issue.action]


def _typer_read(schema: dict[str, Any], text: str, max_depth: int) -> dict[str, Any]:
    from toolparse.coercion.inline import SchemaTyper
    from toolparse.readers.json import JsonRewriter, JsonSyntaxError

    out: list[str] = []
    typer = SchemaTyper(schema, max_depth=max_depth)
    reader = JsonRewriter(out, max_depth=max_depth, typer=typer)
    result: dict[str, Any] = {"input": text}
    try:
        reader.feed(text, 0)
        result["whole"] = reader.finish()
    except JsonSyntaxError as exc:
        result["error"] = str(exc)
    result["output"] = "".join(out)
    result["issues"] = [_issue(i) for i in typer.issues]
    return result


# What a model writes, drawn at random (a fixed seed: the files do not change
# between runs): the right type, its text, the wrong type, JSON or XML
# written into a string, nested values, keys the schema does not know.
_WORDS = [
    "5",
    " 7 ",
    "4.0",
    "1e3",
    "-0",
    "true",
    "False",
    "yes",
    "null",
    "None",
    "a, b",
    "a;b",
    "[1, 2]",
    '{"k": "1"}',
    '{"depth": "3"}',
    "fast",
    "FAST",
    " slow",
    "",
    "x",
    "\u0661\u0662",
    "12345678901234567890",
    "NaN",
    "Infinity",
    "<item>1</item><item>2</item>",
    '["1", 2]',
    "0x10",
    "1_000",
]
_EXTRA_KEYS = ["extra", "n_1", "b_x", "k", "depth", "a b"]


def _drawn(rng: Any, keys: list[str], depth: int) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return rng.choice([0, 1, -3, 42, 10**6, 2**63, -(2**70)])
    if kind == 1:
        return rng.choice([0.5, -2.25, 1e20, 3.0, 1e-7])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind in (3, 4, 5):
        return rng.choice(_WORDS).encode().decode("unicode_escape")
    if kind in (6, 7):
        return [_drawn(rng, keys, depth + 1) for _ in range(rng.randrange(4))]
    return _drawn_object(rng, keys, depth + 1)


def _drawn_object(rng: Any, keys: list[str], depth: int) -> dict[str, Any]:
    chosen = rng.sample(keys, min(len(keys), rng.randrange(1, 6)))
    return {key: _drawn(rng, keys, depth) for key in chosen}


def _properties(schema: Any, into: list[str]) -> list[str]:
    """Every property name written anywhere in `schema`."""
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            into.extend(k for k in properties if k not in into)
        for value in schema.values():
            _properties(value, into)
    elif isinstance(schema, list):
        for value in schema:
            _properties(value, into)
    return into


# (schema, reads drawn, seed)
DRAWN_TYPER: list[tuple[str, int, int]] = [
    (TOOL, 120, 1),
    (TYPER_CASES[4][0], 40, 2),
    (TYPER_CASES[5][0], 40, 3),
    (TYPER_CASES[1][0], 20, 4),
    (TYPER_CASES[3][0], 20, 5),
]


def drawn_inputs(schema: str, count: int, seed: int) -> list[str]:
    """`count` argument texts for `schema`, drawn with `seed`."""
    import random

    rng = random.Random(seed)
    keys = _properties(json.loads(schema), []) + _EXTRA_KEYS
    inputs = []
    for _ in range(count):
        value = _drawn_object(rng, keys, 0)
        separators = rng.choice([(", ", ": "), (",", ":")])
        inputs.append(json.dumps(value, ensure_ascii=rng.random() < 0.5, separators=separators))
    return inputs


def typer_cases() -> list[dict[str, Any]]:
    cases = []
    for schema, inputs, max_depth in TYPER_CASES:
        reads = [_typer_read(json.loads(schema), text, max_depth) for text in inputs]
        cases.append({"schema": schema, "max_depth": max_depth, "reads": reads})
    for schema, count, seed in DRAWN_TYPER:
        reads = [_typer_read(json.loads(schema), text, 64) for text in drawn_inputs(schema, count, seed)]
        cases.append({"schema": schema, "max_depth": 64, "reads": reads})
    return cases


# -- calls ---------------------------------------------------------------------------------------

TOOLS = json.dumps(
    [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "limit": {"type": "integer"},
                        "exact": {"type": "boolean"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "ids": {"type": "array", "items": {"type": "integer"}},
                        "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                        "mode": {"enum": ["fast", "slow"]},
                        "nothing": None,
                        "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}]},
                    },
                    "additionalProperties": False,
                },
            },
        },
        {"name": "note", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": "free", "input_schema": {"type": "object"}},
    ]
)

# (name, tools, coerce, convert, literal, ops): ops are ["begin", key], ["text", piece],
# ["end"], ["close"], ["sole"]; the call is flushed after each, as the engine flushes
MEMBER_CASES: list[tuple[str, str | None, bool, str, bool, list[list[str]]]] = [
    (
        "search",
        TOOLS,
        True,
        "text",
        False,
        [
            ["begin", "query"],
            ["text", "weather in "],
            ["text", 'Paris "FR"\n\u00e9\U0001f600'],
            ["end"],
            ["begin", "limit"],
            ["text", " 5"],
            ["end"],
            ["begin", "exact"],
            ["text", "True"],
            ["end"],
            ["begin", "tags"],
            ["text", "a"],
            ["end"],
            ["begin", "bogus"],
            ["text", "x"],
            ["end"],
            ["begin", "tags"],
            ["text", "b"],
            ["end"],
            ["begin", "ids"],
            ["text", "1, 2"],
            ["end"],
            ["begin", "mode"],
            ["text", "FAST"],
            ["end"],
            ["begin", "nothing"],
            ["text", '{"a": "1"}'],
            ["end"],
            ["begin", "ratio"],
            ["text", "0.5"],
            ["end"],
            ["close"],
        ],
    ),
    (
        "search",
        TOOLS,
        True,
        "fragment",
        False,
        [
            ["begin", "opts"],
            ["text", "<depth>3</depth>"],
            ["end"],
            ["begin", "tags"],
            ["text", "<item>x</item><item>y &amp; z</item>"],
            ["end"],
            ["begin", "limit"],
            ["text", "&#52;2"],
            ["end"],
            ["begin", "query"],
            ["text", "a &lt; b"],
            ["end"],
            ["close"],
        ],
    ),
    (
        "search",
        TOOLS,
        True,
        "literal",
        True,
        [
            ["begin", "limit"],
            ["text", "'7'"],
            ["end"],
            ["begin", "exact"],
            ["text", "True"],
            ["end"],
            ["begin", "tags"],
            ["text", "['a', 'b']"],
            ["end"],
            ["begin", "query"],
            ["text", "'x' 'y'"],
            ["end"],
            ["begin", "ratio"],
            ["text", "1_0.5e-1"],
            ["end"],
            ["close"],
        ],
    ),
    (
        "search",
        TOOLS,
        True,
        "literal",
        True,
        [["begin", "ids"], ["text", "[1,"], ["end"], ["begin", "query"], ["text", "'q'"], ["end"], ["close"]],
    ),
    ("search", TOOLS, True, "literal", True, [["close"]]),
    (
        "search",
        TOOLS,
        True,
        "text",
        False,
        [["begin", "query"], ["text", "a"], ["end"], ["begin", "query"], ["text", "b"], ["end"], ["close"]],
    ),
    ("nope", TOOLS, True, "text", False, [["begin", "k"], ["text", "v"], ["end"], ["close"]]),
    (
        "anything",
        None,
        True,
        "text",
        False,
        [
            ["begin", "a"],
            ["text", " "],
            ["text", ' {"x": "1", "y": [true]}'],
            ["end"],
            ["begin", "b"],
            ["text", "  plain"],
            ["end"],
            ["begin", "c"],
            ["text", "[1, 2"],
            ["end"],
            ["begin", "d"],
            ["text", " \n"],
            ["end"],
            ["close"],
        ],
    ),
    (
        "search",
        TOOLS,
        False,
        "text",
        False,
        [["begin", "limit"], ["text", "5"], ["end"], ["begin", "zzz"], ["text", "1"], ["end"], ["close"]],
    ),
    (
        "free",
        TOOLS,
        True,
        "text",
        False,
        [["sole"], ["begin", "k"], ["text", "1"], ["end"], ["close"]],
    ),
    ("note", TOOLS, True, "text", False, [["sole"], ["begin", "text"], ["text", "hi"], ["end"], ["close"]]),
    ("note", TOOLS, True, "literal", True, [["sole"], ["begin", "text"], ["text", "5"], ["end"], ["close"]]),
]

# (kind, name for json_args, tools, coerce, pieces)
JSON_CASES: list[tuple[str, str | None, str | None, bool, list[str]]] = [
    (
        "envelope",
        None,
        TOOLS,
        True,
        [
            '{"name": "search", "arguments": {"query": "x y',
            '", "limit": "5", "tags": "a, b", "bogus": 1, "exact": "no"',
            ', "opts": {"depth": "2"}, "ids": ["1", 2]}}',
        ],
    ),
    ("envelope", None, TOOLS, True, ['{"arguments": {"limit": "5", "extra": 1}, ', '"name": "search"}']),
    ("envelope", None, TOOLS, True, ['{"name": "search", "parameters": "{\\"limit\\": \\"3\\"}"}']),
    ("envelope", None, TOOLS, True, ['{"name": "nope", "arguments": {"a": 1}}']),
    ("envelope", None, TOOLS, True, ['{"name": 5, "arguments": {}}']),
    ("envelope", None, TOOLS, True, ['{"name": "note"}']),
    ("envelope", None, TOOLS, False, ['{"name": "search", "arguments": {"limit": "5"}}']),
    (
        "json_args",
        "search",
        TOOLS,
        True,
        [
            '{"limit": "10", "exa',
            'ct": "false", "ids": ["1", 2], "opts": {"depth": "2"}, ',
            '"ratio": "null"}',
        ],
    ),
    ("json_args", "search", TOOLS, False, ['{"limit": "10"}']),
    ("json_args", "anything", None, True, ['{"a": "{\\"b\\": 1}", "c": [1]}']),
    ("json_args", "search", TOOLS, True, ['{"limit": 5,, }']),
    ("json_args", "free", TOOLS, True, ['{"k": "1", "n": {"deep": "x"}}', "  "]),
]


def _context(tools: str | None, coerce: bool) -> Any:
    from toolparse.engine.calls import CallContext
    from toolparse.tools import normalize_tools

    declared = normalize_tools(json.loads(tools)) if tools is not None else None
    ctx = CallContext(declared, max_depth=64, coerce=coerce, seed=0)
    ctx.out = []
    return ctx


def _events(ctx: Any) -> list[list[Any]]:
    from toolparse.events import ToolCallDelta, ToolCallStart

    events: list[list[Any]] = []
    for event in ctx.out:
        if isinstance(event, ToolCallStart):
            events.append(["start", event.index, event.id, event.name])
        else:
            assert isinstance(event, ToolCallDelta)
            events.append(["delta", event.index, event.id, event.arguments_delta])
    return events


def _outcome(outcome: Any) -> dict[str, Any]:
    from toolparse.events import canonical_json

    arguments = None if outcome.arguments is None else canonical_json(outcome.arguments)
    if outcome.reason is None:
        return {"kind": "call", "arguments": arguments, "issues": [_issue(i) for i in outcome.issues]}
    result = {"kind": str(outcome.reason), "arguments": arguments}
    if str(outcome.reason) != "unknown_tool":  # (the engine's message, not the call's)
        result["message"] = outcome.message
    return result


def member_case(
    name: str, tools: str | None, coerce: bool, convert: str, literal: bool, ops: list[list[str]]
) -> dict[str, Any]:
    from toolparse.engine.calls import MemberCall
    from toolparse.readers.pyliteral import parse_literal
    from toolparse.readers.xml_tree import fragment_value

    ctx = _context(tools, coerce)
    converters: dict[str, Any] = {
        "text": None,
        "literal": lambda text: parse_literal(text, max_depth=ctx.max_depth),
        "fragment": lambda text: fragment_value(text, max_depth=ctx.max_depth),
    }
    call = MemberCall(ctx, name, converters[convert], literal=literal)
    answers: list[Any] = []
    for op in ops:
        if op[0] == "begin":
            answers.append(call.begin(op[1]))
        elif op[0] == "text":
            call.text(op[1])
        elif op[0] == "end":
            call.end()
        elif op[0] == "close":
            call.close()
        elif op[0] == "sole":
            answers.append(call.sole_string_property())
        else:
            raise ValueError(op[0])
        call.flush()
    outcome = _outcome(call.outcome(None))
    return {
        "name": name,
        "tools": tools,
        "coerce": coerce,
        "convert": convert,
        "literal": literal,
        "ops": ops,
        "answers": answers,
        "events": _events(ctx),
        "outcome": outcome,
    }


def json_case(
    kind: str, name: str | None, tools: str | None, coerce: bool, pieces: list[str]
) -> dict[str, Any]:
    from toolparse.engine.calls import EnvelopeCall, JsonArgsCall
    from toolparse.readers.json import JsonSyntaxError

    ctx = _context(tools, coerce)
    call: Any = EnvelopeCall(ctx) if kind == "envelope" else JsonArgsCall(ctx, name or "")
    result: dict[str, Any] = {"kind": kind, "name": name, "tools": tools, "coerce": coerce, "pieces": pieces}
    fed = []
    try:
        for piece in pieces:
            fed.append(call.reader.feed(piece, 0))
            call.flush()
        if not call.reader.done:
            result["whole"] = call.reader.finish()
    except JsonSyntaxError as exc:
        result["error"] = str(exc)
    result["fed"] = fed
    if "error" not in result:
        result["outcome"] = _outcome(call.outcome(None))
    result["events"] = _events(ctx)
    return result


def drawn_member_cases(
    count: int, seed: int
) -> list[tuple[str, str | None, bool, str, bool, list[list[str]]]]:
    """`count` member scripts drawn with `seed`: a tool, a converter, members
    (some repeated, some unknown) whose text is a word, JSON, XML or a
    Python literal, in one or two pieces."""
    import random

    rng = random.Random(seed)
    keys = [*_properties(json.loads(TOOLS), []), "extra", "k"]
    cases: list[tuple[str, str | None, bool, str, bool, list[list[str]]]] = []
    for _ in range(count):
        name = rng.choice(["search", "search", "free", "note", "nope"])
        tools = None if rng.random() < 0.15 else TOOLS
        convert = rng.choice(["text", "fragment", "literal"])
        ops: list[list[str]] = []
        for _ in range(rng.randrange(1, 6)):
            value = _drawn(rng, keys, 1)
            shape = rng.randrange(3)
            if convert == "literal":
                text = repr(value)
            elif shape == 0 and isinstance(value, str):
                text = value
            elif shape == 1 and isinstance(value, dict):
                text = "".join(f"<{k}>{v}</{k}>" for k, v in value.items() if " " not in k)
            else:
                text = json.dumps(value, ensure_ascii=False)
            cut = rng.randrange(len(text) + 1)
            ops += [["begin", rng.choice(keys)], ["text", text[:cut]], ["text", text[cut:]], ["end"]]
        ops.append(["close"])
        cases.append((name, tools, rng.random() < 0.9, convert, convert == "literal", ops))
    return cases


def drawn_json_cases(count: int, seed: int) -> list[tuple[str, str | None, str | None, bool, list[str]]]:
    """`count` JSON calls drawn with `seed`: envelopes (the name before or
    after the arguments, the arguments an object or a JSON string) and
    named calls, their text cut in up to four pieces."""
    import random

    rng = random.Random(seed)
    keys = [*_properties(json.loads(TOOLS), []), "extra", "k"]
    cases: list[tuple[str, str | None, str | None, bool, list[str]]] = []
    for _ in range(count):
        name = rng.choice(["search", "search", "free", "note", "nope"])
        tools = None if rng.random() < 0.15 else TOOLS
        arguments: Any = _drawn_object(rng, keys, 1)
        kind = rng.choice(["envelope", "json_args"])
        if kind == "envelope":
            if rng.random() < 0.2:
                arguments = json.dumps(arguments)
            members = [("name", name), (rng.choice(["arguments", "parameters"]), arguments)]
            if rng.random() < 0.3:
                members.reverse()
            text = json.dumps(dict(members), ensure_ascii=rng.random() < 0.5)
        else:
            text = json.dumps(arguments, ensure_ascii=rng.random() < 0.5)
        cuts = sorted(rng.randrange(len(text) + 1) for _ in range(rng.randrange(4)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        cases.append((kind, name if kind == "json_args" else None, tools, rng.random() < 0.9, pieces))
    return cases


# -- XML fragments -------------------------------------------------------------------------------

FRAGMENTS: list[tuple[str, int]] = [
    ("plain 42", 64),
    ("3 &lt; 4 &#65; &#x1F600; &#0; &#xD800; &bogus; &amp;lt;", 64),
    ("<opts><depth>3</depth></opts>", 64),
    ("<item>x</item> <item>y</item><b/><b />", 64),
    ("<a><b>1</a>tail</c>", 64),
    ("a < b <![CDATA[<x>&amp;]]> <![CDATA[open", 64),
    ("<a><b><c>1</c></b></a>", 2),
    ("<a >1</a ><1>< a>", 64),
    ('<a x="1">v</a>', 64),
    ("<a><!-- note --><b>1</b></a>", 64),
    ("<?xml version='1.0'?><a>1</a>", 64),
    ("<a>\r\n1</a>", 64),
    ("<ns:a>1</ns:a><a.b-c>2</a.b-c>", 64),
    ("<a>text<b>1</b>more</a>", 64),
    ("<a><b>1</b><b>2</b><c/><b>3</b></a>", 64),
    ("<" + "n" * 128 + ">x</" + "n" * 128 + ">", 64),
    ("<" + "n" * 129 + ">x", 64),
    ("<a>&lt;b&gt;</a>", 64),
    ("<a>\u00e9\U0001f600</a><a/>", 64),
    ("</a><a><a>1</a></a>", 64),
    ("<a\t\n/>", 64),
    ("<a><b>", 64),
]

_TAGS = ["a", "b", "item", "depth", "x.y", "ns:t", "_"]


def _drawn_fragment(rng: Any, depth: int) -> str:
    parts = []
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(8)
        tag = rng.choice(_TAGS)
        if kind < 3 and depth < 4:
            parts.append(f"<{tag}>{_drawn_fragment(rng, depth + 1)}</{tag}>")
        elif kind == 3:
            parts.append(
                rng.choice(["<b/>", "</a>", "<a>", "< x>", "&amp;", "&#49;", "&nope;", "<![CDATA[<q>]]>"])
            )
        elif kind == 4:
            parts.append(rng.choice([" ", "\n", "\t "]))
        else:
            parts.append(rng.choice(["1", "two", "3.5", "true", "a, b", '{"k": 1}', "\u00e9"]))
    return "".join(parts)


def fragment_cases() -> list[dict[str, Any]]:
    import random

    from toolparse.events import canonical_json
    from toolparse.readers.xml_tree import fragment_value

    rng = random.Random(8)
    drawn = [(_drawn_fragment(rng, 0), rng.choice([2, 3, 64])) for _ in range(150)]
    cases = []
    for text, max_depth in FRAGMENTS + drawn:
        value = canonical_json(fragment_value(text, max_depth=max_depth))
        cases.append({"input": text, "max_depth": max_depth, "value": value})
    return cases


# -- the files -----------------------------------------------------------------------------------


def ids() -> dict[str, Any]:
    from toolparse.engine.calls import _ids_of

    seeds = []
    for seed in SEEDS:
        factory = _ids_of(seed)
        seeds.append({"seed": str(seed), "ids": [factory(k) for k in range(IDS_A_SEED)]})
    return {"format": FORMAT, "seeds": seeds}


def records() -> dict[str, Any]:
    """Each golden file's name and data."""
    return {
        "ids.json": ids(),
        "typer.json": {"format": FORMAT, "cases": typer_cases()},
        "fragments.json": {"format": FORMAT, "cases": fragment_cases()},
        "member_calls.json": {
            "format": FORMAT,
            "cases": [member_case(*case) for case in MEMBER_CASES + drawn_member_cases(80, 6)],
        },
        "json_calls.json": {
            "format": FORMAT,
            "cases": [json_case(*case) for case in JSON_CASES + drawn_json_cases(80, 7)],
        },
    }


def render(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    written = records()
    for name, data in written.items():
        (GOLDEN / name).write_text(render(data))
    for old in {p.name for p in GOLDEN.glob("*.json")} - set(written):
        (GOLDEN / old).unlink()
    print(f"wrote {len(written)} golden files to {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    main()
