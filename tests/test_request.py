"""Request shaping for models without native tool calling (pure function)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from support import calls_of, run
from toolparse import ForceTool, InvalidOptionError, ReasoningDelta, prepare_request

TOOLS = [
    {
        "name": "get_weather",
        "description": "Weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Weather in Paris and Seoul?"},
    {
        "role": "assistant",
        "content": "Checking both.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Seoul"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "21 C"},
    {"role": "tool", "tool_call_id": "c2", "content": {"temp": 18}},
    {"role": "user", "content": "Thanks! And Lima?"},
]


@pytest.mark.parametrize("grammar", ["hermes", "fenced-json", "qwen3-coder", "xml"])
def test_multi_turn_history_with_parallel_calls(grammar: str) -> None:
    before = copy.deepcopy(HISTORY)
    request = prepare_request(HISTORY, TOOLS, "auto", grammar=grammar)
    assert before == HISTORY  # the caller's messages are not touched
    roles = [m["role"] for m in request.messages]
    assert roles == ["system", "user", "assistant", "user"]
    system, _, assistant, results = request.messages
    assert system["content"].startswith("You are helpful.") and "get_weather" in system["content"]
    assert "tool_calls" not in assistant
    # the past calls, written as the grammar's text, parse back to the same calls
    assert calls_of(run(grammar, [assistant["content"]], tools=TOOLS)) == [
        {"name": "get_weather", "arguments": {"city": "Paris"}},
        {"name": "get_weather", "arguments": {"city": "Seoul"}},
    ]
    # both results and the next user turn merged into one user message
    assert "21 C" in results["content"] and "18" in results["content"]
    assert results["content"].endswith("Thanks! And Lima?")
    assert request.response_format is None


def test_system_prompt_template_and_insertion() -> None:
    request = prepare_request(HISTORY[1:2], TOOLS, system_template="TOOLS:\n{tools_prompt}\nEND")
    assert request.messages[0]["role"] == "system"
    assert request.messages[0]["content"].startswith("TOOLS:\n") and request.messages[0]["content"].endswith(
        "END"
    )
    custom = prepare_request(HISTORY[1:2], TOOLS, system_template=lambda p: "<<" + p[:10] + ">>")
    assert custom.messages[0]["content"].startswith("<<") and custom.messages[0]["content"].endswith(">>")


def test_forced_choice_adds_the_response_schema() -> None:
    request = prepare_request(HISTORY[1:2], TOOLS, ForceTool("get_weather"))
    assert request.response_format is not None
    schema = request.response_format["json_schema"]["schema"]
    assert schema["properties"]["name"] == {"const": "get_weather"}
    assert "JSON object" in request.messages[0]["content"]
    assert request.to_dict()["response_format"] == request.response_format


def test_none_offers_no_tools_but_keeps_the_history_readable() -> None:
    request = prepare_request(HISTORY, TOOLS, "none")
    assert [m["role"] for m in request.messages] == ["system", "user", "assistant", "user"]
    assert request.messages[0]["content"] == "You are helpful."
    assert "<tool_call>" in request.messages[2]["content"]


def test_validation_happens_first() -> None:
    from toolparse import InvalidRequestError

    with pytest.raises(InvalidRequestError):
        prepare_request(HISTORY, [], "required")


THINKING_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "<think>\nA greeting.\n</think>\n\nHello!"},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "reasoning_content": "The user wants the weather.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "21 C"},
]


@pytest.mark.parametrize(
    ("past_reasoning", "first_kept", "loop_kept"),
    [("current", False, True), ("drop", False, False), ("keep", True, True)],
)
def test_past_reasoning_dropped_or_kept(past_reasoning: str, first_kept: bool, loop_kept: bool) -> None:
    before = copy.deepcopy(THINKING_HISTORY)
    messages = prepare_request(THINKING_HISTORY, TOOLS, past_reasoning=past_reasoning).messages
    assert before == THINKING_HISTORY
    first, loop = messages[2]["content"], messages[4]["content"]
    assert first == ("<think>\nA greeting.\n</think>\n\nHello!" if first_kept else "Hello!")
    assert loop.startswith("<think>\nThe user wants the weather.\n</think>\n\n<tool_call>") == loop_kept
    assert ("<think>" in loop) == loop_kept
    assert not any("reasoning_content" in m for m in messages)
    # a kept reasoning block reads back as reasoning, and its call still parses
    events = run("hermes", [loop], tools=TOOLS)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def test_past_reasoning_in_other_markers_and_bad_values() -> None:
    history = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "[THINK]hm[/THINK]Yes."}]
    assert (
        prepare_request(history, reasoning="magistral", past_reasoning="drop").messages[1]["content"]
        == "Yes."
    )
    assert prepare_request(history, reasoning="none").messages[1]["content"] == "[THINK]hm[/THINK]Yes."
    with pytest.raises(InvalidOptionError, match="past_reasoning"):
        prepare_request(history, past_reasoning="strip")
    with pytest.raises(InvalidOptionError, match="reasoning must be one of"):
        prepare_request(history, reasoning="<think>")


def test_past_reasoning_is_written_back_with_the_templates_own_whitespace() -> None:
    # Qwen3's template writes an assistant turn of the current tool loop as
    #   '<think>\n' + reasoning.strip('\n') + '\n</think>\n\n' + content.lstrip('\n')
    # then '\n' before each call, but the first call of a turn with no content
    # (Qwen/Qwen3-8B tokenizer_config.json chat_template)
    def turn(**fields: Any) -> str:
        history = [{"role": "user", "content": "Hi"}, {"role": "assistant", **fields}]
        return str(prepare_request(history, TOOLS, past_reasoning="keep").messages[-1]["content"])

    assert (
        turn(content="\n\nHello!", reasoning_content="\nA greeting.\n")
        == "<think>\nA greeting.\n</think>\n\nHello!"
    )
    assert (
        turn(content="<think>\n\nA greeting.\n\n</think>\n\n\nHello!")
        == "<think>\nA greeting.\n</think>\n\nHello!"
    )
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
    }
    rendered = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
    assert (
        turn(content=None, reasoning_content="R", tool_calls=[call]) == f"<think>\nR\n</think>\n\n{rendered}"
    )
    assert (
        turn(content="Sure.", reasoning_content="R", tool_calls=[call])
        == f"<think>\nR\n</think>\n\nSure.\n{rendered}"
    )
    assert turn(content="Sure.", tool_calls=[call]) == f"Sure.\n{rendered}"


def test_gpt_oss_past_reasoning_goes_in_its_analysis_channel() -> None:
    # harmony's renderer (openai/harmony docs/format.md): a past turn of the
    # tool loop is its analysis message, then its calls as commentary messages
    # to functions.NAME, one <|start|>assistant between messages; a preamble
    # before calls is on the commentary channel, a final answer on the final one
    messages = prepare_request(THINKING_HISTORY, TOOLS, grammar="gpt-oss").messages
    call = (
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    )
    assert messages[4]["content"] == (
        f"<|channel|>analysis<|message|>The user wants the weather.<|end|><|start|>assistant{call}"
    )
    # (reasoning="auto" means harmony's markers here: an earlier turn's <think> is its text)
    assert messages[2]["content"] == THINKING_HISTORY[1]["content"]
    events = run("gpt-oss", [messages[4]["content"]], tools=TOOLS)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "The user wants the weather."

    def turn(**fields: Any) -> str:
        history = [{"role": "user", "content": "Hi"}, {"role": "assistant", **fields}]
        return str(prepare_request(history, TOOLS, grammar="gpt-oss").messages[-1]["content"])

    tool_call = {
        "id": "c",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    assert turn(content="Let me check.", reasoning_content="R", tool_calls=[tool_call]) == (
        "<|channel|>analysis<|message|>R<|end|><|start|>assistant"
        f"<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant{call}"
    )
    assert turn(content="Hello!", reasoning_content="R") == (
        "<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|end|>"
    )
    assert turn(content=None, tool_calls=[tool_call]) == f"<|start|>assistant{call}"
