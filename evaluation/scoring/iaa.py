"""Inter-annotator agreement over sentence units (pure Python: no Django).

A *unit* is a sentence; each annotator's *value* for it is the set of labels of their spans
overlapping it by at least one character, at one level of the taxonomy (⊥ alternatives
dropped), ``{⊥}`` when none does (``unit_values``). ``Units`` maps a unit key to
``{annotator: value}``; annotators may be missing from some units.

- ``alpha(units, "masi" | "jaccard")``: Krippendorff's α for set values with nltk's MASI or
  Jaccard distance. The canonical coincidence-matrix formula (units with fewer than two
  values are unpairable and ignored), which is what nltk's ``AnnotationTask.alpha`` computes
  (checked against it in ``tests/test_iaa.py``), vectorised with numpy over units of the
  same size and distinct values (``bench/agreement.py`` times both). ``value`` is None when
  α is undefined: no pairable unit, or no expected disagreement (a single value throughout;
  nltk returns 1.0 there).
- ``label_alphas``: per label, binary α (present / absent per unit) via the ``krippendorff``
  package, nominal level.
- ``cohen_kappas``: Cohen's κ per annotator pair over the units both coded, each distinct
  value set being one nominal category (statsmodels ``cohens_kappa``).
- ``fleiss_kappa``: Fleiss' κ (statsmodels) when every unit has the same number (≥ 2) of
  annotators; otherwise None with the reason.
- ``cooccurrence`` and ``distribution``: counts over spans (per document, per annotator):
  how often two labels are given to overlapping spans of *different* annotators (the
  candidates for alternatives), and how often each annotator gives each label.
- ``LIBRARIES``: the versions of the libraries the figures come from.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from itertools import combinations

import numpy as np

from evaluation.scoring.core import NO_FALLACY
from evaluation.scoring.levels import LevelMapping

Value = frozenset[str]
Units = Mapping[Hashable, Mapping[str, Value]]
SpansByAnnotator = Mapping[str, Sequence[tuple[int, int, Iterable[str]]]]
BOTTOM: Value = frozenset({NO_FALLACY})
DISTANCES = ("masi", "jaccard")


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:  # pragma: no cover - declared dependencies
        return "unknown"


LIBRARIES: dict[str, str] = {
    name: _version(name) for name in ("nltk", "krippendorff", "statsmodels", "numpy")
}


@lru_cache(maxsize=65536)
def _distance(kind: str, a: Value, b: Value) -> float:
    from nltk.metrics.distance import jaccard_distance, masi_distance

    if a == b:
        return 0.0
    return float((masi_distance if kind == "masi" else jaccard_distance)(set(a), set(b)))


def unit_values(
    sentences: Sequence[tuple[int, int]],
    spans: Iterable[tuple[int, int, Iterable[str]]],
    mapping: LevelMapping | None,
    level: int,
) -> list[Value]:
    """One annotator's value for each sentence (see the module docstring)."""
    mapped = []
    for start, end, labels in spans:
        names = [label for label in labels if label != NO_FALLACY]
        if mapping is not None:
            names = [mapping.map_label(label, level) for label in names]
        if names:
            mapped.append((start, end, frozenset(names)))
    values = []
    for s_start, s_end in sentences:
        found: set[str] = set()
        for start, end, labels in mapped:
            if start < s_end and s_start < end:
                found |= labels
        values.append(frozenset(found) if found else BOTTOM)
    return values


@dataclass(frozen=True)
class AlphaResult:
    value: float | None
    units: int  # pairable units (at least two values)
    annotators: int
    distance: str


def alpha(units: Units, distance: str = "masi") -> AlphaResult:
    """Krippendorff's α over set values (see the module docstring)."""
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; available: {', '.join(DISTANCES)}")
    coders: set[str] = set()
    index: dict[Value, int] = {}
    by_size: dict[int, list[list[int]]] = {}
    for row in units.values():
        if len(row) < 2:
            continue
        coders.update(row)
        ids = [index.setdefault(value, len(index)) for value in row.values()]
        by_size.setdefault(len(ids), []).append(ids)
    pairable = sum(len(rows) for rows in by_size.values())
    if not pairable:
        return AlphaResult(None, 0, len(coders), distance)
    values = list(index)
    size = len(values)
    table = np.zeros((size, size))
    for i, j in combinations(range(size), 2):
        table[i, j] = table[j, i] = _distance(distance, values[i], values[j])
    observed = 0.0
    totals = np.zeros(size)
    for m, rows in by_size.items():
        ids = np.array(rows)  # units with m values, one column per value
        totals += np.bincount(ids.ravel(), minlength=size)
        pairs = sum(table[ids[:, a], ids[:, b]].sum() for a, b in combinations(range(m), 2))
        observed += 2 * pairs / (m - 1)
    n = totals.sum()
    expected = float(totals @ table @ totals) / (n - 1)
    if expected == 0:
        return AlphaResult(None, pairable, len(coders), distance)
    return AlphaResult(1.0 - observed / expected, pairable, len(coders), distance)


