"""Item runs: a model answering one form field of an item project, or judging texts.

Reads the run's items (documents of the project in order, the first ``run.limit``) as
``TaskItem`` objects, builds the task's prompts, parses outputs, and scores them
against the items' answer key (``Document.metadata["gold"][run.field]``).

- ``TaskItem``: ``gold`` is ``metadata["gold"][run.field]`` (``None`` when absent),
  ``options`` ``metadata["options"]``, ``reference`` the gold of the run's field when it
  is a free-text field, else of the form's first free-text field (the explanation),
  ``candidate`` ``metadata["candidate"]``; judge runs: see ``judged_candidates``.
- labels: the field's ``labels``, else the project taxonomy's type names; definitions
  come from the taxonomy's types of the same name (case-insensitive) when there are any.
- few-shot pool: every item of the project (not only the first ``limit``) with a gold
  answer; the task never draws the item asked about (``choose_examples``).
- parsing: the runner reads each answer as it is generated without knowing its item
  (``item_parser``: exact for every kind but segmentation, whose passages are located
  in the item text); scoring (``items.scorer``) parses every stored answer again with
  its item (``merged_parser``).
- profiles (``run_profiles``): ``definition`` (stored under the profile name ``items``,
  which judges, ratings, the Results tab and backups read; its report says
  ``"profile": "definition"``: ``profile_column``) and the profiles of the project's
  benchmark (``project_benchmark``: the form's ``benchmark`` key, set by the
  ``smartypat`` form preset; ``authors-smartypat``), stored under their own names
  (``evaluation.scoring.item_profiles``).
- coverage (``covered_items``): an imported run (published outputs, no prompt variant:
  ``items.imports``) is scored on the items it has outputs for; a launched run's items
  without an output count as wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from annotations.items import Form, FormError, FormField, parse_form
from annotations.models import Document, TaxonomyNode
from evaluation.benchmarks import TaskItem, TaskLabel, UnitPrompt, VariantSpec, get_task
from evaluation.models import ModelRun, RunOutput
from evaluation.scoring.item_profiles import BENCHMARK_PROFILES, DEFINITION, profiles_for

PROFILE = "items"
JUDGE_PREFIX = "judge"
#: Imported runs (published outputs, no prompt): unparseable answers count as wrong.
IMPORTED_SPEC = VariantSpec(name="imported", kind="zero-shot", template="")


def is_judge(run: ModelRun) -> bool:
    return run.task.startswith(JUDGE_PREFIX)


def run_form(run: ModelRun) -> Form:
    return parse_form(run.project.form)


def run_field(run: ModelRun) -> FormField | None:
    """The form field the run answers (``None``: a judge run without one)."""
    if not run.field and is_judge(run):
        return None
    return run_form(run).get(run.field)


def field_labels(project: Any, form_field: FormField | None) -> list[TaskLabel]:
    """The field's labels (its own, else the taxonomy's type names) with definitions."""
    nodes = TaxonomyNode.objects.filter(taxonomy_id=project.taxonomy_id, level=2).order_by(
        "parent__position", "position", "name"
    )
    definitions = {name.casefold(): text for name, text in nodes.values_list("name", "definition")}
    names = (
        form_field.labels_or(list(nodes.values_list("name", flat=True)))
        if form_field is not None
        else ()
    )
    return [TaskLabel(name, definitions.get(name.casefold(), "")) for name in names]


def label_aliases(project: Any, labels: list[str]) -> dict[str, str]:
    """The taxonomy's aliases of the given type names: ``{alias: name}``."""
    wanted = {name.casefold(): name for name in labels}
    aliases: dict[str, str] = {}
    for name, names in TaxonomyNode.objects.filter(
        taxonomy_id=project.taxonomy_id, level=2
    ).values_list("name", "aliases"):
        if name.casefold() in wanted:
            for alias in names or []:
                if alias.casefold() not in wanted:
                    aliases[alias] = wanted[name.casefold()]
    return aliases


def merged_parser(
    task: Any,
    form_field: FormField | None,
    labels: list[str],
    aliases: dict[str, str] | None = None,
) -> Callable[[str, TaskItem], Any | None]:
    """``task.parse`` that also reads the field's raw labels and merges them, as gold is
    merged at import (FLUB's authors map predictions through the same table): an answer
    naming a raw type counts as its merged label, not as unparseable. ``aliases`` (the
    taxonomy's, ``{alias: name}``) are read the same way."""
    merge = {**(aliases or {}), **(dict(form_field.merge) if form_field is not None else {})}
    readable = [*labels, *(raw for raw in merge if raw not in labels)]

    def parse(answer: str, item: TaskItem) -> Any | None:
        value = task.parse(answer, item=item, labels=readable)
        if not merge:
            return value
        if isinstance(value, str):
            return merge.get(value, value)
        if isinstance(value, list):
            return list(dict.fromkeys(merge.get(v, v) if isinstance(v, str) else v for v in value))
        return value

    return parse


def _reference_field(form: Form, form_field: FormField | None) -> str | None:
    if form_field is not None and form_field.kind == "free-text":
        return form_field.name
    free = form.of_kind("free-text")
    return free[0].name if free else None


