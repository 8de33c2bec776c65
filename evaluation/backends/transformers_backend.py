"""``transformers``: a Hugging Face causal language model run in-process with PyTorch.

The contract (see ``base.Backend``):

- ``spec.model`` is a local folder, a hub id (offline, it must already be in the cache) or a
  ``.gguf`` file; ``settings["gguf_file"]`` names a GGUF file inside the folder (or hub repo),
  which transformers de-quantizes on load.
- Settings: ``gguf_file``, ``revision``, ``batch_size`` (16), ``prefix_cache`` (true),
  ``dtype`` (``auto``: float32 on CPU, bfloat16 on CUDA when supported, else float16),
  ``device`` (``auto``: CUDA when available), ``attention`` (``auto``: on a CPU torch's fused
  kernel taking grouped key/value heads even with a padding mask, ``attention.GROUPED_SDPA``;
  on CUDA the model's default; or ``eager``, ``sdpa``), ``trust_remote_code`` (false).
  ``check`` validates them without importing torch.
- The tokenizer and the model are loaded lazily, on the first ``generate`` or ``load``
  (``render_prompt`` loads only the tokenizer); ``close`` frees them. A local GGUF file is
  de-quantized once into a cached safetensors copy (``model_files.ensure_safetensors``),
  which later loads read; the tokenizer reads the copy once it exists.
- A prompt is rendered with the tokenizer's chat template (one user message, generation
  prompt added) when it has one, else used raw. Requests are sorted by prompt length
  (longest first) and generated in left-padded batches (with the attention mask, a batch
  gives what one-at-a-time generation gives); results are yielded batch by batch.
- Prompts that share a long token prefix (MAFALDA: the definitions, the whole text and the
  labels; only the sentence differs) are grouped (``prefix_groups``): the prefix runs once,
  its ``DynamicCache`` is copied for each batch of members (padded between prefix and
  rest), and only the rest of each prompt runs with it; greedy outputs stay those of
  one-at-a-time generation. On a CPU too a batch pays: a decoding step of 5 rows over a
  ~1,000-token cache cost about 2x one row's (SmolLM2-135M, one thread, 2-core AMD EPYC).
  Setting ``prefix_cache: false`` turns this off.
- Decoding: greedy when ``params.greedy``, else sampling with ``temperature`` and ``top_p``
  (no top-k), ``torch.manual_seed(seed)`` before each batch; the model's own sampling
  defaults are not used. Only new tokens are decoded, up to the first end-of-sequence token.
- ``guided`` requests with labels are answered by scoring, not sampling: the label whose
  tokens followed by an end-of-sequence token have the highest log-likelihood after the
  prompt, i.e. the most likely complete answer among the labels (exact; one prompt pass,
  its KV cache copied for each label). A guided request without labels is generated freely.

torch and transformers are imported inside methods only: the web process imports this
module to call ``check`` and must not pay for (or need) them.
"""

from __future__ import annotations

import copy
import gc
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

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
    render_chat,
)
from evaluation.backends.prefixes import prefix_groups

DEFAULT_BATCH_SIZE = 16
DTYPES = ("auto", "float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")
ATTENTIONS = ("auto", "eager", "sdpa")


def _looks_like_path(model: str) -> bool:
    """A local path rather than a hub id (``org/name`` has exactly one slash)."""
    if model.startswith(("/", "./", "../", "~")) or model in (".", ".."):
        return True
    if os.sep != "/" and os.sep in model:
        return True
    return model.count("/") > 1 or model.endswith(".gguf")


def _version(text: str) -> tuple[int, ...]:
    """``(major, minor)`` of a version string such as ``4.56.1`` or ``5.0.0rc1``."""
    return tuple(int(re.match(r"\d*", part).group() or 0) for part in text.split(".")[:2])


def _split_model(spec: ModelSpec) -> tuple[str, str | None]:
    """(folder or hub id, GGUF file name or None); a ``.gguf`` file as model is split."""
    model = os.path.expanduser(spec.model)
    gguf_file = spec.settings.get("gguf_file") or None
    path = Path(model)
    if gguf_file is None and path.suffix == ".gguf" and path.is_file():
        return str(path.parent), path.name
    return model, gguf_file


