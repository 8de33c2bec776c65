"""Label Studio JSON against the real Label Studio (1.23.2, its own virtualenv; one server for
this module, tests.support.label_studio): Label Studio's import takes every task of our
exports (MAFALDA's gold; a project of several annotators with alternatives, explanations and
a run's predictions) and gives back every region, explanation and prediction as we wrote
them, its snapshot of them importing back here with every explanation; Label Studio's own
exports, by the Export button and by a snapshot, with annotations of two of its users and a
prediction, import here with every span equal after sentence snapping, the snapping reported
and the prediction as an imported run (the Export button's predictions, ids only, skipped
and counted)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction

from annotations.importing.formats.label_studio import read_label_studio
from annotations.importing.label_studio import import_label_studio
from annotations.labels import NO_FALLACY
from annotations.models import Annotation, Document, Project, Span
from annotations.services.label_studio_exports import project_labeling_config
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun, RunOutput
from tests.support.label_studio import LabelStudio, label_studio_server
from tests.support.label_studio_export import label_studio_export, write
from tests.support.label_studio_project import (
    MODEL_VERSION,
    T1,
    T3,
    by_content,
    expected_spans,
    explained,
    imported_spans,
    make_label_studio_project,
    snapping,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db]
User = get_user_model()


@pytest.fixture(scope="module")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with label_studio_server(tmp_path_factory.mktemp("label-studio")) as (client, seconds):
        print(f"Label Studio started in {seconds:.1f} s")
        yield client


Regions = dict[tuple[str, str], list[tuple[int, int, tuple[str, ...]]]]


def regions(tasks: list[dict[str, Any]], key: str = "id") -> Regions:
    """(text, annotation key) -> its regions (start, end, labels), in order; ``key``: the
    annotation's field that names it (``id`` in ours, ``import_id`` in Label Studio's)."""
    found: Regions = {}
    for task in tasks:
        for annotation in task["annotations"]:
            found[(task["data"]["text"], str(annotation[key]))] = [
                (r["value"]["start"], r["value"]["end"], tuple(r["value"]["labels"]))
                for r in annotation["result"]
                if r["type"] == "labels"
            ]
    return found


def text_areas(tasks: list[dict[str, Any]], key: str = "id") -> dict[tuple[str, str], list]:
    """(text, annotation key) -> its text areas (region id, name, start, end, texts)."""
    return {
        (task["data"]["text"], str(annotation[key])): [
            (r["id"], r["from_name"], r["value"]["start"], r["value"]["end"], r["value"]["text"])
            for r in annotation["result"]
            if r["type"] == "textarea"
        ]
        for task in tasks
        for annotation in task["annotations"]
    }


def predicted(tasks: list[dict], bodies: dict[int, dict] | None = None) -> set[tuple]:
    """(text, model version, start, end, labels) of each predicted region; ``bodies``: the
    predictions by id, for tasks that name them by id (the Export button's)."""
    return {
        (task["data"]["text"], p["model_version"], r["value"]["start"], r["value"]["end"],
         tuple(r["value"]["labels"]))
        for task in tasks
        for p in (bodies[x] if bodies is not None else x for x in task["predictions"])
        for r in p["result"]
    }  # fmt: skip


def export_ours(tmp_path: Path, project: str, **options: Any) -> tuple[list[dict], str]:
    out = tmp_path / f"{project}.json"
    call_command(
        "export_dataset", project=project, format="labelstudio", out=str(out),
        stdout=io.StringIO(), **options,
    )  # fmt: skip
    return json.loads(out.read_text(encoding="utf-8")), out.with_suffix(".config.xml").read_text()


def accepted(label_studio: LabelStudio, title: str, tasks: list[dict], config: str) -> list[dict]:
    """Our tasks imported into a new Label Studio project; what its export gives back."""
    return accepted_into(label_studio, label_studio.create_project(title, config), tasks)


def accepted_into(label_studio: LabelStudio, project: int, tasks: list[dict]) -> list[dict]:
    answer = label_studio.import_tasks(project, tasks)
    assert (answer["task_count"], answer["annotation_count"], answer["prediction_count"]) == (
        len(tasks),
        sum(len(task["annotations"]) for task in tasks),
        sum(len(task["predictions"]) for task in tasks),
    )
    return label_studio.tasks(project)


def test_mafalda_gold_is_accepted_by_label_studio_with_every_region_equal(
    label_studio, mafalda_gold_path, tmp_path
):
    began = time.monotonic()
    call_command(
        "import_dataset", str(mafalda_gold_path), format="mafalda", project="MAFALDA",
        stdout=io.StringIO(),
    )  # fmt: skip
    tasks, config = export_ours(tmp_path, "MAFALDA", gold_version=1)
    assert len(tasks) == 200
    assert all("completed_by" not in a for task in tasks for a in task["annotations"])

    back = accepted(label_studio, "MAFALDA gold", tasks, config)
    assert len(back) == 200
    assert regions(back, key="import_id") == regions(tasks)
    count = sum(len(found) for found in regions(tasks).values())
    assert [task["data"] for task in back] == [task["data"] for task in tasks]
    assert [task["meta"] for task in back] == [task["meta"] for task in tasks]
    assert all(a["ground_truth"] for task in back for a in task["annotations"])
    print(
        f"MAFALDA gold: 200 of 200 tasks, {count} regions equal, {time.monotonic() - began:.1f} s"
    )


def _multi_annotator_project(tmp_path: Path) -> Project:
    """Alice (with an e-mail), ls-user-2 (a Label Studio id) and dana (neither) annotating
    three texts, with alternatives (several labels on one region) and overlapping spans."""
    project = create_project(name="LS", taxonomy=install_preset(name="mafalda"))
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    dana = User.objects.create(username="dana")
    document = Document.objects.get(project=project, text=T3)
    annotation = Annotation.objects.create(
        document=document, annotator=dana, status=Annotation.Status.SUBMITTED
    )
    end = T3.index(" Then") + 1
    explain = {"slippery slope": {"slots": {}, "explanation": "one step, then all"}}
    Span.objects.create(
        annotation=annotation, start=0, end=end, labels=["slippery slope", NO_FALLACY],
        details=explain,
    )  # fmt: skip
    Span.objects.create(annotation=annotation, start=0, end=len(T3), labels=["false causality"])
    alternatives = Span.objects.get(
        annotation__document__text=T1, labels=["false causality", "hasty generalization"]
    )
    alternatives.details = {
        "false causality": {"slots": {}, "explanation": "after, so because"},
        "hasty generalization": {"slots": {}, "explanation": "one neighbour:\nevery shot"},
    }
    alternatives.save()
    return project


def test_a_multi_annotator_project_is_accepted_and_its_annotators_come_back(label_studio, tmp_path):
    project = _multi_annotator_project(tmp_path)
    tasks, config = export_ours(tmp_path, "LS")
    assert sum(len(task["annotations"]) for task in tasks) == 6

    back = accepted(label_studio, "Several annotators", tasks, config)
    assert regions(back, key="import_id") == regions(tasks)
    assert any(len(labels) > 1 for found in regions(back).values() for *_, labels in found)
    assert [task["meta"] for task in back] == [task["meta"] for task in tasks]

    # Label Studio's export, read here: each annotation's annotator from meta.annotators
    path = tmp_path / "from-label-studio.json"
    path.write_text(json.dumps(back), encoding="utf-8")
    read = {
        (task.text, c.email or c.username): c.regions
        for task in read_label_studio(path)
        for c in task.annotations
    }
    expected = {
        (a.document.text, a.annotator.email or a.annotator.username): {
            (s.start, s.end, tuple(s.labels)) for s in a.spans.all()
        }
        for a in Annotation.objects.filter(document__project=project)
    }
    assert {key: {(r.start, r.end, r.labels) for r in found} for key, found in read.items()} == (
        expected
    )


def test_explanations_and_predictions_arrive_in_label_studio_and_come_back(label_studio, tmp_path):
    project = _multi_annotator_project(tmp_path)
    tasks, config = export_ours(tmp_path, "LS")
    assert sum(len(found) for found in text_areas(tasks).values()) == 2
    assert len(predicted(tasks)) == 1  # the run Label Studio's prediction was imported as

    ls_project = label_studio.create_project("Explained and predicted", config)
    back = accepted_into(label_studio, ls_project, tasks)
    assert text_areas(back, key="import_id") == text_areas(tasks)
    bodies = {p["id"]: p for p in label_studio.predictions(ls_project)}
    assert predicted(back, bodies) == predicted(tasks)

    # Label Studio's snapshot of them imports back with every explanation and the run
    path = tmp_path / "snapshot.json"
    path.write_bytes(label_studio.export_snapshot(ls_project))
    copy = create_project(name="Back", taxonomy=project.taxonomy)
    report = import_label_studio(path=path, project=copy)
    assert explained(copy) == explained(project) and report.explanations == 3
    assert report.annotations_created == 6 and report.predictions == 1
    (run,) = report.runs
    labelled = RunOutput.objects.filter(run_id=run["id"]).exclude(raw_output="no fallacy")
    assert [(o.document.text, o.raw_output) for o in labelled] == [(T1, "false causality")]


# --- Label Studio's own exports, imported here ------------------------------------------------


@pytest.fixture(scope="module")
def label_studio_exports(
    label_studio, tmp_path_factory, django_db_setup, django_db_blocker
) -> dict[str, Path]:
    """Label Studio's two exports of its project, as files (made once for the module)."""
    with django_db_blocker.unblock(), transaction.atomic():
        taxonomy = install_preset(name="mafalda")
        config = project_labeling_config(create_project(name="Config", taxonomy=taxonomy))
        transaction.set_rollback(True)
    project = make_label_studio_project(label_studio, config)
    folder = tmp_path_factory.mktemp("label-studio-exports")
    files = {"button": folder / "export-button.json", "snapshot": folder / "snapshot.json"}
    files["button"].write_bytes(label_studio.export_json(project))
    files["snapshot"].write_bytes(label_studio.export_snapshot(project))
    return files


@pytest.mark.parametrize("route", ["button", "snapshot"])
def test_label_studios_export_imports_with_every_span_equal_after_snapping(
    label_studio_exports, route
):
    path = label_studio_exports[route]
    tasks = json.loads(path.read_text(encoding="utf-8"))
    assert len(tasks) == 4
    predictions = [p for task in tasks for p in task["predictions"]]
    kind = int if route == "button" else dict  # the Export button writes predictions' ids
    assert len(predictions) == 1 and isinstance(predictions[0], kind)

    out = io.StringIO()
    call_command("import_dataset", str(path), format="labelstudio", project="Here", stdout=out)
    project = Project.objects.get(name="Here")
    assert by_content(imported_spans(project)) == by_content(expected_spans())
    moved, chars, count = snapping(with_prediction=route == "snapshot")
    assert f"regions snapped to sentences: {moved} of {count} moved, {chars} characters added" in (
        out.getvalue()
    )
    runs = ModelRun.objects.filter(project=project)
    if route == "snapshot":
        run = runs.get()
        assert run.model_name == MODEL_VERSION
        labelled = RunOutput.objects.filter(run=run).exclude(raw_output="no fallacy")
        assert [(o.document.text, o.raw_output) for o in labelled] == [(T1, "false causality")]
    else:
        assert not runs.exists()
        assert sum(task.prediction_ids for task in read_label_studio(path)) == 1
        assert "writes no prediction bodies; export a snapshot): 1\n" in out.getvalue()
