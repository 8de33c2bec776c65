"""Hostile import files, built at test time (nothing large is committed): bombs that are
small on the wire and huge once unpacked or decoded, malformed archives, deep and huge
documents."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from annotations.importing.formats.hf import SPAN_SCHEMA

MIB = 1024 * 1024


def _span_card() -> str:
    metadata = {
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": "test", "path": "data/test-00000-of-00001.parquet"}],
            }
        ],
        "fallacy_platform": {"kind": "spans"},
    }
    return f"---\n{yaml.safe_dump(metadata)}---\n\nA dataset.\n"


def parquet_bomb(rows: int = 200_000, width: int = 1000, row_group: int | None = None) -> bytes:
    """A few KB of Parquet: ``rows`` rows of one ``width``-character, dictionary-encoded
    text (the span schema: the other columns empty)."""
    text = pa.DictionaryArray.from_arrays(
        pa.array([0] * rows, pa.int32()), pa.array(["x" * width])
    ).cast(pa.string())
    columns = {
        field.name: (text if field.name == "text" else pa.nulls(rows, field.type))
        for field in SPAN_SCHEMA
    }
    table = pa.table({name: columns[name] for name in SPAN_SCHEMA.names})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", row_group_size=row_group or rows)
    return sink.getvalue()


def hf_zip(parquet: bytes, *, extra: dict[str, bytes] | None = None) -> bytes:
    """An HF dataset folder .zip (as the Import tab takes it) around one Parquet file."""
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("hf/README.md", _span_card())
        archive.writestr("hf/data/test-00000-of-00001.parquet", parquet)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return sink.getvalue()


def parquet_bomb_zip() -> bytes:
    """The Import tab's Parquet bomb: 200,000 rows of a 1,000-character text in a dataset
    .zip of about 30 KB (200 MB once decoded)."""
    return hf_zip(parquet_bomb())


def _zeros_deflated(size: int) -> tuple[bytes, int]:
    """A raw deflate stream of ``size`` zero bytes (a whole number of MiB) and its CRC-32,
    made from one compressed MiB repeated (each ends on a full flush), so quickly."""
    block = bytes(MIB)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    once = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size // MIB):
        crc = zlib.crc32(block, crc)
    return once * (size // MIB) + compressor.flush(zlib.Z_FINISH), crc


def raw_zip(members: list[tuple[str, bytes]], *, bomb: tuple[str, int] | None = None) -> bytes:
    """A .zip written header by header: ``members`` stored as they are, and ``bomb`` (name,
    size) a deflated member of that many zeros."""
    entries = [(name, 0, data, zlib.crc32(data), len(data)) for name, data in members]
    if bomb is not None:
        data, crc = _zeros_deflated(bomb[1])
        entries.append((bomb[0], 8, data, crc, bomb[1]))
    body, directory = io.BytesIO(), io.BytesIO()
    for name, method, data, crc, size in entries:
        encoded, offset = name.encode(), body.tell()
        fields = (20, 0, method, 0, 0, crc, len(data), size, len(encoded), 0)
        body.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + encoded + data)
        directory.write(
            struct.pack("<IH", 0x02014B50, 20)
            + struct.pack("<HHHHHIIIHHHHHII", *fields, 0, 0, 0, 0, offset)
            + encoded
        )
    start, central = body.tell(), directory.getvalue()
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), start, 0
    )
    return body.getvalue() + central + end


def zip_bomb(size: int = 780 * MIB, *, dataset: bool = True) -> bytes:
    """About 800 KB: a valid span dataset folder (when ``dataset``) plus a member of ``size``
    zeros."""
    members = []
    if dataset:
        members = [
            ("hf/README.md", _span_card().encode()),
            ("hf/data/test-00000-of-00001.parquet", parquet_bomb(rows=1, width=5)),
        ]
    return raw_zip(members, bomb=("hf/padding.bin", size))
