"""The ``toolparse`` command: ``parse`` a raw model stream, or replay a ``demo``."""

from __future__ import annotations

import argparse
import codecs
import dataclasses
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from toolparse.errors import ToolparseError
from toolparse.events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
)
from toolparse.fuzz import DESCRIPTION as FUZZ_DESCRIPTION
from toolparse.grammars import grammar_names
from toolparse.grammars.reasoning import REASONING
from toolparse.parser import StreamParser
from toolparse.recorded import FORMATS as RECORDING_FORMATS
from toolparse.tools import load_tools_file

if TYPE_CHECKING:
    from toolparse.recorded import RecordedChunk

_READ_SIZE = 65536
# A stand-in for a BPE tokenizer: words with their leading space, single
# whitespace characters, and runs of up to three punctuation marks.
_TOKEN = re.compile(r" ?\w{1,7}|\s|[^\w\s]{1,3}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``toolparse`` console script."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "parse":
            return _parse(args)
        if args.command == "bench":
            from toolparse.benchmark import run

            return run(args)
        if args.command == "fuzz":
            from toolparse.fuzz import run as run_fuzz

            return run_fuzz(args)
        if args.command == "serve":
            return _serve(args)
        if args.command == "detect":
            return _detect(args)
        return _demo(args)
    except ToolparseError as exc:
        print(f"toolparse: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


def _build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="toolparse", description="Turn raw LLM output streams into tool-call events."
    )
    commands = top.add_subparsers(dest="command", required=True)

    parse = commands.add_parser(
        "parse",
        help="parse a raw model stream into JSON events, one per line",
        description="Read a raw model output stream (a file, or stdin while the producer is "
        "still writing) and write one JSON event per line, as soon as each is ready.",
    )
    parse.add_argument("source", nargs="?", default="-", help="file to read, or - for stdin")
    _add_common(parse)
    parse.add_argument(
        "--input",
        default="text",
        choices=list(RECORDING_FORMATS),
        help="what the source holds: the model's raw text (default), or a recorded stream: "
        "sse (curl -N of an OpenAI-compatible endpoint), jsonl (chunk objects, one per line), "
        "json (an array of chunk objects), ollama (/api/chat or /api/generate NDJSON), "
        "auto (told from the first bytes); each chunk's content is one delta",
    )
    parse.add_argument(
        "--errors-as-text", action="store_true", help="also emit the raw markup of failed calls as text"
    )
    parse.add_argument("--max-call-chars", type=int, default=None, help="largest call markup kept in memory")
    parse.add_argument("--seed", type=int, default=None, help="make call ids deterministic")

    bench = commands.add_parser(
        "bench",
        help="measure speed and memory of every grammar against baselines",
        description="Speed and memory of every grammar, against the floor and a naive "
        "re-parsing baseline measured in the same run.",
    )
    from toolparse.benchmark import add_arguments

    add_arguments(bench)

    fuzz = commands.add_parser(
        "fuzz",
        help="feed malformed and adversarial outputs to every grammar and check the invariants",
        description=FUZZ_DESCRIPTION,
    )
    from toolparse.fuzz import add_arguments as add_fuzz_arguments

    add_fuzz_arguments(fuzz)

    serve = commands.add_parser(
        "serve",
        help="an OpenAI-compatible proxy that gives a text-only endpoint tool calling",
        description="Serve /v1/chat/completions (streamed and not) and /v1/models on HOST:PORT, "
        "for a text-only OpenAI-compatible UPSTREAM (llama.cpp server, Ollama, LM Studio, vLLM "
        "without a tool parser): requests with tools are shaped for the model, its answers "
        "parsed into tool_calls. Needs the serve extra: pip install 'toolparse[serve]'.",
    )
    serve.add_argument("--upstream", help="the upstream's base URL, e.g. http://127.0.0.1:8080/v1")
    serve.add_argument(
        "--config",
        metavar="FILE",
        help="routes by the request's model (TOML: [default] and [models.NAME] tables with upstream, "
        "grammar, reasoning, mode, ...), instead of --upstream and the per-route options",
    )
    serve.add_argument(
        "--grammar",
        "-g",
        default="auto",
        help=f"wire format: {', '.join(grammar_names())} (default auto: the request's model's own "
        "format where toolparse knows the family, else found from the stream's first call)",
    )
    serve.add_argument("--reasoning", default="auto", choices=sorted(REASONING), help="reasoning markers")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--mode",
        default="validated",
        choices=["validated", "progressive"],
        help="validated (default): a call goes out once complete and valid; progressive: arguments stream",
    )
    serve.add_argument(
        "--on-error",
        default="content",
        choices=["content", "drop", "raise", "call"],
        help="a call that fails: its raw text as content (default), dropped, an error, or a call all the "
        "same (marked, for the client framework's repair)",
    )
    serve.add_argument(
        "--past-reasoning",
        default="current",
        choices=["current", "drop", "keep"],
        help="reasoning of past assistant turns sent back (default: only in the current tool loop)",
    )
    serve.add_argument(
        "--reasoning-calls",
        default="report",
        choices=["report", "salvage", "ignore"],
        help="a call in reasoning the model never closed: report (default: a failed call, not run), "
        "salvage (delivered as a call), ignore",
    )
    serve.add_argument(
        "--reasoning-field",
        default="both",
        choices=["both", "reasoning_content", "reasoning"],
        help="the message field reasoning goes in (default both: reasoning_content and reasoning)",
    )
    serve.add_argument(
        "--extra-calls",
        default="drop",
        choices=["drop", "content"],
        help="calls past the first under parallel_tool_calls: false: drop (default), or content "
        "(handled as failed calls, by --on-error)",
    )
    serve.add_argument(
        "--api-key-env",
        metavar="VAR",
        default=None,
        help="send the upstream the key in this environment variable (default: the client's own)",
    )
    serve.add_argument(
        "--client-key-env",
        metavar="VAR",
        default=None,
        help="clients must send the key in this environment variable (Authorization: Bearer KEY)",
    )
    serve.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the upstream")
    serve.add_argument("--max-body", type=int, default=8 * 1024 * 1024, help="largest request body, in bytes")
    serve.add_argument(
        "--body-timeout", type=float, default=30.0, help="seconds for a client to send its request body"
    )
    serve.add_argument(
        "--max-upstream-body",
        type=int,
        default=64 * 1024 * 1024,
        help="largest whole upstream answer held, in bytes",
    )
    serve.add_argument(
        "--no-response-format",
        action="store_true",
        help="do not send a forced tool choice's JSON schema upstream",
    )
    serve.add_argument("--log-level", default="info", help="uvicorn's log level (default info)")

    detect = commands.add_parser(
        "detect",
        help="say which grammar and reasoning a model writes, from its id or its chat template",
        description="Print the grammar, the reasoning preset and the special tokens the server "
        "must keep, for a Hugging Face model id (families and versions: Qwen/Qwen3-Coder-30B-A3B-"
        "Instruct) or a chat template file (a .jinja file, or a tokenizer_config.json with its "
        "chat_template), and why they were chosen.",
    )
    detect.add_argument("model_or_template", help="a model id, or a path to a template file")
    detect.add_argument("--json", action="store_true", help="print one JSON object")

    demo = commands.add_parser(
        "demo",
        help="replay a bundled model output in token-sized deltas",
        description="Replay a bundled example output in realistic token-sized deltas and show "
        "text and tool calls as they complete.",
    )
    _add_common(demo, "hermes")
    demo.add_argument(
        "--delay", type=float, default=0.01, help="seconds between deltas (default 0.01; 0 for no delay)"
    )
    return top


