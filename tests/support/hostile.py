"""Hostile import files, built at test time (nothing large is committed): bombs that are
small on the wire and huge once unpacked or decoded, malformed archives, deep and huge
documents."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from pathlib import Path

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


# --- the corpus: deep and huge documents, malformed archives -----------------------------------


def deep_json_line(depth: int = 100_000) -> bytes:
    """One JSON Lines record whose ``text`` is an array nested ``depth`` levels deep."""
    return b'{"text": ' + b"[" * depth + b"]" * depth + b"}\n"


def deep_json_document(depth: int = 100_000) -> bytes:
    """A Label Studio export (one JSON array) nested ``depth`` levels deep in a task."""
    return b'[{"data": {"text": ' + b"[" * depth + b"]" * depth + b"}}]"


def huge_line(size: int = 900 * 1024) -> bytes:
    """A JSON Lines file of one record: a text of ``size`` characters without a space."""
    return json.dumps({"text": "a" * size}).encode() + b"\n"


def huge_csv_field(size: int = 900 * 1024) -> bytes:
    return b"text\n" + b'"' + b"b" * size + b'"\n'


def many_members(count: int = 5000) -> bytes:
    """A dataset .zip of ``count`` empty members beside its card."""
    members = [("hf/README.md", _span_card().encode())]
    members += [(f"hf/data/{n}.txt", b"") for n in range(count)]
    return raw_zip(members)


def truncated_zip() -> bytes:
    """The first half of a valid dataset .zip (no central directory)."""
    whole = hf_zip(parquet_bomb(rows=50, width=20))
    return whole[: len(whole) // 2]


def not_parquet_zip() -> bytes:
    """A dataset .zip whose Parquet file is random-looking bytes."""
    return raw_zip(
        [
            ("hf/README.md", _span_card().encode()),
            ("hf/data/test-00000-of-00001.parquet", b"PAR1" + bytes(range(256)) * 8 + b"PAR1"),
        ]
    )


def many_rows_parquet(rows: int = 5000) -> bytes:
    """Short distinct texts, in row groups of 1000 rows."""
    texts = pa.array([f"text {n}" for n in range(rows)])
    columns = {
        field.name: (texts if field.name == "text" else pa.nulls(rows, field.type))
        for field in SPAN_SCHEMA
    }
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink, row_group_size=1000)
    return sink.getvalue()


def write_hf_folder(folder: Path, parquet: bytes) -> Path:
    """An HF dataset folder (as ``import_dataset --format hf`` takes it) around the Parquet."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(_span_card(), encoding="utf-8")
    (folder / "data" / "test-00000-of-00001.parquet").write_bytes(parquet)
    return folder


LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
<!ENTITY lol "lolololololololololololololololololololololololololololololololololol">
<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
<!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
<!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
"""


def _xmi(doctype: bytes, sofa: str) -> bytes:
    return (
        doctype
        + (
            '<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore" '
            'xmi:version="2.0"><cas:NULL xmi:id="0"/>'
            f'<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" mimeType="text" '
            f'sofaString="{sofa}"/><cas:View sofa="1" members=""/></xmi:XMI>'
        ).encode()
    )


def billion_laughs_xmi() -> bytes:
    return _xmi(LAUGHS, "&lol9;")


def external_entity_xmi(target: Path) -> bytes:
    doctype = f'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{target}">]>\n'
    return _xmi(doctype.encode(), "&xxe;")


def inspect_log_bomb(size: int = 400 * MIB) -> bytes:
    """An Inspect ``.eval`` log (a .zip) of about 400 KB whose one sample unpacks to ``size``
    bytes of JSON."""
    return raw_zip(
        [("header.json", json.dumps({"status": "success"}).encode())],
        bomb=("samples/1_epoch_1.json", size),
    )


def list_bomb(size: int = 1_000_000) -> bytes:
    """A JSON array of ``size // 3`` empty arrays: each 3 bytes decodes to a ~64-byte object
    (about 70 MiB of Python objects for the default, from under 1 MiB)."""
    return b"[" + b"[]," * (size // 3 - 1) + b"[]]"


def bomb_line(key: str = "metadata", *, text: str = "x", size: int = 1_000_000) -> bytes:
    """A JSON Lines file of one record whose ``key`` holds ``list_bomb``."""
    head = b'{"text": ' + json.dumps(text).encode() + b', "' + key.encode() + b'": '
    return head + list_bomb(size) + b"}\n"
