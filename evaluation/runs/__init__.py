"""Model runs: a model answering a benchmark task over a gold version (or an item project).

- ``api`` / ``serializers``: the REST API of prompt variants, launch options, runs and the
  leaderboard; ``scores_api``: scoring stored runs and annotators, annotator agreement.
- ``services``: launch, cancel, resume, rescore, and the state changes of jobs;
  ``variants``: new prompt-variant versions; ``imports``: published raw results as a run.
- ``selectors``: visible runs and their scores; ``leaderboard``: one gold version's table.
- ``stored`` / ``references``: stored data as the scoring package's objects;
  ``prompts``: a run's requests from the database.
- worker side: ``supervisor`` (the shard's Celery task) starts ``runner`` (one shard through
  a model), which writes through ``outputs``; ``liveness``: heartbeats and the sweep.
"""
