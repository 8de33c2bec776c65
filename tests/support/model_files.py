"""Small stand-ins for model files: the head of a GGUF file (no tensors), enough for what
reads a model's name without loading it."""

from __future__ import annotations

import struct
from pathlib import Path


def _string(value: str) -> bytes:
    raw = value.encode()
    return struct.pack("<Q", len(raw)) + raw


def write_gguf(path: Path, name: str) -> Path:
    """A GGUF v3 head: an array and an integer before ``general.name``, no tensors."""
    kvs = [
        _string("general.languages") + struct.pack("<IIQ", 9, 8, 2) + _string("en") + _string("fr"),
        _string("llama.block_count") + struct.pack("<II", 4, 30),
        _string("general.name") + struct.pack("<I", 8) + _string(name),
    ]
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path
