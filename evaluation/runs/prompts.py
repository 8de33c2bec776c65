"""Reads that turn a run into its requests: the task's inputs from the database.

- the documents: those of the run's gold version, in document order, the first
  ``run.limit`` of them; a document's units are its stored sentences, in order;
- the labels: the project taxonomy's nodes at the run's level, with their definitions;
- the few-shot pool: every sentence of the version's documents with its gold answer at
  the level (the labels of the gold spans overlapping it by at least one character, or
  "no fallacy"); the task never draws an example from the document being asked about.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from annotations.models import GoldSpan, GoldStandard, Sentence, TaxonomyNode
from evaluation.benchmarks import (
    Example,
    TaskDocument,
    TaskLabel,
    UnitPrompt,
    get_task,
    is_item_task,
)
from evaluation.benchmarks.mafalda import NO_FALLACY_ANSWER
from evaluation.models import ModelRun
from evaluation.runs.stored import (
    is_mafalda_taxonomy,
    parser_name,
    span_parser,
    taxonomy_mapping,
)
from evaluation.scoring import NO_FALLACY, UNREADABLE, LevelMapping, get_parser, make_parser
from evaluation.scoring.parsers import OutputParser


def gold_documents(gold_standard: GoldStandard, limit: int | None = None) -> list[TaskDocument]:
    """The version's documents with their sentences as units (2 queries)."""
    documents = list(
        gold_standard.documents.order_by("position", "id").values_list("id", "text")[:limit]
        if limit
        else gold_standard.documents.order_by("position", "id").values_list("id", "text")
    )
    units: dict[int, list[str]] = defaultdict(list)
    texts = dict(documents)
    rows = Sentence.objects.filter(document_id__in=list(texts)).order_by("document_id", "index")
    for document_id, start, end in rows.values_list("document_id", "start", "end"):
        units[document_id].append(texts[document_id][start:end])
    return [TaskDocument(pk, text, tuple(units[pk])) for pk, text in documents]


def task_labels(gold_standard: GoldStandard, level: int) -> list[TaskLabel]:
    nodes = TaxonomyNode.objects.filter(
        taxonomy_id=gold_standard.project.taxonomy_id, level=level
    ).order_by("parent__position", "position", "name")
    return [
        TaskLabel(name, definition) for name, definition in nodes.values_list("name", "definition")
    ]


def _answer(labels: set[str], mapping: LevelMapping, level: int) -> str:
    mapped = {mapping.map_label(label, level) for label in labels if label != NO_FALLACY}
    return ", ".join(sorted(mapped)) if mapped else NO_FALLACY_ANSWER


def example_pool(
    gold_standard: GoldStandard, documents: list[TaskDocument], level: int
) -> list[Example]:
    """Every unit of ``documents`` with its gold answer at ``level``."""
    mapping = taxonomy_mapping(gold_standard.project.taxonomy)
    spans: dict[int, list[tuple[int, int, list[str]]]] = defaultdict(list)
    for document_id, start, end, labels in GoldSpan.objects.filter(
        gold_standard=gold_standard
    ).values_list("document_id", "start", "end", "labels"):
        spans[document_id].append((start, end, labels))
    ranges = defaultdict(list)
    for document_id, start, end in (
        Sentence.objects.filter(document_id__in=[d.id for d in documents])
        .order_by("document_id", "index")
        .values_list("document_id", "start", "end")
    ):
        ranges[document_id].append((start, end))
    pool = []
    for document in documents:
        for start, end in ranges[document.id]:
            labels = {
                label.lower()
                for s, e, span_labels in spans[document.id]
                if s < end and start < e
                for label in span_labels
            }
            pool.append(
                Example(
                    document.id,
                    document.text,
                    document.text[start:end],
                    _answer(labels, mapping, level),
                )
            )
    return pool


# How item runs build their requests and read their answers (``evaluation.items.runs``),
# registered when the app loads, so that runs imports nothing of items.
_ITEM_REQUESTS: dict[str, Callable[[ModelRun], Any]] = {}


def register_item_requests(
    *,
    prompts: Callable[[ModelRun], list[UnitPrompt]],
    parser: Callable[[ModelRun], Callable[[str], Any]],
) -> None:
    _ITEM_REQUESTS.update(prompts=prompts, parser=parser)


def _item_hook(name: str) -> Callable[[ModelRun], Any]:
    if name not in _ITEM_REQUESTS:
        raise LookupError("item runs' requests are not registered (evaluation.apps)")
    return _ITEM_REQUESTS[name]


def item_answer_parser(run: ModelRun) -> Callable[[str], Any]:
    """How an item run's answer becomes its prediction."""
    return _item_hook("parser")(run)


def run_prompts(run: ModelRun) -> list[UnitPrompt]:
    """Every request of the run, in document and unit order."""
    if is_item_task(run.task):
        return _item_hook("prompts")(run)
    gold = run.gold_standard
    task = get_task(run.prompt_variant.task)
    variant = run.prompt_variant.spec()
    documents = gold_documents(gold, run.limit)
    examples = (
        example_pool(gold, gold_documents(gold), run.level) if variant.kind == "few-shot" else ()
    )
    return list(
        task.prompts(
            documents,
            labels=task_labels(gold, run.level),
            variant=variant,
            level=run.level,
            examples=examples,
        )
    )


# --- reading answers --------------------------------------------------------------------


def run_parser(run: ModelRun) -> OutputParser:
    """The parser of the run's variant, reading the labels of the run's level."""
    name = parser_name(run)
    taxonomy = run.project.taxonomy  # an imported run may have no gold version
    if not is_mafalda_taxonomy(taxonomy):
        parser = span_parser(taxonomy, name, run.level)
        return get_parser(parser) if isinstance(parser, str) else parser
    if name == "keyword":
        return get_parser("keyword")
    gold = run.gold_standard
    level_labels = [label.name for label in task_labels(gold, run.level)]
    aliases = taxonomy_mapping(gold.project.taxonomy).aliases if run.level == 2 else {}
    return make_parser(name, labels=level_labels, aliases=dict(aliases))


def parse_answer(parser: OutputParser, answer: str, *, run: ModelRun, mapping: LevelMapping):
    """The answer's labels at the run's level (sorted), or ``None`` when unparseable."""
    parsed = parser.parse(answer)
    if parsed == UNREADABLE:
        return None
    if run.level == 2 or parser.name != "keyword":
        return sorted(parsed)
    # the keyword parser reads type names: lift them to the run's level
    lifted = set()
    for label in parsed:
        try:
            lifted.add(label if label == NO_FALLACY else mapping.map_label(label, run.level))
        except Exception:  # noqa: BLE001 - a type outside the taxonomy cannot be lifted
            continue
    return sorted(lifted) if lifted else None