def project_items(run: ModelRun, *, limit: int | None = None) -> list[TaskItem]:
    """The project's items in document order (the first ``limit``)."""
    try:
        form = run_form(run)
        form_field = run_field(run)
    except FormError:
        form, form_field = Form(), None
    reference = _reference_field(form, form_field)
    documents = Document.objects.filter(project_id=run.project_id).order_by("position", "id")
    rows = documents.values_list("id", "text", "metadata", "external_id")
    if limit:
        rows = rows[:limit]
    items = []
    for pk, text, metadata, external_id in rows:
        metadata = metadata or {}
        gold = metadata.get("gold") or {}
        items.append(
            TaskItem(
                id=pk,
                text=text,
                gold=gold.get(run.field) if run.field else None,
                options={str(k): str(v) for k, v in (metadata.get("options") or {}).items()},
                reference=str(gold.get(reference) or "") if reference else "",
                candidate=str(metadata.get("candidate") or ""),
                extra={
                    "external_id": external_id,
                    "format": metadata.get("format", ""),
                    "gold_text": (metadata.get("gold_text") or {}).get(run.field),
                },
            )
        )
    return items


def judged_candidates(run: ModelRun, items: list[TaskItem]) -> list[TaskItem]:
    """Judge runs: each item's ``candidate`` is what the judged run answered for it (its
    parsed free text; else the answer it read, else the raw output), or, without a
    judged run (or for an item it did not answer), the item's metadata candidate."""
    if not is_judge(run) or run.judged_run_id is None:
        return items
    answered: dict[int, str] = {}
    for document_id, parsed, answer, raw in (
        RunOutput.objects.filter(run_id=run.judged_run_id, unit_index=0)
        .order_by("document_id")
        .values_list("document_id", "parsed_labels", "answer", "raw_output")
    ):
        answered[document_id] = parsed if isinstance(parsed, str) else (answer or raw)
    return [
        replace(item, candidate=answered[item.id]) if item.id in answered else item
        for item in items
    ]


def run_spec(run: ModelRun) -> VariantSpec:
    """The variant as the task sees it; a judge run's ``config["repeats"]`` overrides the
    variant's number of repeats. An imported run has none: ``IMPORTED_SPEC``."""
    if run.prompt_variant_id is None:
        return IMPORTED_SPEC
    spec = run.prompt_variant.spec()
    if "repeats" in (run.config or {}):
        spec = replace(spec, settings={**spec.settings, "repeats": run.config["repeats"]})
    return spec


def run_items(run: ModelRun) -> list[TaskItem]:
    return judged_candidates(run, project_items(run, limit=run.limit))


def item_prompts(run: ModelRun) -> list[UnitPrompt]:
    """Every request of an item run, in item order."""
    task = get_task(run.prompt_variant.task)
    spec = run_spec(run)
    form_field = run_field(run)
    examples = project_items(run) if spec.kind == "few-shot" else []
    return list(
        task.prompts(
            run_items(run),
            labels=field_labels(run.project, form_field),
            variant=spec,
            examples=[e for e in examples if e.gold is not None],
        )
    )


def item_parser(run: ModelRun) -> Callable[[str], Any | None]:
    """Reads one answer (reasoning already removed) into the run's prediction shape,
    without its item: multiple-choice options are the union of the items' keys, and a
    segmentation answer is unparseable until scoring reads it with its item."""
    task = get_task(run.task)
    form_field = run_field(run)
    labels = [label.name for label in field_labels(run.project, form_field)]
    read = merged_parser(task, form_field, labels)
    keys: dict[str, str] = {}
    if task.answers == "multiple-choice":
        for item in project_items(run, limit=run.limit):
            keys.update(dict.fromkeys(item.options, ""))
    generic = TaskItem(id=0, text="", options=keys)

    def parse(answer: str) -> Any | None:
        if task.answers == "segmentation":
            return None
        return read(answer, generic)

    return parse


def project_benchmark(project: Any) -> str | None:
    """The published benchmark a project reproduces: its form's ``benchmark`` (set by the
    ``smartypat`` form preset), else its taxonomy's name when that is a benchmark with
    profiles of its own (for a form without a ``benchmark`` key)."""
    named = (project.form or {}).get("benchmark") if isinstance(project.form, dict) else None
    if named:
        return str(named)
    name = project.taxonomy.name if project.taxonomy_id else ""
    return name if name in BENCHMARK_PROFILES else None


def profile_column(name: str) -> str:
    """The ``RunScore.profile`` value of an item profile: ``definition`` is stored as
    ``items`` (what judges, ratings, the Results tab and backups read), others by name."""
    return PROFILE if name == DEFINITION else name


def profile_of_column(column: str) -> str:
    return DEFINITION if column == PROFILE else column


def run_profiles(run: ModelRun) -> list[str]:
    """The profiles a run is scored under: ``definition``, then its benchmark's."""
    return profiles_for(project_benchmark(run.project))


def covered_items(
    run: ModelRun, items: list[TaskItem], answered: Collection[int]
) -> list[TaskItem]:
    """The items a run is scored on: all of them for a launched run (an item without an
    output counts as wrong), the items with an output for an imported run."""
    return [item for item in items if item.id in answered] if run.imported else items
