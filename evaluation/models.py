"""Stored model runs: a system's raw outputs over the texts of a gold standard."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotations.models import Document, GoldStandard, Project


class ModelRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    gold_standard = models.ForeignKey(
        GoldStandard, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    name = models.CharField(max_length=200)
    backend = models.CharField(max_length=64, blank=True, help_text="e.g. vllm, transformers")
    model_name = models.CharField(max_length=255, blank=True)
    task = models.CharField(max_length=64, default="mafalda-span")
    config = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="model_run_name_unique"),
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "done", "failed"]),
                name="model_run_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class RunOutput(models.Model):
    """One model call: the raw text generated for one unit (a sentence) of a document."""

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="outputs")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="run_outputs")
    unit_index = models.PositiveIntegerField(help_text="Sentence index in the document.")
    unit_text = models.TextField()
    raw_output = models.TextField()

    class Meta:
        ordering = ["run", "document", "unit_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "document", "unit_index"], name="run_output_unique"
            )
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} · document {self.document_id} · unit {self.unit_index}"
