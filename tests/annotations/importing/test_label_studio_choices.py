"""Label Studio import choices: one Label Studio user stays one platform user whichever export
route wrote the file (the Export button's ``completed_by: 1``, a snapshot's ``{id, email}``),
in either order; texts only; each annotator mapped to a member, invited or dropped (on the
Import tab and the command line); the first step lists the annotators; the report counts
what was stored; bad choices are a 400 naming the field and change nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from annotations.importing.label_studio import import_label_studio
from annotations.models import (
    Annotation,
    ImportJob,
    Invitation,
    LabelStudioAnnotator,
    Membership,
    Project,
    Sentence,
    Span,
)
from annotations.services.invitations import accept_invitation
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun

pytestmark = pytest.mark.django_db
User = get_user_model()

T1 = "Vaccines are dangerous. My neighbour got sick after his shot. So we should ban them."
T2 = "You can't trust Smith on climate. He was divorced twice! His claims are false."
ANN = {"id": 1, "email": "ann@example.org", "first_name": "Ann", "last_name": "Lee"}
BOB = {"id": 2, "email": "bob@example.org", "first_name": "", "last_name": ""}


def _region(text: str, quote: str, label: str) -> dict[str, Any]:
    start = text.index(quote)
    value = {"start": start, "end": start + len(quote), "text": quote, "labels": [label]}
    return {"from_name": "label", "to_name": "text", "type": "labels", "value": value}


def export(route: str, *, prediction: bool = False) -> list[dict]:
    """Two tasks by Ann (Label Studio user 1) and Bob (2): ``quick`` as the Export button
    writes them (ids), ``snapshot`` with ``completed_by`` expanded."""

    def by(user: dict) -> Any:
        return user["id"] if route == "quick" else user

    tasks = [
        {
            "id": 11,
            "data": {"text": T1},
            "annotations": [
                {"id": 1, "completed_by": by(ANN), "was_cancelled": False,
                 "result": [_region(T1, "got sick after his shot", "false causality")]},
                {"id": 2, "completed_by": by(BOB), "was_cancelled": False,
                 "result": [_region(T1, "So we should ban them.", "slippery slope")]},
            ],
            "predictions": [],
        },
        {
            "id": 12,
            "data": {"text": T2},
            "annotations": [
                {"id": 3, "completed_by": by(ANN), "was_cancelled": False,
                 "result": [_region(T2, "divorced twice", "ad hominem"),
                            _region(T2, "His claims are false.", "ad hominem")]},
            ],
            "predictions": [],
        },
    ]  # fmt: skip
    if prediction:
        tasks[0]["predictions"] = [1] if route == "quick" else [
            {"model_version": "m1", "result": [_region(T1, "after his shot", "false causality")]}
        ]  # fmt: skip
    return tasks


@pytest.fixture
def project() -> Project:
    return create_project(name="LS choices", taxonomy=install_preset(name="mafalda"))


@pytest.fixture
def admin(project: Project) -> Any:
    user = User.objects.create_user("boss")
    Membership.objects.create(project=project, user=user, role="admin")
    return user


def _write(tmp_path: Path, name: str, tasks: list[dict]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def _post(admin: Any, project: Project, tasks: list[dict], **fields: Any) -> Any:
    client = APIClient()
    client.force_authenticate(admin)
    upload = SimpleUploadedFile("ls.json", json.dumps(tasks).encode(), "application/json")
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload, "format": "labelstudio", **fields},
        format="multipart",
    )


def _holders(project: Project) -> dict[str, str]:
    """Document text's first word and annotator username -> span count."""
    found: dict[str, str] = {}
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "annotator", "document"
    ):
        found.setdefault(annotation.annotator.username, "")
        found[annotation.annotator.username] += annotation.document.text.split()[0][0]
    return {user: "".join(sorted(docs)) for user, docs in found.items()}


@pytest.mark.parametrize("first, second", [("quick", "snapshot"), ("snapshot", "quick")])
def test_one_person_is_one_user_across_export_routes_on_the_command_line(
    project, tmp_path, first, second
):
    import_label_studio(path=_write(tmp_path, "a.json", export(first)), project=project)
    users_before = set(User.objects.values_list("username", flat=True))
    report = import_label_studio(path=_write(tmp_path, "b.json", export(second)), project=project)

    assert set(User.objects.values_list("username", flat=True)) == users_before
    assert report.annotations_replaced == 3 and report.annotations_created == 3
    assert len(_holders(project)) == 2 and sorted(_holders(project).values()) == ["V", "VY"]
    rows = LabelStudioAnnotator.objects.filter(project=project).order_by("source_id")
    assert [(row.source_id, row.email) for row in rows] == [
        ("1", "ann@example.org"),
        ("2", "bob@example.org"),
    ]


