"""Hugging Face dataset folders (pure Python, pyarrow and PyYAML; no Django import).

A folder ``datasets.load_dataset(path)`` loads::

    README.md                                  dataset card: YAML front matter, then Markdown
    data/<split>-00000-of-00001.parquet        one Parquet file per split

The card's front matter holds the Hub's keys (``license``, ``language``, ``task_categories``,
``configs`` with the data files of each split, ``dataset_info`` with the features) and
``fallacy_platform``: what the import needs back (``kind``: ``spans`` or ``items``, the
project, the gold version, the taxonomy's name and version, an item project's form).

Span rows: ``id``, ``text``, ``sentences`` (``[{start, end}]``, the sentence units),
``spans`` (``[{start, end, labels, details}]``: ``labels`` the alternatives, ``details``
the template slots and explanation per label), ``comments``. Item rows: ``id``, ``text``,
``options`` (``[{key, text}]``), ``candidate`` and ``gold``, a struct with one member per
answer field of the form (``null`` where the item has no answer key for it). Both then
carry the document's stored fields (``DOCUMENT_COLUMNS``): ``source``, ``position`` and
``metadata``, the document's metadata as a JSON object string (an item's without the
``options``, ``candidate`` and ``gold`` its own columns hold: a FLUB item's ``record`` keeps
``is_question`` and the raw ``type``). These three may be missing from a folder (written
by hand or by an older export): they read as null.

``read_hf_folder`` checks the card and every file's columns and raises ``HFFormatError``
naming the file, the row (1-based) and the field at the first problem.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from fallacy_platform.bounded import LimitExceeded, limit

from annotations.importing.formats.errors import DatasetFormatError

CARD = "README.md"
DATA = "data"
PLATFORM_KEY = "fallacy_platform"
DEFAULT_SPLIT = "test"
BATCH_ROWS = 1024  # rows decoded at a time

DETAIL = pa.struct(
    [
        ("label", pa.string()),
        ("slots", pa.list_(pa.struct([("name", pa.string()), ("value", pa.string())]))),
        ("explanation", pa.string()),
    ]
)
SPAN = pa.struct(
    [
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("labels", pa.list_(pa.string())),
        ("details", pa.list_(DETAIL)),
    ]
)
# The document's stored fields, last in every row; optional on reading.
DOCUMENT_COLUMNS = [("source", pa.string()), ("position", pa.int64()), ("metadata", pa.string())]
OPTIONAL_COLUMNS = frozenset(name for name, _ in DOCUMENT_COLUMNS)
SPAN_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("text", pa.string()),
        ("sentences", pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64())]))),
        ("spans", pa.list_(SPAN)),
        ("comments", pa.list_(pa.string())),
        *DOCUMENT_COLUMNS,
    ]
)
SEGMENT = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("label", pa.string())])
# Arrow type of the answer key of each answer kind (``annotations.items``).
GOLD_TYPES: dict[str, pa.DataType] = {
    "multiple-choice": pa.string(),
    "classification": pa.string(),
    "free-text": pa.string(),
    "ranked": pa.list_(pa.string()),
    "detection": pa.bool_(),
    "segmentation": pa.list_(SEGMENT),
}


class HFFormatError(DatasetFormatError):
    """``data/test-00000-of-00001.parquet: row 3: spans[0].end: 90 is beyond the text``."""

    def __str__(self) -> str:
        where = f"{self.path}: row {self.line}" if self.line else self.path
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


def item_schema(answer_fields: Sequence[tuple[str, str]]) -> pa.Schema:
    """The item rows' schema for the form's answer fields ``(name, kind)`` (no ``gold``
    column when there is none: Parquet cannot hold a struct without members)."""
    gold = pa.struct([(name, GOLD_TYPES[kind]) for name, kind in answer_fields])
    return pa.schema(
        [
            ("id", pa.string()),
            ("text", pa.string()),
            ("options", pa.list_(pa.struct([("key", pa.string()), ("text", pa.string())]))),
            ("candidate", pa.string()),
            *([("gold", gold)] if answer_fields else []),
            *DOCUMENT_COLUMNS,
        ]
    )


def split_file(split: str) -> str:
    return f"{DATA}/{split}-00000-of-00001.parquet"


def feature_yaml(data_type: pa.DataType) -> dict[str, Any]:
    """A feature as ``dataset_info.features`` writes it (``dtype``, ``list`` or ``struct``)."""
    if pa.types.is_struct(data_type):
        return {"struct": [{"name": f.name, **feature_yaml(f.type)} for f in data_type]}
    if pa.types.is_list(data_type):
        inner = feature_yaml(data_type.value_type)
        return {"list": inner["dtype"] if set(inner) == {"dtype"} else inner.get("struct", inner)}
    names = {pa.string(): "string", pa.int64(): "int64", pa.bool_(): "bool"}
    return {"dtype": names[data_type]}


def card_metadata(
    *, schema: pa.Schema, counts: Mapping[str, int], hub: Mapping[str, Any], platform: Any
) -> dict[str, Any]:
    """The front matter: the Hub's keys (``hub``: license, language, ...), the configs and
    features of the splits (``counts``: rows per split), and ``fallacy_platform``."""
    return {
        **hub,
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": split, "path": split_file(split)} for split in counts],
            }
        ],
        "dataset_info": {"features": [{"name": f.name, **feature_yaml(f.type)} for f in schema]},
        PLATFORM_KEY: platform,
    }


def write_hf_folder(
    folder: Path,
    *,
    schema: pa.Schema,
    splits: Mapping[str, list[dict[str, Any]]],
    metadata: Mapping[str, Any],
    body: str,
) -> dict[str, int]:
    """Write the splits' rows as Parquet and the card; returns rows per split."""
    (folder / DATA).mkdir(parents=True, exist_ok=True)
    counts = {}
    for split, rows in splits.items():
        table = pa.Table.from_pylist(rows, schema=schema)
        pq.write_table(table, folder / split_file(split))
        counts[split] = len(rows)
    front = yaml.safe_dump(dict(metadata), allow_unicode=True, sort_keys=False)
    (folder / CARD).write_text(f"---\n{front}---\n\n{body}", encoding="utf-8")
    return counts


