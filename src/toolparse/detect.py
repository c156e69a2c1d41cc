"""Which grammar a model writes: from its Hugging Face id, or from its chat template.

:func:`grammar_for_model` matches a model id against :data:`FAMILIES`, patterns
of families and versions (``qwen3-coder``, ``deepseek-v3.1``, ``glm-4.[5-7]``),
not a list of ids: a fine-tune or a quantisation that keeps the family's name
(``unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF``) is found too.
:func:`grammar_for_template` reads a Jinja chat template's text for what it
renders for an assistant's tool call (:data:`SIGNATURES`: literal markers
such as ``<minimax:tool_call>``) and for a thinking turn. Both say why they
chose (``reason``), and both give None when nothing matched: then
``grammar="auto"`` reads the stream. ``toolparse detect`` prints the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from toolparse.grammars import (
    apertus,
    deepseek,
    deepseek_dsml,
    gigachat35,
    k2_horizon,
    kimi,
    kimi_k3,
    lfm2,
    step3,
)


@dataclass(frozen=True, slots=True)
class Detection:
    """What a model writes, and why toolparse thinks so."""

    grammar: str
    """The grammar's name (:func:`toolparse.grammar_names`)."""
    reasoning: str
    """The ``reasoning`` preset (:mod:`toolparse.grammars.reasoning`)."""
    special_tokens: tuple[str, ...]
    """Markers that are special tokens of the model's tokenizer: the server must
    keep them (``skip_special_tokens=False``) for the parser to see calls."""
    reason: str
    """What matched: the family pattern, or the template's markers."""


@dataclass(frozen=True, slots=True)
class Family:
    """A model family (and version range) by its id, and what it writes."""

    pattern: str
    """A regex searched in the lower-cased model id."""
    name: str
    grammar: str
    reasoning: str = "auto"
    special_tokens: tuple[str, ...] = ()


_DEEPSEEK_TOKENS: Final = (deepseek.CALLS_BEGIN, deepseek.CALL_BEGIN, deepseek.SEP, deepseek.CALL_END)
_KIMI_TOKENS: Final = (kimi.SECTION_BEGIN, kimi.CALL_BEGIN, kimi.ARGUMENT_BEGIN)
_HARMONY_TOKENS: Final = ("<|channel|>", "<|message|>", "<|call|>", "<|start|>", "<|end|>")
_SEED_TOKENS: Final = ("<seed:tool_call>", "</seed:tool_call>", "<seed:think>", "</seed:think>")
_HY_TOKENS: Final = ("tool_calls", "tool_call", "arg_key", "arg_value")
_HY3_TOKENS: Final = (*(f"<{t}>" for t in _HY_TOKENS), "<tool_sep>")
_HY4_TOKENS: Final = tuple(f"<{t}:opensource>" for t in _HY_TOKENS)
_INTERNLM_TOKENS: Final = ("<|action_start|>", "<|plugin|>", "<|action_end|>")

_FUNCTIONGEMMA_TOKENS: Final = ("<start_function_call>", "<end_function_call>", "<escape>")
_COHERE_TOKENS: Final = ("<|START_ACTION|>", "<|END_ACTION|>", "<|START_THINKING|>", "<|END_THINKING|>")
_DSML_TOKENS: Final = (f"<{deepseek_dsml.DSML}", f"</{deepseek_dsml.DSML}")
_STEP3_TOKENS: Final = (step3.CALLS_BEGIN, step3.CALL_BEGIN, step3.SEP, step3.CALL_END, step3.CALLS_END)
_MUSE_TOKENS: Final = ("<|start|>", "<|message|>", "<|eom|>", "<|eot|>")
_IQUEST_TOKENS: Final = ("<iquest_tool_call>", "</iquest_tool_call>")

