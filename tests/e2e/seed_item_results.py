"""A FLUB-like item project with finished model runs, judge runs and one annotator's
responses: the data of the item leaderboard tests
(``tests/evaluation/items/test_item_leaderboard.py`` and ``tests/e2e/test_item_leaderboard.py``).

Built directly with the models (items, runs and their parsed outputs, responses), then each
multiple-choice and classification run is scored by the platform's own
``evaluation.items.scorer.score_item_run``. The free-text run's BERTScore and the judge runs'
reports are stored as given (no model is loaded).

Run as a script against the database the environment selects, after ``migrate``::

    python tests/e2e/seed_item_results.py

Prints a JSON object with the ids the browser test needs.

Four items (options A–D), the answer key and what each party answered:

======  ======  =========  =========  =========  =========  ==========  ========  ========
item    gold    gold type  zero-shot  CoT        few-shot   zero-shot   CoT type  few-shot
        answer             answer     answer     answer     type                  type
======  ======  =========  =========  =========  =========  ==========  ========  ========
flub-1  A       歧义       A          A          A          歧义        歧义      悖论
flub-2  B       歧义       B          B          B          悖论        歧义      悖论
flub-3  C       悖论       A          C          C          悖论        悖论      悖论
flub-4  D       (none)     A          (unread)   D          冷笑话      冷笑话    冷笑话
======  ======  =========  =========  =========  =========  ==========  ========  ========

The explanation run (zero-shot) has BERTScore F1 0.8 and two judge runs (3.5 and 4.5).

The annotator ``flub-ann`` submitted flub-1..3: answers A, B, D and types 歧义, 歧义, 悖论.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

PROJECT = "FLUB results"
MODEL = "Qwen/Qwen2.5-7B-Instruct"
BACKEND = "vllm"
ANNOTATOR = "flub-ann"
REVIEWER = "flub-reviewer"
#: An annotator of the project who submitted nothing: the results are not theirs to see.
OUTSIDER = "flub-annotator-only"

ITEMS = [
    ("flub-1", "我昨天去书店买了一本书，结果书店把我买走了。", "A", "歧义"),
    ("flub-2", "他说他从不说谎，这句话是谎话。", "B", "歧义"),
    ("flub-3", "鸡生蛋，蛋生鸡，所以鸡就是蛋。", "C", "悖论"),
    ("flub-4", "为什么海是咸的？因为鱼哭了。", "D", None),
]
OPTIONS = {
    "A": "The text plays on two meanings of a word.",
    "B": "The statement refers to itself.",
    "C": "The reasoning goes in a circle.",
    "D": "It is an absurd causal claim made for laughs.",
}
VARIANTS = ("zero-shot", "chain-of-thought", "few-shot")
#: (variant name, kind, shots, field, task, raw outputs); parsed: ``PARSED`` else the raw
RUNS = [
    ("zero-shot", "zero-shot", 0, "answer", "multiple-choice", ["A", "B", "A", "A"]),
    (
        "chain-of-thought",
        "chain-of-thought",
        0,
        "answer",
        "multiple-choice",
        [
            "The word has two meanings. Answer: A",
            "It talks about itself. Answer: B",
            "It goes round in a circle. Answer: C",
            "I am not sure what to say here.",
        ],
    ),
    ("few-shot", "few-shot", 3, "answer", "multiple-choice", ["A", "B", "C", "D"]),
    ("zero-shot", "zero-shot", 0, "type", "classification", ["歧义", "悖论", "悖论", "冷笑话"]),
    (
        "chain-of-thought",
        "chain-of-thought",
        0,
        "type",
        "classification",
        ["分析… Answer: 歧义", "分析… Answer: 歧义", "分析… Answer: 悖论", "分析… Answer: 冷笑话"],
    ),
    ("few-shot", "few-shot", 3, "type", "classification", ["悖论", "悖论", "悖论", "冷笑话"]),
]
PARSED = {
    ("chain-of-thought", "answer"): ["A", "B", "C", None],
    ("chain-of-thought", "type"): ["歧义", "歧义", "悖论", "冷笑话"],
}
EXPLANATIONS = [
    "书店不能买人，“买走”有两种意思。",
    "自我指涉的句子。",
    "循环论证。",
    "鱼的眼泪不会让海变咸。",
]
BERTSCORE_F1 = 0.8
JUDGE_MEANS = (3.5, 4.5)
HUMAN = [("A", "歧义"), ("B", "歧义"), ("D", "悖论")]


def _variant(task: str, name: str, kind: str, shots: int):
    from evaluation.models import PromptVariant

    found = PromptVariant.objects.filter(task=task, name=name).order_by("-version").first()
    if found is not None and found.kind == kind and found.shots == shots:
        return found
    version = (found.version + 1) if found else 1
    return PromptVariant.objects.create(
        task=task,
        name=name,
        version=version,
        kind=kind,
        shots=shots,
        template="{text}\n{options}\nAnswer:",
        description="item leaderboard test variant",
    )


def _finished_run(project, documents, *, name, task, field, variant, raws, parsed):
    from django.utils import timezone

    from evaluation.models import ModelRun, RunOutput

    now = timezone.now()
    run = ModelRun.objects.create(
        project=project,
        name=name,
        backend=BACKEND,
        model_name=MODEL,
        task=task,
        field=field,
        prompt_variant=variant,
        status=ModelRun.Status.DONE,
        total=len(documents),
        done=len(documents),
        generated=len(documents),
        started_at=now,
        finished_at=now,
    )
    RunOutput.objects.bulk_create(
        RunOutput(
            run=run,
            document=document,
            unit_index=0,
            unit_text=document.text,
            raw_output=raw,
            prompt=f"{document.text}\nAnswer:",
            answer=raw.rsplit("Answer:", 1)[-1].strip() if "Answer:" in raw else raw,
            parsed_labels=value,
        )
        for document, raw, value in zip(documents, raws, parsed, strict=True)
    )
    return run


def _documents(project) -> list:
    """One document per item of ``ITEMS``, with its FLUB record and gold."""
    from annotations.models import Document

    documents = []
    for position, (external_id, text, answer, kind) in enumerate(ITEMS):
        gold = {"answer": answer, "explanation": EXPLANATIONS[position]}
        if kind is not None:
            gold["type"] = kind
        record = {"id": external_id, "text": text, "options": OPTIONS, "answer": answer}
        documents.append(
            Document.objects.create(
                project=project,
                name=external_id,
                external_id=external_id,
                text=text,
                position=position,
                metadata={
                    "format": "flub",
                    "record": {**record, "type": kind, "explanation": EXPLANATIONS[position]},
                    "options": dict(OPTIONS),
                    "gold": gold,
                },
            )
        )
    return documents


def _variant_runs(project, documents: list) -> dict[str, int]:
    """The finished runs of ``RUNS``, scored; their ids by "field/variant"."""
    from evaluation.items.scorer import score_item_run

    runs: dict[str, int] = {}
    for variant_name, kind, shots, field, task, raws in RUNS:
        parsed = PARSED.get((variant_name, field), raws)
        run = _finished_run(
            project,
            documents,
            name=f"qwen {field} {variant_name}",
            task=task,
            field=field,
            variant=_variant(task, variant_name, kind, shots),
            raws=raws,
            parsed=parsed,
        )
        score_item_run(run)
        runs[f"{field}/{variant_name}"] = run.pk
    return runs


def _explanation_and_judge_runs(project, documents: list, runs: dict[str, int]) -> None:
    """The explanation run (its BERTScore report stored as given: no model is loaded) and
    the judge runs of its outputs; their ids added to ``runs``."""
    from django.utils import timezone

    from evaluation.models import ModelRun, RunScore

    explained = _finished_run(
        project,
        documents,
        name="qwen explanation zero-shot",
        task="free-text",
        field="explanation",
        variant=_variant("free-text", "zero-shot", "zero-shot", 0),
        raws=EXPLANATIONS,
        parsed=EXPLANATIONS,
    )
    RunScore.objects.create(
        run=explained,
        profile="items",
        report={
            "task": "free-text",
            "field": "explanation",
            "kind": "free-text",
            "primary": {"name": "bertscore_f1", "value": BERTSCORE_F1},
            "metrics": {"bertscore_f1": BERTSCORE_F1},
            "items": len(documents),
            "scored": len(documents),
            "unparseable": {"count": 0, "policy": "wrong"},
        },
    )
    runs["explanation/zero-shot"] = explained.pk
    for index, mean in enumerate(JUDGE_MEANS):
        judge = ModelRun.objects.create(
            project=project,
            name=f"judge {index + 1} of the explanations",
            backend=BACKEND,
            model_name="judge-model",
            task="judge-explanation",
            field="explanation",
            judged_run=explained,
            status=ModelRun.Status.DONE,
            finished_at=timezone.now(),
        )
        RunScore.objects.create(
            run=judge,
            profile="items",
            report={
                "task": "judge-explanation",
                "primary": {"name": "judge_mean", "value": mean},
                "metrics": {"judge_mean": mean},
                "items": len(documents),
                "scored": len(documents),
                "unparseable": {"count": 0, "policy": "wrong"},
                "per_item": [],
            },
        )
        runs[f"judge/{index + 1}"] = judge.pk


def _human_responses(documents: list, annotator) -> None:
    """The annotator's submitted responses (``HUMAN``)."""
    from django.utils import timezone

    from annotations.models import Annotation

    now = timezone.now()
    for document, (answer, kind) in zip(documents, HUMAN, strict=False):
        Annotation.objects.create(
            document=document,
            annotator=annotator,
            status=Annotation.Status.SUBMITTED,
            submitted_at=now,
            response={"answer": answer, "type": kind, "explanation": "我的解释。"},
        )