# --- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HFSplit:
    name: str
    path: str  # relative to the folder, as errors name it
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class HFFolder:
    metadata: dict[str, Any]
    platform: dict[str, Any]
    splits: list[HFSplit]

    def rows(self) -> Iterator[tuple[HFSplit, int, dict[str, Any]]]:
        """``(split, 1-based row, row)`` over every split."""
        for split in self.splits:
            for number, row in enumerate(split.rows, 1):
                yield split, number, row


def read_card(folder: Path) -> dict[str, Any]:
    """The card's front matter; ``HFFormatError`` naming ``README.md`` when unusable."""
    card = folder / CARD
    if not card.is_file():
        raise HFFormatError(str(card), 0, None, "no dataset card (README.md) in the folder")
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---" not in text[3:]:
        raise HFFormatError(CARD, 0, None, "the card has no YAML front matter (--- ... ---)")
    try:
        metadata = yaml.safe_load(text[4 : text.index("\n---", 3)])
    except yaml.YAMLError as error:
        raise HFFormatError(CARD, 0, None, f"the front matter is not valid YAML: {error}") from None
    if not isinstance(metadata, dict):
        raise HFFormatError(CARD, 0, None, "the front matter is not a mapping")
    return metadata


def _data_files(metadata: dict[str, Any]) -> list[tuple[str, str]]:
    configs = metadata.get("configs")
    if not isinstance(configs, list) or not configs or not isinstance(configs[0], dict):
        raise HFFormatError(CARD, 0, "configs", "missing: the card names no data files")
    files = configs[0].get("data_files")
    if not isinstance(files, list) or not all(
        isinstance(f, dict) and isinstance(f.get("split"), str) and isinstance(f.get("path"), str)
        for f in files
    ):
        raise HFFormatError(CARD, 0, "configs[0].data_files", "expected [{split, path}, ...]")
    return [(f["split"], f["path"]) for f in files]


