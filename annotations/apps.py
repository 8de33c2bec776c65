from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "annotations"
    verbose_name = "Annotation"

    def ready(self) -> None:
        """Register the sweeps: import jobs whose process died are failed, documents an
        import left outside the search index are indexed."""
        from fallacy_platform.liveness import register_sweep

        from annotations.importing.liveness import fail_stale_import_jobs
        from annotations.services.search_index import index_left_pending

        register_sweep(fail_stale_import_jobs, index_left_pending)
