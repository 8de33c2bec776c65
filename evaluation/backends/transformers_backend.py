"""``transformers``: a Hugging Face causal language model run in-process with PyTorch.

The contract (see ``base.Backend``):

- ``spec.model`` is a local folder, a hub id (offline, it must already be in the cache) or a
  ``.gguf`` file; ``settings["gguf_file"]`` names a GGUF file inside the folder (or hub repo),
  which transformers de-quantizes on load.
- Settings: ``gguf_file``, ``revision``, ``batch_size`` (16; for shared-prefix windows
  64), ``prefix_cache`` (true),
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
  labels; only the sentence differs) are grouped (``prefix_groups``) and the prefix runs
  once. Greedy with the grouped attention (on a CPU by default), the groups decode through
  ``shared_prefix``: windows of ``batch_size`` rows (64 unless set) across texts, each
  prefix stored once, the start all prefixes share (the instructions) run once for the
  run, and prompts in no group join as groups of one. Otherwise (sampling, CUDA, another
  attention) each group's ``DynamicCache`` is copied for each batch of members (padded
  between prefix and rest). Either way greedy outputs stay those of one-at-a-time
  generation. Setting ``prefix_cache: false`` turns this off.
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

from evaluation.backends import transformers_settings
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
from evaluation.backends.prefixes import common_prefix, prefix_groups

DEFAULT_BATCH_SIZE = 16
DEFAULT_WINDOW_ROWS = 64


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
    tenant_settings = transformers_settings.TENANT_SETTINGS
    loads_model_files = True

    def __init__(self, spec: ModelSpec, params: GenerationParams) -> None:
        super().__init__(spec, params)
        problems = self.check(spec)
        if problems:
            raise BackendError("; ".join(str(problem) for problem in problems))
        settings = spec.settings
        self.batch_size: int = int(settings.get("batch_size") or DEFAULT_BATCH_SIZE)
        #: rows per shared-prefix window: the batch size when set, else more than a stock
        #: batch, as a window holds each prefix once
        self.window_rows: int = int(settings.get("batch_size") or DEFAULT_WINDOW_ROWS)
        self.prefix_cache: bool = settings.get("prefix_cache", True) is not False
        #: a shared-prefix group's members in padded batches (else one at a time)
        self.batch_groups: bool = True
        #: False once the model's attention turned out not to take shared prefixes
        self._shared_prefix_ok: bool | None = None
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
        return problems + transformers_settings.problems_of(spec)

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
        if groups and self._decodes_shared_prefixes():
            # Prompts in no group decode beside the groups too, as groups of one.
            groups += [
                (len(encoded[request.key]) - 1, [index])
                for index, request in enumerate(free)
                if index not in grouped and len(encoded[request.key]) > 1
            ]
            grouped = {index for _, members in groups for index in members}
            yield from self._generate_windows(
                [
                    (length, [(free[i].key, encoded[free[i].key]) for i in members])
                    for length, members in groups
                ]
            )
        for prefix_length, members in [] if self._shared_prefix_ok else groups:
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

    def _decodes_shared_prefixes(self) -> bool:
        """Whether groups decode through ``shared_prefix`` (greedy, with the registered
        grouped attention, whose function takes the shared prefixes)."""
        from evaluation.backends.attention import GROUPED_SDPA

        implementation = getattr(self.model.config, "_attn_implementation", None)
        self._shared_prefix_ok = (
            self._shared_prefix_ok is not False
            and self.params.greedy
            and self.batch_groups
            and implementation == GROUPED_SDPA
        )
        return self._shared_prefix_ok

    def _generate_windows(
        self, groups: list[tuple[int, list[tuple[str, list[int]]]]]
    ) -> Iterator[list[GenerationResult]]:
        """Decode the groups' members in windows of ``window_rows`` rows, several texts
        together, each prefix stored once (``shared_prefix``); a window's time is shared
        by its rows."""
        from transformers import DynamicCache

        from evaluation.backends import shared_prefix

        model, tokenizer = self.model, self.tokenizer
        decoder = shared_prefix.SharedPrefixDecoder(
            model,
            max_new_tokens=self.params.max_new_tokens,
            eos_ids=self._eos_ids(),
            pad_id=tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0,
            new_cache=lambda: DynamicCache(config=model.config),
            root=common_prefix(
                [ids[:length] for length, members in groups for _, ids in members[:1]]
            ),
        )
        try:
            for keys, generated, share in shared_prefix.decode_in_windows(
                decoder, groups, self.window_rows
            ):
                yield [
                    GenerationResult(key, self._decode_new_tokens(tokens), share)
                    for key, tokens in zip(keys, generated, strict=True)
                ]
        except shared_prefix.SharedPrefixUnsupported:
            # Found at the first decoding step, before any window is yielded: the groups
            # then go the stock way.
            self._shared_prefix_ok = False

    def _decode_new_tokens(self, tokens: list[int]) -> str:
        """The text of new tokens up to the first end-of-sequence token."""
        eos_ids = self._eos_ids()
        end = next((i for i, token in enumerate(tokens) if token in eos_ids), len(tokens))
        return self.tokenizer.decode(tokens[:end], skip_special_tokens=True).strip()

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
        return [self._decode_new_tokens(row) for row in generated[:, width:].tolist()]

    # -- guided: label scoring ---------------------------------------------------------

    def label_scores(self, prompt: str, labels: Sequence[str]) -> list[float]:
        """Log-probability that the model answers exactly each label, then ends
        (``label_scoring.label_log_likelihoods``)."""
        from evaluation.backends.label_scoring import label_log_likelihoods

        return label_log_likelihoods(
            self.model,
            self.tokenizer,
            self.encode_prompt(prompt),
            labels,
            eos_ids=sorted(self._eos_ids()),
            logits_to_keep=self._logits_to_keep_kwarg(),
        )

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
