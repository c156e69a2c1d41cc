"""`vllm` CLI entry point with the CPU stand-ins installed first.

  python vllm_cli.py serve Qwen/Qwen3-32B --enable-auto-tool-choice \\
      --tool-parser-plugin toolparse.integrations.vllm --tool-call-parser toolparse-hermes

Runs vLLM's real argument parsing (make_arg_parser), plugin import
(init_parser_plugin) and validation (validate_api_server_args), then engine
start-up, which stops where a GPU / real model is needed.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vllm_standins as standins

standins.install()

from vllm.entrypoints.cli.main import main  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = "vllm"
    sys.exit(main())
