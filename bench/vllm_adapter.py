"""CPU time per streamed token: toolparse's vLLM adapter against vLLM 0.33.0's own parsers.

Both sides run in one process through vLLM's real serving code path:
``ParserManager.get_parser(...)`` composes a ``DelegatingParser`` subclass, one
instance is made per request (``cls(tokenizer, request.tools)``) and every
token goes through ``parser.parse_delta(delta_text, [id], request,
prompt_token_ids, finished=...)``, as ``OpenAIServingChat`` does in 0.33.

The prompt's token ids go with every delta, as in
``ChatStreamProcessor.step``. Token deltas are precomputed outside the timed region: the model output is
encoded with the stand-in byte-level BPE tokenizer (``Qwen/Qwen3-32B`` in the
offline HF cache of the integration harness) and detokenized with
``tokenizers.decoders.DecodeStream(skip_special_tokens=False)``, as vLLM's
``FastIncrementalDetokenizer`` does.

Pairs (vLLM name vs toolparse name): ``hermes`` vs ``toolparse-hermes``,
``qwen3_coder`` vs ``toolparse-qwen3-coder`` and, for reasoning,
``deepseek_r1`` + ``hermes`` vs ``toolparse-think-open`` + ``toolparse-hermes``.
The two sides of a pair are interleaved (order alternating per repeat); the
median over repeats of the process CPU time (``time.process_time``, with the
garbage collector off during a stream) of a whole stream, parser construction
included, is divided by the stream's token count. Each side's result
(content, reasoning, calls with parsed arguments) is checked against the
other and against the expected calls; differences are printed.

Run (CPU venv with the real vLLM 0.33.0, toolparse from the checkout)::

    VENV=$(bash tests/integration/vllm/env.sh | tail -1)
    PYTHONPATH=src $VENV/bin/python bench/vllm_adapter.py [--repeats 7] [--json out.json]
        [--pair hermes --pair qwen3_coder --pair deepseek_r1] [--scenario prose ...]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "integration" / "vllm"
MODEL = "Qwen/Qwen3-32B"

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]

CITIES = ["Paris", "Berlin", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Perth", "Dakar"]


# -- model outputs --------------------------------------------------------------------------


def prose(size: int) -> str:
    """Plain answer text of about ``size`` characters (some markup-like characters)."""
    sentences = [
        "The forecast for the coming week looks mild, with light winds from the west. ",
        "Temperatures stay between 12 and 18 degrees; a few showers are likely on Thursday. ",
        'If you travel, pack a light jacket (and an umbrella "just in case"). ',
        "Compared with last year, the season is about 1.5 degrees warmer on average, "
        "so a < b holds for most days. ",
        "Humidity is moderate: 60-70 % in the mornings, lower in the afternoon.\n\n",
    ]
    out: list[str] = []
    n = 0
    i = 0
    while n < size:
        s = sentences[i % len(sentences)]
        out.append(s)
        n += len(s)
        i += 1
    return "".join(out)


def code_blob(size: int) -> str:
    """A code-like string of about ``size`` characters: quotes, newlines, backslashes, ``<``."""
    block = (
        "def render(items, limit=10):\n"
        '    """Render <li> items as HTML; escape \\"quotes\\" too."""\n'
        "    out = []\n"
        "    for i, item in enumerate(items):\n"
        "        if i < limit and item:\n"
        "            out.append(f'<li class=\"row\">{item!r}</li>\\n')\n"
        '        path = "C:\\\\tmp\\\\file.txt"  # backslashes\n'
        "    return ''.join(out) + \"\\t<end>\"\n\n"
    )
    return (block * (size // len(block) + 1))[:size].rsplit("\n", 1)[0] + "\n"


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]


@dataclass
class Scenario:
    name: str
    content: str  # expected content (whitespace-insensitive check)
    calls: list[Call]
    reasoning: str = ""


def small_calls(count: int, offset: int = 0) -> list[Call]:
    return [
        Call("get_weather", {"city": CITIES[(i + offset) % len(CITIES)], "unit": "celsius"})
        for i in range(count)
    ]


def scenarios() -> list[Scenario]:
    text = prose(4096)
    return [
        Scenario("prose-4k", text, []),
        Scenario("3-calls", "Let me check.\n\nI'll look up three cities.\n\n", small_calls(3)),
        Scenario(
            "20k-arg",
            "Writing the file now.\n\n",
            [Call("write_file", {"path": "src/render.py", "content": code_blob(20_000)})],
        ),
        Scenario("50-calls", "", small_calls(50, offset=3)),
    ]


def reasoning_scenario() -> Scenario:
    return Scenario(
        "think-4k+call",
        "",
        [Call("get_weather", {"city": "Paris", "unit": "celsius"})],
        reasoning=prose(4096),
    )


def hermes_call(call: Call) -> str:
    body = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


def qwen3_coder_call(call: Call) -> str:
    params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in call.arguments.items())
    return f"<tool_call>\n<function={call.name}>\n{params}</function>\n</tool_call>"


def render(scenario: Scenario, fmt: str) -> str:
    """The model output for ``scenario`` in ``fmt`` (``hermes`` or ``qwen3_coder``).

    In ``3-calls`` the text goes between the calls; elsewhere content comes first."""
    one = hermes_call if fmt == "hermes" else qwen3_coder_call
    calls = [one(c) for c in scenario.calls]
    head = f"{scenario.reasoning}</think>\n\n" if scenario.reasoning else ""
    if scenario.name == "3-calls":
        a, b = "Let me check.\n", "\nI'll look up three cities.\n"
        return head + a + calls[0] + b + calls[1] + "\n" + calls[2]
    return head + scenario.content + "\n".join(calls)


# -- vLLM -----------------------------------------------------------------------------------


def load_vllm() -> tuple[Any, Any, Any]:
    """Stand-ins, vLLM, the toolparse plugin; returns (ParserManager, ChatCompletionRequest, tokenizer)."""
    sys.path.insert(0, str(HARNESS))
    importlib.import_module("vllm_standins").install()  # before anything imports vllm
    import logging

    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager
    from vllm.tokenizers import get_tokenizer

    import toolparse.integrations.vllm  # noqa: F401  (registers toolparse-* parsers)

    logging.getLogger("vllm").setLevel(logging.WARNING)
    return ParserManager, ChatCompletionRequest, get_tokenizer(MODEL)


def token_deltas(tokenizer: Any, text: str) -> list[tuple[str, list[int]]]:
    """Per-token (delta_text, [id]) as vLLM's FastIncrementalDetokenizer produces them."""
    tokenizers = importlib.import_module("tokenizers")
    ids = tokenizer.encode(text, add_special_tokens=False)
    stream = tokenizers.decoders.DecodeStream(skip_special_tokens=False)
    backend = tokenizer._tokenizer
    out = [(stream.step(backend, i) or "", [i]) for i in ids]
    joined = "".join(t for t, _ in out)
    if joined != text:
        raise AssertionError(f"detokenized text differs from the model output ({len(joined)} vs {len(text)})")
    return out


