"""``grammar_for_model``, ``grammar_for_template`` and ``toolparse detect``.

The model ids are real Hugging Face ids (and the names local servers give the
same weights: GGUF repositories, Ollama tags); the templates are the models'
published chat templates, copied with their source in their first line
(``tests/fixtures/templates``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from toolparse import StreamParser, ToolCall, grammar_for_model, grammar_for_template
from toolparse.detect import FAMILIES, SIGNATURES
from toolparse.grammars import get_entry
from toolparse.grammars.reasoning import REASONING

TEMPLATES = Path(__file__).parent / "fixtures" / "templates"

# (model id, grammar, reasoning preset)
MODELS: list[tuple[str, str, str]] = [
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder", "auto"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3-coder", "auto"),
    ("unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF", "qwen3-coder", "auto"),
    ("Qwen/Qwen3.5-35B-A3B", "qwen3-coder", "think-open"),  # (its template opens <think>)
    ("Qwen/Qwen3-8B", "hermes", "auto"),
    ("qwen3:32b", "hermes", "auto"),  # (an Ollama tag)
    ("Qwen/Qwen3-235B-A22B-Thinking-2507", "hermes", "think-open"),
    ("Qwen/QwQ-32B", "hermes", "think-open"),
    ("Qwen/Qwen2.5-7B-Instruct", "hermes", "auto"),
    ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes", "auto"),
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek", "auto"),
    ("deepseek-ai/DeepSeek-V3.1", "deepseek", "auto"),
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek", "think-open"),
    ("zai-org/GLM-4.5-Air", "glm", "auto"),
    ("zai-org/GLM-4.6", "glm", "auto"),
    ("zai-org/GLM-4.7-FP8", "glm", "think-open"),
    ("moonshotai/Kimi-K2-Instruct-0905", "kimi", "auto"),
    ("moonshotai/Kimi-K2-Thinking", "kimi", "auto"),
    ("MiniMaxAI/MiniMax-M2", "minimax", "think-open"),
    ("openai/gpt-oss-120b", "gpt-oss", "auto"),
    ("gpt-oss:20b", "gpt-oss", "auto"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama3-json", "none"),
    ("meta-llama/Llama-3.3-70B-Instruct", "llama3-json", "none"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "pythonic", "none"),
    ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral", "none"),
    ("mistralai/Devstral-Small-2507", "mistral", "none"),
    ("mistralai/Magistral-Small-2509", "mistral", "magistral"),
    ("google/gemma-3-27b-it", "fenced-json", "none"),
    ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "hermes", "auto"),
    ("allenai/Olmo-3-7B-Instruct", "pythonic", "auto"),
    ("allenai/Olmo-3-7B-Think", "pythonic", "think-open"),
    ("LiquidAI/LFM2-1.2B", "lfm2", "auto"),
    ("LiquidAI/LFM2.5-1.2B-Instruct", "lfm2", "auto"),
    ("swiss-ai/Apertus-8B-Instruct-2509", "apertus", "none"),
    ("ai-sage/GigaChat3-10B-A1.8B", "gigachat3", "auto"),
    ("ai-sage/GigaChat3.5-10B", "gigachat3.5", "auto"),
    ("moonshotai/Kimi-K3", "kimi-k3", "kimi-k3"),
    ("IFM/K2-Horizon-7B", "k2-horizon", "k2-horizon"),
    ("pfnet/plamo-3-nict-31b-base", "plamo3", "plamo-open"),
    ("IQuestLab/IQuest-Q1-Instruct", "iquest-q1", "think-open"),
    ("arcee-ai/Trinity-Mini", "hermes", "auto"),
    ("google/gemma-4-31B-it", "gemma4", "auto"),
    ("google/functiongemma-270m-it", "functiongemma", "none"),
    ("ibm-granite/granite-3.3-8b-instruct", "granite", "auto"),
    ("ibm-granite/granite-20b-functioncalling", "granite", "none"),
    ("ibm-granite/granite-4.0-h-small", "hermes", "auto"),
    ("CohereLabs/c4ai-command-r7b-12-2024", "cohere", "auto"),
    ("CohereLabs/c4ai-command-a-03-2025", "cohere", "auto"),
    ("CohereForAI/c4ai-command-r-plus-08-2024", "command-r", "none"),
    ("microsoft/Phi-4-mini-instruct", "phi4-mini", "auto"),
    ("fireworks-ai/llama-3-firefunction-v2", "phi4-mini", "none"),
    ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam", "auto"),
    ("Salesforce/xLAM-2-32b-fc-r", "xlam", "auto"),
    ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v3.2", "think-open"),
    ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-v4", "think-open"),
    ("deepseek-ai/DeepSeek-V4.1", "deepseek-v4.1", "think-open"),
    ("stepfun-ai/step3", "step3", "think-open"),
    ("stepfun-ai/Step-3.5-Flash", "qwen3-coder", "think-open"),
    ("XiaomiMiMo/MiMo-V2-Flash", "mimo", "auto"),
    ("inclusionAI/Ling-3-flash", "glm", "auto"),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed-oss", "seed"),
    ("tencent/Hunyuan-A13B-Instruct", "hunyuan-a13b", "hunyuan-a13b"),
    ("tencent/Hy3-preview", "hunyuan", "auto"),
    ("tencent/Hy4-preview", "hunyuan", "hy4-open"),
    ("ai21labs/AI21-Jamba-Mini-1.7", "hunyuan-a13b", "auto"),
    ("baidu/ERNIE-4.5-21B-A3B-Thinking", "hermes", "think-open"),
    ("baidu/ERNIE-4.5-300B-A47B-PT", "hermes", "auto"),
    ("internlm/internlm2_5-7b-chat", "internlm", "auto"),
    ("internlm/Intern-S1", "internlm", "auto"),
    ("meituan-longcat/LongCat-Flash-Chat", "longcat", "auto"),
    ("openbmb/MiniCPM5-8B", "minicpm5", "auto"),
    ("Nanbeige/Nanbeige4.1-3B", "qwen3-coder", "auto"),
    ("poolside/Laguna-XS.2", "glm", "auto"),
]


@pytest.mark.parametrize(("model", "grammar", "reasoning"), MODELS, ids=[m for m, _, _ in MODELS])
def test_grammar_for_model(model: str, grammar: str, reasoning: str) -> None:
    found = grammar_for_model(model)
    assert found is not None, model
    assert (found.grammar, found.reasoning) == (grammar, reasoning), found.reason
    assert model in found.reason


def test_unknown_models_are_left_to_auto() -> None:
    assert grammar_for_model("my-own-finetune") is None
    assert grammar_for_template("{{ messages[0].content }}") is None
    with pytest.raises(TypeError):
        grammar_for_model(None)  # type: ignore[arg-type]


def test_every_family_and_signature_names_a_grammar_and_preset() -> None:
    for family in FAMILIES:
        get_entry(family.grammar)
        assert family.reasoning in REASONING, family
    for signature in SIGNATURES:
        get_entry(signature.grammar)


def test_the_detected_grammar_reads_its_own_rendered_call() -> None:
    """A family's grammar reads the call its own prompt side writes (the detection
    gives a grammar that exists, with its prompt)."""
    for model, _, _ in MODELS:
        found = grammar_for_model(model)
        assert found is not None
        prompt = get_entry(found.grammar).grammar.prompt
        text = prompt.render_call("get_weather", {"city": "Paris"})
        parser = StreamParser(found.grammar, seed=1)
        events = parser.feed(text) + parser.close()
        assert [e.name for e in events if isinstance(e, ToolCall)] == ["get_weather"], model


README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
_TABLE = README.split("<!-- models: ", 1)[1].split("\n\n", 1)[0]
README_ROWS = [
    [cell.strip() for cell in line.strip("|").split(" | ")]
    for line in _TABLE.splitlines()[3:]
    if line.startswith("| ")
]


@pytest.mark.parametrize("row", README_ROWS, ids=[r[0] for r in README_ROWS])
def test_the_readme_model_table(row: list[str]) -> None:
    """Every model id named in the README's table gives the grammar and reasoning it says."""
    _family, ids, grammar, reasoning = row[:4]
    for model in re.findall(r"`([^`]+)`", ids):
        found = grammar_for_model(model)
        assert found is not None, model
        assert (f"`{found.grammar}`", f"`{found.reasoning}`") == (grammar, reasoning), model


