"""Stored data as the scoring package's in-memory objects (reads only, bounded queries).

- ``gold_corpus``: a gold standard version -> ``Corpus`` (one ``TextGold`` per covered
  document; a document without gold spans is an empty gold: "no fallacy").
- ``run_predictions``: a stored run's raw outputs -> per-sentence ``Predictions``.
- ``annotator_corpus`` / ``annotator_predictions``: a human's SUBMITTED annotations.

How a human is scored (mirrors ``scoring.read_annotator`` + ``score_annotator`` on doccano
files): the annotator's spans form a corpus exactly like a gold standard (a span's labels
are its alternatives; ⊥ among them makes it optional when the human is the reference).
Scored as predictions, every non-⊥ alternative of a span is one predicted span on its
range (``scoring.as_predictions``): listing alternatives costs precision when some are
wrong, and ⊥ alternatives predict nothing.

Texts come in document order (``position``, then id); spans in creation order, which is
the order importers read them from files (the ``mafalda-2024`` profile depends on it).
Labels are the project taxonomy's canonical names, so ``taxonomy_mapping`` (built from the
taxonomy tree) maps them to levels 1 and 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, QuerySet
from django.db.models.functions import Coalesce

from annotations.models import (
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Span,
    Taxonomy,
    TaxonomyNode,
)
from evaluation.models import ModelRun, RunOutput
from evaluation.scoring import (
    NO_FALLACY,
    Corpus,
    LevelMapping,
    Predictions,
    SentenceOutput,
    TextGold,
    TextPrediction,
    as_predictions,
    normalise_label,
    published_mafalda_mapping,
    taxonomy_parser,
)
from evaluation.scoring import GoldSpan as ScoringGoldSpan
from evaluation.scoring.parsers import OutputParser


def taxonomy_mapping(taxonomy: Taxonomy) -> LevelMapping:
    """Level mapping of a stored taxonomy: each type to its category, aliases included."""
    type_to_category: dict[str, str] = {}
    aliases: dict[str, str] = {}
    nodes = TaxonomyNode.objects.filter(taxonomy=taxonomy, level=TaxonomyNode.Level.TYPE)
    for name, category, node_aliases in nodes.values_list("name", "parent__name", "aliases"):
        type_to_category[name] = category
        aliases.update((alias, name) for alias in node_aliases)
    return LevelMapping(
        type_to_category, aliases, name=f"taxonomy:{taxonomy.name}@{taxonomy.version}"
    )


def is_mafalda_taxonomy(taxonomy: Taxonomy) -> bool:
    """Whether every type of the taxonomy is a type of the published MAFALDA table under the
    same category (the ``mafalda-2024`` profile scores only such taxonomies)."""
    types = taxonomy_mapping(taxonomy).type_to_category
    published = published_mafalda_mapping().type_to_category
    return bool(types) and all(published.get(name) == parent for name, parent in types.items())


def span_profiles(taxonomy: Taxonomy, level: int) -> list[str]:
    """The profiles a span run at ``level`` is scored with: ``paper`` (the definition, at
    each level of any taxonomy), and ``mafalda-2024`` for level-2 runs on MAFALDA's."""
    if level == 2 and is_mafalda_taxonomy(taxonomy):
        return ["paper", "mafalda-2024"]
    return ["paper"]


def parser_name(run: ModelRun) -> str:
    """The parser a span run's outputs are read with: its prompt variant's; for an imported
    run, the one its import recorded (a harness log's variant), else ``keyword``."""
    if run.prompt_variant_id:
        return run.prompt_variant.parser
    return str((run.config or {}).get("parser") or "keyword")


def span_parser(taxonomy: Taxonomy, name: str, level: int = 2) -> str | OutputParser:
    """The parser ``name`` for outputs at ``level`` of a run on ``taxonomy``: on MAFALDA's,
    the registered parser (its name); on any other, one reading that taxonomy's labels
    (``scoring.taxonomy_parser``)."""
    if is_mafalda_taxonomy(taxonomy):
        return name
    mapping = taxonomy_mapping(taxonomy)
    aliases = dict(mapping.aliases) if level == 2 else {}
    return taxonomy_parser(name, sorted(mapping.labels_at(level)), aliases)


def _labels(labels: list[str]) -> frozenset[str]:
    return frozenset(normalise_label(label) for label in labels)


def gold_document_ids(gold_standard: GoldStandard) -> QuerySet:
    """Ids of the documents a gold version covers (a subquery)."""
    return GoldDocument.objects.filter(gold_standard=gold_standard).values("document_id")


def gold_corpus(gold_standard: GoldStandard) -> Corpus:
    """Every document of the version as a ``TextGold`` (2 queries)."""
    spans: dict[int, list[ScoringGoldSpan]] = defaultdict(list)
    rows = GoldSpan.objects.filter(gold_standard=gold_standard).order_by("id")
    for document_id, start, end, labels in rows.values_list(
        "document_id", "start", "end", "labels"
    ):
        spans[document_id].append(ScoringGoldSpan(start, end, _labels(labels)))
    documents = (
        GoldDocument.objects.filter(gold_standard=gold_standard)
        .order_by("document__position", "document_id")
        .values_list("document_id", "document__text")
    )
    prefix = f"gold {gold_standard.project_id}/v{gold_standard.version}"
    return Corpus(
        [
            TextGold(text, tuple(spans.get(document_id, ())), f"{prefix} document {document_id}")
            for document_id, text in documents
        ],
        source=prefix,
    )


