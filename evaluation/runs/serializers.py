"""Serializers of the evaluation-jobs API (views in ``evaluation.runs.api``): prompt
variants, launch requests, runs with their shards and scores, a run's requests, and the
query parameters of the runs, requests and leaderboard endpoints (the launch form's options
are in ``runs.launch_options_serializers``).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from fallacy_platform.query import QuerySerializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError as DRFValidationError

from evaluation.benchmarks import TASKS, TaskError, VariantSpec, get_task
from evaluation.benchmarks.mafalda import MafaldaTask
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunScore, RunShard
from evaluation.runs.progress import Progress
from evaluation.runs.selectors import run_progress
from evaluation.scoring import PROFILES

LEVEL_CHOICES = (0, 1, 2)


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested errors as ``{field: [messages]}`` with paths the launch service uses:
    ``{"models": [{}, {"backend": [...]}]}`` -> ``{"models[1].backend": [...]}``."""
    flat: dict[str, list[str]] = {}

    def add(path: str, value: Any) -> None:
        for key, messages in flatten_errors(value, path).items():
            flat.setdefault(key, []).extend(messages)

    if isinstance(detail, dict):
        for key, value in detail.items():
            if isinstance(key, int):
                add(f"{prefix}[{key}]", value)
            elif key == "non_field_errors" and prefix:
                add(prefix, value)
            else:
                add(f"{prefix}.{key}" if prefix else str(key), value)
    elif isinstance(detail, list) and any(isinstance(item, dict | list) for item in detail):
        for index, item in enumerate(detail):
            if item:
                add(f"{prefix}[{index}]", item)
    elif isinstance(detail, list):
        flat[prefix or "non_field_errors"] = [str(item) for item in detail]
    else:
        flat[prefix or "non_field_errors"] = [str(detail)]
    return flat


# --- variants -------------------------------------------------------------------------------


class ParamsSerializer(serializers.Serializer):
    """Decoding parameters; keys outside these four are refused."""

    max_new_tokens = serializers.IntegerField(min_value=1, max_value=32768, required=False)
    temperature = serializers.FloatField(min_value=0, max_value=10, required=False)
    top_p = serializers.FloatField(min_value=0, max_value=1, required=False)
    seed = serializers.IntegerField(required=False)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                allowed = ", ".join(self.fields)
                raise DRFValidationError(
                    {key: [f"unknown parameter; allowed: {allowed}"] for key in unknown}
                )
        return super().to_internal_value(data)


def owner_project_field() -> serializers.IntegerField:
    """A shared resource's owning project, by id; null: global."""
    return serializers.IntegerField(
        source="project_id",
        required=False,
        allow_null=True,
        default=None,
        help_text="The owning project; null: global (a built-in, superusers edit).",
    )


class VariantSerializer(serializers.ModelSerializer):
    task = serializers.ChoiceField(choices=sorted(TASKS), default=MafaldaTask.name)
    decoding = ParamsSerializer(required=False, default=dict)
    project = owner_project_field()

    class Meta:
        model = PromptVariant
        fields = [
            "id",
            "task",
            "name",
            "version",
            "kind",
            "parser",
            "shots",
            "seed",
            "decoding",
            "unparseable",
            "description",
            "builtin",
            "project",
            "template",
            "created_at",
        ]
        read_only_fields = ["id", "version", "builtin", "created_at"]
        validators: list[Any] = []  # the version is chosen on create

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        spec = VariantSpec(
            name=attrs["name"],
            kind=attrs["kind"],
            template=attrs["template"],
            parser=attrs.get("parser", "keyword"),
            shots=attrs.get("shots", 0),
            seed=attrs.get("seed", 0),
            settings=dict(attrs.get("decoding") or {}),
            unparseable=attrs.get("unparseable", "wrong"),
        )
        try:
            get_task(attrs["task"]).check(spec)
        except TaskError as error:
            message = str(error)
            field = message.split(":", 1)[0]
            raise DRFValidationError(
                {field if field in ("template", "shots", "kind") else "template": [message]}
            ) from None
        return attrs


class VariantRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = PromptVariant
        fields = ["id", "name", "version", "kind"]


# --- launching ------------------------------------------------------------------------------


class ModelChoiceSerializer(serializers.Serializer):
    backend = serializers.CharField()
    model = serializers.CharField(allow_blank=True, default="", trim_whitespace=True)
    settings = serializers.DictField(default=dict)


