"""Suggestions' own small data: a MAFALDA-taxonomy project with two texts (three sentences),
two imported runs that disagree, two annotators with both texts in their queues."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.datasets import import_mafalda_gold
from annotations.models import Document, Membership, Project
from annotations.services.assignments import assign_to_annotators
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun, Suggestion
from evaluation.runs.imports import import_run
from evaluation.suggestions.services import (
    create_suggestions,
    set_assisted,
)

S1 = "You cannot trust Smith on taxes, he cheated on his wife."


S2 = "The weather is nice today."


TEXT_A = f"{S1} {S2}"


TEXT_B = "If we allow this, soon everything will collapse."


BASE = "/api/evaluation"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@dataclass
class World:
    project: Project
    doc_a: Document
    doc_b: Document
    run1: ModelRun
    run2: ModelRun
    admin: User
    reviewer: User
    ann1: User
    ann2: User
    outsider: User


def build_world(tmp_path: Path) -> World:
    """Text A (S1: both runs \"ad hominem\"; S2: run-one unparseable, run-two \"no fallacy\") and
    text B (run-one \"slippery slope\", run-two \"none\"), both in a1's and a2's queues."""
    taxonomy = install_preset(name="mafalda")
    project = create_project(name="Assist", taxonomy=taxonomy)
    gold_file = write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {"text": TEXT_A, "labels": [[0, len(S1), "ad hominem"]], "comments": []},
            {"text": TEXT_B, "labels": [], "comments": []},
        ],
    )
    import_mafalda_gold(path=gold_file, project=project)
    users = {n: User.objects.create_user(n) for n in ("admin", "reviewer", "a1", "a2", "out")}
    add_member(project=project, user=users["admin"], role=Membership.Role.ADMIN)
    add_member(project=project, user=users["reviewer"], role=Membership.Role.REVIEWER)
    for name in ("a1", "a2"):
        add_member(project=project, user=users[name], role=Membership.Role.ANNOTATOR)
    assign_to_annotators(project=project, annotators=[users["a1"], users["a2"]], per_document=2)
    run1 = import_run(
        project=project,
        path=write_jsonl(
            tmp_path / "run1.jsonl",
            [
                {"text": TEXT_A, "prediction": {S1: "ad hominem", S2: "I cannot tell."}},
                {"text": TEXT_B, "prediction": {TEXT_B: "slippery slope"}},
            ],
        ),
        name="run-one",
        model_name="model-1",
    )
    run2 = import_run(
        project=project,
        path=write_jsonl(
            tmp_path / "run2.jsonl",
            [
                {"text": TEXT_A, "prediction": {S1: "ad hominem", S2: "no fallacy"}},
                {"text": TEXT_B, "prediction": {TEXT_B: "none"}},
            ],
        ),
        name="run-two",
        model_name="model-2",
    )
    doc_a = project.documents.get(text=TEXT_A)
    doc_b = project.documents.get(text=TEXT_B)
    return World(
        project,
        doc_a,
        doc_b,
        run1,
        run2,
        users["admin"],
        users["reviewer"],
        users["a1"],
        users["a2"],
        users["out"],
    )


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def suggestion(world: World, run: ModelRun, document: Document, unit: int = 0) -> Suggestion:
    return Suggestion.objects.get(run=run, document=document, unit_index=unit)


def make(world: World, *, assisted: bool = True) -> None:
    create_suggestions(project=world.project, runs=[world.run1, world.run2], by=world.admin)
    set_assisted(project=world.project, assisted=assisted, by=world.admin)
