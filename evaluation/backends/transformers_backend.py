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
  ``check`` validates them without importing torch (``transformers_settings``).
- The tokenizer and the model are loaded lazily, on the first ``generate`` or ``load``
  (``render_prompt`` loads only the tokenizer); ``close`` frees them. A local GGUF file is
  de-quantized once into a cached safetensors copy (``model_files.ensure_safetensors``),
  which later loads read; the tokenizer reads the copy once it exists
  (``transformers_loading``).
- A prompt is rendered with the tokenizer's chat template (one user message, generation
  prompt added) when it has one, else used raw. Requests are sorted by prompt length
  (longest first) and generated in left-padded batches (with the attention mask, a batch
  gives what one-at-a-time generation gives, ``transformers_decoding``); results are
  yielded batch by batch.
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
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

from evaluation.backends import spec_checks, transformers_settings
from evaluation.backends import transformers_decoding as decoding
from evaluation.backends import transformers_loading as loading
from evaluation.backends.base import (
    Backend,
    BackendError,
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
    SettingProblem,
    package_versions,
)
from evaluation.backends.chat_prompts import ChatPrompts
from evaluation.backends.prefixes import common_prefix, prefix_groups

DEFAULT_BATCH_SIZE = 16
DEFAULT_WINDOW_ROWS = 64

#: prompts sharing a prefix, by group: the prefix length and each member's key and token ids
Groups = list[tuple[int, list[tuple[str, list[int]]]]]


