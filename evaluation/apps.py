from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        """Hook evaluation's rules into the annotation app (which imports no evaluation) and
        register the sweeps that fail jobs whose process died, evaluation's part of a
        project archive, the run scorers of span and item tasks and item runs' requests."""
        from fallacy_platform.liveness import register_sweep

        from annotations import orderings
        from annotations.backups.format import register_part
        from annotations.importing.label_studio import register_prediction_importer
        from annotations.services.hf_exports import register_item_profiles
        from annotations.services.label_studio_exports import register_prediction_exporter
        from evaluation.agreement.jobs import adjudication_order
        from evaluation.items.runs import item_parser, item_prompts
        from evaluation.items.scorer import ITEM_RUN_SCORER
        from evaluation.models import SuggestionSettings
        from evaluation.runs.backups import PART
        from evaluation.runs.label_studio import export_predictions, import_predictions
        from evaluation.runs.liveness import fail_stale_scoring, fail_stale_shards
        from evaluation.runs.prompts import register_item_requests
        from evaluation.runs.scored import SPAN_RUN_SCORER
        from evaluation.runs.scorers import ITEMS, SPANS, register_run_scorer
        from evaluation.scoring.item_profiles import describe_profiles
        from evaluation.suggestions.services import disagreement_first
        from evaluation.synthesis.liveness import fail_stale_generation_jobs

        orderings.register_disagreement_first(disagreement_first)
        orderings.register_adjudication_order(adjudication_order)
        orderings.register_queue_settings(SuggestionSettings)
        register_sweep(fail_stale_shards, fail_stale_scoring, fail_stale_generation_jobs)
        register_part(PART)
        register_item_profiles(describe_profiles)
        register_prediction_importer(import_predictions)
        register_prediction_exporter(export_predictions)
        register_run_scorer(SPANS, SPAN_RUN_SCORER)
        register_run_scorer(ITEMS, ITEM_RUN_SCORER)
        register_item_requests(prompts=item_prompts, parser=item_parser)
