"""A free-text item form and a finished free-text run of it, for judge runs to rate."""

from __future__ import annotations

from annotations.models import Project
from evaluation.models import ModelRun, RunOutput

FORM = {
    "fields": [
        {"name": "type", "kind": "classification", "labels": ["a", "b"]},
        {"name": "explanation", "kind": "free-text"},
    ]
}


def free_text_run(project: Project, documents, *, status="done", field="explanation", limit=None):
    run = ModelRun.objects.create(
        project=project,
        name=f"answers {field} {status} {limit}",
        backend="random",
        task="free-text" if field == "explanation" else "classification",
        field=field,
        status=status,
        limit=limit,
    )
    for i, document in enumerate(documents[:limit]):
        text = f"Model explanation {i}: it does not follow."
        RunOutput.objects.create(
            run=run,
            document=document,
            unit_index=0,
            unit_text=document.text,
            raw_output=text,
            answer=text,
            parsed_labels=text,
        )
    return run
