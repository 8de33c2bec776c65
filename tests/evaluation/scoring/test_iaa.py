"""Agreement over sentence units (``evaluation.scoring.iaa``) against the libraries themselves."""

from __future__ import annotations

import random

import krippendorff
import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from evaluation.scoring import NO_FALLACY, iaa, mafalda_mapping

LABELS = ["ad hominem", "slippery slope", "ad populum", "appeal to fear"]


def random_units(seed: int, coders: int = 3, units: int = 60, missing: float = 0.0) -> dict:
    rng = random.Random(seed)
    out: dict = {}
    for u in range(units):
        row = {}
        for c in range(coders):
            if rng.random() < missing:
                continue
            k = rng.choice([0, 0, 1, 1, 2])
            row[f"c{c}"] = frozenset(rng.sample(LABELS, k)) or frozenset({NO_FALLACY})
        out[u] = row
    return out


def triples(units: dict) -> list[tuple[str, str, frozenset]]:
    return [(coder, str(u), value) for u, row in units.items() for coder, value in row.items()]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    ("distance", "function"), [("masi", masi_distance), ("jaccard", jaccard_distance)]
)
def test_alpha_equals_nltk(seed: int, distance: str, function) -> None:
    units = random_units(seed)
    expected = AnnotationTask(data=triples(units), distance=function).alpha()
    result = iaa.alpha(units, distance)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert (result.units, result.annotators, result.distance) == (60, 3, distance)


def test_alpha_with_missing_values_equals_nltk_on_the_pairable_units() -> None:
    units = random_units(7, coders=4, missing=0.3)
    pairable = {u: row for u, row in units.items() if len(row) >= 2}
    expected = AnnotationTask(data=triples(pairable), distance=masi_distance).alpha()
    assert iaa.alpha(units).value == pytest.approx(expected, abs=1e-12)
    assert iaa.alpha(units).units == len(pairable)


def test_degenerate_alpha_is_undefined_or_perfect() -> None:
    same = {u: {"a": frozenset({"x"}), "b": frozenset({"x"})} for u in range(3)}
    assert iaa.alpha(same).value is None  # one value throughout: no expected disagreement
    assert iaa.alpha({0: {"a": frozenset({"x"})}}).units == 0
    perfect = {u: {"a": frozenset({str(u % 2)}), "b": frozenset({str(u % 2)})} for u in range(4)}
    assert iaa.alpha(perfect).value == 1.0
    with pytest.raises(ValueError, match="unknown distance"):
        iaa.alpha(same, "euclid")


def test_label_alphas_equal_krippendorff() -> None:
    units = random_units(3, missing=0.2)
    results = iaa.label_alphas(units, LABELS + ["never given"])
    coders = sorted({c for row in units.values() for c in row})
    rows = [row for row in units.values() if len(row) >= 2]
    for label in LABELS:
        data = np.array(
            [[float(label in row[c]) if c in row else np.nan for row in rows] for c in coders]
        )
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert results[label].value == pytest.approx(expected, abs=1e-12)
    assert results["never given"].value is None


def test_kappas_equal_statsmodels() -> None:
    units = random_units(11)
    key = lambda v: " | ".join(sorted(v))  # noqa: E731
    categories = sorted({key(v) for row in units.values() for v in row.values()})
    for entry in iaa.cohen_kappas(units):
        table = np.zeros((len(categories), len(categories)))
        for row in units.values():
            table[
                categories.index(key(row[entry["a"]])), categories.index(key(row[entry["b"]]))
            ] += 1
        assert entry["kappa"] == pytest.approx(cohens_kappa(table, return_results=False), abs=1e-12)
        assert entry["units"] == 60
    coded = np.array(
        [[categories.index(key(row[c])) for c in sorted(row)] for row in units.values()]
    )
    counts, _ = aggregate_raters(coded, n_cat=len(categories))
    assert iaa.fleiss_kappa(units)["value"] == pytest.approx(fleiss_kappa(counts), abs=1e-12)


def test_fleiss_is_refused_with_a_reason_when_coder_counts_differ() -> None:
    result = iaa.fleiss_kappa(random_units(2, coders=4, missing=0.3))
    assert result["value"] is None and "different numbers of annotators" in result["reason"]


def test_unit_values_cooccurrence_and_distribution() -> None:
    mapping = mafalda_mapping()
    sentences = [(0, 10), (11, 20), (21, 30)]
    spans = [(5, 12, ["ad hominem", NO_FALLACY]), (21, 30, ["slippery slope"])]
    assert iaa.unit_values(sentences, spans, mapping, 2) == [
        frozenset({"ad hominem"}),
        frozenset({"ad hominem"}),
        frozenset({"slippery slope"}),
    ]
    assert iaa.unit_values(sentences, [], mapping, 0) == [iaa.BOTTOM] * 3
    assert iaa.unit_values(sentences, spans, mapping, 0)[0] == frozenset({"fallacy"})
    docs = [
        {
            "a": [(0, 10, {"ad hominem"}), (21, 30, {"slippery slope"})],
            "b": [(5, 15, {"ad hominem", "ad populum"})],
        }
    ]
    co = iaa.cooccurrence(docs)
    at = {label: i for i, label in enumerate(co["labels"])}
    assert co["counts"][at["ad hominem"]][at["ad hominem"]] == 1
    assert co["counts"][at["ad hominem"]][at["ad populum"]] == 1
    assert co["counts"][at["ad populum"]][at["ad hominem"]] == 1
    assert co["counts"][at["slippery slope"]] == [0, 0, 0]
    dist = iaa.distribution(docs)
    assert dist["annotators"]["a"] == [1, 0, 1] and dist["annotators"]["b"] == [1, 1, 0]


