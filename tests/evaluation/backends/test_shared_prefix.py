"""Greedy decoding of shared-prefix groups packed in windows (``backends.shared_prefix``):
the outputs are those of ``model.generate`` one prompt at a time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from evaluation.backends.shared_prefix import (
    PrefixGroup,
    SharedPrefixDecoder,
    SharedPrefixUnsupported,
    plan_windows,
)

pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_windows_hold_at_most_the_rows_asked_and_keep_group_order() -> None:
    groups = [[0, 1, 2], [3], [4, 5, 6, 7, 8], [9]]
    assert plan_windows(groups, 4) == [
        [(0, [0, 1, 2]), (1, [3])],
        [(2, [4, 5, 6, 7])],
        [(2, [8]), (3, [9])],
    ]
    assert plan_windows(groups, 100) == [[(0, [0, 1, 2]), (1, [3]), (2, [4, 5, 6, 7, 8]), (3, [9])]]
    assert plan_windows([], 4) == []


def load(tiny_model_dir: Path, attention: str) -> Any:
    from transformers import AutoModelForCausalLM

    from evaluation.backends import attention as grouped

    if attention == "grouped":
        attention = grouped.register()
    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir), attn_implementation=attention)
    return model.eval()


def decoder_for(model: Any, *, max_new_tokens: int, eos_ids: set[int]) -> SharedPrefixDecoder:
    from transformers import DynamicCache

    return SharedPrefixDecoder(
        model,
        max_new_tokens=max_new_tokens,
        eos_ids=eos_ids,
        pad_id=0,
        new_cache=lambda: DynamicCache(config=model.config),
    )


def one_at_a_time(
    model: Any, prompt: list[int], max_new_tokens: int, eos_ids: set[int]
) -> list[int]:
    """Stock greedy generation of one prompt: its new tokens up to and with the first
    end-of-sequence token."""
    import torch

    with torch.inference_mode():
        output = model.generate(
            input_ids=torch.tensor([prompt]),
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            eos_token_id=sorted(eos_ids) or [model.config.vocab_size + 1],
            pad_token_id=0,
        )
    return output[0, len(prompt) :].tolist()[:max_new_tokens]


def groups_of_texts(vocabulary: int) -> list[PrefixGroup]:
    """Four texts' prompts: prefixes of different lengths (a long shared start, then the
    text), 1 to 5 rests of 1 to 17 tokens each."""
    rng = random.Random(7)
    start = [rng.randrange(4, vocabulary) for _ in range(40)]
    groups = []
    for text, count in enumerate((3, 1, 5, 2)):
        prefix = start + [rng.randrange(4, vocabulary) for _ in range(60 + 23 * text)]
        rests = [
            [rng.randrange(4, vocabulary) for _ in range(1 + (7 * row + 3 * text) % 17)]
            for row in range(count)
        ]
        groups.append(PrefixGroup(prefix, rests))
    return groups


def cut_at_end(tokens: list[int], eos_ids: set[int]) -> list[int]:
    end = next((i + 1 for i, token in enumerate(tokens) if token in eos_ids), len(tokens))
    return tokens[:end]


@pytest.mark.parametrize("max_new_tokens", [1, 20])
def test_a_window_of_texts_decodes_as_each_prompt_alone(
    tiny_model_dir: Path, max_new_tokens: int
) -> None:
    model = load(tiny_model_dir, "grouped")
    groups = groups_of_texts(model.config.vocab_size)
    eos_ids = {int(model.config.eos_token_id)}
    alone = [
        one_at_a_time(model, group.prefix + rest, max_new_tokens, eos_ids)
        for group in groups
        for rest in group.rests
    ]
    assert len({tuple(tokens) for tokens in alone}) > 3  # the rows differ
    decoded = decoder_for(model, max_new_tokens=max_new_tokens, eos_ids=eos_ids).decode(groups)
    assert decoded == [cut_at_end(tokens, eos_ids) for tokens in alone]


def test_rows_that_end_early_stop_there_and_the_others_go_on(tiny_model_dir: Path) -> None:
    """An end-of-sequence token that some rows produce early: those rows stop at it (it
    included), the others run to ``max_new_tokens``, as one prompt at a time would."""
    model = load(tiny_model_dir, "grouped")
    groups = groups_of_texts(model.config.vocab_size)
    free = [
        one_at_a_time(model, group.prefix + rest, 16, set())
        for group in groups
        for rest in group.rests
    ]
    eos_ids = {free[0][3], free[4][1]}  # the 4th token of row 0, the 2nd of row 4
    expected = [cut_at_end(tokens, eos_ids) for tokens in free]
    assert min(map(len, expected)) < 16 and max(map(len, expected)) == 16
    decoded = decoder_for(model, max_new_tokens=16, eos_ids=eos_ids).decode(groups)
    assert decoded == expected
    assert decoded == [
        cut_at_end(one_at_a_time(model, group.prefix + rest, 16, eos_ids), eos_ids)
        for group in groups
        for rest in group.rests
    ]


def test_a_group_spilling_into_the_next_window_runs_its_prefix_once(tiny_model_dir: Path) -> None:
    model = load(tiny_model_dir, "grouped")
    group = groups_of_texts(model.config.vocab_size)[2]  # 5 rests
    eos_ids = {int(model.config.eos_token_id)}
    prefix_runs = []
    hook = model.register_forward_pre_hook(
        lambda _module, _args, kwargs: (
            prefix_runs.append(1) if kwargs["input_ids"].shape[1] == len(group.prefix) else None
        ),
        with_kwargs=True,
    )
    decoder = decoder_for(model, max_new_tokens=6, eos_ids=eos_ids)
    first = decoder.decode([PrefixGroup(group.prefix, group.rests[:3])])
    second = decoder.decode([PrefixGroup(group.prefix, group.rests[3:])])
    hook.remove()
    assert len(prefix_runs) == 1
    assert first + second == [
        cut_at_end(one_at_a_time(model, group.prefix + rest, 6, eos_ids), eos_ids)
        for rest in group.rests
    ]


def test_a_model_whose_attention_ignores_the_shared_prefix_is_refused(tiny_model_dir: Path) -> None:
    """transformers' own ``sdpa`` does not take the prefixes: found at the first step, not
    answered wrongly (the backend then decodes the stock way)."""
    model = load(tiny_model_dir, "sdpa")
    groups = groups_of_texts(model.config.vocab_size)
    with pytest.raises(SharedPrefixUnsupported):
        decoder_for(model, max_new_tokens=4, eos_ids=set()).decode(groups)
