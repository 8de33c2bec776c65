"""Item projects for the browser tests: one like each benchmark family, forms inline.

- FLUB-like: two Chinese items with four options (multiple choice), the fallacy type
  (classification over the form's own labels) and an explanation (free text);
- SmartyPat-like: ranked fallacy types (the taxonomy's) and fallacious/sound (detection);
- ArgBench-like: an argument with a candidate explanation to rate: segmentation, likert
  and rubric.

Each item carries an answer key in ``metadata.gold`` (and the imported ``record``), which
annotators must never get. ``items-annotator`` has every item assigned; ``items-annotator2``
the FLUB ones; ``items-reviewer`` reviews (users of their own, so the demo users'
project lists stay as the other browser tests expect). Idempotent: an existing project is
left as is.
"""

from __future__ import annotations

from typing import Any

ANNOTATOR = "items-annotator"
OTHER_ANNOTATOR = "items-annotator2"
REVIEWER = "items-reviewer"

FLUB = "Items: FLUB-like"
SMARTYPAT = "Items: SmartyPat-like"
ARGBENCH = "Items: ArgBench-like"

FLUB_LABELS = ["歧义", "偷换概念", "以偏概全", "诉诸权威"]
FLUB_FORM = {
    "fields": [
        {"name": "answer", "kind": "multiple-choice", "title": "Which option explains the flaw?"},
        {
            "name": "type",
            "kind": "classification",
            "title": "Fallacy type",
            "labels": FLUB_LABELS,
        },
        {
            "name": "explanation",
            "kind": "free-text",
            "title": "Explain the flaw",
            "help": "One or two sentences.",
        },
    ]
}
FLUB_ITEMS = [
    {
        "external_id": "flub-1",
        "text": "我昨天吃了一个苹果，今天没有感冒，所以苹果能预防感冒。",
        "options": {
            "A": "把偶然的先后关系当成了因果关系",
            "B": "苹果确实富含维生素",
            "C": "感冒与天气有关",
            "D": "这句话没有问题",
        },
        "gold": {"answer": "A", "type": "以偏概全"},
        "explanation": "GOLD-EXPLANATION: one apple and one day prove nothing.",
    },
    {
        "external_id": "flub-2",
        "text": "专家说这款手机好，所以它一定是最好的手机。",
        "options": {"A": "专家不会出错", "B": "诉诸权威", "C": "手机很贵", "D": "没有问题"},
        "gold": {"answer": "B", "type": "诉诸权威"},
        "explanation": "GOLD-EXPLANATION: an expert's word is not proof.",
    },
]

SMARTYPAT_FORM = {
    "fields": [
        {
            "name": "ranking",
            "kind": "ranked",
            "title": "Most likely fallacies",
            "help": "Rank the fallacy types, best first; choose No fallacy if there is none.",
            "max": 3,
        },
        {"name": "fallacious", "kind": "detection", "title": "Is the argument fallacious?"},
    ]
}
SMARTYPAT_TEXT = (
    "My neighbour never recycles, so anyone who lives on our street clearly does not care "
    "about the environment."
)

ARGBENCH_LABELS = ["claim", "premise", "fallacious step"]
ARGBENCH_FORM = {
    "fields": [
        {
            "name": "segments",
            "kind": "segmentation",
            "title": "Mark the argument's parts",
            "labels": ARGBENCH_LABELS,
        },
        {
            "name": "clarity",
            "kind": "likert",
            "title": "How clear is the explanation?",
            "description": "Rate the candidate explanation below the text.",
            "anchors": {"1": "not at all", "3": "somewhat", "5": "fully"},
        },
        {
            "name": "quality",
            "kind": "rubric",
            "title": "Explanation quality",
            "min": 1,
            "max": 5,
            "criteria": (
                "Names the fallacy correctly.\n"
                "Points at the step of the argument that fails.\n"
                "Says why that step fails."
            ),
            "examples": [
                {
                    "score": 5,
                    "text": "Hasty generalisation: one neighbour does not stand for the street.",
                    "why": "names it, points at the step, says why",
                },
                {"score": 1, "text": "The argument is bad.", "why": "names nothing"},
            ],
        },
    ]
}
ARGBENCH_TEXT = (
    "We should ban cars from the city centre. Cars cause pollution. "
    "Therefore anyone who drives hates clean air."
)
ARGBENCH_CANDIDATE = "The last sentence attacks drivers' motives instead of arguing the point."