class TransformersBackend(Backend):
    """Batched generation with a transformers causal LM (see the module docstring)."""

    name = "transformers"
    settings_keys: ClassVar[frozenset[str]] = frozenset(
        {
            "gguf_file",
            "revision",
            "batch_size",
            "prefix_cache",
            "dtype",
            "device",
            "attention",
            "trust_remote_code",
        }
    )

    def __init__(self, spec: ModelSpec, params: GenerationParams) -> None:
        super().__init__(spec, params)
        problems = self.check(spec)
        if problems:
            raise BackendError("; ".join(str(problem) for problem in problems))
        settings = spec.settings
        self.batch_size: int = int(settings.get("batch_size") or DEFAULT_BATCH_SIZE)
        self.prefix_cache: bool = settings.get("prefix_cache", True) is not False
        #: a shared-prefix group's members in padded batches (else one at a time)
        self.batch_groups: bool = True
        self.model_ref, self.gguf_file = _split_model(spec)
        self._tokenizer: Any = None
        self._model: Any = None
        self._device: str | None = None
        self._dtype: Any = None
        self._loaded_from: str | None = None

    # -- launch-time checks (no torch) -------------------------------------------------

    @classmethod
    def check(cls, spec: ModelSpec) -> list[SettingProblem]:
        problems = super().check(spec)
        settings = spec.settings
        if not isinstance(spec.model, str) or not spec.model.strip():
            problems.append(SettingProblem("model", "a model path or hub id is required"))
            return problems
        model = os.path.expanduser(spec.model)
        if _looks_like_path(spec.model) and not os.path.exists(model):
            problems.append(SettingProblem("model", f"no such file or folder: {spec.model}"))

        gguf_file = settings.get("gguf_file")
        if gguf_file is not None:
            if not isinstance(gguf_file, str) or not gguf_file.strip():
                problems.append(SettingProblem("settings.gguf_file", "must be a file name"))
            elif os.path.isdir(model) and not os.path.isfile(os.path.join(model, gguf_file)):
                problems.append(
                    SettingProblem(
                        "settings.gguf_file", f"no such file in {spec.model}: {gguf_file}"
                    )
                )
            elif os.path.isfile(model):
                problems.append(
                    SettingProblem("settings.gguf_file", "model must be a folder with gguf_file")
                )
        elif os.path.isfile(model) and not model.endswith(".gguf"):
            problems.append(
                SettingProblem("model", f"a file must be a .gguf file, not {spec.model}")
            )

        revision = settings.get("revision")
        if revision is not None and (not isinstance(revision, str) or not revision.strip()):
            problems.append(SettingProblem("settings.revision", "must be a non-empty string"))

        batch_size = settings.get("batch_size")
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
        ):
            problems.append(
                SettingProblem(
                    "settings.batch_size", f"must be a positive integer, not {batch_size!r}"
                )
            )
        for key, choices in (("dtype", DTYPES), ("device", DEVICES), ("attention", ATTENTIONS)):
            value = settings.get(key)
            if value is not None and value not in choices:
                problems.append(
                    SettingProblem(
                        f"settings.{key}", f"{value!r} is not one of {', '.join(choices)}"
                    )
                )
        for key in ("trust_remote_code", "prefix_cache"):
            value = settings.get(key)
            if value is not None and not isinstance(value, bool):
                problems.append(SettingProblem(f"settings.{key}", "must be true or false"))
        return problems

    # -- loading -----------------------------------------------------------------------

    def _local_gguf(self) -> Path | None:
        """The GGUF file when the model is a local one (a hub GGUF is not copied)."""
        if not self.gguf_file:
            return None
        path = Path(self.model_ref) / self.gguf_file
        return path if path.is_file() else None

    def _source(self, *, make_copy: bool) -> tuple[str, dict[str, Any]]:
        """Where to load from, with the loading arguments: the safetensors copy of a local
        GGUF file (made first when ``make_copy``, else used only once it exists), else the
        model itself."""
        kwargs: dict[str, Any] = {
            "trust_remote_code": bool(self.spec.settings.get("trust_remote_code", False))
        }
        gguf = self._local_gguf()
        if gguf is not None:
            from evaluation.backends import model_files

            copy_dir = model_files.default_copy_dir(gguf.parent, gguf.name)
            if make_copy or model_files.is_complete(copy_dir):
                try:
                    return str(model_files.ensure_safetensors(gguf.parent, gguf.name)), kwargs
                except OSError:  # no writable data folder: de-quantize in memory
                    pass
        if self.gguf_file:
            kwargs["gguf_file"] = self.gguf_file
        if self.spec.settings.get("revision"):
            kwargs["revision"] = self.spec.settings["revision"]
        return self.model_ref, kwargs

    @property
    def tokenizer(self) -> Any:
        """The tokenizer (loaded on first use), with a pad token (eos when it had none)."""
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            source, kwargs = self._source(make_copy=False)
            try:
                tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            except (OSError, ValueError) as error:
                raise BackendError(
                    f"cannot load the tokenizer of {self.spec.model}: {error}"
                ) from error
            if tokenizer.pad_token is None:
                if tokenizer.eos_token is not None:
                    tokenizer.pad_token = tokenizer.eos_token
                elif tokenizer.unk_token is not None:
                    tokenizer.pad_token = tokenizer.unk_token
            tokenizer.padding_side = "left"
            self._tokenizer = tokenizer
        return self._tokenizer

    def _resolve_device_and_dtype(self) -> tuple[str, Any]:
        import torch

        device = self.spec.settings.get("device") or "auto"
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cuda" and not torch.cuda.is_available():
            raise BackendError("settings.device: cuda asked for, but no CUDA device is available")
        dtype_name = self.spec.settings.get("dtype") or "auto"
        if dtype_name == "auto":
            if device == "cpu":
                dtype_name = "float32"
            else:
                dtype_name = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        return device, getattr(torch, dtype_name)

    @property
    def model(self) -> Any:
        """The model in eval mode on its device (loaded on first use)."""
        if self._model is None:
            import importlib.util

            import transformers
            from transformers import AutoModelForCausalLM

            device, dtype = self._resolve_device_and_dtype()
            source, kwargs = self._source(make_copy=True)
            # transformers 4.56 renamed torch_dtype to dtype (the old name is deprecated).
            kwargs["dtype" if _version(transformers.__version__) >= (4, 56) else "torch_dtype"] = (
                dtype
            )
            attention = self.spec.settings.get("attention") or "auto"
            if attention == "auto" and device == "cpu":
                from evaluation.backends import attention as grouped

                attention = grouped.register()
            if attention != "auto":
                kwargs["attn_implementation"] = attention
            use_device_map = device == "cuda" and importlib.util.find_spec("accelerate")
            if use_device_map:
                kwargs["device_map"] = "auto"
            try:
                model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
            except (OSError, ValueError) as error:
                raise BackendError(f"cannot load model {self.spec.model}: {error}") from error
            if not use_device_map:
                model = model.to(device)
            model.eval()
            self._device, self._dtype = device, dtype
            self._model, self._loaded_from = model, source
        return self._model

    def load(self) -> None:
        """Load the tokenizer and the model now (``generate`` would on first use)."""
        _ = self.model, self.tokenizer

    # -- prompts -----------------------------------------------------------------------

    def _render(self, prompt: str) -> tuple[str, bool]:
        return render_chat(self.tokenizer, prompt)

    def render_prompt(self, prompt: str) -> str:
        """The text the model sees: the chat template around one user message, when the
        tokenizer has a template, else the prompt itself."""
        return self._render(prompt)[0]

    def encode_prompt(self, prompt: str) -> list[int]:
        """Token ids of the rendered prompt. A chat template writes its own special tokens
        (as ``apply_chat_template`` does); a raw prompt gets the tokenizer's (e.g. BOS)."""
        rendered, templated = self._render(prompt)
        return list(self.tokenizer(rendered, add_special_tokens=not templated)["input_ids"])

    def _eos_ids(self) -> set[int]:
        ids: set[int] = set()
        for source in (getattr(self.model, "generation_config", None), self.model.config):
            value = getattr(source, "eos_token_id", None)
            if isinstance(value, int):
                ids.add(value)
            elif value:
                ids.update(int(item) for item in value)
        if self.tokenizer.eos_token_id is not None:
            ids.add(int(self.tokenizer.eos_token_id))
        return ids

    # -- generation --------------------------------------------------------------------

    def _generation_config(self) -> Any:
        """A fresh config from ``params`` (the model's own sampling defaults are not used)."""
        from transformers import GenerationConfig

        params = self.params
        model_config = getattr(self.model, "generation_config", None)
        eos = getattr(model_config, "eos_token_id", None)
        if eos is None:
            eos = self.tokenizer.eos_token_id
        values: dict[str, Any] = {
            "max_new_tokens": params.max_new_tokens,
            "num_beams": 1,
            "bos_token_id": getattr(model_config, "bos_token_id", None),
            "eos_token_id": eos,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if params.greedy:
            values["do_sample"] = False
        else:
            values.update(
                do_sample=True, temperature=params.temperature, top_p=params.top_p, top_k=0
            )
        return GenerationConfig(**values)

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        """Yield one list of results per batch: prompts sharing a long prefix by group (the
        prefix computed once), the others in length-sorted batches, then guided requests
        (label scoring) in groups of ``batch_size``."""
        import torch

        if not requests:
            return
        free = [request for request in requests if not (request.guided and request.labels)]
        guided = [request for request in requests if request.guided and request.labels]
        model = self.model
        # Set on the model (not passed to generate): newer transformers would otherwise fill
        # the fields a passed config leaves at their defaults from the model's own config.
        model.generation_config = self._generation_config()
        encoded = {request.key: self.encode_prompt(request.prompt) for request in free}
        groups = (
            prefix_groups([encoded[request.key] for request in free]) if self.prefix_cache else []
        )
        grouped = {index for _, members in groups for index in members}
        for prefix_length, members in groups:
            batches = self._generate_group(
                prefix_length, [(free[i].key, encoded[free[i].key]) for i in members]
            )
            yield from batches
        # Longest first: similar lengths share a batch (little padding), and a batch too big
        # for the device fails at the start of a run, not at its end.
        rest = [request for index, request in enumerate(free) if index not in grouped]
        order = sorted(rest, key=lambda request: -len(encoded[request.key]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            began = time.perf_counter()
            torch.manual_seed(self.params.seed)
            outputs = self._generate_batch([encoded[request.key] for request in batch])
            share = (time.perf_counter() - began) / len(batch)
            yield [
                GenerationResult(request.key, output, share)
                for request, output in zip(batch, outputs, strict=True)
            ]
        for start in range(0, len(guided), self.batch_size):
            batch = guided[start : start + self.batch_size]
            began = time.perf_counter()
            outputs = [self.choose_label(request.prompt, request.labels) for request in batch]
            share = (time.perf_counter() - began) / len(batch)
            yield [
                GenerationResult(request.key, output, share)
                for request, output in zip(batch, outputs, strict=True)
            ]

    def _generate_group(
        self, prefix_length: int, members: list[tuple[str, list[int]]]
    ) -> Iterator[list[GenerationResult]]:
        """Run the shared prefix once, then the members in batches, each on a copy of the
        prefix's cache; a batch's time includes the prefix for the first batch."""
        import torch
        from transformers import DynamicCache

        model = self.model
        device = model.get_input_embeddings().weight.device
        began = time.perf_counter()
        prefix = members[0][1][:prefix_length]
        try:
            empty = DynamicCache(config=model.config)  # transformers >= 4.56 asks for it
        except TypeError:
            empty = DynamicCache()
        with torch.inference_mode():
            cache = model(
                input_ids=torch.tensor([prefix], device=device),
                past_key_values=empty,
                use_cache=True,
                **self._logits_to_keep_kwarg(),
            ).past_key_values
        # Longest rest first, as for ordinary batches.
        members = sorted(members, key=lambda member: -len(member[1]))
        rows = self.batch_size if self.batch_groups else 1
        for start in range(0, len(members), rows):
            batch = members[start : start + rows]
            torch.manual_seed(self.params.seed)
            batch_cache = copy.deepcopy(cache)
            if len(batch) > 1:
                batch_cache.batch_repeat_interleave(len(batch))
            outputs = self._generate_batch(
                [ids for _, ids in batch], prefix_length=prefix_length, cache=batch_cache
            )
            share = (time.perf_counter() - began) / len(batch)
            yield [
                GenerationResult(key, output, share)
                for (key, _), output in zip(batch, outputs, strict=True)
            ]
            began = time.perf_counter()

    def _generate_batch(
        self, prompts: list[list[int]], *, prefix_length: int = 0, cache: Any = None
    ) -> list[str]:
        """Generate from token ids padded on the left of what follows their shared first
        ``prefix_length`` tokens (whose keys and values ``cache`` holds, for each row);
        decode only the new tokens."""
        import torch

        model, tokenizer = self.model, self.tokenizer
        width = max(len(ids) for ids in prompts)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        rows, masks = [], []
        for ids in prompts:
            padding = width - len(ids)
            rows.append(ids[:prefix_length] + [pad] * padding + ids[prefix_length:])
            masks.append([1] * prefix_length + [0] * padding + [1] * (len(ids) - prefix_length))
        device = model.get_input_embeddings().weight.device
        extra = {} if cache is None else {"past_key_values": cache}
        with torch.inference_mode():
            generated = model.generate(
                input_ids=torch.tensor(rows, device=device),
                attention_mask=torch.tensor(masks, device=device),
                **extra,
            )
        eos_ids = self._eos_ids()
        outputs = []
        for row in generated[:, width:].tolist():
            end = next((i for i, token in enumerate(row) if token in eos_ids), len(row))
            outputs.append(tokenizer.decode(row[:end], skip_special_tokens=True).strip())
        return outputs

    # -- guided: label scoring ---------------------------------------------------------

    def label_scores(self, prompt: str, labels: Sequence[str]) -> list[float]:
        """Log-probability that the model answers exactly each label: its tokens, then the
        end of the output (any of the model's end-of-sequence tokens, as generation stops
        at any of them).

        The prompt runs once; its KV cache is copied for each label's short pass. Labels are
        tokenized on their own and appended to the prompt's ids (as lm-eval does)."""
        import torch

        model, tokenizer = self.model, self.tokenizer
        eos_ids = sorted(self._eos_ids())
        device = model.get_input_embeddings().weight.device
        prompt_ids = torch.tensor([self.encode_prompt(prompt)], device=device)
        scores: list[float] = []
        with torch.inference_mode():
            out = model(input_ids=prompt_ids, use_cache=True, **self._logits_to_keep_kwarg())
            first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
            cache = out.past_key_values
            for index, label in enumerate(labels):
                ids = list(tokenizer(label, add_special_tokens=False)["input_ids"])
                if not ids:
                    scores.append(float("-inf"))
                    continue
                label_cache = cache if index == len(labels) - 1 else copy.deepcopy(cache)
                step = model(
                    input_ids=torch.tensor([ids], device=device),
                    past_key_values=label_cache,
                    use_cache=True,
                )
                logprobs = torch.log_softmax(step.logits[0].float(), dim=-1)
                score = first[ids[0]]
                if len(ids) > 1:
                    following = torch.tensor(ids[1:], device=logprobs.device)
                    score = score + logprobs[:-1].gather(1, following[:, None]).sum()
                if eos_ids:
                    score = score + torch.logsumexp(logprobs[-1, eos_ids], dim=0)
                scores.append(float(score))
        return scores

    def choose_label(self, prompt: str, labels: Sequence[str]) -> str:
        """The most likely label after the prompt (the first one on a tie)."""
        scores = self.label_scores(prompt, labels)
        return labels[max(range(len(labels)), key=scores.__getitem__)]

    def _logits_to_keep_kwarg(self) -> dict[str, int]:
        """Ask the forward pass for the last position's logits only, where supported
        (``logits_to_keep`` since transformers 4.50, ``num_logits_to_keep`` before)."""
        import inspect

        parameters = inspect.signature(self.model.forward).parameters
        for name in ("logits_to_keep", "num_logits_to_keep"):
            if name in parameters:
                return {name: 1}
        return {}

    # -- facts and release -------------------------------------------------------------

    def environment(self) -> dict[str, Any]:
        """Package versions (``backend_packages``: the runner's own ``packages`` stay), the
        device (GPU name, driver and CUDA versions, or ``cpu``), the dtype, and the parameter
        count once the model is loaded (``None`` before: this never loads the model)."""
        facts: dict[str, Any] = {
            "backend_packages": package_versions(
                "torch", "transformers", "accelerate", "gguf", "tokenizers"
            ),
            "gguf_file": self.gguf_file,
            "loaded_from": self._loaded_from,
            "batch_size": self.batch_size,
            "prefix_cache": self.prefix_cache,
            "attention": (
                getattr(self._model.config, "_attn_implementation", None)
                if self._model is not None
                else self.spec.settings.get("attention") or "auto"
            ),
        }
        try:
            device, dtype = (
                (self._device, self._dtype)
                if self._model is not None
                else self._resolve_device_and_dtype()
            )
        except BackendError as error:
            device, dtype = f"unavailable ({error})", None
        facts["device"] = _device_facts(device)
        facts["dtype"] = str(dtype).removeprefix("torch.") if dtype is not None else None
        facts["parameters"] = (
            int(sum(parameter.numel() for parameter in self._model.parameters()))
            if self._model is not None
            else None
        )
        return facts

    def close(self) -> None:
        """Drop the model and tokenizer and return their memory (CUDA cache included)."""
        on_cuda = self._device == "cuda"
        self._model = None
        self._tokenizer = None
        gc.collect()
        if on_cuda:
            import torch

            torch.cuda.empty_cache()


def _device_facts(device: str) -> str | dict[str, Any]:
    """``"cpu"``, or the CUDA device's name with the driver and CUDA versions."""
    if device != "cuda":
        return device
    return cuda_facts()
