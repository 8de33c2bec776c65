#!/usr/bin/env bash
# Evaluation throughput on a GPU node: the bench/eval_throughput.py measurement on CUDA.
#
#   bench/gpu_eval.sh --backend vllm|transformers [--model PATH] [--prompts N | --all-sentences]
#                     [any other bench/eval_throughput.py option, e.g. --load-format dummy,
#                      --tensor-parallel-size 2, --max-new-tokens 48]
#
# --backend vllm runs (c) the platform's vllm backend and (d) bare vllm.LLM.generate;
# --backend transformers runs (a) one prompt at a time and (b) the batched backend.
# The model defaults to the SmolLM2 safetensors copy (made under $FALLACY_DATA_DIR/models).
# Python: $PYTHON, else .venv/bin/python, else python3 (the GPU image has vLLM installed
# through the `gpu` extra: pip install ".[models,gpu]").
set -euo pipefail
cd "$(dirname "$0")/.."

backend=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend="${2:-}"; shift 2 ;;
    --backend=*) backend="${1#--backend=}"; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
case "$backend" in
  vllm) parts="c,d" ;;
  transformers) parts="a,b" ;;
  *) echo "usage: $0 --backend vllm|transformers [--model PATH] [--prompts N]" >&2; exit 2 ;;
esac

if [ -n "${PYTHON:-}" ]; then py="$PYTHON"
elif [ -x .venv/bin/python ]; then py=.venv/bin/python
else py=python3; fi

export PYTHONPATH="$PWD/platform:$PWD${PYTHONPATH:+:$PYTHONPATH}"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
fi
exec "$py" bench/eval_throughput.py --device cuda --only "$parts" "${args[@]}"
