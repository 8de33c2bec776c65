"""A MAFALDA-taxonomy project for the suggestions admin page (tests/e2e/test_suggestions_admin.py):
one three-sentence document in the queue of the annotator ``sadm-ann``, administered by
``sadm-admin``, with two imported runs **not yet** turned into suggestions, a finished run
labelling at level 1 (the service refuses it, by name) and a run that is still running (not
offered).

=========  ==============================================  =========  ==============
sentence   text                                            run-one    run-two
=========  ==============================================  =========  ==============
1          You cannot trust Smith on taxes, ...            ad hominem ad hominem
2          Either we ban every car today or ...            (none)     false dilemma
3          If we allow this, soon everything ...           slippery   (none)
=========  ==============================================  =========  ==============

Run after ``migrate``: ``python tests/e2e/seed_suggestions_admin.py``; prints a JSON object
{project, document, runs: {name: id}}.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

ADMIN = "sadm-admin"
ANNOTATOR = "sadm-ann"
PROJECT = "Suggestions: admin page"
S1 = "You cannot trust Smith on taxes, he cheated on his wife."
S2 = "Either we ban every car today or the planet is lost forever."
S3 = "If we allow this, soon everything will collapse."
TEXT = f"{S1} {S2} {S3}"
RUNS = [
    ("run-one", "model-one", {S1: "ad hominem", S2: "no fallacy", S3: "slippery slope"}),
    ("run-two", "model-two", {S1: "ad hominem", S2: "false dilemma", S3: "none"}),
    ("run-coarse", "model-three", {S1: "ad hominem", S2: "none", S3: "none"}),
    ("run-busy", "model-four", {S1: "ad hominem", S2: "none", S3: "none"}),
]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def build() -> dict:
    from annotations.importing.datasets import import_mafalda_gold
    from annotations.models import Membership, Project, Taxonomy
    from annotations.services.assignments import assign_to_annotators
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset
    from evaluation.models import ModelRun
    from evaluation.runs.imports import import_run

    project = Project.objects.filter(name=PROJECT).first()
    if project is None:
        taxonomy = Taxonomy.objects.filter(name="mafalda").order_by("-id").first()
        project = create_project(name=PROJECT, taxonomy=taxonomy or install_preset(name="mafalda"))
        add_member(project=project, user=_user(ADMIN), role=Membership.Role.ADMIN)
        annotator = _user(ANNOTATOR)
        add_member(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
        with tempfile.TemporaryDirectory() as tmp:
            gold = _write(Path(tmp) / "gold.jsonl", [{"text": TEXT, "labels": [], "comments": []}])
            import_mafalda_gold(path=gold, project=project)
            assign_to_annotators(project=project, annotators=[annotator], per_document=1)
            for run, model, answers in RUNS:
                records = [{"text": TEXT, "prediction": answers}]
                import_run(
                    project=project,
                    path=_write(Path(tmp) / f"{run}.jsonl", records),
                    name=run,
                    model_name=model,
                )
        ModelRun.objects.filter(project=project, name="run-coarse").update(level=1)
        ModelRun.objects.filter(project=project, name="run-busy").update(
            status=ModelRun.Status.RUNNING
        )
    runs = dict(ModelRun.objects.filter(project=project).values_list("name", "pk"))
    return {"project": project.pk, "document": project.documents.get(text=TEXT).pk, "runs": runs}


if __name__ == "__main__":
    setup_django()
    print(json.dumps(build()))
