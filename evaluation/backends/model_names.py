"""A model's readable name, shown as "the model" (run names, the run page, leaderboards,
suggestions) where its path would say where it lies rather than what it is. Plain Python:
reads a ``config.json`` and at most the head of a GGUF file, never a model.

``model_display_name(model, settings)``, first that gives a name:

- a model of the operator's registry (``registry``): its registered name;
- a GGUF file (``settings.gguf_file`` in the folder, or the path itself): its file name
  without ``.gguf``, the quantization in brackets (``SmolLM2-135M-Instruct (Q4_1)``); a
  generic file name (``model.gguf``, ``ggml-model-q4_0.gguf``) gives the file's metadata
  ``general.name``;
- a folder: its config's ``_name_or_path`` when that is a hub id (``org/name``),
  the GGUF file a safetensors copy was made from (``model_files``' ``.complete`` marker), the
  folder's name unless it is a Python package or generic, the config's ``model_type``;
- a hub id (``org/name``) or an API model name: itself; a path this machine does not hold:
  its last part; no model (baselines): "" (the caller says the backend).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

QUANT = re.compile(r"^(?:I?Q\d\w*|F16|F32|BF16|FP16)$", re.IGNORECASE)
GENERIC = re.compile(r"^(?:ggml-)?model(?:[-_.].*)?$|^snapshots?$|^weights?$|^[0-9a-f]{32,}$", re.I)
HEAD_BYTES = 1 << 20  # general.* keys come first; never read past this


def model_display_name(model: str, settings: Mapping[str, Any] | None = None) -> str:
    """The model's readable name (see the module); "" when there is no model."""
    model = (model or "").strip()
    if not model:
        return ""
    from evaluation.backends.registry import display_name

    registered = display_name(model)
    if registered is not None:  # the operator's name for it, never its path
        return registered
    gguf_file = str((settings or {}).get("gguf_file") or "")
    path = Path(model).expanduser()
    try:
        if path.is_dir():
            if gguf_file:
                return gguf_label(path / gguf_file)
            return folder_label(path)
        if path.is_file() and path.suffix.lower() == ".gguf":
            return gguf_label(path)
    except OSError:
        pass
    if gguf_file:
        return _file_label(Path(gguf_file).name)
    if _is_hub_id(model):
        return model
    return model.rstrip("/").rsplit("/", 1)[-1] or model


@lru_cache(maxsize=512)
def cached_display_name(model: str, gguf_file: str = "") -> str:
    """``model_display_name`` remembered per process (the files are read once)."""
    return model_display_name(model, {"gguf_file": gguf_file} if gguf_file else None)


def _file_label(file_name: str) -> str:
    """``SmolLM2-135M-Instruct.Q4_1.gguf`` -> ``SmolLM2-135M-Instruct (Q4_1)``."""
    stem = file_name[:-5] if file_name.lower().endswith(".gguf") else file_name
    for separator in (".", "-", "_"):
        head, sep, tail = stem.rpartition(separator)
        if sep and head and QUANT.match(tail):
            return f"{head} ({tail})"
    return stem


def gguf_label(path: Path) -> str:
    """A GGUF file's name (``_file_label``), or its ``general.name`` when the file name says
    nothing (``model.gguf``)."""
    label = _file_label(path.name)
    if GENERIC.match(label.split(" (")[0]):
        try:
            with path.open("rb") as f:
                name = gguf_general_name(f)
        except OSError:
            name = None
        if name:
            return name
    return label


def folder_label(folder: Path) -> str:
    config = _read_json(folder / "config.json")
    hub_id = str(config.get("_name_or_path") or "")
    if _is_hub_id(hub_id):
        return hub_id
    source = str(_read_json(folder / ".complete").get("source") or "")
    if source.lower().endswith(".gguf"):
        return _file_label(Path(source).name)
    if not (folder / "__init__.py").exists() and not GENERIC.match(folder.name):
        return folder.name
    return str(config.get("model_type") or folder.name)


def _is_hub_id(value: str) -> bool:
    """``org/name`` or ``name`` as the Hugging Face hub names models, not a local path."""
    if not value or value.startswith(("/", ".", "~")) or "\\" in value or value.count("/") > 1:
        return False
    return not Path(value).exists()


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# --- the head of a GGUF file -------------------------------------------------------------

# value type -> struct format of a scalar (8: string, 9: array)
_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}


def gguf_general_name(f: BinaryIO) -> str | None:
    """``general.name`` from a GGUF file's key/value head (versions 2 and 3), or None."""
    data = f.read(HEAD_BYTES)
    if data[:4] != b"GGUF":
        return None
    try:
        version = struct.unpack_from("<I", data, 4)[0]
        if version < 2:
            return None
        kv_count = struct.unpack_from("<Q", data, 16)[0]
        offset = 24
        for _ in range(kv_count):
            key, offset = _string(data, offset)
            kind = struct.unpack_from("<I", data, offset)[0]
            offset += 4
            if key == "general.name" and kind == 8:
                return _string(data, offset)[0].strip() or None
            offset = _skip(data, offset, kind)
    except (struct.error, UnicodeDecodeError, ValueError):
        return None
    return None


def _string(data: bytes, offset: int) -> tuple[str, int]:
    length = struct.unpack_from("<Q", data, offset)[0]
    end = offset + 8 + length
    if end > len(data):
        raise ValueError("past the head")
    return data[offset + 8 : end].decode("utf-8"), end


def _skip(data: bytes, offset: int, kind: int) -> int:
    if kind == 8:
        return _string(data, offset)[1]
    if kind == 9:
        item, count = struct.unpack_from("<IQ", data, offset)
        offset += 12
        if item in _SCALARS:
            return offset + count * struct.calcsize(_SCALARS[item])
        for _ in range(count):
            offset = _skip(data, offset, item)
        return offset
    if kind in _SCALARS:
        return offset + struct.calcsize(_SCALARS[kind])
    raise ValueError(f"unknown GGUF value type {kind}")
