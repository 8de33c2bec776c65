"""Drop the sentence table's own index on document_id: the unique (document, index)
constraint's index leads with the same column and serves every lookup by document, and a
bulk import of plain texts writes ~30 sentences per document into each index."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0008_sqlite_gold_triggers"),
    ]

    operations = [
        migrations.AlterField(
            model_name="sentence",
            name="document",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="sentences",
                to="annotations.document",
            ),
        ),
    ]
