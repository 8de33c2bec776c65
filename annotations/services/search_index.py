"""The document search's trigram indexes, filled after a bulk import (PostgreSQL).

On PostgreSQL the trigram indexes of the text and the name (``document_text_trgm``,
``document_name_trgm``: migrations 0004 and 0014) cover the documents marked
``in_search_index``. Adding each row of a large import to them as it is written was over
half of the import's time (10,000 texts, 26 MB: 6 of 12 s), so the importers write their
documents unmarked (``deferred()``) and, once the import has committed, ``index_pending``
marks them in batches of their own: the indexes then take them in, while the documents are
already listed. The search finds every document meanwhile
(``selectors.documents.text_search``: the unmarked ones by a scan of the project's few), so
only its speed waits for this step. Elsewhere (SQLite: no such indexes) documents are written
marked and there is nothing to do.
"""

from __future__ import annotations

from django.db import connection, transaction

from annotations.models import Document

INDEX_BATCH = 1000  # documents marked per transaction


def deferred() -> bool:
    """Whether a bulk import writes its documents outside the search index (PostgreSQL)."""
    return connection.vendor == "postgresql"


def index_pending(*, project_id: int | None = None, batch: int = INDEX_BATCH) -> int:
    """Mark the project's (every project's, without one) unmarked documents, ``batch`` to a
    transaction; returns how many. Each document takes its row lock as it is marked: a
    concurrent change of a document waits for one batch at most."""
    pending = Document.objects.filter(in_search_index=False)
    if project_id is not None:
        pending = pending.filter(project_id=project_id)
    marked = 0
    while True:
        with transaction.atomic():
            ids = list(pending.order_by("pk").values_list("pk", flat=True)[:batch])
            if not ids:
                return marked
            marked += Document.objects.filter(pk__in=ids, in_search_index=False).update(
                in_search_index=True
            )


def index_left_pending(*, stale_after: float) -> list[str]:
    """The workers' sweep (``fallacy_platform.liveness``): index the documents an import left
    unmarked when its process died between the import's commit and ``index_pending``, in
    every project with no import job running; one line per project indexed."""
    from annotations.models import ImportJob

    busy = ImportJob.objects.filter(status=ImportJob.Status.RUNNING).values("project_id")
    projects = (
        Document.objects.filter(in_search_index=False)
        .exclude(project_id__in=busy)
        .values_list("project_id", flat=True)
        .distinct()
    )
    done = []
    for project_id in list(projects):
        marked = index_pending(project_id=project_id)
        if marked:
            done.append(f"project {project_id}: {marked} documents added to the search index")
    return done
