"""gpt-oss (OpenAI harmony): real outputs from the format's own suite and its peers.

Each case's input is copied from another project's test suite or docs (the
model's decoded output, special tokens kept), with its source: repository,
path, commit and licence (collected in the workplace's research notes on
gpt-oss). The expectations are toolparse's; where they differ from what the
source asserts, the case's ``differs`` says how and why. Inputs marked
"reconstructed" are the research notes' rendering of a test that builds
harmony messages as token ids (vLLM): the assistant part after the
``<|start|>assistant`` generation prompt, written by harmony's rendering
rules.

Copied material: ``ggml-org/llama.cpp`` (MIT, Copyright (c) 2023-2024 The
ggml authors); ``openai/harmony``, ``sgl-project/sglang`` and
``vllm-project/vllm`` (Apache-2.0, their authors).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolparse
from support import calls_of, check_all, text_of
from toolparse import Tool, ToolCallError
from toolparse.grammars import get_grammar
from toolparse.grammars.gpt_oss import HARMONY_REASONING


class Source(NamedTuple):
    repo: str
    path: str
    commit: str
    licence: str


LLAMA_CPP = Source(
    "ggml-org/llama.cpp", "tests/test-chat.cpp", "0042e2079d3428ba7af410df553202aa7fdf8d7a", "MIT"
)
LLAMA_CPP_OLDER = Source(
    "ggml-org/llama.cpp", "tests/test-chat.cpp", "an older revision (commit not recorded)", "MIT"
)
HARMONY_TESTS = Source(
    "openai/harmony", "tests/test_harmony.py", "14648ba11d1f6605ede5688a5cec9e4d5070f561", "Apache-2.0"
)
HARMONY_DOCS = Source(
    "openai/harmony", "docs/format.md", "20cd04c17fa327f01f9f28240fb70183d4feb406", "Apache-2.0"
)
SGLANG = Source(
    "sgl-project/sglang",
    "test/registered/function_call/test_gpt_oss_detector.py",
    "4e285c7766ea604ac2100100d7d02962b0831a57",
    "Apache-2.0",
)
VLLM = Source(
    "vllm-project/vllm",
    "tests/tool_parsers/test_openai_tool_parser.py",
    "15c99cb111e626d885d7f54a0b57dc9ff10168db",
    "Apache-2.0",
)


def _tool(name: str, **properties: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties}}


STRING, NUMBER = {"type": "string"}, {"type": "number"}
TOOLS = {
    "special_function": _tool("special_function", arg1={"type": "integer"}),
    "get_weather": _tool("get_weather", location=STRING, latitude=NUMBER, longitude=NUMBER),
    "edit": _tool("edit", oldString=STRING, newString=STRING, replaceAll={"type": "boolean"}),
    "generate_file": _tool("generate_file", template=STRING, path=STRING),
    "read_file": _tool("read_file", files={"type": "array", "items": STRING}),
    "get_current_weather": _tool("get_current_weather", location=STRING),
    "get_user_location": _tool("get_user_location", location=STRING),
}


@dataclass(frozen=True)
class Case:
    id: str
    source: Source
    text: str
    calls: list[dict[str, Any]]
    visible: str
    reasoning: str
    errors: list[tuple[str, str | None]] = field(default_factory=list)
    """(reason, the call's name) of each error."""
    tools: tuple[str, ...] | None = None
    splits: tuple[tuple[str, ...], ...] = ()
    differs: str = ""
    """How (and why) toolparse differs from what the source asserts."""


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


SPECIAL = call("special_function", arg1=1)
THINKING = "I'm\nthinking"
HELLO = "Hello, world!\nWhat's up?"
SGLANG_TEXT = (
    "<|channel|>analysis<|message|>Reasoning...<|end|><|start|>assistant<|channel|>commentary "
    'to=functions.read_file <|constrain|>json<|message|>{\n  "files": []\n}<|call|><|start|>assistant'
    "<|channel|>final<|message|>This text should be truncated."
)
VLLM_THOUGHT = (
    'User asks: "What is the weather in Tokyo?" based on their location. '
    "We need to use get_current_weather tool and get_user_location tool."
)
SGLANG_DIFFERS = (
    "SGLang drops everything after the first <|call|> (a stop token: an engine that did not stop); "
    "toolparse loses no text, and vLLM keeps the final channel after a call too"
)

CASES = [
    # -- text and reasoning ------------------------------------------------------------
    Case(
        "llamacpp-oss-final-only",
        LLAMA_CPP,
        "<|channel|>final<|message|>Hello, world!\nWhat's up?",
        [],
        HELLO,
        "",
    ),
    Case(
        "llamacpp-oss-commentary-content",  # (a commentary message with no recipient: a preamble)
        LLAMA_CPP,
        "<|channel|>commentary<|message|>Hello, world!\nWhat's up?",
        [],
        HELLO,
        "",
    ),
    Case(
        "llamacpp-oss-analysis-then-final",
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>final<|message|>"
        "Hello, world!\nWhat's up?",
        [],
        HELLO,
        THINKING,
    ),
    Case(
        "llamacpp-oss-partial-analysis",
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I'm\nthinking",
        [],
        "",
        THINKING,
    ),
    Case(
        "harmony-simple-reasoning-response",
        HARMONY_DOCS,
        '<|channel|>analysis<|message|>User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.<|end|>'
        "<|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>",
        [],
        "2 + 2 = 4.",
        'User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.',
    ),
    Case(
        "llamacpp-oss-structured-final-constrain",  # (<|constrain|>json on the final channel: text)
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I need to output the invoice details in JSON<|end|><|start|>assistant"
        '<|channel|>final <|constrain|>json<|message|>{"amount": 123.45, "date": "2025-12-03"}',
        [],
        '{"amount": 123.45, "date": "2025-12-03"}',
        "I need to output the invoice details in JSON",
    ),
    Case(
        "harmony-final-constrain-no-recipient",
        HARMONY_TESTS,
        '<|start|>assistant<|channel|>final <|constrain|>json<|message|>{"result":true}<|return|>',
        [],
        '{"result":true}',
        "",
    ),
    Case(
        "vllm-oss-final-only",  # (reconstructed)
        VLLM,
        "<|channel|>final<|message|>This is a test<|end|>",
        [],
        "This is a test",
        "",
    ),
    # -- calls -------------------------------------------------------------------------
    Case(
        "harmony-doc-tool-call",  # recipient in the channel part, " <|constrain|>json", <|call|>
        HARMONY_DOCS,
        "<|channel|>analysis<|message|>Need to use function get_weather.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_weather <|constrain|>json"
        '<|message|>{"location":"San Francisco"}'
        "<|call|>",
        [call("get_weather", location="San Francisco")],
        "",
        "Need to use function get_weather.",
        tools=("get_weather",),
    ),
    Case(
        "harmony-recipient-in-role-constrain",  # recipient in the role part (how harmony renders a call)
        HARMONY_TESTS,
        "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json"
        '<|message|>{"location": '
        '"Tokyo"}<|call|>',
        [call("get_weather", location="Tokyo")],
        "",
        "",
        tools=("get_weather",),
    ),
    Case(
        "harmony-constrain-adjacent-no-space",
        HARMONY_TESTS,
        "<|start|>assistant to=functions.get_weather<|channel|>commentary<|constrain|>json"
        '<|message|>{"location": '
        '"Tokyo"}<|call|>',
        [call("get_weather", location="Tokyo")],
        "",
        "",
        tools=("get_weather",),
    ),
    Case(
        "harmony-recipient-in-channel-constrain-adjacent",  # (the name ends at <|constrain|>)
        HARMONY_TESTS,
        "<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>"
        '{"latitude":48.8566,"longitude":2.3522}<|call|>',
        [call("get_weather", latitude=48.8566, longitude=2.3522)],
        "",
        "",
        tools=("get_weather",),
    ),
    Case(
        "llamacpp-oss-recipient-in-role-header-analysis",  # (the prompt ended with <|start|>assistant)
        LLAMA_CPP,
        ' to=functions.special_function<|channel|>analysis<|message|>{"arg1": 1}',
        [SPECIAL],
        " ",  # (the space before the recipient, whitespace before the answer: text)
        "",
        tools=("special_function",),
    ),
    Case(
        "llamacpp-oss-recipient-in-channel-analysis",  # (a call on the analysis channel, no content type)
        LLAMA_CPP,
        '<|channel|>analysis to=functions.special_function<|message|>{"arg1": 1}',
        [SPECIAL],
        "",
        "",
        tools=("special_function",),
    ),
    Case(
        "llamacpp-oss-role-header-constrain",
        LLAMA_CPP,
        ' to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{"arg1": 1}',
        [SPECIAL],
        " ",  # (the space before the recipient, whitespace before the answer: text)
        "",
        tools=("special_function",),
    ),
    Case(
        "llamacpp-oss-leading-role-header-commentary",
        LLAMA_CPP_OLDER,
        ' to=functions.special_function<|channel|>commentary <|constrain|>json<|message|>{"arg1": 1}',
        [SPECIAL],
        " ",  # (the space before the recipient, whitespace before the answer: text)
        "",
        tools=("special_function",),
    ),
    Case(
        "llamacpp-oss-commentary-recipient-no-constrain",
        LLAMA_CPP,
        '<|channel|>commentary to=functions.special_function<|message|>{"arg1": 1}',
        [SPECIAL],
        "",
        "",
        tools=("special_function",),
    ),
    Case(
        "llamacpp-oss-analysis-then-call-role-header",
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant to=functions.special_function"
        '<|channel|>analysis<|message|>{"arg1": 1}',
        [SPECIAL],
        "",
        THINKING,
        tools=("special_function",),
    ),
    Case(
        "llamacpp-oss-edit-code-args",  # ("<" and "{" inside JSON strings)
        LLAMA_CPP,
        "<|channel|>analysis<|message|>Thinking about edit...<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.edit <|constrain|>json<|message|>{"oldString": "if (part < railCount - 1) {", '
        '"newString": "if (part < 4) {", "replaceAll": false}',
        [
            call(
                "edit", oldString="if (part < railCount - 1) {", newString="if (part < 4) {", replaceAll=False
            )
        ],
        "",
        "Thinking about edit...",
        tools=("edit",),
    ),
    Case(
        "vllm-oss-single-call",  # (reconstructed: bare " json" content type, recipient in the role part)
        VLLM,
        '<|channel|>analysis<|message|>User asks: "What is the weather in Tokyo?" We need to use '
        "get_current_weather tool.<|end|><|start|>assistant to=functions.get_current_weather<|channel|>"
        'commentary json<|message|>{"location": "Tokyo"}<|call|>',
        [call("get_current_weather", location="Tokyo")],
        "",
        'User asks: "What is the weather in Tokyo?" We need to use get_current_weather tool.',
        tools=("get_current_weather",),
    ),
    # -- preambles, several messages -----------------------------------------------------
    Case(
        "harmony-doc-preamble-then-call",  # (a preamble is shown; no space before <|constrain|>)
        HARMONY_DOCS,
        "<|channel|>analysis<|message|>{long chain of thought}<|end|><|start|>assistant<|channel|>commentary"
        "<|message|>**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js"
        " server\n"
        "3. Start the server\n---\nWill start executing the plan step by step<|end|><|start|>assistant"
        "<|channel|>"
        'commentary to=functions.generate_file<|constrain|>json<|message|>{"template": "basic_html", "path": '
        '"index.html"}<|call|>',
        [call("generate_file", template="basic_html", path="index.html")],
        "**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js server\n"
        "3. Start the server\n---\nWill start executing the plan step by step",
        "{long chain of thought}",
        tools=("generate_file",),
    ),
    Case(
        "llamacpp-oss-preamble-then-call",
        LLAMA_CPP_OLDER,
        "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary<|message|>"
        "Hello, world!\nWhat's up?<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.special_function "
        '<|constrain|>json<|message|>{"arg1": 1}',
        [SPECIAL],
        HELLO,
        THINKING,
        tools=("special_function",),
    ),
    Case(
        "vllm-oss-call-then-final",  # (reconstructed)
        VLLM,
        f"<|channel|>analysis<|message|>{VLLM_THOUGHT}<|end|>"
        "<|start|>assistant to=functions.get_current_weather"
        '<|channel|>commentary json<|message|>{"location": "Tokyo"}<|call|><|start|>assistant<|channel|>final'
        "<|message|>This tool call will get the weather.<|end|>",
        [call("get_current_weather", location="Tokyo")],
        "This tool call will get the weather.",
        VLLM_THOUGHT,
        tools=("get_current_weather",),
    ),
    Case(
        "sglang-oss-truncate-after-call",  # (pretty-printed JSON arguments)
        SGLANG,
        SGLANG_TEXT,
        [call("read_file", files=[])],
        "This text should be truncated.",
        "Reasoning...",
        tools=("read_file",),
        differs=SGLANG_DIFFERS,
    ),
    Case(
        "sglang-oss-truncate-after-call-stream10",  # the same output in SGLang's 10-character chunks
        SGLANG,
        SGLANG_TEXT,
        [call("read_file", files=[])],
        "This text should be truncated.",
        "Reasoning...",
        tools=("read_file",),
        splits=(tuple(SGLANG_TEXT[k : k + 10] for k in range(0, len(SGLANG_TEXT), 10)),),
        differs=SGLANG_DIFFERS,
    ),
    Case(
        "sglang-oss-call-then-plain-text",
        SGLANG,
        "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{}"
        "<|call|>"
        "This is normal text that should be ignored.",
        [call("read_file")],
        "This is normal text that should be ignored.",
        "",
        tools=("read_file",),
        splits=(
            (
                "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json"
                "<|message|>{}"
                "<|call|>",
                "This is normal text that should be ignored.",
            ),
        ),
        differs=SGLANG_DIFFERS,
    ),
    # -- broken shapes -----------------------------------------------------------------
    Case(
        "llamacpp-oss-partial-args-constrain",  # a call cut short by the end of the stream
        LLAMA_CPP_OLDER,
        "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.special_function <|constrain|>json<|message|>{"arg1',
        [],
        "",
        THINKING,
        errors=[("unfinished_call", "special_function")],
        tools=("special_function",),
        differs="llama.cpp, parsing a partial message mid-stream, shows a partial call; "
        "at the end of the stream toolparse reports it unfinished",
    ),
    Case(
        "llamacpp-oss-builtin-container-exec-unsolicited",
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I will execute python to say hello<|end|>"
        "<|start|>assistant to=container.exec"
        "<|channel|>commentary<|message|>python3 -c 'print(\"hello\")'",
        [],
        "",
        "I will execute python to say hello",
        errors=[("malformed_json", "container.exec")],
        differs="llama.cpp drops a built-in tool's call without a trace; toolparse reports it (the "
        "message is not JSON) with its raw markup, so a client can see the model tried a tool",
    ),
    Case(
        "llamacpp-oss-builtin-python-recipient-in-channel",  # (content type "code")
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I will execute python to say hello<|end|><|start|>assistant<|channel|>"
        'commentary to=python <|constrain|>code<|message|>print("hello")',
        [],
        "",
        "I will execute python to say hello",
        errors=[("malformed_json", "python")],
        differs="llama.cpp drops it; toolparse reports it, as above",
    ),
    Case(
        "llamacpp-oss-commentary-to-assistant-before-analysis",  # a header cut short: the next channel wins
        LLAMA_CPP,
        "<|channel|>commentary to=assistant<|channel|>analysis<|message|>I'm\nthinking<|end|>"
        "<|start|>assistant"
        "<|channel|>final<|message|>Hello, world!\nWhat's up?",
        [],
        HELLO,
        THINKING,
    ),
    Case(
        "llamacpp-oss-commentary-to-assistant-before-final",
        LLAMA_CPP,
        "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant"
        "<|channel|>commentary to=assistant"
        "<|channel|>final<|message|>Hello, world!\nWhat's up?",
        [],
        HELLO,
        THINKING,
    ),
    Case(
        "harmony-missing-message-token-first",
        HARMONY_TESTS,
        "I must refuse<|end|><|start|>assistant<|channel|>analysis<|message|>We must refuse<|end|>"
        "<|start|>assistant"
        "<|channel|>final<|message|>I'm sorry, but I can't help with that.<|return|>",
        [],
        "I must refuseI'm sorry, but I can't help with that.",
        "We must refuse",
        differs="harmony (non-strict) reads 'I must refuse' as a message with no channel, and the source "
        "lists only the final channel as content; toolparse shows it: nothing marks it as reasoning, "
        "and text is never dropped",
    ),
    Case(
        "harmony-missing-message-token-analysis",
        HARMONY_TESTS,
        "<|channel|>analysis I must refuse<|end|><|start|>assistant<|channel|>analysis"
        "<|message|>We must refuse"
        "<|end|><|start|>assistant<|channel|>final<|message|>I'm sorry, but I can't help with that."
        "<|return|>",
        [],
        "<|channel|>analysis I must refuseI'm sorry, but I can't help with that.",
        "We must refuse",
        differs="harmony (non-strict) reads the header with no <|message|> as an analysis message holding "
        "'I must refuse'; toolparse's reasoning opens only at '<|channel|>analysis<|message|>' (a "
        "Reasoning has one opener), so that broken message stays visible text, tokens and all",
    ),
    Case(
        "harmony-missing-message-token-tool-call",
        HARMONY_TESTS,
        "... Let's use the tool.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json"
        '<|message|>{"location": "Tokyo"}<|call|>',
        [call("get_weather", location="Tokyo")],
        "... Let's use the tool.",
        "",
        tools=("get_weather",),
        differs="harmony reads the text with no header as a message with no channel; toolparse shows it",
    ),
    Case(
        "vllm-oss-multiple-calls-mixed",  # (reconstructed) six call messages, two of them broken
        VLLM,
        f"<|channel|>analysis<|message|>{VLLM_THOUGHT}<|end|>"
        "<|start|>assistant to=functions.get_current_weather"
        '<|channel|>commentary json<|message|>{"location": "Tokyo"}<|call|><|start|>assistant '
        'to=functions.get_user_location<|channel|>commentary json<|message|>{"location": "Tokyo"}<|call|>'
        '<|start|>assistant to=functions.no_content_type<|channel|>commentary<|message|>{"location": "Tokyo"}'
        "<|call|><|start|>assistant to=functions.not_json_no_content_type<|channel|>commentary<|message|>foo"
        "<|call|><|start|>assistant to=functions.empty_args<|channel|>commentary json<|message|>{}<|call|>"
        "<|start|>assistant to=functions.no_args<|channel|>commentary json<|message|><|call|>",
        [
            call("get_current_weather", location="Tokyo"),
            call("get_user_location", location="Tokyo"),
            call("no_content_type", location="Tokyo"),
            call("empty_args"),
            call("no_args"),
        ],
        "",
        VLLM_THOUGHT,
        errors=[("malformed_json", "not_json_no_content_type")],
        differs="vLLM passes the message 'foo' through as the arguments and an empty message as ''; "
        "toolparse's arguments are always a JSON object: 'foo' is a malformed_json error, and an "
        "empty message ended by <|call|> is a call with no arguments ({})",
    ),
    Case(
        "llamacpp-llmjp-spaces-parallel-end-separated",
        LLAMA_CPP,
        "<|channel|> analysis<|message|> I'm\nthinking<|end|>"
        "<|start|> assistant to=functions.special_function"
        '<|channel|> commentary <|constrain|>  json<|message|> {"arg1": 1}<|end|><|start|> assistant '
        'to=functions.special_function<|channel|> commentary <|constrain|>  json<|message|> {"arg1": 2}',
        [],
        "<|channel|> analysis I'm\nthinking<|start|> assistant to=functions.special_function"
        '<|channel|> commentary <|constrain|>  json {"arg1": 1}<|start|> assistant '
        'to=functions.special_function<|channel|> commentary <|constrain|>  json {"arg1": 2}',
        "",
        tools=("special_function",),
        differs="LLM-jp-4.1's dialect of harmony (a space after every special token), which llama.cpp "
        "reads as its own format; it is not gpt-oss's output, and toolparse's gpt-oss grammar leaves it "
        "as text (only the stray <|end|> and <|message|> tokens, always markup, are taken out)",
    ),
]


def _errors(events: list[Any]) -> list[tuple[str, str | None]]:
    return [(str(e.reason), e.name) for e in events if isinstance(e, ToolCallError)]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_real_output(case: Case) -> None:
    tools = None if case.tools is None else [TOOLS[name] for name in case.tools]
    events = check_all("gpt-oss", case.text, case.splits, tools=tools)
    assert calls_of(events) == case.calls
    assert text_of(events) == case.visible
    assert toolparse.parse_text(case.text, grammar="gpt-oss", tools=tools).reasoning == case.reasoning
    assert _errors(events) == case.errors


def test_every_case_is_attributed() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 10
    for case in CASES:
        assert all(case.source), case.id
        assert "<|" in case.text or case.text.startswith(" to=")


def test_the_vllm_calls_and_their_errors() -> None:
    """vllm-oss-multiple-calls-mixed: calls, text, and the argument that is not JSON."""
    (case,) = [c for c in CASES if c.id == "vllm-oss-multiple-calls-mixed"]
    events = check_all("gpt-oss", case.text)
    assert calls_of(events) == case.calls
    assert text_of(events) == case.visible
    assert ("malformed_json", "not_json_no_content_type") in _errors(events)


def test_an_empty_message_to_a_tool_is_a_call_with_no_arguments() -> None:
    text = "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|><|call|>"
    events = check_all("gpt-oss", text)
    assert calls_of(events) == [call("get_time")]
    assert _errors(events) == []


# -- decisions beyond the sources ------------------------------------------------------

BROWSER = (
    "<|channel|>analysis<|message|>Search.<|end|><|start|>assistant<|channel|>analysis to=browser.search "
    '<|constrain|>json<|message|>{"query": "harmony format"}<|call|>'
)


def test_a_built_in_tool_is_a_call_of_that_name() -> None:
    """gpt-oss calls its built-in tools (browser.*, python) like functions, on the
    analysis channel. vLLM reads only ``functions.*`` recipients and llama.cpp
    drops the others; toolparse makes a call of the recipient's name, so a
    client that runs the built-in tools gets them, and with tools declared the
    call is an ``unknown_tool`` error that keeps its raw markup."""
    events = check_all("gpt-oss", BROWSER)
    assert calls_of(events) == [call("browser.search", query="harmony format")]
    assert text_of(events) == ""
    events = check_all("gpt-oss", BROWSER, tools=[TOOLS["get_weather"]])
    assert calls_of(events) == []
    assert _errors(events) == [("unknown_tool", "browser.search")]
    assert text_of(events) == ""


def test_a_message_to_assistant_is_not_a_call() -> None:
    """A tool's result is a message to the assistant (what render_result writes):
    never a call."""
    rendered = get_grammar("gpt-oss").prompt.render_result("get_weather", {"sunny": True, "temperature": 20})
    assert calls_of(check_all("gpt-oss", rendered)) == []


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        # the harmony docs' example output (and a call), decoded with skip_special_tokens=True
        (
            'analysisUser asks: "What is 2 + 2?" Simple arithmetic. Provide answer.assistantfinal2 + 2 = 4.',
            'analysisUser asks: "What is 2 + 2?" Simple arithmetic. Provide answer.assistantfinal2 + 2 = 4.',
        ),
        (
            "analysisNeed to use function get_weather.assistantcommentary to=functions.get_weather"
            ' json{"location":'
            '"San Francisco"}',
            "analysisNeed to use function get_weather.assistantcommentary to=functions.get_weather"
            ' json{"location":'
            '"San Francisco"}',
        ),
    ],
)
def test_special_tokens_stripped_by_the_server(text: str, visible: str) -> None:
    """With the special tokens stripped (the server's ``skip_special_tokens``
    default) nothing marks the channels: toolparse reads the output as plain
    text, the reasoning and any call included, and makes no call (the channel
    names glued to the text, ``analysis...assistantfinal...``, are ordinary
    words). SGLang guesses at the final channel by looking for
    ``assistantfinal``; toolparse does not guess. Serve gpt-oss with special
    tokens kept (vLLM and SGLang: ``skip_special_tokens=False``) to parse it."""
    events = check_all("gpt-oss", text, tools=[TOOLS["get_weather"]])
    assert calls_of(events) == []
    assert _errors(events) == []
    assert text_of(events) == visible
    assert toolparse.parse_text(text, grammar="gpt-oss").reasoning == ""


