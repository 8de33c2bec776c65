"""Named scoring profiles of item benchmarks (plain Python): ``definition`` and
``authors-smartypat``.

A profile is a set of switches; ``score_profile(profile, kind, ...)`` gives the report of
one field kind under it. ``definition`` is the metric as the paper defines it
(``evaluation.scoring.items.score_answers``: textbook detection P/R/F1; S = Σ ±1/i over
labels read by the normalisation rules of ``label_answers``, "no fallacy" for a
fallacious item -1, the mean S as primary figure). ``authors-smartypat`` reproduces the
SmartyPat authors' published scoring scripts (ltroin/Smartybench, ``statistics/f1.py``,
``score_third.py``, ``fallacy_count.py``), each of their choices a switch:

Categorisation S (ranked fields; the authors score it on the fallacious items only,
``s_items="fallacious"``):

- ``no_fallacy_penalty``: ``"one"`` (-1) or ``"harmonic-13"`` (-H₁₃ = -Σ_{i≤13} 1/i ≈
  -3.180, the authors', for both the 14-type Bench and the 11-type augmented set) for
  "no fallacy" answered to a fallacious item.
- ``normalise_labels``: the rules of ``label_answers`` (``True``), or the authors' reading
  (``False``): a JSON list's items lower-cased, a string lower-cased and split at ``,``
  only; no other separator, no underscore or quote handling.
- ``strip_numbering`` (authors' reading): ``"1. False Premise"`` loses its number
  (``True``) or keeps it and so matches no gold label (``False``, the authors': scored as
  a wrong label at its rank).
- ``strip_list_items`` (authors' reading): items of a JSON list trimmed (``True``) or kept
  with their spaces (``False``, the authors'; a string's pieces are always trimmed).
- ``label_match``: ``"exact"`` (the piece is a gold label) or ``"substring"`` (the
  authors': the piece occurs in the lower-cased gold cell, ``"false analogy, equivocation"``;
  so ``"analogy"`` counts as right, and so does an empty piece, as in ``"a, , b"``).
- ``round_items``: each item's S rounded to that many decimals before summing (authors: 3;
  the sum is rounded too).
- ``s_total``: the primary figure, ``"mean"`` or ``"sum"`` (the authors' and the paper's
  tables). Both are always reported (``mean_s``, ``sum_s``).
- ``s_items``: ``"all"`` (sound items score +1 for "no fallacy", -Σ 1/i for labels) or
  ``"fallacious"``.

An answer the reading cannot use at all (no label, no "no fallacy") scores -1 under
``normalise_labels`` (one wrong answer) and 0 under the authors' reading (their script adds
nothing when ``logic_error`` is neither yes nor no).

- ``flagged_empty_usable`` (authors' reading): an answer whose ``logic_error`` is yes is
  scored even when it names no label (``True``, the authors': ``logic_fallacies`` ``""`` or
  ``[""]`` is one empty piece, a substring of every gold cell, so +1; ``[]`` scores 0), or
  counts as unusable (``False``: 0).

Detection (detection fields):

- ``recall``: ``"textbook"`` TP/(TP+FN), or ``"authors"``: TP'/(TP'+FN') with
  TP' = yes_f/(yes_f+yes_b) and FN' = no_f/(no_f+no_b) (yes/no answers on fallacious (f)
  and benign (b) items: two denominators mixed). Precision is yes_f/(yes_f+yes_b) in both.
- ``pad_benign``: the authors count "no" answers as ``N - yes`` with one N for both files
  (the number of fallacious items, their first N entries of each file), so a benign set
  shorter than the fallacious one adds phantom correct "no" answers, and a longer one is
  cut to N. Anything but "yes" is "no" for them (an unparseable answer too).
- ``round_f1``: F1 rounded (authors: 3).

Per-type accuracy (ranked fields; the share of items of a gold type whose answer names
it): ``strip_gold_pieces`` ``False`` reproduces ``fallacy_count.py``, which splits the gold
cell at ``,`` without trimming, so a type written after ``", "`` is never found.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from .core import ScoringInputError
from .label_answers import (
    LIST_NUMBER,
    NO_FALLACY_WORDS,
    LabelReader,
    load_structure,
    read_detection,
    unreadable_summary,
)
from .metric import f1_of

HARMONIC_13 = sum(1 / i for i in range(1, 14))
DEFINITION, AUTHORS_SMARTYPAT = "definition", "authors-smartypat"


@dataclass(frozen=True)
class ItemProfile:
    name: str
    description: str
    no_fallacy_penalty: str = "one"
    normalise_labels: bool = True
    strip_numbering: bool = True
    strip_list_items: bool = True
    label_match: str = "exact"
    round_items: int | None = None
    s_total: str = "mean"
    s_items: str = "all"
    recall: str = "textbook"
    pad_benign: bool = False
    round_f1: int | None = None
    strip_gold_pieces: bool = True
    flagged_empty_usable: bool = False

    def switches(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("name", "description")}

    def with_switches(self, **switches: Any) -> ItemProfile:
        return replace(self, **switches)


PROFILES: dict[str, ItemProfile] = {
    DEFINITION: ItemProfile(
        DEFINITION,
        "The metric as the paper defines it: textbook detection P/R/F1; S = Σ ±1/i over "
        "normalised labels, mean over items.",
    ),
    AUTHORS_SMARTYPAT: ItemProfile(
        AUTHORS_SMARTYPAT,
        "SmartyPat's published scripts: -H13 for 'no fallacy', substring matches in the "
        "gold cell, numbered and untrimmed labels unmatched, per-item rounding, summed S on "
        "fallacious items; detection recall with mixed denominators, benign side padded.",
        no_fallacy_penalty="harmonic-13",
        normalise_labels=False,
        strip_numbering=False,
        strip_list_items=False,
        label_match="substring",
        round_items=3,
        s_total="sum",
        s_items="fallacious",
        recall="authors",
        pad_benign=True,
        round_f1=3,
        strip_gold_pieces=False,
        flagged_empty_usable=True,
    ),
}
#: the profiles that apply to a benchmark's projects, besides ``definition``
BENCHMARK_PROFILES: dict[str, tuple[str, ...]] = {"smartypat": (AUTHORS_SMARTYPAT,)}


def get_profile(name: str) -> ItemProfile:
    if name not in PROFILES:
        raise ScoringInputError(f"unknown item profile {name!r}; one of {', '.join(PROFILES)}")
    return PROFILES[name]


def scores_item(profile: str, kind: str, gold: Any) -> bool:
    """Whether an item with this gold is one of the units ``profile`` scores a ``kind``
    field's per-item figure over (the units of its paired tests): every item with a gold,
    except a ranked field's sound items (empty gold) under ``s_items="fallacious"``."""
    if gold is None:
        return False
    found = PROFILES.get(profile)
    if kind == "ranked" and found is not None and found.s_items == "fallacious":
        return bool(gold)
    return True


