"""Every admin page of the platform's models renders; published gold standards are read-only."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotations.models import (
    GoldDocument,
    GoldSpan,
    GoldStandard,
    ImportJob,
    ImportUpload,
    LabelStudioAnnotator,
    Span,
)
from annotations.services.invitations import create_invitation
from evaluation.models import (
    AgreementResult,
    DocumentDisagreement,
    GeneratedItem,
    GenerationCache,
    GenerationJob,
    GenerationRelease,
    ModelRun,
    PrologRule,
    RunOutput,
    RunScore,
    RunShard,
    StoredBoard,
    Suggestion,
    SuggestionDecision,
    SuggestionSettings,
    SuggestionShown,
)
from tests.support.factories import BOUNDS, PASSWORD, World, make_world

pytestmark = pytest.mark.django_db

APPS = {"annotations", "evaluation"}


@pytest.fixture
def world(db: None) -> World:
    world = make_world()
    Span.objects.create(
        annotation=world.a1, start=BOUNDS[1][0], end=BOUNDS[1][1], labels=["ad hominem"]
    )
    published = GoldStandard.objects.create(project=world.p1, version=2)
    for gold in (world.g1, published):
        GoldDocument.objects.create(gold_standard=gold, document=world.d1)
        GoldSpan.objects.create(
            gold_standard=gold,
            document=world.d1,
            start=BOUNDS[0][0],
            end=BOUNDS[0][1],
            labels=["hasty generalization", "no fallacy"],
        )
    GoldStandard.objects.filter(pk=published.pk).update(
        status="published", published_at=timezone.now()
    )
    run = ModelRun.objects.create(project=world.p1, gold_standard=published, name="run-1")
    RunOutput.objects.create(
        run=run, document=world.d1, unit_index=0, unit_text="x", raw_output="y"
    )
    RunShard.objects.create(run=run, index=0)
    GenerationCache.objects.create(key="0" * 64, output="y", backend="random", model_name="")
    RunScore.objects.create(run=run, gold_standard=published, profile="paper", report={})
    AgreementResult.objects.create(project=world.p1, key="0" * 64, status="done", payload={})
    StoredBoard.objects.create(
        kind="gold",
        scope=published.pk,
        project=world.p1,
        gold_standard=published,
        query="0" * 64,
        query_text='{"profile": "paper"}',
        fingerprint="0" * 64,
        body="{}",
        computed_at=timezone.now(),
    )
    queued = ImportJob.objects.create(project=world.p1, format="text", file_name="texts.txt")
    ImportUpload.objects.create(job=queued, content=b"A text.\n")  # not imported yet
    create_invitation(project=world.p1, role="annotator", created_by=None, email="a@b.example")
    LabelStudioAnnotator.objects.create(
        project=world.p1, source_id="1", email="a@b.example", user=world.ann1
    )
    SuggestionSettings.objects.create(project=world.p1, assisted=True)
    suggestion = Suggestion.objects.create(
        run=run, document=world.d1, unit_index=0, start=BOUNDS[0][0], end=BOUNDS[0][1],
        labels=["ad hominem"],
    )  # fmt: skip
    SuggestionDecision.objects.create(
        suggestion=suggestion, annotator=world.ann1, decision="reject"
    )
    DocumentDisagreement.objects.create(document=world.d1, score=1, runs=2)
    SuggestionShown.objects.create(document=world.d1, annotator=world.ann1)
    rule = PrologRule.objects.create(type="admin test type", version=1, source="% a rule file")
    job = GenerationJob.objects.create(project=world.p1, rule=rule, backend="random")
    GeneratedItem.objects.create(job=job, document=world.d1, position=0)
    GenerationRelease.objects.create(project=world.p1, version=1, gold_project=world.p1)
    return world


@pytest.fixture
def root(world: World) -> Client:
    User.objects.create_superuser("root", password=PASSWORD)
    client = Client()
    client.login(username="root", password=PASSWORD)
    return client


def models_in_admin() -> list[type]:
    return [m for m in admin.site._registry if m._meta.app_label in APPS]


def test_every_model_is_registered() -> None:
    from django.apps import apps
    from simple_history.admin import SimpleHistoryAdmin
    from simple_history.models import HistoricalChanges

    models = {m for app in APPS for m in apps.get_app_config(app).get_models()}
    # history tables are read through their model's "History" page, not registered alone
    historical = {m for m in models if issubclass(m, HistoricalChanges)}
    assert historical, "annotations and gold rows keep their history"
    assert models - historical <= set(models_in_admin())
    for model in historical:
        tracked = model.instance_type
        assert isinstance(admin.site._registry[tracked], SimpleHistoryAdmin), tracked


def test_changelist_and_change_pages_render(root: Client) -> None:
    for model in models_in_admin():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        response = root.get(changelist)
        assert response.status_code == 200, changelist
        assert root.get(changelist, {"q": "a"}).status_code == 200, changelist
        obj = model.objects.order_by("pk").first()
        assert obj is not None, f"no {opts.model_name} to open"
        change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
        assert root.get(change).status_code == 200, change


def test_published_gold_is_read_only(root: Client, world: World) -> None:
    published = GoldStandard.objects.get(status="published")
    url = reverse("admin:annotations_goldstandard_change", args=[published.pk])
    page = root.get(url)
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert root.post(url, {"note": "edited"}).status_code == 403
    delete = reverse("admin:annotations_goldstandard_delete", args=[published.pk])
    assert root.post(delete, {"post": "yes"}).status_code == 403
    span = GoldSpan.objects.get(gold_standard=published)
    assert (
        root.post(
            reverse("admin:annotations_goldspan_delete", args=[span.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert GoldStandard.objects.filter(pk=published.pk, note="").exists()
    assert GoldSpan.objects.filter(pk=span.pk).exists()
    # A draft stays editable.
    draft = reverse("admin:annotations_goldstandard_change", args=[world.g1.pk])
    assert b'name="_save"' in root.get(draft).content


def test_publishing_a_draft_in_the_admin_form_sets_published_at(world: World) -> None:
    from annotations.admin.gold import GoldStandardForm

    data = {"project": world.p1.pk, "version": 1, "status": "published", "source": "", "note": ""}
    form = GoldStandardForm(data=data, instance=world.g1)
    assert form.is_valid(), form.errors
    gold = form.save()
    assert gold.is_published and gold.published_at is not None


def test_history_pages_of_gold_rows_and_no_revert_of_a_published_version(
    root: Client, world: World
) -> None:
    published = GoldSpan.objects.get(gold_standard__status="published")
    record = published.history.earliest()
    history = reverse("admin:annotations_goldspan_history", args=[published.pk])
    assert root.get(history).status_code == 200
    version = reverse(
        "admin:annotations_goldspan_simple_history", args=[published.pk, record.history_id]
    )
    page = root.get(version)
    assert page.status_code == 200 and b"Revert" not in page.content
    revert = {
        "gold_standard": published.gold_standard_id,
        "document": published.document_id,
        "start": 0,
        "end": 5,
        "labels": '["ad hominem"]',
        "details": "{}",
        "proposed_by": "{}",
    }
    assert root.post(version, revert).status_code == 403
    published.refresh_from_db()
    assert published.start == BOUNDS[0][0]
    # a draft's row can be reverted to an earlier version
    draft = GoldSpan.objects.get(gold_standard=world.g1)
    draft.labels = ["ad hominem"]
    draft.save()
    first = draft.history.earliest()
    url = reverse("admin:annotations_goldspan_simple_history", args=[draft.pk, first.history_id])
    assert b"Revert" in root.get(url).content
    reverted = root.post(
        url, {**revert, "gold_standard": world.g1.pk, "labels": '["hasty generalization"]'}
    )
    assert reverted.status_code == 302
    draft.refresh_from_db()
    assert draft.labels == ["hasty generalization"]
