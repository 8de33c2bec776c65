"""A rating project: six items rated by three annotators on a likert and a rubric field, and a
finished judge run of its explanations (the numbers written out here, independently of how
the platform reads them)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone

from annotations.models import Annotation, Assignment, Document, Membership, Project
from annotations.services.taxonomy import install_preset
from evaluation.benchmarks.items import TaskItem
from evaluation.benchmarks.judges import FidelityJudge
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunScore

FORM = {
    "fields": [
        {"name": "explanation", "kind": "free-text"},
        {"name": "quality", "kind": "likert", "min": 1, "max": 5},
        {"name": "faithful", "kind": "rubric", "min": 0, "max": 3, "criteria": "kept?"},
    ]
}


# rater -> item index -> rating of "quality" (None: left out of the response)
QUALITY = {
    "ann": [5, 4, 2, 1, 3, 4],
    "bob": [4, 4, 1, 2, 3, None],
    "cyd": [5, 3, 2, 1, None, 5],
}


FAITHFUL = {
    "ann": [3, 2, 1, 0, 2, 3],
    "bob": [3, 3, 0, 0, 2, 2],
    "cyd": [2, 2, 1, 1, 1, 3],
}


# the judge's raw outputs, three repeats per item ("x" cannot be parsed)
JUDGE = [
    ["Score: 3", "Score: 3", "[[3]]"],
    ["Score: 2", "Score: 3", "x"],
    ["Score: 1", "Score: 1", "Score: 0"],
    ["Score: 0", "Score: 7", "Score: 0"],
    ["x", "x", "x"],
    ["Score: 2", "Score: 3", "Score: 3"],
]


def build_rated(name: str = "Ratings", prefix: str = "", make_user=None) -> dict:
    """The rating project of these tests: six items rated by three annotators (one leaves
    a rating out), a fourth's unsubmitted work and a reviewer, their usernames prefixed.
    ``make_user(username)`` gives the users (the browser test's seed sets a password)."""
    make_user = make_user or User.objects.create_user
    project = Project.objects.create(
        name=name, taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    documents = [
        Document.objects.create(
            project=project,
            text=f"Original argument number {i}.",
            position=i,
            metadata={"candidate": f"Rewritten argument {i}.", "gold": {}},
        )
        for i in range(6)
    ]
    users = {}
    for username in QUALITY:
        user = make_user(prefix + username)
        users[username] = user
        Membership.objects.create(project=project, user=user, role="annotator")
        for i, document in enumerate(documents):
            Assignment.objects.create(document=document, annotator=user)
            response = {"explanation": "because"}
            if QUALITY[username][i] is not None:
                response["quality"] = QUALITY[username][i]
            response["faithful"] = FAITHFUL[username][i]
            Annotation.objects.create(
                document=document,
                annotator=user,
                status="submitted",
                submitted_at=timezone.now(),
                response=response,
            )
    # a fourth rater's unsubmitted work does not count
    late = make_user(prefix + "dee")
    Membership.objects.create(project=project, user=late, role="annotator")
    Annotation.objects.create(
        document=documents[0], annotator=late, status="in_progress", response={"quality": 1}
    )
    reviewer = make_user(prefix + "rev")
    Membership.objects.create(project=project, user=reviewer, role="reviewer")
    return {"project": project, "documents": documents, "users": users, "reviewer": reviewer}


def judge_run(project: Project, documents: list[Document]) -> ModelRun:
    """A finished judge-fidelity run: its outputs stored and scored by the task."""
    variant, _ = PromptVariant.objects.get_or_create(
        task="judge-fidelity",
        name="fidelity",
        version=1,
        defaults={"kind": "zero-shot", "template": "{repeat}{original}\n{candidate}"},
    )
    run = ModelRun.objects.create(
        project=project,
        name="judge",
        backend="random",
        task="judge-fidelity",
        prompt_variant=variant,
        field="explanation",
        status="done",
        total=18,
        done=18,
    )
    task = FidelityJudge()
    items, predictions = [], []
    for document, outputs in zip(documents, JUDGE, strict=True):
        item = TaskItem(document.pk, document.text, candidate=document.metadata["candidate"])
        items.append(item)
        parsed = []
        for index, raw in enumerate(outputs):
            value = task.parse(raw, item=item, labels=())
            parsed.append(value)
            RunOutput.objects.create(
                run=run,
                document=document,
                unit_index=index,
                unit_text=item.candidate,
                raw_output=raw,
                parsed_labels=value,
            )
        predictions.append(parsed)
    RunScore.objects.create(run=run, profile="items", report=task.score(items, predictions))
    return run
