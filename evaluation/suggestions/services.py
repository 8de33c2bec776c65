"""Suggestions (pre-annotations): a finished run's labels offered to a project's annotators,
who accept them (each becomes a span of their own) or reject them.

- ``set_assisted``: turn a project's suggestions on or off for its annotators (off, the
  default: the API serves none to annotators).
- ``create_suggestions``: one suggestion per sentence unit of each run whose parsed labels
  name at least one fallacy type of the project's taxonomy (⊥, unknown and unparseable
  labels give none). Idempotent: a unit that already has its suggestion is left alone.
- ``decide_suggestion``: an annotator accepts or rejects one. Accepting creates the
  annotator's own span with the suggestion's range and labels and empty details, through
  ``annotations.services.annotations.create_or_get_span`` (so the annotation's revision,
  the span's history, the counters and the span lock are those of a hand-made span).
- ``accept_sentence``: accept every undecided suggestion of one sentence.
- ``set_ordering`` / ``disagreement_first``: the annotators' queue in project order, or
  documents where the suggesting runs disagree first. The disagreement is stored per
  document (``DocumentDisagreement``) by ``create_suggestions`` (``update_disagreement``),
  so ordering the queue reads one row per document, never the suggestions.
- ``record_shown``: the first time suggestions of a document were served to an annotator
  it is assigned to (assisted project); ``evaluation.suggestions.reports`` compares the
  time per document of annotations with and without suggestions shown, and counts the
  decisions per run and label.

A suggestion is never an annotation: agreement, adjudication, gold and the leaderboard
read spans only.

Concurrency contract: every function is one transaction. ``decide_suggestion`` first locks
the suggestion row (``select_for_update``), so decisions on one suggestion serialise; a
second decision identical to the stored one returns it unchanged (idempotent, nothing
written), a different one raises ``DecisionConflict`` (the API's 409) carrying the stored
decision. The accepted span's ``client_id`` is derived from the annotator, document, range
and labels, so a retried accept, or identical suggestions of two runs, give one span.
``create_suggestions`` inserts with ``ignore_conflicts`` on the (run, document, unit)
constraint: two concurrent calls create each suggestion once.

Errors are ``django.core.exceptions.ValidationError`` with a ``{field: [message]}`` dict
naming the place (the run, its status), ``PermissionDenied`` for a user who may not.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from annotations.labels import NO_FALLACY, normalise_label
from annotations.models import Assignment, Document, Project, Sentence
from annotations.selectors.policy import may_annotate, may_configure, may_launch
from annotations.services.annotations import create_or_get_span, start_annotation
from annotations.spans import label_index
from evaluation.models import (
    DocumentDisagreement,
    ModelRun,
    RunOutput,
    Suggestion,
    SuggestionDecision,
    SuggestionSettings,
    SuggestionShown,
)
from evaluation.runs.prompts import parse_answer, run_parser
from evaluation.runs.stored import taxonomy_mapping

ACCEPT = SuggestionDecision.Decision.ACCEPT
REJECT = SuggestionDecision.Decision.REJECT
SPAN_NAMESPACE = uuid.UUID("6f1d2a58-3c1e-4f7e-9a51-5b0c7d2e9a11")


class DecisionConflict(Exception):
    """The annotator already made the other decision; ``current`` is the stored one."""

    def __init__(self, message: str, *, current: SuggestionDecision) -> None:
        super().__init__(message)
        self.current = current


@dataclass
class SuggestionReport:
    """What ``create_suggestions`` did, per run id."""

    created: dict[int, int] = field(default_factory=dict)
    existing: dict[int, int] = field(default_factory=dict)
    no_fallacy: dict[int, int] = field(default_factory=dict)  # units with nothing to suggest
    skipped: dict[int, list[str]] = field(default_factory=dict)  # why units were left out

    @property
    def total_created(self) -> int:
        return sum(self.created.values())


def is_assisted(project: Project | int) -> bool:
    project_id = project if isinstance(project, int) else project.pk
    return SuggestionSettings.objects.filter(project_id=project_id, assisted=True).exists()


@transaction.atomic
def set_assisted(*, project: Project, assisted: bool, by: Any | None = None) -> bool:
    """Show (``True``) or hide the project's suggestions to its annotators; project admins
    only when ``by`` is given."""
    if by is not None and not may_configure(by, project):
        raise PermissionDenied(f"only admins of project '{project.name}' change assistance")
    SuggestionSettings.objects.update_or_create(project=project, defaults={"assisted": assisted})
    return assisted


ORDERINGS = tuple(SuggestionSettings.Ordering.values)
DISAGREEMENT = SuggestionSettings.Ordering.DISAGREEMENT


def queue_ordering(project: Project | int) -> str:
    """The project's queue ordering: ``position`` (the default) or ``disagreement``."""
    project_id = project if isinstance(project, int) else project.pk
    found = SuggestionSettings.objects.filter(project_id=project_id).values_list(
        "ordering", flat=True
    )
    return next(iter(found), SuggestionSettings.Ordering.POSITION)


