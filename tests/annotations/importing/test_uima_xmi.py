"""UIMA CAS XMI through dkpro-cassis: a project's annotations and gold versions exported in an
INCEpTION project export's layout and imported back record for record; every exported CAS,
read back by cassis, shows what the database holds. Folders shaped like INCEpTION's own
export and bad files: test_uima_inception_folders.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cassis import TypeSystem, load_cas_from_xmi, load_typesystem
from django.utils import timezone

from annotations.models import Annotation, Document, GoldDocument, GoldSpan, GoldStandard
from tests.support.uima_projects import (
    FALLACY,
    SENTENCE,
    TEXTS,
    call,
    gold_records,
    new_project,
    records,
    richer_project,
    sentences_by_text,
    sentences_of,
    source_project,
)

pytestmark = pytest.mark.django_db


def test_annotations_round_trip_through_cassis(tmp_path: Path) -> None:
    source = source_project()
    out = tmp_path / "export"
    said = call("export_dataset", "--project", "Source", "--format", "xmi", "--out", str(out))
    assert "Wrote 3 CAS XMI files" in said
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    second = Document.objects.get(project=source, text=TEXTS[1])
    assert files == [
        "TypeSystem.xml",
        f"annotation/document-{second.pk}/alice.xmi",
        f"annotation/document-{second.pk}/bob.xmi",
        "annotation/speech.txt/alice.xmi",
    ]
    # What INCEpTION would read: the layer, its multi-valued label feature and the slots.
    ts = load_typesystem((out / "TypeSystem.xml").read_text(encoding="utf-8"))
    cas = load_cas_from_xmi(
        (out / f"annotation/document-{second.pk}/bob.xmi").read_text(encoding="utf-8"),
        typesystem=ts,
    )
    assert cas.sofa_string == TEXTS[1]
    [span] = cas.select(FALLACY)
    assert span.labels.elements == ["appeal to anger"]
    assert '"E": "the bankers"' in span.slots
    assert [s.get_covered_text() for s in cas.select(SENTENCE)][:2] == [
        "These bankers emptied your savings!",
        "Vote yes on the new tax.",
    ]

    target = new_project("Target")
    said = call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "Imported 3 CAS files" in said and "0 moved" in said
    assert records(target) == records(source)
    assert len(records(target)) == 3
    for text, sentences in sentences_by_text(target).items():
        assert sentences == sentences_by_text(source)[text]
    assert Document.objects.get(project=target, text=TEXTS[0]).external_id == "speech.txt"

    # Importing again replaces each annotator's annotation of each document.
    said = call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "(3 replaced)" in said
    assert records(target) == records(source)


def test_a_gold_version_round_trips_as_curated_cases(tmp_path: Path) -> None:
    source = source_project()
    gold = GoldStandard.objects.create(project=source, version=1, source="test")
    for document in Document.objects.filter(project=source):
        GoldDocument.objects.create(gold_standard=gold, document=document, comments=["checked"])
    document = Document.objects.get(project=source, text=TEXTS[1])
    bounds = sentences_of(document)
    GoldSpan.objects.create(
        gold_standard=gold,
        document=document,
        start=bounds[0][0],
        end=bounds[1][1],
        labels=["appeal to anger", "no fallacy"],
        details={"appeal to anger": {"slots": {"E": "bankers", "P": "tax"}, "explanation": ""}},
    )
    gold.status, gold.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    gold.save(update_fields=["status", "published_at"])
    out = tmp_path / "gold"
    said = call(
        "export_dataset", "--project", "Source", "--format", "xmi", "--gold-version", "1",
        "--out", str(out),
    )  # fmt: skip
    assert "gold standard v1, 3 documents" in said
    assert (out / f"curation/document-{document.pk}/CURATION_USER.xmi").is_file()

    target = new_project("Target")
    said = call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "published gold standard version 1 (3 documents)" in said
    assert gold_records(target, 1) == gold_records(source, 1)
    assert not Annotation.objects.filter(document__project=target).exists()


# --- what we write, read back by dkpro-cassis ----------------------------------------------


def _type_system(out: Path) -> TypeSystem:
    with (out / "TypeSystem.xml").open("rb") as source:
        return load_typesystem(source)


def _file_view(ts: TypeSystem, path: Path) -> tuple[Any, ...]:
    """A CAS file as cassis reads it: text, sentences, spans (labels, slots, explanations)
    and comments."""
    cas = load_cas_from_xmi(path.read_text(encoding="utf-8"), typesystem=ts)
    spans = sorted(
        (
            s.begin,
            s.end,
            list(s.labels.elements),
            json.loads(s.slots) if s.slots else {},
            json.loads(s.explanations) if s.explanations else {},
        )
        for s in cas.select(FALLACY)
    )
    comments = [c.text for c in cas.select("webanno.custom.FallacyComment")]
    sentences = [(s.begin, s.end) for s in cas.select(SENTENCE)]
    return cas.sofa_string, sentences, spans, comments


def _database_view(document: Document, spans: Any, comments: list[str]) -> tuple[Any, ...]:
    """The same view of a document's spans as stored."""
    rows = sorted(
        (
            s.start,
            s.end,
            list(s.labels),
            {label: d.get("slots") or {} for label, d in s.details.items()},
            {label: d["explanation"] for label, d in s.details.items() if d.get("explanation")},
        )
        for s in spans
    )
    return document.text, sentences_of(document), rows, list(comments)


