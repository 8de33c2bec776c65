"""SQLite's write-ahead log does not keep a large import's size: the import checkpoints it
and truncates it (``fallacy_platform.wal``), so the ``-wal`` file is back under a small bound
afterwards instead of holding the import's pages for good."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from fallacy_platform import wal

from annotations.models import Document

BOUND = 1 << 20  # bytes: far below the import's pages


@pytest.mark.django_db(transaction=True)
def test_a_large_import_leaves_a_small_wal(tmp_path: Path, monkeypatch) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's write-ahead log")
    log = Path(connection.settings_dict["NAME"] + "-wal")
    before: list[int] = []
    checkpoint = wal.checkpoint_wal

    def measured(**kwargs) -> bool:
        before.append(log.stat().st_size)
        return checkpoint(**kwargs)

    monkeypatch.setattr("annotations.management.commands.import_dataset.checkpoint_wal", measured)
    texts = [f"Text {i}: " + "words of a longer text " * 200 for i in range(2000)]  # 9 MB
    corpus = tmp_path / "texts.txt"
    corpus.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    call_command("import_dataset", "--format", "text", str(corpus), "--project", "Large")
    assert Document.objects.filter(project__name="Large").count() == len(texts)
    assert before and before[0] > 8 * BOUND  # the import's pages were in the log
    assert log.stat().st_size < BOUND
