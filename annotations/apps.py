from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "annotations"
    verbose_name = "Annotation"

    def ready(self) -> None:
        """Register the sweep that fails import jobs whose process died."""
        from fallacy_platform.liveness import register_sweep

        from annotations.importing.liveness import fail_stale_import_jobs

        register_sweep(fail_stale_import_jobs)