def test_the_readme_table_has_every_family() -> None:
    assert len(README_ROWS) == len(FAMILIES)


# -- chat templates -------------------------------------------------------------------------------

TEMPLATE_FILES = sorted(TEMPLATES.glob("*.jinja")) if TEMPLATES.is_dir() else []
# (file name -> grammar, reasoning preset), for every template saved in the fixtures
EXPECTED_TEMPLATES: dict[str, tuple[str, str] | None] = {
    "GLM-4.6.jinja": ("glm", "auto"),
    "glm_4_5.jinja": ("glm", "auto"),
    "NVIDIA-Nemotron-Nano-v2.jinja": ("hermes", "think-open"),  # (<TOOLCALL>[...]</TOOLCALL>)
    "nvidia-Llama-3_3-Nemotron-Super-49B-v1_5.jinja": ("hermes", "auto"),
    "Qwen-Qwen3-0.6B.jinja": ("hermes", "auto"),
    "Qwen3-Coder.jinja": ("qwen3-coder", "auto"),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja": ("deepseek", "think-open"),
    # (its generation prompt closes the thought unless the request sets thinking: true, as by id)
    "deepseek-ai-DeepSeek-V3.1.jinja": ("deepseek", "auto"),
    "meta-llama-Llama-3.2-3B-Instruct.jinja": ("llama3-json", "auto"),
    "meta-llama-Llama-3.3-70B-Instruct.jinja": ("llama3-json", "auto"),
    "tool_chat_template_llama3.1_json.jinja": ("llama3-json", "auto"),
    "tool_chat_template_llama4_json.jinja": ("llama3-json", "auto"),
    "tool_chat_template_llama4_pythonic.jinja": ("pythonic", "auto"),
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": ("mistral", "auto"),
    "mistralai-Mistral-Small-3.1-24B-Instruct-2503.jinja": ("mistral", "auto"),
    "moonshotai-Kimi-K2-Thinking.jinja": ("kimi", "auto"),
    "moonshotai-Kimi-K2.jinja": None,  # (llama.cpp's simplified copy renders no tool call)
    "openai-gpt-oss-120b.jinja": ("gpt-oss", "auto"),
    "tool_chat_template_hermes.jinja": ("hermes", "auto"),
    "unsloth-MiniMax-M2.jinja": ("minimax", "think-open"),
    "GigaChat3-10B-A1.8B.excerpt.jinja": ("gigachat3", "auto"),
    "GigaChat3.5.excerpt.jinja": ("gigachat3.5", "think-open"),  # (its reasoning=True prompt)
    "Kimi-K3.jinja": ("kimi-k3", "kimi-k3"),
    "LFM2.5-8B-A1B.jinja": ("lfm2", "auto"),
    "llama-cpp-lfm2.jinja": ("lfm2", "auto"),
    "open-instruct-olmo.jinja": ("pythonic", "auto"),
    "vllm-tool_chat_template_apertus.jinja": ("apertus", "none"),
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": ("cohere", "auto"),
    "command_r_tool_chat_template.jinja": ("command-r", "auto"),
    "gemma4.jinja": ("gemma4", "auto"),
    "llama-cpp-microsoft-Phi-4-mini-instruct.jinja": ("granite", "auto"),  # (llama.cpp's: <|tool_call|>)
    "tool_chat_template_granite.jinja": ("granite", "auto"),
    "tool_chat_template_granite_20b_fc.jinja": ("granite", "auto"),
    "tool_chat_template_phi4_mini.jinja": ("phi4-mini", "auto"),
    "tool_chat_template_xlam_llama.jinja": ("xlam", "auto"),
    "tool_chat_template_xlam_qwen.jinja": ("xlam", "auto"),
    "DeepSeek-V3.2.jinja": ("deepseek-v3.2", "think-open"),  # (it opens <think> through a variable)
    "StepFun3.7-Flash.jinja": ("qwen3-coder", "think-open"),
    "ByteDance-Seed-OSS.jinja": ("seed-oss", "seed"),
    "vllm-tool_chat_template_hunyuan_a13b.jinja": ("hunyuan-a13b", "hunyuan-a13b"),
    "vllm-tool_chat_template_internlm2_tool.jinja": ("internlm", "auto"),
    # (its generation prompt writes <think> when enable_thinking is on, </think> when off, the
    # template's default: "auto", as by id; a request that switches thinking on opens it)
    "poolside-laguna_v2_chat_template.jinja": ("glm", "auto"),
}


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=[p.name for p in TEMPLATE_FILES])
def test_grammar_for_template(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("{# source: "), "a fixture template names its source in its first line"
    assert path.name in EXPECTED_TEMPLATES, f"{path.name}: say what it should give in EXPECTED_TEMPLATES"
    expected = EXPECTED_TEMPLATES[path.name]
    found = grammar_for_template(text)
    assert (None if found is None else (found.grammar, found.reasoning)) == expected


def test_thinking_opened_by_the_generation_prompt() -> None:
    qwen3 = (
        "{{ '<tool_call>' }}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
        "{%- if enable_thinking is defined and enable_thinking is false %}"
        "{{- '<think>\\n\\n</think>\\n\\n' }}"
        "{%- endif %}{%- endif %}"
    )
    found = grammar_for_template(qwen3)
    assert found is not None and (found.grammar, found.reasoning) == ("hermes", "auto")
    opening = "{%- else %}{{- '<think>\\n' }}{%- endif %}{%- endif %}"
    opened = qwen3.replace("{%- endif %}{%- endif %}", opening)
    found = grammar_for_template(opened)
    assert found is not None and found.reasoning == "think-open"


# -- the command -----------------------------------------------------------------------------------


def _detect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolparse.cli", "detect", *args], capture_output=True, text=True, check=False
    )


def test_detect_command(tmp_path: Path) -> None:
    result = _detect("zai-org/GLM-4.7")
    assert result.returncode == 0
    assert "grammar: glm" in result.stdout and "reasoning: think-open" in result.stdout
    assert "why: 'zai-org/GLM-4.7' is GLM-4.7" in result.stdout
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"chat_template": "{{ '<minimax:tool_call>' }}<think>"}))
    result = _detect("--json", str(config))
    assert result.returncode == 0
    assert json.loads(result.stdout)["grammar"] == "minimax"
    result = _detect("some/unknown-model")
    assert result.returncode == 1 and "grammar: auto" in result.stdout
