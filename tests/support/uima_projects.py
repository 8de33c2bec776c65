"""The projects and CAS files the UIMA CAS XMI tests (tests/annotations/importing/
test_uima_*.py) build: a source project of three texts annotated by alice and bob (and a
richer one with carol), what the database holds of a project's annotations and gold
versions, and CAS files shaped like INCEpTION's project exports, built with dkpro-cassis."""

from __future__ import annotations

import io
from typing import Any

from cassis import Cas, TypeSystem
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotations.models import (
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Span,
)
from annotations.services.annotations import create_span, start_annotation, submit_annotation
from annotations.services.documents import NewDocument, add_documents, assign_documents
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset

FALLACY = "webanno.custom.Fallacy"
SENTENCE = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence"
TEXTS = (
    "Vote for me. My rival lies all the time. Everyone knows it.",
    "These bankers emptied your savings! Vote yes on the new tax. Thank you.",
    "Nothing to see here. Just a plain text.",
)


def new_project(name: str = "Source") -> Project:
    """An empty span project on the MAFALDA taxonomy."""
    return create_project(name=name, taxonomy=install_preset(name="mafalda"))


def sentences_of(document: Document) -> list[tuple[int, int]]:
    return list(document.sentences.order_by("index").values_list("start", "end"))


def annotate(
    document: Document, username: str, spans: list[dict[str, Any]], comments: list[str]
) -> None:
    """``username``'s submitted annotation of ``document`` with these spans and comments."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    if not document.project.memberships.filter(user=user).exists():
        add_member(project=document.project, user=user, role="annotator")
    assign_documents(project=document.project, annotator=user, documents=[document])
    annotation = start_annotation(document=document, annotator=user)
    for span in spans:
        create_span(annotation=annotation, **span)
    annotation.comments = comments
    annotation.save(update_fields=["comments"])
    submit_annotation(annotation=annotation)


def source_project() -> Project:
    """Three texts; alice and bob annotate with alternatives and filled template slots."""
    project = new_project()
    first, second, _ = add_documents(
        project=project,
        texts=[NewDocument(text=TEXTS[0], external_id="speech.txt")]
        + [NewDocument(text=t) for t in TEXTS[1:]],
    )
    s1, s2 = sentences_of(first), sentences_of(second)
    anger = {"slots": {"E": "the bankers", "P": "vote yes"}, "explanation": "outrage as reason"}
    annotate(
        first,
        "alice",
        [{"start": s1[1][0], "end": s1[2][1], "labels": ["ad hominem", "appeal to ridicule"]}],
        ["second sentence is the attack"],
    )
    annotate(
        second,
        "alice",
        [
            {"start": s2[0][0], "end": s2[1][1], "labels": ["appeal to anger", "nothing"]},
            {"start": s2[2][0], "end": s2[2][1], "labels": ["appeal to positive emotion"]},
        ],
        [],
    )
    annotate(
        second,
        "bob",
        [
            {
                "start": s2[0][0],
                "end": s2[1][1],
                "labels": ["appeal to anger"],
                "details": {"appeal to anger": anger},
            }
        ],
        ["sure", "really sure"],
    )
    return project


def records(project: Project) -> dict[tuple[str, str], Any]:
    """(annotator, text) -> (status, comments, spans with labels and details)."""
    out = {}
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "document", "annotator"
    ):
        spans = [
            (s.start, s.end, s.labels, s.details)
            for s in Span.objects.filter(annotation=annotation).order_by("start", "end")
        ]
        out[(annotation.annotator.username, annotation.document.text)] = (
            annotation.status,
            annotation.comments,
            spans,
        )
    return out


def gold_records(project: Project, version: int) -> dict[str, Any]:
    gold = GoldStandard.objects.get(project=project, version=version)
    out = {}
    for entry in GoldDocument.objects.filter(gold_standard=gold).select_related("document"):
        spans = GoldSpan.objects.filter(gold_standard=gold, document=entry.document)
        out[entry.document.text] = (
            entry.comments,
            [(s.start, s.end, s.labels, s.details) for s in spans.order_by("start", "end")],
        )
    return out


def sentences_by_text(project: Project) -> dict[str, list[tuple[int, int]]]:
    return {d.text: sentences_of(d) for d in Document.objects.filter(project=project)}


def call(*args: str) -> str:
    """A management command's output."""
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def richer_project() -> Project:
    """The source project, and carol: two spans on one range (two required labels), an
    explanation, a slot left empty; and an annotation without spans."""
    project = source_project()
    first, second, third = Document.objects.filter(project=project).order_by("position")
    s1 = sentences_of(first)
    why = {"appeal to ridicule": {"slots": {}, "explanation": "mocks, does not argue"}}
    spans = [
        {"start": s1[0][0], "end": s1[0][1], "labels": ["ad hominem"]},
        {"start": s1[0][0], "end": s1[0][1], "labels": ["appeal to ridicule", "no fallacy"],
         "details": why},
    ]  # fmt: skip
    annotate(first, "carol", spans, ["two on one"])
    annotate(third, "carol", [], [])
    return project


def inception_type_system() -> TypeSystem:
    """As an INCEpTION project with a custom span layer would export it: DKPro Core types
    with their own features, and the layer with a multi-valued string feature only."""
    ts = TypeSystem()
    sentence = ts.create_type(SENTENCE, supertypeName="uima.tcas.Annotation")
    ts.create_feature(sentence, "id", "uima.cas.String")
    token = ts.create_type(
        "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token",
        supertypeName="uima.tcas.Annotation",
    )
    ts.create_feature(token, "order", "uima.cas.Integer")
    layer = ts.create_type(FALLACY, supertypeName="uima.tcas.Annotation")
    ts.create_feature(layer, "labels", "uima.cas.StringArray", elementType="uima.cas.String")
    return ts


def inception_cas(ts: TypeSystem, text: str, spans: list[tuple[int, int, list[str]]]) -> str:
    cas = Cas(typesystem=ts)
    cas.sofa_string = text
    sentence, layer = ts.get_type(SENTENCE), ts.get_type(FALLACY)
    start = 0
    for part in text.split(". "):
        end = start + len(part) + (0 if part.endswith(".") else 1)
        cas.add(sentence(begin=start, end=end))  # INCEpTION's own split: whole sentences
        start = end + 1
    strings = ts.get_type("uima.cas.StringArray")
    for begin, end, labels in spans:
        cas.add(layer(begin=begin, end=end, labels=strings(elements=labels)))
    return cas.to_xmi()
