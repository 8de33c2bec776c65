"""Suggestions: a finished run's labels offered to a project's annotators, their decisions,
whether a project is assisted, and the annotators' queue ordering by disagreement."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotations.models import Document, Project
from evaluation.models.runs import ModelRun


class SuggestionSettings(models.Model):
    """Whether a project is *assisted*: its annotators are shown the model suggestions.

    No row means unassisted (the default, for agreement studies and human baselines): the
    API then serves no suggestion to annotators."""

    class Ordering(models.TextChoices):
        POSITION = "position", "project order"
        DISAGREEMENT = "disagreement", "documents where runs disagree first"

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, primary_key=True, related_name="suggestion_settings"
    )
    assisted = models.BooleanField(default=False)
    ordering = models.CharField(
        max_length=16,
        choices=Ordering.choices,
        default=Ordering.POSITION,
        help_text="Annotators' queue (next document, default document list order): project "
        "order, or documents where the suggesting runs disagree first.",
    )
    runs = models.ManyToManyField(
        ModelRun,
        blank=True,
        related_name="+",
        help_text="Runs turned into suggestions for the project (their disagreement orders "
        "the queue).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"project {self.project_id}: {'assisted' if self.assisted else 'unassisted'}"


class Suggestion(models.Model):
    """A finished run's labels for one sentence unit of a document, offered to annotators.

    A suggestion is never an annotation: agreement, adjudication, gold and the leaderboard
    read spans only, and a suggestion becomes one only when an annotator accepts it (a span
    of their own, see ``evaluation.suggestions.services``)."""

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="suggestions")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="suggestions")
    unit_index = models.PositiveIntegerField(help_text="Sentence index in the document.")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    labels = models.JSONField(help_text="Canonical fallacy types (never only 'no fallacy').")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "start", "run"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "document", "unit_index"], name="suggestion_unique"
            ),
            models.CheckConstraint(condition=Q(end__gt=models.F("start")), name="suggestion_range"),
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} · document {self.document_id} · unit {self.unit_index}"


class SuggestionDecision(models.Model):
    """One annotator's accept or reject of a suggestion (one per suggestion and annotator)."""

    class Decision(models.TextChoices):
        ACCEPT = "accept", "accept"
        REJECT = "reject", "reject"

    suggestion = models.ForeignKey(Suggestion, on_delete=models.CASCADE, related_name="decisions")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    decision = models.CharField(max_length=8, choices=Decision.choices)
    decided_at = models.DateTimeField(default=timezone.now)
    # not a foreign key: deleting a span (the annotation API's hot path) touches nothing here
    span_id = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Accepted: the id of the span the accept made (the annotator "
        "may have edited or deleted it since).",
    )

    class Meta:
        ordering = ["suggestion", "annotator"]
        constraints = [
            models.UniqueConstraint(
                fields=["suggestion", "annotator"], name="suggestion_decision_unique"
            ),
            models.CheckConstraint(
                condition=Q(decision__in=["accept", "reject"]), name="suggestion_decision_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.decision} of suggestion {self.suggestion_id} by {self.annotator_id}"


class DocumentDisagreement(models.Model):
    """How much the runs turned into suggestions disagree on a document, stored when
    suggestions are created (``evaluation.suggestions.services``) so that ordering the queue
    reads one row per document instead of every suggestion.

    ``score`` counts the document's sentences where the suggesting runs that answered the
    sentence do not all give the same set of fallacy types (a run that answered with no
    fallacy, ⊥ or an unparseable answer gives the empty set: one run suggesting and another
    not is a disagreement). No row: score 0."""

    document = models.OneToOneField(
        Document,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="suggestion_disagreement",
    )
    score = models.PositiveIntegerField(help_text="Sentences where the suggesting runs differ.")
    runs = models.PositiveIntegerField(help_text="Suggesting runs that answered the document.")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-score", "document"]

    def __str__(self) -> str:
        return f"document {self.document_id}: {self.score} disagreeing sentences"


class SuggestionShown(models.Model):
    """The first time the API served suggestions of a document to an annotator it is
    assigned to, in an assisted project (the report's "with suggestions" annotations)."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    shown_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["document", "annotator"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "annotator"], name="suggestion_shown_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"document {self.document_id} shown to {self.annotator_id}"
