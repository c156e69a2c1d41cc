"""``grammar="auto"``: the same events as the right grammar given by name.

Every grammar's corpus (the real outputs of its test file, its registry
examples, and calls its own prompt side renders) is parsed with
``grammar="auto"`` and with the grammar's name, under the same options, in one
delta, one character at a time and random splits: the events must be equal
(after merging adjacent text and argument deltas), and auto must say which
grammar it decided once a call appeared. Then the mechanism's own cases: a
shared opener decided by what follows it, text before a call, prose that
costs nothing, a lenient opener that decides nothing.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

from support import armed, random_pieces
from toolparse import ReasoningDelta, StreamParser, TextDelta, ToolCall
from toolparse.engine.auto import LOOKAHEAD
from toolparse.events import Event
from toolparse.grammars import AUTO_LEFT_OUT, ENTRIES, GRAMMARS, auto_tables
from toolparse.invariants import check_all, normalize

# (text, calls) rendered by each grammar's prompt side
_RENDERED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"city": "Paris", "days": 3}),
    ("search", {"query": 'a <b> & "c"', "filters": {"lang": ["en", "fr"], "strict": True}}),
    ("get_time", {}),
]


def _case_outputs(module_name: str) -> Iterator[tuple[str, str]]:
    """(id, model output) of each real case in a grammar's test file, whatever
    shape its cases have (fixture records, or Case objects)."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        return
    cases = getattr(module, "CASES", None)
    items = list(cases.values()) if isinstance(cases, dict) else list(cases or ())
    for k, case in enumerate(items):
        if isinstance(case, dict):
            output, case_id = case.get("raw_text") or case.get("output"), case.get("id", str(k))
        else:
            output = getattr(case, "output", None)
            if not isinstance(output, str):
                output = getattr(case, "text", None)
            case_id = getattr(case, "id", str(k))
        if isinstance(output, str):
            yield str(case_id), output


def _corpus(name: str) -> list[tuple[str, str]]:
    entry = ENTRIES[name]
    prompt = entry.grammar.prompt
    corpus = list(_case_outputs(f"test_grammar_{name.replace('-', '_')}"))
    corpus += [(f"example-{k}", text) for k, (text, _) in enumerate(entry.examples)]
    for tool, arguments in _RENDERED_CALLS:
        corpus.append((f"rendered-{tool}", prompt.render_call(tool, arguments)))
        corpus.append((f"after-text-{tool}", "Sure.\n" + prompt.render_call_after_text(tool, arguments)))
    both = "\n".join(prompt.render_call_after_text(t, a) for t, a in _RENDERED_CALLS[:2])
    corpus.append(("rendered-two", "Two calls.\n" + both + "\nDone."))
    return corpus


