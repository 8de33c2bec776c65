"""A text with characters outside the Basic Multilingual Plane (emoji, a ZWJ family, a flag,
mathematical letters), combining marks and right-to-left scripts, twice: in a span project
and in an item project with a segmentation question. ``uni-ann`` annotates both. Data of
``tests/e2e/test_unicode_offsets.py``.

Run as a script against the database the environment selects, after ``migrate``::

    python tests/e2e/seed_unicode.py

Prints a JSON object: {"username", "spans": {project, document}, "items": {project, document}}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import mafalda, setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

ANNOTATOR = "uni-ann"
SPANS = "Unicode offsets: spans"
ITEMS = "Unicode offsets: items"
SENTENCES = [
    "😀😀😀😀 Emoji first sentence here.",
    "The family 👩‍👩‍👧 and the flag 🇫🇷 came along.",
    "Cafe\u0301 and nai\u0308ve keep their combining marks.",
    "مرحبا بالعالم هنا.",
    "שלום עולם כאן.",
    "The 𝐀𝐁𝐂 letters close it.",
]
TEXT = " ".join(SENTENCES)
FORM = {
    "fields": [
        {
            "name": "segments",
            "kind": "segmentation",
            "title": "Mark the passages",
            "labels": ["claim", "premise"],
        }
    ]
}


def sentence_ranges() -> list[tuple[int, int]]:
    """Code-point ranges of SENTENCES in TEXT (Python str offsets, as the server stores)."""
    out, pos = [], 0
    for s in SENTENCES:
        out.append((pos, pos + len(s)))
        pos += len(s) + 1
    return out


def ensure() -> dict:
    from annotations.models import Document, Project
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    annotator = _user(ANNOTATOR)
    spans = Project.objects.filter(name=SPANS).first()
    if spans is None:
        spans = create_project(name=SPANS, taxonomy=mafalda())
        add_member(project=spans, user=annotator, role="annotator")
        add_documents(
            project=spans,
            texts=[NewDocument(text=TEXT, external_id="unicode-1", sentences=sentence_ranges())],
        )
        assign_documents(project=spans, annotator=annotator)
    items = Project.objects.filter(name=ITEMS).first()
    if items is None:
        items = Project.objects.create(name=ITEMS, taxonomy=mafalda(), kind="items", form=FORM)
        add_member(project=items, user=annotator, role="annotator")
        metadata = {"format": "e2e", "record": {"id": "unicode-item"}, "gold": {}}
        add_documents(
            project=items,
            texts=[NewDocument(text=TEXT, external_id="unicode-item", metadata=metadata)],
        )
        assign_documents(project=items, annotator=annotator)

    def first(project: Project) -> int:
        return Document.objects.filter(project=project).order_by("position").first().pk

    return {
        "username": ANNOTATOR,
        "spans": {"project": spans.pk, "document": first(spans)},
        "items": {"project": items.pk, "document": first(items)},
    }


if __name__ == "__main__":
    setup_django()
    print(json.dumps(ensure()))
