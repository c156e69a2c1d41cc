"""The llama3-json grammar on real cases: other parsers' test suites (vLLM,
SGLang, llama.cpp), Meta's prompt-format docs, and real model outputs of the
shared corpus.

Each case is copied from the source it names (repository, path, commit,
licence: ``SOURCES``). Each goes through the invariant matrix
(``check_all``: conservation, chunking independence, reconciliation) with
the source's own stream split where it has one and the deltas of the real
Llama 3 tokenizer (``fixtures/grammars/llama3_tokenizer_splits.json``), and
its calls, visible text and errors are asserted. Where toolparse decides
differently from the source, the case says so and why (``DIFFERS``): bare
JSON is a call only where the answer begins (mid-prose it is text, as
vLLM's streaming parser and llama.cpp read it), and the text around calls
is kept, never dropped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import ROOT, calls_of, check_all, errors_of, load_jsonl, run, text_of
from toolparse import Tool
from toolparse.grammars import get_grammar

GRAMMAR = "llama3-json"

SOURCES = {
    "vllm": "vllm-project/vllm tests/tool_parsers/test_llama3_json_tool_parser.py "
    "@ 1e499e36c5828a75c6ca8b76631d264be1187005 (Apache-2.0)",
    "sglang": "sgl-project/sglang test/registered/function_call/test_function_call_parser.py "
    "@ 05400c2adc07b70f67bc28ebcaf4170c0282f571 (Apache-2.0), TestLlama32Detector",
    "llama.cpp": "ggml-org/llama.cpp tests/test-chat.cpp (MIT), test_template_output_parsers and "
    "test_templates for the Llama 3.x templates (the version read was not pinned to a commit)",
    "llama.cpp-early": "ochafik/llama.cpp tests/test-tool-call.cpp "
    "@ 76e271ddd471d1ba84fe7841b3af2be51958120f (MIT), test_parse_tool_call, Llama31 style",
    "meta-3.1": "meta-llama/llama-stack llama_stack/models/llama/llama3_1/prompt_format.md "
    "@ c1f53ddc161bdbbb4fe375ae6c2f83939e57abc7 (MIT), Model Response Format sections",
}

# The tools of the sources' tests (SGLang's setUp; llama.cpp's special_function,
# python and code_interpreter tools), so typing and unknown names are checked too.
_CITY = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}
SGLANG_TOOLS = [
    {"name": "get_weather", "description": "Get weather information", "parameters": _CITY},
    {"name": "get_tourist_attractions", "description": "Get tourist attractions", "parameters": _CITY},
]
SPECIAL_FUNCTION = {
    "name": "special_function",
    "description": "I'm special",
    "parameters": {
        "type": "object",
        "properties": {"arg1": {"type": "integer", "description": "The arg."}},
        "required": ["arg1"],
    },
}
_CODE = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
PYTHON = {"name": "python", "description": "an ipython interpreter", "parameters": _CODE}
CODE_INTERPRETER = {"name": "code_interpreter", "description": "an ipython interpreter", "parameters": _CODE}

SEARCH_1 = {"name": "searchTool", "arguments": {"query": "test1"}}
INCIDENTS = {"name": "getOpenIncidentsTool", "arguments": {}}
SEARCH_2 = {"name": "searchTool", "arguments": {"query": "test2"}}
SPECIAL = {"name": "special_function", "arguments": {"arg1": 1}}
PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    """A key of ``SOURCES``."""
    text: str
    calls: list[dict[str, Any]]
    visible: str | None = ""
    """The visible text toolparse keeps (None: not asserted)."""
    errors: tuple[str, ...] = ()
    """The reasons of the error events, in order."""
    splits: tuple[tuple[str, ...], ...] = ()
    """The source's own stream split."""
    tools: list[dict[str, Any]] | None = None
    source_content: str | None = field(default=None)
    """What the source gives as content where toolparse reports an error:
    with ``errors_as_text`` the visible text is exactly that."""


