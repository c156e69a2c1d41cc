"""What a hostile user found in round two (issue 25), one regression test each,
numbered as the issue numbers them. (The growth shapes, in one delta and in
small ones, run in test_hardening.py over ``toolparse.growth.SHAPES``.)"""

from __future__ import annotations

import pytest

from support import calls_of, check_all, errors_of, reasoning_of, text_of

# -- 1: whatever Unicode counts as space before <think> keeps a drafted call in thought

DRAFT = '<think>I will call <tool_call>{"name": "delete_file", "arguments": {}}</tool_call></think>Done.'


@pytest.mark.parametrize(
    "lead",
    ["\ufeff", "\u200b", "\xa0", "\u2028", "\u3000", "\x0b", "\x0c", "\x85", "\u200e", " \t\ufeff\r\n\u2029"],
)
def test_a_drafted_call_after_unicode_space_stays_reasoning(lead: str) -> None:
    events = check_all("hermes", lead + DRAFT)
    assert calls_of(events) == []
    assert text_of(events) == "Done."
    assert "delete_file" in reasoning_of(events)


def test_a_visible_character_before_think_still_ends_the_prelude() -> None:
    # (with "auto", reasoning opens anywhere in hermes; a letter before it is text)
    events = check_all("hermes", "x" + DRAFT)
    assert text_of(events).startswith("x")


# -- 2: a hex, octal or binary number past Python's digit bound is an error, not a crash


@pytest.mark.parametrize(
    ("grammar", "text"),
    [
        ("pythonic", "[get_weather(city=0x" + "f" * 3600 + ")]"),
        ("pythonic", "[get_weather(city=0X" + "F" * 5000 + ")]"),
        ("pythonic", "[get_weather(city=[0b" + "1" * 50_000 + "])]"),
        ("pythonic", "[get_weather(city=0o" + "7" * 5000 + ")]"),
        ("pythonic", "[get_weather(city=-0x" + "f" * 3600 + ")]"),
        ("llama3-json", "<|python_tag|>b.call(x=0x" + "f" * 3600 + ")"),
    ],
)
def test_a_huge_non_decimal_number_is_an_error(grammar: str, text: str) -> None:
    from toolparse import parse_text

    result = parse_text(text, grammar=grammar)
    assert result.calls == []
    (error,) = result.errors
    assert "too many digits" in error.message
    assert error.raw == text


def test_numbers_within_the_bound_still_read() -> None:
    events = check_all("pythonic", "[f(a=0xfe, b=0o17, c=0b101, d=1e3, e=" + "9" * 4300 + ", g=-0x1E)]")
    (call,) = calls_of(events)
    assert call["arguments"]["a"] == 254 and call["arguments"]["b"] == 15 and call["arguments"]["c"] == 5
    assert call["arguments"]["d"] == 1000.0 and call["arguments"]["g"] == -30
    assert call["arguments"]["e"] == int("9" * 4300)
    assert errors_of(events) == []
