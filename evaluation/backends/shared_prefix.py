"""Greedy decoding of several shared-prefix groups in one batch, each prefix's keys and
values stored once.

A hand-written replacement of ``model.generate`` over a copied ``DynamicCache`` per batch,
for greedy decoding. Stock generation needs one cache row per prompt: a batch of a text's
sentences holds (and each decoding step reads) the text's ~900-token prefix once per
sentence, and sentences of different texts can share a batch only with their prefixes padded
to one length. Here, per group, the prefix runs once (causal, as one prompt would), then the
rests of all its members run in one packed sequence after it (a 4-D mask: each rest sees the
prefix and itself), which also gives each member's first new token. The rows of every group
of a window (several texts) then decode together, one token per row per step: the layer's
attention (``shared_prefix_attention``, reached through ``attention.grouped_sdpa_attention``
when the forward pass carries a ``SharedPrefixContext``) scores a group's rows against its
prefix in one matrix product and against each row's own tokens, under one softmax: the
attention over the concatenated cache, so greedy outputs stay those of one-at-a-time
generation (``tests/evaluation/backends/test_shared_prefix.py``).

Figure: ``bench/eval_throughput.py --prompts 64 --only a,e --rounds 2`` (SmolLM2-135M,
greedy, 24 new tokens, 2-core Intel Xeon): one prompt at a time 383.8 s, this path (one
window of 64 rows) 78.8 s, 4.9x, 64/64 outputs identical; the copied-cache batches per text
it replaces gave 3.2-3.6x on the same machine that day. On a 2-core AMD EPYC: the first 64
prompts (17 texts) 203.4 s against 47.2 s, 4.3x; ``--every-nth-text 10 --rounds 2`` (20 texts
spread over the file, 88 prompts) 602.5 s against 114.4 s, 5.3x, 88/88 identical;
``--all-sentences --only a,e`` (all 940 prompts, 200 texts) 2767.2 s against 508.7 s, 5.4x,
940/940 identical.

torch is imported inside functions only.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

Member = TypeVar("Member")

#: the keyword under which the model's forward passes the context to the attention function
CONTEXT_KEYWORD = "shared_prefix"


@dataclass
class PrefixGroup:
    """Prompts sharing ``prefix``: the token ids that follow it in each of them."""

    prefix: list[int]
    rests: list[list[int]]


@dataclass
class SharedPrefixContext:
    """What a decoding step's attention needs beyond the layer's own tensors: the rows of
    each group (consecutive), each group's prefix keys (key/value heads, head size, length)
    and values (key/value heads, length, head size) per layer, the rows' own keys and values
    per layer (rows, key/value heads, slots, head size: their rests left-padded to one width,
    then room for the new tokens), the slot the step's token goes to, and an additive bias
    over the slots (rows, 1, 1, slots): 0 where seen, -inf on padding and empty slots."""

    rows: list[slice]
    keys: list[list[Any]]
    values: list[list[Any]]
    own_keys: list[Any] = field(default_factory=list)
    own_values: list[Any] = field(default_factory=list)
    slot: int = 0
    own_bias: Any = None
    calls: int = 0


def shared_prefix_attention(
    module: Any, query: Any, key: Any, value: Any, context: SharedPrefixContext, scaling: float
) -> Any:
    """Attention output (rows, 1, heads, head size) of one new token per row (``query``:
    rows, heads, 1, head size; its ``key`` and ``value``: rows, key/value heads, 1, head
    size) over the row's group prefix, its own earlier tokens and itself."""
    import torch

    context.calls += 1
    layer = module.layer_idx
    batch, heads, _, size = query.shape
    kv_heads = key.shape[1]
    repeats = heads // kv_heads
    own_keys, own_values = context.own_keys[layer], context.own_values[layer]
    own_keys[:, :, context.slot] = key[:, :, -1]
    own_values[:, :, context.slot] = value[:, :, -1]
    seen = context.slot + 1
    own_keys, own_values = own_keys[:, :, :seen], own_values[:, :, :seen]
    # Query heads sharing a key/value head sit next to each other (as ``repeat_kv`` expects).
    grouped = query.reshape(batch, kv_heads, repeats, size)
    own_scores = torch.matmul(grouped, own_keys.transpose(-1, -2)).mul_(scaling)
    own_scores.add_(context.own_bias[..., :seen])
    output = torch.empty_like(grouped)
    own_weights = torch.empty_like(own_scores)
    for group, rows in enumerate(context.rows):
        count = rows.stop - rows.start
        prefix_keys, prefix_values = context.keys[group][layer], context.values[group][layer]
        length = prefix_values.shape[1]
        stacked = grouped[rows].transpose(0, 1).reshape(kv_heads, count * repeats, size)
        prefix_scores = torch.bmm(stacked, prefix_keys).mul_(scaling)
        scores = torch.cat(
            [
                prefix_scores.view(kv_heads, count, repeats, length).transpose(0, 1),
                own_scores[rows],
            ],
            dim=-1,
        )
        weights = torch.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
        prefix_weights = (
            weights[..., :length].transpose(0, 1).reshape(kv_heads, count * repeats, length)
        )
        prefix_part = torch.bmm(prefix_weights, prefix_values).view(kv_heads, count, repeats, size)
        output[rows] = prefix_part.transpose(0, 1)
        own_weights[rows] = weights[..., length:]
    output += torch.matmul(own_weights, own_values)
    return output.reshape(batch, 1, heads, size)


