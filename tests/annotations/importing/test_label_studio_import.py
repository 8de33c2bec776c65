"""Label Studio JSON in and out: a file in Label Studio's published export shape (several
annotators, overlapping regions, a cancelled annotation, a choices result, a prediction)
imports as annotations, alternatives, a snapping report and an imported run; the export
(and its labeling config) imports back to the same spans; bad files write nothing."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.importing.formats.label_studio import read_label_studio
from annotations.importing.label_studio import import_label_studio
from annotations.labels import NO_FALLACY
from annotations.models import (
    Annotation,
    Document,
    Membership,
    Project,
    Sentence,
    Span,
    TaxonomyNode,
)
from annotations.services.gold import publish_draft, save_document_gold
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun, RunOutput
from evaluation.suggestions.services import create_suggestions
from tests.support.label_studio_project import (
    LABELLED,
    MODEL_VERSION,
    by_content,
    expected_spans,
    explained,
    imported_spans,
    snapping,
)
from tests.support.label_studio_project import T1 as LS_T1

pytestmark = pytest.mark.django_db
User = get_user_model()

T1 = (
    "Vaccines are dangerous. My neighbour got sick after his shot. "
    "Everyone knows the government lies about everything. So we should ban them."
)
T2 = "You can't trust Smith on climate. He was divorced twice! His claims about the ice are false."
T3 = "If we allow same-day delivery, soon nobody will leave the house. Then all shops will close."
ALICE = {"id": 1, "first_name": "Alice", "last_name": "", "email": "alice@example.org"}


def _region(text: str, quote: str, labels: list[str], region_id: str) -> dict[str, Any]:
    start = text.index(quote)
    return {
        "id": region_id,
        "from_name": "label",
        "to_name": "text",
        "type": "labels",
        "origin": "manual",
        "value": {"start": start, "end": start + len(quote), "text": quote, "labels": labels},
    }


def _annotation(number: int, completed_by: Any, result: list[dict], **extra: Any) -> dict:
    return {
        "id": number,
        "completed_by": completed_by,
        "result": result,
        "was_cancelled": False,
        "ground_truth": False,
        "created_at": "2026-03-01T10:00:00.000000Z",
        "updated_at": "2026-03-01T10:05:00.000000Z",
        "lead_time": 42.5,
        "prediction": {},
        "result_count": 0,
        "task": 0,
        "parent_prediction": None,
        "parent_annotation": None,
        **extra,
    }


def _task(task_id: int, text: str, annotations: list[dict], predictions: list[dict]) -> dict:
    return {
        "id": task_id,
        "annotations": annotations,
        "file_upload": "d3b1f2a0-texts.json",
        "drafts": [],
        "predictions": predictions,
        "data": {"text": text},
        "meta": {},
        "created_at": "2026-03-01T09:00:00.000000Z",
        "updated_at": "2026-03-01T10:05:00.000000Z",
        "inner_id": task_id - 100,
        "total_annotations": len(annotations),
        "cancelled_annotations": 0,
        "total_predictions": len(predictions),
        "project": 7,
        "updated_by": 1,
    }


def label_studio_export() -> list[dict]:
    """Three tasks as Label Studio's "JSON" export writes them."""
    prediction = {
        "id": 11,
        "model_version": "fallacy-bert-v1",
        "score": 0.83,
        "result": [_region(T1, "after his shot", ["false causality"], "p1")],
    }
    choices = {
        "id": "c1",
        "from_name": "quality",
        "to_name": "text",
        "type": "choices",
        "value": {"choices": ["clear"]},
    }
    task1 = [
        _annotation(
            1,
            ALICE,
            [
                _region(T1, "got sick after his shot", ["false causality"], "a1"),
                _region(
                    T1, "My neighbour got sick after his shot.", ["Hasty Generalization"], "a2"
                ),
                _region(T1, "his shot. Everyone knows", ["appeal to (false) authority"], "a3"),
            ],
        ),
        _annotation(2, 2, [_region(T1, "Everyone knows the government", ["ad populum"], "b1")]),
        _annotation(3, 3, [], was_cancelled=True, created_username="carol@example.org, 3"),
    ]
    task2 = [
        _annotation(
            4,
            1,
            [_region(T2, "He was divorced twice!", ["ad hominem"], "a4")],
            created_username=" alice@example.org, 1",
        ),
        _annotation(
            5, 2, [_region(T2, "divorced twice", ["ad hominem", "nothing"], "b2"), choices]
        ),
    ]
    return [
        _task(101, T1, task1, [prediction]),
        _task(102, T2, task2, []),
        _task(103, T3, [_annotation(6, ALICE, [])], []),
    ]


