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
    default "no fallacy"; only the first ``run.limit`` texts of a limited run), mark the run
    done and store its scores."""
    documents = run.gold_standard.documents.order_by("position", "pk")
    if run.limit:
        documents = documents[: run.limit]
    sentences = Sentence.objects.filter(document__in=list(documents))
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


def numbered_text(index: int) -> str:
    return f"Speaker {index} says the mayor cannot be trusted because of his haircut."


def twenty_text_world(tmp_path: Path) -> tuple[Project, GoldStandard, User, PromptVariant]:
    """A MAFALDA-taxonomy project with a 20-text gold version (one sentence each: the even
    texts are an ad hominem, the odd ones have no fallacy), its admin and the zero-shot
    variant."""
    taxonomy = install_preset(name="mafalda")
    project = create_project(name="Twenty", taxonomy=taxonomy)
    records = []
    for index in range(20):
        text = numbered_text(index)
        labels = [[0, len(text), "ad hominem"]] if index % 2 == 0 else []
        records.append({"text": text, "labels": labels, "comments": []})
    import_mafalda_gold(path=write_jsonl(tmp_path / "gold20.jsonl", records), project=project)
    admin = User.objects.create_user("admin20")
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)
    variant = PromptVariant.objects.get(task="mafalda", version=1, name="zero-shot")
    return project, project.gold_standards.get(), admin, variant


def answered_run(
    world: tuple[Project, GoldStandard, User, PromptVariant],
    name: str,
    correct: set[int],
    limit: int | None = None,
) -> ModelRun:
    """A finished run of ``twenty_text_world`` answering the numbered texts in ``correct``
    right and the others wrong (per-text F1 1 or 0)."""
    project, gold, admin, variant = world
    [run] = launch_runs(
        project=project,
        gold_standard=gold,
        models=[ModelSpec("random", "")],
        variants=[variant],
        created_by=admin,
        enqueue=False,
        name=name,
        limit=limit,
    )
    answers = {}
    for index in range(20):
        fallacious = index % 2 == 0
        right = "ad hominem" if fallacious else "No fallacy."
        wrong = "No fallacy." if fallacious else "slippery slope"
        answers[numbered_text(index)] = right if index in correct else wrong
    return finish(run, answers)


def annotate_texts(
    tmp_path: Path, project: Project, annotator: User, labels: dict[int, str | None]
) -> None:
    """The annotator's submitted work on the numbered texts ``labels`` names: the whole
    text with that label, or no span for None."""
    records = [
        {
            "id": index + 1,
            "text": numbered_text(index),
            "label": [] if label is None else [[0, len(numbered_text(index)), label]],
        }
        for index, label in labels.items()
    ]
    path = write_jsonl(tmp_path / f"ann-{annotator.pk}.jsonl", records)
    import_doccano_annotations(path=path, project=project, annotator=annotator)


CUSTOM_TAXONOMY = """\
name: greek-latin
version: "1"
title: Two levels of our own
categories:
  - name: greek
    types:
      - name: alpha
        aliases: [first letter]
        template: E is alpha.
      - name: beta
        template: E is beta.
  - name: latin
    types:
      - name: gamma
        template: E is gamma.
"""
CUSTOM_TEXTS = (
    ("Alpha arrives first. Then nothing happens.", [[0, 20, "alpha"]]),
    ("Beta and gamma argue. The day is fine.", [[0, 21, "beta"], [0, 21, "gamma"]]),
    ("Plain words only.", []),
)


def custom_taxonomy_files(folder: Path) -> tuple[Path, Path]:
    """A two-level taxonomy of our own (not MAFALDA's: greek -> alpha, beta; latin ->
    gamma) and a MAFALDA-format gold file of three texts labelled with it."""
    folder.mkdir(parents=True, exist_ok=True)
    taxonomy = folder / "greek-latin.yaml"
    taxonomy.write_text(CUSTOM_TAXONOMY, encoding="utf-8")
    gold = write_jsonl(
        folder / "custom-gold.jsonl",
        [{"text": text, "labels": labels, "comments": []} for text, labels in CUSTOM_TEXTS],
    )
    return taxonomy, gold


def custom_taxonomy_project(tmp_path: Path) -> tuple[Project, GoldStandard, ModelRun, User]:
    """A project on the taxonomy of ``custom_taxonomy_files`` with its gold version, an
    imported run answering with that taxonomy's labels, and its admin."""
    from annotations.services.taxonomy import load_taxonomy_file

    taxonomy_path, gold_path = custom_taxonomy_files(tmp_path / "custom")
    project = create_project(name="Own", taxonomy=load_taxonomy_file(path=taxonomy_path))
    import_mafalda_gold(path=gold_path, project=project)
    gold = project.gold_standards.get()
    (first, _), (second, _), (third, _) = CUSTOM_TEXTS
    outputs = [
        {
            "text": first,
            "prediction": {"Alpha arrives first.": "alpha", "Then nothing happens.": "none"},
        },
        {"text": second, "prediction": {"Beta and gamma argue.": "beta", "The day is fine.": "no"}},
        {"text": third, "prediction": {third: "The first letter, surely."}},
    ]
    path = write_jsonl(tmp_path / "custom-run.jsonl", outputs)
    run = import_run(project=project, path=path, name="own", model_name="m", gold_standard=gold)
    admin = User.objects.create_user("own-admin")
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)
    return project, gold, run, admin
