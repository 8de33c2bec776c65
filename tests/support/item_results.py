"""A SmartyPat-like item project with finished runs, an imported run, a partial run and an
annotator: the data of the item results tests (figures, subsets, overall, comparability).

Six items; ``split`` is a column of the imported record (bench: s1-s4, benign: s5, s6).
Fields: ``types`` (ranked, labels AH/FD/SS) and ``fallacious`` (detection).

====  =========  =====  ==========  ==========  ===========  ===========  ==========  ======
item  gold       fall.  A types     B types     A fall.      B fall.      published   human
====  =========  =====  ==========  ==========  ===========  ===========  ==========  ======
s1    AH         yes    AH          AH          yes          yes          yes         AH yes
s2    FD         yes    AH, FD      FD          yes          no           yes         FD yes
s3    SS, AH     yes    SS          SS, AH      no           no           yes         AH yes
s4    AH         yes    FD          AH          yes          yes          yes         AH yes
s5    (none)     no     (none)      (none)      no           no           yes         -  no
s6    (none)     no     AH          (none)      yes          no           yes         -  no
====  =========  =====  ==========  ==========  ===========  ===========  ==========  ======

``published`` is an imported run (no prompt variant) of the detection field; model C
answered ``types`` on the first two items only (``limit`` 2): AH, FD.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from annotations.models import Annotation, Document, Membership, Project
from annotations.services.projects import add_member, create_project
from evaluation.items.runs import PROFILE
from evaluation.items.scorer import score_item_run
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunScore
from evaluation.scoring.items import score_answers
from tests.support.factories import make_taxonomy

AH, FD, SS = "ad hominem", "false dilemma", "slippery slope"
LABELS = [AH, FD, SS]
FORM: dict[str, Any] = {
    "fields": [
        {"name": "types", "kind": "ranked", "labels": LABELS, "max": 3},
        {"name": "fallacious", "kind": "detection"},
    ],
    "aggregate": "macro",
}
GOLD_TYPES = [[AH], [FD], [SS, AH], [AH], [], []]
SPLITS = ["bench"] * 4 + ["benign"] * 2
TYPES = {
    "A": [[AH], [AH, FD], [SS], [FD], [], [AH]],
    "B": [[AH], [FD], [SS, AH], [AH], [], []],
    "C": [[AH], [FD]],
}
FALLACIOUS = {
    "A": [True, True, False, True, False, True],
    "B": [True, False, False, True, False, False],
    "published": [True] * 6,
}
HUMAN_TYPES = [[AH], [FD], [AH], [AH], [], []]
HUMAN_FALLACIOUS = [True, True, True, True, False, False]
REVIEWER, ANNOTATOR = "results-reviewer", "results-annotator"


def _variant(task: str) -> PromptVariant:
    found = PromptVariant.objects.filter(task=task, name="zero-shot").order_by("-version").first()
    if found is not None:
        return found
    return PromptVariant.objects.create(
        task=task, name="zero-shot", version=1, kind="zero-shot", shots=0, template="{text}"
    )


def _run(project: Project, documents: list[Document], model: str, field: str, answers: list):
    task = "ranked" if field == "types" else "detection"
    imported = model == "published"
    run = ModelRun.objects.create(
        project=project,
        name=f"{model} {field}",
        backend="" if imported else "vllm",
        model_name=model,
        task=task,
        field=field,
        prompt_variant=None if imported else _variant(task),
        limit=len(answers) if len(answers) < len(documents) else None,
        status=ModelRun.Status.DONE,
        finished_at=timezone.now(),
    )
    for document, value in zip(documents, answers, strict=False):
        if isinstance(value, list):
            raw = ", ".join(value) or "no fallacy"
        else:
            raw = "yes" if value else "no"
        RunOutput.objects.create(
            run=run,
            document=document,
            unit_index=0,
            unit_text=document.text,
            raw_output=raw,
            prompt=document.text,
            answer=raw,
            parsed_labels=value,
        )
    if imported:  # scored as the import scores it: the parsed answers against the key
        golds = [(d.metadata["gold"]).get(field) for d in documents]
        report = score_answers("detection", golds, answers, labels=[])
        RunScore.objects.create(run=run, profile=PROFILE, report={**report, "field": field})
    else:
        score_item_run(run)
    return run


def _documents(project: Project) -> list[Document]:
    documents = []
    for n, (types, split) in enumerate(zip(GOLD_TYPES, SPLITS, strict=True)):
        documents.append(
            Document.objects.create(
                project=project,
                name=f"s{n + 1}",
                external_id=f"s{n + 1}",
                text=f"Sentence {n + 1} of the benchmark.",
                position=n,
                metadata={
                    "format": "smartypat",
                    "record": {"id": f"s{n + 1}", "split": split},
                    "gold": {"types": types, "fallacious": bool(types)},
                },
            )
        )
    return documents


def build() -> dict[str, Any]:
    """The project, its runs and the annotator's responses; their ids."""
    project = create_project(
        name="SmartyPat results", taxonomy=make_taxonomy(), kind="items", form=FORM
    )
    reviewer = User.objects.create_user(REVIEWER, password="x")
    annotator = User.objects.create_user(ANNOTATOR, password="x")
    add_member(project=project, user=reviewer, role=Membership.Role.REVIEWER)
    add_member(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
    documents = _documents(project)
    runs = {}
    for model, answers in TYPES.items():
        runs[f"{model}/types"] = _run(project, documents, model, "types", answers).pk
    for model, answers in FALLACIOUS.items():
        runs[f"{model}/fallacious"] = _run(project, documents, model, "fallacious", answers).pk
    for document, types, fallacious in zip(documents, HUMAN_TYPES, HUMAN_FALLACIOUS, strict=True):
        Annotation.objects.create(
            document=document,
            annotator=annotator,
            status=Annotation.Status.SUBMITTED,
            submitted_at=timezone.now(),
            response={"types": types, "fallacious": fallacious},
        )
    return {
        "project": project,
        "runs": runs,
        "annotator": annotator.pk,
        "documents": [d.pk for d in documents],
    }
