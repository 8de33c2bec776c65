"""Prompts as the in-process backends (``transformers``, ``vllm``) give them to a model:
the tokenizer's chat template around one user message, when it has one, tokenized.

transformers is imported inside ``load_tokenizer`` only: the web process imports the
backends to call ``check``.
"""

from __future__ import annotations

from typing import Any

from evaluation.backends.base import BackendError, render_chat


def load_tokenizer(source: str, kwargs: dict[str, Any], *, model: str) -> Any:
    """The tokenizer of ``source`` (a folder or hub id) loaded with ``kwargs``; a
    ``BackendError`` naming ``model`` when it cannot be loaded."""
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(source, **kwargs)
    except (OSError, ValueError) as error:
        raise BackendError(f"cannot load the tokenizer of {model}: {error}") from error


class ChatPrompts:
    """``render_prompt`` and ``encode_prompt`` of a backend with a ``tokenizer``."""

    tokenizer: Any

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
