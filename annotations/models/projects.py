"""Projects, their members, documents, sentences and assignments."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from annotations.items import PROJECT_KINDS
from annotations.models.taxonomy import Taxonomy
from annotations.naming import NAME_LENGTH

# --- counters kept by the database ---------------------------------------------------------
# Columns ending in ``_count`` on Project, Membership, Document and AnnotatorCounter (and
# its ``last_active``) are maintained by database triggers (migrations 0007, 0018 and 0020,
# PostgreSQL and SQLite) on every insert, update and delete of documents, assignments and
# annotations, however it is made (services,
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


# How a span project treats its labels' justification templates (the slots to fill):
# required (submitting refuses a span with an empty slot), optional (submitting warns),
# off (the annotation page shows no template).
TEMPLATE_MODES = ("required", "optional", "off")


def counter(help_text: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(default=0, editable=False, help_text=help_text)


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
    justification_templates = models.CharField(
        max_length=16,
        choices=[(mode, mode) for mode in TEMPLATE_MODES],
        default="optional",
        help_text="Span projects: template slots required (submit refuses empty ones), "
        "optional (submit warns) or off (not shown).",
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
            models.CheckConstraint(
                condition=Q(justification_templates__in=TEMPLATE_MODES),
                name="project_justification_templates_valid",
            ),
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

    # no index of its own: the (project, id) index leads with it
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="documents", db_index=False
    )
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
    updated_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Last save of the document (its answer key, position…); none: not saved "
        "since its bulk import.",
    )
    assignment_count = counter("Assignments of the document (kept by the database).")
    annotation_count = counter("Annotations of the document, any status.")
    submitted_count = counter("Submitted annotations of the document.")
    in_search_index = models.BooleanField(
        default=True,
        help_text="In the search's trigram indexes (PostgreSQL); a bulk import adds its "
        "documents to it after it commits (``services.search_index``).",
    )

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"],
                condition=~Q(external_id=""),
                name="document_external_id_unique",
            )
        ]
        indexes = [
            models.Index(fields=["project", "position"]),
            # a project's document ids from the index alone (PostgreSQL's index-only scans:
            # joins from a project's annotations to its documents, the progress page)
            models.Index(fields=["project", "id"], name="document_project_id"),
            # the documents not yet in the search's trigram indexes (none, after an import)
            models.Index(
                fields=["project"],
                condition=Q(in_search_index=False),
                name="document_search_pending",
            ),
        ]

    def __str__(self) -> str:
        return self.name or self.external_id or f"document {self.pk}"

    def save(self, *args, **kwargs) -> None:
        """Every save writes ``updated_at`` (stored results compare it)."""
        self.updated_at = timezone.now()
        if kwargs.get("update_fields"):
            kwargs["update_fields"] = [*kwargs["update_fields"], "updated_at"]
        super().save(*args, **kwargs)


class Sentence(models.Model):
    """A sentence unit; a document's sentences tile the non-blank content of its text."""

    # no index of its own: the unique (document, index) constraint leads with it; the
    # document must exist, checked by triggers once per statement rather than per row
    # (migration 0015)
    document = models.ForeignKey(
        Document,
        on_delete=models.CASCADE,
        related_name="sentences",
        db_index=False,
        db_constraint=False,
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


class AnnotatorCounter(models.Model):
    """One person's work in one project, counted by the database (migration 0018): a row
    for everyone with assignments or annotations in the project, members or not (people who
    left keep theirs). The progress page reads these instead of the rows."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="annotator_counters", db_index=False
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_counters"
    )
    assigned_count = counter("The person's assignments in the project.")
    in_progress_count = counter("The person's annotations in progress in the project.")
    submitted_count = counter("The person's submitted annotations in the project.")
    started_count = counter("Documents assigned to the person with their annotation in progress.")
    done_count = counter("Documents assigned to the person that they submitted.")
    last_active = models.DateTimeField(
        null=True, editable=False, help_text="The latest change of the person's annotations."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "annotator"], name="annotator_counter_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.project}"