class LaunchSerializer(serializers.Serializer):
    """A launch on a span project names a ``gold_standard``; on an item project, the form
    ``field`` the runs answer (their variants' task must answer that kind of question)."""

    project = serializers.IntegerField()
    gold_standard = serializers.IntegerField(required=False, allow_null=True, default=None)
    field = serializers.CharField(required=False, allow_blank=True, default="", max_length=64)
    models = ModelChoiceSerializer(many=True)
    prompt_variants = serializers.ListField(child=serializers.IntegerField())
    level = serializers.IntegerField(default=2)
    limit = serializers.IntegerField(allow_null=True, default=None)
    shards = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Parts each run is cut into; null: parts of about the backend's chunk size.",
    )
    params = ParamsSerializer(required=False, default=dict)
    name = serializers.CharField(required=False, allow_blank=True, max_length=180)


# --- runs -----------------------------------------------------------------------------------


class RunSerializer(serializers.ModelSerializer):
    """``Run``; ``config``, ``outputs_count`` and ``documents_count`` are kept from the
    first run list."""

    gold_version = serializers.IntegerField(
        source="gold_standard.version", read_only=True, allow_null=True
    )
    prompt_variant = VariantRefSerializer(read_only=True, allow_null=True)
    generation_seconds = serializers.SerializerMethodField()
    throughput = serializers.SerializerMethodField()
    eta_seconds = serializers.SerializerMethodField()
    phase = serializers.SerializerMethodField()
    imported = serializers.BooleanField(read_only=True)
    model_label = serializers.CharField(
        read_only=True,
        help_text="The model's readable name (from its config, GGUF file or folder name); "
        "model_name is what the backend loads (a path, a hub id or an API name).",
    )
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    can_manage = serializers.SerializerMethodField()
    outputs_count = serializers.IntegerField(read_only=True)
    documents_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = ModelRun
        fields = [
            "id",
            "name",
            "project",
            "gold_standard",
            "gold_version",
            "backend",
            "model_name",
            "model_label",
            "task",
            "field",
            "prompt_variant",
            "level",
            "limit",
            "shards",
            "status",
            "error",
            "total",
            "done",
            "generated",
            "generation_seconds",
            "throughput",
            "eta_seconds",
            "phase",
            "imported",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "can_manage",
            "config",
            "outputs_count",
            "documents_count",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_generation_seconds(self, run: ModelRun) -> float | None:
        return None if run.imported else run.generation_seconds

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_throughput(self, run: ModelRun) -> float | None:
        """Requests per second of generation (the batches' own time: the model load does not
        count), else, before any is measured, requests done per second since the start."""
        if run.generated > 0 and run.generation_seconds > 0:
            return run.generated / run.generation_seconds
        if run.started_at is None:
            return None
        seconds = ((run.finished_at or timezone.now()) - run.started_at).total_seconds()
        return run.done / seconds if seconds > 0 else None

    @staticmethod
    def _progress(run: ModelRun) -> Progress:
        if not hasattr(run, "_progress"):
            run._progress = run_progress(run)
        return run._progress

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_eta_seconds(self, run: ModelRun) -> float | None:
        """Seconds left while queued or running: the requests left times the seconds per
        request (an earlier run's before the first batch), plus, until the model is loaded,
        the rest of an earlier run's start-up and load (``runs.progress``)."""
        return self._progress(run).eta_seconds

    @extend_schema_field(
        serializers.ChoiceField(choices=["loading", "generating"], allow_null=True)
    )
    def get_phase(self, run: ModelRun) -> str | None:
        """While running: ``loading`` (the model), ``generating``, or null (queued, or the
        runner starting)."""
        return self._progress(run).phase

    @extend_schema_field(serializers.BooleanField())
    def get_can_manage(self, run: ModelRun) -> bool:
        admin_projects = self.context.get("admin_projects", set())
        return admin_projects is None or run.project_id in admin_projects


class ShardSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunShard
        fields = ["index", "status", "attempts", "error", "worker", "started_at", "finished_at"]


class LevelScoresSerializer(serializers.Serializer):
    precision = serializers.FloatField()
    recall = serializers.FloatField()
    f1 = serializers.FloatField()


class PrimarySerializer(serializers.Serializer):
    name = serializers.CharField()
    value = serializers.FloatField(allow_null=True)


class RunScoreSerializer(serializers.ModelSerializer):
    levels = serializers.SerializerMethodField()
    primary = serializers.SerializerMethodField()

    class Meta:
        model = RunScore
        fields = ["profile", "parser", "levels", "primary"]

    @extend_schema_field(PrimarySerializer(allow_null=True))
    def get_primary(self, score: RunScore) -> dict[str, Any] | None:
        """Item runs (profile ``items``): the report's primary figure; else null."""
        return score.report.get("primary")

    @extend_schema_field(serializers.DictField(child=LevelScoresSerializer()))
    def get_levels(self, score: RunScore) -> dict[str, dict[str, float]]:
        return {
            level: {metric: data[metric] for metric in ("precision", "recall", "f1")}
            for level, data in score.report.get("levels", {}).items()
        }


class RunDetailSerializer(RunSerializer):
    # the run states are documented once, on ``Run`` (one enum for both components)
    status = serializers.CharField(read_only=True, help_text="As in Run.")
    shards = ShardSerializer(source="run_shards", many=True, read_only=True)
    scores = RunScoreSerializer(many=True, read_only=True)

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "environment", "scores"]
        read_only_fields = fields


