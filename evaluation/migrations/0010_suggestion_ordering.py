"""Suggestions, admin side: the queue ordering option (documents where runs disagree first)
with the runs turned into suggestions and a per-document disagreement score, and the record
of suggestions shown to annotators (the report's time with and without suggestions)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def remember_runs(apps, schema_editor):
    """Runs that already have suggestions are the project's suggesting runs (their scores
    are computed when suggestions are next created)."""
    Suggestion = apps.get_model("evaluation", "Suggestion")
    SuggestionSettings = apps.get_model("evaluation", "SuggestionSettings")
    pairs = Suggestion.objects.values_list("run__project_id", "run_id").distinct()
    for project_id, run_id in pairs:
        row, _ = SuggestionSettings.objects.get_or_create(project_id=project_id)
        row.runs.add(run_id)


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0008_sqlite_gold_triggers"),
        ("evaluation", "0009_prolog_generation"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="suggestionsettings",
            name="ordering",
            field=models.CharField(
                choices=[
                    ("position", "project order"),
                    ("disagreement", "documents where runs disagree first"),
                ],
                default="position",
                help_text="Annotators' queue (next document, default document list order): "
                "project order, or documents where the suggesting runs disagree first.",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="suggestionsettings",
            name="runs",
            field=models.ManyToManyField(
                blank=True,
                help_text="Runs turned into suggestions for the project (their disagreement "
                "orders the queue).",
                related_name="+",
                to="evaluation.modelrun",
            ),
        ),
        migrations.CreateModel(
            name="DocumentDisagreement",
            fields=[
                (
                    "document",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="suggestion_disagreement",
                        serialize=False,
                        to="annotations.document",
                    ),
                ),
                (
                    "score",
                    models.PositiveIntegerField(
                        help_text="Sentences where the suggesting runs differ."
                    ),
                ),
                (
                    "runs",
                    models.PositiveIntegerField(
                        help_text="Suggesting runs that answered the document."
                    ),
                ),
                ("computed_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["-score", "document"],
            },
        ),
        migrations.CreateModel(
            name="SuggestionShown",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("shown_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotations.document",
                    ),
                ),
            ],
            options={
                "ordering": ["document", "annotator"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("document", "annotator"), name="suggestion_shown_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(remember_runs, migrations.RunPython.noop),
    ]
