from django.db import migrations
from django.db.models import F

from annotations.naming import is_opaque_id, readable_name


def rename_hashed(apps, schema_editor):
    """Documents named by an opaque external id (a content hash, a UUID: FLUB's 40 hex
    digits) get their first words as name (``annotations.naming``). Reads the names of the
    documents named by their external id, and the text of those to rename only."""
    Document = apps.get_model("annotations", "Document")
    named = Document.objects.filter(name=F("external_id")).exclude(external_id="")
    ids = [pk for pk, eid in named.values_list("pk", "external_id").iterator() if is_opaque_id(eid)]
    for start in range(0, len(ids), 500):
        batch = list(
            Document.objects.filter(pk__in=ids[start : start + 500]).only("text", "external_id")
        )
        for document in batch:
            document.name = readable_name(document.text, document.external_id)
        Document.objects.bulk_update(batch, ["name"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0011_project_justification_templates"),
    ]

    operations = [migrations.RunPython(rename_hashed, migrations.RunPython.noop)]