def profiles_for(benchmark: str | None) -> list[str]:
    """``definition`` always, then the benchmark's own profiles."""
    return [DEFINITION, *BENCHMARK_PROFILES.get(benchmark or "", ())]


# --- reading answers ----------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One answer as a profile reads it: ``pieces`` in rank order (canonical labels under
    the normalisation rules, the authors' lower-cased strings otherwise), ``no`` (it says
    no fallacy), ``usable`` (it said something the profile scores)."""

    pieces: list[str]
    no: bool
    usable: bool
    unreadable: list[str]


def _has_key(answer: str, key: str) -> bool:
    try:
        value = json.loads(answer.strip())
    except ValueError:
        return False
    return isinstance(value, dict) and key in value


def authors_pieces(answer: str, profile: ItemProfile) -> tuple[list[str], bool | None]:
    """The authors' reading: a list's items lower-cased (trimmed only with
    ``strip_list_items``), a string lower-cased, split at "," and trimmed; an empty JSON
    list without ``logic_error`` says no fallacy (``logic_error`` ``False``)."""
    value, error, structured = load_structure(answer)
    if structured and error is None and _has_key(answer, "logic_error"):
        return [], None  # logic_error neither yes nor no: the authors score nothing
    if value == [] and error is None:
        return [], False
    if isinstance(value, list):
        pieces = [item.lower() for item in value]
        if profile.strip_list_items:
            pieces = [piece.strip() for piece in pieces]
    else:
        pieces = [piece.strip().lower() for piece in value.split(",")]
    if profile.strip_numbering:
        pieces = [LIST_NUMBER.sub("", piece) if piece.strip() else piece for piece in pieces]
    return pieces, error


def read_answer(
    answer: str | Sequence[str] | None, profile: ItemProfile, reader: LabelReader
) -> Reading:
    """An answer (raw text, or a list of labels such as a person's) as ``profile`` reads it."""
    if answer is None:
        return Reading([], False, False, [])
    if not isinstance(answer, str):
        answer = json.dumps(list(answer))
    if profile.normalise_labels:
        reading = reader.read(answer)
        return Reading(
            reading.labels,
            not reading.labels and reading.no_fallacy,
            reading.prediction is not None,
            reading.unreadable,
        )
    pieces, error = authors_pieces(answer, profile)
    said = [piece for piece in pieces if piece.strip()]
    no = error is False or (error is None and len(said) == 1 and said[0] in NO_FALLACY_WORDS)
    if no:
        return Reading([], True, True, [])
    flagged = error is True and profile.flagged_empty_usable
    return Reading(pieces, False, bool(said) or flagged, [])


# --- categorisation S ---------------------------------------------------------------------


def _item_s(gold: list[str], gold_text: str, reading: Reading, profile: ItemProfile) -> float:
    penalty = HARMONIC_13 if profile.no_fallacy_penalty == "harmonic-13" else 1.0
    if not reading.usable:
        return -1.0 if profile.normalise_labels else 0.0
    if not gold:  # a sound item (s_items "all")
        return 1.0 if reading.no else -sum(1 / i for i in range(1, len(reading.pieces) + 1))
    if reading.no:
        return -penalty
    gold_keys = {label.casefold() for label in gold}
    cell = gold_text.strip().casefold()
    pieces = list(dict.fromkeys(reading.pieces)) if profile.normalise_labels else reading.pieces
    total = 0.0
    for rank, piece in enumerate(pieces, start=1):
        if profile.label_match == "substring":
            right = piece.casefold() in cell
        else:
            right = piece.casefold() in gold_keys
        total += (1.0 if right else -1.0) / rank
    return total


def categorisation(
    golds: Sequence[list[str] | None],
    answers: Sequence[str | Sequence[str] | None],
    *,
    profile: ItemProfile,
    labels: Sequence[str],
    aliases: Mapping[str, str] | None = None,
    gold_texts: Sequence[str | None] | None = None,
) -> dict[str, Any]:
    """S per item and in total, per-type accuracy and label counts under ``profile``."""
    reader = LabelReader(labels, aliases)
    texts = list(gold_texts) if gold_texts is not None else [None] * len(golds)
    readings = [read_answer(a, profile, reader) for a in answers]
    chosen = [
        i for i, gold in enumerate(golds) if gold is not None and (profile.s_items == "all" or gold)
    ]
    per_item = []
    for i in chosen:
        gold = list(golds[i] or [])
        score = _item_s(gold, texts[i] or ", ".join(gold), readings[i], profile)
        if profile.round_items is not None:
            score = round(score, profile.round_items)
        per_item.append(score)
    total = sum(per_item)
    if profile.round_items is not None:
        total = round(total, profile.round_items)
    mean = total / len(per_item) if per_item else None
    return {
        "sum_s": total,
        "mean_s": mean,
        "s_items": len(per_item),
        "per_item_s": per_item,
        "per_type_accuracy": per_type_accuracy(
            [golds[i] for i in chosen],
            [readings[i] for i in chosen],
            [texts[i] for i in chosen],
            profile,
        ),
        "predicted_counts": dict(
            Counter(p for i in chosen for p in dict.fromkeys(readings[i].pieces) if p.strip())
            + Counter("no fallacy" for i in chosen if readings[i].no)
        ),
        "unusable": sum(not readings[i].usable for i in chosen),
        "unreadable_labels": unreadable_summary([readings[i].unreadable for i in chosen]),
    }


def per_type_accuracy(
    golds: Sequence[list[str] | None],
    readings: Sequence[Reading],
    gold_texts: Sequence[str | None],
    profile: ItemProfile,
) -> dict[str, float]:
    """For each gold type, the share of its fallacious items whose answer names it."""
    totals: Counter[str] = Counter()
    found: Counter[str] = Counter()
    for gold, reading, text in zip(golds, readings, gold_texts, strict=True):
        if not gold:
            continue
        cell = (text or ", ".join(gold)).strip().casefold()
        names = [piece.strip() for piece in cell.split(",") if piece.strip()]
        totals.update(names)
        if reading.no or not reading.usable:
            continue
        said = {piece.casefold() for piece in reading.pieces}
        for piece in cell.split(","):
            key = piece.strip() if profile.strip_gold_pieces else piece
            if key in said:
                found[key.strip()] += 1
    return {name: found[name] / count for name, count in totals.items()}


# --- detection ----------------------------------------------------------------------------


def detection(
    golds: Sequence[bool | None], predictions: Sequence[bool | None], *, profile: ItemProfile
) -> dict[str, Any]:
    """Detection P/R/F1 under ``profile`` (see the module docstring)."""
    fallacious = [p for g, p in zip(golds, predictions, strict=True) if g is True]
    benign = [p for g, p in zip(golds, predictions, strict=True) if g is False]
    yes_f = sum(p is True for p in fallacious)
    no_f = len(fallacious) - yes_f
    if profile.pad_benign:
        length = len(fallacious)
        yes_b = sum(p is True for p in benign[:length])
        no_b = length - yes_b
    else:
        yes_b = sum(p is True for p in benign)
        no_b = len(benign) - yes_b
    precision = yes_f / (yes_f + yes_b) if yes_f + yes_b else 0.0
    if profile.recall == "authors":
        tp = yes_f / (yes_f + yes_b) if yes_f + yes_b else 0.0
        fn = no_f / (no_f + no_b) if no_f + no_b else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
    else:
        recall = yes_f / (yes_f + no_f) if yes_f + no_f else 0.0
    f1 = f1_of(precision, recall)
    if profile.round_f1 is not None:
        f1 = round(f1, profile.round_f1)
    return {
        "f1": f1,
        "precision": precision,
        "recall": recall,
        "counts": {
            "yes_fallacious": yes_f,
            "no_fallacious": no_f,
            "yes_benign": yes_b,
            "no_benign": no_b,
        },
        "benign_counted": yes_b + no_b,
        "benign_items": len(benign),
    }


# --- reports ------------------------------------------------------------------------------


def _base(kind: str, profile: ItemProfile, items: int) -> dict[str, Any]:
    return {
        "kind": kind,
        "profile": profile.name,
        "switches": profile.switches(),
        "per_label": {},
        "items": items,
    }


def profile_report(
    profile_name: str,
    kind: str,
    golds: Sequence[Any],
    answers: Sequence[Any],
    *,
    labels: Sequence[str],
    aliases: Mapping[str, str] | None = None,
    gold_texts: Sequence[str | None] | None = None,
) -> dict[str, Any] | None:
    """The report of a field of ``kind`` under a profile other than ``definition`` (which
    is ``items.score_answers``); ``None`` when the profile has nothing for this kind.
    ``answers``: raw answers (text) or read ones (a list of labels, a boolean)."""
    profile = get_profile(profile_name)
    if len(golds) != len(answers):
        raise ScoringInputError(f"{len(golds)} gold answers but {len(answers)} answers")
    if kind == "ranked":
        return _ranked_report(profile, golds, answers, labels, aliases, gold_texts)
    if kind == "detection":
        return _detection_report(profile, golds, answers)
    return None


def _ranked_report(
    profile: ItemProfile,
    golds: Sequence[Any],
    answers: Sequence[Any],
    labels: Sequence[str],
    aliases: Mapping[str, str] | None,
    gold_texts: Sequence[str | None] | None,
) -> dict[str, Any]:
    """A ranked field's report: S per item, their sum and mean, per-type accuracy."""
    body = categorisation(
        golds, answers, profile=profile, labels=labels, aliases=aliases, gold_texts=gold_texts
    )
    primary = "sum_s" if profile.s_total == "sum" else "mean_s"
    counts: Counter[str] = Counter()
    for gold in golds:
        if gold is not None and (profile.s_items == "all" or gold):
            counts.update(g.casefold() for g in gold or ["no fallacy"])
    return {
        **_base("ranked", profile, len(golds)),
        "primary": {"name": primary, "value": body[primary]},
        "metrics": {
            "sum_s": body["sum_s"],
            "mean_s": body["mean_s"],
            "per_type_accuracy": body["per_type_accuracy"],
        },
        "per_item_s": body["per_item_s"],
        "predicted_counts": body["predicted_counts"],
        "gold_counts": dict(counts),
        "scored": body["s_items"],
        "unparseable": {"count": body["unusable"], "policy": profile.name, "replaced": 0},
        "unreadable_labels": body["unreadable_labels"],
    }


def _detection_report(
    profile: ItemProfile, golds: Sequence[Any], answers: Sequence[Any]
) -> dict[str, Any]:
    """A detection field's report: P/R/F1 of the fallacious class and the answer counts."""
    predictions = [read_detection(a) if isinstance(a, str) else a for a in answers]
    predictions = [p if isinstance(p, bool) else None for p in predictions]
    body = detection(golds, predictions, profile=profile)
    unparseable = sum(p is None for g, p in zip(golds, predictions, strict=True) if g is not None)
    return {
        **_base("detection", profile, len(golds)),
        "primary": {"name": "f1", "value": body["f1"]},
        "metrics": {k: body[k] for k in ("f1", "precision", "recall")},
        "counts": body["counts"],
        "benign_counted": body["benign_counted"],
        "benign_items": body["benign_items"],
        "predicted_counts": {
            "fallacious": body["counts"]["yes_fallacious"] + body["counts"]["yes_benign"]
        },
        "gold_counts": {
            "fallacious": sum(g is True for g in golds),
            "sound": sum(g is False for g in golds),
        },
        "scored": sum(g is not None for g in golds),
        "unparseable": {"count": unparseable, "policy": profile.name, "replaced": 0},
    }


def describe_profiles(benchmark: str | None) -> list[tuple[str, str]]:
    """``(name, description)`` of the profiles an item project of ``benchmark`` is scored
    under (a name that is no benchmark with profiles of its own: ``definition`` only)."""
    names = profiles_for(benchmark if benchmark in BENCHMARK_PROFILES else None)
    return [(name, PROFILES[name].description) for name in names]
