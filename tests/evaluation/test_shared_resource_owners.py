"""Prompt variants and Prolog rule files belong to a project or are global (the built-ins):
what an admin of project A saves changes nothing in project B (its launches, its generation
jobs, its launch page), B's members cannot read it, a project admin cannot version a global
row, and the data migration gives today's rows an owner without touching a finished run."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.form_presets import get_form_preset
from annotations.importing.datasets import import_mafalda_gold
from annotations.models import Document, Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import ModelSpec
from evaluation.models import GenerationJob, ModelRun, PrologRule, PromptVariant, RunOutput
from evaluation.prolog import parse_rule_file, shipped_rule_files
from evaluation.synthesis.services import launch_generation
from tests.support.builtin_rows import builtin_judge_variants

BASE = "/api/evaluation"
VARIANTS = f"{BASE}/variants/"
RULES = f"{BASE}/prolog-rules/"
TYPE = "false dilemma"
SOURCE = shipped_rule_files()["false_dilemma"]
needs_swipl = pytest.mark.skipif(shutil.which("swipl") is None, reason="swipl is not installed")

pytestmark = pytest.mark.django_db


def seed_rules() -> None:
    for source in shipped_rule_files().values():
        PrologRule.objects.get_or_create(
            type=parse_rule_file(source).type,
            version=1,
            project=None,
            defaults={"source": source, "builtin": True},
        )


def items_project(name: str) -> Project:
    preset = get_form_preset("smartypat")
    return create_project(
        name=name, taxonomy=install_preset(name=preset.taxonomy), kind="items", form=preset.form
    )


def member(project: Project, name: str, role: str) -> User:
    user = User.objects.get_or_create(username=name)[0]
    add_member(project=project, user=user, role=role)
    return user


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def zero_shot_copy(project: Project) -> dict[str, Any]:
    builtin = PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1)
    return {
        "project": project.pk,
        "task": "mafalda",
        "name": "zero-shot",
        "kind": "zero-shot",
        "template": builtin.template + "\nProject A's wording.",
        "parser": "keyword",
    }


def launch_variants(client: APIClient, project: Project) -> list[tuple[int, str, int]]:
    response = client.get(f"{BASE}/launch-options/", {"project": project.pk})
    assert response.status_code == 200, response.content
    return [(v["id"], v["name"], v["version"]) for v in response.json()["variants"]]


def first_zero_shot(variants: list[tuple[int, str, int]]) -> int:
    """What the launch page preselects: the first variant named zero-shot
    (``preselectedVariants`` in frontend/src/lib/launch.ts)."""
    return next(pk for pk, name, _version in variants if name == "zero-shot")


# --- prompt variants ------------------------------------------------------------------------


def test_a_variant_saved_in_project_a_changes_nothing_in_project_b(tmp_path: Path) -> None:
    taxonomy = install_preset(name="mafalda")
    a = create_project(name="A", taxonomy=taxonomy)
    b = create_project(name="B", taxonomy=taxonomy)
    admin_a = member(a, "admin-a", Membership.Role.ADMIN)
    admin_b = member(b, "admin-b", Membership.Role.ADMIN)
    reviewer_b = member(b, "reviewer-b", Membership.Role.REVIEWER)
    before_b = launch_variants(client_for(admin_b), b)
    builtin_zero = first_zero_shot(before_b)

    created = client_for(admin_a).post(VARIANTS, zero_shot_copy(a), format="json")
    assert created.status_code == 201, created.content
    copy = created.json()
    assert (copy["project"], copy["version"], copy["builtin"]) == (a.pk, 2, False)

    # A launches with its own copy, preselected on its launch page
    assert first_zero_shot(launch_variants(client_for(admin_a), a)) == copy["id"]
    # B's launch page: the same variants, the built-in zero-shot still preselected
    after_b = launch_variants(client_for(admin_b), b)
    assert after_b == before_b and first_zero_shot(after_b) == builtin_zero
    # B's members cannot read A's variant, nor launch with it
    for user in (reviewer_b, admin_b):
        client = client_for(user)
        assert client.get(f"{VARIANTS}{copy['id']}/").status_code == 404
        assert copy["id"] not in {v["id"] for v in client.get(VARIANTS).json()}
        assert copy["id"] not in {v["id"] for v in client.get(VARIANTS, {"project": b.pk}).json()}
        assert client.get(VARIANTS, {"project": a.pk}).status_code == 404
    gold_file = tmp_path / "gold.jsonl"
    gold_file.write_text(json.dumps({"text": "A text.", "labels": []}) + "\n", encoding="utf-8")
    import_mafalda_gold(path=gold_file, project=b)
    refused = client_for(admin_b).post(
        f"{BASE}/runs/",
        {
            "project": b.pk,
            "gold_standard": b.gold_standards.get().pk,
            "models": [{"backend": "random", "model": "", "settings": {}}],
            "prompt_variants": [copy["id"]],
        },
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json() == {"prompt_variants[0]": [f"no prompt variant with id {copy['id']}"]}
    assert ModelRun.objects.filter(project=b).count() == 0
    # the built-in itself is unchanged
    assert PromptVariant.objects.get(pk=builtin_zero).project_id is None


def test_a_project_admin_cannot_version_a_global_variant_or_another_project() -> None:
    taxonomy = install_preset(name="mafalda")
    a = create_project(name="A", taxonomy=taxonomy)
    b = create_project(name="B", taxonomy=taxonomy)
    admin_a = member(a, "admin-a", Membership.Role.ADMIN)
    member(b, "admin-a", Membership.Role.REVIEWER)
    c = create_project(name="C", taxonomy=taxonomy)
    client = client_for(admin_a)
    body = zero_shot_copy(a)
    before = PromptVariant.objects.count()
    refused = client.post(VARIANTS, {**body, "project": None}, format="json")
    assert refused.status_code == 403 and "superusers" in refused.json()["detail"]
    assert (
        client.post(VARIANTS, {k: v for k, v in body.items() if k != "project"}).status_code == 403
    )
    assert client.post(VARIANTS, {**body, "project": b.pk}, format="json").status_code == 403
    assert client.post(VARIANTS, {**body, "project": c.pk}, format="json").status_code == 404
    assert PromptVariant.objects.count() == before
    root = User.objects.create_superuser("root", password="x")
    made = client_for(root).post(VARIANTS, {**body, "project": None}, format="json")
    assert made.status_code == 201 and made.json()["project"] is None
    assert made.json()["version"] == 2
    # the new global version is everyone's; A's next copy continues past it
    assert client.get(f"{VARIANTS}{made.json()['id']}/").status_code == 200
    assert client.post(VARIANTS, body, format="json").json()["version"] == 3


def test_the_evaluate_command_resolves_the_projects_own_variant_first() -> None:
    from evaluation import ownership

    taxonomy = install_preset(name="mafalda")
    a = create_project(name="A", taxonomy=taxonomy)
    b = create_project(name="B", taxonomy=taxonomy)
    builtin = PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1)
    own = PromptVariant.objects.create(
        task="mafalda", name="zero-shot", version=2, kind="zero-shot",
        template=builtin.template, project=a,
    )  # fmt: skip
    assert ownership.resolve_variant(a, "mafalda", "zero-shot") == own
    assert ownership.resolve_variant(b, "mafalda", "zero-shot") == builtin
    assert ownership.resolve_variant(b, "mafalda", "zero-shot", 2) is None


# --- rule files and generation jobs -------------------------------------------------------


@needs_swipl
def test_a_rule_saved_in_project_a_is_not_used_or_read_in_project_b() -> None:
    seed_rules()
    builtin_judge_variants()
    a, b = items_project("Gen A"), items_project("Gen B")
    admin_a = member(a, "admin-a", Membership.Role.ADMIN)
    reviewer_b = member(b, "reviewer-b", Membership.Role.REVIEWER)
    global_rule = PrologRule.objects.get(type=TYPE, project=None)
    edited = SOURCE.replace("% Examples", "% Examples (project A)", 1)

    refused = client_for(admin_a).post(RULES, {"type": TYPE, "source": edited}, format="json")
    assert refused.status_code == 403 and "superusers" in refused.json()["detail"]
    saved = client_for(admin_a).post(
        RULES, {"type": TYPE, "source": edited, "project": a.pk}, format="json"
    )
    assert saved.status_code == 201, saved.content
    rule_a = saved.json()
    assert (rule_a["project"], rule_a["version"]) == (a.pk, 2)
    assert PrologRule.objects.get(pk=global_rule.pk).source == SOURCE

    model = ModelSpec("random", "")
    job_b = launch_generation(project_name=b.name, type_name=TYPE, model=model, enqueue=False)
    job_a = launch_generation(project_name=a.name, type_name=TYPE, model=model, enqueue=False)
    assert job_b.rule_id == global_rule.pk
    assert job_a.rule_id == rule_a["id"]
    # a new project (created by the launch) gets the global rule too
    fresh = launch_generation(project_name="Gen C", type_name=TYPE, model=model, enqueue=False)
    assert fresh.rule_id == global_rule.pk

    client = client_for(reviewer_b)
    assert client.get(f"{RULES}{rule_a['id']}/").status_code == 404
    assert rule_a["id"] not in {r["id"] for r in client.get(RULES).json()}
    assert rule_a["id"] not in {r["id"] for r in client.get(RULES, {"project": b.pk}).json()}
    assert client.get(RULES, {"project": a.pk}).status_code == 404
    assert client.get(f"{RULES}{global_rule.pk}/").status_code == 200
    # B's reviewer may not save a version in A, nor in B
    body = {"type": TYPE, "source": edited}
    assert client.post(RULES, {**body, "project": a.pk}, format="json").status_code in (403, 404)
    assert client.post(RULES, {**body, "project": b.pk}, format="json").status_code == 403
    assert PrologRule.objects.filter(type=TYPE).count() == 2


# --- the data migration ---------------------------------------------------------------------


def assign_owners() -> None:
    module = importlib.import_module("evaluation.migrations.0014_assign_shared_resource_owners")
    module.assign_owners(apps, None)


def finished_run(project: Project, variant: PromptVariant, name: str) -> ModelRun:
    run = ModelRun.objects.create(
        project=project, name=name, prompt_variant=variant, status=ModelRun.Status.DONE
    )
    document = Document.objects.create(project=project, text="A short text.", name=name)
    RunOutput.objects.create(
        run=run, document=document, unit_index=0, unit_text="A short text.",
        raw_output="ad hominem", prompt=variant.template.replace("{text}", "A short text.\u00a0"),
    )  # fmt: skip
    return run


def test_the_migration_gives_rows_an_owner_and_keeps_finished_runs_prompts() -> None:
    seed_rules()
    taxonomy = install_preset(name="mafalda")
    a = create_project(name="A", taxonomy=taxonomy)
    b = create_project(name="B", taxonomy=taxonomy)

    def variant(name: str) -> PromptVariant:
        return PromptVariant.objects.create(
            task="mafalda", name=name, version=1, kind="zero-shot",
            template="Label {sentence} of {text}", project=None,
        )  # fmt: skip

    only_a, shared, unused = variant("only-a"), variant("shared"), variant("unused")
    builtin = PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1)
    runs = [
        finished_run(a, only_a, "a1"),
        finished_run(a, shared, "a2"),
        finished_run(b, shared, "b1"),
        finished_run(b, builtin, "b2"),
    ]
    prompts = {run.pk: list(run.outputs.values_list("prompt", "raw_output")) for run in runs}
    rule = PrologRule.objects.create(type=TYPE, version=2, source=SOURCE + "\n", project=None)
    judge = builtin_judge_variants()[0]
    GenerationJob.objects.create(project=b, rule=rule, backend="random", judge_variant=judge)

    assign_owners()

    owners = dict(PromptVariant.objects.values_list("pk", "project_id"))
    assert owners[only_a.pk] == a.pk  # used by A's runs only
    assert owners[shared.pk] is None  # used by two projects: stays global
    assert owners[unused.pk] is None
    assert owners[builtin.pk] is None and owners[judge.pk] is None
    assert PrologRule.objects.get(pk=rule.pk).project_id == b.pk
    assert PrologRule.objects.get(type=TYPE, version=1).project_id is None
    for run in runs:
        again = ModelRun.objects.get(pk=run.pk)
        assert again.prompt_variant_id == run.prompt_variant_id
        assert list(again.outputs.values_list("prompt", "raw_output")) == prompts[run.pk]
    assert PromptVariant.objects.get(pk=only_a.pk).template == "Label {sentence} of {text}"
    assign_owners()  # twice: nothing more changes
    assert dict(PromptVariant.objects.values_list("pk", "project_id")) == owners
