"""Stored result boards (``StoredBoard``): the computed body of an item project's results
or a gold version's leaderboard per query, with the fingerprint of its inputs."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0017_label_studio_annotators"),
        ("evaluation", "0015_generation_scoring_heartbeat"),
    ]

    operations = [
        migrations.CreateModel(
            name="StoredBoard",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("items", "item project results"),
                            ("gold", "gold version leaderboard"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "scope",
                    models.PositiveIntegerField(
                        help_text="The project (items) or gold version (gold)."
                    ),
                ),
                (
                    "query",
                    models.CharField(help_text="sha256 of the canonical query.", max_length=64),
                ),
                ("query_text", models.TextField(help_text="The canonical query (JSON).")),
                (
                    "fingerprint",
                    models.CharField(help_text="sha256 of the inputs' state.", max_length=64),
                ),
                ("body", models.TextField(help_text="The board as the API sends it (JSON).")),
                (
                    "seconds",
                    models.FloatField(default=0.0, help_text="How long computing it took."),
                ),
                ("computed_at", models.DateTimeField()),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotations.project",
                    ),
                ),
                (
                    "gold_standard",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotations.goldstandard",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("kind", "scope", "query"), name="stored_board_unique"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("kind__in", ["items", "gold"])),
                        name="stored_board_kind_valid",
                    ),
                ],
            },
        ),
    ]
