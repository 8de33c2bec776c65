"""Give today's prompt variants and Prolog rule files an owner.

Built-in rows (``builtin``) stay global (``project`` null): every project reads and launches
with them, superusers alone edit them. A user-created row goes to the one project that used
it: its runs (``ModelRun.prompt_variant``) and generation jobs (``GenerationJob.judge_variant``,
``GenerationJob.rule``). A row used by several projects, or by none, stays global: it is
superuser-editable only, and every project keeps reading it as before (assigning it to one
project would take it from the others' finished runs' pages; copying it would change which
row those runs point at).

Only the ``project`` column changes: every run and job keeps pointing at the row it used,
and the prompts stored with runs and their outputs are not touched.
"""

from django.db import migrations


def _sole_project(project_ids: set[int]) -> int | None:
    return next(iter(project_ids)) if len(project_ids) == 1 else None


def assign_owners(apps, schema_editor) -> None:
    PromptVariant = apps.get_model("evaluation", "PromptVariant")
    PrologRule = apps.get_model("evaluation", "PrologRule")
    ModelRun = apps.get_model("evaluation", "ModelRun")
    GenerationJob = apps.get_model("evaluation", "GenerationJob")
    for variant in PromptVariant.objects.filter(project__isnull=True, builtin=False):
        users = set(
            ModelRun.objects.filter(prompt_variant=variant).values_list("project_id", flat=True)
        )
        users |= set(
            GenerationJob.objects.filter(judge_variant=variant).values_list("project_id", flat=True)
        )
        owner = _sole_project(users)
        if owner is not None:
            PromptVariant.objects.filter(pk=variant.pk).update(project_id=owner)
    for rule in PrologRule.objects.filter(project__isnull=True, builtin=False):
        users = set(GenerationJob.objects.filter(rule=rule).values_list("project_id", flat=True))
        owner = _sole_project(users)
        if owner is not None:
            PrologRule.objects.filter(pk=rule.pk).update(project_id=owner)


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0013_shared_resource_owners")]

    operations = [migrations.RunPython(assign_owners, migrations.RunPython.noop)]