CORPUS = [
    (name, case_id, output)
    for name in GRAMMARS
    if name not in AUTO_LEFT_OUT
    for case_id, output in _corpus(name)
]
# Where auto reads a case differently, on purpose: (grammar, case) -> the grammar auto decides, and why.
DIFFERENT: dict[tuple[str, str], str] = {
    # "<tool_call>example</tool_call>": a name alone in the block is GLM-4.7's call with no
    # arguments (its template writes exactly that); vLLM's Qwen3-Coder test calls it prose
    ("qwen3-coder", "vllm-q3c-inline-empty-block-in-prose"): "glm",
    # a bare JSON array of calls where the answer begins is xLAM's format; Mistral's grammar
    # wants its [TOOL_CALLS] marker (llama.cpp's Mistral Nemo test: "missing marker" stays text)
    ("mistral", "llamacpp-early-nemo-missing-marker"): "xlam",
    # the same for Granite's (vLLM's "no marker" cases): bare JSON where the answer begins is
    # xLAM's array or Llama 3's object
    ("granite", "vllm-malformed-no-marker"): "xlam",
    ("granite", "vllm-20b-malformed-no-marker"): "llama3-json",
    # Cohere Command A's turn tokens are its own reasoning markup: seen, they decide it
    ("command-r", "llamacpp-content"): "cohere",
    # V3.2's DSML block, text to the deepseek grammar (V3 / V3.1), is deepseek-v3.2's call
    ("deepseek", "vllm-ds32-text-before"): "deepseek-v3.2",
}
_BROKEN_WHY = (
    "markup that breaks before its block announces a call: under auto the opener was only "
    "mentioned, so it is text (the grammar given by name reports the error)"
)
_BROKEN = [
    ("hermes", "sglang-qwen25-invalid-json"),
    ("hermes", "aisdk-hermes-unfinished-at-finish"),
    ("qwen3-coder", "vllm-q3c-unrendered-jinja-call"),
    ("llama3-json", "llamacpp-early-python-tag-empty"),
    ("mistral", "vllm-m-prev11-junk-before-array"),
    ("mistral", "vllm-m-prev11-not-json"),
    ("mistral", "vllm-m-v11-name-without-args"),
    ("deepseek", "vllm-ds31-truncated-after-name"),
    ("deepseek", "llamacpp-r1-marker-inside-reasoning"),
    ("glm", "vllm-glm45-open-tag-only"),
    ("glm", "vllm-glm47-engine-lone-stray"),
    ("glm", "sglang-glm45-empty-name-stream"),
    ("kimi", "vllm-kimi-bad-id-skipped"),
    ("kimi", "vllm-kimi-bare-counter-id"),
    ("kimi", "sglang-kimi-unparsable-id-then-valid"),
    ("kimi", "sglang-kimi-client-style-id"),
    ("gpt-oss", "harmony-missing-message-token-first"),
    ("gpt-oss", "harmony-missing-message-token-analysis"),
    ("gpt-oss", "harmony-missing-message-token-tool-call"),
    ("inkling", "payload-missing-name"),
    ("inkling", "array-payload"),
    ("apertus", "sglang-prefix-only"),
    ("apertus", "sglang-invalid-json-with-suffix"),
    ("kimi-k3", "sglang-attribute-escapes"),
    ("kimi-k3", "sglang-truncated-tools-section"),
    ("k2-horizon", "vllm-incomplete-call"),
    ("k2-horizon", "vllm-streaming-incomplete-markup"),
    ("k2-horizon", "sglang-non-string-json-name"),
    ("seed-oss", "vllm-seed-engine-malformed-header-keeps-siblings"),
    ("hunyuan", "vllm-hy4-empty-function-name"),
    ("hunyuan", "vllm-hy4-end-before-start"),
    ("internlm", "vllm-internlm2-malformed-opener-alone"),
    ("gemma4", "vllm-malformed-then-well-formed"),
    ("gemma4", "vllm-bare-malformed-then-well-formed"),
    ("gemma4", "vllm-three-mixed-calls"),
    ("step3", "sglang-streaming-not-a-function"),
]
_MIDTEXT_WHY = (
    "a member's reasoning or turn markup after text decides only where the answer begins: later it "
    "is prose, shown as text (the calls after it are read)"
)
_MIDTEXT = [
    ("gpt-oss", "llamacpp-oss-commentary-to-assistant-before-analysis"),
    ("gpt-oss", "llamacpp-llmjp-spaces-parallel-end-separated"),
    ("gpt-oss", "after-text-get_weather"),
    ("gpt-oss", "after-text-search"),
    ("gpt-oss", "after-text-get_time"),
    ("gpt-oss", "rendered-two"),
    ("inkling", "bare-text-1"),
    ("inkling", "bare-text-2"),
    ("inkling", "control-tokens-never-leak"),
    ("gemma4", "llamacpp-continued-reasoning"),
    ("cohere", "llamacpp-moe-thoughts-and-text"),
    ("cohere", "llamacpp-moe-structured-output"),
    ("cohere", "llamacpp-moe-call"),
    ("cohere", "llamacpp-moe-parallel-calls"),
    ("cohere", "llamacpp-moe-partial-call"),
]
# Where auto reads the same calls as the grammar given by name, but not the same
# text or errors, on purpose (issue 51, item 1: a marker decides only when what
# follows it is that format's call): (grammar, case) -> why. README, "Which grammar".
CALLS_ONLY: dict[tuple[str, str], str] = {
    **dict.fromkeys(_BROKEN, _BROKEN_WHY),
    **dict.fromkeys(_MIDTEXT, _MIDTEXT_WHY),
}
# Grammars that leave an opener to others reading the same markup (their NEVER_CLAIMED
# openers): auto reads the same events and names the other grammar.
SAME_MARKUP: dict[str, set[str]] = {
    "granite": {"hermes"},  # (<tool_call>[...] and <function_call> {...})
    "xlam": {"hermes", "mistral"},  # (<tool_call>[...] and [TOOL_CALLS][...])
}