FAMILIES: list[Family] = [
    # (first match wins: the more specific families come first)
    Family(r"qwen3(?:\.\d+)?-coder", "Qwen3-Coder", "qwen3-coder"),
    # (Qwen3.5's template opens <think> in the prompt unless the request switches thinking off)
    Family(r"qwen3\.[5-9]", "Qwen3.5", "qwen3-coder", "think-open"),
    Family(r"qwen3-\S*thinking|qwq", "Qwen3 Thinking-2507, QwQ", "hermes", "think-open"),
    Family(r"qwen3|qwen2\.5|qwen-2\.5", "Qwen3, Qwen2.5", "hermes"),
    Family(r"hermes-?[234]|nous-?hermes", "Hermes 2 Pro, 3, 4", "hermes"),
    Family(r"deepseek-v3\.2", "DeepSeek V3.2", "deepseek-v3.2", "think-open", _DSML_TOKENS),
    Family(r"deepseek-v4\.1", "DeepSeek V4.1", "deepseek-v4.1", "think-open", _DSML_TOKENS),
    Family(r"deepseek-v4(?!\.[1-9])", "DeepSeek V4", "deepseek-v4", "think-open", _DSML_TOKENS),
    Family(r"step-?3(?:\.|p)?[57]", "Step-3.5, Step-3.7", "qwen3-coder", "think-open"),
    Family(r"stepfun-ai/step-?5", "Step-5", "qwen3-coder"),
    Family(r"(?:^|/)step-?3(?![.p]?\d)", "Step-3", "step3", "think-open", _STEP3_TOKENS),
    Family(r"dots[.-]?3", "dots3", "dots", "think-open"),
    Family(r"mimo-v2", "MiMo V2", "mimo"),
    Family(r"(?:^|/)ling-?3(?!\d)", "Ling 3", "glm"),
    Family(r"deepseek-r1", "DeepSeek-R1 (and its distills)", "deepseek", "think-open", _DEEPSEEK_TOKENS),
    Family(r"deepseek-v3(?!\.[2-9])", "DeepSeek V3, V3.1", "deepseek", "auto", _DEEPSEEK_TOKENS),
    Family(r"glm-4\.7", "GLM-4.7", "glm", "think-open"),
    Family(r"glm-4\.[56]|glm-4\.5-air", "GLM-4.5, 4.6", "glm"),
    Family(r"kimi-k2", "Kimi K2, K2 Thinking", "kimi", "auto", _KIMI_TOKENS),
    Family(r"minimax-m2", "MiniMax M2", "minimax", "think-open"),
    Family(r"gpt-oss", "gpt-oss", "gpt-oss", "auto", _HARMONY_TOKENS),
    Family(r"xlam", "xLAM-2", "xlam"),
    Family(r"firefunction", "FireFunction v2", "phi4-mini", "none"),
    Family(r"phi-?4-mini", "Phi-4-mini", "phi4-mini", "auto", ("functools",)),
    Family(r"llama-?4", "Llama 4", "pythonic", "none", ("<|python_start|>", "<|python_end|>")),
    # (Llama 3 fine-tunes that write their own calls: before the Llama 3 family, whose name they keep)
    Family(r"nemotron-(?:super|nano|ultra)", "NVIDIA Nemotron Super, Nano, Ultra (<TOOLCALL>)", "hermes"),
    Family(r"llama-?3-groq\S*tool-use", "Groq Llama 3 Tool Use (<tool_call>)", "hermes", "none"),
    Family(r"llama-?3\.[123]|llama-?3-", "Llama 3.1, 3.2, 3.3", "llama3-json", "none", ("<|python_tag|>",)),
    Family(r"magistral", "Magistral", "mistral", "magistral", ("[TOOL_CALLS]",)),
    Family(
        r"mistral|mixtral|ministral|devstral|codestral|pixtral",
        "Mistral, Mixtral, Ministral, Devstral, Codestral",
        "mistral",
        "none",
        ("[TOOL_CALLS]",),
    ),
    Family(r"functiongemma", "FunctionGemma", "functiongemma", "none", _FUNCTIONGEMMA_TOKENS),
    Family(r"gemma-?4", "Gemma 4", "gemma4", "auto", ("<|tool_call>", "<tool_call|>", '<|"|>')),
    Family(r"gemma-?[23]\b|gemma-?[23]-", "Gemma 2, 3", "fenced-json", "none"),
    Family(r"granite-?4", "Granite 4", "hermes"),
    Family(r"granite-20b-functioncalling", "Granite 20B function calling", "granite", "none"),
    Family(r"granite-?3", "Granite 3.0 to 3.3", "granite", "auto", ("<|tool_call|>",)),
    Family(r"c4ai-command-r-(?:v01|plus|08-2024)", "Command R, R+ (2024)", "command-r", "none"),
    Family(r"command-r7b|command-a", "Command R7B, Command A", "cohere", "auto", _COHERE_TOKENS),
    Family(r"nemotron", "NVIDIA Nemotron (<TOOLCALL>)", "hermes"),
    Family(r"olmo-?3\S*think", "Olmo 3 Think", "pythonic", "think-open"),
    Family(r"olmo-?3", "Olmo 3", "pythonic"),
    Family(r"lfm-?2", "LFM2, LFM2.5", "lfm2", "auto", (lfm2.CALL_START, lfm2.CALL_END)),
    Family(r"apertus", "Apertus", "apertus", "none", (apertus.PREFIX, apertus.SUFFIX)),
    Family(r"gigachat-?3\.5", "GigaChat 3.5", "gigachat3.5", "auto", (gigachat35.OPEN, gigachat35.CLOSE)),
    Family(r"gigachat-?3", "GigaChat 3, 3.1", "gigachat3", "auto", ("<|message_sep|>", "<|role_sep|>")),
    Family(r"kimi-k3", "Kimi K3", "kimi-k3", "kimi-k3", (kimi_k3.TOOLS_OPEN, kimi_k3.TOOLS_CLOSE)),
    Family(r"k2-horizon", "K2 Horizon (IFM K2-V3)", "k2-horizon", "k2-horizon", (k2_horizon.GROUP,)),
    Family(
        r"muse[-_.]?(?:spark|glimmer)", "Muse Spark, Glimmer", "muse", "auto", ("<|start|>", "<|message|>")
    ),
    Family(r"inkling", "Inkling", "inkling", "auto", ("<|message_model|>", "<|content_invoke_tool_json|>")),
    Family(r"(?:^|/)beam(?:[-_]|$)", "Beam", "beam", "auto", ("<|start|>", "<|channel|>", "<|call|>")),
    Family(r"plamo-?3", "PLaMo 3", "plamo3", "plamo-open"),
    Family(
        r"iquest-?q1", "IQuest Q1", "iquest-q1", "think-open", ("<iquest_tool_call>", "</iquest_tool_call>")
    ),
    Family(r"trinity", "Arcee Trinity", "hermes"),
    Family(r"spark-?x?2\.?5", "Spark 2.5", "glm"),
    Family(r"seed-oss", "ByteDance Seed-OSS", "seed-oss", "seed", _SEED_TOKENS),
    Family(r"hunyuan-a13b", "Hunyuan-A13B", "hunyuan-a13b", "hunyuan-a13b"),
    Family(r"(?:^|/)hy3\b", "Tencent Hy3", "hunyuan", "auto", _HY3_TOKENS),
    Family(r"(?:^|/)hy4\b", "Tencent Hy4", "hunyuan", "hy4-open", _HY4_TOKENS),
    Family(r"jamba", "AI21 Jamba", "hunyuan-a13b", "auto", ("<tool_calls>", "</tool_calls>")),
    Family(r"ernie-4\.5-\S*thinking", "ERNIE-4.5 Thinking", "hermes", "think-open"),
    Family(r"ernie-4\.5", "ERNIE-4.5", "hermes"),
    Family(
        r"intern-?s1|internlm[23]", "InternLM2 / 2.5 / 3, Intern-S1", "internlm", "auto", _INTERNLM_TOKENS
    ),
    Family(r"longcat", "Meituan LongCat", "longcat"),
    Family(r"minicpm-?5", "MiniCPM 5", "minicpm5"),
    Family(r"nanbeige", "Nanbeige 4.x", "qwen3-coder"),
    Family(r"laguna|poolside", "poolside Laguna", "glm"),
]
"""Model families by id, most specific first."""


