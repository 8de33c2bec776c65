"""Import jobs: files uploaded in the browser and imported into a project."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotations.models.projects import Project


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

    @property
    def content(self) -> bytes:
        """The uploaded bytes while the job has them (``ImportUpload``), else empty."""
        stored = ImportUpload.objects.filter(job_id=self.pk).values_list("content", flat=True)
        return bytes(stored.first() or b"")


class ImportUpload(models.Model):
    """The uploaded bytes of an unfinished import job, deleted when it ends.

    A row of its own: the job's row is written while it runs (claim, progress, heartbeat),
    and SQLite rewrites a whole row, blob included, on every update of it.
    """

    job = models.OneToOneField(
        ImportJob, on_delete=models.CASCADE, primary_key=True, related_name="upload"
    )
    content = models.BinaryField()

    def __str__(self) -> str:
        return f"upload of import {self.job_id}"