@dataclass
class Result:
    content: str = ""
    reasoning: str = ""
    names: dict[int, str] = field(default_factory=dict)
    arguments: dict[int, str] = field(default_factory=dict)

    def calls(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        for index in sorted(self.names.keys() | self.arguments.keys()):
            raw = self.arguments.get(index, "")
            try:
                args: Any = json.loads(raw) if raw else {}
            except json.JSONDecodeError:
                args = f"<invalid JSON: {raw[:60]!r}...>"
            out.append((self.names.get(index, "?"), args))
        return out


def collect(messages: list[Any]) -> Result:
    result = Result()
    for message in messages:
        if message is None:
            continue
        result.content += message.content or ""
        result.reasoning += message.reasoning or ""
        for tc in message.tool_calls or []:
            function = tc.function
            if isinstance(function, dict):
                name, arguments = function.get("name"), function.get("arguments")
            elif function is not None:
                name, arguments = function.name, function.arguments
            else:
                name = arguments = None
            if name:
                result.names[tc.index] = result.names.get(tc.index, "") + name
            if arguments:
                result.arguments[tc.index] = result.arguments.get(tc.index, "") + arguments
    return result


@dataclass
class Side:
    label: str
    parser_cls: Any


def run_stream(
    side: Side,
    tokenizer: Any,
    request: Any,
    deltas: list[tuple[str, list[int]]],
    prompt_ids: list[int],
) -> tuple[float, float, list[Any]]:
    """One streamed response; returns (CPU seconds in all, of them in construction, the DeltaMessages)."""
    last = len(deltas) - 1
    messages: list[Any] = []
    append = messages.append
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        parser = side.parser_cls(tokenizer, request.tools)
        built = time.process_time()
        for i, (text, ids) in enumerate(deltas):
            append(parser.parse_delta(text, ids, request, prompt_ids, finished=i == last))
        end = time.process_time()
    finally:
        gc.enable()
    return end - start, built - start, messages


def concat_cost(deltas: list[tuple[str, list[int]]]) -> float:
    """CPU seconds of what a non-engine-based DelegatingParser alone adds per stream:
    ``StreamState.advance`` (previous_text + delta_text, previous_token_ids + ids)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        text, ids = "", list[int]()
        for delta_text, delta_ids in deltas:
            text, ids = text + delta_text, ids + delta_ids
        return time.process_time() - start
    finally:
        gc.enable()


def normalized(text: str) -> str:
    return "".join(text.split())


def check(scenario: Scenario, results: dict[str, Result]) -> list[str]:
    """Differences between the sides and against the expected calls/content."""
    problems: list[str] = []
    expected_calls = [(c.name, c.arguments) for c in scenario.calls]
    for side, r in results.items():
        calls = r.calls()
        if calls != expected_calls:
            got = [(n, a if len(json.dumps(a)) < 120 else "...") for n, a in calls]
            problems.append(
                f"{side}: calls differ from expected ({len(calls)} vs {len(expected_calls)}): {got[:3]}"
            )
        if normalized(r.content) != normalized(scenario.content):
            problems.append(f"{side}: content differs from expected: {r.content[:200]!r}")
        if normalized(r.reasoning) != normalized(scenario.reasoning):
            problems.append(
                f"{side}: reasoning differs from expected "
                f"({len(r.reasoning)} vs {len(scenario.reasoning)} chars)"
            )
    (a_label, a), (b_label, b) = results.items()
    if a.calls() != b.calls():
        problems.append(f"{a_label} vs {b_label}: different calls")
    if normalized(a.content) != normalized(b.content):
        problems.append(
            f"{a_label} vs {b_label}: different content: {a.content[:200]!r} vs {b.content[:200]!r}"
        )
    if normalized(a.reasoning) != normalized(b.reasoning):
        problems.append(f"{a_label} vs {b_label}: different reasoning")
    return problems


# -- main -----------------------------------------------------------------------------------

PAIRS: dict[str, tuple[str, tuple[str, str | None], tuple[str, str | None]]] = {
    # pair: (output format, (vLLM tool, vLLM reasoning), (toolparse tool, toolparse reasoning))
    "hermes": ("hermes", ("hermes", None), ("toolparse-hermes", None)),
    "qwen3_coder": ("qwen3_coder", ("qwen3_coder", None), ("toolparse-qwen3-coder", None)),
    "deepseek_r1": ("hermes", ("hermes", "deepseek_r1"), ("toolparse-hermes", "toolparse-think-open")),
}


def label(tool: str, reasoning: str | None) -> str:
    return f"{reasoning}+{tool}" if reasoning else tool


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--pair", action="append", choices=sorted(PAIRS), help="default: all")
    ap.add_argument("--scenario", action="append", help="only these scenario names")
    ap.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = ap.parse_args(argv)

    manager, request_cls, tokenizer = load_vllm()
    import vllm

    import toolparse

    messages = [{"role": "user", "content": "What's the weather like?"}]
    rows: list[dict[str, Any]] = []
    mismatches = 0
    for pair in args.pair or list(PAIRS):
        fmt, (v_tool, v_reason), (t_tool, t_reason) = PAIRS[pair]
        sides = [
            Side(label(v_tool, v_reason), manager.get_parser(v_tool, v_reason, enable_auto_tools=True)),
            Side(label(t_tool, t_reason), manager.get_parser(t_tool, t_reason, enable_auto_tools=True)),
        ]
        # the serving layer passes the prompt's ids with every delta (without them
        # DelegatingParser never enters its tool-call phase)
        prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        todo = scenarios()
        if v_reason:  # the template opened reasoning: the output starts inside it
            todo = [reasoning_scenario()]
            prompt += "<think>\n"
        prompt_ids: list[int] = tokenizer.encode(prompt, add_special_tokens=False)
        for scenario in todo:
            if args.scenario and scenario.name not in args.scenario:
                continue
            output = render(scenario, fmt)
            deltas = token_deltas(tokenizer, output)
            times: dict[str, list[float]] = {s.label: [] for s in sides}
            inits: dict[str, list[float]] = {s.label: [] for s in sides}
            concat: list[float] = []
            results: dict[str, Result] = {}
            for side in sides:  # warm-up (untimed); its output is the one checked
                request = request_cls(messages=messages, tools=TOOLS, tool_choice="auto")
                results[side.label] = collect(run_stream(side, tokenizer, request, deltas, prompt_ids)[2])
            for rep in range(args.repeats):
                for side in sides if rep % 2 == 0 else sides[::-1]:
                    request = request_cls(messages=messages, tools=TOOLS, tool_choice="auto")
                    total, init, _ = run_stream(side, tokenizer, request, deltas, prompt_ids)
                    times[side.label].append(total)
                    inits[side.label].append(init)
                concat.append(concat_cost(deltas))
            problems = check(scenario, results)
            for problem in problems:
                print(f"  MISMATCH [{pair} / {scenario.name}] {problem}")
            # (the exit status is toolparse's: a known vLLM difference, such as its Hermes
            # parser dropping the text between calls, is printed and not counted)
            mismatches += any(problem.startswith(f"{sides[1].label}:") for problem in problems)
            v_med, t_med = (statistics.median(times[s.label]) for s in sides)
            n = len(deltas)
            engine_based = bool(sides[0].parser_cls(tokenizer)._engine_based)
            rows.append(
                {
                    "pair": pair,
                    "scenario": scenario.name,
                    "chars": len(output),
                    "tokens": n,
                    "vllm": sides[0].label,
                    "toolparse": sides[1].label,
                    "vllm_us_per_token": v_med / n * 1e6,
                    "toolparse_us_per_token": t_med / n * 1e6,
                    "ratio": t_med / v_med,
                    "vllm_init_us": statistics.median(inits[sides[0].label]) * 1e6,
                    "toolparse_init_us": statistics.median(inits[sides[1].label]) * 1e6,
                    "vllm_engine_based": engine_based,
                    "concat_us_per_token": statistics.median(concat) / n * 1e6 if not engine_based else 0.0,
                    "vllm_times_s": times[sides[0].label],
                    "toolparse_times_s": times[sides[1].label],
                    "same_result": not problems,
                }
            )
            r = rows[-1]
            print(
                f"{pair:<12} {scenario.name:<14} {n:>6} tok  vLLM {r['vllm_us_per_token']:8.2f} us/tok  "
                f"toolparse {r['toolparse_us_per_token']:8.2f} us/tok  ratio {r['ratio']:6.3f}",
                flush=True,
            )

    print()
    print(f"median of {args.repeats}, process CPU time per streamed token (construction + parse_delta)")
    head = (
        f"{'pair':<12} {'scenario':<14} {'tokens':>6} {'vLLM us/tok':>12} {'toolparse us/tok':>17} "
        f"{'ratio':>7} {'concat us/tok':>14} {'init us v/tp':>14}  same"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        concat_cell = f"{r['concat_us_per_token']:.2f}" if not r["vllm_engine_based"] else "-"
        init_cell = f"{r['vllm_init_us']:.0f}/{r['toolparse_init_us']:.0f}"
        print(
            f"{r['pair']:<12} {r['scenario']:<14} {r['tokens']:>6} {r['vllm_us_per_token']:>12.2f} "
            f"{r['toolparse_us_per_token']:>17.2f} {r['ratio']:>7.3f} {concat_cell:>14} {init_cell:>14}  "
            f"{'yes' if r['same_result'] else 'NO'}"
        )
    print("ratio = toolparse / vLLM (below 1: toolparse is faster)")
    print("concat = DelegatingParser's previous_text/previous_token_ids concatenation alone, per token,")
    print("         part of the vLLM column where vLLM's side is not engine-based ('-': engine-based)")
    print("init = parser construction per request, us (included in the per-token columns)")

    if args.json:
        meta = {
            "vllm": vllm.__version__,
            "toolparse": toolparse.__version__,
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "repeats": args.repeats,
            "clock": "time.process_time, gc disabled during a stream",
            "tokenizer": f"stand-in byte-level BPE under {MODEL} (tests/integration/vllm)",
        }
        Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
