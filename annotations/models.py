"""The disjunctive annotation scheme.

A *span* is a character range with a set of alternative labels: any one of them is an
acceptable annotation of the range. The special label ``NO_FALLACY`` (⊥) among them makes
annotating the range optional. Two spans on the same range are two *required* labels,
which is different from one span with two alternatives.

Invariants the database can enforce are constraints here; the rest (labels drawn from the
project's taxonomy, ranges inside the text, sentence snapping) is checked by the services.
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotations.history import HistoricalRecords
from annotations.items import PROJECT_KINDS
from annotations.labels import NO_FALLACY  # ⊥: "no fallacy" is an acceptable alternative
from annotations.naming import NAME_LENGTH


class PublishedGoldIsImmutable(Exception):
    """A published gold standard version, its documents and spans never change."""


# --- counters kept by the database ---------------------------------------------------------
# Columns ending in ``_count`` on Project, Membership and Document are maintained by
# database triggers (migration 0007, PostgreSQL and SQLite) on every insert, update and
# delete of documents, assignments and annotations, however it is made (services,
# bulk_create, QuerySet.update/delete, the Django admin, raw SQL). ``save()`` never writes
# them (a loaded row's values may be stale); ``annotations.services.counts.refresh_counts``
# recomputes them from the rows.


class CountersNotSaved(models.Model):
    """``save()`` of an existing row writes every loaded field but the ``COUNTERS``."""

    COUNTERS: tuple[str, ...] = ()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        if (
            self.pk is not None
            and not self._state.adding
            and kwargs.get("update_fields") is None
            and not kwargs.get("force_insert")
        ):
            deferred = self.get_deferred_fields()
            kwargs["update_fields"] = [
                f.name
                for f in self._meta.concrete_fields
                if not f.primary_key and f.attname not in deferred and f.name not in self.COUNTERS
            ]
        elif kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = [f for f in kwargs["update_fields"] if f not in self.COUNTERS]
        super().save(*args, **kwargs)


def counter(help_text: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(default=0, editable=False, help_text=help_text)


class Taxonomy(models.Model):
    """A versioned tree of labels: level 0 (fallacy), level 1 (categories), level 2 (types)."""

    name = models.SlugField(max_length=64)
    version = models.CharField(max_length=32)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "taxonomies"
        ordering = ["name", "version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="taxonomy_name_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class TaxonomyNode(models.Model):
    class Level(models.IntegerChoices):
        FALLACY = 0, "fallacy"
        CATEGORY = 1, "category"
        TYPE = 2, "type"

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="nodes")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    level = models.PositiveSmallIntegerField(choices=Level.choices)
    name = models.CharField(max_length=120, help_text="Canonical label, lower case.")
    aliases = models.JSONField(
        default=list, blank=True, help_text="Other spellings matched when importing labels."
    )
    definition = models.TextField(blank=True)
    template = models.TextField(blank=True, help_text="The formal pattern, using the slots.")
    slots = models.JSONField(default=list, blank=True, help_text='Slot names, e.g. ["E", "P"].')
    example = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["taxonomy", "level", "position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "name"], name="taxonomy_node_name_unique"),
            models.CheckConstraint(condition=Q(level__lte=2), name="taxonomy_node_level_0_2"),
            models.CheckConstraint(
                condition=Q(level=0, parent__isnull=True) | Q(level__gt=0, parent__isnull=False),
                name="taxonomy_node_parent_iff_not_root",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (level {self.level})"


class Project(CountersNotSaved):
    COUNTERS = (
        "document_count",
        "done_count",
        "in_progress_count",
        "todo_count",
        "assignment_count",
        "submitted_count",
    )

    name = models.CharField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.PROTECT, related_name="projects")
    guidelines = models.TextField(blank=True, help_text="Markdown shown to annotators.")
    annotators_per_document = models.PositiveSmallIntegerField(
        default=1, help_text="A document is done when this many annotators submitted it."
    )
    archived_at = models.DateTimeField(
        null=True, blank=True, help_text="Archived projects are hidden and read-only."
    )
    kind = models.CharField(
        max_length=16,
        choices=[(kind, kind) for kind in PROJECT_KINDS],
        default="spans",
        help_text="spans: span-annotated texts; items: texts answered through the form.",
    )
    form = models.JSONField(
        default=dict, blank=True, help_text="Item projects: the questions (annotations.items)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="projects"
    )
    # statuses by the one definition (annotations.selectors.documents); unassigned is
    # document_count minus the other three
    document_count = counter("Documents of the project (kept by the database).")
    done_count = counter("Documents with at least annotators_per_document submitted.")
    in_progress_count = counter("Documents not done with at least one annotation.")
    todo_count = counter("Documents assigned, without annotations.")
    assignment_count = counter("Assignments of the project's documents.")
    submitted_count = counter("Submitted annotations of the project's documents.")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(annotators_per_document__gte=1),
                name="project_annotators_per_document_positive",
            ),
            models.CheckConstraint(condition=Q(kind__in=PROJECT_KINDS), name="project_kind_valid"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(CountersNotSaved):
    COUNTERS = ("assigned_count", "in_progress_count", "submitted_count", "done_count")

    class Role(models.TextChoices):
        ADMIN = "admin", "admin"
        REVIEWER = "reviewer", "reviewer"
        ANNOTATOR = "annotator", "annotator"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    assigned_count = counter("The member's assignments in the project (kept by the database).")
    in_progress_count = counter("The member's annotations in progress in the project.")
    submitted_count = counter("The member's submitted annotations in the project.")
    done_count = counter("Documents assigned to the member that they submitted.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique"),
            models.CheckConstraint(
                condition=Q(role__in=["admin", "reviewer", "annotator"]),
                name="membership_role_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.role} · {self.project}"


class Document(CountersNotSaved):
    COUNTERS = ("assignment_count", "annotation_count", "submitted_count")

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="documents")
    name = models.CharField(
        max_length=NAME_LENGTH,
        blank=True,
        help_text="Readable name: the external id, else the first words of the text.",
    )
    text = models.TextField()
    source = models.CharField(max_length=255, blank=True, help_text="Where the text came from.")
    external_id = models.CharField(max_length=255, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Order within the project.")
    created_at = models.DateTimeField(auto_now_add=True)
    assignment_count = counter("Assignments of the document (kept by the database).")
    annotation_count = counter("Annotations of the document, any status.")
    submitted_count = counter("Submitted annotations of the document.")

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"],
                condition=~Q(external_id=""),
                name="document_external_id_unique",
            )
        ]
        indexes = [models.Index(fields=["project", "position"])]

    def __str__(self) -> str:
        return self.name or self.external_id or f"document {self.pk}"


class Sentence(models.Model):
    """A sentence unit; a document's sentences tile the non-blank content of its text."""

    # no index of its own: the unique (document, index) constraint leads with it
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="sentences", db_index=False
    )
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()

    class Meta:
        ordering = ["document", "index"]
        constraints = [
            models.UniqueConstraint(fields=["document", "index"], name="sentence_index_unique"),
            models.CheckConstraint(condition=Q(start__lt=F("end")), name="sentence_start_lt_end"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}:{self.index} [{self.start}, {self.end})"


class Assignment(models.Model):
    """A document put in an annotator's queue."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "annotator"], name="assignment_unique")
        ]

    def __str__(self) -> str:
        return f"{self.document} → {self.annotator}"


class ImportJob(models.Model):
    """A file uploaded in the browser and imported into a project (all or nothing).

    Small files are imported in the request; large ones by a Celery task on the ``default``
    queue, which moves ``lines_done`` while it validates. ``errors`` lists every problem
    found as ``{"line", "field", "message"}``; a failed job imported nothing.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        SUCCEEDED = "succeeded", "succeeded"
        FAILED = "failed", "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    format = models.CharField(max_length=32, help_text="mafalda, doccano, text or csv.")
    options = models.JSONField(default=dict, blank=True, help_text="E.g. the CSV columns.")
    file_name = models.CharField(max_length=255)
    content = models.BinaryField(
        blank=True, help_text="The uploaded bytes; emptied when the job finishes."
    )
    size = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    lines_total = models.PositiveIntegerField(default=0)
    lines_done = models.PositiveIntegerField(default=0)
    report = models.JSONField(default=dict, blank=True)
    errors = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written by the importing process while it runs."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "succeeded", "failed"]),
                name="import_job_status_valid",
            )
        ]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.file_name} into {self.project_id} ({self.status})"


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