class LaunchResponseSerializer(serializers.Serializer):
    runs = RunSerializer(many=True)


# --- requests and the leaderboard -----------------------------------------------------------


class RunOutputSerializer(serializers.ModelSerializer):
    document_name = serializers.SerializerMethodField()
    answer = serializers.SerializerMethodField()
    parsed_labels = serializers.SerializerMethodField()
    prediction = serializers.JSONField(
        source="parsed_labels",
        read_only=True,
        help_text="What the parser read, in the run's answer shape (item runs: an option "
        "key, a label, a ranking, true/false, segments or a text; span runs: labels).",
    )
    unparseable = serializers.BooleanField(read_only=True)

    class Meta:
        model = RunOutput
        fields = [
            "id",
            "document",
            "document_name",
            "unit_index",
            "unit_text",
            "prompt",
            "raw_output",
            "answer",
            "parsed_labels",
            "prediction",
            "unparseable",
            "from_cache",
            "seconds",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField())
    def get_document_name(self, output: RunOutput) -> str:
        return output.document.external_id or f"document {output.document_id}"

    @extend_schema_field(serializers.ListField(child=serializers.CharField(), allow_null=True))
    def get_parsed_labels(self, output: RunOutput) -> list[str] | None:
        """The parsed answer as labels to show: span runs' labels as they are; an item
        run's prediction as text (a key, a label, "fallacious"/"sound", "label: passage"
        per segment, the explanation)."""
        value = output.parsed_labels
        if value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return value
        if isinstance(value, bool):
            return ["fallacious" if value else "sound"]
        if isinstance(value, list):
            text = output.document.text if output.document_id else ""
            return [
                f"{segment[2]}: {text[segment[0] : segment[1]]}"
                if isinstance(segment, list) and len(segment) == 3
                else str(segment)
                for segment in value
            ]
        return [str(value)]

    @extend_schema_field(serializers.CharField())
    def get_answer(self, output: RunOutput) -> str:
        """What the parser read: the raw output, or its answer part (reasoning removed)."""
        return output.raw_output if output.answer is None else output.answer


class RunsQuerySerializer(QuerySerializer):
    project = serializers.IntegerField(required=False, help_text="404 if not visible.")
    gold_standard = serializers.IntegerField(required=False)
    status = serializers.ChoiceField(choices=ModelRun.Status.choices, required=False)


class RequestsQuerySerializer(QuerySerializer):
    unparseable = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="Only (un)parseable outputs."
    )
    document = serializers.IntegerField(required=False, help_text="Only this document.")
    search = serializers.CharField(
        required=False, help_text="In the sentence or the raw output (case-insensitive)."
    )


#: ``A,B``: something before the first comma and something after it.
COMPARE_PATTERN = r"^[^,]*[^,\s][^,]*,.*\S.*$"


@extend_schema_field({"type": "string", "pattern": COMPARE_PATTERN})
class CompareField(serializers.CharField):
    """``A,B``: two leaderboard rows."""


class LeaderboardQuerySerializer(QuerySerializer):
    gold_standard = serializers.IntegerField()
    profile = serializers.ChoiceField(choices=PROFILES, default="paper")
    format = serializers.ChoiceField(choices=("json", "csv", "latex"), default="json")
    compare = CompareField(
        required=False,
        help_text="A,B: two rows (keys run:ID / annotator:ID, or names); the answer's "
        "compare holds the paired test of A minus B on their common texts.",
    )

    def validate_compare(self, value: str) -> tuple[str, str]:
        if not re.match(COMPARE_PATTERN, value):
            raise serializers.ValidationError("two rows are needed, as A,B (keys or names)")
        first, _, second = value.partition(",")
        return first.strip(), second.strip()
