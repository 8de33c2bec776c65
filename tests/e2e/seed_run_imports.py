"""An item project whose model outputs an admin imports from the Import tab: a ranked
``types`` field, a ``fallacious`` detection field and a ``clarity`` rating, three items with
ids, the admin ``outputs-admin`` (``tests/e2e/test_run_imports_ui.py``).

Run as a script against the database the environment selects, after ``migrate``; prints a
JSON object with the project's id and its admin.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

PROJECT = "Imported outputs"
ADMIN = "outputs-admin"
LABELS = ["Ad hominem", "False dilemma", "Strawman"]
FORM = {
    "fields": [
        {"name": "types", "kind": "ranked", "title": "Fallacy types", "labels": LABELS},
        {"name": "fallacious", "kind": "detection", "title": "Fallacious?"},
        {"name": "clarity", "kind": "likert", "title": "Clarity"},
    ]
}
ITEMS = [  # id, text, gold types
    ("s1", "You cannot trust his plan: he failed school.", ["Ad hominem"]),
    ("s2", "Either we ban cars or the city dies.", ["False dilemma"]),
    ("s3", "The bridge was inspected last week and is safe.", []),
]


def build() -> dict:
    from annotations.models import Project
    from annotations.services.documents import NewDocument, add_documents
    from annotations.services.projects import create_project
    from tests.e2e.seed_base import mafalda

    project = Project.objects.filter(name=PROJECT).first()
    if project is None:
        project = create_project(
            name=PROJECT, taxonomy=mafalda(), created_by=_user(ADMIN), kind="items", form=FORM
        )
        add_documents(
            project=project,
            texts=[
                NewDocument(
                    text=text,
                    external_id=item_id,
                    source="e2e",
                    metadata={"format": "e2e", "gold": {"types": types, "fallacious": bool(types)}},
                )
                for item_id, text, types in ITEMS
            ],
        )
    return {"project": project.pk, "admin": ADMIN}


if __name__ == "__main__":
    setup_django()
    print(json.dumps(build()))
