"""Span scoring against a disjunctive gold standard (pure Python: no Django).

Contract: ``shared/specs/scoring.md``. Two profiles: ``paper`` (default, the metric as
the MAFALDA paper defines it) and ``mafalda-2024`` (what the published scorer computed;
reproduces the published tables). Every report names its profile, parser and averaging.

Data model (``core``), usable from files or from memory (e.g. stored gold versions,
runs and annotations on the Django side):

- ``GoldSpan(start, end, labels)``: half-open range and its alternative labels; ⊥ is
  ``NO_FALLACY`` ("no fallacy"; spellings "nothing", "none", ... normalise to it).
- ``PredSpan(start, end, label)``: one predicted label on a range.
- ``TextGold(text, spans, origin)``; ``TextGold.from_triples(text, [[s, e, label], ...])``
  groups identical ranges into one span (label union), drops ``to clean`` and validates
  ``0 <= s < e <= len(text)`` (``ScoringInputError`` naming origin, span and field).
- ``TextPrediction(text, spans=...)`` or ``TextPrediction(text, sentences=...)`` with
  ``SentenceOutput(sentence, raw output | frozenset of labels)`` in text order;
  ``from_triples`` / ``from_sentences`` build them.
- ``Corpus(texts, dropped)`` (the gold) and ``Predictions(texts)``. Predictions are
  matched to gold by exact text; a prediction for an unknown text is an error naming its
  origin; gold texts without a prediction are scored as empty predictions.

Files (``sources``): ``read_gold`` (MAFALDA JSONL or doccano export), ``read_predictions``
(span JSONL or raw ``{text, prediction: {sentence: output}}``), ``read_annotator``,
``as_predictions`` (a corpus's spans as predictions), ``sentence_oracle``.

Scoring: ``score(corpus, predictions, profile=, levels=, parser=, average=)`` ->
``Report`` (``to_dict()`` is JSON-serialisable). Per level: P, R, F1 (``text``: mean of
per-text values; ``corpus``: spans pooled), span counts, a seeded bootstrap 95% interval of
F1 over texts, per-label scores and a confusion table.

Per-label scores (always pooled over the corpus): for label X at a level, precision
averages, over predictions labelled X, the best overlap with a gold span whose set
contains X; recall averages, over required gold spans whose set contains X, the best
overlap with a prediction labelled X. Confusion counts (gold label, predicted label) over
overlapping spans, with ``(none)`` for unmatched ones (see ``metric.overlap_pairs``).

Parsers (``parsers``): ``get_parser("keyword" | "strict" | "json")`` with ``.name``,
``.version`` and ``.parse(output)`` -> label set or ``UNREADABLE``.

Humans (``agreement``): ``score_annotator(gold, annotator)`` and
``pairwise_agreement({name: corpus})``. Inter-annotator agreement over sentence units
(``iaa``): ``unit_values`` (an annotator's label set per sentence), ``alpha`` (Krippendorff's
α, MASI/Jaccard distance, equal to nltk's), ``label_alphas`` (binary α per label,
``krippendorff``), ``cohen_kappas`` / ``fleiss_kappa`` (statsmodels), ``cooccurrence`` and
``distribution`` (over spans), ``alphas`` (many groups at once), ``all_figures``; None where
undefined. Other tasks: ``tasks``. Item projects' answers (model runs and humans alike):
``items`` (``score_answers``, ``aggregate_skills``; each kind's figures: ``item_kinds``).

One interface (``scorer``): ``Scorer.score(gold, predictions, profile=, of=)`` -> ``Scoring``
(profile, typed ``Score``s with their unit, ``Coverage``, the JSON report), implemented by
``span_scorer.SpanScorer`` and ``item_scorer.ItemScorer``.
"""

from .agreement import PairwiseAgreement, pairwise_agreement, score_annotator
from .core import (
    NO_FALLACY,
    Corpus,
    GoldSpan,
    Predictions,
    PredSpan,
    ScoringInputError,
    SentenceOutput,
    TextGold,
    TextPrediction,
    normalise_label,
)
from .iaa import (
    AlphaResult,
    all_figures,
    alpha,
    alphas,
    cohen_kappas,
    cooccurrence,
    distribution,
    fleiss_kappa,
    label_alphas,
    level_spans,
    unit_values,
)
from .levels import (
    MAFALDA_TYPE_TO_CATEGORY,
    LevelMapping,
    mafalda_mapping,
    published_mafalda_mapping,
)
from .parsers import (
    PARSER_NAMES,
    UNREADABLE,
    get_parser,
    make_parser,
    taxonomy_parser,
)
from .profiles import PROFILES
from .report import AVERAGES, LevelReport, Report, score
from .sources import (
    as_predictions,
    read_annotator,
    read_gold,
    read_predictions,
    sentence_oracle,
)

__all__ = [
    "AlphaResult",
    "all_figures",
    "alpha",
    "alphas",
    "cohen_kappas",
    "cooccurrence",
    "distribution",
    "fleiss_kappa",
    "label_alphas",
    "level_spans",
    "unit_values",
    "AVERAGES",
    "MAFALDA_TYPE_TO_CATEGORY",
    "NO_FALLACY",
    "PARSER_NAMES",
    "PROFILES",
    "UNREADABLE",
    "Corpus",
    "GoldSpan",
    "LevelMapping",
    "LevelReport",
    "PairwiseAgreement",
    "PredSpan",
    "Predictions",
    "Report",
    "ScoringInputError",
    "SentenceOutput",
    "TextGold",
    "TextPrediction",
    "as_predictions",
    "get_parser",
    "mafalda_mapping",
    "make_parser",
    "normalise_label",
    "published_mafalda_mapping",
    "taxonomy_parser",
    "read_annotator",
    "read_gold",
    "read_predictions",
    "score",
    "score_annotator",
    "pairwise_agreement",
    "sentence_oracle",
]
