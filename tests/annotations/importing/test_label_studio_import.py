"""Label Studio JSON in: a file in Label Studio's published export shape (several annotators,
overlapping regions, a cancelled annotation, a choices result, a prediction) imports as
annotations, alternatives, a snapping report and an imported run; Label Studio's own exports
(tests/support/fixtures/label_studio) read and import as written; bad files write nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotations.importing.formats.label_studio import read_label_studio
from annotations.importing.label_studio import import_label_studio
from annotations.labels import NO_FALLACY
from annotations.models import Annotation, Document, Membership, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun, RunOutput
from evaluation.suggestions.services import create_suggestions
from tests.support.label_studio_export import (
    T1,
    T2,
    T3,
    label_studio_export,
    region,
    row_counts,
    sentence,
    spans_by_annotator,
    write,
)
from tests.support.label_studio_project import (
    LABELLED,
    MODEL_VERSION,
    by_content,
    expected_spans,
    imported_spans,
    snapping,
)
from tests.support.label_studio_project import T1 as LS_T1

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def project() -> Project:
    return create_project(name="LS", taxonomy=install_preset(name="mafalda"))


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


# --- bad input -------------------------------------------------------------------------------


def _refused(path: Path, *messages: str) -> None:
    before = row_counts()
    with pytest.raises(CommandError) as raised:
        call_command("import_dataset", str(path), format="labelstudio", project="LS")
    for message in (path.name, *messages):
        assert message in str(raised.value)
    assert row_counts() == before


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
        {**region(T3, "Then all shops", ["slippery slope"], "x"), "value": {
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