def _add_common(command: argparse.ArgumentParser, grammar: str = "auto") -> None:
    what = "found from the stream's first call" if grammar == "auto" else grammar
    command.add_argument(
        "--grammar",
        "-g",
        default=grammar,
        help=f"wire format: {', '.join(grammar_names())} (default {grammar}: {what})",
    )
    command.add_argument(
        "--reasoning",
        default="auto",
        choices=sorted(REASONING),
        help="how the model marks its reasoning (default auto: <think>...</think> where the answer "
        "begins; think-open: the prompt opened it; none: no reasoning)",
    )
    command.add_argument(
        "--tools",
        metavar="TOOLS.json",
        default=None,
        help="declared tools: a JSON list (OpenAI style or name/parameters)",
    )


def _load_tools(path: str | None) -> list[Any] | None:
    return None if path is None else load_tools_file(path)


def _read_chunks(source: str) -> Iterator[str]:
    """Yield text as soon as it can be read: from stdin, whatever is available."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    if source == "-":
        fd = sys.stdin.fileno()
        while True:
            data = os.read(fd, _READ_SIZE)
            if not data:
                break
            text = decoder.decode(data)
            if text:
                yield text
    else:
        try:
            fh: IO[bytes] = open(source, "rb")  # noqa: SIM115
        except OSError as exc:
            raise ToolparseError(f"cannot read {source!r}: {exc.strerror}") from exc
        with fh:
            while data := fh.read(_READ_SIZE):
                text = decoder.decode(data)
                if text:
                    yield text
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail


def _parse(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {
        "errors_as_text": args.errors_as_text,
        "seed": args.seed,
        "reasoning": args.reasoning,
    }
    if args.max_call_chars is not None:
        options["max_call_chars"] = args.max_call_chars
    parser = StreamParser(args.grammar, _load_tools(args.tools), **options)
    out = sys.stdout
    tag = _GrammarTag(parser) if parser.decided is None else None
    if args.input == "text":
        for chunk in _read_chunks(args.source):
            _write_events(out, parser.feed(chunk), tag)
    else:
        from toolparse.recorded import RecordedDecoder

        def report(line: int, message: str) -> None:
            print(f"toolparse: {args.source}: line {line}: {message} (skipped)", file=sys.stderr)

        decoder = RecordedDecoder(args.input, on_error=report)
        for text in _read_chunks(args.source):
            for recorded in decoder.feed(text):
                _write_recorded(out, parser, recorded, tag)
        for recorded in decoder.close():
            _write_recorded(out, parser, recorded, tag)
    _write_events(out, parser.close(), tag)
    return 0


class _GrammarTag:
    """(``--grammar auto``) adds the grammar the stream was found to be in to the
    first call event (``"grammar": NAME``)."""

    def __init__(self, parser: StreamParser) -> None:
        self._parser, self._told = parser, False

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        decided = self._parser.decided
        if not self._told and decided is not None and event["type"].startswith("tool_call"):
            self._told = True
            return {**event, "grammar": decided}
        return event


def _detect(args: argparse.Namespace) -> int:
    from toolparse.detect import grammar_for_model, grammar_for_template

    given: str = args.model_or_template
    path = Path(given)
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".json":  # (a tokenizer_config.json: its chat_template)
            text = _template_of_config(text, given)
        found, what = grammar_for_template(text), f"the chat template {given}"
    else:
        found, what = grammar_for_model(given), f"the model {given!r}"
    if found is None:
        message = f"no known format in {what}: grammar auto reads the stream to find it"
        if args.json:
            print(
                json.dumps({"grammar": "auto", "reasoning": "auto", "special_tokens": [], "reason": message})
            )
        else:
            print(f"grammar: auto\nreasoning: auto\nwhy: {message}")
        return 1
    if args.json:
        print(json.dumps(dataclasses.asdict(found) | {"special_tokens": list(found.special_tokens)}))
        return 0
    tokens = ", ".join(found.special_tokens) or "none"
    print(f"grammar: {found.grammar}\nreasoning: {found.reasoning}\nspecial tokens to keep: {tokens}")
    print(f"why: {found.reason}")
    return 0


def _template_of_config(text: str, name: str) -> str:
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolparseError(f"{name} is not valid JSON: {exc}") from exc
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):  # (named templates: the default one, or all of them)
        named = {t.get("name"): t.get("template", "") for t in template if isinstance(t, dict)}
        template = named.get("default") or "\n".join(map(str, named.values()))
    if not isinstance(template, str):
        raise ToolparseError(f"{name} has no chat_template")
    return template


def _write_recorded(
    out: IO[str], parser: StreamParser, recorded: RecordedChunk, tag: _GrammarTag | None = None
) -> None:
    """One recorded chunk: reasoning the server separated, then the model's text, parsed."""
    events: list[Event] = []
    if recorded.reasoning:
        events.append(ReasoningDelta(recorded.reasoning, recorded.reasoning))
    if recorded.content:
        events += parser.feed(recorded.content)
    _write_events(out, events, tag)


