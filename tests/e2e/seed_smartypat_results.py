"""A SmartyPat project whose published model outputs were imported: the Results tab with
both scoring profiles (``tests/e2e/test_smartypat_results.py``).

Items in the published shapes (written here, not copied): a headerless Bench CSV (id, post,
types, rewrite) and a headerless benign CSV (one sentence a row), imported with the
``smartypat`` format into a project of the ``smartypat`` form preset. Two models' outputs
for the ``types`` (ranked) and ``fallacious`` (detection) fields are imported as JSON Lines
(``import_item_run``), with numbered, underscored, ">"-joined and misspelt labels, and
scored under ``definition`` and ``authors-smartypat``.

Run as a script against the database the environment selects, after ``migrate``; prints a
JSON object with the project's id and the reviewer's name.
"""

from __future__ import annotations

import copy
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

PROJECT = "SmartyPat imported"
REVIEWER = "smartypat-reviewer"
BENCH = (
    "b1,Post one.,false dilemma,Either we do this or we are doomed.\n"
    'b2,Post two.,"false cause, false premise",Rain followed the parade so the parade caused it.\n'
    "b3,Post three.,equivocation,A feather is light so it cannot be dark.\n"
    "b4,Post four.,false analogy,A company is like a family so it must never fire anyone.\n"
)
BENIGN = "The train leaves at noon.\nWater boils at 100 degrees at sea level.\n"
#: model -> (types answers by item id, fallacious answers by item id)
OUTPUTS = {
    "model-one": (
        {
            "b1": "1. False Dilemma",
            "b2": "false_cause > false premise",
            "b3": "equivocation",
            "b4": "no fallacy",
            "benign-1": "no fallacy",
            "benign-2": "false premise",
        },
        {"b1": "yes", "b2": "yes", "b3": "yes", "b4": "no", "benign-1": "no", "benign-2": "yes"},
    ),
    "model-two": (
        {
            "b1": "false dilemma, false cause",
            "b2": "false cuase",
            "b3": "equivocation; false analogy",
            "b4": "false analogy",
            "benign-1": "none",
            "benign-2": "none",
        },
        {"b1": "yes", "b2": "no", "b3": "yes", "b4": "yes", "benign-1": "no", "benign-2": "no"},
    ),
}


def _jsonl(answers: dict[str, str]) -> io.StringIO:
    lines = (json.dumps({"id": item, "output": text}) for item, text in answers.items())
    return io.StringIO("\n".join(lines) + "\n")


def build() -> dict:
    from annotations.form_presets import form_preset
    from annotations.importing.items import import_items
    from annotations.models import Membership, Project
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset
    from evaluation.items.imports import import_item_run

    project = Project.objects.filter(name=PROJECT).first()
    if project is not None:
        return {"project": project.pk, "reviewer": REVIEWER}
    project = create_project(
        name=PROJECT,
        taxonomy=install_preset(name="smartypat"),
        kind="items",
        form=copy.deepcopy(form_preset("smartypat")),
    )
    add_member(project=project, user=_user(REVIEWER), role=Membership.Role.REVIEWER)
    import_items(path=io.StringIO(BENCH), project=project, format="smartypat", name="bench.csv")
    import_items(path=io.StringIO(BENIGN), project=project, format="smartypat", name="benign.csv")
    for model, (types, fallacious) in OUTPUTS.items():
        for field, answers in (("types", types), ("fallacious", fallacious)):
            import_item_run(
                project=project,
                path=_jsonl(answers),
                name=f"{model} {field}",
                field=field,
                model_name=model,
                file_name=f"{model}-{field}.jsonl",
            )
    return {"project": project.pk, "reviewer": REVIEWER}


if __name__ == "__main__":
    setup_django()
    print(json.dumps(build()))
