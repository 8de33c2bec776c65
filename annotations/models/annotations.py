"""Annotators' work: one annotation per annotator and document, and its spans."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotations.history import HistoricalRecords
from annotations.labels import NO_FALLACY  # ⊥: "no fallacy" is an acceptable alternative
from annotations.models.projects import Document


class Annotation(models.Model):
    """One annotator's work on one document."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "in progress"
        SUBMITTED = "submitted", "submitted"

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="annotations")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotations"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IN_PROGRESS)
    comments = models.JSONField(default=list, blank=True, help_text="Document-level notes.")
    response = models.JSONField(
        default=dict, blank=True, help_text="Item projects: {form field: answer}."
    )
    revision = models.PositiveIntegerField(default=1, help_text="Bumped by every change.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["document", "annotator"], name="annotation_one_per_annotator"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["in_progress", "submitted"]),
                name="annotation_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.document}"


def span_constraints(prefix: str) -> list[models.BaseConstraint]:
    return [
        models.CheckConstraint(condition=Q(start__lt=F("end")), name=f"{prefix}_start_lt_end"),
        models.CheckConstraint(condition=~Q(labels=[]), name=f"{prefix}_labels_not_empty"),
        models.CheckConstraint(
            condition=~Q(labels=[NO_FALLACY]), name=f"{prefix}_labels_not_only_no_fallacy"
        ),
    ]


class SpanBase(models.Model):
    """Shared shape of annotator spans and gold spans.

    ``labels`` is the sorted set of alternatives (canonical names; may hold ``NO_FALLACY``).
    ``details`` maps a label to ``{"slots": {slot: value}, "explanation": str}``.
    """

    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    labels = models.JSONField()
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True

    @property
    def allows_no_fallacy(self) -> bool:
        return NO_FALLACY in self.labels


class Span(SpanBase):
    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="spans")
    client_id = models.UUIDField(
        null=True, blank=True, help_text="Set by the client so a retried create is idempotent."
    )
    revision = models.PositiveIntegerField(default=1, help_text="For optimistic concurrency.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        ordering = ["annotation", "start", "end", "id"]
        constraints = [
            *span_constraints("span"),
            models.UniqueConstraint(
                fields=["annotation", "client_id"], name="span_client_id_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.start}, {self.end}) {' | '.join(self.labels)}"