@dataclass(frozen=True, slots=True)
class Signature:
    """Markers a chat template writes for an assistant's tool call."""

    markers: tuple[str, ...]
    """All of them appear in the template's text."""
    grammar: str
    special_tokens: tuple[str, ...] = ()
    reasoning: str | None = None
    """The reasoning preset, where the format's own markers decide it (None: read
    the template's thinking markers)."""


SIGNATURES: list[Signature] = [
    # (first match wins)
    Signature(("<|channel|>", "<|call|>"), "gpt-oss", _HARMONY_TOKENS),
    # (the DSML templates write the marker through a variable, <{{ dsml_token }}function_calls>,
    # and their generation prompt opens thinking through another, {{ thinking_start_token }}, by
    # default: DeepSeek's encoders do the same)
    Signature((deepseek_dsml.DSML, "function_calls>"), "deepseek-v3.2", _DSML_TOKENS, reasoning="think-open"),
    Signature((deepseek_dsml.DSML, "tool_calls>"), "deepseek-v4", _DSML_TOKENS, reasoning="think-open"),
    Signature((deepseek_dsml.DSML, " calls>"), "deepseek-v4.1", _DSML_TOKENS, reasoning="think-open"),
    Signature(("<steptml:invoke",), "step3", _STEP3_TOKENS),
    Signature(("<dots_function_call>",), "dots"),
    Signature((deepseek.CALLS_BEGIN,), "deepseek", _DEEPSEEK_TOKENS),
    Signature(("<|tool_calls_section_begin|>",), "kimi", _KIMI_TOKENS),
    Signature(("<minimax:tool_call>",), "minimax"),
    Signature(("<iquest_tool_call>",), "iquest-q1"),
    Signature((k2_horizon.GROUP,), "k2-horizon", reasoning="k2-horizon"),
    Signature((gigachat35.OPEN,), "gigachat3.5"),
    Signature(("<|open|>", "<|sep|>", "<|close|>"), "kimi-k3", reasoning="kimi-k3"),
    Signature(("<atem:function_calls>",), "muse"),
    Signature(("<|content_invoke_tool_json|>",), "inkling"),
    Signature(("<rfl:parameter",), "beam"),
    Signature(("<|plamo:begin_tool_requests:plamo|>",), "plamo3"),
    Signature(("<seed:tool_call>",), "seed-oss", _SEED_TOKENS),
    Signature(("<tool_sep>",), "hunyuan", _HY3_TOKENS),
    Signature(("<tool_calls:opensource>",), "hunyuan", _HY4_TOKENS, reasoning="hy4-open"),
    Signature(("<tool_calls>[",), "hunyuan-a13b", reasoning="hunyuan-a13b"),
    Signature(("<|action_start|><|plugin|>",), "internlm", _INTERNLM_TOKENS),
    Signature(("<longcat_tool_call>",), "longcat"),
    Signature(('<function name="', '<param name="'), "minicpm5"),
    Signature(("<arg_key>", "<tool_call>"), "glm"),
    Signature(("<function=", "<parameter="), "qwen3-coder"),
    Signature(("[TOOL_CALLS]",), "mistral", ("[TOOL_CALLS]",)),
    Signature(("<|python_start|>",), "pythonic", ("<|python_start|>", "<|python_end|>")),
    Signature(("<|python_tag|>",), "llama3-json", ("<|python_tag|>",)),
    # (Meta's wording for JSON calls, with or without the tag: Llama 3.1, 3.2, 3.3, 4)
    Signature(('{"name": function name, "parameters": dictionary',), "llama3-json"),
    Signature(("[func_name1(",), "pythonic"),
    Signature(("<TOOLCALL>",), "hermes"),  # (NVIDIA Nemotron: a JSON array in <TOOLCALL>)
    Signature(("<|tool_call>call:",), "gemma4", ("<|tool_call>", "<tool_call|>"), reasoning="auto"),
    Signature(("<start_function_call>",), "functiongemma", _FUNCTIONGEMMA_TOKENS),
    Signature(("<|START_ACTION|>",), "cohere", _COHERE_TOKENS, reasoning="auto"),
    Signature(("Action:", "```json", '"tool_name"'), "command-r"),
    Signature(("functools[",), "phi4-mini"),
    Signature(("xLAM",), "xlam"),
    Signature(("<|function_call_library|>",), "granite"),
    Signature(("<|tool_call|>",), "granite", ("<|tool_call|>",)),
    Signature((lfm2.CALL_START,), "lfm2", (lfm2.CALL_START, lfm2.CALL_END)),
    Signature((apertus.PREFIX,), "apertus", (apertus.PREFIX, apertus.SUFFIX), reasoning="none"),
    Signature(("function call", "<|role_sep|>"), "gigachat3", ("<|message_sep|>", "<|role_sep|>")),
    Signature(("<function_calls>",), "pythonic"),  # (Olmo 3: call lines in <function_calls>)
    Signature(("<tool_call>",), "hermes"),
    Signature(("```tool_call",), "fenced-json"),
]
"""What chat templates render for a tool call, most specific first."""

