"""Which upstream, grammar and options serve a request: the proxy's routes by ``model``.

``toolparse serve --config routes.toml`` reads a file such as::

    [default]                           # a model no route names (optional)
    upstream = "http://127.0.0.1:11434/v1"
    grammar = "hermes"

    [models."qwen3-coder"]              # requests with "model": "qwen3-coder"
    upstream = "http://127.0.0.1:8001/v1"
    grammar = "qwen3-coder"
    reasoning = "think-open"
    mode = "progressive"
    upstream_model = "Qwen/Qwen3-Coder-30B-A3B-Instruct"   # the name sent upstream
    api_key_env = "CODER_KEY"           # the upstream's key, from this variable

A route with no ``grammar`` reads its model's own format where
:func:`~toolparse.grammar_for_model` knows it (from ``upstream_model``, else
the route's name), and ``grammar="auto"`` otherwise (each request's
``model`` is tried first). A route takes ``upstream`` (required) and any of
``grammar``, ``reasoning``,
``mode``, ``on_error``, ``past_reasoning``, ``response_format``,
``reasoning_calls``, ``reasoning_field`` (``"both"``, ``"reasoning_content"``,
``"reasoning"``), ``extra_calls`` (``"drop"``, ``"content"``) (the options
of ``toolparse serve``), ``upstream_model`` and ``api_key_env``; anything else
is an error naming it. Sans-IO: nothing here opens a connection.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolparse.detect import grammar_for_model
from toolparse.errors import ToolparseError
from toolparse.openai.calling import ToolCalling

_CALLING_KEYS = (
    "grammar",
    "reasoning",
    "mode",
    "on_error",
    "past_reasoning",
    "response_format",
    "reasoning_calls",
    "reasoning_field",
    "extra_calls",
)
_ROUTE_KEYS = frozenset({"upstream", "upstream_model", "api_key_env", *_CALLING_KEYS})


class UnknownModelError(ToolparseError, LookupError):
    """A request's ``model`` that no route names, with no default route."""


@dataclass(frozen=True, slots=True)
class UpstreamRoute:
    """Where one model's requests go, and how their answers are read."""

    upstream: str
    """The upstream's base URL (ending in ``/v1``)."""
    calling: ToolCalling
    upstream_model: str | None = None
    """The model name sent upstream (None: the client's own)."""
    api_key: str | None = None
    """The key sent upstream (None: the client's own ``Authorization``)."""

    @property
    def base(self) -> str:
        return self.upstream.rstrip("/")


@dataclass(frozen=True, slots=True)
class Router:
    """The routes by model name, and the route for any other model."""

    models: Mapping[str, UpstreamRoute]
    default: UpstreamRoute | None = None

    @classmethod
    def single(cls, upstream: str, calling: ToolCalling | None = None, api_key: str | None = None) -> Router:
        """Every request to one upstream (``toolparse serve --upstream``)."""
        return cls({}, UpstreamRoute(upstream, calling or ToolCalling(), api_key=api_key))

    def all(self) -> list[UpstreamRoute]:
        """Every route, the default one included."""
        return [*self.models.values(), *([self.default] if self.default is not None else [])]

    def route_for(self, model: object) -> UpstreamRoute:
        """The route of a request's ``model``; :class:`UnknownModelError` if none."""
        if isinstance(model, str) and model in self.models:
            return self.models[model]
        if self.default is not None:
            return self.default
        names = ", ".join(sorted(self.models))
        raise UnknownModelError(f"no route for the model {model!r}; this proxy serves: {names}")

    @classmethod
    def from_toml(cls, path: str, *, environ: Mapping[str, str] | None = None) -> Router:
        """The routes of a TOML file (see the module docstring). Raises
        :class:`~toolparse.ToolparseError` saying what is wrong with it."""
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except OSError as exc:
            raise ToolparseError(f"cannot read the routes file {path!r}: {exc.strerror}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ToolparseError(f"the routes file {path!r} is not valid TOML: {exc}") from exc
        return cls.from_dict(data, source=path, environ=environ)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, source: str = "routes", environ: Mapping[str, str] | None = None
    ) -> Router:
        """The routes of a parsed configuration (``default`` and ``models`` tables)."""
        env = os.environ if environ is None else environ
        unknown = set(data) - {"default", "models"}
        if unknown:
            raise ToolparseError(
                f"{source}: unknown table(s) {', '.join(sorted(unknown))}; use default and models"
            )
        models = data.get("models", {})
        if not isinstance(models, Mapping):
            raise ToolparseError(f"{source}: models must be a table of routes")
        routes = {name: _route(f"{source}: models.{name}", spec, env, name) for name, spec in models.items()}
        default = _route(f"{source}: default", data["default"], env) if "default" in data else None
        if not routes and default is None:
            raise ToolparseError(f"{source}: no route (a default table, or models.NAME tables)")
        return cls(routes, default)


def _route(where: str, spec: object, env: Mapping[str, str], model: str | None = None) -> UpstreamRoute:
    if not isinstance(spec, Mapping):
        raise ToolparseError(f"{where} must be a table")
    unknown = set(spec) - _ROUTE_KEYS
    if unknown:
        takes = ", ".join(sorted(_ROUTE_KEYS))
        raise ToolparseError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; a route takes {takes}")
    upstream = spec.get("upstream")
    if not isinstance(upstream, str) or not upstream.startswith(("http://", "https://")):
        raise ToolparseError(f"{where}: upstream must be an http(s) URL, not {upstream!r}")
    upstream_model = spec.get("upstream_model")
    if upstream_model is not None and not isinstance(upstream_model, str):
        raise ToolparseError(f"{where}: upstream_model must be a string")
    api_key = None
    if "api_key_env" in spec:
        variable = spec["api_key_env"]
        if not isinstance(variable, str) or variable not in env:
            raise ToolparseError(f"{where}: the environment variable {variable!r} (api_key_env) is not set")
        api_key = env[variable]
    if type(spec.get("response_format", True)) is not bool:
        raise ToolparseError(f"{where}: response_format must be true or false")
    options = {key: spec[key] for key in _CALLING_KEYS if key in spec}
    named = upstream_model or model
    if "grammar" not in options and named is not None:  # (the model's own format, when it is known)
        found = grammar_for_model(named)
        if found is not None:
            options["grammar"] = found.grammar
            options.setdefault("reasoning", found.reasoning)
    try:
        calling = ToolCalling(**options)
    except (ToolparseError, TypeError, ValueError) as exc:
        raise ToolparseError(f"{where}: {exc}") from exc
    return UpstreamRoute(upstream, calling, upstream_model, api_key)
