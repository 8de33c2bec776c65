"""Data of ``tests/e2e/test_forms_ui.py``.

- Justification templates: a span project (MAFALDA) administered by ``tpl-admin`` with three
  three-sentence documents in the queue of ``tpl-ann``.
- Generation launch: ``gen-launcher`` administers an item project with the SmartyPat form
  (fits generation), a span project and a FLUB item project (neither fits).

Run after ``migrate``: ``python tests/e2e/seed_forms.py``; prints a JSON object
{templates: {project, documents}, generation: {fits, spans, flub}}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import mafalda, setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

TPL_ADMIN, TPL_ANNOTATOR, TEMPLATES = "tpl-admin", "tpl-ann", "Templates: spans"
LAUNCHER = "gen-launcher"
FITS, SPANS, FLUB = "Launch: SmartyPat items", "Launch: spans", "Launch: FLUB items"
TEXTS = [
    "My opponent wants lower taxes. But he cheated on his wife. So his tax plan is wrong.",
    "If we allow phones in class, students will stop reading. Then they will fail. So no phones.",
    "Everyone I met in Paris was rude. So all French people are rude. That settles it.",
]


def sentences(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for part in text.split(". "):
        end = pos + len(part) + (0 if part.endswith(".") else 1)
        out.append((pos, end))
        pos = end + 1
    return out


def templates_project() -> dict:
    from annotations.models import Document, Project
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    project = Project.objects.filter(name=TEMPLATES).first()
    if project is None:
        project = create_project(name=TEMPLATES, taxonomy=mafalda(), created_by=_user(TPL_ADMIN))
        annotator = _user(TPL_ANNOTATOR)
        add_member(project=project, user=annotator, role="annotator")
        add_documents(
            project=project,
            texts=[
                NewDocument(text=t, external_id=f"tpl-{i}", sentences=sentences(t))
                for i, t in enumerate(TEXTS)
            ],
        )
        assign_documents(project=project, annotator=annotator)
    documents = list(
        Document.objects.filter(project=project).order_by("position").values_list("pk", flat=True)
    )
    return {"project": project.pk, "documents": documents}


def generation_projects() -> dict:
    from annotations.form_presets import get_form_preset
    from annotations.models import Project
    from annotations.services.projects import create_project
    from evaluation.synthesis.services import _smartypat_project

    launcher = _user(LAUNCHER)
    made = {}
    for key, name in (("fits", FITS), ("spans", SPANS), ("flub", FLUB)):
        project = Project.objects.filter(name=name).first()
        if project is None and key == "fits":
            project = _smartypat_project(name, launcher)
        elif project is None and key == "spans":
            project = create_project(name=name, taxonomy=mafalda(), created_by=launcher)
        elif project is None:
            preset = get_form_preset("flub")
            project = create_project(
                name=name, taxonomy=mafalda(), kind="items", form=preset.form, created_by=launcher
            )
        made[key] = project.pk
    return made


def end_queued_job(job_id: int) -> dict:
    """Fail the generation job ``job_id`` while it is still queued, so that the worker a
    later test starts on this server's queue skips it instead of generating for minutes."""
    from evaluation.models import GenerationJob

    ended = GenerationJob.objects.filter(pk=job_id, status=GenerationJob.Status.QUEUED).update(
        status=GenerationJob.Status.FAILED, error="ended by the test that launched it"
    )
    return {"ended": ended}


if __name__ == "__main__":
    setup_django()
    if sys.argv[1:2] == ["end-job"]:
        print(json.dumps(end_queued_job(int(sys.argv[2]))))
    else:
        print(json.dumps({"templates": templates_project(), "generation": generation_projects()}))
