"""A Hugging Face dataset folder uploaded through the Import tab, as a .zip of the folder.

The archive may hold the folder's files at its top (``README.md``, ``data/...``) or inside
one folder (``hf/README.md``, ...): the shallowest ``README.md`` marks the dataset's root.
It is unpacked and read in a bounded child process (``importing.untrusted``: paths outside
the folder refused; members, unpacked bytes, Parquet rows and row groups, memory, time and
disk bounded); errors name the file inside the folder
(``data/test-00000-of-00001.parquet: row 2: spans[0].end: ...``), the archive itself, or the
limit reached and its setting.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from annotations.importing.formats.hf import HFFolder, HFFormatError
from annotations.importing.hf import (
    HFImportReport,
    check_kind,
    import_hf_gold,
    import_hf_items,
    row_problems,
)
from annotations.importing.untrusted import hf_folder_from_archive
from annotations.models import Project


def read_hf_archive(*, content: bytes, name: str) -> HFFolder:
    """The archive's dataset folder as plain rows, read in a bounded child process."""
    return hf_folder_from_archive(content=content, name=name)


def check_hf_folder(
    *,
    folder: HFFolder,
    project: Project,
    on_total: Callable[[int], None],
    on_row: Callable[[int], None],
) -> list[HFFormatError]:
    """Every bad row of the archive's dataset folder, for ``project``; ``on_total`` gets the
    number of rows, ``on_row`` each row checked."""
    on_total(sum(len(split.rows) for split in folder.splits))
    problems = []
    for number, problem in enumerate(row_problems(folder=folder, project=project), 1):
        on_row(number)
        if problem is not None:
            problems.append(problem)
    return problems


def import_hf_archive(*, folder: HFFolder, name: str, project: Project) -> HFImportReport:
    """The archive's dataset folder (as ``read_hf_archive`` read it) imported into
    ``project`` (all or nothing)."""
    check_kind(folder, project)
    if folder.platform["kind"] == "items":
        return import_hf_items(folder=folder, path=Path(name), project=project, name=name)
    return import_hf_gold(folder=folder, path=Path(name), project=project, name=name)