def test_auto_reasoning_is_the_analysis_channel() -> None:
    text = CASES[2].text
    assert toolparse.parse_text(text, grammar="gpt-oss").reasoning == THINKING
    assert toolparse.parse_text(text, grammar="gpt-oss", reasoning="auto").reasoning == THINKING
    assert get_grammar("gpt-oss").reasoning is HARMONY_REASONING
    assert get_grammar("harmony") is get_grammar("gpt-oss")


@pytest.mark.parametrize(
    "closing",
    [
        pytest.param("<|end|>", id="preamble"),
        pytest.param("<|return|>", id="final"),
    ],
)
def test_markup_right_after_a_closing_code_fence(closing: str) -> None:
    """Special tokens are markup even inside Markdown (Grammar.tokens): a
    message ending right after its code block still ends there."""
    text = (
        "<|channel|>commentary<|message|>I will run:\n```sh\nls\n```"
        + closing
        + "<|start|>assistant<|channel|>"
        'commentary to=functions.special_function <|constrain|>json<|message|>{"arg1": 1}<|call|>'
    )
    events = check_all("gpt-oss", text)
    assert text_of(events) == "I will run:\n```sh\nls\n```"
    assert calls_of(events) == [SPECIAL]


# -- the prompt side -------------------------------------------------------------------

