"""Demo tool-parser plugin (stands in for toolparse.integrations.vllm until
that exists): registers vLLM's own Hermes parser under "demo-hermes" so the
`vllm serve --tool-parser-plugin` path can be exercised end to end."""

from vllm.tool_parsers import ToolParserManager
from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser


@ToolParserManager.register_module("demo-hermes")
class DemoHermesParser(Hermes2ProToolParser):
    pass
