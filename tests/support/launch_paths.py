"""Every API path that launches a model, as a project admin's request for one model choice.

Each builder makes its project (the admin an admin of it) and returns ``body(model)``:
``model`` is ``{"backend", "model", "settings"}``, the answer ``(url, data, where)``, where
``where`` is the prefix the launch names that model's fields under (``models[0]``,
``judge_model``, ``model``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.form_presets import get_form_preset
from annotations.importing.datasets import import_mafalda_gold
from annotations.models import Document, Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import GenerationJob, ModelRun, PromptVariant
from tests.support.generation import TYPE, seed
from tests.support.judging import FORM, free_text_run

RUNS = "/api/evaluation/runs/"
JUDGES = "/api/evaluation/judges/"
JOBS = "/api/evaluation/generation-jobs/"
TEXT = "You cannot trust Smith on taxes, he cheated on his wife."

Body = Callable[[dict[str, Any]], tuple[str, dict[str, Any], str]]


def as_user(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def created() -> tuple[int, int]:
    """How many runs and generation jobs there are."""
    return ModelRun.objects.count(), GenerationJob.objects.count()


def refused(
    user: User, body: Body, model: dict[str, Any], fields: list[str], capture_on_commit
) -> str:
    """``user`` launches ``model`` through ``body``: a 400 naming each of ``fields`` under the
    launch's prefix, nothing queued on commit. The answer's text.

    ``capture_on_commit``: pytest-django's ``django_capture_on_commit_callbacks``."""
    url, data, where = body(model)
    with capture_on_commit(execute=False) as queued:
        response = as_user(user).post(url, data, format="json")
    assert response.status_code == 400, (model, response.content)
    answer = response.json()
    for field in fields:
        assert f"{where}.{field}" in answer, (model, answer)
    assert queued == []
    return response.content.decode()


def span_body(admin: User, tmp_path: Path) -> Body:
    project = create_project(name="Spans", taxonomy=install_preset(name="mafalda"))
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"text": TEXT, "labels": [], "comments": []}) + "\n")
    import_mafalda_gold(path=gold, project=project)
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)
    variant = PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1)

    def body(model: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        data = {
            "project": project.pk,
            "gold_standard": project.gold_standards.get().pk,
            "models": [model],
            "prompt_variants": [variant.pk],
        }
        return RUNS, data, "models[0]"

    return body


def items_project(admin: User) -> Project:
    project = Project.objects.create(
        name="Items", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    Document.objects.create(project=project, text=TEXT, position=0, metadata={})
    Membership.objects.create(project=project, user=admin, role="admin")
    return project


def item_body(admin: User, tmp_path: Path) -> Body:
    project = items_project(admin)
    variant = PromptVariant.objects.get(task="free-text", name="zero-shot")

    def body(model: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        data = {
            "project": project.pk,
            "field": "explanation",
            "models": [model],
            "prompt_variants": [variant.pk],
        }
        return RUNS, data, "models[0]"

    return body


def judge_body(admin: User, tmp_path: Path) -> Body:
    project = items_project(admin)
    judged = free_text_run(project, list(project.documents.all()))
    variant = PromptVariant.objects.get(task="judge-fidelity", name="fidelity")

    def body(model: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        data = {
            "project": project.pk,
            "judge_model": model,
            "prompt_variant": variant.pk,
            "judged_run": judged.pk,
        }
        return JUDGES, data, "judge_model"

    return body


def generation_body(admin: User, tmp_path: Path) -> Body:
    """A generation job for the admin's SmartyPat-form project (its rule file is checked by
    swipl: skipped without it)."""
    if shutil.which("swipl") is None:
        pytest.skip("SWI-Prolog is not installed")
    seed()
    preset = get_form_preset("smartypat")
    project = create_project(
        name="Gen", taxonomy=install_preset(name=preset.taxonomy), kind="items", form=preset.form
    )
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)

    def body(model: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        return JOBS, {"project": project.name, "type": TYPE, "n": 2, **model}, "model"

    return body


PATHS: dict[str, Callable[[User, Path], Body]] = {
    "runs": span_body,
    "item runs": item_body,
    "judges": judge_body,
    "jobs": generation_body,
}
