"""Inter-annotator agreement over sentence units (pure Python: no Django).

A *unit* is a sentence; each annotator's *value* for it is the set of labels of their spans
overlapping it by at least one character, at one level of the taxonomy (⊥ alternatives
dropped), ``{⊥}`` when none does (``unit_values``). ``Units`` maps a unit key to
``{annotator: value}``; annotators may be missing from some units.

- ``alpha(units, "masi" | "jaccard")``: Krippendorff's α for set values with nltk's MASI or
  Jaccard distance. The canonical coincidence-matrix formula (units with fewer than two
  values are unpairable and ignored), which is what nltk's ``AnnotationTask.alpha`` computes
  (checked against it in ``tests/evaluation/scoring/test_iaa.py``), vectorised with numpy over units
  of the same size and distinct values (``bench/agreement.py`` times both). ``value`` is None when
  α is undefined: no pairable unit, or no expected disagreement (a single value throughout;
  nltk returns 1.0 there).
- ``alphas({group: units}, distance)``: α of many groups at once (e.g. per document).
- ``disagreement(units)``: the share of units (with at least two annotators) whose
  annotators' values are not all the same set: 0 when everyone gave the same labels
  everywhere, 1 when they differ on every sentence. Unlike α it does not depend on how
  much the labels vary across units, so it orders documents by how much there is to
  adjudicate (the adjudication queue).
- ``label_alphas``: per label, binary α (present / absent per unit) via the ``krippendorff``
  package, nominal level.
- ``cohen_kappas``: Cohen's κ per annotator pair over the units both coded, each distinct
  value set being one nominal category (statsmodels ``cohens_kappa``).
- ``fleiss_kappa``: Fleiss' κ (statsmodels) when every unit has the same number (≥ 2) of
  annotators; otherwise None with the reason.
- ``cooccurrence`` and ``distribution``: counts over spans (per document, per annotator):
  how often two labels are given to overlapping spans of *different* annotators (the
  candidates for alternatives), and how often each annotator gives each label.
- ``level_spans``: spans with their labels at a level (⊥ dropped), for the two above.
- ``all_figures(units, labels, docs)``: every figure above for one set of units, as JSON.
- ``LIBRARIES``: the versions of the libraries the figures come from.

Undefined figures are None, never NaN: every result is JSON-serialisable.
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

from .core import NO_FALLACY
from .levels import LevelMapping

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
    mapped = level_spans(spans, mapping, level)
    values = []
    for s_start, s_end in sentences:
        found: set[str] = set()
        for start, end, labels in mapped:
            if start < s_end and s_start < end:
                found |= labels
        values.append(frozenset(found) if found else BOTTOM)
    return values


def level_spans(
    spans: Iterable[tuple[int, int, Iterable[str]]], mapping: LevelMapping | None, level: int
) -> list[tuple[int, int, Value]]:
    """Spans with their labels at ``level`` (⊥ dropped; spans left without labels skipped)."""
    out = []
    for start, end, labels in spans:
        names = [label for label in labels if label != NO_FALLACY]
        if mapping is not None:
            names = [mapping.map_label(label, level) for label in names]
        if names:
            out.append((start, end, frozenset(names)))
    return out


@dataclass(frozen=True)
class AlphaResult:
    value: float | None
    units: int  # pairable units (at least two values)
    annotators: int
    distance: str

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "units": self.units,
            "annotators": self.annotators,
            "distance": self.distance,
        }


def alpha(units: Units, distance: str = "masi") -> AlphaResult:
    """Krippendorff's α over set values (see the module docstring)."""
    return alphas({None: units}, distance)[None]


def alphas(groups: Mapping[Hashable, Units], distance: str = "masi") -> dict[Hashable, AlphaResult]:
    """``alpha`` of each group of units (e.g. each document's sentences) in one vectorised
    pass: per group, the coincidence totals and the observed disagreement."""
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; available: {', '.join(DISTANCES)}")
    keys = list(groups)
    coders: list[set[str]] = [set() for _ in keys]
    index: dict[Value, int] = {}
    by_size: dict[int, tuple[list[list[int]], list[int]]] = {}  # m -> (value ids, group)
    for g, key in enumerate(keys):
        for row in groups[key].values():
            if len(row) < 2:
                continue  # unpairable
            coders[g].update(row)
            rows, owners = by_size.setdefault(len(row), ([], []))
            rows.append([index.setdefault(value, len(index)) for value in row.values()])
            owners.append(g)
    values = list(index)
    size = len(values)
    table = np.zeros((size, size))
    for i, j in combinations(range(size), 2):
        table[i, j] = table[j, i] = _distance(distance, values[i], values[j])
    observed = np.zeros(len(keys))
    pairable = np.zeros(len(keys), dtype=int)
    totals = np.zeros((len(keys), size))  # per group, how often each value was given
    for m, (rows, owners) in by_size.items():
        ids, owner = np.array(rows), np.array(owners)
        np.add.at(totals, (np.repeat(owner, m), ids.ravel()), 1)
        pairs = sum(table[ids[:, a], ids[:, b]] for a, b in combinations(range(m), 2))
        observed += np.bincount(owner, weights=2 * pairs / (m - 1), minlength=len(keys))
        pairable += np.bincount(owner, minlength=len(keys))
    n = totals.sum(axis=1)
    expected = ((totals @ table) * totals).sum(axis=1) / np.maximum(n - 1, 1)
    return {
        key: AlphaResult(
            float(1.0 - observed[g] / expected[g]) if expected[g] > 0 else None,
            int(pairable[g]),
            len(coders[g]),
            distance,
        )
        for g, key in enumerate(keys)
    }