def _read_split(
    folder: Path, split: str, relative: str, schema: pa.Schema, budget: _Budget
) -> HFSplit:
    """The split's rows, read batch by batch (never the whole table at once) within the
    limits on rows, row-group size and decoded bytes (``fallacy_platform.bounded``)."""
    path = folder / relative
    if ".." in Path(relative).parts or not path.is_file():
        raise HFFormatError(relative, 0, None, f"split {split!r}: no such Parquet file")
    try:
        parquet = pq.ParquetFile(path)
        found = parquet.schema_arrow
    except (pa.ArrowException, OSError) as error:
        raise HFFormatError(relative, 0, None, f"not a readable Parquet file: {error}") from None
    for wanted in schema:
        if wanted.name not in found.names and wanted.name not in OPTIONAL_COLUMNS:
            raise HFFormatError(relative, 0, wanted.name, "missing column")
    budget.check_metadata(parquet.metadata, relative)
    present = [name for name in schema.names if name in found.names]
    rows: list[dict[str, Any]] = []
    try:
        for group in range(parquet.num_row_groups):
            decoded = 0
            for batch in parquet.iter_batches(
                batch_size=BATCH_ROWS, row_groups=[group], columns=present
            ):
                decoded += batch.nbytes
                budget.decoded(batch.nbytes, decoded, relative)
                rows.extend(_cast(batch, schema, relative).to_pylist())
    except (pa.ArrowException, OSError) as error:
        raise HFFormatError(relative, 0, None, f"not a readable Parquet file: {error}") from None
    return HFSplit(split, relative, rows)


def _cast(batch: pa.RecordBatch, schema: pa.Schema, relative: str) -> pa.RecordBatch:
    columns = []
    for wanted in schema:
        if wanted.name not in batch.schema.names:
            columns.append(pa.nulls(batch.num_rows, wanted.type))
            continue
        column = batch.column(wanted.name)
        if not column.type.equals(wanted.type):
            try:
                column = column.cast(wanted.type)
            except (pa.ArrowException, ValueError):
                message = f"column of type {column.type}, expected {wanted.type}"
                raise HFFormatError(relative, 0, wanted.name, message) from None
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


class _Budget:
    """What a folder's Parquet files may hold: rows (from the metadata, before reading), a
    row group's size (its metadata, then as decoded) and decoded bytes in all."""

    def __init__(self) -> None:
        self.rows = self.bytes = 0

    def check_metadata(self, metadata: pq.FileMetaData, relative: str) -> None:
        self.rows += metadata.num_rows
        if self.rows > limit("IMPORT_MAX_ROWS"):
            raise LimitExceeded("IMPORT_MAX_ROWS", f"{relative}: more rows than the limit")
        for index in range(metadata.num_row_groups):
            size = metadata.row_group(index).total_byte_size
            if size > limit("IMPORT_MAX_ROW_GROUP_BYTES"):
                raise LimitExceeded(
                    "IMPORT_MAX_ROW_GROUP_BYTES", f"{relative}: row group {index} is too large"
                )

    def decoded(self, size: int, group_so_far: int, relative: str) -> None:
        self.bytes += size
        if group_so_far > limit("IMPORT_MAX_ROW_GROUP_BYTES"):
            raise LimitExceeded(
                "IMPORT_MAX_ROW_GROUP_BYTES", f"{relative}: a row group decodes too large"
            )
        if self.bytes > limit("IMPORT_MAX_UNPACKED_BYTES"):
            raise LimitExceeded("IMPORT_MAX_UNPACKED_BYTES", f"{relative}: decodes too large")


def read_hf_folder(folder: Path, schema_of: Any) -> HFFolder:
    """The card and every split's rows, columns checked against ``schema_of(platform)`` (the
    schema the card's ``fallacy_platform`` entry calls for)."""
    if not folder.is_dir():
        raise HFFormatError(str(folder), 0, None, "not a folder")
    metadata = read_card(folder)
    platform = metadata.get(PLATFORM_KEY)
    if not isinstance(platform, dict) or platform.get("kind") not in ("spans", "items"):
        raise HFFormatError(
            CARD, 0, PLATFORM_KEY, "missing or without kind spans|items: not a platform export"
        )
    schema = schema_of(platform)
    budget = _Budget()
    splits = [
        _read_split(folder, split, path, schema, budget) for split, path in _data_files(metadata)
    ]
    return HFFolder(metadata, platform, splits)