@pytest.mark.parametrize("first, second", [("quick", "snapshot"), ("snapshot", "quick")])
def test_one_person_is_one_user_across_export_routes_on_the_import_tab(
    project, admin, first, second
):
    assert _post(admin, project, export(first)).json()["status"] == "succeeded"
    users_before = User.objects.count()
    job = _post(admin, project, export(second)).json()

    assert job["status"] == "succeeded", job["errors"]
    assert User.objects.count() == users_before
    assert job["report"]["placeholders"] == []
    assert sorted(_holders(project).values()) == ["V", "VY"]


def test_an_email_in_a_file_never_selects_an_account_outside_the_project(project, admin):
    outsider = User.objects.create_user("ann", email="ann@example.org")
    member = User.objects.create_user("bobby", email="BOB@example.org")
    Membership.objects.create(project=project, user=member, role="annotator")
    job = _post(admin, project, export("snapshot")).json()

    assert job["status"] == "succeeded", job["errors"]
    assert not Annotation.objects.filter(annotator=outsider).exists()
    holders = _holders(project)
    assert holders["bobby"] == "V"  # a member with that e-mail
    (placeholder,) = job["report"]["placeholders"]
    assert holders[placeholder] == "VY"
    account = User.objects.get(username=placeholder)
    assert not account.is_active and not account.email and not account.has_usable_password()


def test_the_report_counts_what_was_stored(project, tmp_path):
    tasks = export("snapshot", prediction=True)
    report = import_label_studio(path=_write(tmp_path, "s.json", tasks), project=project)

    assert report.sentences == Sentence.objects.filter(document__project=project).count() == 6
    assert (report.documents_created, report.documents_reused) == (2, 0)
    stored = {row["user"]: (row["annotations"], row["spans"]) for row in report.per_annotator}
    for username, (made, spans) in stored.items():
        assert Annotation.objects.filter(annotator__username=username).count() == made
        assert Span.objects.filter(annotation__annotator__username=username).count() == spans
    assert sorted(stored.values()) == [(1, 1), (2, 3)]
    assert report.predictions == 1 and report.runs[0]["outputs"] == 3
    assert report.regions == 5 and report.regions_moved == 3
    assert "6 sentences stored" in report.summary()


def test_the_import_tab_reports_the_sentences_it_stored(project, admin):
    job = _post(admin, project, export("quick")).json()
    assert job["report"]["sentences"] == 6 == Sentence.objects.count()
    admin.is_superuser = True
    admin.save()
    job = _post(admin, project, [{"id": 30, "data": {"text": "One. Two. Three."}}]).json()
    assert (job["report"]["sentences"], job["report"]["documents_created"]) == (3, 1)


def test_the_import_tab_takes_the_export_buttons_prediction_ids(project, admin):
    job = _post(admin, project, export("quick", prediction=True)).json()

    assert job["status"] == "succeeded", job["errors"]
    assert (job["report"]["prediction_ids"], job["report"]["predictions"]) == (1, 0)
    assert job["report"]["annotations_created"] == 3 and not ModelRun.objects.exists()


def test_texts_only_imports_the_documents_alone(project, admin):
    tasks = export("snapshot", prediction=True)
    tasks[1]["annotations"][0]["result"][0]["value"]["labels"] = ["no such label"]
    job = _post(admin, project, tasks, texts_only="true").json()

    assert job["status"] == "succeeded", job["errors"]
    report = job["report"]
    assert (report["documents_created"], report["sentences"], report["annotations_created"]) == (
        2,
        6,
        0,
    )
    assert (report["annotations_dropped"], report["predictions_skipped"]) == (3, 1)
    assert not Annotation.objects.exists() and not ModelRun.objects.exists()
    assert User.objects.count() == 1 and not LabelStudioAnnotator.objects.exists()


