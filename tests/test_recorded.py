"""Recorded streams (toolparse.recorded, ``parse --input``, ``bench --replay``).

The recordings are made here from the corpus's real outputs and their real
tokenizer splits (tests/fixtures/corpus), written in each format a server or
client saves: SSE as ``curl -N`` shows it, JSON Lines, a JSON array, Ollama
NDJSON. Replaying a recording must give back exactly its deltas, in their
original boundaries, and the same events as feeding those deltas directly.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from support import load_jsonl, normalize, run
from toolparse import StreamParser, parse_iter, parse_stream
from toolparse.recorded import (
    RecordedChunk,
    RecordedDecoder,
    RecordedStreamWarning,
    aiter_deltas,
    iter_chunks,
    iter_deltas,
)

REAL = {r["id"]: r for r in load_jsonl("real_outputs.jsonl")}
SPLITS = [s for s in load_jsonl("token_splits.jsonl") if REAL[s["real_output_id"]]["format"] == "hermes"]
FORMATS = ["sse", "jsonl", "json", "ollama"]


def openai_chunk(content: str, *, reasoning: str = "", finish: str | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {"content": content}
    if reasoning:
        delta = {"reasoning_content": reasoning}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def record(deltas: list[str], fmt: str) -> str:
    """A recording of ``deltas`` as a server (or a client's log) would save it."""
    if fmt == "ollama":
        lines = [
            {"model": "m", "message": {"role": "assistant", "content": d}, "done": False} for d in deltas
        ]
        lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True})
        return "".join(json.dumps(line) + "\n" for line in lines)
    chunks = [openai_chunk("", finish=None), *map(openai_chunk, deltas), openai_chunk("", finish="stop")]
    chunks[0]["choices"][0]["delta"] = {"role": "assistant", "content": ""}
    if fmt == "sse":
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
        return ": keep-alive\n\n" + body + "data: [DONE]\n\n"
    if fmt == "jsonl":
        return "".join(json.dumps(c) + "\n" for c in chunks)
    return json.dumps(chunks, indent=1)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("split", SPLITS[:12], ids=lambda s: f"{s['real_output_id'][:24]}-{s['tokenizer']}")
def test_a_recording_replays_its_real_chunks(split: dict[str, Any], fmt: str) -> None:
    deltas = json.loads(split["deltas"]) if isinstance(split["deltas"], str) else split["deltas"]
    recording = record(deltas, fmt)
    expected = [d for d in deltas if d]
    for cut in (1, 7, 4096):  # however the recording itself arrives
        pieces = [recording[i : i + cut] for i in range(0, len(recording), cut)]
        assert list(iter_deltas(pieces, fmt)) == expected
    assert list(iter_deltas(io.BytesIO(recording.encode()), "auto")) == expected
    direct = run("hermes", deltas)
    assert normalize(
        list(parse_iter(iter_deltas(io.StringIO(recording), fmt), "hermes", seed=7))
    ) == normalize(direct)


def test_reasoning_the_server_separated_comes_with_the_chunk() -> None:
    chunks = [openai_chunk("", reasoning="Think."), openai_chunk("Hi")]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    assert list(iter_chunks([sse], "sse")) == [RecordedChunk("", "Think.", 1), RecordedChunk("Hi", "", 3)]
    ollama = json.dumps({"message": {"role": "assistant", "content": "", "thinking": "Hm."}, "done": False})
    assert list(iter_chunks([ollama + "\n"], "auto")) == [RecordedChunk("", "Hm.", 1)]
    generate = json.dumps({"response": "ok", "done": False})
    assert list(iter_chunks([generate + "\n"], "ollama")) == [RecordedChunk("ok", "", 1)]


def test_broken_recordings_are_reported_and_skipped() -> None:
    problems: list[tuple[int, str]] = []

    def report(line: int, message: str) -> None:
        problems.append((line, message))

    good = json.dumps(openai_chunk("a"))
    # a bad line in the middle (SSE): reported with its line number, the rest read
    sse = f"data: {good}\n\ndata: {{oops\n\ndata: {good}\n\n"
    assert list(iter_deltas([sse], "sse", on_error=report)) == ["a", "a"]
    assert problems[0][0] == 3 and "not a chunk" in problems[0][1]
    # JSON Lines with binary garbage and an error object
    problems.clear()
    garbage = "\x00\x01\ufffd\ufffd garbage\n"
    jsonl = f"{good}\n{garbage}{json.dumps({'error': {'message': 'overloaded'}})}\n{good}"
    assert list(iter_deltas([jsonl], "jsonl", on_error=report)) == ["a", "a"]
    assert [p[0] for p in problems] == [2, 3] and "overloaded" in problems[1][1]
    # a truncated JSON array: what was complete is read, then one report
    problems.clear()
    array = json.dumps([openai_chunk("a"), openai_chunk("b"), openai_chunk("c")])
    assert list(iter_deltas([array[: len(array) - 40]], "json", on_error=report)) == ["a", "b"]
    assert len(problems) == 1 and "JSON" in problems[0][1]
    # the default reports with a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert list(iter_deltas(["data: nope\n\n"], "sse")) == []
    assert caught and issubclass(caught[0].category, RecordedStreamWarning)


