# ruff: noqa: RUF001  (DeepSeek/Step markers use U+FF5C / U+2581 on purpose)
"""Stand-in tokenizer: a REAL Hugging Face fast tokenizer built locally.

The tests ask for hub tokenizers (Qwen/Qwen3-32B, deepseek-ai/DeepSeek-V3,
openai-community/gpt2, ...) which cannot be downloaded here.  Instead of
faking the tokenizer API, we build one small byte-level BPE tokenizer
(GPT-2/Qwen style: `tokenizers` + `transformers.TokenizersBackend`) and put
it into a private, offline Hugging Face cache under every model id the tests
use.  vLLM's real `get_tokenizer` / transformers' real
`AutoTokenizer.from_pretrained` then load it with HF_HUB_OFFLINE=1.

Vocabulary:
  * byte-level BPE (vocab ~4000) trained on the vLLM test sources themselves
    (pinned sdist => deterministic), so tokens are multi-character like real
    ones (e.g. 'Ġweather', '":'); every non-ASCII char of the corpus gets a
    whole-char token, so token-by-token decoding never yields '\\ufffd'.
  * MARKERS: the tool-call / reasoning markers that are single added tokens in
    the real model vocabularies (parsers look them up via get_vocab()).
  * CONTROL: real special tokens (skipped by skip_special_tokens=True).
One vocabulary serves all model ids ("universal" model).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

# non-special added tokens (kept by decode(skip_special_tokens=True), like
# Qwen's <tool_call>/<think>).  Grouped by model family.
MARKERS = [
    # Hermes / Qwen2.5 / Qwen3 / Qwen3-Coder
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<tool_response>",
    "</tool_response>",
    # DeepSeek V3 / V3.1 / R1
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    # Kimi K2
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_end|>",
    "<|tool_call_argument_begin|>",
    # GLM-4.5 / 4.7
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    # MiniMax M2
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    # Step3
    "<｜tool_calls_begin｜>",
    "<｜tool_calls_end｜>",
    "<｜tool_call_begin｜>",
    "<｜tool_call_end｜>",
    "<｜tool_sep｜>",
    # Hunyuan / Hy3 / ERNIE / Jamba / Olmo3 / LFM2 / Granite
    "<tool_calls>",
    "</tool_calls>",
    "<response>",
    "</response>",
    "<answer>",
    "</answer>",
    "<function_calls>",
    "</function_calls>",
    "<|tool_call_start|>",
    "<|tool_call_end|>",
    "<|tool_list_start|>",
    "<|tool_list_end|>",
    "<|tool_call|>",
    "<｜hy_Assistant｜>",
    "<｜hy_User｜>",
    "<｜reasoning_mode｜>",
    # Gemma 4
    "<|channel>",
    "<channel|>",
    "<|turn>",
    "<turn|>",
    "<|tool_call>",
    "<tool_call|>",
    "<|tool_response>",
    "<tool_response|>",
    '<|"|>',
]
# real special/control tokens (dropped by decode(skip_special_tokens=True))
CONTROL = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|python_tag|>",
    "<｜begin▁of▁sentence｜>",
    "<｜end▁of▁sentence｜>",
    "<｜hy_begin▁of▁sentence｜>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[THINK]",
    "[/THINK]",
    "<|user|>",
    "<|assistant|>",
    "<|system|>",
    "<|observation|>",
    "<|open|>",
    "<|close|>",
    "<|sep|>",
    "<bos>",
    "<eos>",
]
# model ids requested by tests/tool_parsers, tests/reasoning, tests/parser
MODEL_IDS = [
    "HCompany/Holo2-4B",
    "LiquidAI/LFM2.5-1.2B-Instruct",
    "MiniMaxAI/MiniMax-M2",
    "Qwen/Qwen3-0.6B",
    "Qwen/Qwen3-32B",
    "Qwen/Qwen3-4B-Thinking-2507",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8",
    "Qwen/Qwen3.5-397B-A17B",
    "Salesforce/Llama-xLAM-2-8B-fc-r",
    "ai21labs/Jamba-tiny-dev",
    "allenai/Olmo-3-7B-Think",
    "baidu/ERNIE-4.5-21B-A3B-Thinking",
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
    "deepseek-ai/DeepSeek-V3",
    "deepseek-ai/DeepSeek-V3.1",
    "facebook/opt-125m",
    "google/gemma-4-E2B-it",
    "ibm-granite/granite-3.1-8b-instruct",
    "ibm-granite/granite-4.0-h-tiny",
    "meta-llama/Llama-3.2-1B-Instruct",
    "moonshotai/Kimi-K2-Instruct",
    "moonshotai/Kimi-K2.5",
    "openai-community/gpt2",
    "openai/gpt-oss-20b",
    "stepfun-ai/Step-3.5-Flash",
    "stepfun-ai/step3",
    "tencent/Hunyuan-A13B-Instruct",
    "tencent/Hy3-preview",
    "zai-org/GLM-4.5",
    "zai-org/GLM-4.7",
    "gpt2",
]
# per-model deviations from the universal vocabulary (real vocab differs):
# Olmo-3 has no <think> token; its parser matches "</" "think" ">" pieces.
DROP_MARKERS = {"allenai/Olmo-3-7B-Think": {"<think>", "</think>"}}
FAKE_COMMIT = "0" * 40  # snapshot "revision" in the fake cache
# Qwen3-style ChatML template (tests/parser/test_parse.py relies on the empty
# "<think>\n\n</think>\n\n" block for enable_thinking=False and for assistant
# turns after the last user query, as in the real Qwen3 template).
CHAT_TEMPLATE = (
    "{%- set ns = namespace(last=-1) -%}"
    "{%- for m in messages %}{% if m.role == 'user' %}{% set ns.last = loop.index0 %}"
    "{% endif %}{% endfor -%}"
    "{%- for m in messages -%}"
    "{%- if m.role == 'tool' -%}<|im_start|>user\n<tool_response>\n{{ m.content }}"
    "\n</tool_response><|im_end|>\n"
    "{%- elif m.role == 'assistant' -%}<|im_start|>assistant\n"
    "{%- if loop.index0 > ns.last %}<think>\n{{ (m.reasoning_content or '') | trim }}"
    "\n</think>\n\n{% endif -%}{{ m.content or '' }}"
    '{%- for tc in (m.tool_calls or []) %}<tool_call>\n{"name": "{{ tc.function.name }}"'
    ', "arguments": {{ tc.function.arguments | tojson }}}\n</tool_call>{% endfor -%}'
    "<|im_end|>\n"
    "{%- else -%}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}"
    "<think>\n\n</think>\n\n{% endif %}{% endif -%}"
)


CORPUS_DIRS = ("tool_parsers", "reasoning", "parser")  # under the sdist tests/


def _corpus(test_root: Path) -> list[str]:
    files = sorted(p for d in CORPUS_DIRS for p in (test_root / d).rglob("*.py"))
    texts = [p.read_text(encoding="utf-8") for p in files]
    chars = sorted({c for t in texts for c in t if ord(c) > 127})
    # repeat each non-ASCII char so BPE merges its bytes into one token
    return texts + [c * 3 for c in chars for _ in range(20)]


VOCAB_SIZE = int(os.environ.get("TOOLPARSE_TOKENIZER_VOCAB", "4000"))
# longest punctuation run in one token: '"}}' + ']' rather than '"}}]' (real
# vocabularies split long runs; xLAM's streaming needs a token after '}}').
PUNCT_RUN = int(os.environ.get("TOOLPARSE_TOKENIZER_PUNCT_RUN", "3"))


def tokenizer_dir_name() -> str:
    # keyed on this file's content: editing MARKERS etc. rebuilds the tokenizer
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:10]
    return f"standin-tokenizer-v{VOCAB_SIZE}-p{PUNCT_RUN}-{digest}"


def build_tokenizer_dir(out_dir: Path, test_root: Path) -> Path:
    """Train the byte-level BPE and write an HF tokenizer folder (cached)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    out_dir = Path(out_dir)
    if (out_dir / "tokenizer.json").exists():
        return out_dir
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [  # GPT-2 regex, capped punct runs
            pre_tokenizers.Split(Regex(rf" ?[^\s\p{{L}}\p{{N}}]{{1,{PUNCT_RUN}}}"), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    corpus = _corpus(Path(test_root))
    assert corpus, f"no vLLM test sources under {test_root} (run env.sh)"
    tok.train_from_iterator(corpus, trainer=trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in CONTROL])
    markers = [t for t in dict.fromkeys(MARKERS) if t not in CONTROL]
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in markers])
    out_dir.mkdir(parents=True, exist_ok=True)
    tok.save(str(out_dir / "tokenizer.json"))
    (out_dir / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "TokenizersBackend",
                "eos_token": "<|endoftext|>",
                "pad_token": "<|endoftext|>",
                "unk_token": None,
                "bos_token": None,
                "add_bos_token": False,
                "model_max_length": 131072,
                "chat_template": CHAT_TEMPLATE,
                "clean_up_tokenization_spaces": False,
            },
            indent=1,
        )
    )
    # transformers' AutoTokenizer reads config.json too; a tiny GPT-2 config
    eos = tok.token_to_id("<|endoftext|>")
    (out_dir / "config.json").write_text(
        json.dumps(
            {
                "model_type": "gpt2",
                "bos_token_id": eos,
                "eos_token_id": eos,
                "architectures": ["GPT2LMHeadModel"],
                "vocab_size": tok.get_vocab_size(),
                "n_positions": 131072,
                "n_embd": 64,
                "n_layer": 1,
                "n_head": 1,
            },
            indent=1,
        )
    )
    return out_dir


def populate_hf_cache(hub_cache: Path, tok_dir: Path, model_ids=MODEL_IDS) -> None:
    """Make `tok_dir` appear as the hub snapshot of every model id (offline)."""
    extra = os.environ.get("TOOLPARSE_EXTRA_MODEL_IDS", "").split()
    for model_id in [*model_ids, *extra]:
        repo = Path(hub_cache) / ("models--" + model_id.replace("/", "--"))
        snap = repo / "snapshots" / FAKE_COMMIT
        snap.mkdir(parents=True, exist_ok=True)
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(FAKE_COMMIT)
        for name in ("tokenizer.json", "tokenizer_config.json", "config.json"):
            data = (Path(tok_dir) / name).read_bytes()
            if name == "tokenizer.json" and model_id in DROP_MARKERS:
                spec = json.loads(data)
                spec["added_tokens"] = [
                    t for t in spec["added_tokens"] if t["content"] not in DROP_MARKERS[model_id]
                ]
                data = json.dumps(spec, ensure_ascii=False).encode()
            if not (snap / name).exists() or (snap / name).read_bytes() != data:
                (snap / name).write_bytes(data)
