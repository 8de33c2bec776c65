"""Agreement figures of a project: computed once per inputs hash by a Celery task, cached.

Contract:
- ``agreement_for(project=, gold_standard=)`` returns the ``AgreementResult`` of the current
  inputs (``agreement.data.inputs_hash``), creating it and enqueueing
  ``evaluation.compute_agreement`` (queue ``default``) after commit when it is new. A changed
  annotation gives a new key, so a cached result is never stale; the page shows
  "computing…" until the new one is done, never a timeout.
- Concurrency: ``get_or_create`` under the unique (project, key) constraint, so concurrent
  requests share one row; (re)starting is a conditional UPDATE, so only one request enqueues.
- A result still pending or running after ``STUCK_AFTER`` (5 minutes: its worker died, or
  none ran; a large project takes seconds) is started again by the next request. A failed
  one is shown with its error and retried by a request after ``RETRY_FAILED_AFTER``, so a
  passing failure heals while a lasting one does not start a task per poll. A late
  duplicate computation is harmless: both write the same payload for the same key.
- ``compute(result_id)`` (the task body) marks the row running, computes every figure
  (``compute_payload``) and stores ``done`` with the payload, or ``failed`` with the error.
- Provenance: every figure entry (α, pairwise α, per-label α, Cohen's and Fleiss' κ, the
  F1 rows, co-occurrence, distributions, per-document α) records its ``metric``, the
  ``library`` (with its version) that computed it and its ``level``; F1 rows also their
  ``profile`` (``paper``). The payload adds the inputs ``hash``, the numbers of
  ``documents`` and ``annotators``, ``libraries`` and the ``gold_standard``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from itertools import combinations
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from fallacy_platform import dispatch

from annotations.models import GoldStandard, Project
from evaluation import queued
from evaluation.agreement.data import (
    CODE_VERSION,
    DocumentWork,
    ProjectWork,
    default_gold,
    inputs_hash,
    project_work,
)
from evaluation.models import AgreementResult
from evaluation.runs import stored
from evaluation.scoring import Corpus, TextGold, iaa, score_annotator
from evaluation.scoring import GoldSpan as ScoringGoldSpan

logger = logging.getLogger(__name__)

LEVELS = (0, 1, 2)
DISTANCES = ("masi", "jaccard")
OPTIONS: dict[str, Any] = {"levels": list(LEVELS), "distances": list(DISTANCES)}
STUCK_AFTER = timedelta(minutes=5)
PROFILE = "paper"  # the cross-comparison's scoring profile
RETRY_FAILED_AFTER = timedelta(minutes=1)


# --- the cache ---------------------------------------------------------------------------------


def _enqueue(result_id: int) -> None:
    """Queue the computation once this commits; when the broker refuses it, the pending
    result is deleted again (the next request queues it at once) and ``QueueUnavailable``
    is raised (the API's 503)."""
    dispatch.send_on_commit(
        queued.compute_agreement.s(result_id),
        undo=lambda reason: AgreementResult.objects.filter(
            pk=result_id, status=AgreementResult.Status.PENDING
        ).delete(),
    )


def agreement_for(
    *, project: Project, gold_standard: GoldStandard | None = None, start: bool = True
) -> AgreementResult:
    """The result for the project's current inputs (``gold_standard`` defaults to the latest
    published version); with ``start``, a new, stuck or failed one is (re)started."""
    gold = gold_standard if gold_standard is not None else default_gold(project)
    key = inputs_hash(project, gold, OPTIONS)
    with transaction.atomic():
        result, created = AgreementResult.objects.get_or_create(
            project=project, key=key, defaults={"gold_standard": gold, "options": OPTIONS}
        )
        if not start:
            return result
        if created:
            _enqueue(result.pk)
            return result
        now = timezone.now()
        restart = AgreementResult.objects.filter(pk=result.pk).filter(
            Q(status=AgreementResult.Status.PENDING, created_at__lt=now - STUCK_AFTER)
            | Q(status=AgreementResult.Status.RUNNING, started_at__lt=now - STUCK_AFTER)
            | Q(status=AgreementResult.Status.FAILED, finished_at__lt=now - RETRY_FAILED_AFTER)
        )
        if restart.update(status=AgreementResult.Status.PENDING, created_at=now, error=""):
            _enqueue(result.pk)
            result.refresh_from_db()
    return result


def compute(result_id: int) -> str:
    """The task body: compute and store every figure of the result's project."""
    updated = AgreementResult.objects.filter(
        pk=result_id, status__in=[AgreementResult.Status.PENDING, AgreementResult.Status.FAILED]
    ).update(status=AgreementResult.Status.RUNNING, started_at=timezone.now())
    result = (
        AgreementResult.objects.select_related("project__taxonomy", "gold_standard")
        .filter(pk=result_id)
        .first()
    )
    if result is None:
        return "missing"  # its project was deleted meanwhile
    if not updated and result.status != AgreementResult.Status.RUNNING:
        return result.status  # done already (a duplicate message)
    try:
        payload = compute_payload(result.project, result.gold_standard)
        payload["hash"] = result.key
    except Exception as error:  # stored and shown; the task itself succeeds
        logger.exception("agreement %s failed", result_id)
        AgreementResult.objects.filter(pk=result_id).update(
            status=AgreementResult.Status.FAILED,
            error=f"the computation failed ({type(error).__name__}; the operator's log has the"
            " details)",
            finished_at=timezone.now(),
        )
        return AgreementResult.Status.FAILED
    AgreementResult.objects.filter(pk=result_id).update(
        status=AgreementResult.Status.DONE, payload=payload, finished_at=timezone.now()
    )
    return AgreementResult.Status.DONE


def latest_done(project: Project) -> AgreementResult | None:
    return (
        AgreementResult.objects.filter(project=project, status=AgreementResult.Status.DONE)
        .order_by("-finished_at", "-pk")
        .first()
    )


def document_sort_keys(project: Project) -> dict[int, float | None]:
    """Per document, from the latest done result: its disagreement at level 2 (types), the
    share of its sentences whose annotators gave different label sets (``iaa.disagreement``;
    None with a single annotator). Documents not compared are absent."""
    result = latest_done(project)
    if result is None or not result.payload:
        return {}
    keys: dict[int, float | None] = {}
    for entry in result.payload.get("per_document", []):
        figures = entry["levels"].get("2", {})
        if "disagreement" in figures:
            keys[entry["document"]] = figures["disagreement"]["value"]
        else:  # a result of an earlier code version: the same share from its counts
            units, annotators = figures.get("units") or 0, figures.get("annotators") or 0
            agreed = figures.get("agreed_units") or 0
            keys[entry["document"]] = 1 - agreed / units if units and annotators > 1 else None
    return keys


def adjudication_order(project: Project) -> tuple[str, dict[int, float | None]]:
    """The adjudication queue's order (registered in ``annotations.orderings``): the state
    of the project's agreement figures (``done``, ``computing`` or ``failed``; a new result
    is started) and ``document_sort_keys`` (highest disagreement first)."""
    result = agreement_for(project=project)
    status = "done" if result.status == AgreementResult.Status.DONE else "computing"
    if result.status == AgreementResult.Status.FAILED:
        status = "failed"
    return status, document_sort_keys(project)


# --- the figures -------------------------------------------------------------------------------


def _units(work: ProjectWork, documents: Iterable[DocumentWork], level: int) -> dict:
    units: dict[tuple[int, int], dict[str, frozenset[str]]] = {}
    for document in documents:
        values = {
            str(annotator): iaa.unit_values(document.sentences, spans, work.mapping, level)
            for annotator, spans in document.spans.items()
        }
        for index in range(len(document.sentences)):
            units[(document.id, index)] = {name: row[index] for name, row in values.items()}
    return units


def library(name: str) -> str:
    """``"<package> <version>"`` of a library the figures come from (``iaa.LIBRARIES``)."""
    return f"{name} {iaa.LIBRARIES.get(name, '')}".strip()


# Provenance of each figure: its metric, the library (and version) computing it, its level.
# Krippendorff's alpha over sets: our vectorised formula with nltk's distances, equal to
# nltk's AnnotationTask.alpha (tests/evaluation/scoring/test_iaa.py).
ALPHA_LIBRARY = f"{library('nltk')} distance, vectorised alpha"
OWN_LIBRARY = f"evaluation.scoring {CODE_VERSION}"  # counts and the scorer: this code base


def provenance(metric: str, lib: str, level: int) -> dict[str, Any]:
    """The fields every figure entry carries (see the module docstring)."""
    return {"metric": metric, "library": lib, "level": level}


def _alpha_entry(result: iaa.AlphaResult, level: int, documents: int) -> dict[str, Any]:
    return {
        **provenance("krippendorff_alpha", ALPHA_LIBRARY, level),
        "distance": result.distance,
        "value": result.value,
        "units": result.units,
        "annotators": result.annotators,
        "documents": documents,
    }


def _pair_units(units: dict, a: str, b: str) -> dict:
    return {key: {a: row[a], b: row[b]} for key, row in units.items() if a in row and b in row}


def _pairwise_alphas(units: dict, names: list[str], level: int) -> list[dict[str, Any]]:
    """Krippendorff's alpha (MASI and Jaccard) of each pair of annotators sharing units."""
    pairwise = []
    for a, b in combinations(names, 2):
        pair = _pair_units(units, a, b)
        if not pair:
            continue
        masi, jaccard = iaa.alpha(pair, "masi"), iaa.alpha(pair, "jaccard")
        pairwise.append(
            {
                **provenance("krippendorff_alpha", ALPHA_LIBRARY, level),
                "distances": list(DISTANCES),
                "a": int(a),
                "b": int(b),
                "masi": masi.value,
                "jaccard": jaccard.value,
                "units": masi.units,
            }
        )
    return pairwise


def _label_entries(work: ProjectWork, units: dict, level: int) -> list[dict[str, Any]]:
    """Per label of the level: its nominal alpha and how many unit values name it."""
    labels = sorted(work.mapping.labels_at(level))
    present = {label: 0 for label in labels}
    for row in units.values():
        for value in row.values():
            for label in value:
                if label in present:
                    present[label] += 1
    label_alphas = iaa.label_alphas(units, labels)
    return [
        {
            "label": label,
            "alpha": label_alphas[label].value,
            "units": label_alphas[label].units,
            "present": present[label],
            **provenance("krippendorff_alpha", library("krippendorff"), level),
            "distance": "nominal",
        }
        for label in labels
    ]


def _level_figures(work: ProjectWork, level: int) -> dict[str, Any]:
    units = _units(work, work.documents, level)
    documents = len(work.documents)
    names = [str(annotator) for annotator in work.annotators]
    statsmodels = library("statsmodels")
    span_docs = [
        {
            str(annotator): iaa.level_spans(spans, work.mapping, level)
            for annotator, spans in document.spans.items()
        }
        for document in work.documents
    ]
    distribution = iaa.distribution(span_docs)
    return {
        "alpha": {
            distance: _alpha_entry(iaa.alpha(units, distance), level, documents)
            for distance in DISTANCES
        },
        "pairwise_alpha": _pairwise_alphas(units, names, level),
        "labels": _label_entries(work, units, level),
        "cohen_kappa": [
            {
                **provenance("cohen_kappa", statsmodels, level),
                **entry,
                "a": int(entry["a"]),
                "b": int(entry["b"]),
            }
            for entry in iaa.cohen_kappas(units)
        ],
        "fleiss_kappa": {
            **provenance("fleiss_kappa", statsmodels, level),
            **iaa.fleiss_kappa(units),
        },
        "cooccurrence": {
            **provenance("label_cooccurrence", OWN_LIBRARY, level),
            **iaa.cooccurrence(span_docs),
        },
        "distribution": {
            **provenance("label_distribution", OWN_LIBRARY, level),
            "labels": distribution["labels"],
            "annotators": {str(k): v for k, v in distribution["annotators"].items()},
        },
    }


def _per_document(work: ProjectWork) -> list[dict[str, Any]]:
    entries = []
    for document in work.documents:
        levels = {}
        for level in LEVELS:
            units = _units(work, [document], level)
            masi, jaccard = iaa.alpha(units, "masi"), iaa.alpha(units, "jaccard")
            agreed = sum(1 for row in units.values() if len(set(row.values())) == 1)
            differ = iaa.disagreement(units)
            levels[str(level)] = {
                **provenance("krippendorff_alpha", ALPHA_LIBRARY, level),
                "distances": list(DISTANCES),
                "masi": masi.value,
                "jaccard": jaccard.value,
                "units": len(units),
                "annotators": len(document.spans),
                "agreed_units": agreed,
                "disagreement": {
                    **provenance("sentence_disagreement", OWN_LIBRARY, level),
                    **differ.to_dict(),
                },
            }
        entries.append(
            {
                "document": document.id,
                "name": document.name,
                "position": document.position,
                "levels": levels,
            }
        )
    return entries


def _corpora(work: ProjectWork) -> dict[int, dict[int, TextGold]]:
    """Per annotator: document id -> their spans as a gold-shaped text. The scorer matches
    texts exactly, so of documents with the same text only the first is compared here
    (alpha and kappa still count every document's sentences)."""
    corpora: dict[int, dict[int, TextGold]] = {annotator: {} for annotator in work.annotators}
    seen: set[str] = set()
    for document in work.documents:
        if document.text in seen:
            continue
        seen.add(document.text)
        for annotator, spans in document.spans.items():
            corpora[annotator][document.id] = TextGold(
                document.text,
                tuple(ScoringGoldSpan(s, e, frozenset(labels)) for s, e, labels in spans),
                f"annotator {annotator} document {document.id}",
            )
    return corpora


def _headline(report: Any, level: int) -> dict[str, float]:
    scores = report.levels[level]
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}


