"""``wrap()`` as a genuine ``openai`` client: every path the SDK sends a chat
completion by, and the frameworks that take an SDK client (instructor,
LangChain, pydantic-ai), each with the real package against a fake
text-only upstream (issue 27, items 1, 2 and 7)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import instructor
import openai
import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from servers import Reply, fake_upstream
from test_openai import ANSWER, ASK, PARIS, TOOLS, async_sdk, calls_in, message_of, sdk
from toolparse.openai import wrap

PARIS_CALL = [("get_weather", {"city": "Paris", "days": 2})]


class Weather(BaseModel):
    """The weather asked for."""

    city: str
    days: int


STRICT = [openai.pydantic_function_tool(Weather, name="get_weather")]
"""The tools of the SDK's parsing helpers (``.stream()``, ``.parse()``), which want them strict."""


def shaped(request: dict[str, Any]) -> bool:
    """The upstream got a request shaped by toolparse: no tool fields, the tools in the prompt."""
    return "tools" not in request and "get_weather" in request["messages"][0]["content"]


# -- every path of the SDK -----------------------------------------------------------------------


def test_the_wrapped_client_is_the_sdks_own_class_and_every_path_does_tool_calling() -> None:
    with fake_upstream(*[Reply(ANSWER, size=4)] * 8) as upstream:
        client = wrap(sdk(upstream.url))
        kind = type(client)
        assert kind is openai.OpenAI  # (a genuine client: what instructor and LangChain check)
        request: dict[str, Any] = {"model": "m", "messages": ASK, "tools": TOOLS}

        raw = client.chat.completions.with_raw_response.create(**request)  # (LangChain's path)
        assert calls_in(raw.parse().choices[0].message) == PARIS_CALL
        assert raw.headers["content-type"].startswith("application/json")

        with client.chat.completions.with_streaming_response.create(**request, stream=True) as response:
            lines = [line for line in response.iter_lines() if line.startswith("data: {")]
        deltas = [json.loads(line[6:])["choices"][0]["delta"] for line in lines]
        assert any("tool_calls" in delta for delta in deltas)

        for copy in (client.with_options(timeout=5), client.copy(max_retries=1)):
            assert calls_in(copy.chat.completions.create(**request).choices[0].message) == PARIS_CALL

        with client.chat.completions.stream(model="m", messages=ASK, tools=STRICT) as stream:
            final = stream.get_final_completion()  # (the .stream() helper)
        assert calls_in(final.choices[0].message) == PARIS_CALL

        parsed = client.chat.completions.parse(model="m", messages=ASK, tools=STRICT)
        arguments = parsed.choices[0].message.tool_calls[0].function.parsed_arguments
        assert arguments == Weather(city="Paris", days=2)

        assert all(shaped(sent) for sent in upstream.requests)
        assert client.models.list().data[0].id == "fake-model"  # (the rest passes through)
        client.close()


def test_the_async_client_every_path_under_asyncio_and_trio() -> None:
    async def scenario() -> None:
        with fake_upstream(*[Reply(ANSWER, size=4)] * 4) as upstream:
            client = wrap(async_sdk(upstream.url))
            kind = type(client)
            assert kind is openai.AsyncOpenAI
            request: dict[str, Any] = {"model": "m", "messages": ASK, "tools": TOOLS}
            raw = await client.chat.completions.with_raw_response.create(**request)
            assert calls_in(raw.parse().choices[0].message) == PARIS_CALL
            async with client.chat.completions.stream(model="m", messages=ASK, tools=STRICT) as stream:
                final = await stream.get_final_completion()
            assert calls_in(final.choices[0].message) == PARIS_CALL
            copy = client.with_options(timeout=5)
            chunks = [c async for c in await copy.chat.completions.create(**request, stream=True)]
            assert calls_in(message_of(chunks)[0]) == PARIS_CALL
            parsed = await client.chat.completions.parse(model="m", messages=ASK, tools=STRICT)
            assert parsed.choices[0].message.tool_calls[0].function.parsed_arguments == Weather(
                city="Paris", days=2
            )
            assert all(shaped(sent) for sent in upstream.requests)
            await client.close()

    anyio.run(scenario)
    anyio.run(scenario, backend="trio")


def test_wrapping_a_wrapped_client_replaces_its_options() -> None:
    with fake_upstream(Reply(PARIS), Reply(PARIS)) as upstream:
        once = wrap(sdk(upstream.url))
        twice = wrap(once, grammar="qwen3-coder")
        twice.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
        prompt = upstream.requests[-1]["messages"][0]["content"]
        assert "<function=" in prompt  # (qwen3-coder's form)
        assert twice._client._transport.inner is once._client._transport.inner  # (one transport, not two)


def test_a_request_toolparse_cannot_shape_is_a_bad_request_not_retried() -> None:
    with fake_upstream() as upstream:
        client = wrap(openai.OpenAI(base_url=upstream.url, api_key="k", max_retries=2))
        with pytest.raises(openai.BadRequestError, match="parallel_tool_calls"):
            client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, parallel_tool_calls="yes")
        assert upstream.requests == []


