"""A Hugging Face dataset folder uploaded through the Import tab, as a .zip of the folder.

The archive may hold the folder's files at its top (``README.md``, ``data/...``) or inside
one folder (``hf/README.md``, ...): the shallowest ``README.md`` marks the dataset's root.
It is unpacked into a temporary folder (members with absolute paths or ``..`` refused, the
unpacked size bounded) and read by ``importing.hf``; errors name the file inside the folder
(``data/test-00000-of-00001.parquet: row 2: spans[0].end: ...``) or the archive itself.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from django.conf import settings

from annotations.importing.formats.hf import CARD, HFFormatError
from annotations.importing.hf import (
    HFImportReport,
    check_kind,
    import_hf_gold,
    import_hf_items,
    read_folder,
    row_problems,
)
from annotations.models import Project

#: The most an archive may unpack to (compressed Parquet and zip bombs alike).
MAX_UNPACKED_BYTES = 8 * settings.UPLOAD_MAX_BYTES
IGNORED = ("__MACOSX/",)


def _members(archive: zipfile.ZipFile, name: str) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    members = []
    for info in archive.infolist():
        if info.is_dir() or info.filename.startswith(IGNORED):
            continue
        path = PurePosixPath(info.filename)
        if path.is_absolute() or ".." in path.parts:
            raise HFFormatError(name, 0, info.filename, "a path outside the folder")
        members.append((info, path))
    if sum(info.file_size for info, _ in members) > MAX_UNPACKED_BYTES:
        limit = MAX_UNPACKED_BYTES // (1024 * 1024)
        raise HFFormatError(name, 0, None, f"unpacks to more than {limit} MiB")
    return members


@contextmanager
def unpacked(content: bytes, name: str) -> Iterator[Path]:
    """The dataset folder of the archive ``content``, unpacked into a temporary folder that
    is removed afterwards."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except zipfile.BadZipFile:
        raise HFFormatError(
            name, 0, None, "not a .zip archive: upload the dataset folder zipped"
        ) from None
    with archive, tempfile.TemporaryDirectory(prefix="hf-import-") as temporary:
        members = _members(archive, name)
        cards = sorted((p for _, p in members if p.name == CARD), key=lambda p: len(p.parts))
        if not cards:
            raise HFFormatError(name, 0, None, "no dataset card (README.md) in the archive")
        root = cards[0].parent
        for info, path in members:
            if root.parts and path.parts[: len(root.parts)] != root.parts:
                continue
            target = Path(temporary, *path.parts[len(root.parts) :])
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(info) as source, target.open("wb") as sink:
                    shutil.copyfileobj(source, sink)
            except (zipfile.BadZipFile, OSError, EOFError) as error:
                raise HFFormatError(name, 0, info.filename, f"unreadable: {error}") from None
        yield Path(temporary)


def check_hf_archive(
    *,
    content: bytes,
    name: str,
    project: Project,
    on_total: Callable[[int], None],
    on_row: Callable[[int], None],
) -> list[HFFormatError]:
    """Every bad row of the archive's dataset folder, for ``project``; ``on_total`` gets the
    number of rows once the folder is read, ``on_row`` each row checked. A problem of the
    archive, the card or a file's columns is raised."""
    with unpacked(content, name) as root:
        folder = read_folder(root)
        on_total(sum(len(split.rows) for split in folder.splits))
        problems = []
        for number, problem in enumerate(row_problems(folder=folder, project=project), 1):
            on_row(number)
            if problem is not None:
                problems.append(problem)
        return problems


def import_hf_archive(*, content: bytes, name: str, project: Project) -> HFImportReport:
    """The archive's dataset folder imported into ``project`` (all or nothing)."""
    with unpacked(content, name) as root:
        folder = read_folder(root)
        check_kind(folder, project)
        if folder.platform["kind"] == "items":
            return import_hf_items(folder=folder, path=root, project=project, name=name)
        return import_hf_gold(folder=folder, path=root, project=project, name=name)