def chunks(text: str, size: int) -> tuple[str, ...]:
    """vLLM's ``_stream_chunks``: fixed-size pieces."""
    return tuple(text[i : i + size] for i in range(0, len(text), size))


_PARALLEL = (
    '{"name": "searchTool", "parameters": {"query": "test1"}}%s{"name": "getOpenIncidentsTool", '
    '"parameters": {}}%s{"name": "searchTool", "parameters": {"query": "test2"}}'
)
_TWO = (
    '{"name": "searchTool", "parameters": {"query": "test1"}}%s{"name": "getOpenIncidentsTool", '
    '"parameters": {}}'
)

CASES = [
    # -- vLLM ---------------------------------------------------------------------------
    Case(
        "vllm-text-around-single-call",
        "vllm",
        'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
        # DIFFERS: vLLM's non-streaming parser extracts the object and drops both
        # sentences (content None). Here bare JSON after prose is text, as vLLM's own
        # streaming parser and llama.cpp read it: a model answering in prose is
        # showing JSON, and the text is never dropped.
        [],
        'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
    ),
    Case(
        "vllm-with-arguments",
        "vllm",
        '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
        [{"name": "searchTool", "arguments": {"query": "test query", "limit": 10}}],
    ),
    Case(
        "vllm-no-json",
        "vllm",
        "This is just some text without any tool calls",
        [],
        "This is just some text without any tool calls",
    ),
    Case(
        "vllm-invalid-json",
        "vllm",
        '{"name": "invalidTool", "parameters": {invalid json}',
        # DIFFERS (in form): vLLM returns the text as content; here the answer began
        # as a call, so it is a malformed_json error carrying that text (as content
        # with errors_as_text).
        [],
        "",
        ("malformed_json",),
        source_content='{"name": "invalidTool", "parameters": {invalid json}',
    ),
    Case(
        "vllm-arguments-key",
        "vllm",
        '{"name": "searchTool", "arguments": {"query": "test"}}',
        [{"name": "searchTool", "arguments": {"query": "test"}}],
    ),
    Case("vllm-parallel-semicolon-space", "vllm", _PARALLEL % ("; ", "; "), [SEARCH_1, INCIDENTS, SEARCH_2]),
    Case(
        "vllm-parallel-space-semicolon-space",
        "vllm",
        _PARALLEL % (" ; ", " ; "),
        [SEARCH_1, INCIDENTS, SEARCH_2],
    ),
    Case(
        "vllm-parallel-with-surrounding-text",
        "vllm",
        "Here are the results: " + _PARALLEL % ("; ", "; ") + " Would you like to know more?",
        # DIFFERS: as in vllm-text-around-single-call, JSON after prose is text.
        [],
        "Here are the results: " + _PARALLEL % ("; ", "; ") + " Would you like to know more?",
    ),
    Case(
        "vllm-deeply-nested",
        "vllm",
        '{"name": "complexTool", "parameters": '
        '{"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}}',
        [
            {
                "name": "complexTool",
                "arguments": {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}},
            }
        ],
    ),
    Case(
        "vllm-parallel-deep-nesting",
        "vllm",
        '{"name": "simpleTool", "parameters": {"value": "test"}}; {"name": "complexTool", "parameters": '
        '{"config": {"database": {"connection": {"pool": {"size": 10}}}}}}',
        [
            {"name": "simpleTool", "arguments": {"value": "test"}},
            {
                "name": "complexTool",
                "arguments": {"config": {"database": {"connection": {"pool": {"size": 10}}}}},
            },
        ],
    ),
    Case(
        "vllm-braces-brackets-in-strings",
        "vllm",
        '{"name": "searchTool", "parameters": {"query": "test {value} [complex]","nested": '
        '{"inner": "more {brackets}"}}}',
        [
            {
                "name": "searchTool",
                "arguments": {"query": "test {value} [complex]", "nested": {"inner": "more {brackets}"}},
            }
        ],
    ),
    Case(
        "vllm-escaped-quotes",
        "vllm",
        '{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\""}}',
        [{"name": "parserTool", "arguments": {"text": 'He said "Hello {world}"'}}],
    ),
    Case("vllm-missing-name-key", "vllm", '{"parameters": {}}', [], '{"parameters": {}}'),
    Case(
        "vllm-missing-parameters-key",
        "vllm",
        '{"name": "toolWithoutParams"}',
        # DIFFERS: vLLM wants "parameters" or "arguments" and returns this as text.
        # Here an object naming a tool where the answer begins is a call with no
        # arguments, as toolparse reads the same JSON in every grammar (a
        # parameterless tool is called just so).
        [{"name": "toolWithoutParams", "arguments": {}}],
    ),
    Case(
        "vllm-brace-in-trailing-text",
        "vllm",
        '{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.',
        [{"name": "searchTool", "arguments": {"query": "test"}}],
        # (the space after the call is the call's raw text)
        "I used {searchTool} for this.",
    ),
    Case(
        "vllm-json-fragment-in-trailing-text",
        "vllm",
        '{"name": "searchTool", "parameters": {"query": "test"}} '
        'The arguments I passed were {"query": "test"}',
        [{"name": "searchTool", "arguments": {"query": "test"}}],
        'The arguments I passed were {"query": "test"}',
    ),
    *(
        Case(
            f"vllm-stream-separator-{label}",
            "vllm",
            _TWO % sep,
            [SEARCH_1, INCIDENTS],
            splits=(chunks(_TWO % sep, 7),),
        )
        for label, sep in (
            ("semicolon-space", "; "),
            ("semicolon", ";"),
            ("semicolon-newline", ";\n"),
            ("newline", "\n"),
        )
    ),
    # -- SGLang -------------------------------------------------------------------------
    Case(
        "sglang-single-bare-json",
        "sglang",
        '{"name": "get_weather", "parameters": {"city": "Paris"}}',
        [PARIS],
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-python-tag-semicolon-no-space",
        "sglang",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};'
        '{"name": "get_tourist_attractions", "parameters": {"city": "Paris"}}',
        [PARIS, {"name": "get_tourist_attractions", "arguments": {"city": "Paris"}}],
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-repeated-python-tag",
        "sglang",
        '<|python_tag|>{"name": "get_weather", "parameters": {}}'
        '<|python_tag|>{"name": "get_tourist_attractions", "parameters": {}}',
        [{"name": "get_weather", "arguments": {}}, {"name": "get_tourist_attractions", "arguments": {}}],
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-trailing-text",
        "sglang",
        '{"name": "get_weather", "parameters": {}} Some follow-up text',
        [{"name": "get_weather", "arguments": {}}],
        "Some follow-up text",
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-invalid-then-valid",
        "sglang",
        '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}',
        # DIFFERS: SGLang skips to the next '{"name":' and reads the second object.
        # Here the answer began as one call and broke: an error, and the rest is not
        # read as a call (the model did not write what it meant to). Where the rest
        # goes (the error's raw or text) is the engine's skip rule: not asserted.
        [],
        None,
        ("malformed_json",),
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-text-then-python-tag",
        "sglang",
        'Some intro. <|python_tag|>{"name": "get_weather", "parameters": {}}',
        [{"name": "get_weather", "arguments": {}}],
        "Some intro. ",
        tools=SGLANG_TOOLS,
    ),
    # -- llama.cpp ----------------------------------------------------------------------
    Case(
        "llamacpp-llama3x-bare-json",
        "llama.cpp",
        '{"name": "special_function", "parameters": {"arg1": 1}}',
        [SPECIAL],
        tools=[SPECIAL_FUNCTION],
    ),
    Case(
        "llamacpp-llama31-builtin-python",
        "llama.cpp",
        "<|python_tag|>python.call(code=\"print('hey')\")",
        [{"name": "python", "arguments": {"code": "print('hey')"}}],
        tools=[PYTHON],
    ),
    Case(
        "llamacpp-llama31-builtin-code-interpreter",
        "llama.cpp",
        "<|python_tag|>code_interpreter.call(code=\"print('hey')\")",
        [{"name": "code_interpreter", "arguments": {"code": "print('hey')"}}],
        tools=[CODE_INTERPRETER],
    ),
    Case(
        "llamacpp-early-python-tag-raw-code",
        "llama.cpp-early",
        "<|python_tag|>this could be anything",
        # DIFFERS: the early llama.cpp made any text after <|python_tag|> a call of an
        # "ipython" tool. A grammar names no tool the caller did not declare: raw code
        # (the code interpreter's) is text, kept whole.
        [],
        "<|python_tag|>this could be anything",
    ),
    Case(
        "llamacpp-early-python-tag-empty",
        "llama.cpp-early",
        "I'm thinking<|python_tag|>",
        # DIFFERS: the early llama.cpp emitted an empty "ipython" call; here the stream
        # ended right after the marker, before any call: an unfinished_call error.
        [],
        "I'm thinking",
        ("unfinished_call",),
    ),
    *(
        Case(
            f"llamacpp-early-json-newline-{label}",
            "llama.cpp-early",
            text,
            [SPECIAL],
            tools=[SPECIAL_FUNCTION],
        )
        for label, text in (
            ("2sp", '{\n  "name": "special_function", "parameters": {"arg1": 1}}'),
            ("tab", '{\n\t"name": "special_function", "parameters": {"arg1": 1}}'),
            ("4sp", '{\n    "name": "special_function", "parameters": {"arg1": 1}}'),
        )
    ),
    Case(
        "llamacpp-early-type-function",
        "llama.cpp-early",
        '{"type": "function", "name": "special_function", "parameters": {"arg1": 1}}',
        [SPECIAL],
        tools=[SPECIAL_FUNCTION],
    ),
    # "No match: function unknown": with tools declared, an undeclared name is an
    # unknown_tool error carrying the call (not content, as in llama.cpp). "bad
    # indentation" (a newline and no or one space before "name") does not matter here:
    # JSON whitespace is whitespace; the name is what is unknown.
    *(
        Case(
            f"llamacpp-early-{label}",
            "llama.cpp-early",
            text,
            [],
            "",
            ("unknown_tool",),
            tools=[SPECIAL_FUNCTION],
            source_content=text,
        )
        for label, text in (
            ("unknown-function", '{"name": "unknown_function", "arguments": {"arg1": 1}}'),
            ("bad-indentation-1", '{\n"name": "unknown_function", "arguments": {"arg1": 1}}'),
            ("bad-indentation-2", '{\n "name": "unknown_function", "arguments": {"arg1": 1}}'),
        )
    ),
    # -- Meta's Llama 3.1 docs ----------------------------------------------------------
    Case(
        "meta-llama31-json-python-tag-eom",
        "meta-3.1",
        '<|python_tag|>{\n    "type": "function",\n    "name": "trending_songs",\n    "parameters": {\n'
        '        "n": "10",\n        "genre": "all"\n    }\n}<|eom_id|>',
        [{"name": "trending_songs", "arguments": {"n": "10", "genre": "all"}}],
    ),
    Case(
        "meta-llama31-json-typed-by-schema",
        "meta-3.1",
        '<|python_tag|>{\n    "type": "function",\n    "name": "trending_songs",\n    "parameters": {\n'
        '        "n": "10",\n        "genre": "all"\n    }\n}<|eom_id|>',
        # (the doc's tool says n is an int: the schema types the string "10")
        [{"name": "trending_songs", "arguments": {"n": 10, "genre": "all"}}],
        tools=[
            {
                "name": "trending_songs",
                "description": "Returns the trending songs on a Music site",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}, "genre": {"type": "string"}},
                    "required": ["n"],
                },
            }
        ],
    ),
    Case(
        "meta-llama31-builtin-brave-search",
        "meta-3.1",
        '<|python_tag|>brave_search.call(query="latest price of 1oz gold")<|eom_id|>',
        [{"name": "brave_search", "arguments": {"query": "latest price of 1oz gold"}}],
    ),
    Case(
        "meta-llama31-function-tag",
        "meta-3.1",
        '<function=trending_songs>{"n": 10}</function><|eot_id|>',
        [{"name": "trending_songs", "arguments": {"n": 10}}],
    ),
]

