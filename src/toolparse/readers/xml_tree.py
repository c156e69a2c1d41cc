"""A tolerant reader of small XML fragments, for parameters that are not strings.

``<opts><depth>3</depth></opts>`` becomes ``{"depth": "3"}``; repeated
children become lists (``<item>x</item><item>y</item>`` -> ``{"item": ["x", "y"]}``,
which coercion turns into an array where the schema wants one); an element
with no child elements is its decoded text. Unclosed elements are closed by
their parent's end, stray closing tags are ignored, and nothing outside the
five predefined entities and numeric references is ever expanded: a
``<!DOCTYPE>`` or ``<!ENTITY>`` is plain text, no file or network is touched.
Nesting deeper than ``max_depth`` is kept as text. Linear in the fragment.
"""

from __future__ import annotations

import re
from typing import Any, Final

ENTITY: Final = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7});")
"""The five predefined entities and numeric character references: all that is ever decoded."""
ENTITY_PREFIX: Final = re.compile(r"&(?:[a-z]{0,4}|#[0-9]{0,8}|#[xX][0-9a-fA-F]{0,7})\Z")
"""What may still grow into an :data:`ENTITY` at the end of a text."""
_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
# (``&amp;`` last: no replacement makes an entity that a later one would decode)
_REPLACED: Final = (*((f"&{name};", char) for name, char in _NAMED.items() if name != "amp"), ("&amp;", "&"))


def decode_entity(match: re.Match[str]) -> str | None:
    """The character an entity stands for, or None if it stands for no valid character."""
    name = match.group(1)
    if name[0] != "#":
        return _NAMED[name]
    code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


_TAG: Final = re.compile(r"<(/?)([A-Za-z_][A-Za-z0-9_.:\-]{0,127})\s*(/?)>")


def decode_text(text: str) -> str:
    """Decode predefined entities and numeric references; anything else stays."""
    if "&" not in text:
        return text
    if "&#" not in text:  # (named entities only: five replaces cost less than a match each)
        for entity, char in _REPLACED:
            if entity in text:
                text = text.replace(entity, char)
        return text
    return ENTITY.sub(lambda m: decode_entity(m) or m.group(), text)


class _Element:
    __slots__ = ("children", "name", "text")

    def __init__(self, name: str) -> None:
        self.name = name
        self.text: list[str] = []
        self.children: list[tuple[str, Any]] = []

    def value(self) -> Any:
        if not self.children:
            return "".join(self.text)
        result: dict[str, Any] = {}
        for name, value in self.children:
            if name in result:
                existing = result[name]
                if isinstance(existing, _Repeated):
                    existing.append(value)
                else:
                    result[name] = _Repeated([existing, value])
            else:
                result[name] = value
        return {k: list(v) if isinstance(v, _Repeated) else v for k, v in result.items()}


class _Repeated(list[Any]):
    """Marks a list made of repeated elements (not a value that is itself a list)."""


def fragment_value(fragment: str, *, max_depth: int = 64) -> Any:
    """The value of an XML fragment: its text, or a dict of its child elements.

    A well-formed fragment is parsed by lxml (in C), configured to load no DTD,
    resolve no entity beyond the predefined ones, fetch nothing and refuse huge
    trees; anything lxml refuses, or reads differently from the rules above
    (comments, processing instructions, attributes, namespaces, undefined
    entities, depth past ``max_depth``), goes to the tolerant reader. Both give
    the same value wherever both apply (a hypothesis property in the tests).
    """
    if "<" not in fragment:  # plain text (the usual number or word): no markup to parse
        return decode_text(fragment)
    strict = strict_value(fragment, max_depth=max_depth)
    return strict if strict is not _REFUSED else tolerant_value(fragment, max_depth=max_depth)


_REFUSED: Final = object()


def _lxml_parser() -> Any:
    try:
        from lxml import etree
    except ImportError:  # lxml is optional: the tolerant reader does everything
        return None
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
        recover=False,
    )


_PARSER: Final = _lxml_parser()


def strict_value(fragment: str, *, max_depth: int = 64) -> Any:
    """The fragment's value through lxml, or ``_REFUSED``."""
    # lxml would read these differently (comments, PIs, DTDs; '\r' is normalised)
    if _PARSER is None or any(mark in fragment for mark in ("<!--", "<?", "<!D", "<!E", "\r")):
        return _REFUSED
    from lxml import etree

    try:
        root = etree.fromstring(f"<r>{fragment}</r>".encode(), _PARSER)
    except (etree.XMLSyntaxError, ValueError):
        return _REFUSED
    try:
        return _element_value(root, max_depth, 0)
    except _Refused:
        return _REFUSED


class _Refused(Exception):
    pass


def _element_value(element: Any, max_depth: int, depth: int) -> Any:
    children = list(element)
    if element.attrib or depth > max_depth:
        raise _Refused
    if not children:
        return element.text or ""
    result: dict[str, Any] = {}
    for child in children:
        if not isinstance(child.tag, str) or ":" in child.tag or "{" in child.tag:
            raise _Refused  # an entity reference node, or a namespaced name
        value = _element_value(child, max_depth, depth + 1)
        if child.tag in result:
            existing = result[child.tag]
            if isinstance(existing, _Repeated):
                existing.append(value)
            else:
                result[child.tag] = _Repeated([existing, value])
        else:
            result[child.tag] = value
    return {k: list(v) if isinstance(v, _Repeated) else v for k, v in result.items()}


def tolerant_value(fragment: str, *, max_depth: int = 64) -> Any:
    """The fragment's value through the tolerant reader (never fails)."""
    root = _Element("")
    stack = [root]
    i = 0
    n = len(fragment)
    while i < n:
        lt = fragment.find("<", i)
        if lt < 0:
            stack[-1].text.append(decode_text(fragment[i:]))
            break
        if lt > i:
            stack[-1].text.append(decode_text(fragment[i:lt]))
        if fragment.startswith("<![CDATA[", lt):
            end = fragment.find("]]>", lt + 9)
            if end < 0:
                stack[-1].text.append(fragment[lt + 9 :])
                break
            stack[-1].text.append(fragment[lt + 9 : end])
            i = end + 3
            continue
        m = _TAG.match(fragment, lt)
        if m is None:
            stack[-1].text.append("<")
            i = lt + 1
            continue
        i = m.end()
        closing, name, self_closing = m.group(1), m.group(2), m.group(3)
        if closing:
            if any(e.name == name for e in stack[1:]):
                while True:
                    element = stack.pop()
                    stack[-1].children.append((element.name, element.value()))
                    if element.name == name:
                        break
            continue  # a stray closing tag: ignored
        if self_closing:
            stack[-1].children.append((name, ""))
        elif len(stack) > max_depth:
            stack[-1].text.append(m.group())
        else:
            stack.append(_Element(name))
    while len(stack) > 1:
        element = stack.pop()
        stack[-1].children.append((element.name, element.value()))
    return root.value()