def build(project_name: str = PROJECT) -> dict:
    """The project, its runs (scored) and responses; returns the ids."""
    from annotations.form_presets import FLUB_FORM
    from annotations.models import Membership
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset

    project = create_project(
        name=project_name,
        taxonomy=install_preset(name="mafalda"),
        kind="items",
        form=copy.deepcopy(FLUB_FORM),
        description="FLUB-like items with finished runs (item leaderboard tests).",
    )
    reviewer, annotator, outsider = _user(REVIEWER), _user(ANNOTATOR), _user(OUTSIDER)
    add_member(project=project, user=reviewer, role=Membership.Role.REVIEWER)
    add_member(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
    add_member(project=project, user=outsider, role=Membership.Role.ANNOTATOR)
    documents = _documents(project)
    runs = _variant_runs(project, documents)
    _explanation_and_judge_runs(project, documents, runs)
    _human_responses(documents, annotator)
    return {
        "project": project.pk,
        "runs": runs,
        "annotator": annotator.pk,
        "reviewer": REVIEWER,
        "outsider": OUTSIDER,
        "documents": [d.pk for d in documents],
    }


def main() -> None:
    from annotations.models import Project

    existing = Project.objects.filter(name=PROJECT).first()
    print(json.dumps({"project": existing.pk} if existing else build()))


if __name__ == "__main__":
    setup_django()
    main()
