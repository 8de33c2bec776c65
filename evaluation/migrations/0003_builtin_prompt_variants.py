"""Seed the built-in MAFALDA prompt variants (version 1 of each), as stored data."""

from django.db import migrations


def seed(apps, schema_editor):
    from evaluation.benchmarks.mafalda import BUILTIN_VARIANTS, MafaldaTask

    PromptVariant = apps.get_model("evaluation", "PromptVariant")
    for spec in BUILTIN_VARIANTS:
        PromptVariant.objects.get_or_create(
            task=MafaldaTask.name,
            name=spec.name,
            version=1,
            defaults={
                "kind": spec.kind,
                "template": spec.template,
                "parser": spec.parser,
                "shots": spec.shots,
                "seed": spec.seed,
                "decoding": dict(spec.settings),
                "builtin": True,
                "description": f"Built-in {spec.kind} prompt of the MAFALDA per-sentence protocol.",
            },
        )


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0002_evaluation_jobs")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