FORMAT = {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
DOC_TOOLS = [
    Tool("get_location", "Gets the location of the user."),
    Tool(
        "get_current_weather",
        "Gets the current weather in the provided location.",
        {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "format": FORMAT,
            },
            "required": ["location"],
        },
    ),
    Tool(
        "get_multiple_weathers",
        "Gets the current weather in the provided list of locations.",
        {
            "type": "object",
            "properties": {
                "locations": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": 'List of city and state, e.g. ["San Francisco, CA", "New York, NY"]',
                },
                "format": FORMAT,
            },
            "required": ["locations"],
        },
    ),
]
# openai/harmony docs/format.md (commit 20cd04c17fa327f01f9f28240fb70183d4feb406, Apache-2.0):
# the developer message's tools for the three tools above
DOC_NAMESPACE = """# Tools

## functions

namespace functions {

// Gets the location of the user.
type get_location = () => any;

// Gets the current weather in the provided location.
type get_current_weather = (_: {
// The city and state, e.g. San Francisco, CA
location: string,
format?: "celsius" | "fahrenheit", // default: celsius
}) => any;

// Gets the current weather in the provided list of locations.
type get_multiple_weathers = (_: {
// List of city and state, e.g. ["San Francisco, CA", "New York, NY"]
locations: string[],
format?: "celsius" | "fahrenheit", // default: celsius
}) => any;

} // namespace functions"""


