"""A tiny random Llama model for backend tests, built locally in about a second.

``build_tiny_llama(folder)`` trains a byte-level BPE tokenizer on a short built-in English
corpus (with the fallacy label names), creates a seeded 2-layer ``LlamaForCausalLM`` with
random weights and saves both with ``save_pretrained``, so ``from_pretrained(folder)``
loads them like any local checkpoint. Nothing is downloaded. The same call gives the same
files (seeded weights, deterministic tokenizer training).

Positions are rotary, so prompts of several thousand tokens run (``max_position_embeddings``
is 8192). torch, tokenizers and transformers are imported inside the functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CORPUS = """\
A fallacy is an error of reasoning that makes an argument look stronger than it is. Some
fallacies attack the person instead of the claim; others appeal to fear, to pity or to the
crowd, and some draw a hasty generalization from a few cases. A text may contain no fallacy
at all, and then the honest answer is that there is no fallacy in it.

The mayor said the new bridge would cost less than the old ferry. Her opponent replied that
nobody should trust a woman who cannot even keep her own garden tidy. That reply is an ad
hominem: it attacks the speaker, not the argument about the bridge and the ferry.

If we do not ban these video games today, tomorrow our children will be criminals and the
whole country will fall into chaos. This is a slippery slope, and it is also an appeal to
fear, because it tries to frighten the reader into agreement instead of giving evidence.

Everyone in town is buying the new phone, so it must be the best phone ever made. The
popularity of a product is not evidence of its quality; this is an appeal to the people,
sometimes called the bandwagon fallacy.

Either you support every part of this law or you want the city to burn. There are more than
two options, so this is a false dilemma. The speaker hides the middle ground on purpose.

My grandfather smoked every day and lived to ninety, so smoking is not dangerous. One case
cannot outweigh the studies of thousands of patients: a hasty generalization, again.

The famous actor says this diet works, therefore it works. An actor is not an expert on
nutrition, and the argument is an appeal to false authority. Please read the question, the
text and the sentence carefully, then answer with the name of the fallacy, or say that the
text has no fallacy. The answer should be short and should name one label only.
"""

LABELS = [
    "no fallacy",
    "ad hominem",
    "ad populum",
    "appeal to (false) authority",
    "appeal to fear",
    "appeal to pity",
    "appeal to ridicule",
    "appeal to tradition",
    "appeal to nature",
    "appeal to worse problems",
    "causal oversimplification",
    "circular reasoning",
    "equivocation",
    "false analogy",
    "false causality",
    "false dilemma",
    "hasty generalization",
    "slippery slope",
    "straw man",
    "fallacy of division",
    "guilt by association",
    "tu quoque",
    "abusive ad hominem",
    "nothing",
]

#: a marker every rendered chat prompt contains
USER_MARKER = "<|user|>"
ASSISTANT_MARKER = "<|assistant|>"
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|{{ message['role'] }}|>\n{{ message['content'] }}{{ eos_token }}\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

VOCAB_SIZE = 600
SPECIAL_TOKENS = ["<unk>", "<s>", "</s>", "<pad>", USER_MARKER, ASSISTANT_MARKER]


def _tiny_tokenizer(*, chat_template: bool, pad_token: bool) -> Any:
    """A byte-level BPE tokenizer trained on ``CORPUS`` and ``LABELS``, as a fast tokenizer
    (every string is encodable, and decoding gives the text back)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    lines = CORPUS.split("\n") + LABELS * 3
    tokenizer.train_from_iterator(lines, trainer=trainer)
    bos_id = tokenizer.token_to_id("<s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", bos_id)]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>" if pad_token else None,
        unk_token="<unk>",
        additional_special_tokens=[USER_MARKER, ASSISTANT_MARKER],
        model_max_length=8192,
    )
    if chat_template:
        fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_llama(
    folder: Path, *, chat_template: bool = True, pad_token: bool = True, seed: int = 0
) -> Path:
    """Save a tiny random Llama model and its tokenizer into ``folder``; return ``folder``.

    Without ``chat_template`` the tokenizer has none (backends then use the raw prompt);
    without ``pad_token`` it has no pad token (backends then pad with EOS).
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fast = _tiny_tokenizer(chat_template=chat_template, pad_token=pad_token)
    fast.save_pretrained(folder)

    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        # Wider than the default 0.02, so greedy choices are clear (not near-ties).
        initializer_range=0.2,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id if pad_token else None,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).eval()
    model.save_pretrained(folder)
    return folder
