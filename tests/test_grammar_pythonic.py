"""The pythonic grammar on real cases: vLLM's pythonic, llama4_pythonic and
olmo3 parser tests, SGLang's PythonicDetector tests, and Meta's prompt-format
docs (Llama 3.2 and 4).

Each case is copied from the source it names (repository, path, commit,
licence: ``SOURCES``). Each goes through the invariant matrix
(``check_all``: conservation, chunking independence, reconciliation) with
the source's own stream split where it has one and the deltas of the real
Llama 3 tokenizer (``fixtures/grammars/llama3_tokenizer_splits.json``), and
its calls, visible text and errors are asserted. Where toolparse decides
differently from the source, the case says so and why (``DIFFERS``): a bare
``[`` is a call list only where the answer begins (mid-prose it is text, as
vLLM reads it), and the text around calls is kept, never dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import ROOT, calls_of, check_all, errors_of, run, text_of
from toolparse import Tool
from toolparse.grammars import get_grammar

GRAMMAR = "pythonic"

SOURCES = {
    "vllm": "vllm-project/vllm tests/tool_parsers/test_pythonic_tool_parser.py "
    "@ 0716d268c7d81e445bd9ae30205f7bf4cfacd7d5 (Apache-2.0)",
    "vllm-llama4": "vllm-project/vllm tests/tool_parsers/test_llama4_pythonic_tool_parser.py "
    "@ 0716d268c7d81e445bd9ae30205f7bf4cfacd7d5 (Apache-2.0)",
    "vllm-olmo3": "vllm-project/vllm tests/tool_parsers/test_olmo3_tool_parser.py "
    "@ 2aac44dc3f7b41fca0273ff024fa557c4c7ab1ee (Apache-2.0)",
    "sglang": "sgl-project/sglang test/registered/function_call/test_function_call_parser.py "
    "@ 05400c2adc07b70f67bc28ebcaf4170c0282f571 (Apache-2.0), TestPythonicDetector",
    "meta-3.2": "meta-llama/llama-stack llama_stack/models/llama/llama3_2/prompts_text.py "
    "@ 11fc59e9e5ee4c643d1200fc7a5bcdda76453c7c (MIT): the E2E dialog's past call, as Meta's "
    "formatter writes it in the Llama 3.2 prompt-format doc",
    "meta-4": "meta-llama/llama-stack llama_stack/models/llama/llama4/prompt_format.md "
    "@ 53f29eb8b96be078db69dd0e278fd61700076462 (MIT), Model Response Format sections",
}

# SGLang's setUp tools (its cases also pass arguments the schema does not list: kept).
SGLANG_TOOLS = [
    {
        "name": "get_weather",
        "description": "Get weather information",
        "parameters": {
            "properties": {
                "location": {"type": "string", "description": "Location to get weather for"},
                "unit": {
                    "type": "string",
                    "description": "Temperature unit",
                    "enum": ["celsius", "fahrenheit"],
                },
            },
            "required": ["location"],
        },
    },
    {
        "name": "search",
        "description": "Search for information",
        "parameters": {
            "properties": {"query": {"type": "string", "description": "Search query"}},
            "required": ["query"],
        },
    },
]

SF = {"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}
LA = {"name": "get_weather", "arguments": {"city": "LA", "metric": "C"}}
DOE = {"name": "register_user", "arguments": {"name": "Doe", "age": 9}}
JOHN_DOE = {
    "name": "register_user",
    "arguments": {
        "name": "John Doe",
        "age": 37,
        "address": {"city": "San Francisco", "state": "CA"},
        "role": None,
        "passed_test": True,
        "aliases": ["John", "Johnny"],
    },
}
_JOHN_DOE = (
    "register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=None, passed_test=True, aliases=['John', 'Johnny'])"
)
_SF = "get_weather(city='San Francisco', metric='celsius')"


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
    source_content: str | None = None
    """What the source gives as content where toolparse reports errors:
    with ``errors_as_text`` the visible text is exactly that."""


CASES = [
    # -- vLLM pythonic (Llama 3.2) ------------------------------------------------------
    Case("vllm-py-simple", "vllm", f"[{_SF}]", [SF]),
    Case("vllm-py-more-types", "vllm", f"[{_JOHN_DOE}]", [JOHN_DOE]),
    Case("vllm-py-parameterless", "vllm", "[get_weather()]", [{"name": "get_weather", "arguments": {}}]),
    Case(
        "vllm-py-empty-dict",
        "vllm",
        "[do_something_cool(additional_data={})]",
        [{"name": "do_something_cool", "arguments": {"additional_data": {}}}],
    ),
    Case(
        "vllm-py-empty-list",
        "vllm",
        "[do_something_cool(steps=[])]",
        [{"name": "do_something_cool", "arguments": {"steps": []}}],
    ),
    Case(
        "vllm-py-escaped-strings",
        "vllm",
        "[get_weather(city='Martha\\'s Vineyard', metric='\\\"cool units\\\"')]",
        [{"name": "get_weather", "arguments": {"city": "Martha's Vineyard", "metric": '"cool units"'}}],
    ),
    Case("vllm-py-parallel", "vllm", f"[{_SF}, {_JOHN_DOE}]", [SF, JOHN_DOE]),
    Case(
        "vllm-py-stream-large-steps",
        "vllm",
        f"[{_SF}, get_weather(), do_something_cool(steps=[])]",
        [
            SF,
            {"name": "get_weather", "arguments": {}},
            {"name": "do_something_cool", "arguments": {"steps": []}},
        ],
        splits=(
            (
                "[get_weather(city='San",
                " Francisco', metric='celsius'), get_weather(), do_something_cool(steps=[])]",
            ),
        ),
    ),
    Case(
        "vllm-py-bad-sibling-bytes",
        "vllm",
        f"[bad(x=b'z'), {_SF}]",
        # DIFFERS: vLLM drops bad() (a bytes value has no JSON form). toolparse's
        # literal reader (readers/pyliteral.py) reads b'z' as the string "z", so both
        # calls stand; the sibling survives either way, which is what the test guards.
        [{"name": "bad", "arguments": {"x": "z"}}, SF],
    ),
    Case(
        "vllm-py-non-finite-number",
        "vllm",
        f"[calc(x=1e999), {_SF}]",
        # (as vLLM: the call with an infinite number is rejected, its sibling stands;
        # here the rejected call is an invalid_call error carrying its text)
        [SF],
        "",
        ("invalid_call",),
    ),
    Case(
        "vllm-py-unparsable-sibling",
        "vllm",
        f"[{_SF}, f(a='x 'y', b='z')]",
        # (the broken quotes run to the end: the rest is one unfinished call)
        [SF],
        "",
        ("unfinished_call",),
    ),
    Case(
        "vllm-py-unrecoverable",
        "vllm",
        "[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
        # DIFFERS (in form): vLLM returns the text as content; here each call is an
        # invalid_call error carrying its text (as content with errors_as_text).
        [],
        "",
        ("invalid_call", "invalid_call"),
        source_content="[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
    ),
    Case("vllm-py-mismatched-brackets", "vllm", "[foo(x=1])]", [], "", ("invalid_call",)),
    Case("vllm-py-no-call", "vllm", "How can I help you today?", [], "How can I help you today?"),
    # -- vLLM llama4_pythonic -----------------------------------------------------------
    Case(
        "vllm-l4-python-start-end",
        "vllm-llama4",
        "<|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>",
        [LA],
    ),
    Case(
        "vllm-l4-parallel-no-spaces",
        "vllm-llama4",
        "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
        [LA, DOE],
    ),
    Case(
        "vllm-l4-python-start-without-end",
        "vllm-llama4",
        "<|python_start|>[get_weather(city='LA', metric='C'),register_user(name='Doe', age=9)]",
        [LA, DOE],
    ),
    Case(
        "vllm-l4-python-start-space-after-comma",
        "vllm-llama4",
        "<|python_start|>[get_weather(city='LA', metric='C'), register_user(name='Doe', age=9)]",
        [LA, DOE],
    ),
    Case(
        "vllm-l4-stream-one-big-delta",
        "vllm-llama4",
        "<|python_start|>[get_weather(city='LA', metric='C'), get_weather(), do_something_cool(steps=[])]"
        "<|python_end|>",
        [
            LA,
            {"name": "get_weather", "arguments": {}},
            {"name": "do_something_cool", "arguments": {"steps": []}},
        ],
    ),
    Case(
        "vllm-l4-bad-sibling-bytes",
        "vllm-llama4",
        "<|python_start|>[bad(x=b'z'), get_weather(city='LA', metric='C')]<|python_end|>",
        # DIFFERS: as vllm-py-bad-sibling-bytes
        [{"name": "bad", "arguments": {"x": "z"}}, LA],
    ),
    Case(
        "vllm-l4-mismatched-brackets",
        "vllm-llama4",
        "<|python_start|>[foo(x=1])]<|python_end|>",
        [],
        "",
        ("invalid_call",),
    ),
    # -- vLLM olmo3: calls one per line inside <function_calls> ---------------------------
    Case("vllm-olmo3-simple", "vllm-olmo3", f"<function_calls>{_SF}</function_calls>", [SF]),
    Case(
        "vllm-olmo3-json-literals",
        "vllm-olmo3",
        "<function_calls>register_user(name='John Doe', age=37, address={'city': 'San Francisco', "
        "'state': 'CA'}, role=null, passed_test=true, aliases=['John', 'Johnny'])</function_calls>",
        [JOHN_DOE],
    ),
    Case(
        "vllm-olmo3-parallel-newline",
        "vllm-olmo3",
        f"<function_calls>{_SF}\n{_JOHN_DOE}</function_calls>",
        [SF, JOHN_DOE],
    ),
    Case(
        "vllm-olmo3-stream-large-steps",
        "vllm-olmo3",
        f"<function_calls>{_SF}\nget_weather()\ndo_something_cool(steps=[])</function_calls>",
        [
            SF,
            {"name": "get_weather", "arguments": {}},
            {"name": "do_something_cool", "arguments": {"steps": []}},
        ],
        splits=(
            (
                "<function_calls>get_weather(city='San",
                " Francisco', metric='celsius')\nget_weather()\ndo_something_cool(steps=[])</function_calls>",
            ),
        ),
    ),
    # -- SGLang PythonicDetector ----------------------------------------------------------
    Case(
        "sglang-py-text-before",
        "sglang",
        "Here's a tool call: [get_weather(location='New York', unit='celsius')]",
        # DIFFERS: SGLang reads a list anywhere; vLLM (and Meta's Llama 4 prompt, which
        # calls "Let me check the weather: [get_weather(...)]" INCORRECT) only at the
        # start. Here a list after prose is text: "[" is far too common in prose to
        # open calls anywhere (and nothing is dropped either way).
        [],
        "Here's a tool call: [get_weather(location='New York', unit='celsius')]",
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-partial-across-chunks",
        "sglang",
        "Let me check the weather: [get_weather(location='Paris')]",
        # DIFFERS: as sglang-py-text-before
        [],
        "Let me check the weather: [get_weather(location='Paris')]",
        splits=(("Let me check the weather: [get_weather(location=", "'Paris')]"),),
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-text-after",
        "sglang",
        "[get_weather(location='Tokyo')] Here's the forecast:",
        [{"name": "get_weather", "arguments": {"location": "Tokyo"}}],
        # (the space after the list is the call's raw text)
        "Here's the forecast:",
        splits=(("[get_weather(location='Tokyo')] Here's the forecast:", ""),),
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-two-separate-lists",
        "sglang",
        "[get_weather(location='Berlin')] and [search(query='restaurants')]",
        # DIFFERS: SGLang reads the second list too; here it comes after prose: text.
        [{"name": "get_weather", "arguments": {"location": "Berlin"}}],
        "and [search(query='restaurants')]",
        splits=(("[get_weather(location='Berlin')] and [search(query='restaurants')]", ""),),
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-open-bracket-only",
        "sglang",
        "Let's try this: [",
        # (SGLang holds the "[" back, waiting; at the end of the stream it is text)
        [],
        "Let's try this: [",
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-nested-list-arg",
        "sglang",
        "[get_weather(location='New York', unit='celsius', data=[1, 2, 3])]",
        [
            {
                "name": "get_weather",
                "arguments": {"location": "New York", "unit": "celsius", "data": [1, 2, 3]},
            }
        ],
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-nested-dict-arg",
        "sglang",
        "[search(query='test', config={'options': [1, 2], 'nested': {'key': 'value'}})]",
        [
            {
                "name": "search",
                "arguments": {"query": "test", "config": {"options": [1, 2], "nested": {"key": "value"}}},
            }
        ],
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-parallel-nested",
        "sglang",
        "[get_weather(location='Paris', data=[10, 20]), search(query='test', filters=['a', 'b'])]",
        [
            {"name": "get_weather", "arguments": {"location": "Paris", "data": [10, 20]}},
            {"name": "search", "arguments": {"query": "test", "filters": ["a", "b"]}},
        ],
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-partial-nested",
        "sglang",
        "Here's a call: [get_weather(location='Tokyo', data=[1, 2, 3])]",
        # DIFFERS: as sglang-py-text-before
        [],
        "Here's a call: [get_weather(location='Tokyo', data=[1, 2, 3])]",
        splits=(("Here's a call: [get_weather(location='Tokyo', data=[1, 2", ", 3])]"),),
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-python-start-split",
        "sglang",
        "Here's a call: <|python_start|>[get_weather(location='Tokyo', data=[1, 2, 3])]<|python_end|>",
        # (<|python_start|> is a marker: it opens the list anywhere, even cut in two)
        [{"name": "get_weather", "arguments": {"location": "Tokyo", "data": [1, 2, 3]}}],
        "Here's a call: ",
        splits=(
            (
                "Here's a call: ",
                "<|python_",
                "start|>[get_weather(location=",
                "'Tokyo', data=[1, 2",
                ", 3])]<|python_end|>",
            ),
        ),
        tools=SGLANG_TOOLS,
    ),
    Case(
        "sglang-py-python-start-text-both-sides",
        "sglang",
        "User wants to get the weather in Mars. "
        "<|python_start|>[get_weather(location='Mars', unit='celsius')]"
        "<|python_end|> In this way we will get the weather in Mars.",
        [{"name": "get_weather", "arguments": {"location": "Mars", "unit": "celsius"}}],
        "User wants to get the weather in Mars.  In this way we will get the weather in Mars.",
        tools=SGLANG_TOOLS,
    ),
    # -- Meta's docs --------------------------------------------------------------------
    Case(
        "meta-llama32-python-tag-double-quotes",
        "meta-3.2",
        '<|python_tag|>[get_weather(city="San Francisco", metric="celsius")]<|eot_id|>',
        [SF],
    ),
    Case(
        "meta-llama4-parallel-eot",
        "meta-4",
        "[get_weather(city='SF'), get_weather(city='Seattle')]<|eot|>",
        [
            {"name": "get_weather", "arguments": {"city": "SF"}},
            {"name": "get_weather", "arguments": {"city": "Seattle"}},
        ],
    ),
    Case(
        "meta-llama4-int-arg-eot",
        "meta-4",
        "[get_user_info(user_id=7890, special='black')]<|eot|>",
        [{"name": "get_user_info", "arguments": {"user_id": 7890, "special": "black"}}],
        tools=[
            {
                "name": "get_user_info",
                "description": "Retrieve details for a specific user by their unique identifier.",
                "parameters": {
                    "type": "object",
                    "required": ["user_id"],
                    "properties": {"user_id": {"type": "integer"}, "special": {"type": "string"}},
                },
            }
        ],
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


# -- special tokens stripped by the server --------------------------------------------
# A server that skips special tokens sends no <|python_tag|>, <|python_start|> or
# <|eot_id|>: the list is still read where the answer begins. A list after prose had
# only its marker to go by, and is then text.


@pytest.mark.parametrize(
    ("kept", "calls", "visible"),
    [
        ('<|python_tag|>[get_weather(city="San Francisco", metric="celsius")]<|eot_id|>', [SF], ""),
        ("<|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>", [LA], ""),
        ("\n<|python_start|>[get_weather(city='LA', metric='C')]<|python_end|><|eot|>", [LA], "\n"),
        (
            "Here's a call: <|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>",
            [],
            "Here's a call: [get_weather(city='LA', metric='C')]",
        ),
    ],
)
def test_special_tokens_stripped(kept: str, calls: list[dict[str, Any]], visible: str) -> None:
    stripped = kept
    for token in ("<|python_tag|>", "<|python_start|>", "<|python_end|>", "<|eot_id|>", "<|eot|>"):
        stripped = stripped.replace(token, "")
    assert calls_of(check_all(GRAMMAR, kept)) == ([SF] if "San Francisco" in kept else [LA])
    events = check_all(GRAMMAR, stripped)
    assert calls_of(events) == calls
    assert text_of(events) == visible


def test_a_list_after_reasoning_is_read() -> None:
    text = "<think>The user wants the weather.</think>\n[get_weather(city='SF')]"
    events = check_all(GRAMMAR, text)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "SF"}}]
    assert text_of(events) == "\n"


@pytest.mark.parametrize(
    "text",
    [
        "[Paris](https://en.wikipedia.org/wiki/Paris) is the capital.",
        "[1, 2, 3] are the first numbers.",
        "[Note] see below",
        "[]",
        "<function_calls> is how Olmo wraps its calls.",
        '<function_calls>\n<invoke name="get_weather">\n</invoke>\n</function_calls>',
    ],
)
def test_brackets_and_wrappers_that_hold_no_call_are_text(text: str) -> None:
    events = check_all(GRAMMAR, text)
    assert calls_of(events) == [] and errors_of(events) == [] and text_of(events) == text


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


def test_rendered_call_is_metas() -> None:
    # Meta's Llama 3.2 doc writes the past call with double quotes
    assert PROMPT.render_call("get_weather", {"city": "San Francisco", "metric": "celsius"}) == (
        '[get_weather(city="San Francisco", metric="celsius")]'
    )
    assert (
        PROMPT.render_call("f", {"a": True, "b": None, "c": [1, {"k": 2.5}]})
        == '[f(a=True, b=None, c=[1, {"k": 2.5}])]'
    )


def test_system_prompt_is_metas() -> None:
    tool = Tool(
        "get_weather",
        "Current weather",
        {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}},
    )
    prompt = PROMPT.system_prompt([tool, Tool("get_time", "Current time")])
    assert prompt.startswith(
        "You are an expert in composing functions. You are given a question and a set of possible "
        "functions.\nBased on the question, you will need to make one or more function/tool calls to "
        "achieve the purpose.\nIf none of the function can be used, point it out. If the given question "
        "lacks the parameters required by the function,\nalso point it out. You should only return the "
        "function call in tools call sections.\n\n"
        "If you decide to invoke any of the function(s), you MUST put it in the format of "
        "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n"
        "You SHOULD NOT include any other text in the response.\n\n"
        "Here is a list of functions in JSON format that you can invoke.\n\n"
        '[\n    {\n        "name": "get_weather"'
    )
    for name in ("get_weather", "get_time", "city", "Current weather"):
        assert name in prompt


@pytest.mark.parametrize(
    ("content", "rendered"),
    [("25 C", '"25 C"'), ({"temp": 21}, '{"temp": 21}'), ([{"type": "text", "text": "25 C"}], '"25 C"')],
)
def test_results_are_written_as_metas_doc_does(content: Any, rendered: str) -> None:
    assert PROMPT.render_result("get_weather", content) == rendered
    events = check_all(GRAMMAR, rendered, tools=[{"name": "get_weather"}])
    assert calls_of(events) == [] and text_of(events) == rendered