_SPLITS_FILE = ROOT / "tests" / "fixtures" / "grammars" / "llama3_tokenizer_splits.json"
TOKEN_SPLITS: dict[str, list[str]] = json.loads(_SPLITS_FILE.read_text(encoding="utf-8"))[GRAMMAR]


def test_case_ids_are_unique_and_sourced() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 10
    assert all(c.source in SOURCES for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case: Case) -> None:
    splits = [list(s) for s in case.splits]
    if case.id in TOKEN_SPLITS:
        splits.append(TOKEN_SPLITS[case.id])
    events = check_all(GRAMMAR, case.text, splits, tools=case.tools)
    assert calls_of(events) == case.calls
    if case.visible is not None:
        assert text_of(events) == case.visible
    assert errors_of(events) == list(case.errors)
    if case.source_content is not None:
        shown = run(GRAMMAR, [case.text], tools=case.tools, errors_as_text=True)
        assert text_of(shown) == case.source_content


def test_every_token_split_is_of_its_case() -> None:
    texts = {c.id: c.text for c in CASES}
    assert set(TOKEN_SPLITS) <= set(texts)
    for case_id, deltas in TOKEN_SPLITS.items():
        assert "".join(deltas) == texts[case_id], case_id


# -- real model outputs of the shared corpus (tests/fixtures/corpus) ---------------------

