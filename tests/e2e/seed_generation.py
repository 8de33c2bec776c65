"""A finished generation job for the review page (tests/e2e/test_generation_ui.py): an item
project (SmartyPat form) administered by ``gen-admin`` and reviewed by ``gen-reviewer``,
holding three generated false-dilemma sentences with judge scores, as ``run_job`` leaves
them (no model needed).

Run after ``migrate``: ``python tests/e2e/seed_generation.py``; prints a JSON object
{project, job, items: [id, ...]}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

ADMIN = "gen-admin"
REVIEWER = "gen-reviewer"
PROJECT = "Generated: false dilemma"
TYPE = "false dilemma"
SENTENCES = [
    ("Either the team trains harder or it loses every game.", [3, 3, 3]),
    ("We either build roads or ban cars, nothing else works.", [3, 2, 2]),
    ("Soup or salad, said the chef.", [1, 0, 1]),
]


def build() -> dict:
    from django.db import transaction
    from django.utils import timezone

    from annotations.models import Membership, Project
    from annotations.services.documents import NewDocument, add_documents
    from annotations.services.projects import add_member
    from evaluation.models import GeneratedItem, GenerationJob, PrologRule, PromptVariant
    from evaluation.synthesis.services import _smartypat_project

    project = Project.objects.filter(name=PROJECT).first()
    if project is None:
        with transaction.atomic():
            project = _smartypat_project(PROJECT, None)
            add_member(project=project, user=_user(ADMIN), role=Membership.Role.ADMIN)
            add_member(project=project, user=_user(REVIEWER), role=Membership.Role.REVIEWER)
            rule = PrologRule.objects.filter(type=TYPE).order_by("-version").first()
            judge = PromptVariant.objects.filter(task="judge-fidelity", name="fidelity").first()
            job = GenerationJob.objects.create(
                project=project, rule=rule, backend="openai", model_name="canned", n=6,
                judge_variant=judge, status="done", proposed=9, valid=7, rejected=2,
                rejections={"directive": 1, "variable": 1}, satisfying=3, items_kept=3,
                started_at=timezone.now(), finished_at=timezone.now(),
                report={"type": TYPE, "method": "prolog", "judge": {
                    "judgements": 9, "unparseable": 0, "mean": 2.0,
                    "share": {"0": 1 / 9, "1": 2 / 9, "2": 2 / 9, "3": 4 / 9}}},
            )  # fmt: skip
            gold = {"types": [TYPE], "fallacious": True}
            documents = add_documents(
                project=project,
                texts=[
                    NewDocument(text=text, metadata={"format": "generated", "gold": gold})
                    for text, _ in SENTENCES
                ],
            )
            for position, (document, (_, scores)) in enumerate(
                zip(documents, SENTENCES, strict=True)
            ):
                GeneratedItem.objects.create(
                    job=job, document=document, position=position, scores=scores,
                    bindings={"Speaker": "someone"}, facts=["presents_options(a, b, c, d)"],
                )  # fmt: skip
    job = GenerationJob.objects.get(project=project)
    items = list(job.items.order_by("position").values_list("pk", flat=True))
    return {"project": project.pk, "job": job.pk, "items": items}


if __name__ == "__main__":
    setup_django()
    print(json.dumps(build()))
