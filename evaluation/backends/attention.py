"""Grouped-query attention through torch's fused kernel, padding mask or not.

transformers' ``sdpa`` attention repeats each key/value head for the query heads that share
it (``repeat_kv``) whenever an attention mask is passed, which a batch of prompts padded
between their shared prefix and the rest always has: over a ~1,000-token cache that copies
every layer's keys and values at each decoding step. ``torch``'s kernel takes the grouped
heads itself (``enable_gqa``), mask or not; this attention passes them so. Same arithmetic,
same outputs (``test_backend_transformers``); a decoding step of 5 rows over a 950-token
cache of SmolLM2-135M (9 query heads, 3 key/value heads) took 0.11-0.18 s against 0.21-0.26 s
with ``sdpa`` (one thread, a busy 2-core AMD EPYC).

torch and transformers are imported inside ``register`` only.
"""

from __future__ import annotations

from typing import Any

from evaluation.backends import shared_prefix

#: the ``attn_implementation`` name this module registers
GROUPED_SDPA = "sdpa-grouped"


def grouped_sdpa_attention(
    module: Any,
    query: Any,
    key: Any,
    value: Any,
    attention_mask: Any,
    dropout: float = 0.0,
    scaling: float | None = None,
    **kwargs: Any,
) -> tuple[Any, None]:
    """The attention output as transformers' attention functions return it (batch, length,
    heads, head size), causal when there is no mask and more than one query."""
    from torch.nn.functional import scaled_dot_product_attention

    context = kwargs.get(shared_prefix.CONTEXT_KEYWORD)
    if context is not None:
        return shared_prefix.shared_prefix_attention(
            module, query, key, value, context, scaling
        ), None
    causal = query.shape[2] > 1 and attention_mask is None and getattr(module, "is_causal", True)
    output = scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        dropout_p=dropout if module.training else 0.0,
        scale=scaling,
        is_causal=causal,
        enable_gqa=key.shape[1] != query.shape[1],
    )
    return output.transpose(1, 2).contiguous(), None


def register() -> str:
    """Make ``GROUPED_SDPA`` a name ``from_pretrained(attn_implementation=...)`` takes, with
    ``sdpa``'s mask format; returns the name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(GROUPED_SDPA, grouped_sdpa_attention)
    AttentionMaskInterface.register(GROUPED_SDPA, sdpa_mask)
    return GROUPED_SDPA