REAL = [r for r in load_jsonl("real_outputs.jsonl") if r["format"] == "llama3_json"]
CORPUS_SPLITS: dict[str, list[list[str]]] = defaultdict(list)
for _record in load_jsonl("token_splits.jsonl"):
    CORPUS_SPLITS[_record["real_output_id"]].append(_record["deltas"])
# (as sglang-invalid-then-valid above: the broken first object is an error, the rest not a call)
CORPUS_DECISIONS: dict[str, list[dict[str, Any]]] = {"078-sglang-llama32-invalid-then-valid": []}


@pytest.mark.parametrize("record", REAL, ids=lambda r: r["id"])
def test_corpus_record(record: dict[str, Any]) -> None:
    events = check_all(GRAMMAR, record["raw_text"], CORPUS_SPLITS[record["id"]])
    expected = CORPUS_DECISIONS.get(record["id"], record["expected_calls"])
    assert calls_of(events) == [{"name": c["name"], "arguments": c["arguments"]} for c in expected]
    if record["id"] not in CORPUS_DECISIONS:
        assert text_of(events) == (record.get("expected_content") or "")


# -- special tokens stripped by the server --------------------------------------------
# A server that skips special tokens (vLLM's default) sends no <|python_tag|> and no
# <|eom_id|>: the call is still read where the answer begins, as bare JSON. A call
# after prose had only its marker to go by, and is then text.