def plan_windows(
    groups: Sequence[Sequence[Member]], rows: int
) -> list[list[tuple[int, list[Member]]]]:
    """Windows of at most ``rows`` members each, taken in group order: ``(group index,
    members)`` per window; a group larger than the room left spills into the next window
    (its prefix is kept, not run again). Plain Python."""
    windows: list[list[tuple[int, list[Member]]]] = []
    window: list[tuple[int, list[Member]]] = []
    room = rows
    for index, members in enumerate(groups):
        members = list(members)
        while members:
            taken, members = members[:room], members[room:]
            window.append((index, taken))
            room -= len(taken)
            if room == 0:
                windows.append(window)
                window, room = [], rows
    if window:
        windows.append(window)
    return windows


def decode_in_windows(
    decoder: SharedPrefixDecoder,
    groups: Sequence[tuple[int, Sequence[tuple[str, list[int]]]]],
    rows: int,
) -> Iterator[tuple[list[str], list[list[int]], float]]:
    """Decode ``groups`` (prefix length, members' keys and token ids) in windows of
    ``rows`` (``plan_windows``): per window, its keys, their new token ids and its seconds
    per row."""
    for window in plan_windows([members for _, members in groups], rows):
        began = time.perf_counter()
        chunks, keys = [], []
        for index, members in window:
            length = groups[index][0]
            chunks.append(PrefixGroup(members[0][1][:length], [ids[length:] for _, ids in members]))
            keys.extend(key for key, _ in members)
        generated = decoder.decode(chunks)
        yield keys, generated, (time.perf_counter() - began) / len(keys)


