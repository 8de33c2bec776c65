"""Gold standard versions: drafts, and published versions that never change."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotations.history import HistoricalRecords
from annotations.models.annotations import SpanBase, span_constraints
from annotations.models.projects import Document, Project


class PublishedGoldIsImmutable(Exception):
    """A published gold standard version, its documents and spans never change."""


def cascade_unless_published(collector, field, sub_objs, using) -> None:
    """``on_delete`` of gold rows' documents and versions' projects: deleting a document
    or a project cascades into drafts only; published versions refuse (so does the database)."""
    rows = sub_objs if isinstance(sub_objs, models.QuerySet) else None
    column = "pk" if field.model is GoldStandard else "gold_standard_id"
    if rows is None:
        ids = {getattr(obj, column) for obj in sub_objs}
    else:
        ids = rows.values(column)
    _refuse_published(ids, f"cascade from a deleted {field.remote_field.model._meta.model_name}")
    models.CASCADE(collector, field, sub_objs, using)


ADJUDICATION = "adjudication"  # ``GoldStandard.source`` of the project's adjudication draft


class GoldStandardQuerySet(models.QuerySet):
    """Bulk writes refuse published versions, as ``save()`` does (the database, too)."""

    def update(self, **kwargs):
        if self.filter(status="published").exists():
            raise PublishedGoldIsImmutable("a published gold standard cannot change (update)")
        return super().update(**kwargs)

    def delete(self):
        if self.filter(status="published").exists():
            raise PublishedGoldIsImmutable("a published gold standard cannot be deleted")
        return super().delete()


class GoldStandard(models.Model):
    """A version of a project's gold standard; immutable once published.

    A project has at most one adjudication draft (``source`` ``adjudication``; an import
    builds its version as a draft inside one transaction); publishing turns the draft into
    the next immutable version (numbered then), recording who, when, a note and the diff against the
    previous published version. Published versions, their documents and spans refuse every
    write: ``save()``, ``delete()``, ``QuerySet.update()/delete()``, ``bulk_create`` and
    ``bulk_update`` here, and triggers in the database (``migrations/0005``) for raw SQL,
    cascades from a deleted document or project, and a text change under published spans.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        PUBLISHED = "published", "published"

    project = models.ForeignKey(
        Project, on_delete=cascade_unless_published, related_name="gold_standards"
    )
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    source = models.CharField(
        max_length=255, blank=True, help_text="What it was made from (file, adjudication)."
    )
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    based_on = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The published version this draft started from.",
    )
    diff = models.JSONField(
        default=dict,
        blank=True,
        help_text="Set at publication: spans added, removed and changed against the "
        "previous published version.",
    )
    documents = models.ManyToManyField(Document, through="GoldDocument", related_name="+")

    objects = GoldStandardQuerySet.as_manager()

    class Meta:
        ordering = ["project", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="gold_version_unique"),
            models.UniqueConstraint(
                fields=["project"],
                condition=Q(status="draft", source=ADJUDICATION),
                name="gold_one_adjudication_draft_per_project",
            ),
            models.CheckConstraint(
                condition=Q(status="draft", published_at__isnull=True)
                | Q(status="published", published_at__isnull=False),
                name="gold_published_at_iff_published",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project} gold v{self.version} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        if self.pk and GoldStandard.objects.filter(pk=self.pk, status="published").exists():
            raise PublishedGoldIsImmutable(f"{self} is published and cannot change")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self.pk and GoldStandard.objects.filter(pk=self.pk, status="published").exists():
            raise PublishedGoldIsImmutable(f"{self} is published and cannot be deleted")
        return super().delete(*args, **kwargs)

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED


def _refuse_published(gold_standard_ids: set[int] | models.QuerySet, what: str) -> None:
    published = (
        GoldStandard.objects.filter(pk__in=gold_standard_ids, status="published")
        .values_list("pk", flat=True)
        .first()
    )
    if published is not None:
        raise PublishedGoldIsImmutable(
            f"gold standard {published} is published and cannot change ({what})"
        )


class GoldRowQuerySet(models.QuerySet):
    """Rows of gold versions: bulk writes refuse published versions, as ``save()`` does."""

    def update(self, **kwargs):
        _refuse_published(self.values("gold_standard_id"), "update")
        target = kwargs.get("gold_standard", kwargs.get("gold_standard_id"))
        if target is not None:  # moving rows into a published version
            _refuse_published({getattr(target, "pk", target)}, "update")
        return super().update(**kwargs)

    def delete(self):
        _refuse_published(self.values("gold_standard_id"), "delete")
        return super().delete()

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        _refuse_published({obj.gold_standard_id for obj in objs}, "bulk_create")
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs, *args, **kwargs):
        objs = list(objs)
        _refuse_published(
            self.filter(pk__in=[obj.pk for obj in objs]).values("gold_standard_id"),
            "bulk_update",
        )
        return super().bulk_update(objs, *args, **kwargs)


class PartOfGoldVersion(models.Model):
    """Rows of a gold version: writable while the version is a draft only."""

    objects = GoldRowQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        versions = {self.gold_standard_id}
        if self.pk is not None:  # a row moved out of a version changes that version too
            stored = type(self).objects.filter(pk=self.pk).values_list("gold_standard_id")
            versions.update(row[0] for row in stored)
        _refuse_published(versions, "save")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        _refuse_published({self.gold_standard_id}, "delete")
        return super().delete(*args, **kwargs)


class GoldDocument(PartOfGoldVersion):
    """A document covered by a gold version (no spans there means: no fallacy).

    ``revision`` is bumped by every adjudication save of the document in a draft
    (optimistic concurrency: a stale revision is a 409 with the current state).
    """

    gold_standard = models.ForeignKey(
        GoldStandard, on_delete=models.CASCADE, related_name="gold_documents"
    )
    document = models.ForeignKey(
        Document, on_delete=cascade_unless_published, related_name="gold_entries"
    )
    comments = models.JSONField(default=list, blank=True, help_text="Adjudicators' notes.")
    revision = models.PositiveIntegerField(default=1, help_text="For optimistic concurrency.")
    updated_at = models.DateTimeField(auto_now=True, null=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["gold_standard", "document"], name="gold_document_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.document} in gold {self.gold_standard_id}"


class GoldSpan(SpanBase, PartOfGoldVersion):
    """A span of a gold version. ``proposed_by`` maps each alternative label to the ids of
    the annotators who proposed it (empty for imported gold and labels a reviewer added)."""

    gold_standard = models.ForeignKey(GoldStandard, on_delete=models.CASCADE, related_name="spans")
    document = models.ForeignKey(
        Document, on_delete=cascade_unless_published, related_name="gold_spans"
    )
    proposed_by = models.JSONField(default=dict, blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["gold_standard", "document", "start", "end", "id"]
        constraints = span_constraints("gold_span")
        indexes = [models.Index(fields=["gold_standard", "document"])]

    def __str__(self) -> str:
        return f"[{self.start}, {self.end}) {' | '.join(self.labels)}"