class TransformersBackend(ChatPrompts, Backend):
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
    chunk_requests = 256  # a run's part is sorted by length and batched as a whole

    def __init__(self, spec: ModelSpec, params: GenerationParams) -> None:
        super().__init__(spec, params)
        spec_checks.refuse(self.check(spec))
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
        self.model_ref, self.gguf_file = loading.split_model(spec)
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

    # -- loading (``transformers_loading``) ----------------------------------------------

    @property
    def tokenizer(self) -> Any:
        """The tokenizer (loaded on first use), with a pad token (eos when it had none)."""
        if self._tokenizer is None:
            self._tokenizer = loading.tokenizer_of(self.spec)
        return self._tokenizer

    @property
    def model(self) -> Any:
        """The model in eval mode on its device (loaded on first use)."""
        if self._model is None:
            device, dtype = loading.device_and_dtype(self.spec)
            model, loaded_from = loading.load_model(self.spec, device=device, dtype=dtype)
            self._device, self._dtype = device, dtype
            self._model, self._loaded_from = model, loaded_from
        return self._model

    def load(self) -> None:
        """Load the tokenizer and the model now (``generate`` would on first use)."""
        _ = self.model, self.tokenizer

    # -- generation --------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        """Yield one list of results per batch: prompts sharing a long prefix by group (the
        prefix computed once), the others in length-sorted batches, then guided requests
        (label scoring) in groups of ``batch_size``."""
        if not requests:
            return
        free = [request for request in requests if not (request.guided and request.labels)]
        guided = [request for request in requests if request.guided and request.labels]
        # Set on the model (not passed to generate): newer transformers would otherwise fill
        # the fields a passed config leaves at their defaults from the model's own config.
        self.model.generation_config = decoding.generation_config(
            self.model, self.tokenizer, self.params
        )
        encoded = {request.key: self.encode_prompt(request.prompt) for request in free}
        groups = self._prefix_groups([encoded[request.key] for request in free])
        yield from self._generate_groups(
            [
                (length, [(free[i].key, encoded[free[i].key]) for i in members])
                for length, members in groups
            ]
        )
        grouped = {index for _, members in groups for index in members}
        rest = [request for index, request in enumerate(free) if index not in grouped]
        yield from self._generate_sorted(rest, encoded)
        yield from self._generate_guided(guided)

    def _prefix_groups(self, prompts: list[list[int]]) -> list[tuple[int, list[int]]]:
        """The indexes of ``prompts`` that share a long prefix, by group, with the prefix
        length; when groups decode through ``shared_prefix``, every other prompt (of more
        than one token) joins as a group of one."""
        groups = prefix_groups(prompts) if self.prefix_cache else []
        if groups and self._decodes_shared_prefixes():
            grouped = {index for _, members in groups for index in members}
            groups += [
                (len(ids) - 1, [index])
                for index, ids in enumerate(prompts)
                if index not in grouped and len(ids) > 1
            ]
        return groups

    def _generate_groups(self, groups: Groups) -> Iterator[list[GenerationResult]]:
        """The groups in shared-prefix windows, else (or when the model's attention turns
        out not to take shared prefixes) group by group."""
        if groups and self._shared_prefix_ok:
            yield from self._generate_windows(groups)
        for prefix_length, members in [] if self._shared_prefix_ok else groups:
            yield from self._generate_group(prefix_length, members)

    def _generate_sorted(
        self, requests: list[GenerationRequest], encoded: dict[str, list[int]]
    ) -> Iterator[list[GenerationResult]]:
        """``requests`` generated longest first: similar lengths share a batch (little
        padding), and a batch too big for the device fails at the start of a run, not at
        its end."""
        import torch

        def generate(batch: list[GenerationRequest]) -> list[str]:
            torch.manual_seed(self.params.seed)
            prompts = [encoded[request.key] for request in batch]
            return decoding.generate_batch(self.model, self.tokenizer, prompts)

        order = sorted(requests, key=lambda request: -len(encoded[request.key]))
        yield from self._in_batches(order, generate)

    def _generate_guided(
        self, requests: list[GenerationRequest]
    ) -> Iterator[list[GenerationResult]]:
        """Guided requests answered by label scoring."""
        yield from self._in_batches(
            requests,
            lambda batch: [self.choose_label(request.prompt, request.labels) for request in batch],
        )

    def _in_batches(
        self,
        requests: list[GenerationRequest],
        answer: Callable[[list[GenerationRequest]], list[str]],
    ) -> Iterator[list[GenerationResult]]:
        """``requests`` answered ``batch_size`` at a time; a batch's time is shared by its
        requests."""
        for start in range(0, len(requests), self.batch_size):
            batch = requests[start : start + self.batch_size]
            began = time.perf_counter()
            outputs = answer(batch)
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

    def _generate_windows(self, groups: Groups) -> Iterator[list[GenerationResult]]:
        """Decode the groups' members in windows of ``window_rows`` rows, several texts
        together, each prefix stored once (``shared_prefix``); a window's time is shared
        by its rows."""
        from transformers import DynamicCache

        from evaluation.backends import shared_prefix

        model, tokenizer = self.model, self.tokenizer
        decoder = shared_prefix.SharedPrefixDecoder(
            model,
            max_new_tokens=self.params.max_new_tokens,
            eos_ids=decoding.eos_ids(model, tokenizer),
            pad_id=decoding.pad_id(tokenizer),
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
                    GenerationResult(
                        key, decoding.decode_new_tokens(model, tokenizer, tokens), share
                    )
                    for key, tokens in zip(keys, generated, strict=True)
                ]
        except shared_prefix.SharedPrefixUnsupported:
            # Found at the first decoding step, before any window is yielded: the groups
            # then go the stock way.
            self._shared_prefix_ok = False

    def _generate_group(
        self, prefix_length: int, members: list[tuple[str, list[int]]]
    ) -> Iterator[list[GenerationResult]]:
        """Run the shared prefix once, then the members in batches, each on a copy of the
        prefix's cache; a batch's time includes the prefix for the first batch."""
        import torch

        model, tokenizer = self.model, self.tokenizer
        began = time.perf_counter()
        cache = decoding.prefix_cache(model, members[0][1][:prefix_length])
        # Longest rest first, as for ordinary batches.
        members = sorted(members, key=lambda member: -len(member[1]))
        rows = self.batch_size if self.batch_groups else 1
        for start in range(0, len(members), rows):
            batch = members[start : start + rows]
            torch.manual_seed(self.params.seed)
            batch_cache = copy.deepcopy(cache)
            if len(batch) > 1:
                batch_cache.batch_repeat_interleave(len(batch))
            outputs = decoding.generate_batch(
                model,
                tokenizer,
                [ids for _, ids in batch],
                prefix_length=prefix_length,
                cache=batch_cache,
            )
            share = (time.perf_counter() - began) / len(batch)
            yield [
                GenerationResult(key, output, share)
                for (key, _), output in zip(batch, outputs, strict=True)
            ]
            began = time.perf_counter()

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
            eos_ids=sorted(decoding.eos_ids(self.model, self.tokenizer)),
            logits_to_keep=decoding.logits_to_keep_kwarg(self.model),
        )

    def choose_label(self, prompt: str, labels: Sequence[str]) -> str:
        """The most likely label after the prompt (the first one on a tie)."""
        scores = self.label_scores(prompt, labels)
        return labels[max(range(len(labels)), key=scores.__getitem__)]

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
                else loading.device_and_dtype(self.spec)
            )
        except BackendError as error:
            device, dtype = f"unavailable ({error})", None
        facts["device"] = loading.device_facts(device)
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