def test_system_prompt_is_harmonys_typescript_namespace() -> None:
    prompt = get_grammar("gpt-oss").prompt.system_prompt(DOC_TOOLS)
    assert prompt.startswith(DOC_NAMESPACE + "\n\n")
    # (harmony puts these in the system message; a chat template may put this prompt there or in the
    # developer message, and the model needs them either way)
    assert (
        "# Valid channels: analysis, commentary, final. Channel must be included for every message." in prompt
    )
    assert "Calls to these tools must go to the commentary channel: 'functions'." in prompt


def test_system_prompt_types_nested_schemas() -> None:
    tool = Tool(
        "book",
        "Books a table.\nOnly for today.",
        {
            "type": "object",
            "properties": {
                "party": {"type": "object", "properties": {"size": {"type": "integer", "default": 2}}},
                "tags": {"type": ["string", "null"]},
                "note": {"type": "string", "nullable": True},
                "seat-kind": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "extra": {},
            },
        },
    )
    assert get_grammar("gpt-oss").prompt.system_prompt([tool]).split("\n\n")[3] == (
        "// Books a table.\n// Only for today.\ntype book = (_: {\n"
        "party?: {\n    size?: number, // default: 2\n    },\n"  # (harmony indents a nested closing brace)
        "tags?: string | null,\nnote?: string | null,\n"
        '"seat-kind"?: string | number,\n'  # (a key that is no identifier is quoted)
        "extra?: any,\n}) => any;"
    )