_ROUTE_FLAGS = {
    "grammar": "auto",
    "reasoning": "auto",
    "mode": "validated",
    "on_error": "content",
    "past_reasoning": "current",
    "reasoning_calls": "report",
    "reasoning_field": "both",
    "extra_calls": "drop",
    "no_response_format": False,
    "api_key_env": None,
}


def _serve(args: argparse.Namespace) -> int:
    from toolparse.openai.calling import ToolCalling
    from toolparse.routes import Router
    from toolparse.serve import Limits, serve

    if (args.upstream is None) == (args.config is None):
        raise ToolparseError("toolparse serve needs --upstream URL or --config FILE (one of them)")
    client_key = _env_key(args.client_key_env)
    upstream: str | Router
    if args.config is not None:
        given = [name for name, default in _ROUTE_FLAGS.items() if getattr(args, name) != default]
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise ToolparseError(f"with --config, set {flags} in the config's routes")
        upstream, api_key, calling = Router.from_toml(args.config), None, None
    else:
        upstream, api_key = args.upstream, _env_key(args.api_key_env)
        calling = ToolCalling(
            grammar=args.grammar,
            reasoning=args.reasoning,
            mode=args.mode,
            on_error=args.on_error,
            past_reasoning=args.past_reasoning,
            response_format=not args.no_response_format,
            reasoning_calls=args.reasoning_calls,
            reasoning_field=args.reasoning_field,
            extra_calls=args.extra_calls,
        )
    serve(
        upstream,
        host=args.host,
        port=args.port,
        api_key=api_key,
        calling=calling,
        log_level=args.log_level,
        client_key=client_key,
        limits=Limits(
            max_body=args.max_body,
            body_timeout=args.body_timeout,
            timeout=args.timeout,
            max_upstream_body=args.max_upstream_body,
        ),
    )
    return 0