def gold_document_ids_in_order(gold_standard: GoldStandard) -> list[tuple[int, str]]:
    """(document id, text) of the version's documents in ``gold_corpus`` order."""
    return list(
        GoldDocument.objects.filter(gold_standard=gold_standard)
        .order_by("document__position", "document_id")
        .values_list("document_id", "document__text")
    )


def covered_document_ids(run: ModelRun) -> set[int]:
    """The documents the run has at least one output for."""
    return set(RunOutput.objects.filter(run=run).values_list("document_id", flat=True).distinct())


def _level_representatives(run: ModelRun) -> dict[str, str]:
    """For a run prompted at level 1 or 0: each of its labels -> one type under it, so
    that mapping the type back up gives the label (runs are scored at levels <= theirs)."""
    mapping = taxonomy_mapping(run.project.taxonomy)
    representatives: dict[str, str] = {}
    for type_name, category in sorted(mapping.type_to_category.items()):
        representatives.setdefault(category, type_name)
        representatives.setdefault("fallacy", type_name)
    return representatives


def run_predictions(run: ModelRun, *, gold_standard: GoldStandard | None = None) -> Predictions:
    """The run's outputs, one ``TextPrediction`` of sentences per document (2 queries).

    A sentence's output is what the parser reads (``answer``, else the raw output); for
    a run prompted at level 1 or 0, its parsed labels stand for types of those labels.
    With ``gold_standard``, only the documents that version covers.
    """
    outputs = RunOutput.objects.filter(run=run)
    if gold_standard is not None:
        outputs = outputs.filter(document_id__in=gold_document_ids(gold_standard))
    lifted = run.prompt_variant_id is not None and run.level < 2
    representatives = _level_representatives(run) if lifted else {}
    sentences: dict[int, list[SentenceOutput]] = {}
    rows = outputs.order_by("document__position", "document_id", "unit_index").values_list(
        "document_id", "unit_text", Coalesce("answer", "raw_output"), "parsed_labels"
    )
    for document_id, unit_text, output, parsed in rows:
        if lifted:
            output = (
                frozenset(
                    NO_FALLACY if label == NO_FALLACY else representatives.get(label, label)
                    for label in parsed
                )
                if parsed is not None
                else ""
            )
        sentences.setdefault(document_id, []).append(SentenceOutput(unit_text, output))
    texts = Document.objects.in_bulk(list(sentences), field_name="pk")
    return Predictions(
        [
            TextPrediction(
                texts[document_id].text,
                sentences=tuple(units),
                origin=f"run {run.pk} document {document_id}",
            )
            for document_id, units in sentences.items()
        ],
        source=f"run {run.pk} ({run.name})",
    )


def submitted_annotations(
    project: Project,
    annotator: AbstractBaseUser | int,
    *,
    gold_standard: GoldStandard | None = None,
    document_ids: Collection[int] | None = None,
) -> QuerySet[Annotation]:
    """The annotator's submitted annotations in the project, in document order."""
    annotations = Annotation.objects.filter(
        annotator=annotator, status=Annotation.Status.SUBMITTED, document__project=project
    )
    if gold_standard is not None:
        annotations = annotations.filter(document_id__in=gold_document_ids(gold_standard))
    if document_ids is not None:
        annotations = annotations.filter(document_id__in=document_ids)
    return annotations.order_by("document__position", "document_id")


def annotator_corpus(
    project: Project,
    annotator: AbstractBaseUser | int,
    gold_standard: GoldStandard | None = None,
    *,
    document_ids: Collection[int] | None = None,
) -> Corpus:
    """The annotator's submitted spans as a gold-shaped corpus (2 queries).

    Only the documents they submitted (restricted to ``gold_standard``'s documents and to
    ``document_ids`` when given); a submitted document without spans is "no fallacy".
    """
    annotations = (
        submitted_annotations(
            project, annotator, gold_standard=gold_standard, document_ids=document_ids
        )
        .select_related("document")
        .only("id", "document__id", "document__text")
        .prefetch_related(
            Prefetch(
                "spans",
                queryset=Span.objects.order_by("id").only(
                    "annotation_id", "start", "end", "labels"
                ),
            )
        )
    )
    annotator_id = annotator if isinstance(annotator, int) else annotator.pk
    return Corpus(
        [
            TextGold(
                annotation.document.text,
                tuple(
                    ScoringGoldSpan(span.start, span.end, _labels(span.labels))
                    for span in annotation.spans.all()
                ),
                f"annotator {annotator_id} document {annotation.document_id}",
            )
            for annotation in annotations
        ],
        source=f"annotator {annotator_id} in project {project.pk}",
    )


def annotator_predictions(
    project: Project,
    annotator: AbstractBaseUser | int,
    gold_standard: GoldStandard | None = None,
    *,
    document_ids: Collection[int] | None = None,
) -> Predictions:
    """The annotator's submitted spans as predictions: one per non-⊥ alternative."""
    return as_predictions(
        annotator_corpus(project, annotator, gold_standard, document_ids=document_ids)
    )


def restrict(corpus: Corpus, texts: Collection[str]) -> Corpus:
    """The corpus limited to ``texts`` (same order)."""
    wanted = set(texts)
    return Corpus(
        [gold for gold in corpus.texts if gold.text in wanted], corpus.dropped, corpus.source
    )
