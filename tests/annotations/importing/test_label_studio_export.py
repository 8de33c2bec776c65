"""Label Studio JSON out: a project's annotations (who made each, alternatives, explanations),
a gold version and a run's predictions export with a labeling config, and the export
imports back to the same spans, on the command line and on the Import tab."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotations.importing.label_studio import import_label_studio
from annotations.labels import NO_FALLACY
from annotations.models import Document, Membership, Project, Span, TaxonomyNode
from annotations.services.gold import publish_draft, save_document_gold
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import RunOutput
from tests.support.label_studio_export import (
    T1,
    T2,
    label_studio_export,
    post_to_import_tab,
    read_tasks,
    sentence,
    spans_by_annotator,
    write,
)
from tests.support.label_studio_project import explained

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def project() -> Project:
    return create_project(name="LS", taxonomy=install_preset(name="mafalda"))


def test_the_export_imports_back_to_the_same_annotations(project, tmp_path):
    import_label_studio(path=write(tmp_path / "ls.json", label_studio_export()), project=project)
    out = tmp_path / "export.json"
    call_command(
        "export_dataset", project="LS", format="labelstudio", out=str(out), stdout=io.StringIO()
    )

    tasks = read_tasks(out)
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

    tasks = read_tasks(out)
    assert [(t["id"], len(t["annotations"])) for t in tasks] == [(101, 1), (102, 1)]
    annotation = tasks[0]["annotations"][0]
    assert annotation["ground_truth"] is True
    assert [r["value"]["labels"] for r in annotation["result"]] == [["false causality", NO_FALLACY]]
    assert tasks[1]["annotations"][0]["result"] == []
    with pytest.raises(CommandError, match="no published gold standard version 5"):
        call_command(
            "export_dataset", project="LS", format="labelstudio", gold_version=5, out=str(out)
        )


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
    job = post_to_import_tab(tab, "export.json", out.read_bytes())  # creates the project's admin
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

    tasks = read_tasks(out)
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
