"""Evaluation data, one module per domain (Django finds the models through this package).

- ``runs``: prompt variants, model runs and their shards, outputs, the generation cache and
  stored score reports.
- ``agreement``: a project's cached agreement figures.
- ``results``: stored result boards (an item project's results, a gold leaderboard).
- ``suggestions``: suggestions, decisions, assisted projects and the queue ordering.
- ``synthesis``: Prolog rule files, generation jobs, generated items and their releases.

Prompt variants and rule files belong to a project (its own copies, made by its admins) or
are global (``project`` null: the built-ins, editable by superusers only); a project reads
and launches with its own plus the global ones (``evaluation.ownership``).
"""

from evaluation.models.agreement import AgreementResult
from evaluation.models.results import StoredBoard
from evaluation.models.runs import (
    VARIANT_CONTENT_FIELDS,
    GenerationCache,
    ModelRun,
    PromptVariant,
    RunOutput,
    RunScore,
    RunShard,
    owner_project,
)
from evaluation.models.suggestions import (
    DocumentDisagreement,
    Suggestion,
    SuggestionDecision,
    SuggestionSettings,
    SuggestionShown,
)
from evaluation.models.synthesis import GeneratedItem, GenerationJob, GenerationRelease, PrologRule

__all__ = [
    "VARIANT_CONTENT_FIELDS",
    "AgreementResult",
    "DocumentDisagreement",
    "GeneratedItem",
    "GenerationCache",
    "GenerationJob",
    "GenerationRelease",
    "ModelRun",
    "PromptVariant",
    "PrologRule",
    "RunOutput",
    "RunScore",
    "RunShard",
    "StoredBoard",
    "Suggestion",
    "SuggestionDecision",
    "SuggestionSettings",
    "SuggestionShown",
    "owner_project",
]
