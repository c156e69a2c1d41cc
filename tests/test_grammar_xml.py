"""The ``xml`` grammar on real outputs: the declared tool's name as the
element, its parameters as children (``<get_weather><city>Paris</city></get_weather>``),
the format of the AI SDK tool-call middleware's morph-xml protocol.

The cases are copied from the AI SDK tool-call middleware's own test suite
(``minpeter/ai-sdk-tool-call-middleware``, Apache-2.0) into
``fixtures/grammars/xml.jsonl``, each line with its path and commit (see
``fixtures/grammars/SOURCE.txt``): its parse tests (branches, raw string
parameters, self-closing calls, edge cases, two regressions reported by
users) and its formatter. Only declared tools open a call, so every case runs
with the tools its test declares (below). Each goes through ``check_all``
(conservation, chunking independence, reconciliation), fed whole and one
character at a time. Where toolparse deliberately differs from the source's
expectation, the case says so and why; where toolparse falls short of what
it reads by its README, the case is an expected failure (``xfail``, strict)
that names the fault.

Already covered elsewhere, and not copied again: the middleware's
morph-xml records of the shared corpus (``test_corpus.py``: shell tools,
repeated tags, coercion, a body of plain text, literal ``<`` in a value,
CDATA, entities, ...), closing tags and same-named elements inside a value
(``test_declarations.py``), and DTDs, entities and deep nesting
(``test_xml_safety.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from support import ROOT, Expect, calls_of, case_params, check_all, check_source_case, errors_of, text_of
from toolparse.events import Event
from toolparse.grammars import get_grammar
from toolparse.grammars.xml import FUZZ_TOOLS

GRAMMAR = "xml"
FIXTURE = ROOT / "tests" / "fixtures" / "grammars" / "xml.jsonl"
CASES = {c["id"]: c for c in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())}


def tool(name: str, /, *, required: list[str] | None = None, **properties: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"name": name, "parameters": schema}


def bare(name: str) -> dict[str, Any]:
    """A tool whose schema is ``{type: object}`` and nothing more."""
    return {"name": name, "parameters": {"type": "object"}}


STRING = {"type": "string"}
OBJECT = {"type": "object"}
PATH = "src/__tests__/protocols/morph-xml-protocol/"
WRITE_FILE = tool(
    "write_file", required=["file_path", "content"], file_path=STRING, content=STRING, encoding=STRING
)
FILE_WRITE = tool("file_write", required=["path", "content"], path=STRING, content=STRING)
NUMS = tool("nums", required=["data"], data={"type": "array", "items": {"type": "number"}})
TOOLS: dict[str, list[dict[str, Any]]] = {  # the tools each test file declares for all its tests
    PATH + "parse-generated-text/basic.test.ts": [bare("a")],
    PATH + "parse-generated-text/raw-string.test.ts": [WRITE_FILE],
    PATH + "parse-generated-text/self-closing-tags.test.ts": [
        bare("get_location"),
        tool("get_weather", location=STRING),
    ],
}
CASE_TOOLS: dict[str, list[dict[str, Any]] | None] = {  # and the tools of single tests
    "aisdk-xml-no-tools-is-text": None,
    "aisdk-xml-html-void-tag-name": [tool("with_input", required=["input"], input=STRING)],
    "aisdk-xml-line-prefixed-name": [tool("get_weather", city=STRING, unit=STRING)],
    "aisdk-xml-name-line-then-prose": [bare("get_weather")],
    "aisdk-xml-body-in-open-tag": [tool("get_weather", city=STRING, unit=STRING)],
    "aisdk-xml-doctype-html-in-string": [FILE_WRITE],
    "aisdk-xml-escaped-html-decoded": [FILE_WRITE],
    "aisdk-xml-numbers-in-items": [NUMS],
    "aisdk-xml-items-with-attributes": [NUMS],
    "aisdk-xml-indented-string": [tool("get_content", message=STRING)],
    "aisdk-xml-item-whitespace": [tool("format_text", values={"type": "array", "items": STRING})],
    "aisdk-xml-empty-string-element": [tool("empty_data", values=STRING)],
    "aisdk-xml-mixed-items-as-strings": [tool("mixed_content", data={"type": "array", "items": STRING})],
    "aisdk-xml-untyped-nested-object": [tool("config", settings=OBJECT)],
    "aisdk-xml-send-message-japanese": [
        tool(
            "send_message",
            message=STRING,
            card=tool("card", required=["title", "message"], title=STRING, message=STRING, image_url=STRING)[
                "parameters"
            ],
        )
    ],
    "aisdk-xml-update-plan-split-closer": [
        tool(
            "update_plan",
            required=["explanation", "plan"],
            explanation=STRING,
            plan={
                "type": "object",
                "properties": {
                    "step": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"step": STRING, "status": STRING},
                            "required": ["step", "status"],
                            "additionalProperties": True,
                        },
                    }
                },
                "required": ["step"],
                "additionalProperties": True,
            },
        )
    ],
    "aisdk-xml-formatted-past-call": [tool("shell_execute", command=STRING)],
    "aisdk-xml-bare-object-schema": [bare("get_weather")],
    "aisdk-xml-open-close-no-arguments": [bare("get_location")],
}


def tools_for(case_id: str) -> list[dict[str, Any]] | None:
    if case_id in CASE_TOOLS:
        return CASE_TOOLS[case_id]
    return TOOLS[CASES[case_id]["path"]]


def markers_for(case_id: str, text: str) -> tuple[str, ...]:
    """The declared tools' tags: none may be left in the text, but where the text is
    the source's own unread output."""
    names = [t["name"] for t in tools_for(case_id) or []]
    return tuple(m for n in names for m in (f"<{n}>", f"</{n}>", f"<{n}/>") if m not in text)


