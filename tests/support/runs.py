"""The evaluation-runs API's own small data: a MAFALDA-taxonomy project with a two-text gold
version (three sentences), an imported run, one annotator's submitted work and a second
project; runs launched by the service and finished by hand."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
from annotations.models import GoldStandard, Membership, Project, Sentence
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import ModelSpec
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunShard
from evaluation.runs.imports import import_run
from evaluation.runs.launch import launch_runs
from evaluation.runs.services import score_and_store

S1 = "You cannot trust Smith on taxes, he cheated on his wife."
S2 = "The weather is nice today."
TEXT_A = f"{S1} {S2}"
TEXT_B = "If we allow this, soon everything will collapse."
BASE = "/api/evaluation"
RUNS = f"{BASE}/runs/"
VARIANTS = f"{BASE}/variants/"
LEADERBOARD = f"{BASE}/leaderboard/"


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """One line per record: a dict as JSON, a string as it is (for malformed lines)."""
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records),
        encoding="utf-8",
    )
    return path


def two_gold_projects(tmp_path: Path) -> tuple[Project, Project]:
    """Two MAFALDA-taxonomy projects, each with the same two-text gold version (TEXT_A holds an
    ad hominem in S1; TEXT_B has no fallacy)."""
    taxonomy = install_preset(name="mafalda")
    project = create_project(name="Eval", taxonomy=taxonomy)
    other = create_project(name="Other", taxonomy=taxonomy)
    gold_file = write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {"text": TEXT_A, "labels": [[0, len(S1), "ad hominem"]], "comments": []},
            {"text": TEXT_B, "labels": [], "comments": []},
        ],
    )
    import_mafalda_gold(path=gold_file, project=project)
    import_mafalda_gold(path=gold_file, project=other)
    return project, other


def submit_annotator_work(tmp_path: Path, project: Project, annotator: User) -> None:
    """The annotator's submitted work on both texts: S1 ad hominem, TEXT_B slippery slope."""
    doccano = write_jsonl(
        tmp_path / "ann.jsonl",
        [
            {"id": 1, "text": TEXT_A, "label": [[0, len(S1), "ad hominem"]]},
            {"id": 2, "text": TEXT_B, "label": [[0, len(TEXT_B), "slippery slope"]]},
        ],
    )
    import_doccano_annotations(path=doccano, project=project, annotator=annotator)


@dataclass
class World:
    project: Project
    other: Project
    gold: GoldStandard
    other_gold: GoldStandard
    imported: ModelRun
    admin: User
    reviewer: User
    annotator: User
    outsider: User
    zero_shot: PromptVariant
    guided: PromptVariant


def build_world(tmp_path: Path) -> World:
    """The project, its gold version, the imported run, the four users and two built-in variants."""
    project, other = two_gold_projects(tmp_path)
    users = {
        name: User.objects.create_user(name)
        for name in ("admin", "reviewer", "annotator", "outsider")
    }
    add_member(project=project, user=users["admin"], role=Membership.Role.ADMIN)
    add_member(project=project, user=users["reviewer"], role=Membership.Role.REVIEWER)
    add_member(project=project, user=users["annotator"], role=Membership.Role.ANNOTATOR)
    add_member(project=other, user=users["admin"], role=Membership.Role.REVIEWER)
    submit_annotator_work(tmp_path, project, users["annotator"])
    gold = project.gold_standards.get()
    raw = [
        {"text": TEXT_A, "prediction": {S1: "Output: ad hominem", S2: "I cannot tell."}},
        {"text": TEXT_B, "prediction": {TEXT_B: "slippery slope"}},
    ]
    path = write_jsonl(tmp_path / "run.jsonl", raw)
    imported = import_run(
        project=project, path=path, name="published", model_name="gpt-x", gold_standard=gold
    )
    builtin = PromptVariant.objects.filter(task="mafalda", version=1)
    people = [users[name] for name in ("admin", "reviewer", "annotator", "outsider")]
    variants = [builtin.get(name="zero-shot"), builtin.get(name="guided")]
    return World(project, other, gold, other.gold_standards.get(), imported, *people, *variants)


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def launch_body(world: World, **extra: Any) -> dict[str, Any]:
    return {
        "project": world.project.pk,
        "gold_standard": world.gold.pk,
        "models": [{"backend": "random", "model": "", "settings": {}}],
        "prompt_variants": [world.zero_shot.pk],
        **extra,
    }


def launched(world: World, **options: Any) -> ModelRun:
    """A queued run made by the service (nothing enqueued)."""
    [run] = launch_runs(
        project=world.project,
        gold_standard=world.gold,
        models=[ModelSpec("random", "")],
        variants=[world.zero_shot],
        created_by=world.admin,
        enqueue=False,
        **options,
    )
    return run


def counts() -> tuple[int, int]:
    return ModelRun.objects.count(), RunShard.objects.count()


def finish(run: ModelRun, answers: dict[str, str]) -> ModelRun:
    """Write an output for every sentence of the run's gold (``answers`` by sentence text,
    default "no fallacy"), mark the run done and store its scores."""
    sentences = Sentence.objects.filter(document__in=run.gold_standard.documents.all())
    for sentence in sentences.select_related("document").order_by("document_id", "index"):
        unit = sentence.document.text[sentence.start : sentence.end]
        raw = answers.get(unit, "No fallacy.")
        RunOutput.objects.create(
            run=run,
            document=sentence.document,
            unit_index=sentence.index,
            unit_text=unit,
            raw_output=raw,
            prompt=f"Classify: {unit}",
            parsed_labels=None if raw == "???" else [raw.lower()],
            seconds=0.5,
        )
    run.run_shards.update(status=RunShard.Status.DONE)
    ModelRun.objects.filter(pk=run.pk).update(
        status=ModelRun.Status.DONE, done=run.outputs.count(), generated=3, generation_seconds=1.5
    )
    run.refresh_from_db()
    score_and_store(run=run)
    return run
