"""Model runs: prompt variants, runs and their shards, every request's prompt and output,
the cross-run generation cache, and stored score reports.

Invariants the database enforces: run names unique per project, valid states, one output
per (run, document, unit), one cache row per request key, one report per (run, profile),
variant (task, name, version) unique per owner. A variant used by a run is never edited: an
admin copies it to a new version (``PromptVariant.save`` refuses the change).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotations.models import Document, GoldStandard, Project
from evaluation.backends.model_names import cached_display_name
from evaluation.benchmarks import VARIANT_KINDS, VariantSpec
from evaluation.benchmarks.items import UNPARSEABLE_POLICIES
from evaluation.scoring import PARSER_NAMES

VARIANT_CONTENT_FIELDS = (
    "task",
    "kind",
    "template",
    "parser",
    "shots",
    "seed",
    "decoding",
    "unparseable",
)


def owner_project() -> models.ForeignKey:
    """The project owning a shared resource (prompt variant, rule file); none: global."""
    return models.ForeignKey(
        Project,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text="The owning project; none: global (built-in, superusers edit).",
    )


class PromptVariant(models.Model):
    """A versioned prompt template of a task (stored data, not code)."""

    task = models.CharField(max_length=64, default="mafalda")
    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField(default=1)
    kind = models.CharField(max_length=32, choices=[(k, k) for k in VARIANT_KINDS])
    template = models.TextField()
    parser = models.CharField(
        max_length=32, choices=[(p, p) for p in PARSER_NAMES], default="keyword"
    )
    shots = models.PositiveSmallIntegerField(default=0, help_text="Few-shot examples.")
    seed = models.IntegerField(default=0, help_text="Seeds the choice of few-shot examples.")
    decoding = models.JSONField(
        default=dict, blank=True, help_text="Decoding settings of the variant (max_new_tokens…)."
    )
    unparseable = models.CharField(
        max_length=16,
        choices=[(policy, policy) for policy in UNPARSEABLE_POLICIES],
        default="wrong",
        help_text="Item tasks: an unparseable output counts as wrong, or as a seeded random "
        "valid answer; either way the count is reported.",
    )
    description = models.TextField(blank=True)
    builtin = models.BooleanField(default=False)
    project = owner_project()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "task", "name", "version"],
                name="prompt_variant_project_version_unique",
            ),
            models.UniqueConstraint(
                fields=["task", "name", "version"],
                condition=Q(project__isnull=True),
                name="prompt_variant_global_version_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task}/{self.name} v{self.version}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and self.runs.exists():
            stored = PromptVariant.objects.filter(pk=self.pk).values(*VARIANT_CONTENT_FIELDS)[0]
            changed = [f for f in VARIANT_CONTENT_FIELDS if stored[f] != getattr(self, f)]
            if changed:
                raise ValidationError(
                    f"prompt variant {self} is used by runs; copy it to a new version "
                    f"instead of changing {', '.join(changed)}"
                )
        super().save(*args, **kwargs)

    def spec(self) -> VariantSpec:
        return VariantSpec(
            name=f"{self.name}@{self.version}",
            kind=self.kind,
            template=self.template,
            parser=self.parser,
            shots=self.shots,
            seed=self.seed,
            settings=dict(self.decoding or {}),
            unparseable=self.unparseable,
        )


class ModelRun(models.Model):
    """One model with one prompt variant over the texts of a gold version (or imported)."""

    class Status(models.TextChoices):
        CREATED = "created", "created"
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        SCORING = "scoring", "scoring"
        DONE = "done", "done"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"

    ACTIVE = (Status.CREATED, Status.QUEUED, Status.RUNNING, Status.SCORING)

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    gold_standard = models.ForeignKey(
        GoldStandard, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    name = models.CharField(max_length=200)
    backend = models.CharField(max_length=64, blank=True, help_text="e.g. vllm, transformers")
    model_name = models.CharField(max_length=255, blank=True)
    task = models.CharField(max_length=64, default="mafalda-span")
    # RESTRICT: kept while used, deleted with its project together with the project's runs
    prompt_variant = models.ForeignKey(
        PromptVariant, on_delete=models.RESTRICT, null=True, blank=True, related_name="runs"
    )
    level = models.PositiveSmallIntegerField(default=2)
    field = models.CharField(
        max_length=64, blank=True, help_text="Item projects: the form field the run answers."
    )
    judged_run = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="judge_runs",
        help_text="Judge runs: the run whose outputs are judged (none: the items' candidates).",
    )
    limit = models.PositiveIntegerField(
        null=True, blank=True, help_text="Only the first N texts of the gold version."
    )
    shards = models.PositiveSmallIntegerField(default=1)
    config = models.JSONField(
        default=dict, blank=True, help_text="Backend settings, generation parameters, seed."
    )
    environment = models.JSONField(
        default=dict, blank=True, help_text="Versions, device, git commit of the runners."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    cancel_requested = models.BooleanField(default=False)
    total = models.PositiveIntegerField(default=0, help_text="Requests of the run.")
    done = models.PositiveIntegerField(default=0, help_text="Requests with an output.")
    generated = models.PositiveIntegerField(
        default=0, help_text="Requests this run sent to the model (the rest came from cache)."
    )
    generation_seconds = models.FloatField(default=0.0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    scoring_heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written by the worker scoring the run while it scores."
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="model_run_name_unique"),
            models.CheckConstraint(
                condition=Q(
                    status__in=[
                        "created",
                        "queued",
                        "running",
                        "scoring",
                        "done",
                        "failed",
                        "cancelled",
                    ]
                ),
                name="model_run_status_valid",
            ),
            models.CheckConstraint(condition=Q(shards__gte=1), name="model_run_shards_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def imported(self) -> bool:
        return self.prompt_variant_id is None

    @property
    def model_label(self) -> str:
        """The model's readable name, never its path (``backends.model_names``); "" when the
        run names no model (baselines)."""
        gguf_file = str(((self.config or {}).get("settings") or {}).get("gguf_file") or "")
        return cached_display_name(self.model_name, gguf_file)


class RunShard(models.Model):
    """A part of a run's requests that one GPU worker processes (shard i of K)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="run_shards")
    index = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    runner_pid = models.IntegerField(null=True, blank=True)
    worker = models.CharField(max_length=255, blank=True)
    node = models.CharField(
        max_length=255,
        blank=True,
        help_text="The Celery worker whose runner holds it (its name and main process).",
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    requeues = models.PositiveSmallIntegerField(
        default=0, help_text="Times the sweep queued it again after its worker died."
    )
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written by the shard's supervisor while it runs."
    )

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="run_shard_unique"),
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} shard {self.index}"