def disagreement_first(project: Project | int) -> bool:
    return queue_ordering(project) == DISAGREEMENT


@transaction.atomic
def set_ordering(*, project: Project, ordering: str, by: Any | None = None) -> str:
    """Order the annotators' queue in project order (``position``) or documents where the
    suggesting runs disagree first (``disagreement``); project admins only when ``by``
    is given."""
    if ordering not in ORDERINGS:
        raise ValidationError({"ordering": [f"{ordering!r} is not one of {', '.join(ORDERINGS)}"]})
    if by is not None and not may_configure(by, project):
        raise PermissionDenied(f"only admins of project '{project.name}' change the queue order")
    SuggestionSettings.objects.update_or_create(project=project, defaults={"ordering": ordering})
    return ordering


def update_disagreement(project: Project) -> dict[int, int]:
    """Store each document's disagreement among the project's suggesting runs (the runs
    ever turned into suggestions): the number of its sentences where the runs that
    answered the sentence do not all give the same set of fallacy types (no suggestion =
    the empty set, so one run suggesting and another not disagree). Documents scoring 0
    keep no row. Returns {document id: score > 0}. Called by ``create_suggestions`` under
    the project's settings row lock; reads the runs' outputs once."""
    run_ids = list(
        SuggestionSettings.runs.through.objects.filter(
            suggestionsettings_id=project.pk
        ).values_list("modelrun_id", flat=True)
    )
    answered: dict[tuple[int, int], set[int]] = defaultdict(set)
    for run_id, document_id, unit_index in (
        RunOutput.objects.filter(run_id__in=run_ids, document__project=project)
        .values_list("run_id", "document_id", "unit_index")
        .iterator(chunk_size=5000)
    ):
        answered[(document_id, unit_index)].add(run_id)
    given: dict[tuple[int, int], dict[int, frozenset[str]]] = defaultdict(dict)
    for run_id, document_id, unit_index, labels in Suggestion.objects.filter(
        run_id__in=run_ids, document__project=project
    ).values_list("run_id", "document_id", "unit_index", "labels"):
        given[(document_id, unit_index)][run_id] = frozenset(labels)
    scores: dict[int, int] = defaultdict(int)
    runs_of: dict[int, set[int]] = defaultdict(set)
    for (document_id, unit_index), runs in answered.items():
        runs_of[document_id] |= runs
        labels_of = given.get((document_id, unit_index), {})
        if len({labels_of.get(run, frozenset()) for run in runs}) > 1:
            scores[document_id] += 1
    DocumentDisagreement.objects.filter(document__project=project).delete()
    DocumentDisagreement.objects.bulk_create(
        DocumentDisagreement(document_id=doc, score=score, runs=len(runs_of[doc]))
        for doc, score in scores.items()
    )
    return dict(scores)


def _check_runs(project: Project, runs: Sequence[ModelRun]) -> None:
    errors: list[str] = []
    if not runs:
        errors.append("choose at least one finished run")
    for run in runs:
        where = f"run '{run.name}' (id {run.pk})"
        if run.project_id != project.pk:
            errors.append(f"{where} belongs to another project, not '{project.name}'")
        elif run.status != ModelRun.Status.DONE:
            errors.append(f"{where} is {run.status}, not done: only finished runs suggest")
        elif run.field or run.judged_run_id is not None:
            errors.append(f"{where} answers items, not sentences: it has nothing to suggest")
        elif run.level != 2:
            errors.append(f"{where} labels at level {run.level}: only fallacy types suggest")
    if errors:
        raise ValidationError({"runs": errors})


