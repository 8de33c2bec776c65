"""Guided answers by scoring: the log-likelihood of each label as the model's whole answer.

torch is imported inside the function only.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any


def label_log_likelihoods(
    model: Any,
    tokenizer: Any,
    prompt_ids: list[int],
    labels: Sequence[str],
    *,
    eos_ids: Sequence[int],
    logits_to_keep: dict[str, int],
) -> list[float]:
    """Log-probability that the model answers exactly each label after ``prompt_ids``: its
    tokens, then the end of the output (any of ``eos_ids``, as generation stops at any of
    them); ``-inf`` for a label without tokens.

    The prompt runs once; its KV cache is copied for each label's short pass. Labels are
    tokenized on their own and appended to the prompt's ids (as lm-eval does)."""
    import torch

    device = model.get_input_embeddings().weight.device
    scores: list[float] = []
    with torch.inference_mode():
        out = model(
            input_ids=torch.tensor([prompt_ids], device=device), use_cache=True, **logits_to_keep
        )
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
                score = score + torch.logsumexp(logprobs[-1, list(eos_ids)], dim=0)
            scores.append(float(score))
    return scores