class RunOutput(models.Model):
    """One model call: the prompt and raw text generated for one unit (a sentence)."""

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="outputs")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="run_outputs")
    unit_index = models.PositiveIntegerField(help_text="Sentence index in the document.")
    unit_text = models.TextField()
    raw_output = models.TextField()
    prompt = models.TextField(blank=True)
    answer = models.TextField(
        null=True, blank=True, help_text="What the parser read (reasoning removed); null: raw."
    )
    parsed_labels = models.JSONField(
        null=True, blank=True, help_text="The parser's labels; null when unparseable."
    )
    cache_key = models.CharField(max_length=64, blank=True, db_index=True)
    from_cache = models.BooleanField(default=False)
    seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["run", "document", "unit_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "document", "unit_index"], name="run_output_unique"
            )
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} · document {self.document_id} · unit {self.unit_index}"

    @property
    def unparseable(self) -> bool:
        return self.parsed_labels is None


class GenerationCache(models.Model):
    """Every generated output, keyed by the hash of everything that determines it
    (backend, model, weights fingerprint, prompt, guided labels, decoding parameters,
    seed): the same request is never sent twice, across runs too."""

    key = models.CharField(max_length=64, unique=True)
    output = models.TextField()
    backend = models.CharField(max_length=64)
    model_name = models.CharField(max_length=255)
    seconds = models.FloatField(default=0.0)
    run = models.ForeignKey(
        ModelRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.backend}:{self.model_name} {self.key[:12]}"


class RunScore(models.Model):
    """A run's stored score report under one profile (all levels, per-label tables)."""

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="scores")
    gold_standard = models.ForeignKey(
        GoldStandard,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text="None for item runs (their gold is the items' answer key).",
    )
    profile = models.CharField(max_length=32)
    parser = models.CharField(max_length=32, blank=True)
    report = models.JSONField()
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "gold_standard", "profile"], name="run_score_unique"
            ),
            models.UniqueConstraint(
                fields=["run", "profile"],
                condition=Q(gold_standard__isnull=True),
                name="run_score_item_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run} · {self.profile}"