def write(path: Path, tasks: list[dict]) -> Path:
    path.write_text(json.dumps(tasks, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def project() -> Project:
    return create_project(name="LS", taxonomy=install_preset(name="mafalda"))


def spans_by_annotator(project: Project) -> dict[tuple[str, str], set[tuple]]:
    found: dict[tuple[str, str], set[tuple]] = {}
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "annotator", "document"
    ):
        key = (annotation.annotator.username, annotation.document.text)
        found[key] = {(s.start, s.end, tuple(s.labels)) for s in annotation.spans.all()}
    return found


def sentence(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


def test_an_export_imports_annotators_alternatives_snapping_and_a_run(project, tmp_path):
    report = import_label_studio(
        path=write(tmp_path / "ls.json", label_studio_export()), project=project
    )

    assert (report.texts, report.documents_created, report.documents_reused) == (3, 3, 0)
    assert report.annotators == ["alice@example.org", "ls-user-2"]
    assert (report.annotations_created, report.annotations_cancelled) == (5, 1)
    assert report.other_results == 1
    assert not User.objects.filter(email="carol@example.org").exists()
    assert Membership.objects.filter(project=project, role="annotator").count() == 2
    s2 = sentence(T1, "My neighbour got sick after his shot.")
    s3 = sentence(T1, "Everyone knows the government lies about everything.")
    divorced = sentence(T2, "He was divorced twice!")
    assert spans_by_annotator(project) == {
        ("alice@example.org", T1): {
            (*s2, ("false causality", "hasty generalization")),  # same sentence: alternatives
            (s2[0], s3[1], ("appeal to (false) authority",)),  # overlaps, other sentences
        },
        ("ls-user-2", T1): {(*s3, ("ad populum",))},
        ("alice@example.org", T2): {(*divorced, ("ad hominem",))},
        ("ls-user-2", T2): {(*divorced, ("ad hominem", NO_FALLACY))},
        ("alice@example.org", T3): set(),
    }
    assert (report.spans, report.spans_with_alternatives) == (5, 2)
    # Moved: "got sick after his shot" (+13 before, +1 after), "his shot. Everyone knows"
    # (+28, +38), "Everyone knows the government" (+23), "divorced twice" (+7, +1) and the
    # prediction "after his shot" (+22, +1); two regions already on sentence bounds.
    assert (report.regions, report.regions_moved) == (7, 5)
    assert (report.chars_moved, report.max_chars_moved) == (14 + 66 + 23 + 8 + 23, 66)
    assert "5 of 7 moved, 134 characters added (at most 66 for one)" in report.summary()
    document = Document.objects.get(project=project, text=T1)
    assert (document.external_id, document.metadata) == ("ls-101", {"label_studio_id": 101})

    run = ModelRun.objects.get(project=project)
    assert (run.name, run.imported, run.status, run.model_name) == (
        "Label Studio fallacy-bert-v1",
        True,
        "done",
        "fallacy-bert-v1",
    )
    outputs = list(RunOutput.objects.filter(run=run).values_list("unit_index", "raw_output"))
    assert outputs == [
        (0, "no fallacy"),
        (1, "false causality"),
        (2, "no fallacy"),
        (3, "no fallacy"),
    ]
    suggestions = create_suggestions(project=project, runs=[run])
    assert suggestions.created == {run.pk: 1}
    suggestion = run.suggestions.get()
    assert (suggestion.start, suggestion.end, suggestion.labels) == (*s2, ["false causality"])


def test_the_command_reports_snapping_and_reimporting_replaces(project, tmp_path):
    path = write(tmp_path / "ls.json", label_studio_export())
    out = io.StringIO()
    call_command("import_dataset", str(path), format="labelstudio", project="LS", stdout=out)
    assert "regions snapped to sentences: 5 of 7 moved, 134 characters added" in out.getvalue()
    assert "predictions: run 'Label Studio fallacy-bert-v1' (4 sentence outputs)" in out.getvalue()

    tasks = label_studio_export()
    for task in tasks:
        task["predictions"] = []
    report = import_label_studio(path=write(tmp_path / "again.json", tasks), project=project)
    assert (report.documents_reused, report.annotations_replaced) == (3, 5)
    assert Annotation.objects.filter(document__project=project).count() == 5


def _ls_file(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_export_imports_back_to_the_same_annotations(project, tmp_path):
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    out = tmp_path / "export.json"
    call_command(
        "export_dataset", project="LS", format="labelstudio", out=str(out), stdout=io.StringIO()
    )

    tasks = _ls_file(out)
    assert [task["id"] for task in tasks] == [101, 102, 103]
    assert tasks[0]["data"] == {"text": T1, "external_id": "ls-101"}
    # no completed_by (Label Studio refuses one that is not its own member): who made each
    # annotation is in the task's meta, by annotation id
    assert all("completed_by" not in a for task in tasks for a in task["annotations"])
    alice = User.objects.get(username="alice@example.org")
    assert [tasks[0]["meta"]["annotators"][str(a["id"])] for a in tasks[0]["annotations"]] == [
        {"id": alice.pk, "email": "alice@example.org", "username": "alice@example.org"},
        {"id": 2, "email": "", "username": "ls-user-2"},
    ]
    values = [r["value"] for r in tasks[1]["annotations"][1]["result"]]
    divorced = sentence(T2, "He was divorced twice!")
    assert values == [  # alternatives: one region with several labels
        {"start": divorced[0], "end": divorced[1], "text": "He was divorced twice!",
         "labels": ["ad hominem", NO_FALLACY]}
    ]  # fmt: skip
    config = ET.parse(out.with_suffix(".config.xml")).getroot()
    labels = config.find("Labels")
    assert (config.tag, labels.get("toName"), config.find("Text").get("value")) == (
        "View",
        "text",
        "$text",
    )
    types = TaxonomyNode.objects.filter(taxonomy=project.taxonomy, level=2).count()
    values = [label.get("value") for label in labels.findall("Label")]
    assert len(values) == types + 1 and "ad hominem" in values and values[-1] == NO_FALLACY

    copy = create_project(name="Copy", taxonomy=project.taxonomy)
    report = import_label_studio(path=out, project=copy)
    assert spans_by_annotator(copy) == spans_by_annotator(project)
    assert (report.regions_moved, report.chars_moved) == (0, 0)
    assert Document.objects.get(project=copy, text=T1).external_id == "ls-101"


def test_a_gold_version_exports_as_one_annotation_per_task(project, tmp_path):
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    documents = list(Document.objects.filter(project=project).order_by("position"))
    s2 = sentence(T1, "My neighbour got sick after his shot.")
    spans = [{"start": s2[0], "end": s2[1], "labels": ["false causality", NO_FALLACY]}]
    save_document_gold(document=documents[0], revision=0, spans=spans, by=None)
    save_document_gold(document=documents[1], revision=0, spans=[], by=None)
    publish_draft(project=project, note="adjudicated", by=None)
    out = tmp_path / "gold.json"
    call_command(
        "export_dataset", project="LS", format="labelstudio", gold_version=1, out=str(out),
        stdout=io.StringIO(),
    )  # fmt: skip

    tasks = _ls_file(out)
    assert [(t["id"], len(t["annotations"])) for t in tasks] == [(101, 1), (102, 1)]
    annotation = tasks[0]["annotations"][0]
    assert annotation["ground_truth"] is True
    assert [r["value"]["labels"] for r in annotation["result"]] == [["false causality", NO_FALLACY]]
    assert tasks[1]["annotations"][0]["result"] == []
    with pytest.raises(CommandError, match="no published gold standard version 5"):
        call_command(
            "export_dataset", project="LS", format="labelstudio", gold_version=5, out=str(out)
        )


# --- bad input -------------------------------------------------------------------------------


def _counts() -> tuple[int, ...]:
    return (
        Document.objects.count(),
        Sentence.objects.count(),
        Annotation.objects.count(),
        Span.objects.count(),
        ModelRun.objects.count(),
        User.objects.count(),
    )


def _refused(path: Path, *messages: str) -> None:
    before = _counts()
    with pytest.raises(CommandError) as raised:
        call_command("import_dataset", str(path), format="labelstudio", project="LS")
    for message in (path.name, *messages):
        assert message in str(raised.value)
    assert _counts() == before


def test_a_file_of_another_format_is_refused(project, tmp_path):
    doccano = tmp_path / "doccano.jsonl"
    doccano.write_text(json.dumps({"id": 1, "text": T1, "label": [[0, 8, "ad hominem"]]}) + "\n")
    _refused(doccano, "doccano.jsonl:1: not a Label Studio JSON export")
    mafalda = write(tmp_path / "mafalda.json", [{"text": T1, "labels": []}])
    _refused(mafalda, "mafalda.json:2: task #1: data: not a Label Studio JSON export")


def test_a_task_whose_text_differs_from_the_stored_document_is_refused(project, tmp_path):
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    tasks = label_studio_export()
    tasks[1]["data"]["text"] = T2.replace("climate", "the climate")
    tasks[1]["annotations"] = []
    _refused(
        write(tmp_path / "edited.json", tasks),
        "task 102: data.text: the text differs from stored document",
        "external id 'ls-102'",
    )


def test_a_region_outside_the_text_is_refused(project, tmp_path):
    tasks = label_studio_export()
    tasks[2]["annotations"][0]["result"] = [
        {**_region(T3, "Then all shops", ["slippery slope"], "x"), "value": {
            "start": 70, "end": len(T3) + 5, "labels": ["slippery slope"]}}
    ]  # fmt: skip
    _refused(
        write(tmp_path / "outside.json", tasks),
        "task 103: annotations[0].result[0].value: region [70, 96) is outside the text",
    )


def test_an_unknown_label_is_refused(project, tmp_path):
    tasks = label_studio_export()
    tasks[0]["annotations"][1]["result"][0]["value"]["labels"] = ["Whataboutery"]
    _refused(
        write(tmp_path / "unknown.json", tasks),
        "task 101: annotations[1].result[0].value.labels[0]: unknown label 'Whataboutery'",
    )


# --- the browser's Import tab ----------------------------------------------------------------


def _post(project: Project, name: str, content: bytes) -> dict[str, Any]:
    admin = User.objects.create_user("admin")
    Membership.objects.create(project=project, user=admin, role="admin")
    client = APIClient()
    client.force_authenticate(admin)
    upload = SimpleUploadedFile(name, content, "application/json")
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload, "format": "labelstudio"},
        format="multipart",
    )
    assert response.status_code in (200, 201, 202), response.content
    return response.json()


def _members(project: Project) -> None:
    """The file's annotators, members of the project (the Import tab takes no one else)."""
    for username, email in (("alice", "alice@example.org"), ("ls-user-2", "")):
        user = User.objects.create_user(username, email=email)
        Membership.objects.create(project=project, user=user, role="annotator")


def test_the_import_tab_imports_a_label_studio_export(project):
    _members(project)
    content = json.dumps(label_studio_export(), indent=2).encode()
    job = _post(project, "ls.json", content)
    assert job["status"] == "succeeded", job["errors"]
    report = job["report"]
    assert (report["annotations_created"], report["regions_moved"], report["chars_moved"]) == (
        5,
        5,
        134,
    )
    assert [run["name"] for run in report["runs"]] == ["Label Studio fallacy-bert-v1"]
    assert ModelRun.objects.filter(project=project, name="Label Studio fallacy-bert-v1").exists()


def test_the_import_tab_takes_annotators_only_among_the_projects_members(project):
    """A project admin's upload never reaches a user of another project by email: an
    annotator who is not a member gets a new inactive placeholder account (no e-mail, no
    password) holding their work."""
    other = create_project(name="Other team", taxonomy=project.taxonomy)
    outsider = User.objects.create_user("alice", email="alice@example.org")
    Membership.objects.create(project=other, user=outsider, role="annotator")
    before = User.objects.count()
    content = json.dumps(label_studio_export(), indent=2).encode()
    job = _post(project, "ls.json", content)

    assert job["status"] == "succeeded", job["errors"]
    placeholders = User.objects.filter(username__in=job["report"]["placeholders"])
    assert len(placeholders) == 2 and User.objects.count() == before + 1 + 2  # admin, two
    assert not any(
        user.is_active or user.email or user.has_usable_password() for user in placeholders
    )
    assert not Membership.objects.filter(project=project, user=outsider).exists()
    assert not Annotation.objects.filter(annotator=outsider).exists()


def test_the_import_tab_lists_every_bad_task_and_imports_nothing(project):
    tasks = label_studio_export()
    tasks[0]["annotations"][1]["result"][0]["value"]["labels"] = ["Whataboutery"]
    tasks[1]["annotations"][0]["result"][0]["value"]["end"] = 500
    tasks[2]["data"] = {"text": T1}
    before = _counts()
    content = json.dumps(tasks, indent=2).encode()
    job = _post(project, "bad.json", content)

    assert job["status"] == "failed"
    lines = [n for n, line in enumerate(content.splitlines(), start=1) if line == b"  {"]
    assert [error["text"] for error in job["errors"]] == [
        f"{lines[0]}: task 101: annotations[1].result[0].value.labels[0]: unknown label "
        "'Whataboutery' (not in the project's taxonomy)",
        f"{lines[1]}: task 102: annotations[0].result[0].value: region [34, 500) is outside "
        f"the text (length {len(T2)})",
        f"{lines[2]}: task 103: data.text: same text as the task on line {lines[0]}",
    ]
    assert job["report"] == {}
    assert _counts() == before[:5] + (before[5] + 1,)  # only the admin who posted


# --- Label Studio's own exports (tests/support/fixtures/label_studio, Label Studio 1.23.2) ---

LS_FIXTURES = Path(__file__).resolve().parents[2] / "support" / "fixtures" / "label_studio"


def test_label_studios_two_export_routes_read_as_written():
    button = read_label_studio(LS_FIXTURES / "export-button.json")
    snapshot = read_label_studio(LS_FIXTURES / "snapshot.json")
    # the Export button: completed_by as a user id, predictions as ids (skipped, counted)
    assert sum(task.prediction_ids for task in button) == 1
    assert [task.predictions for task in button] == [[]] * 4
    assert {(c.user_id, c.email) for task in button for c in task.annotations} == {
        (1, ""),
        (2, ""),
    }
    # a snapshot: completed_by with the e-mail, predictions whole
    assert {(c.user_id, c.email) for task in snapshot for c in task.annotations} == {
        (1, "admin@example.org"),
        (2, "bob@example.org"),
    }
    predicted = [p for task in snapshot for p in task.predictions]
    assert [(p.model_version, len(p.regions)) for p in predicted] == [(MODEL_VERSION, 1)]
    for file in (button, snapshot):
        assert [
            sorted((r.start, r.end, r.labels) for c in t.annotations for r in c.regions)
            for t in file
        ] == [
            sorted(
                (t.text.index(q), t.text.index(q) + len(q), tuple(labels))
                for _, q, labels in LABELLED[t.text]
            )
            for t in file
        ]


@pytest.mark.parametrize("name", ["export-button.json", "snapshot.json"])
def test_label_studios_exports_import_with_every_span_snapped_and_reported(project, name):
    out = io.StringIO()
    call_command(
        "import_dataset", str(LS_FIXTURES / name), format="labelstudio", project="LS", stdout=out
    )

    assert by_content(imported_spans(project)) == by_content(expected_spans())
    moved, chars, count = snapping(with_prediction=name == "snapshot.json")
    assert f"regions snapped to sentences: {moved} of {count} moved, {chars} characters" in (
        out.getvalue()
    )
    runs = list(ModelRun.objects.filter(project=project))
    if name == "snapshot.json":  # the prediction, whole: an imported run
        assert [run.model_name for run in runs] == [MODEL_VERSION]
        labelled = RunOutput.objects.filter(run=runs[0]).exclude(raw_output=NO_FALLACY)
        assert [(o.document.text, o.raw_output) for o in labelled] == [(LS_T1, "false causality")]
    else:  # ids only: nothing to import, the count reported
        assert runs == []
        assert "predictions skipped, given as ids only" in out.getvalue()
        assert out.getvalue().split("export a snapshot): ")[1].startswith("1\n")


def test_an_annotator_without_email_comes_back_as_the_same_account(project, tmp_path):
    """Our export names each annotation's platform account in the task's meta: an account
    without an e-mail (here ``dana``) comes back as ``dana``, not as a new ``ls-user-<id>``,
    on the command line and, where dana is a member, on the Import tab."""
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    User.objects.filter(username="ls-user-2").update(username="dana")
    out = tmp_path / "export.json"
    call_command(
        "export_dataset", project="LS", format="labelstudio", out=str(out), stdout=io.StringIO()
    )
    users_before = User.objects.count()

    copy = create_project(name="Copy", taxonomy=project.taxonomy)
    import_label_studio(path=out, project=copy)
    assert spans_by_annotator(copy) == spans_by_annotator(project)
    assert User.objects.count() == users_before

    tab = create_project(name="Tab", taxonomy=project.taxonomy)
    for username in ("alice@example.org", "dana"):
        user = User.objects.get(username=username)
        Membership.objects.create(project=tab, user=user, role="annotator")
    job = _post(tab, "export.json", out.read_bytes())  # creates the project's admin
    assert job["status"] == "succeeded", job["errors"]
    assert spans_by_annotator(tab) == spans_by_annotator(project)
    assert User.objects.count() == users_before + 1


def test_explanations_and_runs_are_written_and_come_back(project, tmp_path):
    """Explanations as per-region text areas read back into the spans; the run as a
    prediction, imported as a run only."""
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    spans = {tuple(s.labels): s for s in Span.objects.filter(annotation__document__text=T1)}
    spans[("false causality", "hasty generalization")].details = {
        "false causality": {"slots": {}, "explanation": "sick after, so\nsick because"},
        "hasty generalization": {"slots": {}, "explanation": "one case: a rule"},
    }
    spans[("ad populum",)].details = {"ad populum": {"slots": {}, "explanation": "x"}}
    for span in spans.values():
        span.save()
    out, stdout = tmp_path / "export.json", io.StringIO()
    call_command("export_dataset", project="LS", format="labelstudio", out=str(out), stdout=stdout)

    tasks = _ls_file(out)
    results = [r for a in tasks[0]["annotations"] for r in a["result"]]
    areas = [r for r in results if r["type"] == "textarea"]
    assert [r["value"]["text"] for r in areas] == [
        ["false causality: sick after, so\nsick because", "hasty generalization: one case: a rule"],
        ["x"],
    ]
    regions = {r["id"]: r["value"] for r in results if r["type"] == "labels"}
    assert [(r["from_name"], r["value"]["end"]) for r in areas] == [
        ("explanation", regions[r["id"]]["end"]) for r in areas
    ]
    config = out.with_suffix(".config.xml").read_text()
    assert '<TextArea name="explanation" toName="text" perRegion="true"' in config
    s2 = sentence(T1, "My neighbour got sick after his shot.")
    value = {"start": s2[0], "end": s2[1], "text": T1[slice(*s2)], "labels": ["false causality"]}
    (prediction,) = tasks[0]["predictions"]
    assert prediction["model_version"] == "Label Studio fallacy-bert-v1"
    assert [r["value"] for r in prediction["result"]] == [value]
    assert [t["predictions"] for t in tasks[1:]] == [[], []]  # the run answered T1 only
    assert "5 regions (2 with explanations), 1 predictions of 1 runs" in stdout.getvalue()

    copy = create_project(name="Copy", taxonomy=project.taxonomy)
    report = import_label_studio(path=out, project=copy)
    assert explained(copy) == explained(project) and report.explanations == 3
    assert spans_by_annotator(copy) == spans_by_annotator(project)  # no prediction among them
    assert report.predictions == 1 and report.annotations_created == 5
    labelled = RunOutput.objects.filter(run__project=copy).exclude(raw_output=NO_FALLACY)
    assert [(o.unit_index, o.raw_output) for o in labelled] == [(1, "false causality")]
