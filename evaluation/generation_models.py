"""Prolog-checked generation: versioned rule files and generation jobs.

Imported at the end of ``evaluation.models`` (so Django registers the models with the
``evaluation`` app); the work is in ``evaluation.synthesis.services``.

- ``PrologRule``: one version of a fallacy type's rule file (``evaluation.prolog``). Rows
  are never edited: a change is a new version (``save_rule_version`` refuses a file with
  any swipl error or warning). Version 1 of each shipped file is seeded by migration 0009
  (``builtin``). A rule belongs to a project (its own copies) or is global (``project``
  null: superusers edit); a job uses its project's newest version, else the global newest.
- ``GenerationJob``: one generation of items for a type with a model, ``prolog`` (facts
  asked of the model, parsed, checked by the oracle, then turned into sentences) or
  ``direct`` (sentences from the definition and examples); stage counters, the rejections
  by reason and the judge's scores, and the items it created.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotations.models import Document, Project
from evaluation.models import PromptVariant, owner_project


class PrologRule(models.Model):
    """One version of a fallacy type's rule file (never edited once saved)."""

    type = models.CharField(max_length=100, help_text="The fallacy type (the file's %! type).")
    version = models.PositiveIntegerField(default=1)
    source = models.TextField()
    builtin = models.BooleanField(default=False)
    project = owner_project()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["type", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "type", "version"], name="prolog_rule_project_version_unique"
            ),
            models.UniqueConstraint(
                fields=["type", "version"],
                condition=Q(project__isnull=True),
                name="prolog_rule_global_version_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} v{self.version}"


class GenerationJob(models.Model):
    """Items generated for one type with one model (see the module docstring)."""

    class Method(models.TextChoices):
        PROLOG = "prolog", "prolog"
        DIRECT = "direct", "direct"

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    rule = models.ForeignKey(PrologRule, on_delete=models.RESTRICT, related_name="jobs")
    method = models.CharField(max_length=8, choices=Method.choices, default=Method.PROLOG)
    backend = models.CharField(max_length=64)
    model_name = models.CharField(max_length=255, blank=True)
    backend_settings = models.JSONField(default=dict, blank=True, help_text="No key.")
    judge_variant = models.ForeignKey(
        PromptVariant, on_delete=models.RESTRICT, null=True, blank=True, related_name="+"
    )
    n = models.PositiveIntegerField(default=20, help_text="Facts (or sentences) asked for.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    proposed = models.PositiveIntegerField(default=0, help_text="Clauses the model proposed.")
    valid = models.PositiveIntegerField(default=0, help_text="Ground facts kept.")
    rejected = models.PositiveIntegerField(default=0)
    rejections = models.JSONField(default=dict, blank=True, help_text="Rejections by reason.")
    satisfying = models.PositiveIntegerField(default=0, help_text="Combinations the rule keeps.")
    items_kept = models.PositiveIntegerField(default=0)
    requests_sent = models.PositiveIntegerField(default=0)
    from_cache = models.PositiveIntegerField(default=0)
    report = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written by the worker running the job while it runs."
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(method__in=["prolog", "direct"]), name="generation_job_method"
            )
        ]

    def __str__(self) -> str:
        return f"generation {self.pk} · {self.rule} · {self.method}"


class GeneratedItem(models.Model):
    """An item a job produced: the document (a sentence another job already added stays
    that job's document, so several jobs may link one document), the satisfying
    combination it renders (prolog) and the judge's scores."""

    job = models.ForeignKey(GenerationJob, on_delete=models.CASCADE, related_name="items")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="generated_from")
    position = models.PositiveIntegerField()
    bindings = models.JSONField(default=dict, blank=True, help_text="{query variable: value}")
    facts = models.JSONField(default=list, blank=True, help_text="The facts it rests on.")
    scores = models.JSONField(default=list, blank=True, help_text="Judge scores (None: unread).")
    # the human review: accept (optionally with an edited sentence) or reject
    review = models.CharField(
        max_length=8,
        choices=[("pending", "pending"), ("accepted", "accepted"), ("rejected", "rejected")],
        default="pending",
    )
    edited_text = models.TextField(blank=True, help_text="The reviewer's sentence, if edited.")
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "position"]
        constraints = [
            models.UniqueConstraint(fields=["job", "position"], name="generated_item_unique")
        ]

    def __str__(self) -> str:
        return f"job {self.job_id} item {self.position}"


class GenerationRelease(models.Model):
    """A published gold version of a project's reviewed generated items.

    Item projects keep their answer key in ``Document.metadata["gold"]`` (what item runs,
    the item leaderboard and the exports read); they have no gold versions of their own. A
    release is therefore a new item project (``gold_project``, same form and taxonomy)
    holding every item accepted so far (the reviewer's sentence when edited) with the
    intended type as gold: a frozen snapshot that runs and exports read like any item
    project. ``version`` counts the source project's releases."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    gold_project = models.ForeignKey(
        Project, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    items = models.PositiveIntegerField(default=0)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="generation_release_unique")
        ]

    def __str__(self) -> str:
        return f"{self.project} generated gold v{self.version}"