def test_every_exported_cas_reads_back_through_cassis(tmp_path: Path) -> None:
    source = richer_project()
    out = tmp_path / "export"
    said = call("export_dataset", "--project", "Source", "--format", "xmi", "--out", str(out))
    assert "Wrote 5 CAS XMI files" in said
    ts = _type_system(out)
    names = {}
    for document in Document.objects.filter(project=source):
        names[document.pk] = document.external_id or f"document-{document.pk}"
    seen = 0
    for annotation in Annotation.objects.filter(document__project=source).select_related(
        "document", "annotator"
    ):
        path = out / "annotation" / names[annotation.document_id]
        path /= f"{annotation.annotator.username}.xmi"
        expected = _database_view(annotation.document, annotation.spans.all(), annotation.comments)
        assert _file_view(ts, path) == expected, path
        seen += 1
    assert seen == 5
    carol = _file_view(ts, out / "annotation/speech.txt/carol.xmi")
    assert [span[2] for span in carol[2]] == [
        ["ad hominem"],
        ["appeal to ridicule", "no fallacy"],
    ]  # two spans on one range stay two

    target = new_project("Target")
    said = call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "0 moved" in said and "stacked annotations merged: 0" in said
    assert records(target) == records(source)


def test_an_exported_gold_version_reads_back_through_cassis(tmp_path: Path) -> None:
    source = richer_project()
    gold = GoldStandard.objects.create(project=source, version=1, source="test")
    documents = list(Document.objects.filter(project=source).order_by("position"))
    for document in documents:
        GoldDocument.objects.create(gold_standard=gold, document=document, comments=["ok"])
    bounds = sentences_of(documents[1])
    anger = {"slots": {"E": "bankers", "P": "tax"}, "explanation": "anger instead of reasons"}
    for labels, details in (
        (["appeal to anger", "no fallacy"], {"appeal to anger": anger}),
        (["appeal to fear"], {}),
    ):
        GoldSpan.objects.create(
            gold_standard=gold, document=documents[1], start=bounds[0][0], end=bounds[1][1],
            labels=labels, details=details,
        )  # fmt: skip
    gold.status, gold.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    gold.save(update_fields=["status", "published_at"])
    out = tmp_path / "gold"
    call(
        "export_dataset", "--project", "Source", "--format", "xmi", "--gold-version", "1",
        "--out", str(out),
    )  # fmt: skip
    ts = _type_system(out)
    for document in documents:
        name = document.external_id or f"document-{document.pk}"
        spans = GoldSpan.objects.filter(gold_standard=gold, document=document)
        expected = _database_view(document, spans, ["ok"])
        assert _file_view(ts, out / "curation" / name / "CURATION_USER.xmi") == expected

    target = new_project("Target")
    call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert gold_records(target, 1) == gold_records(source, 1)
    assert len(gold_records(target, 1)[TEXTS[1]][1]) == 2
