"""A project whose admin is no superuser (``inv-admin``), with one document assigned to no
one; ``inv-stranger`` shares no project with that admin. Data of
``tests/e2e/test_invitations.py``.

Prints a JSON object: {"project", "name"}.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import mafalda, setup_django, user  # noqa: E402

PROJECT = "Invitation check"


def main() -> None:
    setup_django()
    from annotations.importing.datasets import import_texts
    from annotations.models import Project
    from annotations.services.projects import add_member, create_project

    admin = user("inv-admin")
    user("inv-stranger")
    project = Project.objects.filter(name=PROJECT).first()
    if project is None:
        project = create_project(name=PROJECT, taxonomy=mafalda(), created_by=admin)
        text = io.BytesIO(b"Everyone who disagrees with me is paid to do so.\n")
        import_texts(path=text, name="invitation.txt", project=project)
    add_member(project=project, user=admin, role="admin")
    print(json.dumps({"project": project.pk, "name": PROJECT}))


if __name__ == "__main__":
    main()
