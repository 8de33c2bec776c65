"""The uploaded bytes of an import job move to a table of their own (``ImportUpload``)."""

from django.db import migrations, models


def move_contents(apps, schema_editor) -> None:
    job_model = apps.get_model("annotations", "ImportJob")
    upload_model = apps.get_model("annotations", "ImportUpload")
    unfinished = job_model.objects.filter(status__in=["queued", "running"]).exclude(content=b"")
    for job_id, content in unfinished.values_list("pk", "content").iterator():
        upload_model.objects.create(job_id=job_id, content=content)


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0012_document_names_not_hashes"),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportUpload",
            fields=[
                (
                    "job",
                    models.OneToOneField(
                        on_delete=models.deletion.CASCADE,
                        primary_key=True,
                        related_name="upload",
                        serialize=False,
                        to="annotations.importjob",
                    ),
                ),
                ("content", models.BinaryField()),
            ],
        ),
        migrations.RunPython(move_contents, migrations.RunPython.noop),
        migrations.RemoveField(model_name="importjob", name="content"),
    ]
