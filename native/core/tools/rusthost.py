"""Record the goldens of the core's pure-Rust host (`toolparse-core`'s
`ids`, `coercion::oracle` and `host_values`): what the Python reference
answers, to be replayed by `cargo test -p toolparse-core` (tests/rusthost.rs)
with no Python.

* `ids.json`: `random.Random(seed)`'s call ids (`calls._ids_of(seed)`).
* `typer.json`: arguments read by the reference's streaming JSON reader with
  the inline coercer (`JsonRewriter` and `SchemaTyper`): the canonical text
  written and the issues, for schemas and texts that exercise each rule.

Schemas and inputs are stored as JSON text (read by each side's own
`json.loads`: key order and big integers as Python keeps them).

    python native/core/tools/rusthost.py    # writes native/core/tests/rusthost/

`tests/test_core_rusthost.py` fails when a file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "rusthost"
# (the format of the files: raise it when a field changes meaning)
FORMAT = 1

SEEDS = [0, 1, 42, 2**40, 2**64 + 3, -5, 2**200 + 7]
IDS_A_SEED = 5

# -- the inline coercer --------------------------------------------------------------------------

_OBJ = '{"type": "object", "properties": %s%s}'


def _obj(properties: str, extra: str = "") -> str:
    return _OBJ % (properties, extra)


TOOL = _obj(
    '{"n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},'
    ' "s": {"type": "string"}, "z": {"type": "null"},'
    ' "tags": {"type": "array", "items": {"type": "string"}},'
    ' "ints": {"type": "array", "items": {"type": "integer"}},'
    ' "o": {"type": "object", "properties": {"k": {"type": "integer"}}},'
    ' "e": {"enum": ["Red", "Green", 3]}, "u": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}'
)

# (schema, [inputs], max_depth)
TYPER_CASES: list[tuple[str, list[str], int]] = [
    (
        TOOL,
        [
            '{"n": "42", "x": "2.5", "b": "true", "s": "plain", "z": "null"}',
            '{"n": 7, "x": 3, "b": false, "s": 12, "z": null}',
            '{"tags": "a, b", "ints": ["1", "2", 3], "o": {"k": "9"}}',
            '{"tags": ["x", "y"], "ints": "[4, 5]", "o": "{\\"k\\": \\"1\\"}"}',
            '{"e": "red", "u": "12", "other": {"deep": ["1", 2]}}',
            '{"e": " Green ", "u": "word", "n": "4.0", "x": "1e400"}',
            '{"n": "12345678901234567890", "x": "-0.0", "b": "yes"}',
            '{"n": 1.5, "b": 1, "s": {"a": 1}, "z": "none"}',
            '{"o": {"k": [1]}, "tags": {"item": ["p", "q"]}}',
            '{"n": "\\u0661\\u0662", "s": "caf\\u00e9 \\ud83d\\ude00"}',
        ],
        64,
    ),
    (
        _obj('{"a": {"type": "integer"}}', ', "additionalProperties": false'),
        ['{"a": "1", "b": 2, "c": {"d": 3}, "a": "x"}', "{}"],
        64,
    ),
    (
        _obj('{"a": {"type": "integer"}}', ', "additionalProperties": {"type": "boolean"}'),
        ['{"a": "1", "flag": "false", "other": "1"}'],
        64,
    ),
    (
        _obj("{}", ', "patternProperties": {"^n_": {"type": "integer"}, "^b_": {"type": "boolean"}}'),
        ['{"n_1": "5", "b_x": "True", "s": "7"}'],
        64,
    ),
    (
        _obj(
            '{"p": {"$ref": "#/$defs/pt"}, "q": {"allOf": [{"type": "object"},'
            ' {"properties": {"v": {"type": "number"}}}]}}',
            ', "$defs": {"pt": {"type": "object",'
            ' "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}}',
        ),
        ['{"p": {"x": "1", "y": "2"}, "q": {"v": "0.5"}}', '{"p": "{\\"x\\": \\"3\\"}"}'],
        64,
    ),
    (
        _obj(
            '{"t": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}]},'
            ' "l": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},'
            ' "m": {"type": ["integer", "null"]}, "k": {"const": 3}}'
        ),
        ['{"t": ["1", "true", "x"], "l": [1, "2"], "m": "null", "k": "3"}', '{"m": "5", "t": "[2, 0]"}'],
        64,
    ),
    (
        _obj('{"deep": {"type": "object"}, "n": {"type": "integer"}}'),
        ['{"deep": {"a": {"b": {"c": "1"}}}, "n": "2"}'],
        2,
    ),
    (
        '{"type": "object"}',
        ['{"j": "{\\"a\\": 1}", "l": "[1, 2]", "s": "text", "n": 5}'],
        64,
    ),
    (
        _obj('{"j": {"type": "object"}, "n": {"type": "integer"}}'),
        ['{"j": "{\\"a\\": {\\"b\\": {\\"c\\": {\\"d\\": \\"1\\"}}}}", "n": "3"}'],
        3,
    ),
    (
        _obj(
            '{"d": {"type": "object", "properties": {"e": {"type": "array", "items":'
            ' {"type": "object", "properties": {"f": {"type": "integer"}}}}}},'
            ' "v": {"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}},'
            ' {"type": "string"}]}}'
        ),
        [
            '{"d": {"e": [{"f": "1"}, {"f": "x"}, "{\\"f\\": \\"2\\"}"]}, "v": {"a": "2"}}',
            '{"v": "{\\"a\\": \\"3\\"}", "d": {"e": {"f": "4"}}}',
            '{"v": 5, "d": [1]}',
        ],
        64,
    ),
]


def _issue(issue: Any) -> list[str]:
    return [issue.path, issue.expected, issue.got, issue.action]


def _typer_read(schema: dict[str, Any], text: str, max_depth: int) -> dict[str, Any]:
    from toolparse.coercion.inline import SchemaTyper
    from toolparse.readers.json import JsonRewriter, JsonSyntaxError

    out: list[str] = []
    typer = SchemaTyper(schema, max_depth=max_depth)
    reader = JsonRewriter(out, max_depth=max_depth, typer=typer)
    result: dict[str, Any] = {"input": text}
    try:
        reader.feed(text, 0)
        result["whole"] = reader.finish()
    except JsonSyntaxError as exc:
        result["error"] = str(exc)
    result["output"] = "".join(out)
    result["issues"] = [_issue(i) for i in typer.issues]
    return result


def typer_cases() -> list[dict[str, Any]]:
    cases = []
    for schema, inputs, max_depth in TYPER_CASES:
        reads = [_typer_read(json.loads(schema), text, max_depth) for text in inputs]
        cases.append({"schema": schema, "max_depth": max_depth, "reads": reads})
    return cases


# -- the files -----------------------------------------------------------------------------------


def ids() -> dict[str, Any]:
    from toolparse.engine.calls import _ids_of

    seeds = []
    for seed in SEEDS:
        factory = _ids_of(seed)
        seeds.append({"seed": str(seed), "ids": [factory(k) for k in range(IDS_A_SEED)]})
    return {"format": FORMAT, "seeds": seeds}


def records() -> dict[str, Any]:
    """Each golden file's name and data."""
    return {
        "ids.json": ids(),
        "typer.json": {"format": FORMAT, "cases": typer_cases()},
    }


def render(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    written = records()
    for name, data in written.items():
        (GOLDEN / name).write_text(render(data))
    for old in {p.name for p in GOLDEN.glob("*.json")} - set(written):
        (GOLDEN / old).unlink()
    print(f"wrote {len(written)} golden files to {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    main()