def test_an_upstream_error_reaches_the_sdk_as_it_would_unwrapped() -> None:
    with fake_upstream(Reply(status=404, body={"error": {"message": "no such model", "code": "nope"}})) as up:
        client = wrap(sdk(up.url))
        with pytest.raises(openai.NotFoundError, match="no such model"):
            client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)


# -- instructor ----------------------------------------------------------------------------------


def test_instructor_takes_the_wrapped_client() -> None:
    answer = '{"name": "Weather", "arguments": {"city": "Oslo", "days": 3}}'
    with fake_upstream(answer, answer) as upstream:
        client = instructor.from_openai(wrap(sdk(upstream.url)))
        weather = client.chat.completions.create(model="m", response_model=Weather, messages=ASK)
        assert weather.model_dump() == {"city": "Oslo", "days": 3}  # (instructor's subclass of Weather)
        sent = upstream.requests[-1]
        assert "tools" not in sent and sent["response_format"]["type"] == "json_schema"

        async def from_async() -> dict[str, Any]:
            aclient = instructor.from_openai(wrap(async_sdk(upstream.url)))
            result = await aclient.chat.completions.create(model="m", response_model=Weather, messages=ASK)
            return dict(result.model_dump())

        assert anyio.run(from_async) == {"city": "Oslo", "days": 3}


# -- LangChain -----------------------------------------------------------------------------------


@tool
def get_weather(city: str, days: int = 1) -> str:
    """Get the weather forecast for a city."""
    return f"21 C in {city}"


def langchain_model(url: str) -> ChatOpenAI:
    client, aclient = wrap(sdk(url)), wrap(async_sdk(url))
    return ChatOpenAI(
        model="m",
        api_key="k",  # type: ignore[arg-type]
        client=client.chat.completions,
        root_client=client,
        async_client=aclient.chat.completions,
        root_async_client=aclient,
    )


def test_langchain_bind_tools_invoke_stream_and_a_second_turn() -> None:
    with fake_upstream(Reply(ANSWER), Reply(ANSWER, size=3), "It is 21 C in Paris.") as upstream:
        llm = langchain_model(upstream.url).bind_tools([get_weather])
        message = llm.invoke("Weather in Paris?")
        assert [(c["name"], c["args"]) for c in message.tool_calls] == PARIS_CALL
        streamed: Any = None
        for chunk in llm.stream("Weather in Paris?"):
            streamed = chunk if streamed is None else streamed + chunk
        assert [(c["name"], c["args"]) for c in streamed.tool_calls] == PARIS_CALL
        call = message.tool_calls[0]
        history: list[Any] = [
            ("user", "Weather in Paris?"),
            message,
            ToolMessage("21 C", tool_call_id=call["id"]),
        ]
        assert llm.invoke(history).content == "It is 21 C in Paris."
        assert all(shaped(sent) for sent in upstream.requests)
        assert "<tool_call>" in upstream.requests[-1]["messages"][-2]["content"]  # (the past call, as text)


def test_langchain_async_and_structured_output() -> None:
    with fake_upstream(Reply(PARIS), '{"city": "Lima", "days": 1}') as upstream:
        model = langchain_model(upstream.url)
        message = anyio.run(model.bind_tools([get_weather]).ainvoke, "Weather in Paris?")
        assert [(c["name"], c["args"]) for c in message.tool_calls] == PARIS_CALL
        weather = model.with_structured_output(Weather).invoke("Weather in Lima?")  # (the .parse() path)
        assert weather == Weather(city="Lima", days=1)


# -- pydantic-ai ---------------------------------------------------------------------------------


def weather_agent(url: str, **options: Any) -> Agent[None, str]:
    model = OpenAIChatModel("m", provider=OpenAIProvider(openai_client=wrap(async_sdk(url), **options)))
    agent: Agent[None, str] = Agent(model)

    @agent.tool_plain
    def get_weather(city: str, days: int = 1) -> str:
        """Get the weather forecast for a city."""
        return f"21 C in {city}"

    return agent


def test_pydantic_ai_agent_runs_its_tool() -> None:
    with fake_upstream(Reply(ANSWER), "It is 21 C in Paris.") as upstream:
        result = weather_agent(upstream.url).run_sync("Weather in Paris?")
        assert result.output == "It is 21 C in Paris."
        assert "21 C in Paris" in json.dumps(upstream.requests[-1]["messages"])
        assert all(shaped(sent) for sent in upstream.requests)


def test_pydantic_ai_retries_an_unknown_tool_delivered_with_on_error_call() -> None:
    unknown = '<tool_call>{"name": "get_time", "arguments": {"zone": "UTC"}}</tool_call>'
    with fake_upstream(unknown, PARIS, "It is 21 C in Paris.") as upstream:
        result = weather_agent(upstream.url, on_error="call").run_sync("Weather in Paris?")
        assert result.output == "It is 21 C in Paris."
        retry = json.dumps(upstream.requests[1]["messages"])
        assert "get_time" in retry and "Unknown tool" in retry  # (pydantic-ai's own repair prompt)
    # the default (content): the markup is the answer, and no retry runs
    with fake_upstream(unknown) as upstream:
        assert weather_agent(upstream.url).run_sync("Weather in Paris?").output == unknown
        assert len(upstream.requests) == 1
