"""Writes on assignments: "each document to N annotators", unassign, reassign.

Concurrency contract: every function is one transaction that first locks the project row
(``select_for_update``), so assignment writes of one project serialise (the importers lock
the same row); rows are inserted with ``bulk_create(ignore_conflicts=True)``, so even a writer
that skips the lock never makes a call fail with an ``IntegrityError`` on the
(document, annotator) unique constraint.

Rules:
- ``assign_to_annotators`` tops each chosen document up to ``per_document`` assignments among
  the chosen annotators (their existing assignments count, so running it twice changes
  nothing), least-loaded annotator first (load = their assignments in the project; ties
  broken by a shuffle seeded with ``seed``, so a run is reproducible), never the same
  annotator twice on a document. Starting from equal loads, no chosen annotator ends with two
  more than another.
- The chosen documents are all of them, the unassigned ones, a seeded sample, given ids, or
  ``Matching(query)``: the document list's filters, selected after the lock.
- Only annotator members of the project can be given work; anyone else is refused with a
  ``ValidationError`` naming the user, and nothing is written.
- ``unassign`` / ``reassign`` leave a document with the annotator who has an annotation on
  it (in progress or submitted) unless ``force=True``; otherwise ``WorkInProgress`` lists
  those documents and nothing changes. Forcing removes the assignment only: annotations are
  never deleted here (they stay, attributed).

Validation errors are ``django.core.exceptions.ValidationError`` with a ``{field: [message]}``
dict (the API returns them as a 400 body).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Exists, OuterRef

from annotations.models import Annotation, Assignment, Document, Membership, Project
from annotations.selectors.documents import DocumentQuery, document_list

BATCH_SIZE = 1000


@dataclass(frozen=True)
class Sample:
    """A random sample of ``size`` documents of the project, drawn with ``seed``."""

    size: int
    seed: int | None = None


@dataclass(frozen=True)
class Matching:
    """The documents the document list shows an admin for ``query`` (search, status,
    annotator, fewer than N submitted): selected by the list's own selector
    (``selectors.documents.document_list``), inside the assignment's transaction, all of
    them (no page, no cap). The query's ordering is ignored (project order)."""

    query: DocumentQuery


DocumentChoice = Literal["all", "unassigned"] | Sample | Matching | Sequence[int]


class WorkInProgress(Exception):
    """The annotator has an annotation on some of the documents (the API answers 409)."""

    def __init__(self, message: str, *, documents: list[int]) -> None:
        super().__init__(message)
        self.documents = documents


@dataclass
class AnnotatorTotal:
    id: int
    username: str
    assigned: int  # their assignments in the project, after the call


@dataclass
class AssignmentReport:
    created: int
    documents: int  # documents considered
    annotators: list[AnnotatorTotal] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "documents": self.documents,
            "annotators": [
                {"id": a.id, "username": a.username, "assigned": a.assigned}
                for a in self.annotators
            ],
        }


# --- helpers --------------------------------------------------------------------------------


def _lock(project: Project) -> Project:
    return Project.objects.select_for_update().get(pk=project.pk)


def _username(user: AbstractBaseUser) -> str:
    return user.get_username()


def _check_annotators(project: Project, users: Sequence[AbstractBaseUser], field_name: str) -> None:
    annotator_ids = set(
        Membership.objects.filter(
            project=project,
            user_id__in=[u.pk for u in users],
            role=Membership.Role.ANNOTATOR,
        ).values_list("user_id", flat=True)
    )
    refused = [u for u in users if u.pk not in annotator_ids]
    if refused:
        raise ValidationError(
            {
                field_name: [
                    f"{_username(u)} is not an annotator of project '{project.name}'"
                    for u in refused
                ]
            }
        )


def _document_ids(project: Project, documents: Iterable[int | Document]) -> list[int]:
    """Ids of the given documents (ids or objects), all checked to be in the project."""
    ids = list(dict.fromkeys(d.pk if isinstance(d, Document) else int(d) for d in documents))
    found = set(Document.objects.filter(project=project, pk__in=ids).values_list("pk", flat=True))
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise ValidationError(
            {"document_ids": [f"documents {missing} are not in project '{project.name}'"]}
        )
    return ids


def _chosen_documents(project: Project, documents: DocumentChoice) -> list[int]:
    in_order = Document.objects.filter(project=project).order_by("position", "id")
    if documents == "all":
        return list(in_order.values_list("pk", flat=True))
    if documents == "unassigned":
        nobody = in_order.exclude(
            Exists(Assignment.objects.filter(document=OuterRef("pk")))
        ).exclude(Exists(Annotation.objects.filter(document=OuterRef("pk"))))
        return list(nobody.values_list("pk", flat=True))
    if isinstance(documents, Sample):
        ids = list(in_order.values_list("pk", flat=True))
        if documents.size < 1 or documents.size > len(ids):
            raise ValidationError(
                {
                    "sample_size": [
                        f"a sample of {documents.size} is not possible: project "
                        f"'{project.name}' has {len(ids)} documents"
                    ]
                }
            )
        picked = set(random.Random(documents.seed).sample(ids, documents.size))
        return [pk for pk in ids if pk in picked]
    if isinstance(documents, Matching):
        query = replace(documents.query, ordering="position")
        matching = document_list(None, project, query, staff=True)
        return list(matching.values_list("pk", flat=True))
    if isinstance(documents, str):
        raise ValidationError({"documents": [f"unknown selection {documents!r}"]})
    return _document_ids(project, documents)