def _project(name: str, form: dict[str, Any], description: str):
    from annotations.models import Project
    from annotations.services.projects import add_member
    from tests.e2e.seed_base import mafalda, user

    project = Project.objects.filter(name=name).first()
    if project is not None:
        return project, False
    project = Project.objects.create(
        name=name,
        taxonomy=mafalda(),
        description=description,
        guidelines="Answer every question about the item; ratings are optional.",
        kind="items",
        form=form,
    )
    add_member(project=project, user=user(REVIEWER), role="reviewer")
    add_member(project=project, user=user(ANNOTATOR), role="annotator")
    return project, True


def _add(project, items: list[dict[str, Any]]) -> None:
    from annotations.services.documents import NewDocument, add_documents

    add_documents(
        project=project,
        texts=[
            NewDocument(
                text=item["text"],
                external_id=item["external_id"],
                source="e2e",
                metadata={
                    "format": "e2e",
                    "record": item.get("record", {"id": item["external_id"]}),
                    **({"options": item["options"]} if "options" in item else {}),
                    **({"candidate": item["candidate"]} if "candidate" in item else {}),
                    "gold": item["gold"],
                },
            )
            for item in items
        ],
    )


def _flub_project() -> Any:
    """The FLUB-like project, its items (with explanations) assigned to the other annotator."""
    from annotations.services.documents import assign_documents
    from annotations.services.projects import add_member
    from tests.e2e.seed_base import user

    flub, created = _project(FLUB, FLUB_FORM, "FLUB-like multiple choice (browser tests).")
    if created:
        _add(
            flub,
            [
                {
                    **item,
                    "record": {"id": item["external_id"], "explanation": item["explanation"]},
                    "gold": {**item["gold"], "explanation": item["explanation"]},
                }
                for item in FLUB_ITEMS
            ],
        )
        other = user(OTHER_ANNOTATOR)
        add_member(project=flub, user=other, role="annotator")
        assign_documents(project=flub, annotator=other)
    return flub


def _smartypat_project() -> Any:
    """The SmartyPat-like ranking project with its one item."""
    smartypat, created = _project(
        SMARTYPAT, SMARTYPAT_FORM, "SmartyPat-like ranking (browser tests)."
    )
    if created:
        _add(
            smartypat,
            [
                {
                    "external_id": "smartypat-1",
                    "text": SMARTYPAT_TEXT,
                    "gold": {"ranking": ["hasty generalization"], "fallacious": True},
                }
            ],
        )
    return smartypat


def _argbench_project() -> Any:
    """The ArgBench-like project with its one item and candidate reply."""
    argbench, created = _project(
        ARGBENCH, ARGBENCH_FORM, "ArgBench-like segments and ratings (browser tests)."
    )
    if created:
        _add(
            argbench,
            [
                {
                    "external_id": "argbench-1",
                    "text": ARGBENCH_TEXT,
                    "candidate": ARGBENCH_CANDIDATE,
                    "gold": {"segments": [[0, 40, "claim"]]},
                }
            ],
        )
    return argbench


def ensure_item_projects() -> dict[str, Any]:
    """The three item projects with ``items-annotator`` assigned; their ids and items."""
    from annotations.models import Document
    from annotations.services.documents import assign_documents
    from tests.e2e.seed_base import DEMO_PASSWORD, user

    annotator = user(ANNOTATOR)
    flub, smartypat, argbench = _flub_project(), _smartypat_project(), _argbench_project()
    for project in (flub, smartypat, argbench):
        assign_documents(project=project, annotator=annotator)

    def items(project) -> dict[str, int]:
        return dict(Document.objects.filter(project=project).values_list("external_id", "pk"))

    return {
        "username": ANNOTATOR,
        "other": OTHER_ANNOTATOR,
        "reviewer": REVIEWER,
        "password": DEMO_PASSWORD,
        "flub": {"project": flub.pk, "items": items(flub)},
        "smartypat": {"project": smartypat.pk, "items": items(smartypat)},
        "argbench": {"project": argbench.pk, "items": items(argbench)},
    }
