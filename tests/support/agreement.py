"""Agreement figures checked against nltk, krippendorff and statsmodels called directly, on
units built from the stored sentences and spans without the platform's code."""

from __future__ import annotations

from importlib import metadata

import krippendorff
import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

from annotations.labels import NO_FALLACY
from annotations.models import Annotation, Project
from evaluation.agreement import jobs as agreement_jobs
from evaluation.runs.stored import taxonomy_mapping


def independent_units(project: Project, level: int) -> list[tuple[str, str, frozenset]]:
    """(coder, unit, value) triples built from the stored rows, without the platform's code."""
    mapping = taxonomy_mapping(project.taxonomy)
    triples = []
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "annotator"
    ):
        spans = list(annotation.spans.values_list("start", "end", "labels"))
        for sentence in annotation.document.sentences.all():
            value = frozenset(
                mapping.map_label(label, level)
                for start, end, labels in spans
                if start < sentence.end and sentence.start < end
                for label in labels
                if label != NO_FALLACY
            ) or frozenset({NO_FALLACY})
            unit = f"{annotation.document_id}:{sentence.index}"
            triples.append((annotation.annotator.username, unit, value))
    return triples


def _installed(package: str) -> str:
    return f"{package} {metadata.version(package)}"


def assert_provenance(payload: dict, level: int) -> None:
    """Every figure entry of the level records its metric, library (with the installed
    version) and level; F1 rows their profile; the payload its inputs hash and counts."""
    figures = payload["levels"][str(level)]
    nltk, statsmodels = _installed("nltk"), _installed("statsmodels")
    own = f"evaluation.scoring {agreement_jobs.CODE_VERSION}"

    def check(entry: dict, metric: str, library: str, where: str) -> None:
        assert entry["metric"] == metric, where
        assert entry["library"] == library or entry["library"].startswith(library + " "), where
        assert entry["level"] == level, where

    assert len(payload["hash"]) == 64
    assert payload["documents"] >= 1 and payload["annotators"]
    for distance, entry in figures["alpha"].items():
        check(entry, "krippendorff_alpha", nltk, f"alpha {distance}")
        assert entry["distance"] == distance
        assert entry["documents"] == payload["documents"]
    assert figures["pairwise_alpha"], "no pairwise alpha"
    for entry in figures["pairwise_alpha"]:
        check(entry, "krippendorff_alpha", nltk, "pairwise alpha")
        assert entry["distances"] == ["masi", "jaccard"]
    assert figures["labels"], "no per-label alpha"
    for entry in figures["labels"]:
        check(entry, "krippendorff_alpha", _installed("krippendorff"), entry["label"])
        assert entry["distance"] == "nominal"
    assert figures["cohen_kappa"], "no Cohen's kappa"
    for entry in figures["cohen_kappa"]:
        check(entry, "cohen_kappa", statsmodels, "Cohen's kappa")
    check(figures["fleiss_kappa"], "fleiss_kappa", statsmodels, "Fleiss' kappa")
    assert figures["f1"], "no cross-comparison"
    for row in figures["f1"]:
        check(row, "disjunctive_f1", own, f"F1 {row['reference']} {row['scored']}")
        assert row["profile"] == "paper"
    check(figures["cooccurrence"], "label_cooccurrence", own, "co-occurrence")
    check(figures["distribution"], "label_distribution", own, "distribution")
    for document in payload["per_document"]:
        check(document["levels"][str(level)], "krippendorff_alpha", nltk, document["name"])


def assert_library_figures(payload: dict, triples: list, level: int) -> None:
    """The payload's level figures equal nltk's, krippendorff's and statsmodels' on ``triples``,
    and each records where it comes from (``assert_provenance``)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    assert_provenance(payload, level)
    figures = payload["levels"][str(level)]
    coders = sorted({c for c, _, _ in triples})
    units = sorted({u for _, u, _ in triples})
    value = {(c, u): v for c, u, v in triples}
    for distance, function in (("masi", masi_distance), ("jaccard", jaccard_distance)):
        expected = AnnotationTask(data=triples, distance=function).alpha()
        entry = figures["alpha"][distance]
        assert entry["value"] == pytest.approx(expected, abs=1e-9), distance
        assert (entry["units"], entry["annotators"]) == (len(units), len(coders))
        assert entry["documents"] == payload["documents"]
        assert entry["metric"] == "krippendorff_alpha" and entry["level"] == level
        assert entry["library"].startswith("nltk ")
    # per-label binary alpha, krippendorff called directly
    for row in figures["labels"]:
        data = np.array([[float(row["label"] in value[(c, u)]) for u in units] for c in coders])
        assert row["present"] == int(data.sum()), row["label"]
        if data.max() == data.min():
            assert row["alpha"] is None
        else:
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
            assert row["alpha"] == pytest.approx(expected, abs=1e-9), row["label"]
    # Cohen's kappa per pair over set values as categories, statsmodels called directly
    ids = {a["username"]: a["id"] for a in payload["annotators"]}
    by_pair = {(e["a"], e["b"]): e for e in figures["cohen_kappa"]}
    assert len(by_pair) == len(coders) * (len(coders) - 1) // 2
    for i, a in enumerate(coders):
        for b in coders[i + 1 :]:
            categories = sorted({value[(c, u)] for c in (a, b) for u in units}, key=sorted)
            table = np.zeros((len(categories), len(categories)))
            for u in units:
                table[categories.index(value[(a, u)]), categories.index(value[(b, u)])] += 1
            entry = by_pair.get((ids[a], ids[b])) or by_pair[(ids[b], ids[a])]
            assert entry["units"] == len(units)
            expected = cohens_kappa(table, return_results=False)
            if np.isnan(expected):
                assert entry["kappa"] is None
            else:
                assert entry["kappa"] == pytest.approx(expected, abs=1e-9), (a, b)
