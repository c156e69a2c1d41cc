"""Untrusted XML stays harmless: no entity expansion, no file or network, bounded depth."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from grammar_cases import XML_TOOLS
from support import check_all, covered_text, run
from toolparse import Event, ToolCall

XXE = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>&xxe;'
LAUGHS = (
    '<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{k} "{("&lol" + str(k - 1) + ";") * 10 if k > 1 else "&lol;" * 10}">'
        for k in range(1, 10)
    )
    + "]>&lol9;"
)


def calls(events: Sequence[Event]) -> list[ToolCall]:
    return [e for e in events if isinstance(e, ToolCall)]


@pytest.mark.parametrize("payload", [XXE, LAUGHS])
@pytest.mark.parametrize("parameter", ["content", "opts"])
def test_entities_are_never_resolved_in_xml(payload: str, parameter: str) -> None:
    tool = "write" if parameter == "content" else "configure"
    text = f"<{tool}><{parameter}>{payload}</{parameter}></{tool}>"
    events = check_all("xml", text, tools=XML_TOOLS)
    (call,) = calls(events)
    rendered = repr(call.arguments)
    assert "root:" not in rendered  # nothing read from /etc/passwd
    assert "lollollol" not in rendered  # nothing expanded
    assert len(rendered) < 2 * len(text)


@pytest.mark.parametrize("payload", [XXE, LAUGHS])
def test_entities_are_never_resolved_in_qwen3_coder(payload: str) -> None:
    text = f"<tool_call>\n<function=f>\n<parameter=p>\n{payload}\n</parameter>\n</function>\n</tool_call>"
    (call,) = calls(check_all("qwen3-coder", text))
    assert call.arguments["p"] == payload  # not an entity we decode: kept as written


def test_deep_nesting_is_harmless() -> None:
    deep = "<a>" * 100_000 + "x" + "</a>" * 100_000
    text = f"<configure><opts>{deep}</opts></configure>"
    events = run("xml", [text], tools=XML_TOOLS)
    assert covered_text(events) == text
    assert calls(events)  # a call, its deep part kept as text past max_depth
    json_deep = "<tool_call>\n<function=f>\n<parameter=p>\n" + "[" * 100_000 + "\n</parameter>\n</function>"
    events = run(
        "qwen3-coder",
        [json_deep],
        tools=[{"name": "f", "parameters": {"type": "object", "properties": {"p": {"type": "array"}}}}],
    )
    assert covered_text(events) == json_deep
    events = run("hermes", ['<tool_call>{"name": "f", "arguments": ' + "{" * 100_000])
    assert events and covered_text(events).startswith("<tool_call>")


# -- the two fragment readers agree -------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from toolparse.readers.xml_tree import _REFUSED, strict_value, tolerant_value  # noqa: E402

LEAF = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=8)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


FRAGMENTS = st.recursive(
    LEAF.map(_escape) | LEAF.filter(lambda t: "]]>" not in t).map(lambda t: f"<![CDATA[{t}]]>"),
    lambda inner: st.lists(
        st.tuples(st.sampled_from(["a", "b", "item", "c_1"]), inner), min_size=1, max_size=3
    ).map(lambda kids: "".join(f"<{name}>{body}</{name}>" for name, body in kids)),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(fragment=FRAGMENTS)
def test_lxml_and_the_tolerant_reader_agree_on_well_formed_fragments(fragment: str) -> None:
    strict = strict_value(fragment)
    if strict is not _REFUSED:
        assert strict == tolerant_value(fragment)


_ENTITY_SOUP = st.lists(
    st.sampled_from(["&", "lt;", "gt;", "amp;", "quot;", "apos;", "#65;", "#x41;", "#0;", ";", "a", "<"]),
    max_size=10,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=_ENTITY_SOUP)
def test_entities_decode_the_same_on_the_short_path(text: str) -> None:
    # (named entities alone are decoded by replacing; the reference is one match per entity)
    from toolparse.readers.xml_tree import ENTITY, decode_entity, decode_text

    assert decode_text(text) == ENTITY.sub(lambda m: decode_entity(m) or m.group(), text)