def test_the_read_step_lists_annotators_with_counts_and_defaults(project, admin):
    member = User.objects.create_user("bobby", email="bob@example.org")
    Membership.objects.create(project=project, user=member, role="annotator")
    client = APIClient()
    client.force_authenticate(admin)
    upload = SimpleUploadedFile("ls.json", json.dumps(export("snapshot")).encode())
    response = client.post(
        f"/api/projects/{project.pk}/imports/label-studio/annotators/",
        {"file": upload},
        format="multipart",
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["tasks"] == 2 and body["members"] == ["bobby", "boss"]
    assert [(a["key"], a["email"], a["annotations"], a["regions"]) for a in body["annotators"]] == [
        ("1", "ann@example.org", 2, 3),
        ("2", "bob@example.org", 1, 1),
    ]
    assert [a["default"] for a in body["annotators"]] == [
        {"how": "new", "user": None},
        {"how": "member", "user": "bobby"},
    ]
    assert not LabelStudioAnnotator.objects.exists()  # reading stores nothing


def test_the_import_tab_maps_drops_and_invites(project, admin, mailoutbox=None):
    alice = User.objects.create_user("alice")
    Membership.objects.create(project=project, user=alice, role="annotator")
    choices = {"1": {"action": "invite", "email": "ann@example.org"}, "2": "member:alice"}
    response = _post(admin, project, export("quick"), annotators=json.dumps(choices))

    assert response.status_code == 201, response.content
    job = response.json()
    assert job["status"] == "succeeded", job["errors"]
    (invited,) = job["invitations"]
    assert invited["email"] == "ann@example.org" and "/invite/" in invited["link"]
    assert job["report"]["invited"] == ["ann@example.org"]
    (placeholder,) = job["report"]["placeholders"]
    assert _holders(project) == {placeholder: "VY", "alice": "V"}

    # Ann accepts with her own account: her work moves to it, the placeholder leaves.
    ann = User.objects.create_user("ann.lee")
    token = invited["link"].rstrip("/").rsplit("/", 1)[1]
    accept_invitation(token=token, user=ann)
    assert _holders(project) == {"ann.lee": "VY", "alice": "V"}
    assert not Membership.objects.filter(project=project, user__username=placeholder).exists()

    # Re-importing, from either route, keeps both choices without asking again.
    job = _post(admin, project, export("snapshot")).json()
    assert job["status"] == "succeeded" and job["report"]["placeholders"] == []
    assert _holders(project) == {"ann.lee": "VY", "alice": "V"}

    # Dropping Bob skips his work (his unknown labels are not checked).
    tasks = export("quick")
    tasks[0]["annotations"][1]["result"][0]["value"]["labels"] = ["no such label"]
    job = _post(admin, project, tasks, annotators=json.dumps({"2": "drop"})).json()
    assert job["status"] == "succeeded", job["errors"]
    assert job["report"]["annotations_dropped"] == 1
    assert [(r["key"], r["user"]) for r in job["report"]["per_annotator"]] == [
        ("1", "ann.lee"),
        ("2", None),
    ]


@pytest.mark.parametrize(
    "fields, field, message",
    [
        ({"annotators": '{"1": "member:ann"}'}, "annotators", "1: "),
        ({"annotators": '{"1": {"action": "adopt"}}'}, "annotators", "unknown action"),
        ({"annotators": '{"1": "invite:not-an-address"}'}, "annotators", "not an e-mail"),
        ({"annotators": "[1"}, "annotators", "not JSON"),
        ({"texts_only": "maybe"}, "texts_only", ""),
    ],
)
def test_a_bad_choice_is_a_400_naming_the_field_and_changes_nothing(
    project, admin, fields, field, message
):
    User.objects.create_user("ann", email="ann@example.org")  # not a member
    response = _post(admin, project, export("quick"), **fields)

    assert response.status_code == 400, response.content
    assert message in " ".join(response.json()[field])
    assert not ImportJob.objects.exists() and not Invitation.objects.exists()
    assert not Annotation.objects.exists()


def test_choices_go_with_the_labelstudio_format_only(project, admin):
    client = APIClient()
    client.force_authenticate(admin)
    upload = SimpleUploadedFile("t.txt", b"One text.\n")
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload, "format": "text", "texts_only": "true"},
        format="multipart",
    )
    assert response.status_code == 400
    assert "labelstudio" in response.json()["texts_only"][0]


def test_the_command_lists_maps_and_imports_texts_only(project, tmp_path):
    path = _write(tmp_path, "q.json", export("quick"))
    out = io.StringIO()
    call_command(
        "import_dataset", str(path), format="labelstudio", project=project.name,
        list_annotators=True, stdout=out,
    )  # fmt: skip
    assert "2 tasks, 2 annotators" in out.getvalue()
    assert "  1: 2, 3  Label Studio user 1" in out.getvalue()
    assert not Annotation.objects.exists()

    alice = User.objects.create_user("alice")
    out = io.StringIO()
    call_command(
        "import_dataset", str(path), "--format", "labelstudio", "--project", project.name,
        "--map-annotator", "1=member:alice", "--map-annotator", "2=drop", stdout=out,
    )  # fmt: skip
    assert _holders(project) == {"alice": "VY"}
    assert "1 dropped" in out.getvalue()

    other = create_project(name="texts", taxonomy=project.taxonomy)
    call_command(
        "import_dataset", str(path), format="labelstudio", project=other.name,
        texts_only=True, stdout=io.StringIO(),
    )  # fmt: skip
    assert other.documents.count() == 2
    assert not Annotation.objects.filter(document__project=other).exists()
    assert alice.pk  # the member choice did not create another account