def _env_key(name: str | None) -> str | None:
    """The key in the environment variable ``name`` (None: no variable named)."""
    if name is None:
        return None
    key = os.environ.get(name)
    if key is None:
        raise ToolparseError(f"the environment variable {name} is not set")
    return key


def _write_events(out: IO[str], events: list[Event], tag: _GrammarTag | None = None) -> None:
    if not events:
        return
    for event in events:
        record = event.to_dict() if tag is None else tag(event.to_dict())
        try:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        except UnicodeEncodeError:  # a lone surrogate in text (kept, as conservation wants): escape it
            out.write(json.dumps(record) + "\n")
    out.flush()


def demo_deltas(text: str) -> list[str]:
    """Split text the way a BPE tokenizer roughly would."""
    deltas = _TOKEN.findall(text)
    assert "".join(deltas) == text
    return deltas


def _demo(args: argparse.Namespace) -> int:
    package = resources.files("toolparse") / "examples"
    text = (package / "demo_hermes.txt").read_text(encoding="utf-8")
    tools = args.tools
    tool_list = (
        _load_tools(tools) if tools else json.loads((package / "demo_tools.json").read_text(encoding="utf-8"))
    )
    if args.grammar != "hermes":
        text = _in_grammar(text, args.grammar, tool_list)
    parser = StreamParser(args.grammar, tool_list, seed=0, reasoning=args.reasoning)
    style = _Style(sys.stdout.isatty())
    deltas = demo_deltas(text)
    counts = {"calls": 0, "errors": 0, "deltas": 0, "reasoning": 0, "thinking": 0}
    started = time.perf_counter()
    spent = 0.0
    for delta in deltas:
        t0 = time.perf_counter()
        events = parser.feed(delta)
        spent += time.perf_counter() - t0
        _show(events, style, counts)
        if args.delay > 0:
            time.sleep(args.delay)
    t0 = time.perf_counter()
    events = parser.close()
    spent += time.perf_counter() - t0
    _show(events, style, counts)
    wall = time.perf_counter() - started
    print(
        style.dim(
            f"\n\n{len(deltas)} deltas replayed in {wall:.2f} s; parsing took "
            f"{spent * 1e6 / len(deltas):.2f} us per delta; "
            f"{counts['reasoning']} characters of reasoning, "
            f"{counts['calls']} tool calls, {counts['errors']} errors."
        )
    )
    return 0


