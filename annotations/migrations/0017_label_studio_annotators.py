"""Label Studio annotators: the platform user holding each one's work, per project."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0016_invitations"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LabelStudioAnnotator",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "source_id",
                    models.CharField(
                        blank=True,
                        default="",
                        help_text="The Label Studio user id ('' unknown).",
                        max_length=64,
                    ),
                ),
                ("email", models.CharField(blank=True, default="", max_length=254)),
                (
                    "invitation",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="annotations.invitation",
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="label_studio_annotators",
                        to="annotations.project",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("source_id", ""), _negated=True),
                        fields=("project", "source_id"),
                        name="label_studio_annotator_id_unique",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("source_id", ""), _negated=True),
                            models.Q(("email", ""), _negated=True),
                            _connector="OR",
                        ),
                        name="label_studio_annotator_named",
                    ),
                ],
            },
        ),
    ]
