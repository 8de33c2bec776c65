"""Writes for evaluation, one transaction each (see each module's docstring).

- ``imports``: ``import_run`` stores a published raw-results file as a finished run.
- ``runs``: ``launch_runs`` (validates everything, creates runs and queues their shards),
  ``cancel_run``, ``resume_run``, ``rescore_run``; the state changes the Celery tasks make
  (``start_shard``, ``finish_shard``); ``score_and_store``.
- ``generation``: what the runner process writes as outputs complete.
"""

from evaluation.services.imports import RAW_RESULTS_FORMAT, RunImportError, import_run

__all__ = ["RAW_RESULTS_FORMAT", "RunImportError", "import_run"]