def _cross_comparison(
    work: ProjectWork, gold_standard: GoldStandard | None
) -> dict[int, list[dict[str, Any]]]:
    """Disjunctive P/R/F1 (profile paper): each annotator against each other one as the
    gold on the documents both submitted, and against the gold version on the compared
    documents it covers."""
    options = {
        "levels": LEVELS,
        "mapping": work.mapping,
        "details": False,
        "bootstrap_resamples": 0,
    }
    rows: dict[int, list[dict[str, Any]]] = {level: [] for level in LEVELS}
    corpora = _corpora(work)

    def row(reference: int | str, scored: int, documents: int, report: Any, level: int) -> dict:
        return {
            **provenance("disjunctive_f1", OWN_LIBRARY, level),
            "profile": PROFILE,
            "reference": reference,
            "scored": scored,
            "documents": documents,
            **_headline(report, level),
        }

    for reference, scored in ((r, s) for r in corpora for s in corpora if r != s):
        common = [doc for doc in corpora[reference] if doc in corpora[scored]]
        if not common:
            continue
        report = score_annotator(
            Corpus([corpora[reference][doc] for doc in common]),
            Corpus([corpora[scored][doc] for doc in common]),
            **options,
        )
        for level in LEVELS:
            rows[level].append(row(reference, scored, len(common), report, level))
    if gold_standard is not None:
        gold = stored.gold_corpus(gold_standard)
        by_text = {text.text: text for text in gold.texts}
        for annotator, texts in corpora.items():
            covered = [text for text in texts.values() if text.text in by_text]
            if not covered:
                continue
            report = score_annotator(
                Corpus([by_text[text.text] for text in covered]), Corpus(covered), **options
            )
            for level in LEVELS:
                rows[level].append(row("gold", annotator, len(covered), report, level))
    return rows


def compute_payload(project: Project, gold_standard: GoldStandard | None) -> dict[str, Any]:
    """Every figure of the contract's payload (see the module docstring)."""
    work = project_work(project)
    f1 = _cross_comparison(work, gold_standard)
    levels = {}
    for level in LEVELS:
        figures = _level_figures(work, level)
        figures["f1"] = f1[level]
        levels[str(level)] = figures
    return {
        "libraries": dict(iaa.LIBRARIES),
        "annotators": [{"id": pk, "username": name} for pk, name in work.annotators.items()],
        "documents": len(work.documents),
        "gold_standard": (
            {"id": gold_standard.pk, "version": gold_standard.version} if gold_standard else None
        ),
        "levels": levels,
        "per_document": _per_document(work),
    }