def _suggested_labels(index: Any, parsed: Any) -> list[str]:
    """The canonical fallacy types among a unit's parsed labels (⊥ and unknown dropped)."""
    if not isinstance(parsed, list):
        return []
    found = {index.canonical.get(normalise_label(str(raw))) for raw in parsed}
    return sorted(name for name in found if name is not None and name != NO_FALLACY)


def _unit_labels(run: ModelRun, project: Project) -> list[tuple[int, int, Any]]:
    """(document id, unit index, parsed labels) of the run's outputs; an imported run's
    outputs were never parsed: read here as scoring reads them."""
    rows = list(
        RunOutput.objects.filter(run=run, document__project=project)
        .order_by("document_id", "unit_index")
        .values_list("document_id", "unit_index", "parsed_labels", "answer", "raw_output")
    )
    if not run.imported:
        return [(doc, unit, parsed) for doc, unit, parsed, _, _ in rows]
    parser, mapping = run_parser(run), taxonomy_mapping(project.taxonomy)
    return [
        (
            doc,
            unit,
            parse_answer(parser, raw if answer is None else answer, run=run, mapping=mapping),
        )
        for doc, unit, _, answer, raw in rows
    ]


@transaction.atomic
def create_suggestions(
    *, project: Project, runs: Iterable[ModelRun], by: Any | None = None
) -> SuggestionReport:
    """Suggestions from finished runs of the project (see the module docstring); project
    admins only when ``by`` is given. Refuses every unfinished or foreign run, by name,
    before creating anything."""
    runs = list({run.pk: run for run in runs}.values())
    if by is not None and not may_launch(by, project):
        raise PermissionDenied(f"only admins of project '{project.name}' create suggestions")
    if project.archived_at is not None:
        raise ValidationError({"project": [f"project '{project.name}' is archived: read-only"]})
    _check_runs(project, runs)
    # one creation per project at a time: the disagreement scores are computed from all
    # the project's suggesting runs, under this lock
    SuggestionSettings.objects.get_or_create(project=project)
    settings_row = SuggestionSettings.objects.select_for_update().get(project=project)
    settings_row.runs.add(*runs)
    index = label_index(project.taxonomy)
    report = SuggestionReport()
    for run in runs:
        outputs = _unit_labels(run, project)
        bounds = {
            (doc, idx): (start, end)
            for doc, idx, start, end in Sentence.objects.filter(
                document_id__in={doc for doc, _, _ in outputs}
            ).values_list("document_id", "index", "start", "end")
        }
        existing = set(Suggestion.objects.filter(run=run).values_list("document_id", "unit_index"))
        new: list[Suggestion] = []
        skipped: list[str] = []
        no_fallacy = 0
        for document_id, unit_index, parsed in outputs:
            labels = _suggested_labels(index, parsed)
            if not labels:
                no_fallacy += 1
                continue
            if (document_id, unit_index) in existing:
                continue
            edge = bounds.get((document_id, unit_index))
            if edge is None:
                skipped.append(f"document {document_id}: no sentence {unit_index}")
                continue
            new.append(
                Suggestion(
                    run=run,
                    document_id=document_id,
                    unit_index=unit_index,
                    start=edge[0],
                    end=edge[1],
                    labels=labels,
                    created_by=by,
                )
            )
        Suggestion.objects.bulk_create(new, ignore_conflicts=True)
        report.created[run.pk] = len(new)
        report.existing[run.pk] = len(existing)
        report.no_fallacy[run.pk] = no_fallacy
        report.skipped[run.pk] = skipped
    update_disagreement(project)
    return report


def _span_client_id(suggestion: Suggestion, annotator: Any) -> uuid.UUID:
    key = f"{annotator.pk}:{suggestion.document_id}:{suggestion.start}:{suggestion.end}:"
    return uuid.uuid5(SPAN_NAMESPACE, key + "|".join(suggestion.labels))