@dataclass(frozen=True)
class Disagreement:
    value: float | None  # None: no unit with two annotators
    units: int  # units with at least two annotators
    differing: int  # of those, units whose annotators' values differ

    def to_dict(self) -> dict:
        return {"value": self.value, "units": self.units, "differing": self.differing}


def disagreement(units: Units) -> Disagreement:
    """The share of comparable units whose annotators did not all give the same set."""
    compared = [row for row in units.values() if len(row) >= 2]
    differing = sum(1 for row in compared if len(set(row.values())) > 1)
    value = differing / len(compared) if compared else None
    return Disagreement(value, len(compared), differing)


def _nan_to_none(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def label_alphas(units: Units, labels: Iterable[str]) -> dict[str, AlphaResult]:
    """Binary α per label via the ``krippendorff`` package (None: undefined)."""
    import krippendorff

    pairable = {key: row for key, row in units.items() if len(row) >= 2}
    coders, values, ids = _coded(pairable)
    labels = list(labels)
    # presence[v, l]: value v holds label l; a last row of NaN for missing values
    presence = np.full((len(values) + 1, len(labels)), np.nan)
    for v, value in enumerate(values):
        presence[v] = [1.0 if label in value else 0.0 for label in labels]
    results: dict[str, AlphaResult] = {}
    for k, label in enumerate(labels):
        data = presence[ids, k]  # -1 picks the NaN row
        value = None
        if pairable and np.nanmax(data) != np.nanmin(data):
            value = _quiet(
                lambda d: krippendorff.alpha(reliability_data=d, level_of_measurement="nominal"),
                data,
            )
        results[label] = AlphaResult(value, len(pairable), len(coders), "nominal")
    return results


def _coded(units: Units) -> tuple[list[str], list[Value], np.ndarray]:
    """``(coders, distinct values, ids)``: ``ids[c, u]`` is the index of coder c's value for
    unit u among the distinct values, -1 where c did not code u."""
    rows = list(units.values())
    coders = sorted({coder for row in rows for coder in row})
    position = {coder: i for i, coder in enumerate(coders)}
    index: dict[Value, int] = {}
    ids = np.full((len(coders), len(rows)), -1)
    for j, row in enumerate(rows):
        for coder, value in row.items():
            ids[position[coder], j] = index.setdefault(value, len(index))
    return coders, list(index), ids


def _quiet(function, *args) -> float | None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _nan_to_none(function(*args))


def cohen_kappas(units: Units) -> list[dict]:
    """Cohen's κ of each pair of annotators over the units both coded (statsmodels); each
    distinct value set is one nominal category."""
    from statsmodels.stats.inter_rater import cohens_kappa

    coders, _, ids = _coded(units)
    out = []
    for a, b in combinations(range(len(coders)), 2):
        both = (ids[a] >= 0) & (ids[b] >= 0)
        if not both.any():
            continue
        categories, codes = np.unique(np.stack([ids[a, both], ids[b, both]]), return_inverse=True)
        codes = codes.reshape(2, -1)
        table = np.zeros((len(categories), len(categories)))
        np.add.at(table, (codes[0], codes[1]), 1)
        kappa = None
        if len(categories) > 1:
            kappa = _quiet(lambda t: cohens_kappa(t, return_results=False), table)
        out.append({"a": coders[a], "b": coders[b], "kappa": kappa, "units": int(both.sum())})
    return out


def fleiss_kappa(units: Units) -> dict:
    """Fleiss' κ (statsmodels) where every unit has the same number (≥ 2) of annotators;
    otherwise ``value`` None and the ``reason``."""
    from statsmodels.stats.inter_rater import fleiss_kappa as fleiss

    _, values, ids = _coded(units)
    sizes = sorted(set((ids >= 0).sum(axis=0).tolist()))
    count = ids.shape[1]
    if not count:
        return {"value": None, "units": 0, "reason": "no units"}
    if len(sizes) != 1:
        return {
            "value": None,
            "units": count,
            "reason": "sentences have different numbers of annotators "
            f"({', '.join(map(str, sizes))}): Fleiss' kappa needs the same number",
        }
    if sizes == [1]:
        return {"value": None, "units": count, "reason": "one annotator per sentence"}
    # aggregate_raters' table: per unit, how many annotators gave each category
    counts = np.zeros((count, len(values)), dtype=int)
    coded = ids >= 0
    np.add.at(counts, (np.nonzero(coded)[1], ids[coded]), 1)
    value = _quiet(fleiss, counts) if len(values) > 1 else None
    reason = None if value is not None else "a single category throughout"
    return {"value": value, "units": count, "reason": reason}


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


def all_figures(
    units: Units, labels: Iterable[str], docs: Iterable[SpansByAnnotator] | None = None
) -> dict:
    """Every figure for one set of units (and, given ``docs`` — spans at the same level —
    co-occurrence and distributions), JSON-serialisable."""
    out: dict = {
        "alpha": {distance: alpha(units, distance).to_dict() for distance in DISTANCES},
        "labels": {
            label: result.to_dict() for label, result in label_alphas(units, labels).items()
        },
        "cohen_kappa": cohen_kappas(units),
        "fleiss_kappa": fleiss_kappa(units),
    }
    if docs is not None:
        docs = list(docs)
        out["cooccurrence"] = cooccurrence(docs)
        out["distribution"] = distribution(docs)
    return out
