"""What the grammar modules share: helpers for their prompt sides, and
:class:`GrammarEntry`, the record by which a module hands its format to the
registry.

Each grammar module holds everything about its format: its declaration
(:class:`~toolparse.engine.declare.Grammar`), its prompt side (a
:class:`~toolparse.engine.declare.PromptFormat`: teach a model the format,
and write a conversation's past calls and tool results back into it, so that
a rendered call parses back to the same call, a round trip tested with
hypothesis for every grammar), and the fragments, tools and examples that
``toolparse fuzz`` and the test suite's matrix run it with. It ends with its
``ENTRY``, which the registry (:mod:`toolparse.grammars`) lists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from toolparse.engine.declare import Grammar

Example: TypeAlias = tuple[str, list[dict[str, Any]]]
"""A whole model output and the calls it holds (``{"name": ..., "arguments": ...}``)."""


@dataclass(frozen=True, slots=True, eq=False)
class GrammarEntry:
    """One format as the registry lists it: its declaration, and what the
    fuzzer and the test matrix run it with."""

    grammar: Grammar
    """The declaration (with its prompt side, ``grammar.prompt``)."""
    fragments: Sequence[str]
    """Pieces that ``toolparse fuzz`` and the test matrix splice into arbitrary
    text: whole calls, broken calls, and the pieces of the format's markers."""
    examples: Sequence[Example] = ()
    """Whole outputs with the calls they must give (with :attr:`fuzz_tools`)."""
    fuzz_tools: Sequence[Mapping[str, Any]] | None = None
    """The tools this format is fuzzed and tested with by default (None: no
    tools declared); for a format whose calls open only at declared tools."""
    call_ids: str | None = None
    """How the model itself writes call ids, where its chat template writes
    them back into later turns (a format of ``{name}`` and ``{index}``, the
    call's position in the whole conversation): a server gives its calls
    these ids. None: the ids are the server's own (``call_...``)."""


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def parameter_text(value: Any, *, last_newline_dropped: bool = True) -> str:
    """A parameter's value as the XML-family templates write it (Qwen3-Coder,
    GLM, MiniMax): a string as it is, anything else as JSON. A string that
    begins with ``<value>`` and holds its ``<value>`` and ``</value>`` tags in
    balance is written inside one more wrapper (the value reader unwraps a
    value that is one whole wrapper, counting those tags, and keeps any other
    as it is), so that it reads back as itself (with one more newline before
    ``</value>`` where the grammar's reader drops the last one)."""
    if not isinstance(value, str):
        return json_text(value)
    if value.startswith("<value>") and _balanced(value):
        extra = "\n" if last_newline_dropped and value.endswith("\n") else ""
        return f"<value>{value}{extra}</value>"
    return value


_WRAP_TAG: Final = re.compile(r"</?value>")


def _balanced(text: str) -> bool:
    """Every ``</value>`` in ``text`` closes a ``<value>`` before it, and every one is closed."""
    depth = 0
    for tag in _WRAP_TAG.findall(text):
        depth += 1 if tag == "<value>" else -1
        if depth < 0:
            return False
    return depth == 0


def glued_parameter_text(value: Any) -> str:
    """A parameter's value written glued to its tags (MiniMax, Seed-OSS, Step-3,
    dots), for a value reader that drops one newline right after the opening
    tag and one right before the closing tag: :func:`parameter_text`, and a
    string that begins or ends with a newline gets one more there, to read
    back the same."""
    text = parameter_text(value)
    if text != value:  # (JSON, or a string in a <value> wrapper: nothing to pad)
        return text
    return ("\n" if text.startswith("\n") else "") + text + ("\n" if text.endswith("\n") else "")


def content_text(content: Any) -> str:
    """A tool result as text: a string as it is, OpenAI content parts
    (``[{"type": "text", "text": ...}]``) joined, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(_is_text_part(part) for part in content):
        return "".join(part["text"] for part in content)
    return json_text(content)


def _is_text_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