def test_sse_details() -> None:
    """CRLF line ends split anywhere, multi-line data, named events, no final blank line."""
    body = 'data: {"choices": [{"index": 0,\r\ndata: "delta": {"content": "x"}}]}\r\n\r\n'
    body += 'event: ping\r\ndata: {"choices": []}\r\n\r\ndata: {"choices": [{"delta": {"content": "y"}}]}'
    for cut in range(1, 8):
        pieces = [body[i : i + cut] for i in range(0, len(body), cut)]
        assert list(iter_deltas(pieces, "sse")) == ["x", "y"]


def test_async_replay_through_parse_stream() -> None:
    split = SPLITS[0]
    deltas = json.loads(split["deltas"]) if isinstance(split["deltas"], str) else split["deltas"]
    recording = record(deltas, "sse").encode()

    async def body() -> Any:  # (an HTTP response's byte chunks)
        for i in range(0, len(recording), 100):
            yield recording[i : i + 100]

    async def replay() -> list[Any]:
        return [e async for e in parse_stream(aiter_deltas(body(), "sse"), "hermes", seed=7)]

    assert normalize(anyio.run(replay)) == normalize(run("hermes", deltas))


def test_a_large_json_array_reads_in_flat_memory(tmp_path: Path) -> None:
    """About 50 MB of chunks: memory stays bounded, far below the file's size."""
    path = tmp_path / "big.json"
    piece = json.dumps(openai_chunk("lorem ipsum dolor <tool_"))
    count = 50 * 1024 * 1024 // (len(piece) + 2)
    with path.open("w") as fh:
        fh.write("[")
        for k in range(count):
            fh.write(("," if k else "") + piece)
        fh.write("]")
    tracemalloc.start()
    try:
        seen = sum(1 for _ in iter_deltas(path, "json"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen == count
    assert peak < 8 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a {path.stat().st_size / 1e6:.0f} MB file"


def test_decoder_misuse_is_loud() -> None:
    with pytest.raises(Exception, match="unknown recording format"):
        RecordedDecoder("xml")


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolparse.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_parses_a_curl_recording() -> None:
    split = next(s for s in SPLITS if REAL[s["real_output_id"]]["expected_calls"])
    deltas = json.loads(split["deltas"]) if isinstance(split["deltas"], str) else split["deltas"]
    expected = REAL[split["real_output_id"]]["expected_calls"]
    for fmt in ("sse", "auto"):
        result = cli(
            "parse", "--input", fmt, "--grammar", "hermes", "--seed", "1", stdin=record(deltas, "sse")
        )
        assert result.returncode == 0, result.stderr
        events = [json.loads(line) for line in result.stdout.splitlines()]
        calls = [{"name": e["name"], "arguments": e["arguments"]} for e in events if e["type"] == "tool_call"]
        assert calls == expected
    broken = record(deltas, "sse").replace("data: [DONE]", "data: {broken\n\ndata: [DONE]")
    result = cli("parse", "--input", "sse", stdin=broken)
    assert result.returncode == 0 and "line" in result.stderr and "skipped" in result.stderr


def test_bench_replays_a_recording(tmp_path: Path) -> None:
    split = SPLITS[0]
    deltas = json.loads(split["deltas"]) if isinstance(split["deltas"], str) else split["deltas"]
    path = tmp_path / "run.jsonl"
    path.write_text(record(deltas, "jsonl"))
    result = cli("bench", "--replay", str(path), "--repeats", "2")
    assert result.returncode == 0, result.stderr
    assert f"{len([d for d in deltas if d])} deltas" in result.stdout
    assert "the floor" in result.stdout and "per call" in result.stdout


def _stream(text: str) -> Iterator[str]:
    yield text


def test_the_parser_sees_the_same_deltas_from_a_file_and_a_list(tmp_path: Path) -> None:
    deltas = ["Hi <tool", '_call>{"name": "f", "arguments": {}}', "</tool_call>"]
    path = tmp_path / "r.sse"
    path.write_text(record(deltas, "sse"))
    parser = StreamParser("hermes", seed=1)
    events = [e for d in iter_deltas(str(path)) for e in parser.feed(d)] + parser.close()
    assert normalize(events) == normalize(run("hermes", deltas, seed=1))
    assert list(iter_deltas(_stream(record(deltas, "jsonl")), "jsonl")) == deltas
