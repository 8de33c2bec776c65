"""Token-level generation with a loaded ``transformers`` model: the generation config from
the run's parameters, left-padded batches (after a shared prefix whose cache they reuse),
and the decoding of new tokens up to the first end-of-sequence token.

torch and transformers are imported inside the functions only.
"""

from __future__ import annotations

import inspect
from typing import Any

from evaluation.backends.base import GenerationParams


def eos_ids(model: Any, tokenizer: Any) -> set[int]:
    """Every end-of-sequence token id the model's configs or the tokenizer name."""
    ids: set[int] = set()
    for source in (getattr(model, "generation_config", None), model.config):
        value = getattr(source, "eos_token_id", None)
        if isinstance(value, int):
            ids.add(value)
        elif value:
            ids.update(int(item) for item in value)
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    return ids


def pad_id(tokenizer: Any) -> int:
    """The tokenizer's pad token id (0 when it has none)."""
    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0


def generation_config(model: Any, tokenizer: Any, params: GenerationParams) -> Any:
    """A fresh config from ``params`` (the model's own sampling defaults are not used):
    greedy, or sampling with ``temperature`` and ``top_p`` (no top-k)."""
    from transformers import GenerationConfig

    model_config = getattr(model, "generation_config", None)
    eos = getattr(model_config, "eos_token_id", None)
    if eos is None:
        eos = tokenizer.eos_token_id
    values: dict[str, Any] = {
        "max_new_tokens": params.max_new_tokens,
        "num_beams": 1,
        "bos_token_id": getattr(model_config, "bos_token_id", None),
        "eos_token_id": eos,
        "pad_token_id": tokenizer.pad_token_id,
    }
    if params.greedy:
        values["do_sample"] = False
    else:
        values.update(do_sample=True, temperature=params.temperature, top_p=params.top_p, top_k=0)
    return GenerationConfig(**values)


def decode_new_tokens(model: Any, tokenizer: Any, tokens: list[int]) -> str:
    """The text of new tokens up to the first end-of-sequence token."""
    ends = eos_ids(model, tokenizer)
    end = next((i for i, token in enumerate(tokens) if token in ends), len(tokens))
    return tokenizer.decode(tokens[:end], skip_special_tokens=True).strip()


def logits_to_keep_kwarg(model: Any) -> dict[str, int]:
    """Ask the forward pass for the last position's logits only, where supported
    (``logits_to_keep`` since transformers 4.50, ``num_logits_to_keep`` before)."""
    parameters = inspect.signature(model.forward).parameters
    for name in ("logits_to_keep", "num_logits_to_keep"):
        if name in parameters:
            return {name: 1}
    return {}


def prefix_cache(model: Any, prefix: list[int]) -> Any:
    """The ``DynamicCache`` of one pass over ``prefix``."""
    import torch
    from transformers import DynamicCache

    device = model.get_input_embeddings().weight.device
    try:
        empty = DynamicCache(config=model.config)  # transformers >= 4.56 asks for it
    except TypeError:
        empty = DynamicCache()
    with torch.inference_mode():
        return model(
            input_ids=torch.tensor([prefix], device=device),
            past_key_values=empty,
            use_cache=True,
            **logits_to_keep_kwarg(model),
        ).past_key_values


def generate_batch(
    model: Any,
    tokenizer: Any,
    prompts: list[list[int]],
    *,
    prefix_length: int = 0,
    cache: Any = None,
) -> list[str]:
    """Generate from token ids padded on the left of what follows their shared first
    ``prefix_length`` tokens (whose keys and values ``cache`` holds, for each row);
    decode only the new tokens."""
    import torch

    width = max(len(ids) for ids in prompts)
    pad = pad_id(tokenizer)
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
    return [decode_new_tokens(model, tokenizer, row) for row in generated[:, width:].tolist()]
