"""``toolparse bench`` and ``toolparse fuzz``: CI-sized runs of the real commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolparse import Event, StreamParser, TextDelta, benchmark, fuzz
from toolparse.cli import main
from toolparse.engine import native
from toolparse.invariants import run


def test_bench_scenarios_hold_what_they_say() -> None:
    for grammar in benchmark.GRAMMARS:
        texts = benchmark.scenarios(grammar)
        events = run(grammar, [texts["fifty calls"]], tools=benchmark.TOOLS)
        assert sum(type(e).__name__ == "ToolCall" for e in events) == 50
        events = run(grammar, [texts["long argument 100 KB"]], tools=benchmark.TOOLS)
        assert sum(type(e).__name__ == "ToolCall" for e in events) == 1
        assert not any(type(e).__name__ == "ToolCall" for e in run(grammar, [texts["prose 20 KB"]]))
    deltas = benchmark.chunks(benchmark.three_calls("hermes"), 4)
    assert benchmark.run_floor(deltas) >= 1 and benchmark.run_naive(deltas) >= 3


def test_bench_quick_writes_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--repeats", "1", "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    assert {r["grammar"] for r in report["rows"]} == set(benchmark.GRAMMARS)
    assert report["machine"]["python"] and report["targets"]
    out = capsys.readouterr().out
    met = sum(check["met"] for check in report["targets"])
    assert f"targets (1 round): {met} of {len(report['targets'])} met" in out
    assert out.count("[met]") == met and out.count("[MISSED]") == len(report["targets"]) - met
    assert ("confirm a miss with --repeats 15" in out) == (met < len(report["targets"]))


def test_fuzz_ci_sized_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--examples", "25", "--seed", "11", "--growth-size", "2000"]) == 0
    err = capsys.readouterr().err
    assert "seed 11" in err and "grow linearly" in err and "every invariant held" in err


def test_fuzz_reports_a_failure_reproducibly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(
        grammar: str, text: str, deltas: object, options: object = None, *, memory: bool = False
    ) -> None:
        assert "<" not in text, "planted failure"

    monkeypatch.setattr(fuzz, "check_example", broken)
    failure = tmp_path / "case.json"
    argv = ["fuzz", "--examples", "50", "--grammar", "hermes", "--seed", "5", "--growth-size", "0"]
    assert main([*argv, "--failure-file", str(failure)]) == 1
    case = json.loads(failure.read_text())
    assert case["grammar"] == "hermes" and "<" in case["text"] and "planted failure" in case["failure"]
    assert case["seed"] == 5 and "tools" in case["options"]
    assert main(["fuzz", "--replay", str(failure)]) == 1  # still failing: the planted check is in place
    monkeypatch.undo()
    assert main(["fuzz", "--replay", str(failure)]) == 0  # the real checks pass on it


def test_fuzz_draws_options_beyond_the_defaults() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    seen: set[str] = set()

    @settings(max_examples=300, database=None, derandomize=True)
    @given(st.data())
    def collect(data: st.DataObject) -> None:
        options = data.draw(fuzz.parser_options("hermes"))
        seen.update(k for k, v in options.items() if v not in (None, False))
        if options.get("max_call_chars", 100) < 20:
            seen.add("tiny max_call_chars")

    collect()
    assert seen >= {
        "tools",
        "max_call_chars",
        "tiny max_call_chars",
        "max_depth",
        "errors_as_text",
        "coerce",
        "tool_choice",
        "collapse",
        "unknown_on_error",
    }


# -- the engines: bench --engine, fuzz --compare ----------------------------------------------------

needs_native = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)


def test_bench_names_the_engine_it_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(benchmark, "GRAMMARS", ("hermes",))
    output = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--repeats", "1", "--engine", "python", "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    assert report["engine"] == "python" and report["engines"] == ["python"]
    assert {r["engine"] for r in report["rows"]} == {"python"}
    assert set(report["growth_ms"]) == {"hermes"}  # (one engine: grammar -> table, as before)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "engine: python (the Python reference)"


@needs_native
def test_bench_both_engines_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(benchmark, "GRAMMARS", ("hermes", "qwen3-coder"))
    output = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--repeats", "1", "--engine", "both", "--output", str(output)]) == 0
    report = json.loads(output.read_text())
    assert report["engine"] == "both" and report["engines"] == ["python", "native"]
    rows = report["rows"]
    assert len(rows) == 2 * 2 * 5 * 2  # (engines, grammars, scenarios, delta sizes)
    for python, ours in zip(rows[::2], rows[1::2], strict=True):  # (paired, the same floor)
        assert (python["engine"], ours["engine"]) == ("python", "native")
        assert python["floor_us_per_delta"] == ours["floor_us_per_delta"]
        assert (python["grammar"], python["scenario"]) == (ours["grammar"], ours["scenario"])
    assert set(report["growth_ms"]) == {"python", "native"}
    assert set(report["growth_ms"]["native"]) == {"hermes", "qwen3-coder"}
    assert {t["engine"] for t in report["targets"]} == {"python", "native"}
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("engines: python (the Python reference) and native")
    assert "python x" in out and "native x" in out and "python/native" in out
    assert len(benchmark.side_by_side(report)) == 2 * 5 * 2


def test_bench_refuses_an_engine_not_built(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(native, "AVAILABLE", False)
    for engine in ("native", "both"):
        assert main(["bench", "--quick", "--engine", engine]) == 2
        assert "not built" in capsys.readouterr().err
    assert benchmark.engines_for(None) == ("python",)


@pytest.mark.parametrize("engine", ["python", "both"])
def test_bench_replays_under_the_engines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    if engine == "both" and not native.AVAILABLE:
        pytest.skip("the native core is not built")
    recording = tmp_path / "out.txt"
    recording.write_text('Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')
    output = tmp_path / "replay.json"
    argv = ["bench", "--replay", str(recording), "--input", "text", "--repeats", "1", "--engine", engine]
    assert main([*argv, "--output", str(output)]) == 0
    written = json.loads(output.read_text())
    replays = written["replays"] if engine == "both" else [written]
    assert [r["engine"] for r in replays] == (["python", "native"] if engine == "both" else ["python"])
    assert all(r["calls"] == 1 for r in replays)
    assert capsys.readouterr().out.startswith("engine: python")


@needs_native
def test_fuzz_compare_ci_sized_run(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fuzz", "--compare", "--examples", "10", "--seed", "11", "--growth-size", "0"]
    assert main([*argv, "--grammar", "hermes", "--grammar", "qwen3-coder", "--grammar", "auto"]) == 0
    err = capsys.readouterr().err
    assert "--compare" in err.splitlines()[0]
    assert "every invariant held, and the native and python engines gave the same events" in err


@needs_native
def test_fuzz_compare_reports_a_difference_reproducibly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a difference planted in the native twin: an extra empty text event where a delta holds "<")
    twin = native.concrete(StreamParser, True)
    real = twin.feed

    def planted(self: StreamParser, delta: str) -> list[Event]:
        events: list[Event] = real(self, delta)
        return [*events, TextDelta("")] if "<" in delta else events

    monkeypatch.setattr(twin, "feed", planted)
    failure = tmp_path / "case.json"
    argv = [
        "fuzz",
        "--compare",
        "--examples",
        "50",
        "--grammar",
        "hermes",
        "--seed",
        "5",
        "--growth-size",
        "0",
    ]
    assert main([*argv, "--failure-file", str(failure)]) == 1  # (the invariants hold: only --compare fails)
    err = capsys.readouterr().err
    assert "FAILED in hermes: AssertionError: in the deltas: the engines differ at feed(deltas[" in err
    case = json.loads(failure.read_text())
    assert case["compare"] is True and case["grammar"] == "hermes" and "<" in "".join(case["deltas"])
    assert "python nothing, native TextDelta(text='')" in case["failure"]
    assert main(["fuzz", "--replay", str(failure)]) == 1  # still failing: the planted difference is in place
    monkeypatch.undo()
    assert main(["fuzz", "--replay", str(failure)]) == 0


def test_fuzz_compare_needs_the_native_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(native, "AVAILABLE", False)
    assert main(["fuzz", "--compare", "--examples", "5", "--growth-size", "0"]) == 2
    assert (
        "toolparse fuzz --compare: the native core (toolparse._native) is not built"
        in capsys.readouterr().err
    )
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"grammar": "hermes", "text": "x", "deltas": ["x"], "compare": True}))
    assert main(["fuzz", "--replay", str(case)]) == 2
    assert "is not built" in capsys.readouterr().err
    case.write_text(json.dumps({"grammar": "hermes", "text": "x", "deltas": ["x"]}))
    assert main(["fuzz", "--replay", str(case)]) == 0  # (a failure of the invariants alone replays)
