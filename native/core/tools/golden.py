"""Record the golden streams of `toolparse-core`: what the Python reference
gives for each grammar's own material, to be replayed by `cargo test`.

For every registered grammar, the streams are the grammar's whole example
(the output its declaration says it reads, with the calls it must give) and
each of its fragments (whole calls, broken calls, the pieces of its markers:
`toolparse.grammars.prompts.GrammarEntry`) set between two lines of prose.
Each stream is read by the reference engine whole, and its events are
written merged (adjacent text, reasoning and argument deltas joined, as
`toolparse.invariants.normalize` does), so that a replay in any chunking
must give them again. Call ids are left out: they are random by design.

    python native/core/tools/golden.py     # writes native/core/tests/golden/

`tests/test_core_golden.py` fails when a file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"
# (the format of the files: raise it when a field changes meaning)
FORMAT = 1
BEFORE = "Let me check that for you.\n"
AFTER = "\nAnything else?"


def _event(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = event.to_dict()
    data.pop("id", None)
    return data


def _readable(text: str) -> bool:
    # (a file of UTF-8 JSON cannot hold a lone surrogate)
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def streams_of(name: str) -> list[str]:
    """The inputs recorded for the grammar `name`."""
    from toolparse.grammars import ENTRIES

    entry = ENTRIES[name]
    inputs = [text for text, _calls in entry.examples]
    inputs += [BEFORE + fragment + AFTER for fragment in entry.fragments]
    # (each once, in their order)
    return [text for text in dict.fromkeys(inputs) if _readable(text)]


def record(name: str) -> dict[str, Any]:
    """The golden file of the grammar `name`, as data."""
    from toolparse import StreamParser
    from toolparse.grammars import ENTRIES
    from toolparse.invariants import normalize

    entry = ENTRIES[name]
    tools = [dict(tool) for tool in entry.fuzz_tools] if entry.fuzz_tools is not None else None
    streams = []
    for text in streams_of(name):
        parser = StreamParser(name, tools, engine="python")
        events = parser.feed(text) + parser.close()
        streams.append({"input": text, "events": [_event(e) for e in normalize(events)]})
    return {"format": FORMAT, "grammar": name, "tools": tools, "streams": streams}


def render(name: str) -> str:
    """The text of the golden file of the grammar `name`."""
    return json.dumps(record(name), ensure_ascii=False, indent=1) + "\n"


def names() -> list[str]:
    """The grammars recorded: every registered one."""
    from toolparse.grammars import ENTRIES

    return sorted(ENTRIES)


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in names():
        (GOLDEN / f"{name}.json").write_text(render(name))
    stale = {p.stem for p in GOLDEN.glob("*.json")} - set(names())
    for old in stale:
        (GOLDEN / f"{old}.json").unlink()
    print(f"wrote {len(names())} golden files to {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    main()