def raw(case_id: str) -> str:
    text: str = CASES[case_id]["raw_text"]
    return text


EXPECT: dict[str, Expect] = {
    # -- parseGeneratedText branches -----------------------------------------------------------
    "aisdk-xml-no-tools-is-text": Expect(text="free text"),
    "aisdk-xml-empty-body": Expect(),
    "aisdk-xml-closing-tag-with-space": Expect(),
    # (the source accepts text or a call) '</y>' closes nothing: it is the value's text,
    # and the tool's closing tag closes the value left open (the README)
    "aisdk-xml-mismatched-inner-tags": Expect(calls=[{"name": "a", "arguments": {"x": "</y>"}}]),
    "aisdk-xml-html-void-tag-name": Expect(),
    # DIFFERS: the middleware reads a tool's name written as a line of text followed by
    # parameter tags. Only the tool's own element opens a call: a name in prose is not
    # one (the corpus decides the same for its Devstral record), and nothing is lost.
    "aisdk-xml-line-prefixed-name": Expect(calls=[], text=raw("aisdk-xml-line-prefixed-name")),
    "aisdk-xml-name-line-then-prose": Expect(text=raw("aisdk-xml-name-line-then-prose")),
    # DIFFERS: the middleware repairs '<get_weather' with its parameters inside the open
    # tag and '/>' at the end. A tag not closed by '>' opens nothing: text, nothing lost.
    "aisdk-xml-body-in-open-tag": Expect(calls=[], text=raw("aisdk-xml-body-in-open-tag")),
    # -- raw string parameters -----------------------------------------------------------------
    "aisdk-xml-doctype-html-in-string": Expect(),
    "aisdk-xml-escaped-html-decoded": Expect(),  # the five entities decoded
    "aisdk-xml-attributes-on-string-tag": Expect(),
    "aisdk-xml-sibling-names-inside-string": Expect(),
    "aisdk-xml-self-closing-string-param": Expect(),
    "aisdk-xml-attribute-with-gt": Expect(),
    "aisdk-xml-numbers-in-items": Expect(),
    "aisdk-xml-items-with-attributes": Expect(),
    # DIFFERS: the middleware cancels the call (text) when a parameter's name appears both
    # nested and as a sibling. The structure is plain: an unknown parameter <outer> holding
    # markup, then <content>. Unknown properties are kept (the schema does not close them).
    "aisdk-xml-nested-same-name-then-sibling": Expect(
        calls=[
            {
                "name": "write_file",
                "arguments": {
                    "file_path": "/tmp/file.txt",
                    "outer": "<content>nested</content>",
                    "content": "top",
                },
            }
        ]
    ),
    # -- self-closing calls --------------------------------------------------------------------
    "aisdk-xml-self-closing-call": Expect(),
    "aisdk-xml-self-closing-with-text": Expect(text="Getting your location now...  Done!"),
    "aisdk-xml-two-self-closing": Expect(),
    "aisdk-xml-self-closing-then-element": Expect(),
    # -- edge cases ----------------------------------------------------------------------------
    "aisdk-xml-indented-string": Expect(),
    # DIFFERS: the middleware trims each <item>. An item's spaces are the model's own
    # (only one newline after the opening tag and one before the closing tag are dropped).
    "aisdk-xml-item-whitespace": Expect(
        calls=[{"name": "format_text", "arguments": {"values": ["  spaced text  ", "another  item"]}}]
    ),
    "aisdk-xml-empty-string-element": Expect(),
    "aisdk-xml-mixed-items-as-strings": Expect(),
    "aisdk-xml-untyped-nested-object": Expect(),
    # -- user-reported regressions -------------------------------------------------------------
    # DIFFERS: the middleware reads the element's plain text as the message. send_message
    # has two parameters (message and card), and plain text in a tool's element is read
    # only for a tool with a single string parameter (the README): here it is text, as a
    # declared tag mentioned in prose is.
    "aisdk-xml-send-message-japanese": Expect(calls=[], text=raw("aisdk-xml-send-message-japanese")),
    "aisdk-xml-update-plan-split-closer": Expect(),
    # -- the formatter and the middleware's index tests ----------------------------------------
    "aisdk-xml-formatted-past-call": Expect(),
    "aisdk-xml-bare-object-schema": Expect(),
    "aisdk-xml-open-close-no-arguments": Expect(),
}