class SharedPrefixDecoder:
    """Greedy decoding of windows of ``PrefixGroup`` s with one model; the last prefix run
    is kept, so a group spilling into the next window runs its prefix once."""

    def __init__(
        self,
        model: Any,
        *,
        max_new_tokens: int,
        eos_ids: set[int],
        pad_id: int,
        new_cache: Callable[[], Any],
        root: Sequence[int] = (),
    ) -> None:
        self.model = model
        #: a start every prefix shares (MAFALDA: the chat template and the instructions),
        #: run once; each prefix then runs only the rest of itself after a copy of it
        self.root = list(root)
        self._root_cache: Any = None
        self.max_new_tokens = max_new_tokens
        self.eos_ids = eos_ids
        self.pad_id = pad_id
        self.new_cache = new_cache
        self._last_prefix: tuple[list[int], Any] | None = None

    def _prefix_cache(self, prefix: list[int]) -> Any:
        """A cache holding ``prefix`` only (the last one is kept and cut back to it)."""
        if self._last_prefix is not None and self._last_prefix[0] == prefix:
            cache = self._last_prefix[1]
            extra = cache.get_seq_length() - len(prefix)
            if extra:
                cache.crop(-extra)
            return cache
        start = len(self.root)
        if start and len(prefix) > start and prefix[:start] == self.root:
            if self._root_cache is None:
                self._root_cache = self._run(self.root, self.new_cache())
            cache = self._run(prefix[start:], copy.deepcopy(self._root_cache))
        else:
            cache = self._run(prefix, self.new_cache())
        self._last_prefix = (prefix, cache)
        return cache

    def _run(self, tokens: list[int], cache: Any) -> Any:
        """``cache`` with ``tokens`` run after what it holds."""
        import torch

        device = self.model.get_input_embeddings().weight.device
        self.model(
            input_ids=torch.tensor([tokens], device=device),
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        return cache

    def _prefill(self, group: PrefixGroup) -> tuple[Any, Any]:
        """Run the group's rests packed after its prefix (each sees the prefix and itself);
        returns the cache (prefix, then the rests one after another) and the logits after
        each rest (rests, vocabulary)."""
        import torch

        device = self.model.get_input_embeddings().weight.device
        cache = self._prefix_cache(group.prefix)
        length = len(group.prefix)
        packed = [token for rest in group.rests for token in rest]
        owner = torch.tensor(
            [row for row, rest in enumerate(group.rests) for _ in rest], device=device
        )
        offsets = torch.tensor(
            [index for rest in group.rests for index in range(len(rest))], device=device
        )
        own = (owner[:, None] == owner[None, :]) & (offsets[:, None] >= offsets[None, :])
        seen = torch.cat([own.new_ones(len(packed), length), own], dim=1)
        ends = torch.cumsum(torch.tensor([len(rest) for rest in group.rests]), 0) - 1
        logits = self.model(
            input_ids=torch.tensor([packed], device=device),
            position_ids=(offsets + length)[None, :],
            attention_mask=seen[None, None],
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=ends.to(device),
        ).logits[0]
        return cache, logits

    def _window_state(self, groups: Sequence[PrefixGroup]) -> tuple[SharedPrefixContext, Any]:
        """Prefill every group: the context (prefixes; the rows' rests left-padded to one
        width, with room for ``max_new_tokens``) and each row's first-token logits."""
        import torch

        rests = [rest for group in groups for rest in group.rests]
        width = max(len(rest) for rest in rests)
        context = SharedPrefixContext([], [], [])
        first_logits: list[Any] = []
        for group in groups:
            row = len(first_logits)
            context.rows.append(slice(row, row + len(group.rests)))
            cache, logits = self._prefill(group)
            first_logits.extend(logits)
            length = len(group.prefix)
            layers = cache.layers
            if not context.own_keys:
                shape = (
                    len(rests),
                    layers[0].keys.shape[1],
                    width + self.max_new_tokens,
                    layers[0].keys.shape[3],
                )
                context.own_keys = [layers[0].keys.new_zeros(shape) for _ in layers]
                context.own_values = [layers[0].values.new_zeros(shape) for _ in layers]
            context.keys.append(
                [layer.keys[0, :, :length].transpose(1, 2).contiguous() for layer in layers]
            )
            context.values.append([layer.values[0, :, :length].contiguous() for layer in layers])
            start = length
            for rest in group.rests:
                end, left = start + len(rest), width - len(rest)
                for index, layer in enumerate(layers):
                    context.own_keys[index][row, :, left:width] = layer.keys[0, :, start:end]
                    context.own_values[index][row, :, left:width] = layer.values[0, :, start:end]
                start, row = end, row + 1
        logits = torch.stack(first_logits)
        padding = torch.tensor([width - len(rest) for rest in rests], device=logits.device)
        slots = torch.arange(width + self.max_new_tokens, device=logits.device)
        unseen = (slots[None, :] < padding[:, None]) | (slots[None, :] >= width)
        context.own_bias = torch.zeros(unseen.shape, dtype=logits.dtype, device=logits.device)
        context.own_bias = context.own_bias.masked_fill_(unseen, float("-inf"))[:, None, None, :]
        context.slot = width
        return context, logits

    def decode(self, groups: Sequence[PrefixGroup]) -> list[list[int]]:
        """New token ids (up to and with the first end-of-sequence token) of every member of
        ``groups``, in order, decoded greedily together."""
        import torch

        with torch.inference_mode():
            context, logits = self._window_state(groups)
            device = logits.device
            count = logits.shape[0]
            positions = torch.tensor(
                [len(group.prefix) + len(rest) for group in groups for rest in group.rests],
                device=device,
            )[:, None]
            eos = torch.tensor(sorted(self.eos_ids), dtype=torch.long, device=device)
            ended = torch.zeros(count, dtype=torch.bool, device=device)
            generated: list[list[int]] = [[] for _ in range(count)]
            tokens = logits.float().argmax(dim=-1)
            for step in range(self.max_new_tokens):
                tokens = torch.where(ended, torch.full_like(tokens, self.pad_id), tokens)
                for row, (token, done) in enumerate(
                    zip(tokens.tolist(), ended.tolist(), strict=True)
                ):
                    if not done:
                        generated[row].append(token)
                ended |= torch.isin(tokens, eos)
                if bool(ended.all()) or step == self.max_new_tokens - 1:
                    break
                context.own_bias[..., context.slot] = 0
                logits = self.model(
                    input_ids=tokens[:, None],
                    position_ids=positions,
                    use_cache=False,
                    **{CONTEXT_KEYWORD: context},
                ).logits[:, -1, :]
                if context.calls == 0:
                    raise SharedPrefixUnsupported(
                        "the model's attention did not take the shared prefix"
                    )
                positions = positions + 1
                context.slot += 1
                tokens = logits.float().argmax(dim=-1)
        return generated


class SharedPrefixUnsupported(RuntimeError):
    """The model's layers do not pass the forward's keywords to their attention."""
