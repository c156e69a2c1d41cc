"""Grammars as declarations (issue 10): what the rebuilt grammars read right
that hand-written lexers misread, Markdown as content, the engine's error
state, and the declaration layer's own checks."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from support import calls_of, check_all, run, text_of
from toolparse import InternalParserError, StreamParser, ToolCall, ToolCallError, parse_text
from toolparse.coercion import coerce
from toolparse.engine.declare import END, Grammar, JsonCalls, Opener, Space, go
from toolparse.engine.lexicon import Lexicon
from toolparse.grammars import GRAMMARS, get_grammar
from toolparse.grammars.hermes import HermesPrompt

WRITE = {
    "name": "write_file",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    },
}


def splits_of(text: str) -> list[list[str]]:
    """Every two-way split, and a few three-way ones: markers cut anywhere."""
    two = [[text[:k], text[k:]] for k in range(1, len(text))]
    three = [[text[:a], text[a:b], text[b:]] for a, b in itertools.combinations(range(1, len(text), 7), 2)]
    return two + three[:40]


def one_call(grammar: str, text: str, tools: Any = None, **options: Any) -> ToolCall:
    events = check_all(grammar, text, splits_of(text), tools=tools, **options)
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert len(calls) == 1, events
    return calls[0]


# -- literal markup inside values ---------------------------------------------------------


def test_qwen3_coder_a_closing_tag_inside_a_value_is_text() -> None:
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nparser.py\n</parameter>\n"
        '<parameter=content>\nx = "</parameter>"\ny = "</function>" + "</tool_call>"\n</parameter>\n'
        "</function>\n</tool_call>"
    )
    for tools in (None, [WRITE]):
        call = one_call("qwen3-coder", text, tools)
        assert call.arguments == {
            "path": "parser.py",
            "content": 'x = "</parameter>"\ny = "</function>" + "</tool_call>"',
        }


def test_qwen3_coder_the_issue_example() -> None:
    text = '<function=f>\n<parameter=content>\nx = "</parameter>"\n</parameter>\n</function>'
    assert one_call("qwen3-coder", text).arguments == {"content": 'x = "</parameter>"'}


def test_qwen3_coder_its_own_markup_written_inside_a_value() -> None:
    # an agent writing a prompt that shows the format: the markup is the value's text
    example = (
        "<tool_call>\n<function=get_time>\n<parameter=zone>\nUTC\n</parameter>\n</function>\n</tool_call>"
    )
    text = (
        f"<tool_call>\n<function=write_file>\n<parameter=path>\nprompt.txt\n</parameter>\n"
        f"<parameter=content>\nCall tools like this:\n{example}\nThanks.\n"
        "</parameter>\n</function>\n</tool_call>"
    )
    call = one_call("qwen3-coder", text, [WRITE])
    assert call.arguments["content"] == f"Call tools like this:\n{example}\nThanks."


def test_qwen3_coder_a_parameter_left_open_still_ends_at_the_next_one() -> None:
    # (vLLM's test: the first </parameter> missing) the next parameter of the tool ends it
    tools = [{"name": "w", "parameters": {"type": "object", "properties": {"city": {}, "state": {}}}}]
    text = (
        "<tool_call>\n<function=w>\n<parameter=city>\nDallas\n"
        "<parameter=state>\nTX\n</parameter>\n</function>"
    )
    assert one_call("qwen3-coder", text, tools).arguments == {"city": "Dallas", "state": "TX"}


def test_xml_a_closing_tag_inside_a_value_is_text() -> None:
    tools = [{"name": "write_to_file", **{k: v for k, v in WRITE.items() if k != "name"}}]
    text = '<write_to_file><path>a.py</path><content>\nx = "</content>"\ny = 1\n</content></write_to_file>'
    assert one_call("xml", text, tools).arguments == {"path": "a.py", "content": 'x = "</content>"\ny = 1'}


def test_xml_an_element_of_the_same_name_nested_in_a_value() -> None:
    text = "<write_file><path>doc.xml</path><content><doc><content>a</content></doc></content></write_file>"
    call = one_call("xml", text, [WRITE])
    assert call.arguments["content"] == "<doc><content>a</content></doc>"


# -- names --------------------------------------------------------------------------------


def test_parameter_names_that_are_not_ascii() -> None:
    call = one_call("qwen3-coder", "<function=weather>\n<parameter=城市>\n北京\n</parameter>\n</function>")
    assert call.arguments == {"城市": "北京"}
    tools = [{"name": "order", "parameters": {"type": "object", "properties": {"café": {"type": "string"}}}}]
    assert one_call("xml", "<order><café>noir</café></order>", tools).arguments == {"café": "noir"}


# -- mentions are text --------------------------------------------------------------------


READ = {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}


@pytest.mark.parametrize(
    "text",
    [
        "Tip: call <read_file> first, then edit.",
        "Use <read_file> or <write_file> to work with files.",
        "Call <read_file> <b>first</b>.",
        "The tag <read_file></read_fil> is not closed properly.",
    ],
)
def test_xml_a_declared_tag_mentioned_in_prose_is_text(text: str) -> None:
    events = check_all("xml", text, splits_of(text), tools=[READ, WRITE])
    assert calls_of(events) == [] and text_of(events) == text


def test_xml_real_calls_still_read() -> None:
    text = "Reading.\n<read_file>\n<path>a.py</path>\n</read_file>\nDone."
    assert one_call("xml", text, [READ, WRITE]).arguments == {"path": "a.py"}
    text = "<read_file>a.py</read_file>"  # a single string parameter written as the element's text
    assert one_call("xml", text, [READ, WRITE]).arguments == {"path": "a.py"}


# -- hermes --------------------------------------------------------------------------------


def test_hermes_an_array_inside_tools() -> None:
    text = '<tools>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"q": 1}}]</tools>'
    events = check_all("hermes", text, splits_of(text))
    assert calls_of(events) == [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"q": 1}}]


# -- raw qwen3-coder values ------------------------------------------------------------------


def test_qwen3_coder_values_are_raw_text() -> None:
    text = "<function=f>\n<parameter=a>\nR&amp;D &lt;b&gt; <![CDATA[x]]>\n</parameter>\n</function>"
    assert one_call("qwen3-coder", text).arguments == {"a": "R&amp;D &lt;b&gt; <![CDATA[x]]>"}
    rendered = get_grammar("qwen3-coder").prompt.render_call("f", {"a": "x < y && z"})
    assert "x < y && z" in rendered and "CDATA" not in rendered and "&amp;" not in rendered
    # (the xml grammar decodes entities and unwraps CDATA)
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}]
    assert one_call("xml", "<f><a>R&amp;D <![CDATA[<b>]]></a></f>", tools).arguments == {"a": "R&D <b>"}


# -- Markdown is content -----------------------------------------------------------------


# A call in every grammar whose markup prose can spell (special tokens end a fence or a quote)
CALLS = {
    name: grammar.prompt.render_call_after_text("f", {"a": 1})
    for name, grammar in GRAMMARS.items()
    if not grammar.tokens
}
F_TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]


@pytest.mark.parametrize("grammar", sorted(CALLS))
@pytest.mark.parametrize(
    "shape",
    [
        "Like this:\n```\n{call}\n```\nThat is the format.",
        "Like this:\n```xml\n{call}\n```\nThat is the format.",
        "Like this:\n   ~~~~\n{call}\n~~~\n~~~~\nThat is the format.",  # closed by a fence at least as long
        "Like this:\n````markdown\n```\n{call}\n```\n````\nThat is the format.",
        "Like this:\n{quoted}\nThat is the format.",
        "```\nnever closed\n{call}",
    ],
)
def test_a_call_in_a_code_fence_or_a_quote_is_text(grammar: str, shape: str) -> None:
    quoted = "\n".join("> " + line for line in CALLS[grammar].split("\n"))
    text = shape.format(call=CALLS[grammar], quoted=quoted)
    events = check_all(grammar, text, splits_of(text), tools=F_TOOLS)
    assert calls_of(events) == [] and text_of(events) == text


@pytest.mark.parametrize("grammar", sorted(CALLS))
def test_after_the_fence_closes_calls_read_again(grammar: str) -> None:
    text = f"Example:\n````\n{CALLS[grammar]}\n````\nNow for real:\n{CALLS[grammar]}\n"
    events = check_all(grammar, text, splits_of(text), tools=F_TOOLS)
    assert calls_of(events) == [{"name": "f", "arguments": {"a": 1}}]
    text = f"    ``` not a fence (four spaces)\n{CALLS[grammar]}"
    assert calls_of(check_all(grammar, text, tools=F_TOOLS)) == [{"name": "f", "arguments": {"a": 1}}]
    text = f"a ``` mid-line is no fence\n{CALLS[grammar]}"
    assert calls_of(check_all(grammar, text, tools=F_TOOLS)) == [{"name": "f", "arguments": {"a": 1}}]


# -- coercion -----------------------------------------------------------------------------


def test_python_none_for_a_nullable_parameter() -> None:
    schema = {"type": "object", "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}
    for word in ("None", "null", "NULL"):
        assert coerce({"n": word}, schema).value == {"n": None}
    text = "<function=f>\n<parameter=n>\nNone\n</parameter>\n</function>"
    assert one_call("qwen3-coder", text, [{"name": "f", "parameters": schema}]).arguments == {"n": None}
    nullable_string = {"type": "object", "properties": {"n": {"type": ["string", "null"]}}}
    assert coerce({"n": "None"}, nullable_string).value == {"n": "None"}  # a string is admitted


# -- the error state ------------------------------------------------------------------------


def test_a_bug_inside_the_parser_is_loud_and_final(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolparse.engine import regions

    def broken(self: Any, *args: Any) -> int:
        raise KeyError("planted bug")

    monkeypatch.setattr(regions.JsonCallsReader, "read", broken)
    # (the reference's reader, patched: the native core's twin of this test plants
    # its bug natively, see test_native.py)
    parser = StreamParser("hermes", engine="python")
    assert calls_of(parser.feed("Hello ")) == []
    with pytest.raises(InternalParserError, match=r"'hermes' grammar near stream offset 6: KeyError"):
        parser.feed('<tool_call>{"name": "f"}')
    with pytest.raises(InternalParserError):
        parser.feed("more")
    with pytest.raises(InternalParserError):
        parser.close()


# -- the declaration layer ------------------------------------------------------------------


def test_every_registered_grammar_is_a_declaration_of_known_regions() -> None:
    from toolparse.engine.compile import compile_grammar

    for grammar in GRAMMARS.values():
        assert isinstance(grammar, Grammar)
        compiled = compile_grammar(grammar)
        assert compiled.name == grammar.name


def test_a_declaration_naming_an_unknown_region_is_refused() -> None:
    from toolparse.engine.compile import compile_grammar

    bad = Grammar("bad", {"<x>": Opener("nowhere")}, {"calls": JsonCalls(then="after")}, HermesPrompt())
    with pytest.raises(ValueError, match="unknown region"):
        compile_grammar(bad)
    with pytest.raises(ValueError, match="would be found before"):
        Lexicon(["ab", "xaby"])


def test_a_lexicon_says_which_characters_after_a_lt_may_begin_a_terminal() -> None:
    from toolparse.engine.declare import ANY_OPEN_TAG, CALL_CLOSE_TAG

    # literals and closing tags: only what follows their "<" ("a <b" is text as it stands)
    assert Lexicon(["</parameter>", "<tool_call>", CALL_CLOSE_TAG]).after_lt == (True, frozenset("/t"))
    assert Lexicon(["<|tool|>"]).after_lt == (True, frozenset("|"))
    # an opening tag may begin with any name character: all but those never in a name
    listed, never = Lexicon(["</a>", ANY_OPEN_TAG]).after_lt
    assert not listed and "b" not in never and " " in never and "=" in never
    # a literal "<" alone: any character may follow it
    assert Lexicon(["<", "</x>"]).after_lt == (False, frozenset())


def test_a_small_new_grammar_is_a_declaration() -> None:
    # a format no grammar reads: [[CALL]]{...}[[/CALL]] (what issue 13's grammars look like)
    grammar = Grammar(
        "double-bracket",
        openers={"[[CALL]]": Opener("calls", closer="[[/CALL]]")},
        regions={"calls": JsonCalls(then="after"), "after": Space({"[[/CALL]]": go(END)})},
        prompt=HermesPrompt(),
    )
    text = 'Sure. [[CALL]]{"name": "f", "arguments": {"a": 1}}[[/CALL]] Done.'
    events = run(grammar, [text])
    assert calls_of(events) == [{"name": "f", "arguments": {"a": 1}}]
    assert text_of(events) == "Sure.  Done."
    assert [type(e) for e in parse_text("[[CALL]]{", grammar).events] == [ToolCallError]