def _loads(project: Project, annotator_ids: list[int]) -> dict[int, int]:
    rows = (
        Assignment.objects.filter(document__project=project, annotator_id__in=annotator_ids)
        .values("annotator_id")
        .annotate(n=Count("id"))
    )
    loads = dict.fromkeys(annotator_ids, 0)
    loads.update({r["annotator_id"]: r["n"] for r in rows})
    return loads


# --- assign ---------------------------------------------------------------------------------


@transaction.atomic
def assign_to_annotators(
    *,
    project: Project,
    annotators: Sequence[AbstractBaseUser],
    per_document: int,
    documents: DocumentChoice = "all",
    seed: int | None = None,
) -> AssignmentReport:
    """Top each chosen document up to ``per_document`` of the chosen annotators (balanced)."""
    project = _lock(project)
    users = list({u.pk: u for u in annotators}.values())
    if not users:
        raise ValidationError({"annotators": ["choose at least one annotator"]})
    _check_annotators(project, users, "annotators")
    if per_document < 1 or per_document > len(users):
        raise ValidationError(
            {
                "per_document": [
                    f"{per_document} annotators per document is not possible with "
                    f"{len(users)} chosen annotator{'s' if len(users) != 1 else ''}"
                ]
            }
        )
    document_ids = _chosen_documents(project, documents)
    user_ids = [u.pk for u in users]
    loads = _loads(project, user_ids)
    before = sum(loads.values())

    have: dict[int, set[int]] = {pk: set() for pk in document_ids}
    for doc_id, user_id in Assignment.objects.filter(
        document_id__in=document_ids, annotator_id__in=user_ids
    ).values_list("document_id", "annotator_id"):
        have[doc_id].add(user_id)
    shuffled = sorted(user_ids)
    random.Random(0 if seed is None else seed).shuffle(shuffled)
    rank = {user_id: i for i, user_id in enumerate(shuffled)}

    new: list[Assignment] = []
    # Most constrained documents first (those already holding some of the annotators), so
    # the free choices that follow can even the loads out.
    order = sorted(range(len(document_ids)), key=lambda i: (-len(have[document_ids[i]]), i))
    for i in order:
        doc_id = document_ids[i]
        missing = per_document - len(have[doc_id])
        if missing <= 0:
            continue
        free = sorted(
            (u for u in user_ids if u not in have[doc_id]), key=lambda u: (loads[u], rank[u])
        )
        for user_id in free[:missing]:
            new.append(Assignment(document_id=doc_id, annotator_id=user_id))
            loads[user_id] += 1
    Assignment.objects.bulk_create(new, batch_size=BATCH_SIZE, ignore_conflicts=True)

    totals = _loads(project, user_ids)
    return AssignmentReport(
        created=sum(totals.values()) - before,
        documents=len(document_ids),
        annotators=[AnnotatorTotal(u.pk, _username(u), totals[u.pk]) for u in users],
    )


# --- unassign and reassign ------------------------------------------------------------------


def _refuse_work(
    project: Project, annotator: AbstractBaseUser, document_ids: list[int], verb: str
) -> None:
    worked = sorted(
        Annotation.objects.filter(document_id__in=document_ids, annotator=annotator).values_list(
            "document_id", flat=True
        )
    )
    if worked:
        raise WorkInProgress(
            f"{_username(annotator)} has an annotation on {len(worked)} of these documents "
            f"of project '{project.name}' ({', '.join(map(str, worked))}); confirm with "
            f"force to {verb} them anyway (their annotations stay)",
            documents=worked,
        )


@transaction.atomic
def unassign(
    *,
    project: Project,
    annotator: AbstractBaseUser,
    documents: Iterable[int | Document],
    force: bool = False,
) -> int:
    """Take documents out of the annotator's queue; returns how many assignments went."""
    project = _lock(project)
    document_ids = _document_ids(project, documents)
    if not force:
        _refuse_work(project, annotator, document_ids, "unassign")
    removed, _ = Assignment.objects.filter(
        document_id__in=document_ids, annotator=annotator
    ).delete()
    return removed


@transaction.atomic
def reassign(
    *,
    project: Project,
    documents: Iterable[int | Document],
    from_annotator: AbstractBaseUser,
    to_annotator: AbstractBaseUser,
    force: bool = False,
) -> int:
    """Move ``from_annotator``'s assignments of the documents to ``to_annotator`` (documents
    the latter already has just leave the former's queue); returns how many moved."""
    project = _lock(project)
    if from_annotator.pk == to_annotator.pk:
        raise ValidationError(
            {"to_annotator": [f"{_username(to_annotator)} is also the annotator to move from"]}
        )
    _check_annotators(project, [to_annotator], "to_annotator")
    document_ids = _document_ids(project, documents)
    moving = Assignment.objects.filter(document_id__in=document_ids, annotator=from_annotator)
    moved_ids = list(moving.values_list("document_id", flat=True))
    if not force:
        _refuse_work(project, from_annotator, moved_ids, "reassign")
    moving.delete()
    Assignment.objects.bulk_create(
        [Assignment(document_id=pk, annotator=to_annotator) for pk in moved_ids],
        batch_size=BATCH_SIZE,
        ignore_conflicts=True,
    )
    return len(moved_ids)