@pytest.mark.parametrize(
    ("kept", "stripped", "calls", "visible"),
    [
        (
            '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
            '{"name": "get_weather", "parameters": {"city": "Paris"}}',
            [PARIS],
            "",
        ),
        (
            '<|python_tag|>{"name": "get_weather", "parameters": {}};'
            '<|python_tag|>{"name": "get_tourist_attractions", "parameters": {}}',
            '{"name": "get_weather", "parameters": {}};{"name": "get_tourist_attractions", "parameters": {}}',
            [{"name": "get_weather", "arguments": {}}, {"name": "get_tourist_attractions", "arguments": {}}],
            "",
        ),
        (
            '\n\n<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>',
            '\n\n{"name": "get_weather", "parameters": {"city": "Paris"}}',
            [PARIS],
            "\n\n",
        ),
        (
            'Some intro. <|python_tag|>{"name": "get_weather", "parameters": {}}',
            'Some intro. {"name": "get_weather", "parameters": {}}',
            [],
            'Some intro. {"name": "get_weather", "parameters": {}}',
        ),
        (
            '<|python_tag|>brave_search.call(query="latest price of 1oz gold")<|eom_id|>',
            'brave_search.call(query="latest price of 1oz gold")',
            [],
            'brave_search.call(query="latest price of 1oz gold")',
        ),
    ],
)
def test_special_tokens_stripped(kept: str, stripped: str, calls: list[dict[str, Any]], visible: str) -> None:
    assert stripped == kept.replace("<|python_tag|>", "").replace("<|eom_id|>", "").replace("<|eot_id|>", "")
    events = check_all(GRAMMAR, stripped)
    assert calls_of(events) == calls
    assert text_of(events) == visible