def test_alphas_of_many_groups_equal_alpha_of_each() -> None:
    groups = {g: random_units(20 + g, units=8, missing=0.2) for g in range(30)}
    groups["one value"] = {0: {"a": iaa.BOTTOM, "b": iaa.BOTTOM}}
    groups["empty"] = {}
    for distance in iaa.DISTANCES:
        results = iaa.alphas(groups, distance)
        for key, units in groups.items():
            single = iaa.alpha(units, distance)
            assert results[key].units == single.units
            assert results[key].annotators == single.annotators
            if single.value is None:
                assert results[key].value is None
            else:
                assert results[key].value == pytest.approx(single.value, abs=1e-12)
    assert iaa.alphas(groups)["empty"] == iaa.AlphaResult(None, 0, 0, "masi")


def test_hand_checked_kappas_and_json_figures() -> None:
    import json

    x, y = frozenset({"ad hominem"}), iaa.BOTTOM
    perfect = {u: {"a": v, "b": v, "c": v} for u, v in enumerate([x, y, x, y])}
    assert [k["kappa"] for k in iaa.cohen_kappas(perfect)] == [1.0, 1.0, 1.0]
    assert iaa.fleiss_kappa(perfect) == {"value": 1.0, "units": 4, "reason": None}
    single = {u: {"a": y, "b": y} for u in range(3)}
    assert iaa.cohen_kappas(single) == [{"a": "a", "b": "b", "kappa": None, "units": 3}]
    assert iaa.fleiss_kappa(single)["value"] is None
    assert iaa.fleiss_kappa(single)["reason"] == "a single category throughout"
    assert iaa.fleiss_kappa({0: {"a": x}})["reason"] == "one annotator per sentence"
    # two coders disagreeing on one unit of two: α = 1 - Do/De by hand (MASI(x, ⊥) = 1)
    # values x, ⊥, x, x: n = 4, Do = 2/4, De = 2 * 3 * 1 / (4 * 3) = 1/2 -> α = 0
    assert iaa.alpha({0: {"a": x, "b": y}, 1: {"a": x, "b": x}}).value == pytest.approx(0.0)
    figures = iaa.all_figures(single, LABELS, [{"a": [(0, 5, frozenset({"ad hominem"}))], "b": []}])
    json.dumps(figures, allow_nan=False)  # None, never NaN
    assert figures["alpha"]["masi"] == {
        "value": None,
        "units": 3,
        "annotators": 2,
        "distance": "masi",
    }
    assert figures["labels"]["ad hominem"]["value"] is None
    assert figures["distribution"]["annotators"] == {"a": [1], "b": [0]}
    assert set(iaa.LIBRARIES) >= {"nltk", "krippendorff", "statsmodels"}


def test_level_spans_drop_bottom_and_map_labels() -> None:
    spans = [(0, 4, ["ad hominem", NO_FALLACY]), (5, 9, [NO_FALLACY]), (9, 12, ["ad populum"])]
    mapping = mafalda_mapping()
    assert iaa.level_spans(spans, mapping, 2) == [
        (0, 4, frozenset({"ad hominem"})),
        (9, 12, frozenset({"ad populum"})),
    ]
    assert {v for *_, v in iaa.level_spans(spans, mapping, 0)} == {frozenset({"fallacy"})}


def test_disagreement_is_the_share_of_sentences_whose_label_sets_differ() -> None:
    a, b, bottom = frozenset({"ad hominem"}), frozenset({"appeal to fear"}), iaa.BOTTOM
    same = {i: {"x": a, "y": a} for i in range(3)}
    # everyone gave the same labels everywhere: no disagreement, though α is undefined or low
    assert iaa.disagreement(same) == iaa.Disagreement(0.0, 3, 0)
    assert iaa.alpha(same, "masi").value is None
    agreed_bottoms = {0: {"x": a, "y": a}, 1: {"x": bottom, "y": bottom}, 2: {"x": a, "y": a}}
    assert iaa.disagreement(agreed_bottoms).value == 0.0
    # one sentence of three differs (two alternatives against one counts as different)
    partly = {0: {"x": a, "y": a}, 1: {"x": a | b, "y": a}, 2: {"x": bottom, "y": bottom}}
    assert iaa.disagreement(partly) == iaa.Disagreement(1 / 3, 3, 1)
    everywhere = {0: {"x": a, "y": b}, 1: {"x": bottom, "y": b}}
    assert iaa.disagreement(everywhere).value == 1.0
    # three annotators: one dissenting is a difference; units with one annotator are ignored
    three = {0: {"x": a, "y": a, "z": b}, 1: {"x": a, "y": a, "z": a}, 2: {"x": b}}
    assert iaa.disagreement(three) == iaa.Disagreement(0.5, 2, 1)
    assert iaa.disagreement({0: {"x": a}}) == iaa.Disagreement(None, 0, 0)
    assert iaa.disagreement({0: {"x": a}}).to_dict() == {"value": None, "units": 0, "differing": 0}
