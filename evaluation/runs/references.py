"""Stored sources for ``manage.py score``, next to file paths:

- ``gold:PROJECT`` (latest published version) or ``gold:PROJECT@VERSION``;
- ``run:PROJECT/RUN`` — a stored model run's raw outputs;
- ``annotator:PROJECT/USERNAME`` — an annotator's submitted annotations (as predictions, or
  as a corpus for ``manage.py agreement``).

Project names may contain spaces and colons; the last ``@`` or ``/`` separates the part after.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from annotations.models import GoldStandard, Project
from evaluation.models import ModelRun
from evaluation.runs import stored
from evaluation.scoring import Corpus, Predictions, ScoringInputError, as_predictions


def _project(name: str, reference: str) -> Project:
    project = Project.objects.filter(name=name).first()
    if project is None:
        raise ScoringInputError(f"{reference}: no project named {name!r}")
    return project


def _split(body: str, separator: str, reference: str, what: str) -> tuple[str, str]:
    head, found, tail = body.rpartition(separator)
    if not found or not head or not tail:
        raise ScoringInputError(f"{reference}: expected PROJECT{separator}{what}")
    return head, tail


def gold_version(reference: str) -> GoldStandard | None:
    """The published version ``gold:PROJECT[@VERSION]`` names; None for another reference."""
    if not reference.startswith("gold:"):
        return None
    body = reference.removeprefix("gold:")
    versions = GoldStandard.objects.filter(status=GoldStandard.Status.PUBLISHED)
    if "@" in body:
        name, version = _split(body, "@", reference, "VERSION")
        if not version.isdigit():
            raise ScoringInputError(f"{reference}: version {version!r} is not a number")
        gold = versions.filter(project=_project(name, reference), version=int(version)).first()
    else:
        gold = versions.filter(project=_project(body, reference)).order_by("-version").first()
    if gold is None:
        raise ScoringInputError(f"{reference}: no such published gold standard version")
    return gold


def gold_reference(reference: str) -> Corpus | None:
    gold = gold_version(reference)
    return None if gold is None else stored.gold_corpus(gold)


def _annotator_of(body: str, reference: str) -> tuple[Project, AbstractBaseUser]:
    name, username = _split(body, "/", reference, "USERNAME")
    project = _project(name, reference)
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ScoringInputError(f"{reference}: no user {username!r}")
    return project, user


def _stored_annotator(body: str, reference: str) -> Corpus:
    return stored.annotator_corpus(*_annotator_of(body, reference))


def stored_work(reference: str) -> ModelRun | tuple[Project, AbstractBaseUser] | None:
    """The run ``run:PROJECT/RUN`` or the (project, user) ``annotator:PROJECT/USERNAME``
    names; None for another reference."""
    kind, found, body = reference.partition(":")
    if not found or kind not in {"run", "annotator"}:
        return None
    if kind == "annotator":
        return _annotator_of(body, reference)
    name, run_name = _split(body, "/", reference, "RUN")
    project = _project(name, reference)
    run = ModelRun.objects.filter(project=project, name=run_name).first()
    if run is None:
        raise ScoringInputError(f"{reference}: no run {run_name!r} in project {name!r}")
    return run


def annotator_reference(reference: str) -> Corpus | None:
    """``annotator:PROJECT/USERNAME`` as a corpus (their spans with alternative sets)."""
    if not reference.startswith("annotator:"):
        return None
    return _stored_annotator(reference.removeprefix("annotator:"), reference)


def prediction_reference(reference: str) -> Predictions | None:
    work = stored_work(reference)
    if work is None:
        return None
    if isinstance(work, ModelRun):
        return stored.run_predictions(work)
    return as_predictions(stored.annotator_corpus(*work))