def test_bare_json_after_reasoning_is_a_call() -> None:
    text = (
        "<think>The user wants the weather.</think>\n\n"
        '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    )
    events = check_all(GRAMMAR, text)
    assert calls_of(events) == [PARIS]
    assert text_of(events) == "\n\n"


def test_an_object_that_is_no_call_is_text() -> None:
    for text in ('{"answer": 42}', "{not json at all} said the model", "{}"):
        events = check_all(GRAMMAR, text)
        assert calls_of(events) == [] and errors_of(events) == [] and text_of(events) == text


def test_function_tag_mentioned_in_prose_is_text() -> None:
    text = "Use <function=get_weather> with a city, then <function=x>."
    events = check_all(GRAMMAR, text)
    assert calls_of(events) == [] and text_of(events) == text


# -- the prompt side ------------------------------------------------------------------

PROMPT = get_grammar(GRAMMAR).prompt
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
ARGUMENTS = st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True), VALUES, max_size=4)


@settings(max_examples=200, deadline=None)
@given(arguments=ARGUMENTS)
def test_a_rendered_call_parses_back(arguments: dict[str, Any]) -> None:
    text = PROMPT.render_call("the_tool", arguments)
    events = check_all(GRAMMAR, text + "\nDone.")
    assert calls_of(events) == [{"name": "the_tool", "arguments": arguments}]
    assert text_of(events) == "Done."


def test_rendered_call_is_the_templates() -> None:
    # The template: '{"name": "' + name + '", "parameters": ' + arguments | tojson + '}'
    assert PROMPT.render_call("special_function", {"arg1": 1}) == (
        '{"name": "special_function", "parameters": {"arg1": 1}}'
    )


def test_system_prompt_is_the_templates() -> None:
    tool = Tool(
        "get_weather",
        "Current weather",
        {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}},
    )
    prompt = PROMPT.system_prompt([tool, Tool("get_time", "Current time")])
    assert prompt.startswith(
        "You have access to the following functions. To call a function, please respond with JSON for a "
        'function call.Respond in the format {"name": function name, "parameters": dictionary of argument '
        'name and its value}.Do not use variables.\n\n{\n    "type": "function",\n'
    )
    assert json.dumps(tool.to_openai(), indent=4) in prompt
    for name in ("get_weather", "get_time", "city", "Current weather"):
        assert name in prompt


@pytest.mark.parametrize(
    ("content", "rendered"),
    [
        ("25 C", '"25 C"'),  # (Meta's doc: the result as JSON, a string quoted)
        ({"temp": 21}, '{"temp": 21}'),
        ([{"type": "text", "text": "25 "}, {"type": "text", "text": "C"}], '"25 C"'),
    ],
)
def test_results_are_written_as_the_template_does(content: Any, rendered: str) -> None:
    assert PROMPT.render_result("get_weather", content) == rendered
    events = check_all(GRAMMAR, rendered, tools=[{"name": "get_weather"}])
    assert calls_of(events) == [] and text_of(events) == rendered
