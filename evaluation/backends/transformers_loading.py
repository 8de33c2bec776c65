"""Where a ``transformers`` model loads from and how: the model reference (a folder, a hub
id or a GGUF file), the safetensors copy of a local GGUF file, the tokenizer, the device and
dtype, the model itself, and the device facts recorded with a run.

torch and transformers are imported inside the functions only: the web process imports the
backend module to call ``check``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from evaluation.backends.base import BackendError, ModelSpec, cuda_facts
from evaluation.backends.chat_prompts import load_tokenizer


def _version(text: str) -> tuple[int, ...]:
    """``(major, minor)`` of a version string such as ``4.56.1`` or ``5.0.0rc1``."""
    return tuple(int(re.match(r"\d*", part).group() or 0) for part in text.split(".")[:2])


def split_model(spec: ModelSpec) -> tuple[str, str | None]:
    """(folder or hub id, GGUF file name or None); a ``.gguf`` file as model is split."""
    model = os.path.expanduser(spec.model)
    gguf_file = spec.settings.get("gguf_file") or None
    path = Path(model)
    if gguf_file is None and path.suffix == ".gguf" and path.is_file():
        return str(path.parent), path.name
    return model, gguf_file


def _local_gguf(model_ref: str, gguf_file: str | None) -> Path | None:
    """The GGUF file when the model is a local one (a hub GGUF is not copied)."""
    if not gguf_file:
        return None
    path = Path(model_ref) / gguf_file
    return path if path.is_file() else None


def source(spec: ModelSpec, *, make_copy: bool) -> tuple[str, dict[str, Any]]:
    """Where to load from, with the loading arguments: the safetensors copy of a local
    GGUF file (made first when ``make_copy``, else used only once it exists), else the
    model itself."""
    model_ref, gguf_file = split_model(spec)
    kwargs: dict[str, Any] = {
        "trust_remote_code": bool(spec.settings.get("trust_remote_code", False))
    }
    gguf = _local_gguf(model_ref, gguf_file)
    if gguf is not None:
        from evaluation.backends import model_files

        copy_dir = model_files.default_copy_dir(gguf.parent, gguf.name)
        if make_copy or model_files.is_complete(copy_dir):
            try:
                return str(model_files.ensure_safetensors(gguf.parent, gguf.name)), kwargs
            except OSError:  # no writable data folder: de-quantize in memory
                pass
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    if spec.settings.get("revision"):
        kwargs["revision"] = spec.settings["revision"]
    return model_ref, kwargs


def tokenizer_of(spec: ModelSpec) -> Any:
    """The tokenizer, padding on the left, with a pad token (eos, else unk, when it had
    none)."""
    where, kwargs = source(spec, make_copy=False)
    tokenizer = load_tokenizer(where, kwargs, model=spec.model)
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is not None:
            tokenizer.pad_token = tokenizer.eos_token
        elif tokenizer.unk_token is not None:
            tokenizer.pad_token = tokenizer.unk_token
    tokenizer.padding_side = "left"
    return tokenizer


def device_and_dtype(spec: ModelSpec) -> tuple[str, Any]:
    """The device (``auto``: CUDA when available) and the torch dtype (``auto``: float32
    on CPU, bfloat16 on CUDA when supported, else float16)."""
    import torch

    device = spec.settings.get("device") or "auto"
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise BackendError("settings.device: cuda asked for, but no CUDA device is available")
    dtype_name = spec.settings.get("dtype") or "auto"
    if dtype_name == "auto":
        if device == "cpu":
            dtype_name = "float32"
        else:
            dtype_name = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return device, getattr(torch, dtype_name)


def load_model(spec: ModelSpec, *, device: str, dtype: Any) -> tuple[Any, str]:
    """The model in eval mode on ``device``, with the place it was loaded from."""
    import importlib.util

    import transformers
    from transformers import AutoModelForCausalLM

    where, kwargs = source(spec, make_copy=True)
    # transformers 4.56 renamed torch_dtype to dtype (the old name is deprecated).
    kwargs["dtype" if _version(transformers.__version__) >= (4, 56) else "torch_dtype"] = dtype
    attention = spec.settings.get("attention") or "auto"
    if attention == "auto" and device == "cpu":
        from evaluation.backends import attention as grouped

        attention = grouped.register()
    if attention != "auto":
        kwargs["attn_implementation"] = attention
    use_device_map = device == "cuda" and importlib.util.find_spec("accelerate")
    if use_device_map:
        kwargs["device_map"] = "auto"
    try:
        model = AutoModelForCausalLM.from_pretrained(where, **kwargs)
    except (OSError, ValueError) as error:
        raise BackendError(f"cannot load model {spec.model}: {error}") from error
    if not use_device_map:
        model = model.to(device)
    model.eval()
    return model, where


def device_facts(device: str) -> str | dict[str, Any]:
    """``"cpu"``, or the CUDA device's name with the driver and CUDA versions."""
    if device != "cuda":
        return device
    return cuda_facts()