# The thinking markers a template may write, and the presets they mean
# (the opener after the generation prompt: the prompt opens reasoning)
_THINKING: Final = (("<seed:think>", "seed"), ("[THINK]", "magistral"), ("<think>", "think"))
_GENERATION_PROMPT: Final = "add_generation_prompt"


def grammar_for_model(model: str) -> Detection | None:
    """The grammar and reasoning preset for a Hugging Face model id (or any name
    that keeps the family's: a local alias, a GGUF file); None if no family
    matches."""
    if not isinstance(model, str):
        raise TypeError(f"a model id must be a string, not {type(model).__name__}")
    lowered = model.lower()
    for family in FAMILIES:
        m = re.search(family.pattern, lowered)
        if m is not None:
            reason = f"{model!r} is {family.name} ({m.group()!r} matches /{family.pattern}/)"
            return Detection(family.grammar, family.reasoning, family.special_tokens, reason)
    return None


def grammar_for_template(chat_template: str) -> Detection | None:
    """The grammar and reasoning preset for a Jinja chat template's text, from
    the markers it renders for an assistant's tool call and for its thinking;
    None if it renders no call toolparse knows."""
    if not isinstance(chat_template, str):
        raise TypeError(f"a chat template must be a string, not {type(chat_template).__name__}")
    for signature in SIGNATURES:
        if all(marker in chat_template for marker in signature.markers):
            reasoning, why = _thinking(chat_template)
            if signature.reasoning is not None:
                reasoning, why = (
                    signature.reasoning,
                    f"its thinking is the format's own ({signature.reasoning})",
                )
            markers = " and ".join(map(repr, signature.markers))
            reason = f"the template writes {markers} for a tool call; {why}"
            return Detection(signature.grammar, reasoning, signature.special_tokens, reason)
    return None


