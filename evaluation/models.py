"""Evaluation data: prompt variants, model runs and their shards, every request's prompt
and output, the cross-run generation cache, and stored score reports.

Invariants the database enforces: run names unique per project, valid states, one output
per (run, document, unit), one cache row per request key, one report per (run, profile),
variant (task, name, version) unique per owner. A variant used by a run is never edited: an
admin copies it to a new version (``PromptVariant.save`` refuses the change).

Prompt variants (and ``PrologRule`` files) belong to a project (its own copies, made by its
admins) or are global (``project`` null: the built-ins, editable by superusers only); a
project reads and launches with its own plus the global ones (``evaluation.ownership``).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotations.models import Document, GoldStandard, Project
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
    attempts = models.PositiveSmallIntegerField(default=0)
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


class SuggestionSettings(models.Model):
    """Whether a project is *assisted*: its annotators are shown the model suggestions.

    No row means unassisted (the default, for agreement studies and human baselines): the
    API then serves no suggestion to annotators."""

    class Ordering(models.TextChoices):
        POSITION = "position", "project order"
        DISAGREEMENT = "disagreement", "documents where runs disagree first"

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, primary_key=True, related_name="suggestion_settings"
    )
    assisted = models.BooleanField(default=False)
    ordering = models.CharField(
        max_length=16,
        choices=Ordering.choices,
        default=Ordering.POSITION,
        help_text="Annotators' queue (next document, default document list order): project "
        "order, or documents where the suggesting runs disagree first.",
    )
    runs = models.ManyToManyField(
        ModelRun,
        blank=True,
        related_name="+",
        help_text="Runs turned into suggestions for the project (their disagreement orders "
        "the queue).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"project {self.project_id}: {'assisted' if self.assisted else 'unassisted'}"


class Suggestion(models.Model):
    """A finished run's labels for one sentence unit of a document, offered to annotators.

    A suggestion is never an annotation: agreement, adjudication, gold and the leaderboard
    read spans only, and a suggestion becomes one only when an annotator accepts it (a span
    of their own, see ``evaluation.suggestions.services``)."""

    run = models.ForeignKey(ModelRun, on_delete=models.CASCADE, related_name="suggestions")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="suggestions")
    unit_index = models.PositiveIntegerField(help_text="Sentence index in the document.")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    labels = models.JSONField(help_text="Canonical fallacy types (never only 'no fallacy').")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "start", "run"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "document", "unit_index"], name="suggestion_unique"
            ),
            models.CheckConstraint(condition=Q(end__gt=models.F("start")), name="suggestion_range"),
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} · document {self.document_id} · unit {self.unit_index}"


class SuggestionDecision(models.Model):
    """One annotator's accept or reject of a suggestion (one per suggestion and annotator)."""

    class Decision(models.TextChoices):
        ACCEPT = "accept", "accept"
        REJECT = "reject", "reject"

    suggestion = models.ForeignKey(Suggestion, on_delete=models.CASCADE, related_name="decisions")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    decision = models.CharField(max_length=8, choices=Decision.choices)
    decided_at = models.DateTimeField(default=timezone.now)
    # not a foreign key: deleting a span (the annotation API's hot path) touches nothing here
    span_id = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Accepted: the id of the span the accept made (the annotator "
        "may have edited or deleted it since).",
    )

    class Meta:
        ordering = ["suggestion", "annotator"]
        constraints = [
            models.UniqueConstraint(
                fields=["suggestion", "annotator"], name="suggestion_decision_unique"
            ),
            models.CheckConstraint(
                condition=Q(decision__in=["accept", "reject"]), name="suggestion_decision_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.decision} of suggestion {self.suggestion_id} by {self.annotator_id}"


class DocumentDisagreement(models.Model):
    """How much the runs turned into suggestions disagree on a document, stored when
    suggestions are created (``evaluation.suggestions.services``) so that ordering the queue
    reads one row per document instead of every suggestion.

    ``score`` counts the document's sentences where the suggesting runs that answered the
    sentence do not all give the same set of fallacy types (a run that answered with no
    fallacy, ⊥ or an unparseable answer gives the empty set: one run suggesting and another
    not is a disagreement). No row: score 0."""

    document = models.OneToOneField(
        Document,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="suggestion_disagreement",
    )
    score = models.PositiveIntegerField(help_text="Sentences where the suggesting runs differ.")
    runs = models.PositiveIntegerField(help_text="Suggesting runs that answered the document.")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-score", "document"]

    def __str__(self) -> str:
        return f"document {self.document_id}: {self.score} disagreeing sentences"


class SuggestionShown(models.Model):
    """The first time the API served suggestions of a document to an annotator it is
    assigned to, in an assisted project (the report's "with suggestions" annotations)."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    shown_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["document", "annotator"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "annotator"], name="suggestion_shown_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"document {self.document_id} shown to {self.annotator_id}"


from evaluation.generation_models import (  # noqa: E402,F401
    GeneratedItem,
    GenerationJob,
    GenerationRelease,
    PrologRule,
)