def test_rendered_call_and_result_are_harmonys() -> None:
    prompt = get_grammar("gpt-oss").prompt
    # docs/format.md, "Receiving tool calls" and "Handling tool calls" (its JSON spaced as json.dumps does)
    assert prompt.render_call("get_weather", {"location": "San Francisco"}) == (
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"location": "San Francisco"}<|call|>'
    )
    assert prompt.render_result("get_weather", {"sunny": True, "temperature": 20}) == (
        "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"
        '{"sunny": true, "temperature": 20}<|end|>'
    )
    assert prompt.render_result("get_weather", "It is sunny.").endswith("<|message|>It is sunny.<|end|>")


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


@settings(max_examples=200, deadline=None)
@given(
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_.:\-]{0,20}", fullmatch=True),
    arguments=st.dictionaries(TEXT, VALUES, max_size=4),
)
def test_a_rendered_call_parses_back(name: str, arguments: dict[str, Any]) -> None:
    prompt = get_grammar("gpt-oss").prompt
    history = (
        "<|channel|>analysis<|message|>Need a tool.<|end|>"
        + prompt.render_call(name, arguments)
        + prompt.render_result(name, "done")
        + "<|start|>assistant<|channel|>final<|message|>Done."
    )
    events = check_all("gpt-oss", history)
    assert calls_of(events) == [{"name": name, "arguments": arguments}]
    assert text_of(events).endswith("Done.")


def test_markup_right_after_a_quote_line() -> None:
    text = (
        "<|channel|>commentary<|message|>As the docs say:\n> quoted<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.special_function <|constrain|>json<|message|>{"arg1": 1}<|call|>'
    )
    events = check_all("gpt-oss", text)
    assert text_of(events) == "As the docs say:\n> quoted"
    assert calls_of(events) == [SPECIAL]