def _nan_to_none(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def label_alphas(units: Units, labels: Iterable[str]) -> dict[str, AlphaResult]:
    """Binary α per label via the ``krippendorff`` package (None: undefined)."""
    import krippendorff

    coders = sorted({coder for row in units.values() for coder in row})
    rows = [row for row in units.values() if len(row) >= 2]
    position = {coder: i for i, coder in enumerate(coders)}
    index: dict[Value, int] = {}
    ids = np.full((len(coders), len(rows)), -1)
    for j, row in enumerate(rows):
        for coder, value in row.items():
            ids[position[coder], j] = index.setdefault(value, len(index))
    labels = list(labels)
    # presence[v, l]: value v holds label l; a last row of NaN for missing values
    presence = np.full((len(index) + 1, len(labels)), np.nan)
    for value, v in index.items():
        presence[v] = [1.0 if label in value else 0.0 for label in labels]
    results: dict[str, AlphaResult] = {}
    for k, label in enumerate(labels):
        data = presence[ids, k]  # -1 picks the NaN row
        value = None
        if rows and np.nanmax(data) != np.nanmin(data):
            value = _nan_to_none(
                krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
            )
        results[label] = AlphaResult(value, len(rows), len(coders), "nominal")
    return results


def _category(value: Value) -> str:
    return " | ".join(sorted(value))


def cohen_kappas(units: Units) -> list[dict]:
    """Cohen's κ of each pair of annotators over the units both coded (statsmodels)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    coders = sorted({coder for row in units.values() for coder in row})
    out = []
    for a, b in combinations(coders, 2):
        pairs = [(row[a], row[b]) for row in units.values() if a in row and b in row]
        if not pairs:
            continue
        categories = sorted({_category(v) for pair in pairs for v in pair})
        position = {c: i for i, c in enumerate(categories)}
        table = np.zeros((len(categories), len(categories)))
        for x, y in pairs:
            table[position[_category(x)], position[_category(y)]] += 1
        kappa = None
        if len(categories) > 1:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                kappa = _nan_to_none(cohens_kappa(table, return_results=False))
        out.append({"a": a, "b": b, "kappa": kappa, "units": len(pairs)})
    return out


def fleiss_kappa(units: Units) -> dict:
    """Fleiss' κ (statsmodels) where every unit has the same number (≥ 2) of annotators."""
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as fleiss

    rows = list(units.values())
    sizes = {len(row) for row in rows}
    if not rows:
        return {"value": None, "units": 0, "reason": "no units"}
    if len(sizes) != 1:
        return {
            "value": None,
            "units": len(rows),
            "reason": "sentences have different numbers of annotators "
            f"({', '.join(str(s) for s in sorted(sizes))}): Fleiss' kappa needs the same number",
        }
    if sizes == {1}:
        return {"value": None, "units": len(rows), "reason": "one annotator per sentence"}
    categories = sorted({_category(v) for row in rows for v in row.values()})
    position = {c: i for i, c in enumerate(categories)}
    table = np.array([[position[_category(v)] for v in row.values()] for row in rows])
    counts, _ = aggregate_raters(table, n_cat=len(categories))
    value = None
    if len(categories) > 1:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = _nan_to_none(fleiss(counts))
    reason = None if value is not None else "a single category throughout"
    return {"value": value, "units": len(rows), "reason": reason}


def _labels_of(docs: Sequence[SpansByAnnotator]) -> list[str]:
    return sorted(
        {
            label
            for doc in docs
            for spans in doc.values()
            for *_, labels in spans
            for label in labels
        }
    )


def cooccurrence(docs: Iterable[SpansByAnnotator]) -> dict:
    """``counts[a][b]``: overlapping spans of two different annotators, one giving ``a``
    and the other ``b`` (symmetric; the diagonal counts agreements on a label)."""
    docs = [
        {name: [(s, e, frozenset(v)) for s, e, v in spans] for name, spans in doc.items()}
        for doc in docs
    ]
    labels = _labels_of(docs)
    position = {label: i for i, label in enumerate(labels)}
    counts = [[0] * len(labels) for _ in labels]
    for doc in docs:
        for first, second in combinations(sorted(doc), 2):
            for s1, e1, v1 in doc[first]:
                for s2, e2, v2 in doc[second]:
                    if not (s1 < e2 and s2 < e1):
                        continue
                    for a in v1:
                        for b in v2:
                            counts[position[a]][position[b]] += 1
                            if a != b:
                                counts[position[b]][position[a]] += 1
    return {"labels": labels, "counts": counts}


def distribution(docs: Iterable[SpansByAnnotator]) -> dict:
    """How many spans each annotator labelled with each label."""
    docs = list(docs)
    labels = _labels_of(docs)
    per: dict[str, Counter] = {}
    for doc in docs:
        for name, spans in doc.items():
            counter = per.setdefault(name, Counter())
            for *_, value in spans:
                counter.update(set(value))
    return {
        "labels": labels,
        "annotators": {name: [per[name][label] for label in labels] for name in sorted(per)},
    }
