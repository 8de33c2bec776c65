"""Agreement figures of a project, cached per inputs hash (computed by ``agreement.jobs``)."""

from django.db import models

from annotations.models import GoldStandard, Project


class AgreementResult(models.Model):
    """Every agreement figure of a project for one set of inputs, computed by a Celery task.

    ``key`` hashes what the figures depend on (the project's submitted annotations and
    their revisions, the gold version compared against, the options and the code's
    version): a changed annotation gives a new key, so a cached result is never stale and
    the page shows "computing…" until the task for the new key is done.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    gold_standard = models.ForeignKey(
        GoldStandard, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    key = models.CharField(max_length=64, help_text="sha256 of the inputs and options.")
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    payload = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "key"], name="agreement_result_unique"),
        ]
        indexes = [models.Index(fields=["project", "-created_at"])]

    def __str__(self) -> str:
        return f"agreement of {self.project_id} {self.key[:12]} ({self.status})"
