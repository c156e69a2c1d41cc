"""The OpenAI layer as faithful as a native endpoint (issue 27), item by item,
with the real ``openai`` SDK through ``wrap()`` and through ``toolparse serve``."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from servers import Reply, fake_upstream, running
from test_openai import ASK, MISSING_CITY, PARIS, TOOLS, calls_in, convert, message_of, sdk, whole
from toolparse import StreamParser, ToolparseError, prepare_request
from toolparse.openai import CompletionStream, wrap
from toolparse.openai.calling import ToolCalling
from toolparse.openai.chunks import ChoiceStream
from toolparse.routes import Router
from toolparse.serve import create_app
from toolparse.toolchoice import InvalidRequestError

LIMA = PARIS.replace("Paris", "Lima")
BROKEN = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days":'


# -- a whole response is always whole ----------------------------------------------------------


@pytest.mark.parametrize("text", [BROKEN, "Trying: " + MISSING_CITY + " and " + PARIS])
def test_a_whole_response_never_holds_broken_arguments_whatever_the_mode(text: str) -> None:
    for on_error in ("content", "drop"):
        progressive, _ = whole(text, mode="progressive", on_error=on_error)
        assert progressive == whole(text, mode="validated", on_error=on_error)[0]
        for _, arguments in calls_in(progressive):
            assert isinstance(arguments, dict) and "city" in arguments


def test_the_proxy_in_progressive_mode_answers_a_whole_request_whole() -> None:
    with (
        fake_upstream(Reply(BROKEN)) as upstream,
        running(create_app(upstream.url, calling=ToolCalling(mode="progressive"))) as proxy,
    ):
        client = sdk(proxy + "/v1")
        choice = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS).choices[0]
        assert choice.message.tool_calls is None and choice.finish_reason == "stop"
        assert choice.message.content == BROKEN  # (as the model wrote it)
        # (a stream stays progressive: the call's name goes out at once)
        streamed, _ = message_of(
            list(client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True))
        )
        assert [call["function"]["name"] for call in streamed.get("tool_calls") or ()] == ["get_weather"]


# -- parallel_tool_calls: false ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["validated", "progressive"])
def test_parallel_tool_calls_false_delivers_the_first_call_only(mode: str) -> None:
    text = "Checking. " + MISSING_CITY + PARIS + LIMA
    for cuts in ([], list(range(0, len(text), 5))):
        # (extra_calls="content": the later calls handled as failed calls, their markup visible)
        message, finish = convert(text, cuts, mode=mode, parallel=False, extra_calls="content")
        names = [json.loads(call["function"]["arguments"]).get("city") for call in message["tool_calls"]]
        if mode == "validated":  # (the first complete and valid call: Paris; the broken one before is text)
            assert names == ["Paris"] and MISSING_CITY in message["content"] and LIMA in message["content"]
        else:  # (the first that starts, though it then fails)
            assert len(names) == 1 and PARIS in message["content"] and LIMA in message["content"]
        assert finish == "tool_calls"
        # (by default the later calls are dropped: neither run nor shown)
        message, finish = convert(text, cuts, mode=mode, parallel=False)
        names = [json.loads(call["function"]["arguments"]).get("city") for call in message["tool_calls"]]
        content = message.get("content") or ""
        assert len(names) == 1 and PARIS not in content and LIMA not in content and finish == "tool_calls"
        if mode == "validated":  # (a broken call before the first delivered one stays on_error's)
            assert names == ["Paris"] and MISSING_CITY in content
    dropped, _ = convert(text, [], parallel=False, on_error="drop")
    assert [c["function"]["name"] for c in dropped["tool_calls"]] == ["get_weather"]
    assert PARIS not in (dropped.get("content") or "") and LIMA not in (dropped.get("content") or "")


def test_parallel_tool_calls_false_through_wrap_and_the_proxy_streamed_or_not() -> None:
    text = PARIS + "\n" + LIMA
    with fake_upstream(Reply(text, size=4), Reply(text, size=4), Reply(text), Reply(text)) as upstream:
        client = wrap(sdk(upstream.url))
        for stream in (False, True):
            request: dict[str, Any] = {
                "model": "m",
                "messages": ASK,
                "tools": TOOLS,
                "parallel_tool_calls": False,
            }
            if stream:
                message, _ = message_of(list(client.chat.completions.create(**request, stream=True)))
            else:
                message = client.chat.completions.create(**request).choices[0].message
            assert calls_in(message) == [("get_weather", {"city": "Paris", "days": 2})]
        assert "parallel_tool_calls" not in upstream.requests[-1]  # (a text-only endpoint never sees it)
        with running(create_app(upstream.url)) as proxy:
            via_proxy = sdk(proxy + "/v1")
            for stream in (False, True):
                request = {"model": "m", "messages": ASK, "tools": TOOLS, "parallel_tool_calls": False}
                if stream:
                    message, _ = message_of(list(via_proxy.chat.completions.create(**request, stream=True)))
                else:
                    message = via_proxy.chat.completions.create(**request).choices[0].message
                assert calls_in(message) == [("get_weather", {"city": "Paris", "days": 2})]


def test_parallel_tool_calls_must_be_a_boolean() -> None:
    with pytest.raises(InvalidRequestError, match="parallel_tool_calls") as caught:
        prepare_request(ASK, TOOLS, parallel_tool_calls="no")  # type: ignore[arg-type]
    assert caught.value.code == "invalid_parallel_tool_calls"
    assert prepare_request(ASK, TOOLS).parallel_tool_calls is True
    with pytest.raises(ValueError, match="parallel"):
        ChoiceStream(StreamParser("hermes"), parallel=None)  # type: ignore[arg-type]
    assert CompletionStream(lambda: StreamParser("hermes"), parallel=False) is not None


# -- routes by model: toolparse serve --config ---------------------------------------------------

CODER = (
    "Rome, then.</think>\n\n"
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>"
)


def test_requests_are_routed_by_model_with_each_routes_grammar_options_and_key(tmp_path: Any) -> None:
    with fake_upstream(Reply(PARIS), Reply(BROKEN)) as plain, fake_upstream(Reply(CODER, size=5)) as coder:
        config = tmp_path / "routes.toml"
        config.write_text(
            f'[default]\nupstream = "{plain.url}"\nmode = "progressive"\n\n'
            f'[models."qwen3-coder"]\nupstream = "{coder.url}"\ngrammar = "qwen3-coder"\n'
            f'reasoning = "think-open"\nupstream_model = "Qwen/Qwen3-Coder-30B"\napi_key_env = "CODER_KEY"\n'
        )
        router = Router.from_toml(str(config), environ={"CODER_KEY": "sk-coder"})
        with running(create_app(router)) as proxy:
            client = sdk(proxy + "/v1")
            routed = client.chat.completions.create(model="qwen3-coder", messages=ASK, tools=TOOLS)
            assert calls_in(routed.choices[0].message) == [("get_weather", {"city": "Rome"})]
            assert routed.choices[0].message.model_extra["reasoning_content"] == "Rome, then."  # (think-open)
            sent = coder.requests[-1]
            assert sent["model"] == "Qwen/Qwen3-Coder-30B" and "<function=" in sent["messages"][0]["content"]
            assert coder.headers[-1]["authorization"] == "Bearer sk-coder"
            other = client.chat.completions.create(model="anything-else", messages=ASK, tools=TOOLS)
            assert calls_in(other.choices[0].message) == [("get_weather", {"city": "Paris", "days": 2})]
            assert plain.requests[-1]["model"] == "anything-else"
            assert plain.headers[-1].get("authorization") != "Bearer sk-coder"  # (the client's own)
            assert [model.id for model in client.models.list().data] == ["qwen3-coder"]


def test_a_model_no_route_names_is_a_404_and_a_bad_config_is_named(tmp_path: Any) -> None:
    with fake_upstream(Reply(PARIS)) as upstream:
        router = Router.from_dict({"models": {"a": {"upstream": upstream.url}}})
        with running(create_app(router)) as proxy:
            client = sdk(proxy + "/v1")
            with pytest.raises(openai.NotFoundError, match="no route for the model 'b'"):
                client.chat.completions.create(model="b", messages=ASK)
    bad: list[tuple[dict[str, Any], str]] = [
        ({"models": {"a": {"upstream": "x"}}}, "upstream must be an http"),
        ({"models": {"a": {"upstream": "http://h/v1", "grammer": "hermes"}}}, "unknown key.*grammer"),
        ({"models": {"a": {"upstream": "http://h/v1", "mode": "fast"}}}, "models.a: mode must be"),
        ({"models": {"a": {"upstream": "http://h/v1", "api_key_env": "NOPE"}}}, "NOPE"),
        ({"routes": {}}, "unknown table"),
        ({}, "no route"),
    ]
    for data, message in bad:
        with pytest.raises(ToolparseError, match=message):
            Router.from_dict(data, environ={})
    broken = tmp_path / "broken.toml"
    broken.write_text("[default\n")
    with pytest.raises(ToolparseError, match="not valid TOML"):
        Router.from_toml(str(broken))
    with pytest.raises(ToolparseError, match="calling and api_key come from each route"):
        create_app(Router.single("http://h/v1"), api_key="k")


def test_serve_takes_upstream_or_config_and_refuses_route_flags_with_config(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolparse.cli import main

    config = tmp_path / "routes.toml"
    config.write_text('[default]\nupstream = "http://127.0.0.1:9/v1"\n')
    for argv, message in (
        (["serve"], "--upstream URL or --config FILE"),
        (["serve", "--upstream", "http://h/v1", "--config", str(config)], "one of them"),
        (["serve", "--config", str(config), "--grammar", "glm"], "set --grammar in the config"),
    ):
        assert main(argv) == 2  # (a usage error, said on stderr)
        assert message in capsys.readouterr().err


# -- on_error="call": a failed call reaches the client as a call, marked ---------------------------

UNKNOWN = '<tool_call>{"name": "get_time", "arguments": {"zone": "UTC"}}</tool_call>'


@pytest.mark.parametrize("mode", ["validated", "progressive"])
def test_on_error_call_delivers_failed_calls_as_marked_calls_streamed_or_whole(mode: str) -> None:
    text = "A " + UNKNOWN + MISSING_CITY + BROKEN
    whole_message, finish = whole(text, on_error="call")
    expected = [
        ("get_time", '{"zone":"UTC"}', "unknown_tool"),
        ("get_weather", '{"days":2}', "invalid_arguments"),
        ("get_weather", BROKEN, "unclosed"),
    ]
    got = [
        (c["function"]["name"], c["function"]["arguments"], c["toolparse"]["error"])
        for c in whole_message["tool_calls"]
    ]
    assert [g[:2] for g in got] == [e[:2] for e in expected] and finish == "tool_calls"
    assert all(g[2] for g in got) and got[0][2] == "unknown_tool" and got[1][2] == "invalid_arguments"
    assert whole_message["content"] == "A"
    streamed, _ = convert(text, list(range(0, len(text), 6)), on_error="call", mode=mode)
    names = [c["function"]["name"] for c in streamed["tool_calls"]]
    assert names == ["get_time", "get_weather", "get_weather"]
    nameless, _ = whole("<tool_call>{oops}</tool_call>", on_error="call")
    assert "tool_calls" not in nameless and nameless["content"] == "<tool_call>{oops}</tool_call>"
    one, _ = convert(  # (one call: the rest is text, where extra calls are kept)
        PARIS + UNKNOWN, [], on_error="call", parallel=False, extra_calls="content"
    )
    assert len(one["tool_calls"]) == 1 and UNKNOWN in one["content"]


def test_on_error_call_through_wrap_reaches_the_sdk_with_its_marker() -> None:
    with fake_upstream(Reply(UNKNOWN, size=5)) as upstream:
        client = wrap(sdk(upstream.url), on_error="call")
        message = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS).choices[0].message
        call = message.tool_calls[0]
        assert (call.function.name, json.loads(call.function.arguments)) == ("get_time", {"zone": "UTC"})
        assert call.model_extra["toolparse"]["error"] == "unknown_tool"
        chunks = list(client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True))
        streamed, finish = message_of(chunks)
        assert [c["function"]["name"] for c in streamed["tool_calls"]] == [
            "get_time"
        ] and finish == "tool_calls"
