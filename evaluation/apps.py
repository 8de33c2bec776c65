from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        """Hook evaluation's rules into the annotation app (which imports no evaluation) and
        register the sweeps that fail jobs whose process died."""
        from fallacy_platform.liveness import register_sweep

        from annotations import queue_order
        from evaluation.services.generation_liveness import fail_stale_generation_jobs
        from evaluation.services.run_liveness import fail_stale_scoring, fail_stale_shards
        from evaluation.services.suggestions import disagreement_first

        queue_order.register_disagreement_first(disagreement_first)
        register_sweep(fail_stale_shards, fail_stale_scoring, fail_stale_generation_jobs)
