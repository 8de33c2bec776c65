"""Text offsets count Unicode code points everywhere in the API, and the schema says so."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotations.services.documents import NewDocument, add_documents, assign_documents
from tests.support.factories import PASSWORD, make_world

pytestmark = pytest.mark.django_db

SENTENCES = [
    "😀😀😀😀 Emoji first sentence here.",
    "The family 👩‍👩‍👧 and the flag 🇫🇷 came along.",
    "The 𝐀𝐁𝐂 letters close it.",
]


def _offset_properties(schema: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(component, field, description) of every integer start/end in the schema."""
    out = []
    for name, component in schema["components"]["schemas"].items():
        for field, spec in (component.get("properties") or {}).items():
            if field in ("start", "end") and spec.get("type") == "integer":
                out.append((name, field, spec.get("description", "")))
    return out


def test_every_offset_field_of_the_schema_names_its_unit() -> None:
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    fields = _offset_properties(response.json())
    names = {name for name, _, _ in fields}
    assert {"Sentence", "Span", "SpanCreateRequest", "SpanPatchRequest", "Suggestion"} <= names
    undocumented = [(n, f) for n, f, d in fields if "Unicode code points" not in d]
    assert undocumented == []


def test_sentences_and_spans_of_an_emoji_text_are_code_point_ranges() -> None:
    world = make_world()
    doc = add_documents(project=world.p1, texts=[NewDocument(text=" ".join(SENTENCES))])[0]
    assign_documents(project=world.p1, annotator=world.ann1, documents=[doc])
    client = APIClient()
    assert client.login(username="ann1", password=PASSWORD)

    served = client.get(f"/api/documents/{doc.pk}/").json()
    text = served["text"]
    shown = [text[s["start"] : s["end"]] for s in served["sentences"]]
    assert shown == SENTENCES  # the server's own split, in code points

    annotation = client.post(f"/api/documents/{doc.pk}/my-annotation/", {}, format="json").json()
    first, last = served["sentences"][0], served["sentences"][1]
    created = client.post(
        f"/api/annotations/{annotation['id']}/spans/",
        {"start": first["start"], "end": last["end"], "labels": ["ad hominem"]},
        format="json",
    )
    assert created.status_code == 201, created.content
    span = created.json()
    assert text[span["start"] : span["end"]] == " ".join(SENTENCES[:2])
