"""What the generation launch form offers: only the unarchived item projects with a ranked
field (the SmartyPat form's shape) that the user administers, whether a new name may be
created, and the local models that write text (no baselines)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.form_presets import get_form_preset
from annotations.models import Membership
from annotations.services.projects import create_project
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db

OPTIONS = "/api/evaluation/generation-options/"


def as_user(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_options_offer_the_projects_that_fit_and_local_models_only() -> None:
    taxonomy = make_taxonomy()
    admin = User.objects.create_user("gen-admin", password="x")
    other = User.objects.create_user("other-admin", password="x")
    annotator = User.objects.create_user("annotator", password="x")
    smartypat = get_form_preset("smartypat").form
    flub = get_form_preset("flub").form

    def project(name: str, owner: User, **fields):
        return create_project(name=name, taxonomy=taxonomy, created_by=owner, **fields)

    fits = project("B fits", admin, kind="items", form=smartypat)
    also = project("A fits too", admin, kind="items", form=smartypat)
    project("Spans", admin)
    project("Flub", admin, kind="items", form=flub)
    archived = project("Archived", admin, kind="items", form=smartypat)
    archived.archived_at = timezone.now()
    archived.save(update_fields=["archived_at"])
    project("Not mine", other, kind="items", form=smartypat)
    Membership.objects.create(project=fits, user=annotator, role="annotator")

    body = as_user(admin).get(OPTIONS).json()
    assert body["projects"] == [
        {"id": also.pk, "name": "A fits too"},
        {"id": fits.pk, "name": "B fits"},
    ]
    assert body["can_create"] is False
    assert {"random", "silent"}.isdisjoint(m["backend"] for m in body["models"])
    assert {"random", "silent"}.isdisjoint(body["backends"]) and "transformers" in body["backends"]
    assert as_user(annotator).get(OPTIONS).status_code == 403

    root = User.objects.create_superuser("root", password="x")
    everything = as_user(root).get(OPTIONS).json()
    assert everything["can_create"] is True
    assert [p["name"] for p in everything["projects"]] == ["A fits too", "B fits", "Not mine"]
