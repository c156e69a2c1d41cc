"""Request shaping for models without native tool calling (pure function)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from support import calls_of, run
from toolparse import ForceTool, prepare_request

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