def _in_grammar(text: str, grammar: str, tools: list[Any] | None) -> str:
    """The bundled Hermes example rewritten into another format: calls rendered
    by that grammar's prompt side (the one drafted in the reasoning too),
    broken markup and text kept as they are; gpt-oss gets its harmony channels,
    and a format with reasoning markers of its own (Gemma 4, Cohere) its markers."""
    from toolparse.events import ToolCall as Call
    from toolparse.events import ToolCallError as Error
    from toolparse.grammars import get_grammar

    declared = get_grammar(grammar)
    grammar = declared.name  # (an alias: the grammar's own name)
    render = declared.prompt.render_call_after_text
    harmony = grammar == "gpt-oss"
    # (a format with reasoning markers of its own writes its thought in them)
    own = declared.reasoning if not harmony and declared.reasoning and declared.reasoning.open else None
    # (kind, text, call): a text piece, or a call with its name and arguments
    pieces: list[tuple[str, str, tuple[str, dict[str, Any]] | None]] = []
    for event in StreamParser("hermes", tools, reasoning="none").feed(text):
        if isinstance(event, TextDelta):
            pieces.append(("text", event.text, None))
        elif isinstance(event, Call):
            pieces.append(("call", render(event.name, event.arguments), (event.name, event.arguments)))
        elif isinstance(event, Error):  # the example's broken call, broken in this format's way
            pieces.append(
                ("call", _broken(render("notify", {"to": "team", "message": "done"}), grammar), None)
            )
    parts = []
    thinking = False
    last = len(pieces) - 1
    for k, (kind, piece, call) in enumerate(pieces):
        if kind == "text":
            opens, closes = "<think>" in piece, "</think>" in piece
            if harmony:
                piece = piece.replace("<think>\n", "<|channel|>analysis<|message|>")
                piece = piece.replace("\n</think>\n", "<|end|>").replace("</think>", "<|end|>")
                if not (thinking or opens) and piece.strip():
                    channel = "final" if k == last else "commentary"
                    piece = f"<|start|>assistant<|channel|>{channel}<|message|>{piece.strip()}<|end|>"
            elif own is not None and own.open is not None:
                piece = piece.replace("<think>", own.open).replace("</think>", own.close)
            thinking = (thinking or opens) and not closes
        elif harmony and thinking and call is not None:
            # (a call drafted in the analysis channel is its text)
            piece = f"{call[0]} {json.dumps(call[1], ensure_ascii=False)}\n"
        parts.append(piece)
    return "".join(parts)


