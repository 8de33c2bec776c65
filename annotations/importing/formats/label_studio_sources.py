"""The annotators a Label Studio export names (pure Python, no Django: it runs in the bounded
child process too).

A *source annotator* is named by its Label Studio user id (``completed_by: 1``) and, in a
snapshot export, its e-mail too (``completed_by: {"id": 1, "email": ...}``). Its *key* is the
id (``"1"``), or the e-mail (lower case) when the file gives no id. Who each becomes on the
platform is ``annotations.importing.label_studio_annotators``'s.

``summarize`` reads a whole file into its task and prediction counts and its annotators: the
annotators read step parses an upload there, in the bounded child for a file larger than
``IMPORT_INPROCESS_MAX_BYTES``, so only this summary reaches the web process.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from annotations.importing.formats.label_studio import (
    Completion,
    LabelStudioTask,
    read_label_studio,
)


def clean_email(raw: str) -> str:
    """The address in Label Studio's annotator name ("First Last a@b.org" in
    ``created_username``), or ""."""
    found = [word for word in raw.split() if "@" in word]
    return found[-1].strip(",") if found else ""


def source_id(completion: Completion) -> str:
    return "" if completion.user_id in (None, "") else str(completion.user_id)


def source_key(completion: Completion) -> str:
    return source_id(completion) or clean_email(completion.email).casefold()


@dataclass
class SourceAnnotator:
    """One annotator of the file, with how much it annotated."""

    key: str
    source_id: str
    email: str
    annotations: int = 0
    regions: int = 0
    username: str = ""  # the platform username our own export wrote in the task's meta

    @property
    def shown(self) -> str:
        if self.source_id and self.email:
            return f"{self.email} (Label Studio user {self.source_id})"
        return self.email or f"Label Studio user {self.source_id}"


def read_annotators(tasks: Iterable[LabelStudioTask]) -> list[SourceAnnotator]:
    """The file's annotators in first-seen order, with their annotation and region counts."""
    found: dict[str, SourceAnnotator] = {}
    for task in tasks:
        for completion in task.annotations:
            key = source_key(completion)
            email = clean_email(completion.email)
            entry = found.setdefault(key, SourceAnnotator(key, source_id(completion), email))
            entry.email = entry.email or email
            entry.username = entry.username or completion.username
            entry.annotations += 1
            entry.regions += len(completion.regions)
    return list(found.values())


@dataclass
class FileAnnotators:
    """What the annotators read step shows of a file: its counts and its annotators."""

    tasks: int
    predictions: int
    annotators: list[SourceAnnotator]


def summarize(source: bytes | str, name: str) -> FileAnnotators:
    """The file (its bytes, or the path of a file on disk) read and validated whole;
    ``DatasetFormatError`` at its first problem."""
    content = source if isinstance(source, bytes) else Path(source).read_bytes()
    tasks = read_label_studio(io.BytesIO(content), name=name)
    predictions = sum(len(task.predictions) for task in tasks)
    return FileAnnotators(len(tasks), predictions, read_annotators(tasks))
