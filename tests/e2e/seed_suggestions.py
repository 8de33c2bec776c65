"""Two MAFALDA-taxonomy projects with the same three-sentence document and the same two
imported model runs turned into suggestions: one **assisted** (annotators are shown the
suggestions), one **unassisted** (the default: they are not). The annotator ``sugg-ann``
has the document of each in their queue. Data of ``tests/e2e/test_suggestions_ui.py``.

=========  ==============================================  =========  ==============
sentence   text                                            run-one    run-two
=========  ==============================================  =========  ==============
1          You cannot trust Smith on taxes, ...            ad hominem (none)
2          Either we ban every car today or ...            (none)     false dilemma
3          If we allow this, soon everything ...           slippery   (none)
=========  ==============================================  =========  ==============

Run as a script against the database the environment selects, after ``migrate``::

    python tests/e2e/seed_suggestions.py

Prints a JSON object: {"assisted": {project, document, suggestions}, "unassisted": {...}}
(suggestion ids in sentence order).
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

ANNOTATOR = "sugg-ann"
ASSISTED = "Suggestions: assisted"
UNASSISTED = "Suggestions: unassisted"
S1 = "You cannot trust Smith on taxes, he cheated on his wife."
S2 = "Either we ban every car today or the planet is lost forever."
S3 = "If we allow this, soon everything will collapse."
TEXT = f"{S1} {S2} {S3}"
RUNS = [
    ("run-one", "model-one", {S1: "ad hominem", S2: "no fallacy", S3: "slippery slope"}),
    ("run-two", "model-two", {S1: "none", S2: "false dilemma", S3: "I cannot tell."}),
]


def _annotator():
    return _user(ANNOTATOR)


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def build(name: str, *, assisted: bool) -> dict:
    from annotations.importing.datasets import import_mafalda_gold
    from annotations.models import Membership, Project, Taxonomy
    from annotations.services.assignments import assign_to_annotators
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset
    from evaluation.runs.imports import import_run
    from evaluation.suggestions.services import create_suggestions, set_assisted

    existing = Project.objects.filter(name=name).first()
    if existing is not None:
        return ids(existing)
    taxonomy = Taxonomy.objects.filter(name="mafalda").order_by("-id").first() or install_preset(
        name="mafalda"
    )
    project = create_project(name=name, taxonomy=taxonomy)
    annotator = _annotator()
    add_member(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
    with tempfile.TemporaryDirectory() as tmp:
        gold = _write(Path(tmp) / "gold.jsonl", [{"text": TEXT, "labels": [], "comments": []}])
        import_mafalda_gold(path=gold, project=project)
        assign_to_annotators(project=project, annotators=[annotator], per_document=1)
        runs = [
            import_run(
                project=project,
                path=_write(Path(tmp) / f"{run}.jsonl", [{"text": TEXT, "prediction": answers}]),
                name=run,
                model_name=model,
            )
            for run, model, answers in RUNS
        ]
    create_suggestions(project=project, runs=runs)
    if assisted:  # unassisted is the default: no settings row at all
        set_assisted(project=project, assisted=True)
    return ids(project)


def ids(project) -> dict:
    from evaluation.models import Suggestion

    return {
        "project": project.pk,
        "document": project.documents.get(text=TEXT).pk,
        "suggestions": list(
            Suggestion.objects.filter(run__project=project)
            .order_by("unit_index")
            .values_list("pk", flat=True)
        ),
    }


def main() -> None:
    print(
        json.dumps(
            {
                "assisted": build(ASSISTED, assisted=True),
                "unassisted": build(UNASSISTED, assisted=False),
            }
        )
    )


if __name__ == "__main__":
    setup_django()
    main()
