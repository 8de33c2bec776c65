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