# Where toolparse falls short of what its README says it reads. The expectation is the
# source's; each case fails today.
ATTRIBUTES = "a child element with attributes is not read as a parameter (or an <item>): %s"
FAULTS = {
    "aisdk-xml-attributes-on-string-tag": ATTRIBUTES
    % "'</file_path>' followed by '<content type=\"html\">' does not close file_path, which swallows "
    "the rest of the call ('/home/u/file.html</file_path><content type=...')",
    "aisdk-xml-attribute-with-gt": ATTRIBUTES
    % '<content data="a > b" ...> is passed over and file_path swallows the rest of the call',
    "aisdk-xml-items-with-attributes": ATTRIBUTES
    % '<item kind="n"> items come out as one string \'<item kind="n"> 10.5 <item kind="n">3...\', '
    "their closing tags dropped, although the fragment is well-formed XML",
    "aisdk-xml-update-plan-split-closer": (
        "'</\\n  step>' (a closing tag split across lines, after a <step> never closed): the "
        "second step's text 'Create AGENTS.md file using apply_patch with comprehensive content' "
        "disappears from the arguments with no error"
    ),
}


def test_every_fixture_case_has_an_expectation() -> None:
    assert set(EXPECT) == set(CASES)
    assert set(FAULTS) <= set(EXPECT)


@pytest.mark.parametrize("case_id", case_params(EXPECT, FAULTS))
def test_source_case(case_id: str) -> None:
    expect = EXPECT[case_id]
    check_source_case(GRAMMAR, CASES[case_id], expect, tools_for(case_id), markers_for(case_id, expect.text))


# -- written here, from the format's documentation ------------------------------------------

TOOLS_OF_THE_MATRIX = [dict(t) for t in FUZZ_TOOLS]  # get_weather, get_time, write, configure, send


def run_checked(text: str, **options: Any) -> list[Event]:
    return check_all(GRAMMAR, text, tools=TOOLS_OF_THE_MATRIX, **options)


def test_values_are_typed_by_the_schema_and_text_around_is_kept() -> None:
    events = run_checked("Checking <get_weather>\n<city>Paris</city>\n<days>3</days>\n</get_weather> done")
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]
    assert text_of(events) == "Checking  done"


def test_a_call_never_closed_keeps_its_parameters_but_one_cut_inside_a_value_is_an_error() -> None:
    assert calls_of(run_checked("<get_weather><city>Paris</city>")) == [
        {"name": "get_weather", "arguments": {"city": "Paris"}}
    ]
    events = run_checked("Sure: <get_weather><city>Par")
    assert calls_of(events) == [] and errors_of(events) == ["unfinished_call"]
    assert text_of(events) == "Sure: "


def test_an_undeclared_tools_element_and_a_declared_tag_in_prose_are_text() -> None:
    for text in (
        "<launch_rocket><target>moon</target></launch_rocket>",
        "Tip: use <get_weather> to look it up.",
    ):
        events = run_checked(text)
        assert calls_of(events) == [] and errors_of(events) == [] and text_of(events) == text


def test_a_closing_tag_with_a_space_before_its_bracket_closes_the_call() -> None:
    events = run_checked("<get_weather><city>Paris</city></get_weather > Done.")
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert text_of(events) == " Done."


def test_a_rendered_call_parses_back_and_escapes_what_it_must() -> None:
    # the prompt side: entities and CDATA where a value needs them, read back exactly
    arguments = {"path": "a.html", "content": "\n<p>R&D</p> & </content>\n"}
    rendered = get_grammar(GRAMMAR).prompt.render_call("write", arguments)
    assert rendered == (
        "<write><path>a.html</path><content><![CDATA[\n<p>R&D</p> & </content>\n]]></content></write>"
    )
    assert calls_of(run_checked(rendered)) == [{"name": "write", "arguments": arguments}]