# How each format's demo call is got wrong: (what is written, what the model writes instead)
_UNQUOTED_INVOKE = (('invoke name="notify">', "invoke name=notify>"),)  # a name left unquoted
_FUNCTION_TAG_OPEN = (("<function=notify>", "<function=notify"),)  # the function tag not closed
_BREAKS: dict[str, tuple[tuple[str, str], ...]] = {
    "qwen3-coder": _FUNCTION_TAG_OPEN,
    "seed-oss": _FUNCTION_TAG_OPEN,
    "mimo": _FUNCTION_TAG_OPEN,
    "xml": (("</message></notify>", ""),),  # cut off: the output ends inside the call
    **dict.fromkeys(
        ("glm", "iquest-q1", "hunyuan"), (("<arg_value>done", "done"),)
    ),  # a value without its tag
    **dict.fromkeys(("beam", "muse"), ((':parameter name="message">', ':parameter name="message'),)),
    "minicpm5": (('<param name="to">', '<param name="to>'),),  # a parameter's name left unclosed
    "dots": (('<parameter name="message">', '<parameter name="message>'),),
    **dict.fromkeys(
        ("minimax", "gigachat3.5", "deepseek-v3.2", "deepseek-v4", "deepseek-v4.1", "step3"), _UNQUOTED_INVOKE
    ),
    "apertus": (('"done"}}', '"done"'),),  # the arguments object left open
    "kimi-k3": (('tool="notify"', "tool=notify"),),
    "k2-horizon": (("<ifm|arg_value>done</ifm|arg_value>", ""),),  # a key without its value
    # (a string's closing delimiter left out)
    **dict.fromkeys(("gemma4", "functiongemma"), (('done<|"|>', "done"), ("done<escape>", "done"))),
    "command-r": (('"done"', '"done'),),  # a string left open
}
_JSON_CUT = (('"done"}', '"done"'), ('"done")', '"done"'))  # the JSON (or the literal) cut short


def _broken(call: str, grammar: str) -> str:
    """A call as a model gets it wrong: its markup or its JSON cut short."""
    for written, instead in _BREAKS.get(grammar, _JSON_CUT):
        call = call.replace(written, instead, 1)
    return call


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def ok(self, text: str) -> str:
        return self._wrap("32;1", text)

    def bad(self, text: str) -> str:
        return self._wrap("31;1", text)

    def thought(self, text: str) -> str:
        return self._wrap("2;3", text)

    def call(self, text: str) -> str:
        return self._wrap("36", text)


def _show(events: list[Event], style: _Style, counts: dict[str, int]) -> None:
    out = sys.stdout
    for event in events:
        if isinstance(event, ReasoningDelta) and not event.text:  # (markup only: not shown)
            continue
        thinking = isinstance(event, ReasoningDelta)
        if thinking != bool(counts["thinking"]):
            counts["thinking"] = thinking
            out.write(style.dim("[thinking] " if thinking else "[/thinking]"))
        if isinstance(event, TextDelta):
            out.write(event.text)
        elif isinstance(event, ReasoningDelta):
            counts["reasoning"] += len(event.text)
            out.write(style.thought(event.text))
        elif isinstance(event, ToolCallStart):
            out.write(style.call(f"\n[call {event.index}: {event.name}] "))
        elif isinstance(event, ToolCallDelta):
            counts["deltas"] += 1
            out.write(style.dim(event.arguments_delta))
        elif isinstance(event, ToolCall):
            counts["calls"] += 1
            args = json.dumps(event.arguments, ensure_ascii=False)
            if len(args) > 120:
                args = args[:117] + "..."
            out.write(style.ok(f"\n  -> ToolCall {event.name}({args})\n"))
        elif isinstance(event, ToolCallError):
            counts["errors"] += 1
            out.write(style.bad(f"\n  -> ToolCallError {event.reason}: {event.message}\n"))
    out.flush()


if __name__ == "__main__":
    raise SystemExit(main())