def _check_queue(document: Document, annotator: Any) -> None:
    """An annotator decides only on an assisted project's document in their queue
    (``Suggestion.DoesNotExist`` otherwise: the API's 404)."""
    assigned = Assignment.objects.filter(document=document, annotator=annotator).exists()
    if not assigned or not may_annotate(annotator, document.project_id):
        raise Suggestion.DoesNotExist(
            f"document {document.pk} is not in {annotator}'s queue: no suggestion to decide"
        )
    if not is_assisted(document.project_id):
        raise Suggestion.DoesNotExist(
            f"project {document.project_id} is unassisted: its suggestions are not shown"
        )


@transaction.atomic
def decide_suggestion(
    *, suggestion: Suggestion | int, annotator: Any, decision: str
) -> tuple[SuggestionDecision, bool]:
    """Store the annotator's decision; returns ``(decision, created)``.

    ``accept``: the annotator's span with the suggestion's range and labels (empty
    details), made by ``create_or_get_span``; ``reject``: the decision only. The same
    decision again returns the stored one (``created`` False); the other one raises
    ``DecisionConflict``. ``Suggestion.DoesNotExist`` for a suggestion the annotator may
    not see (not in their queue, or the project is unassisted).
    """
    if decision not in (ACCEPT, REJECT):
        raise ValidationError({"decision": [f"{decision!r} is not one of accept, reject"]})
    suggestion_id = suggestion if isinstance(suggestion, int) else suggestion.pk
    locked = (
        Suggestion.objects.select_for_update(of=("self",))
        .select_related("document", "run")
        .get(pk=suggestion_id)
    )
    _check_queue(locked.document, annotator)
    stored = SuggestionDecision.objects.filter(suggestion=locked, annotator=annotator).first()
    if stored is not None:
        if stored.decision == decision:
            return stored, False
        raise DecisionConflict(
            f"suggestion {locked.pk} was already {stored.decision}ed by {annotator} at "
            f"{stored.decided_at.isoformat()}; a decision is not changed",
            current=stored,
        )
    span_id = None
    if decision == ACCEPT:
        annotation = start_annotation(document=locked.document, annotator=annotator)
        span, _ = create_or_get_span(
            annotation=annotation,
            start=locked.start,
            end=locked.end,
            labels=locked.labels,
            details={},
            client_id=_span_client_id(locked, annotator),
            by=annotator,
        )
        span_id = span.pk
    made = SuggestionDecision.objects.create(
        suggestion=locked, annotator=annotator, decision=decision, span_id=span_id
    )
    return made, True


@transaction.atomic
def accept_sentence(
    *, document: Document, unit_index: int, annotator: Any
) -> list[SuggestionDecision]:
    """Accept every suggestion of the sentence the annotator has not decided yet (decided
    ones stay as they are); returns the decisions made, in suggestion order."""
    _check_queue(document, annotator)
    ids = list(
        Suggestion.objects.filter(document=document, unit_index=unit_index)
        .exclude(decisions__annotator=annotator)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if not ids and not Sentence.objects.filter(document=document, index=unit_index).exists():
        raise ValidationError(
            {"unit_index": [f"document {document.pk} has no sentence {unit_index}"]}
        )
    made = []
    for suggestion_id in ids:
        decided, _ = decide_suggestion(
            suggestion=suggestion_id, annotator=annotator, decision=ACCEPT
        )
        made.append(decided)
    return made


def record_shown(*, document: Document, annotator: Any) -> None:
    """Remember the first time suggestions of the document were served to an annotator it
    is assigned to (the caller serves them: an assisted project, at least one)."""
    if not Assignment.objects.filter(document=document, annotator=annotator).exists():
        return
    SuggestionShown.objects.get_or_create(document=document, annotator=annotator)


__all__ = [
    "DecisionConflict",
    "SuggestionReport",
    "accept_sentence",
    "create_suggestions",
    "decide_suggestion",
    "disagreement_first",
    "is_assisted",
    "queue_ordering",
    "record_shown",
    "set_assisted",
    "set_ordering",
    "update_disagreement",
]