def _events(grammar: str, deltas: list[str], tools: Any) -> tuple[list[Event], str | None]:
    parser = StreamParser(grammar, tools, seed=7)
    events: list[Event] = []
    for delta in deltas:
        events += parser.feed(delta)
    events += parser.close()
    return events, parser.decided


@pytest.mark.parametrize(("name", "case_id", "output"), CORPUS, ids=[f"{n}:{c}" for n, c, _ in CORPUS])
def test_auto_reads_every_corpus_as_the_named_grammar(name: str, case_id: str, output: str) -> None:
    tools = ENTRIES[name].fuzz_tools
    if (name, case_id) in DIFFERENT:
        assert _events("auto", [output], tools)[1] == DIFFERENT[name, case_id]
        return
    rng = random.Random(case_id)
    splits = [[output], list(output), random_pieces(output, rng), random_pieces(output, rng)]
    if (name, case_id) in CALLS_ONLY:  # (the same calls; auto the same whatever the split)
        named_calls = [
            (e.name, e.arguments) for e in _events(name, [output], tools)[0] if isinstance(e, ToolCall)
        ]
        whole = normalize(_events("auto", [output], tools)[0])
        for deltas in splits:
            auto, _ = _events("auto", deltas, tools)
            assert [(e.name, e.arguments) for e in auto if isinstance(e, ToolCall)] == named_calls
            assert normalize(auto) == whole, f"split into {len(deltas)} deltas"
        check_all("auto", output, tools=tools)
        return
    for deltas in splits:
        named, _ = _events(name, deltas, tools)
        auto, decided = _events("auto", deltas, tools)
        assert normalize(auto) == normalize(named), f"split into {len(deltas)} deltas"
        if any(isinstance(e, ToolCall) for e in named):  # (an error alone may be either's)
            assert decided == name or decided in SAME_MARKUP.get(name, set())
    check_all("auto", output, tools=tools)


# -- the mechanism ----------------------------------------------------------------------------

QWEN3_CODER = "qwen3-coder"


@pytest.mark.parametrize(
    ("output", "grammar"),
    [
        ('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>', "hermes"),
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
            "qwen3-coder",
        ),
        ("<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>", "glm"),
        ("<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>", "glm"),
        ("<tool_call>f\n</tool_call>", "glm"),
        ('<|python_tag|>{"name": "f", "parameters": {"a": 1}}', "llama3-json"),
        ("<|python_tag|>[f(a=1)]", "pythonic"),
    ],
)
def test_a_shared_opener_is_decided_by_what_follows(output: str, grammar: str) -> None:
    for deltas in ([output], list(output)):
        events, decided = _events("auto", deltas, None)
        assert decided == grammar
        assert [e.name for e in events if isinstance(e, ToolCall)] == ["f"]


def test_the_grammar_is_decided_for_the_rest_of_the_stream() -> None:
    """After a Hermes call, Mistral's marker is text, as it is to the named Hermes parser."""
    output = (
        '<tool_call>{"name": "f", "arguments": {}}</tool_call> then '
        '[TOOL_CALLS][{"name": "g", "arguments": {}}]'
    )
    events, decided = _events("auto", [output], None)
    assert decided == "hermes"
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["f"]
    assert normalize(events) == normalize(_events("hermes", [output], None)[0])


def test_undecided_until_a_call() -> None:
    parser = StreamParser("auto")
    assert parser.decided is None and parser.grammar_name == "auto"
    parser.feed("Hello, <tools> are useful. ")
    assert parser.decided is None  # (a lenient opener only mentioned decides nothing)
    parser.feed('[TOOL_CALLS][{"name": "f", "arguments": {}}]')
    parser.close()
    assert parser.decided == parser.grammar_name == "mistral"


def test_text_streams_while_a_shared_opener_waits() -> None:
    parser = StreamParser("auto")
    assert parser.feed("Checking. <tool_call>") == [TextDelta("Checking. ")]
    assert parser.feed("\n") == []  # (not yet told: JSON, a function tag or a name?)
    events = parser.feed('{"name": "f", "arguments": {}}</tool_call>') + parser.close()
    assert parser.decided == "hermes"
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["f"]


def test_a_shared_opener_waits_a_bounded_time() -> None:
    """With nothing that tells after the opener, the grammar with no claim takes it
    once LOOKAHEAD characters have come (Qwen3-Coder reads the rest)."""
    parser = StreamParser("auto")
    events = parser.feed("<tool_call>" + " " * (LOOKAHEAD + 1))
    assert parser.decided is None
    events += parser.feed("<function=f>\n</function>\n</tool_call>") + parser.close()
    assert parser.decided == "qwen3-coder"
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["f"]