def _thinking(template: str) -> tuple[str, str]:
    """(the reasoning preset, why) for a template's thinking markers."""
    start = template.rfind(_GENERATION_PROMPT)
    for marker, preset in _THINKING:
        if marker not in template:
            continue
        opened = start >= 0 and _opens(template[start:], marker)
        if opened and _closes_alone(template[start:], marker):
            # (DeepSeek V3.1: '</think>' unless the request switches thinking on, then '<think>';
            # the request's switch opens it, as serve and the vLLM plugin read it)
            name = "auto" if preset == "think" else preset
            return name, (
                f"its generation prompt closes {marker!r} by default and opens it when the request "
                "switches thinking on"
            )
        if opened:
            return f"{preset}-open" if preset != "magistral" else preset, (
                f"its generation prompt opens {marker!r}"
            )
        name = "auto" if preset == "think" else preset
        return name, f"it writes {marker!r} for thinking"
    return "auto", "no thinking markers"


def _closer(marker: str) -> str:
    return marker.replace("<", "</", 1) if marker.startswith("<") else marker.replace("[", "[/", 1)


def _closes_alone(generation_prompt: str, marker: str) -> bool:
    """The generation prompt writes the closer with no opener before it (a thought
    closed in the prompt, as DeepSeek V3.1 writes ``</think>`` for thinking off)."""
    close = _closer(marker)
    for m in re.finditer(re.escape(close), generation_prompt):
        before = generation_prompt[max(0, m.start() - 24) : m.start()]
        if marker not in before:
            return True
    return False


def _opens(generation_prompt: str, marker: str) -> bool:
    """The generation prompt writes ``marker`` not closed right away (Qwen3's
    ``<think>\\n\\n</think>`` turns thinking off; it does not open it)."""
    close = _closer(marker)
    for m in re.finditer(re.escape(marker), generation_prompt):
        after = generation_prompt[m.end() : m.end() + 24].replace("\\n", "").replace("\n", "").lstrip()
        if not after.startswith(close):
            return True
    return False
