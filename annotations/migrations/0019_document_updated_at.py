"""``Document.updated_at``: written by every save of a document (the inputs fingerprint of
stored result boards compares it, ``evaluation.results``). Nullable without a default, so
both databases add the column in place (SQLite does not rebuild the table: its triggers
stay); documents not saved since their bulk import keep none."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0018_annotator_counters"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="updated_at",
            field=models.DateTimeField(
                blank=True,
                editable=False,
                help_text="Last save of the document (its answer key, position…); none: not "
                "saved since its bulk import.",
                null=True,
            ),
        ),
    ]