def test_gpt_oss_reasoning_decides_on_sight() -> None:
    output = (
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    )
    parser = StreamParser("auto", seed=7)
    events = parser.feed(output[:40])
    assert parser.decided == "gpt-oss"
    events += parser.feed(output[40:]) + parser.close()
    assert normalize(events) == normalize(_events("gpt-oss", [output], None)[0])


def test_a_members_own_reasoning_markers_close_its_reasoning() -> None:
    # (found by the matrix's hypothesis run) seed-oss's <seed:think> decides on sight; a <think>
    # inside it is its reasoning's content, and </seed:think> closes it: the invariants'
    # reasoning check must know the member's markers as well as auto's own
    output = "<seed:think><think></seed:think>0"
    reasoning, text = check_all("auto", output)
    assert isinstance(reasoning, ReasoningDelta) and reasoning.raw == "<seed:think><think></seed:think>"
    assert isinstance(text, TextDelta) and text.text == "0"


def test_prose_is_text_at_once() -> None:
    parser = StreamParser("auto")
    assert parser.lane == "text" or parser.lane is None
    out = [parser.feed("Plain prose, ") for _ in range(3)]
    assert all(len(o) == 1 for o in out[1:])
    assert parser.lane == armed(parser, "text")


# -- a marker mentioned in prose decides nothing (issue 51, item 1) ----------------------------------


def _watched_markers() -> list[str]:
    """Every literal marker ``grammar="auto"`` watches for: its members' openers
    and the markers that decide a member on sight."""
    tables = auto_tables().auto
    assert tables is not None
    openers = [t for g in tables.declarations.values() for t in g.openers if isinstance(t, str)]
    return sorted({*openers, *tables.deciders})


WATCHED = _watched_markers()
_FRAMINGS = {
    "bare": "That model writes {marker} first. ",
    "backticks": "That model writes `{marker}` first. ",
    "fenced": "That model writes this first:\n```\n{marker}\n```\n",
}
_REAL_CALLS = ("hermes", "qwen3-coder", "mistral")
_MENTION_CASES = [
    (framing, marker, named)
    for named in _REAL_CALLS
    for marker in WATCHED
    # (a mention of the named grammar's own opener is that grammar's markup to it too)
    if marker not in GRAMMARS[named].openers
    for framing in _FRAMINGS
]
ITEM_1 = "issue 51 item 1 (auto decided by a mention)"
# The markers whose mention failed before item 1 was fixed (the same on both
# engines, for every real call), bare or in backticks ("in prose") and in a
# fence were marked xfail here; item 1 is fixed, so both sets are empty (kept
# for the next rule that must land in steps).
MENTION_FAILS_UNTIL_ITEM_1: dict[str, set[str]] = {"in prose": set(), "in a fence": set()}


def _mention_param(framing: str, marker: str, named: str) -> Any:
    marks = []
    if marker in MENTION_FAILS_UNTIL_ITEM_1["in a fence" if framing == "fenced" else "in prose"]:
        marks.append(pytest.mark.xfail(strict=False, reason=ITEM_1))
    return pytest.param(framing, marker, named, marks=marks, id=f"{named}:{framing}:{marker!r}")


@pytest.mark.parametrize(("framing", "marker", "named"), [_mention_param(*c) for c in _MENTION_CASES])
def test_a_marker_mentioned_in_prose_decides_nothing(framing: str, marker: str, named: str) -> None:
    """``That model writes `[TOOL_CALLS]` first. Now the real call: <tool_call>...``:
    auto reads the real call as the named grammar does (the mention is text)."""
    call = ENTRIES[named].grammar.prompt.render_call_after_text("get_weather", {"city": "Paris"})
    output = _FRAMINGS[framing].format(marker=marker) + "Now the real call: " + call + "\nDone."
    rng = random.Random(f"{framing}{marker}{named}")
    for deltas in ([output], list(output), random_pieces(output, rng)):
        named_events, _ = _events(named, deltas, None)
        assert [(e.name, e.arguments) for e in named_events if isinstance(e, ToolCall)] == [
            ("get_weather", {"city": "Paris"})
        ], "the named grammar itself misses the call"
        auto, decided = _events("auto", deltas, None)
        assert normalize(auto) == normalize(named_events), f"split into {len(deltas)} deltas"
        assert decided == named
