"""UIMA CAS XMI through dkpro-cassis: a project's annotations and gold versions exported in an
INCEpTION project export's layout and imported back record for record; a folder shaped like
INCEpTION's own export (built here with cassis) imported as one annotator per user file; bad
files refused naming the file and the annotation, with nothing written."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from cassis import Cas, TypeSystem, load_cas_from_xmi, load_typesystem
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotations.models import (
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Sentence,
    Span,
)
from annotations.services.annotations import create_span, start_annotation, submit_annotation
from annotations.services.documents import NewDocument, add_documents, assign_documents
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset

pytestmark = pytest.mark.django_db
FALLACY = "webanno.custom.Fallacy"
SENTENCE = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence"
TEXTS = (
    "Vote for me. My rival lies all the time. Everyone knows it.",
    "These bankers emptied your savings! Vote yes on the new tax. Thank you.",
    "Nothing to see here. Just a plain text.",
)


def _project(name: str = "Source") -> Project:
    return create_project(name=name, taxonomy=install_preset(name="mafalda"))


def _sentences(document: Document) -> list[tuple[int, int]]:
    return list(document.sentences.order_by("index").values_list("start", "end"))


def _annotate(document: Document, username: str, spans: list[dict[str, Any]], comments: list):
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


def _source_project() -> Project:
    """Three texts; alice and bob annotate with alternatives and filled template slots."""
    project = _project()
    first, second, _ = add_documents(
        project=project,
        texts=[NewDocument(text=TEXTS[0], external_id="speech.txt")]
        + [NewDocument(text=t) for t in TEXTS[1:]],
    )
    s1, s2 = _sentences(first), _sentences(second)
    anger = {"slots": {"E": "the bankers", "P": "vote yes"}, "explanation": "outrage as reason"}
    _annotate(
        first,
        "alice",
        [{"start": s1[1][0], "end": s1[2][1], "labels": ["ad hominem", "appeal to ridicule"]}],
        ["second sentence is the attack"],
    )
    _annotate(
        second,
        "alice",
        [
            {"start": s2[0][0], "end": s2[1][1], "labels": ["appeal to anger", "nothing"]},
            {"start": s2[2][0], "end": s2[2][1], "labels": ["appeal to positive emotion"]},
        ],
        [],
    )
    _annotate(
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


def _records(project: Project) -> dict[tuple[str, str], Any]:
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


def _gold_records(project: Project, version: int) -> dict[str, Any]:
    gold = GoldStandard.objects.get(project=project, version=version)
    out = {}
    for entry in GoldDocument.objects.filter(gold_standard=gold).select_related("document"):
        spans = GoldSpan.objects.filter(gold_standard=gold, document=entry.document)
        out[entry.document.text] = (
            entry.comments,
            [(s.start, s.end, s.labels, s.details) for s in spans.order_by("start", "end")],
        )
    return out


def _sentences_by_text(project: Project) -> dict[str, list[tuple[int, int]]]:
    return {d.text: _sentences(d) for d in Document.objects.filter(project=project)}


def _call(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_annotations_round_trip_through_cassis(tmp_path: Path) -> None:
    source = _source_project()
    out = tmp_path / "export"
    said = _call("export_dataset", "--project", "Source", "--format", "xmi", "--out", str(out))
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

    target = _project("Target")
    said = _call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "Imported 3 CAS files" in said and "0 moved" in said
    assert _records(target) == _records(source)
    assert len(_records(target)) == 3
    for text, sentences in _sentences_by_text(target).items():
        assert sentences == _sentences_by_text(source)[text]
    assert Document.objects.get(project=target, text=TEXTS[0]).external_id == "speech.txt"

    # Importing again replaces each annotator's annotation of each document.
    said = _call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "(3 replaced)" in said
    assert _records(target) == _records(source)


def test_a_gold_version_round_trips_as_curated_cases(tmp_path: Path) -> None:
    source = _source_project()
    gold = GoldStandard.objects.create(project=source, version=1, source="test")
    for document in Document.objects.filter(project=source):
        GoldDocument.objects.create(gold_standard=gold, document=document, comments=["checked"])
    document = Document.objects.get(project=source, text=TEXTS[1])
    bounds = _sentences(document)
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
    said = _call(
        "export_dataset", "--project", "Source", "--format", "xmi", "--gold-version", "1",
        "--out", str(out),
    )  # fmt: skip
    assert "gold standard v1, 3 documents" in said
    assert (out / f"curation/document-{document.pk}/CURATION_USER.xmi").is_file()

    target = _project("Target")
    said = _call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "published gold standard version 1 (3 documents)" in said
    assert _gold_records(target, 1) == _gold_records(source, 1)
    assert not Annotation.objects.filter(document__project=target).exists()


# --- a folder shaped like INCEpTION's project export ------------------------------------------


def _inception_type_system() -> TypeSystem:
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


def _inception_cas(ts: TypeSystem, text: str, spans: list[tuple[int, int, list[str]]]) -> str:
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


def test_an_inception_export_imports_one_annotator_per_user_file(tmp_path: Path) -> None:
    ts = _inception_type_system()
    text_a = "The senator is a crook. Ignore his plan. It costs too much."
    text_b = "Buy now or regret it forever. Everyone else already did."
    root = tmp_path / "inception-project"
    folder_a, folder_b = root / "annotation/a.txt", root / "annotation/b.txt"
    folder_a.mkdir(parents=True)
    folder_b.mkdir(parents=True)
    for folder in (folder_a, folder_b):
        (folder / "TypeSystem.xml").write_text(ts.to_xml(), encoding="utf-8")
    # anna: "senator is a crook" (inside sentence 1) and "his plan. It" (across 2 and 3).
    (folder_a / "anna.xmi").write_text(
        _inception_cas(ts, text_a, [(4, 22, ["ad hominem"]), (31, 43, ["strawman"])]),
        encoding="utf-8",
    )
    # ben@example.org: two labels of the same sentences become alternatives of one span.
    (folder_a / "ben@example.org.xmi").write_text(
        _inception_cas(ts, text_a, [(0, 23, ["ad hominem"]), (4, 10, ["appeal to ridicule"])]),
        encoding="utf-8",
    )
    # anna's file of b, zipped with its type system as INCEpTION's exports ship them.
    with zipfile.ZipFile(folder_b / "anna.zip", "w") as archive:
        archive.writestr("anna.xmi", _inception_cas(ts, text_b, [(0, 29, ["false dilemma"])]))
        archive.writestr("TypeSystem.xml", ts.to_xml())

    project = _project("Imported")
    said = _call(
        "import_dataset", "--format", "xmi", str(root / "annotation"), "--project", "Imported"
    )
    assert "Imported 3 CAS files" in said
    assert "3 moved" in said and "1 merged as alternatives" in said
    a = Document.objects.get(project=project, text=text_a)
    assert _sentences(a) == [(0, 23), (24, 40), (41, 59)]  # the CAS's sentences
    assert a.external_id == "a.txt"
    done = "submitted"
    assert _records(project) == {
        ("anna", text_a): (done, [], [(0, 23, ["ad hominem"], {}), (24, 59, ["straw man"], {})]),
        ("ben@example.org", text_a): (
            done,
            [],
            [(0, 23, ["ad hominem", "appeal to ridicule"], {})],
        ),
        ("anna", text_b): (done, [], [(0, 29, ["false dilemma"], {})]),
    }
    assert set(project.memberships.values_list("user__username", flat=True)) >= {
        "anna",
        "ben@example.org",
    }


def test_a_single_xmi_file_with_its_type_system(tmp_path: Path) -> None:
    ts = _inception_type_system()
    text = "Trust me, I am a doctor. So the vaccine is dangerous."
    (tmp_path / "TypeSystem.xml").write_text(ts.to_xml(), encoding="utf-8")
    path = tmp_path / "claims.xmi"
    path.write_text(_inception_cas(ts, text, [(0, 24, ["appeal to authority"])]), "utf-8")
    project = _project("Single")
    _call("import_dataset", "--format", "xmi", str(path), "--project", "Single", "--annotator=cy")
    assert _records(project) == {
        ("cy", text): ("submitted", [], [(0, 24, ["appeal to (false) authority"], {})])
    }


# --- bad input ----------------------------------------------------------------------------------


def _bad_import(path: Path) -> str:
    with pytest.raises(CommandError) as caught:
        _call("import_dataset", "--format", "xmi", str(path), "--project", "Fresh")
    assert not Project.objects.filter(name="Fresh").exists()
    assert not Document.objects.exists() and not Sentence.objects.exists()
    assert not get_user_model().objects.filter(username__in=["anna", "zed"]).exists()
    return str(caught.value)


def _folder(tmp_path: Path, ts: TypeSystem, files: dict[str, str]) -> Path:
    root = tmp_path / "export"
    (root / "annotation/doc.txt").mkdir(parents=True)
    (root / "TypeSystem.xml").write_text(ts.to_xml(), encoding="utf-8")
    for user, xmi in files.items():
        (root / "annotation/doc.txt" / f"{user}.xmi").write_text(xmi, encoding="utf-8")
    return root


def test_a_file_that_is_not_xmi_is_refused_by_name(tmp_path: Path) -> None:
    ts = _inception_type_system()
    good = _inception_cas(ts, "One. Two.", [(0, 4, ["strawman"])])
    root = _folder(tmp_path, ts, {"anna": good, "zed": '{"text": "a Label Studio task"}'})
    message = _bad_import(root)
    assert message.startswith("annotation/doc.txt/zed.xmi: not readable UIMA CAS XMI")


def test_an_xmi_without_the_layer_is_refused(tmp_path: Path) -> None:
    ts = TypeSystem()
    ts.create_type(SENTENCE, supertypeName="uima.tcas.Annotation")
    cas = Cas(typesystem=ts)
    cas.sofa_string = "Plain. Text."
    root = _folder(tmp_path, ts, {"anna": cas.to_xmi()})
    message = _bad_import(root)
    assert message == (
        "annotation/doc.txt/anna.xmi: the type system has no layer webanno.custom.Fallacy"
    )


def test_an_unknown_label_names_the_file_and_the_annotation(tmp_path: Path) -> None:
    ts = _inception_type_system()
    root = _folder(
        tmp_path,
        ts,
        {
            "anna": _inception_cas(ts, "One. Two.", [(0, 4, ["strawman"])]),
            "zed": _inception_cas(ts, "One. Two.", [(5, 9, ["strawman", "gish gallop"])]),
        },
    )
    message = _bad_import(root)
    assert message.startswith(
        'annotation/doc.txt/zed.xmi: webanno.custom.Fallacy at 5–9: labels: "gish gallop" is '
        "not a fallacy type of taxonomy"
    )


def test_a_slot_the_type_lacks_and_a_missing_type_system_are_refused(tmp_path: Path) -> None:
    from annotations.importing.formats.uima import CasDocument, CasSpan, cas_xmi, type_system

    ts = type_system()
    bad_slot = CasSpan(0, 4, ["appeal to anger"], {"appeal to anger": {"Q": "x"}})
    root = _folder(tmp_path, ts, {"anna": cas_xmi(CasDocument("One. Two.", [], [bad_slot]), ts)})
    message = _bad_import(root)
    assert message.startswith("annotation/doc.txt/anna.xmi: webanno.custom.Fallacy at 0–4: slots:")
    assert '"Q" is not a slot of "appeal to anger"' in message

    (root / "TypeSystem.xml").unlink()
    assert "no TypeSystem.xml beside the file" in _bad_import(root)
    assert "no CAS files" in _bad_import(tmp_path / "export" / "annotation" / "doc.txt")


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
    return document.text, _sentences(document), rows, list(comments)


def _richer_project() -> Project:
    """The source project, and carol: two spans on one range (two required labels), an
    explanation, a slot left empty; and an annotation without spans."""
    project = _source_project()
    first, second, third = Document.objects.filter(project=project).order_by("position")
    s1 = _sentences(first)
    why = {"appeal to ridicule": {"slots": {}, "explanation": "mocks, does not argue"}}
    spans = [
        {"start": s1[0][0], "end": s1[0][1], "labels": ["ad hominem"]},
        {"start": s1[0][0], "end": s1[0][1], "labels": ["appeal to ridicule", "no fallacy"],
         "details": why},
    ]  # fmt: skip
    _annotate(first, "carol", spans, ["two on one"])
    _annotate(third, "carol", [], [])
    return project


def test_every_exported_cas_reads_back_through_cassis(tmp_path: Path) -> None:
    source = _richer_project()
    out = tmp_path / "export"
    said = _call("export_dataset", "--project", "Source", "--format", "xmi", "--out", str(out))
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

    target = _project("Target")
    said = _call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert "0 moved" in said and "stacked annotations merged: 0" in said
    assert _records(target) == _records(source)


def test_an_exported_gold_version_reads_back_through_cassis(tmp_path: Path) -> None:
    source = _richer_project()
    gold = GoldStandard.objects.create(project=source, version=1, source="test")
    documents = list(Document.objects.filter(project=source).order_by("position"))
    for document in documents:
        GoldDocument.objects.create(gold_standard=gold, document=document, comments=["ok"])
    bounds = _sentences(documents[1])
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
    _call(
        "export_dataset", "--project", "Source", "--format", "xmi", "--gold-version", "1",
        "--out", str(out),
    )  # fmt: skip
    ts = _type_system(out)
    for document in documents:
        name = document.external_id or f"document-{document.pk}"
        spans = GoldSpan.objects.filter(gold_standard=gold, document=document)
        expected = _database_view(document, spans, ["ok"])
        assert _file_view(ts, out / "curation" / name / "CURATION_USER.xmi") == expected

    target = _project("Target")
    _call("import_dataset", "--format", "xmi", str(out), "--project", "Target")
    assert _gold_records(target, 1) == _gold_records(source, 1)
    assert len(_gold_records(target, 1)[TEXTS[1]][1]) == 2
